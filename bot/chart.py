"""A PNG chart of the monthly cost (TCO) of the options a reply lists, drawn with Pillow.

Pure: `tco_chart_png(bars, title)` takes display-ready values (`bot.render.build_chart` selects and
formats them from the `Advice`, the same options as the reply) and returns PNG bytes, identical for
identical input. Nothing here talks to Slack, reads files or the network: the font is Pillow's
built-in one (`ImageFont.load_default`), so no system fonts are assumed.

Layout: one horizontal stacked bar per option (name above its bar, compute / storage / egress /
managed segments, the formatted total at the bar's end), the winner marked with a star and a tinted
row. The scale is linear from $0; a segment worth more than $0 but narrower than `MIN_SEGMENT_PX`
is drawn at that width so a $900 option stays visible beside a $4M one (a footnote says so).
"""

from __future__ import annotations

import io
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pillow is imported where a chart is drawn, not by every `import bot.render`
    from PIL import ImageDraw, ImageFont

# Segment order and colours (Okabe-Ito palette: distinguishable with the common colour-vision deficiencies).
SEGMENTS: tuple[tuple[str, str], ...] = (
    ("compute", "#0072B2"),
    ("storage", "#56B4E9"),
    ("egress", "#E69F00"),
    ("managed", "#009E73"),
)
WIDTH_PX = 960
# zlib level 1: a flat-colour chart compresses almost as well as at the default 6, in a fraction of the time
COMPRESS_LEVEL = 1
MARGIN_PX = 28
MIN_SEGMENT_PX = 3
BAR_HEIGHT_PX = 26
NAME_GAP_PX = 6  # between an option's name and its bar
ROW_GAP_PX = 16
INK = "#1d1d1f"
MUTED = "#5f6368"
WINNER_TINT = "#fff6d6"
STAR = "#d4a017"
ZERO_BAR = "#c4c7cc"
FONT_SIZES = {"title": 28, "subtitle": 19, "label": 20, "legend": 18, "note": 16}
ELLIPSIS = "…"
WINNER_TAG = "winner"
# Glyphs the built-in font lacks, with the nearest it has (anything else missing becomes "?").
_SUBSTITUTES = {"×": "x", "–": "-", "—": "-", "→": "->", "←": "<-", "−": "-", "€": "EUR", "✓": "v", "★": "*"}


@dataclass(frozen=True)
class ChartBar:
    """One option as the chart shows it; every value comes from the Advice, formatted by the caller."""

    name: str
    segments: tuple[tuple[str, float], ...]  # (TCO item, USD per month), items from SEGMENTS
    total_usd: float  # the option's monthly total (decides nothing but the label's meaning)
    total: str  # formatted total, drawn at the bar's end: "$9,876"
    winner: bool = False
    note: str = ""  # drawn after the name, e.g. the workflow when options differ in it


@dataclass(frozen=True)
class _Fonts:
    title: ImageFont.FreeTypeFont | ImageFont.ImageFont
    subtitle: ImageFont.FreeTypeFont | ImageFont.ImageFont
    label: ImageFont.FreeTypeFont | ImageFont.ImageFont
    legend: ImageFont.FreeTypeFont | ImageFont.ImageFont
    note: ImageFont.FreeTypeFont | ImageFont.ImageFont
    scalable: bool = field(default=True)


@lru_cache(maxsize=1)
def _fonts() -> _Fonts:
    """Pillow's embedded font at several sizes; the tiny bitmap font when FreeType is missing."""
    from PIL import ImageFont
    try:
        loaded = {k: ImageFont.load_default(size=v) for k, v in FONT_SIZES.items()}
        return _Fonts(**loaded, scalable=isinstance(loaded["label"], ImageFont.FreeTypeFont))
    except (TypeError, OSError, ImportError):  # Pillow without FreeType
        bitmap = ImageFont.load_default()
        return _Fonts(bitmap, bitmap, bitmap, bitmap, bitmap, scalable=False)


@lru_cache(maxsize=512)
def _has_glyph(char: str) -> bool:
    """Whether the built-in font draws `char` (a missing glyph renders as the same box as U+FFFF)."""
    if not _fonts().scalable:
        return 32 <= ord(char) < 127
    return _glyph_pixels(char) != _glyph_pixels("\uffff")


@lru_cache(maxsize=512)
def _glyph_pixels(char: str) -> bytes:
    from PIL import Image, ImageDraw

    font = _fonts().label
    image = Image.new("L", (48, 48))
    ImageDraw.Draw(image).text((4, 4), char, font=font, fill=255)
    return image.tobytes()


def _printable(text: str) -> str:
    out = []
    for char in " ".join(str(text).split()):  # newlines and tabs become single spaces
        if char == " " or _has_glyph(char):
            out.append(char)
        else:
            plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            sub = _SUBSTITUTES.get(char, plain or "?")
            out.append(sub if sub and all(_has_glyph(c) for c in sub) else "?")
    return "".join(out)


@lru_cache(maxsize=4096)
def _text_width(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, text: str) -> int:
    """Cached: the chart process measures the same labels (legend, options, totals) chart after chart."""
    left, _, right, _ = font.getbbox(text)
    return int(math.ceil(right - left))


