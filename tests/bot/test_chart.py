"""The TCO chart: a valid, deterministic PNG for the options a reply lists, robust to odd inputs, and
the replier's upload is an extra that never breaks the answer."""

from __future__ import annotations

import io
import logging
from unittest.mock import Mock

import pytest
from PIL import Image
from slack_sdk.errors import SlackApiError

from bot.chart import SEGMENTS, WIDTH_PX, ChartBar, tco_chart_png
from bot.config import Config
from bot.formatting import fmt_usd, shown_options
from bot.render import build_chart_view
from bot.replies import Replier
from bot.service import Response
from bot.state import ThreadKey
from tests.bot.factories import make_advice
from tests.bot.stub import stub_advisor

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SEGMENT_COLOURS = {item: colour for item, colour in SEGMENTS}


def bar(name: str, compute: float, storage: float = 11.5, egress: float = 0.0, managed: float = 0.0, *,
        winner: bool = False, note: str = "") -> ChartBar:
    total = compute + storage + egress + managed
    return ChartBar(name, (("compute", compute), ("storage", storage), ("egress", egress), ("managed", managed)),
                    total, f"${total:,.0f}", winner, note)


CASES = {
    "one option": [bar("Lambda 1x H100 SXM5 80GB (on-demand)", 2000, winner=True)],
    "eight options": [bar(f"Provider{i} 8x H100 SXM5 80GB (on-demand)", 2000 + 900 * i, 40, 300 * (i % 3),
                          note="dataset pulled every run" if i % 2 else "", winner=i == 2) for i in range(8)],
    "zero-dollar rows": [bar("Owned cluster", 0, 0, winner=True), bar("Free tier", 0, 0, 0, 0)],
    "$4M beside $900": [bar("Big 1024x H100", 4_000_000, 500, 2000, 800_000), bar("Small 1x T4", 880, 20, winner=True)],
    "very long names": [bar("X" * 500, 5000, winner=True), bar("long provider name " * 30, 7000, note="n " * 200)],
    "odd glyphs and values": [bar("São Paulo — 2× A100\tnew\nline ★ 中文", float("nan"), -5, float("inf"))],
    "no options": [],
}


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


@pytest.mark.parametrize("bars", CASES.values(), ids=CASES.keys())
def test_chart_is_a_valid_deterministic_png(bars: list[ChartBar]) -> None:
    png = tco_chart_png(bars, "Monthly cost (TCO): QLoRA Llama 3 70B " * 3, "20 run(s) a month · dataset pulled every run")
    assert png.startswith(PNG_SIGNATURE)
    image = decode(png)
    assert image.width == WIDTH_PX
    assert 200 <= image.height <= 200 + 80 * max(len(bars), 1) + 100
    assert png == tco_chart_png(bars, "Monthly cost (TCO): QLoRA Llama 3 70B " * 3,
                                "20 run(s) a month · dataset pulled every run")


def test_bars_grow_with_the_options_and_tiny_amounts_stay_visible() -> None:
    one = decode(tco_chart_png(CASES["one option"], "t"))
    eight = decode(tco_chart_png(CASES["eight options"], "t"))
    assert eight.height > one.height
    image = decode(tco_chart_png(CASES["$4M beside $900"], "t"))
    compute = SEGMENT_COLOURS["compute"].lstrip("#")
    rgb = tuple(int(compute[i:i + 2], 16) for i in (0, 2, 4))
    rows_with_compute = {y for y in range(image.height) for x in range(28, 40) if image.getpixel((x, y)) == rgb}
    # two bars with a compute segment: the $880 one is a few pixels wide, not invisible
    assert len(rows_with_compute) >= 2 * 20


