"""Regenerate docs/img/reply-example.png, reply-refinement.png, reply-serving.png and reply-does-not-fit.png:
Slack replies (first messages), rendered.

    python docs/img/make_reply_example.py [--html DIR]

Runs the same path as a mention (bot.service.Advisor on the real catalog, parser and engine, then
bot.render.render_response) for the docs' example scenario, the thread reply "what about 40
runs?", a serving question and a question that does not fit, turns the Block Kit blocks into an
HTML page styled like Slack's message view, and screenshots it with headless Chromium (`apt-get install chromium`; set CHROMIUM to use another binary). Pillow crops the
screenshot to the content. No Slack, no network. `--html DIR` also keeps the HTML pages in DIR.

A dev tool: only the block types bot/templates/*.json.j2 produce are drawn (header, section with text
and/or fields, context, divider, actions with buttons and a static_select).
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.render import render_response  # noqa: E402
from bot.service import Advisor  # noqa: E402

SCENARIO = "QLoRA 70B, 500GB corpus in S3, 20 runs, 1B tokens, 3 epochs"
REFINEMENT = "what about 40 runs?"
SERVING = "serve Llama 3.3 70B for 100 concurrent users at 8k context, p50 latency under 50ms per token"
DOES_NOT_FIT = "full fine-tune llama 3.1 70b on 2 A100 40GB"
WIDTH = 900
WINDOW_HEIGHT = 6000  # taller than any reply; the screenshot is cropped to the content
SCALE = 2  # device pixels per CSS pixel, for sharp text
PAD = 16  # background kept around the content when cropping, in CSS pixels
BACKGROUND = (255, 255, 255)

EMOJI = {"trophy": "🏆", "warning": "⚠️", "white_check_mark": "✅", "x": "❌", "memory": "🧠", "question": "❓"}

# ---------------------------------------------------------------------------------------------------------
# mrkdwn -> HTML


def _unslack(text: str) -> str:
    """Slack's own escapes (&amp; &lt; &gt;) back to characters; everything else is literal text."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")
_CODE = re.compile(r"```\n?(.*?)\n?```|`([^`\n]+)`", re.S)


def _inline(text: str) -> str:
    """Escaped plain text (no code) -> HTML with bold, italic, strike and emoji."""
    out = html.escape(_unslack(text), quote=False)
    out = _BOLD.sub(r"<b>\1</b>", out)
    out = _ITALIC.sub(r"<i>\1</i>", out)
    out = _STRIKE.sub(r"<s>\1</s>", out)
    return _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), out)


def mrkdwn(text: str) -> str:
    """Slack mrkdwn -> HTML. Code spans and blocks are taken out first so nothing inside them is styled."""
    parts: list[str] = []
    pos = 0
    for m in _CODE.finditer(text):
        parts.append(_inline(text[pos : m.start()]))
        if m.group(1) is not None:
            parts.append(f'<pre class="pre">{html.escape(_unslack(m.group(1)), quote=False)}</pre>')
        else:
            parts.append(f'<code>{html.escape(_unslack(m.group(2)), quote=False)}</code>')
        pos = m.end()
    parts.append(_inline(text[pos:]))
    return "".join(parts)


def plain(obj: dict[str, Any]) -> str:
    """A text object (plain_text or mrkdwn) -> HTML."""
    if obj.get("type") == "mrkdwn":
        return mrkdwn(obj.get("text", ""))
    return _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), html.escape(obj.get("text", ""), quote=False))


# ---------------------------------------------------------------------------------------------------------
# blocks -> HTML


def _element(el: dict[str, Any]) -> str:
    kind = el.get("type")
    if kind == "button":
        style = " primary" if el.get("style") == "primary" else " danger" if el.get("style") == "danger" else ""
        return f'<span class="btn{style}">{plain(el["text"])}</span>'
    if kind == "static_select":
        label = el.get("initial_option", {}).get("text") or el.get("placeholder") or {"text": "Select"}
        cls = "select" if "initial_option" in el else "select placeholder"
        return f'<span class="{cls}"><span>{plain(label)}</span><span class="chev"></span></span>'
    raise ValueError(f"no rendering for action element {kind!r}")


