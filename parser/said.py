"""`Said`: what one recognised phrase contributes, before the message is read as a whole.

Every rule method returns one, the neighbour passes rewrite them, and `fold` combines them into a
`Reading`; it lives in its own module so those stages can share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.models import Problem


@dataclass
class Said:
    """One recognised phrase: the fields it sets and what the reply should mention."""

    kind: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    cues: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    bare: tuple[Any, ...] = ()
    word: bool = False  # a filler that is one plain word: may be a bare name after a verb
    requests_per_s: float | None = None  # "50 qps": becomes tokens/s once the response length is known
    per_node: int | None = None  # "8 GPUs per node": multiplied by the node count said elsewhere
    count: float | None = None  # "50k tokens": the count, read as data or context by its neighbours
    # "500M tokens a day": prompt + output tokens a second averaged over the period, and the period ("day"); a load
    # when serving (see `amounts._token_loads`), the training data otherwise
    load: tuple[float, str] | None = None
    io_field: str | None = None  # "input"/"out": takes the number beside it as prompt/output tokens
    # fields a name implies but no phrase said ("…-AWQ" is a 4-bit checkpoint): value and the note that says so,
    # applied by the fold only when nothing in the message sets the field and the message is about serving
    implied: dict[str, tuple[Any, str]] = field(default_factory=dict)
    # "A100 or H100", "A100 vs H100", "H100 vs H200 vs B200": the GPUs a question compares, as said (the first is
    # planned; see `hardware._compared_gpus`)
    compared: tuple[str, ...] | None = None
    # "p99 end-to-end latency under 5 s": a whole reply's time, split by the fold into a first token and a per-user
    # speed once the reply length is known (`fold.end_to_end_split`)
    end_to_end_s: float | None = None
    # "AWQ int4 vs FP8": the two weight precisions compared, as Workload values (the first is applied)
    compared_precisions: tuple[str, str] | None = None