def test_chart_view_shows_the_options_the_reply_lists() -> None:
    advice = make_advice(n_options=8)
    response = Response("QLoRA 70B", "describe", advice.workload, advice)
    view = build_chart_view(response, {"llama-3-70b": "Llama 3 70B"})
    assert view is not None
    listed = shown_options(advice)
    assert [b.name for b in view.bars] == [o.name for o in listed]
    assert [b.winner for b in view.bars] == [o.name == advice.recommendation.primary for o in listed]
    assert [b.total for b in view.bars] == [fmt_usd(o.total_usd) for o in listed]
    assert dict(view.bars[1].segments)["egress"] == 900.0  # values straight from the Advice
    assert "Llama 3 70B" in view.title and "20 run(s)" in view.subtitle and "pulled every run" in view.subtitle


@pytest.mark.parametrize(("intent", "n_options", "changes"), [
    ("help", 3, []), ("gibberish", 3, []), ("describe", 0, []),
])
def test_no_chart_without_a_costed_answer(intent: str, n_options: int, changes: list[str]) -> None:
    advice = make_advice(n_options=n_options)
    assert build_chart_view(Response("x", intent, advice.workload, advice, changes)) is None
    assert build_chart_view(Response("x", "describe", None, None)) is None


@pytest.mark.parametrize(("value", "on"), [(None, True), ("1", True), ("0", False), ("off", False), ("false", False)])
def test_charts_switch_is_read_from_the_environment(value: str | None, on: bool) -> None:
    env = {} if value is None else {"GPU_ADVISOR_CHARTS": value}
    assert Config.from_env(env).charts is on


def _replier(tmp_path, charts: bool = True) -> tuple[Replier, Mock]:
    from bot.state import ThreadStore

    client = Mock()
    client.chat_postMessage.return_value = Mock(data={"ok": True})
    return Replier(stub_advisor(), ThreadStore(tmp_path / "t.db"), charts=charts), client


KEY = ThreadKey("T1", "C1", "1700000001.000100")


def test_chart_is_offered_and_uploaded_when_asked_for(tmp_path) -> None:
    replier, client = _replier(tmp_path)
    replier.turn(client, KEY, "qlora 70b 20 runs")
    assert not client.files_upload_v2.called  # offered (a button), not pushed
    assert "show_chart" in str(client.chat_postMessage.call_args.kwargs["blocks"])
    replier.turn(client, KEY, "chart")
    assert [c[0] for c in client.mock_calls if c[0] in ("chat_postMessage", "files_upload_v2")] == [
        "chat_postMessage", "files_upload_v2"]
    kwargs = client.files_upload_v2.call_args.kwargs
    assert kwargs["channel"] == "C1" and kwargs["thread_ts"] == KEY.thread_ts and kwargs["filename"] == "tco.png"
    assert kwargs["file"].startswith(PNG_SIGNATURE) and kwargs["initial_comment"] is None


@pytest.mark.parametrize("error", [
    SlackApiError("missing_scope", Mock(get=lambda k, d=None: {"error": "missing_scope"}.get(k, d))),
    OSError("connection refused"),
])
def test_upload_failure_is_logged_and_swallowed(tmp_path, caplog: pytest.LogCaptureFixture, error: Exception) -> None:
    replier, client = _replier(tmp_path)
    client.files_upload_v2.side_effect = error
    with caplog.at_level(logging.WARNING):
        assert replier.turn(client, KEY, "qlora 70b 20 runs") is not None
        assert replier.turn(client, KEY, "show chart") is not None
    assert client.chat_postMessage.call_count == 2  # the answer, then a one-line note: no apology
    assert "could not be posted" in client.chat_postMessage.call_args.kwargs["text"]
    assert "TCO chart not uploaded" in caplog.text


def test_no_upload_when_switched_off_or_for_gibberish(tmp_path) -> None:
    replier, client = _replier(tmp_path, charts=False)
    replier.turn(client, KEY, "qlora 70b 20 runs")
    assert "show_chart" not in str(client.chat_postMessage.call_args.kwargs["blocks"])
    replier.turn(client, KEY, "chart")
    replier, client2 = _replier(tmp_path / "x")
    replier.turn(client2, KEY, "purple monkey dishwasher")
    assert not client.files_upload_v2.called and not client2.files_upload_v2.called