def block_html(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "header":
        return f'<div class="b header">{plain(block["text"])}</div>'
    if kind == "section":
        inner = ""
        if block.get("text"):
            inner += f'<div class="mrkdwn">{plain(block["text"])}</div>'
        if block.get("fields"):
            cells = "".join(f'<div class="mrkdwn">{plain(f)}</div>' for f in block["fields"])
            inner += f'<div class="fields">{cells}</div>'
        return f'<div class="b section">{inner}</div>'
    if kind == "context":
        items = "".join(f'<span class="mrkdwn">{plain(el)}</span>' for el in block.get("elements", ()))
        return f'<div class="b context">{items}</div>'
    if kind == "divider":
        return '<div class="b divider"></div>'
    if kind == "actions":
        return f'<div class="b actions">{"".join(_element(el) for el in block.get("elements", ()))}</div>'
    raise ValueError(f"no rendering for block type {kind!r}")


CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; background: #fff; }
body { font-family: Lato, "Helvetica Neue", "Liberation Sans", "DejaVu Sans", Arial, sans-serif,
       "Noto Color Emoji"; font-size: 15px; line-height: 22px; color: #1d1c1d;
       -webkit-font-smoothing: antialiased; padding: 8px 0; }
.channel { padding: 10px 20px 12px; border-bottom: 1px solid #e8e8e8; margin-bottom: 6px;
           font-weight: 900; font-size: 17px; }
.channel .sub { font-weight: 400; color: #616061; font-size: 13px; margin-left: 8px; }
.msg { display: flex; gap: 8px; padding: 8px 20px; }
.avatar { flex: 0 0 36px; width: 36px; height: 36px; border-radius: 6px; color: #fff;
          display: flex; align-items: center; justify-content: center; font-weight: 900; font-size: 15px; }
.avatar.bot { background: linear-gradient(135deg, #1264a3, #2bac76); font-size: 13px; letter-spacing: .5px; }
.avatar.user { background: #e8912d; }
.body { flex: 1 1 auto; min-width: 0; }
.name { line-height: 22px; }
.name b { font-weight: 900; }
.app { display: inline-block; background: rgba(29,28,29,.13); color: rgba(29,28,29,.7); font-size: 10px;
       font-weight: 700; line-height: 14px; padding: 0 3px; border-radius: 2px; vertical-align: 2px;
       margin-left: 4px; }
.time { color: #616061; font-size: 12px; margin-left: 6px; }
.mrkdwn { white-space: pre-wrap; overflow-wrap: anywhere; }
.b { margin: 8px 0; }
.header { font-size: 18px; line-height: 26px; font-weight: 900; margin: 4px 0 10px; }
.fields { display: grid; grid-template-columns: 1fr 1fr; column-gap: 16px; row-gap: 8px; margin-top: 8px;
          max-width: 620px; }
.section > .mrkdwn + .fields { margin-top: 8px; }
.context { color: #616061; font-size: 12.5px; line-height: 18px; margin: 8px 0; }
.context .mrkdwn { display: block; }
.context b { color: #4a4a4a; }
.divider { height: 1px; background: #dddddd; margin: 14px 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0 4px; }
.btn, .select { display: inline-flex; align-items: center; height: 32px; padding: 0 14px; border-radius: 4px;
                border: 1px solid rgba(29,28,29,.3); background: #fff; font-size: 14px; font-weight: 700;
                white-space: nowrap; }
.btn.primary { background: #007a5a; color: #fff; border-color: #007a5a; }
.btn.danger { color: #e01e5a; }
.select { font-weight: 400; gap: 24px; padding-right: 12px; }
.select.placeholder { color: #616061; }
.chev { width: 7px; height: 7px; border-right: 2px solid #616061; border-bottom: 2px solid #616061;
        transform: rotate(45deg); margin-top: -4px; }
code { font-family: Monaco, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; color: #c01343;
       background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13); border-radius: 3px;
       padding: 2px 3px 1px; }
.pre { font-family: Monaco, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; line-height: 18px;
       background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13); border-radius: 4px;
       padding: 8px; margin: 4px 0; white-space: pre-wrap; }
b { font-weight: 700; }
"""


def message_html(name: str, avatar: str, body: str, *, app: bool, time: str) -> str:
    badge = '<span class="app">APP</span>' if app else ""
    cls = "bot" if app else "user"
    return (f'<div class="msg"><div class="avatar {cls}">{html.escape(avatar)}</div><div class="body">'
            f'<div class="name"><b>{html.escape(name)}</b>{badge}<span class="time">{html.escape(time)}</span>'
            f'</div>{body}</div></div>')


def page_html(title: str, subtitle: str, prompt: str, messages: Iterable[list[dict[str, Any]]]) -> str:
    """The user's message, then the bot's reply (one or more Slack messages), as one HTML page."""
    parts = [f'<div class="channel">{html.escape(title)}<span class="sub">{html.escape(subtitle)}</span></div>',
             message_html("Ana", "A", f'<div class="mrkdwn">{html.escape(prompt)}</div>', app=False, time="10:42 AM")]
    for blocks in messages:
        body = "".join(block_html(b) for b in blocks)
        parts.append(message_html("GPU Advisor", "GPU", body, app=True, time="10:42 AM"))
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<style>{CSS}</style></head><body>{"".join(parts)}</body></html>')


# ---------------------------------------------------------------------------------------------------------
# screenshot


def chromium() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate) or candidate
    raise SystemExit("headless Chromium not found: apt-get install chromium (or set CHROMIUM)")


def screenshot(page: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        raw = Path(profile) / "shot.png"
        subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}/data", "--hide-scrollbars", f"--force-device-scale-factor={SCALE}",
             f"--window-size={WIDTH},{WINDOW_HEIGHT}", f"--screenshot={raw}", page.as_uri()],
            check=True, capture_output=True, timeout=180)
        with Image.open(raw) as shot:
            image = shot.convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, BACKGROUND)).getbbox()
    if box is None:
        raise SystemExit(f"{page.name}: the screenshot is blank")
    if box[3] >= image.height - 2:
        raise SystemExit(f"{page.name}: the content is taller than the {WINDOW_HEIGHT}px window")
    image = image.crop((0, 0, image.width, min(image.height, box[3] + PAD * SCALE)))
    # 256 colours are plenty for text on white and keep the file a third of the size
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, optimize=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--html", type=Path, help="also keep the HTML pages in this directory")
    args = ap.parse_args()

    advisor = Advisor.open()
    names = advisor.display_names()
    conversation = advisor.new_conversation()
    first = advisor.respond(conversation, SCENARIO)
    second = advisor.respond(conversation, REFINEMENT, previous=first.advice)
    pages = {
        "reply-example": page_html("# ml-infra", "a mention", f"@GPU Advisor {SCENARIO}",
                                   [m.blocks for m in render_response(first, names)]),
        "reply-refinement": page_html("Thread", "# ml-infra · a reply, no mention needed", REFINEMENT,
                                      [m.blocks for m in render_response(second, names)]),
    }
    for stem, question in (("reply-serving", SERVING), ("reply-does-not-fit", DOES_NOT_FIT)):
        response = advisor.respond(advisor.new_conversation(), question)
        pages[stem] = page_html("# ml-infra", "a mention", f"@GPU Advisor {question}",
                                [m.blocks for m in render_response(response, names)])
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        for stem, text in pages.items():
            page = Path(tmp) / f"{stem}.html"
            page.write_text(text, encoding="utf-8")
            if args.html:
                args.html.mkdir(parents=True, exist_ok=True)
                (args.html / page.name).write_text(text, encoding="utf-8")
            out = here / f"{stem}.png"
            screenshot(page, out)
            print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
