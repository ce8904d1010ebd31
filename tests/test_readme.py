"""The README's examples are drawn from the tested parser corpus, and its commands stay true."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _corpus_texts() -> set[str]:
    data = yaml.safe_load((ROOT / "tests" / "parser" / "corpus.yaml").read_text(encoding="utf-8"))
    entries = data["entries"] if isinstance(data, dict) and "entries" in data else data
    return {str(e["text"]).strip() for e in entries}


def test_readme_examples_are_corpus_entries() -> None:
    block = README.split("<!-- readme-examples")[1].split("<!-- /readme-examples -->")[0]
    examples = re.findall(r"^- `(.+)`$", block, flags=re.M)
    assert len(examples) >= 5
    corpus = _corpus_texts()
    missing = [e for e in examples if e not in corpus]
    assert not missing, f"README examples not in tests/parser/corpus.yaml: {missing}"


def test_readme_commands_match_ci_and_packaging() -> None:
    assert "pip install -e . && gpu-advisor ask" in README
    assert "pip install -e '.[dev]' && python -m pytest" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install" in ci and "-e '.[dev]'" in ci and "python -m pytest" in ci


def test_readme_links_exist() -> None:
    for target in re.findall(r"\]\(((?:docs/|manifest)[^)#]+)\)", README):
        assert (ROOT / target).exists(), target
