"""docs/things-you-can-say.md is exactly what render_docs.py makes of the tested corpus."""

from __future__ import annotations

from render_docs import DOC, render


def test_things_you_can_say_matches_corpus() -> None:
    assert DOC.exists(), "run: python tests/parser/render_docs.py"
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/things-you-can-say.md drifted from tests/parser/corpus.yaml; run: python tests/parser/render_docs.py"
    )
