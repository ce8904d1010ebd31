"""Regenerate docs/img/tco-example.png: the chart the Slack bot uploads for the docs' example scenario.

    python docs/img/make_tco_example.py

Runs the same path as a mention (bot.service.Advisor on the real catalog, parser and engine, then
bot.render.build_chart_view and bot.chart.tco_chart_png); no Slack, no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.chart import tco_chart_png  # noqa: E402
from bot.render import build_chart_view  # noqa: E402
from bot.service import Advisor  # noqa: E402

SCENARIO = "QLoRA 70B, 500GB corpus in S3, 20 runs, 1B tokens, 3 epochs"


def main() -> None:
    advisor = Advisor.open()
    response = advisor.respond(advisor.new_conversation(), SCENARIO)
    view = build_chart_view(response, advisor.display_names())
    if view is None:
        raise SystemExit("the scenario produced no TCO options")
    out = Path(__file__).with_name("tco-example.png")
    out.write_bytes(tco_chart_png(view.bars, view.title, view.subtitle))
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
