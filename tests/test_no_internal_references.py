"""No answer and no file in the repository points at documents a user or maintainer cannot open.

Two checks. (1) Every parser corpus entry and every panel question (tests/data/panel_questions.txt)
is answered and rendered as Slack blocks, as terminal text (summary and `--details`) and as JSON; none
may name the internal working documents this project started from. (2) Every text file git tracks is
searched for the same words and for paths that leave the repository. A figure should cite its public
source (a vendor datasheet, a pricing page, a paper, a model's config.json on huggingface.co), and a
deliberate difference from a naive calculation should be said in plain words.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from bot.details import build_details_view, build_options_view, render_details, render_options
from bot.render import build_formulas_view, render_formulas, render_response
from bot.terminal import render_terminal

ROOT = Path(__file__).resolve().parent.parent
# Built from pieces so that this file does not match itself.
WORDS = re.compile("|".join((
    r"\bseed[ _-]?0\d\d", r"\bseed articles?\b", r"\bseeds'", "ERR" + "ATA", r"\.\./" + "shared",
    "shared" + "/reference", r"[\"']" + "shared" + r"[\"']\s*/\s*[\"']reference",  # a path built with pathlib's /
)), re.IGNORECASE)
TEXT_SUFFIXES = {".py", ".md", ".txt", ".j2", ".lark", ".yaml", ".yml", ".toml", ".csv", ".json", ".cfg", ".ini", ""}


def questions() -> list[str]:
    corpus = yaml.safe_load((ROOT / "tests" / "parser" / "corpus.yaml").read_text(encoding="utf-8"))
    panel = (ROOT / "tests" / "data" / "panel_questions.txt").read_text(encoding="utf-8").splitlines()
    return [str(e["text"]) for e in corpus] + [q for q in panel if q.strip() and not q.startswith("#")]


def leaks(text: str) -> list[str]:
    """The words around each match (digits as #, so one template is reported once): which string to fix."""
    return [re.sub(r"\d", "#", text[max(m.start() - 50, 0): m.end() + 50]).replace("\\n", " ").replace("\n", " ")
            for m in WORDS.finditer(text)]


@pytest.fixture(scope="module")
def advisor():
    from bot.service import Advisor

    return Advisor.open()


def test_no_answer_names_an_internal_document(advisor) -> None:
    names = advisor.display_names()
    seen: dict[str, set[str]] = defaultdict(set)  # leaking line -> questions
    for question in questions():
        response = advisor.vram(question)
        rendered = [json.dumps([m.blocks for m in render_response(response, names)], ensure_ascii=False),
                    "\n".join(m.text for m in render_response(response, names)),
                    render_terminal(response, names, details=True),
                    json.dumps(advisor.contract(response), ensure_ascii=False)]
        if response.advice is not None:
            for messages in (render_details(build_details_view(response.advice, names)),
                             render_options(build_options_view(response.advice, names)),
                             render_formulas(build_formulas_view(response.advice))):
                rendered.append(json.dumps([m.blocks for m in messages], ensure_ascii=False))
        for text in rendered:
            for line in leaks(text):
                seen[line].add(question)
    report = [f"{line!r}  (e.g. {sorted(qs)[0]!r}, {len(qs)} question(s))" for line, qs in sorted(seen.items())]
    assert not report, f"{len(report)} answer strings name internal documents:\n" + "\n".join(report[:60])


def tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [ROOT / p for p in listed.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an unpacked sdist): walk the tree
        files = [p for p in ROOT.rglob("*") if p.is_file() and not any(
            part.startswith(".") or part in ("build", "dist") or part.endswith(".egg-info") for part in
            p.relative_to(ROOT).parts)]
    return [p for p in files if p.suffix in TEXT_SUFFIXES and p.is_file() and p != Path(__file__).resolve()]


def test_no_tracked_file_names_an_internal_document_or_leaves_the_repository() -> None:
    files = tracked_text_files()
    assert len(files) > 50, "the file listing found almost nothing: is this the repository root?"
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), start=1):
            if WORDS.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:160]}")
    assert not found, f"{len(found)} lines name internal documents or paths outside the repository:\n" + \
        "\n".join(found[:80])