@lru_cache(maxsize=16)
def _line_height(font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> int:
    _, top, _, bottom = font.getbbox("Ag$|")
    return int(math.ceil(bottom)) + 2


def _fit(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, text: str, max_px: int) -> str:
    """`text` shortened with "…" so it is at most `max_px` wide."""
    text = _printable(text)
    if _text_width(font, text) <= max_px:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if _text_width(font, text[:mid].rstrip() + ELLIPSIS) <= max_px:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ELLIPSIS


def _usd(value: float) -> float:
    """Negative, NaN or infinite amounts cannot be drawn as bar lengths: they count as $0."""
    return value if math.isfinite(value) and value > 0 else 0.0


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    points = []
    for i in range(10):
        angle = -math.pi / 2 + i * math.pi / 5
        radius = r if i % 2 == 0 else r * 0.45
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(points, fill=STAR)


def tco_chart_png(options: Sequence[ChartBar], title: str, subtitle: str = "") -> bytes:
    """Horizontal stacked bars of each option's monthly cost, as PNG bytes (deterministic)."""
    from PIL import Image, ImageDraw

    fonts = _fonts()
    inner = WIDTH_PX - 2 * MARGIN_PX
    title_h, sub_h, label_h = _line_height(fonts.title), _line_height(fonts.subtitle), _line_height(fonts.label)
    legend_h, note_h = _line_height(fonts.legend), _line_height(fonts.note)
    row_h = label_h + NAME_GAP_PX + BAR_HEIGHT_PX + ROW_GAP_PX
    header_h = MARGIN_PX + title_h + (sub_h + 4 if subtitle else 0) + 12 + legend_h + 18
    rows = list(options)
    body_h = row_h * max(len(rows), 1)
    footer_h = note_h + MARGIN_PX
    height = header_h + body_h + footer_h

    image = Image.new("RGB", (WIDTH_PX, height), "white")
    draw = ImageDraw.Draw(image)
    y = MARGIN_PX
    draw.text((MARGIN_PX, y), _fit(fonts.title, title, inner), font=fonts.title, fill=INK)
    y += title_h
    if subtitle:
        draw.text((MARGIN_PX, y + 4), _fit(fonts.subtitle, subtitle, inner), font=fonts.subtitle, fill=MUTED)
        y += sub_h + 4
    y += 12
    x = MARGIN_PX
    swatch = legend_h - 6
    for item, colour in SEGMENTS:
        draw.rectangle((x, y + 3, x + swatch, y + 3 + swatch), fill=colour)
        x += swatch + 8
        draw.text((x, y), item, font=fonts.legend, fill=INK)
        x += _text_width(fonts.legend, item) + 26
    y = header_h

    if not rows:
        draw.text((MARGIN_PX, y), "No priced options.", font=fonts.label, fill=MUTED)
    # bars share one linear scale; room is kept at the right for the widest total label and for
    # segments widened to the minimum
    totals = [_printable(bar.total) for bar in rows]
    label_room = max((_text_width(fonts.label, t) + (_text_width(fonts.note, WINNER_TAG) + 10 if bar.winner else 0)
                      for bar, t in zip(rows, totals, strict=True)), default=0) + 14
    bar_room = inner - label_room - MIN_SEGMENT_PX * len(SEGMENTS)
    colours = dict(SEGMENTS)
    longest = max((max(_usd(bar.total_usd), sum(_usd(v) for _, v in bar.segments)) for bar in rows), default=0.0)
    scale = bar_room / longest if longest > 0 else 0.0
    widened = False
    for bar, total in zip(rows, totals, strict=True):
        if bar.winner:
            draw.rectangle((MARGIN_PX - 10, y - 6, WIDTH_PX - MARGIN_PX + 10, y + row_h - ROW_GAP_PX + 6),
                           fill=WINNER_TINT)
        x = MARGIN_PX
        if bar.winner:
            _star(draw, x + label_h / 2 - 2, y + label_h / 2, label_h / 2 - 1)
            x += label_h + 2
        note = f"· {_printable(bar.note)}" if bar.note.strip() else ""
        note_w = min(_text_width(fonts.note, note), inner // 3) if note else 0
        note_gap = 10 if note else 0
        name = _fit(fonts.label, bar.name, WIDTH_PX - MARGIN_PX - x - note_w - note_gap)
        draw.text((x, y), name, font=fonts.label, fill=INK)
        if note:
            nx = x + _text_width(fonts.label, name) + note_gap
            draw.text((nx, y + 3), _fit(fonts.note, note, note_w), font=fonts.note, fill=MUTED)
        top = y + label_h + NAME_GAP_PX
        end = float(MARGIN_PX)  # where the next segment starts
        by_item = dict(bar.segments)
        for item, _ in SEGMENTS:
            usd = _usd(by_item.get(item, 0.0))
            if usd <= 0:
                continue
            width = usd * scale
            if width < MIN_SEGMENT_PX:
                width, widened = MIN_SEGMENT_PX, True
            draw.rectangle((round(end), top, round(end + width) - 1, top + BAR_HEIGHT_PX - 1), fill=colours[item])
            end += width
        if end == MARGIN_PX:  # a $0 option: a hairline so the row does not look missing
            draw.rectangle((MARGIN_PX, top, MARGIN_PX + 1, top + BAR_HEIGHT_PX - 1), fill=ZERO_BAR)
            end += 2
        label_y = top + (BAR_HEIGHT_PX - label_h) / 2
        draw.text((round(end) + 10, label_y), total, font=fonts.label, fill=INK)
        if bar.winner:
            tag_x = round(end) + 10 + _text_width(fonts.label, total) + 10
            if tag_x + _text_width(fonts.note, WINNER_TAG) <= WIDTH_PX - MARGIN_PX:
                draw.text((tag_x, label_y + 3), WINNER_TAG, font=fonts.note, fill=MUTED)
        y += row_h

    footnote = "Monthly cost per option in USD, linear scale from $0."
    if widened:
        footnote += " Very small amounts are drawn a few pixels wide so they stay visible."
    draw.text((MARGIN_PX, height - MARGIN_PX - note_h + 6), _fit(fonts.note, footnote, inner),
              font=fonts.note, fill=MUTED)

    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=COMPRESS_LEVEL)
    return out.getvalue()
