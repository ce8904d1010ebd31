"""`parse(text, resolver) -> Reading`: normalize, run the LALR grammar, fold the phrases.

The grammar is loaded once at import (LALR tables are built in a few milliseconds and reused).
`parse` never raises: the grammar accepts any normalized text by construction, and if Lark
still objects (a grammar bug) the message is read as filler only, with a note saying so.
"""

from __future__ import annotations

import logging
from typing import Any

from lark import Lark
from lark.exceptions import LarkError

from .normalize import normalize
from .reading import NameResolver, Reading
from .transformer import MessageTransformer

log = logging.getLogger(__name__)

GRAMMAR = Lark.open("grammar.lark", rel_to=__file__, parser="lalr", lexer="contextual", maybe_placeholders=False)

FALLBACK_NOTE = "I could not read that message as a whole; I only looked for a few keywords."


def parse(
    text: str,
    resolver: NameResolver | None = None,
    *,
    current: Any = None,
) -> Reading:
    """Read one message. `current` (a Workload, optional) lets "batch 16" mean concurrency when
    serving, and "50 qps" become tokens/s with the thread's response length."""
    current_mode = getattr(current, "mode", None)
    current_output_tokens = getattr(current, "output_tokens", None)
    normalized = ""
    try:
        normalized = normalize(text if isinstance(text, str) else str(text))
        tree = GRAMMAR.parse(normalized)
        reading = MessageTransformer(resolver, current_mode, current_output_tokens).transform(tree)
        return reading.model_copy(update={"text": normalized})
    except LarkError as error:  # includes VisitError from a transformer method
        log.warning("parser fallback for %r: %s", normalized[:200], error)
        return Reading(text=normalized, intent="gibberish", notes=(FALLBACK_NOTE,))
