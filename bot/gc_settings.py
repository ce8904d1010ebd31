"""Garbage-collector settings for the two ways the bot runs: a one-shot CLI command and a server.

Why: the objects of a turn (pydantic models, Block Kit dicts) are freed by reference counting; the
cyclic collector only walks them. With Python's default thresholds (a young collection every 700
net allocations) it ran ~2 collections per answer and took ~1 ms of a ~9 ms turn, walking the
catalog and every module's objects again in each older-generation pass. Measured in process over
200 answers: 1.0 ms -> 0.1 ms of collection per turn with `serving()`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

SERVING_THRESHOLDS = (10_000, 50, 100)  # young collection every 10k net allocations; older ones rarer


def serving() -> None:
    """Call once a server is built: what exists now (modules, catalog, compiled templates) lives as
    long as the process, so it is collected once and frozen out of every later collection."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_THRESHOLDS)


@contextmanager
def one_shot(*, exiting: bool = False) -> Iterator[None]:
    """No cyclic collection while a one-shot command imports and answers (its imports build thousands of
    objects and the process exits right after; ~60 ms of a cold `ask`). Restored afterwards, so a
    caller that runs commands in process (the tests) keeps its collector; unless `exiting` (the
    process ends with the command): re-enabling would make the next allocation collect every object
    the command built, and Python's shutdown runs one more full collection when the collector is on,
    ~15 ms of a cold `ask` spent tidying memory the operating system takes back anyway."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not exiting:
            gc.enable()
