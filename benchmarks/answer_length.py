"""How long is the first message? Median and worst over the panel questions and the parser corpus.

    python benchmarks/answer_length.py              # both sets, one table
    python benchmarks/answer_length.py --worst 3    # also name the three longest answers per measure

Slack characters are the characters of every text object in the blocks (what a reader scrolls past,
without the JSON around it); blocks are the first message's blocks; Slack lines are
`bot.limits.shown_lines` (text lines, field pairs, buttons); terminal lines are the lines
`gpu-advisor ask` prints. Figures are printed, never asserted: the limits themselves are checked by
tests/bot/test_render*.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PANEL = ROOT / "tests" / "data" / "panel_questions.txt"
CORPUS = ROOT / "tests" / "parser" / "corpus.yaml"


def questions(path: Path) -> list[str]:
    if path.suffix == ".yaml":
        import yaml

        return [str(entry["text"]) for entry in yaml.safe_load(path.read_text(encoding="utf-8"))]
    return [q for q in (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
            if q and not q.startswith("#")]


def text_chars(node: Any) -> int:
    """Characters of every `text` string in a block tree."""
    if isinstance(node, dict):
        own = len(node["text"]) if isinstance(node.get("text"), str) else 0
        return own + sum(text_chars(v) for k, v in node.items() if k != "text" or not isinstance(v, str))
    if isinstance(node, list):
        return sum(text_chars(v) for v in node)
    return 0


def measure(texts: Iterable[str]) -> list[tuple[str, int, int, int, int]]:
    from bot.limits import shown_lines
    from bot.render import render_response
    from bot.service import Advisor
    from bot.terminal import render_terminal

    advisor = Advisor.open()
    names = advisor.display_names()
    rows = []
    for text in texts:
        response = advisor.vram(text)  # what `ask` and a first mention answer
        first = render_response(response, names)[0]
        lines = render_terminal(response, names).rstrip("\n").count("\n") + 1
        rows.append((text, text_chars(first.blocks), len(first.blocks), shown_lines(first.blocks), lines))
    return rows


def summary(label: str, rows: list[tuple[str, int, int, int, int]], worst: int) -> list[str]:
    out = []
    for index, measure_name in ((1, "Slack characters"), (2, "Slack blocks"), (3, "Slack lines (about)"),
                                (4, "terminal lines")):
        values = [r[index] for r in rows]
        out.append(f"| {label} ({len(rows)}) | {measure_name} | {statistics.median(values):g} | {max(values)} |")
        for row in sorted(rows, key=lambda r: -r[index])[:worst]:
            out.append(f"|  | {row[index]} | {row[0][:60]!r} | |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worst", type=int, default=0, help="name the N longest answers per measure")
    args = parser.parse_args(argv)
    lines = ["| set | measure | median | worst |", "|---|---|---|---|"]
    for label, path in (("panel", PANEL), ("corpus", CORPUS)):
        lines += summary(label, measure(questions(path)), args.worst)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
