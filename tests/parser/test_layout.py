"""The grammar ships as package data and keeps the house rules; the parser needs no catalog."""

from __future__ import annotations

import re
from importlib import resources

import parser
from parser import parse


def test_grammar_is_package_data_with_a_header() -> None:
    text = resources.files("parser").joinpath("grammar.lark").read_text(encoding="utf-8")
    assert text.startswith("// gpu-advisor")
    assert text.count("%ignore") == 1


def test_every_priority_has_a_comment() -> None:
    lines = resources.files("parser").joinpath("grammar.lark").read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^[A-Z_]+\.-?\d+:", line) and not line.split(":")[0].endswith(".3"):
            assert lines[index - 1].startswith("//"), f"priority without a comment: {line[:40]}"


def test_parse_works_without_a_resolver() -> None:
    reading = parse("QLoRA 70B on 8x H100")
    assert reading.updates["mode"] == "qlora" and reading.updates["gpu_count"] == 8
    assert reading.unknown_names  # the GPU could not be looked up, and says so


def test_public_names() -> None:
    for name in ("parse", "Reading", "NameResolver", "questions_for", "Conversation", "Turn", "Question",
                 "HELP_TEXT", "EXAMPLES"):
        assert hasattr(parser, name)
