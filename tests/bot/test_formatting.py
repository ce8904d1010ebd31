"""Money as an engineer writes it: cents only where they matter, no false precision on millions."""

from __future__ import annotations

import pytest

from bot.formatting import fmt_usd, fmt_usd_short


@pytest.mark.parametrize(("value", "text"), [
    (0.0912, "$0.09"), (87.774, "$87.77"), (99.994, "$99.99"), (100.0, "$100"), (77_919.4, "$77,919"),
    (999_999.0, "$999,999"), (1_000_000.0, "$1.00M"), (15_880_169.0, "$15.88M"), (62_000_000.0, "$62.00M"),
    (-2_500_000.0, "-$2.50M"), (-248.0, "-$248"), (None, "?"),
])
def test_fmt_usd_keeps_dollars_below_a_million_and_four_figures_above(value: float | None, text: str) -> None:
    assert fmt_usd(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (9_999.0, "$9,999"), (10_000.0, "$10k"), (121_400.0, "$121k"), (999_400.0, "$999k"), (4_410_413.0, "$4.41M"), (-12_345.0, "-$12k"),
    (None, "?"),
])
def test_fmt_usd_short_rounds_the_comparison_column(value: float | None, text: str) -> None:
    assert fmt_usd_short(value) == text


def test_tidy_plurals_reads_as_the_look_behind_first_patterns_did() -> None:
    """The patterns open with what they consume (for speed) instead of the look-behind: every text gives
    what the look-behind-first patterns give (reply-like texts, JSON escapes, other scripts' digits,
    the start of the text)."""
    import itertools
    import random
    import re

    from bot.formatting import _counted, tidy_plurals

    slot = re.compile(r"(?<![\d.,$])(\d[\d,]*(?:\.\d+)?) ((?:[a-z-]+ )?)([A-Za-z-]+)\(s\)")
    one = re.compile(r"(?<![\d.,$])\b1 (GPU|node|run|replica|user|sequence|epoch|instance|host|offer)s\b")

    def before(text: str) -> str:
        return one.sub(r"1 \1", slot.sub(_counted, text))

    pieces = ["1 ", "1 GPUs", "1 nodes", "21 runs", "1 run(s)", "3 GPU(s)", "x1 users", "$1 hosts", ".1 offers",
              "1,000 epoch(s)", "2.5 more node(s)", "spot price(s)", "(s)", "1 GPUsx", "\\u00d71 replicas",
              "é1 instances", "٣1 runs", "_1 runs", "٣ run(s)", " ", ",", "-", "$", "."]
    rng = random.Random(7)
    texts = ["".join(p) for p in itertools.product(pieces, repeat=2)]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(5000)]
    for text in texts:
        assert tidy_plurals(text) == before(text), text
    assert tidy_plurals(None) is None and tidy_plurals(3) == 3


def test_wall_clock_under_100_hours_keeps_its_tenth_beside_the_gpu_hours() -> None:
    """A one-GPU run of 50.2 GPU-hours plus start-up read "50 h" next to "50.2 GPU-hours": less than its own part."""
    from bot.formatting import fmt_hours

    assert [fmt_hours(h) for h in (0.5, 12.34, 50.45, 99.94, 114.2)] == [
        "30 min", "12.3 h", "50.5 h (2.1 days)", "99.9 h (4.2 days)", "114 h (4.8 days)"]
    assert fmt_hours(50.45, compact=True) == "2.1 days"
