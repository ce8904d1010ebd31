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

from .names import glue_names
from .normalize import normalize
from .reading import NameResolver, Reading
from .transformer import MessageTransformer

log = logging.getLogger(__name__)

_GRAMMAR: Lark | None = None
_CACHE_FILE: str | None = None


def use_grammar_cache(path: str | None) -> None:
    """Let the caller (the bot/CLI, which owns files) name a file where Lark keeps the compiled
    LALR tables: building them is most of a cold start (~0.25 s). Lark keys the cache on the
    grammar's hash, so an edited grammar is rebuilt. Without a call the parser touches no file."""
    global _CACHE_FILE, _GRAMMAR
    if path != _CACHE_FILE:
        _CACHE_FILE, _GRAMMAR = path, None


def grammar() -> Lark:
    """The compiled grammar, built on first use (from the cache file when one was configured)."""
    global _GRAMMAR
    if _GRAMMAR is None:
        options = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": False}
        try:
            _GRAMMAR = Lark.open("grammar.lark", rel_to=__file__, cache=_CACHE_FILE or False, **options)
        except Exception:  # an unwritable or corrupt cache must never stop parsing
            _GRAMMAR = Lark.open("grammar.lark", rel_to=__file__, **options)
        _share_lexers(_GRAMMAR)
    return _GRAMMAR


def _share_lexers(lark: Lark) -> None:
    """Point the parser states whose lexers match the same terminals at one lexer. Lark keys a state's
    lexer on the parser's accepted terminals before the ignored ones are added, so states that lex
    identically still get separate lexers, each compiling its own scanner (one large regular
    expression, ~8 ms of a cold start) the first time it is used."""
    contextual: Any = getattr(lark.parser, "lexer", None)
    lexers = getattr(contextual, "lexers", None)
    if contextual is None or not isinstance(lexers, dict):
        return
    shared: dict[tuple[str, ...], Any] = {}
    for state, lexer in lexers.items():
        lexers[state] = shared.setdefault(tuple(t.name for t in lexer.terminals), lexer)
    root = getattr(contextual, "root_lexer", None)
    if root is not None:
        contextual.root_lexer = shared.get(tuple(t.name for t in root.terminals), root)

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
        normalized, found = glue_names(normalized, resolver)  # "mistral large 2" -> "mistral-large-2"
        tree = grammar().parse(normalized)
        reading = MessageTransformer(resolver, current_mode, current_output_tokens).transform(tree)
        return found.apply(reading.model_copy(update={"text": normalized}))
    except LarkError as error:  # includes VisitError from a transformer method
        log.warning("parser fallback for %r: %s", normalized[:200], error)
        return Reading(text=normalized, intent="gibberish", notes=(FALLBACK_NOTE,))
