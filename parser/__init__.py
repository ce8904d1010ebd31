"""Text -> Workload: the advisor's message parser.

`parse` reads one message into a `Reading` (never raises); `Conversation` applies Readings to
one thread's scenario (follow-up questions, refinements, undo). Names are resolved through an
injected `NameResolver` (the catalog's resolver in production), so this package imports only
`engine.models`. The grammar lives in `grammar.lark`.
"""

from .capacity import (
    CAPACITY_CUE,
    RATE_CUE,
    VERSUS_CUE,
    VERSUS_SEP,
    capacity_asked,
    max_context_asked,
    request_rate_asked,
)
from .conversation import Conversation, Turn
from .examples import EXAMPLES, HELP_TEXT
from .parsing import parse, use_grammar_cache
from .questions import Question, questions_for
from .reading import Conflict, InstanceResolver, NameResolver, Reading

__all__ = [
    "use_grammar_cache",
    "EXAMPLES",
    "HELP_TEXT",
    "Conflict",
    "Conversation",
    "InstanceResolver",
    "NameResolver",
    "Question",
    "Reading",
    "Turn",
    "parse",
    "questions_for",
    "CAPACITY_CUE",
    "RATE_CUE",
    "VERSUS_CUE",
    "VERSUS_SEP",
    "capacity_asked",
    "max_context_asked",
    "request_rate_asked",
]
