"""Benchmark-only experiment, never part of the product: every process started with this directory first on
PYTHONPATH answers a workload it has planned before from memory (`Advisor.advise` memoised on the workload's
JSON). The end-to-end benchmark runs one server this way to measure what a turn costs when the engine's
planning takes no time: the floor that HTTP, Bolt, thread state, parse, render, commit and the Web API set.
"""

from __future__ import annotations

from typing import Any


def _memoise() -> None:
    from bot.service import Advisor

    planned: dict[str, Any] = {}
    advise = Advisor.advise

    def memoised(self: Advisor, workload: Any) -> Any:
        key = workload.model_dump_json()
        if key not in planned:
            planned[key] = advise(self, workload)
        return planned[key]

    Advisor.advise = memoised  # type: ignore[method-assign]


_memoise()
