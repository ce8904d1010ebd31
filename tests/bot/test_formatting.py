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
