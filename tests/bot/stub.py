"""A stand-in for parser + engine + catalog with the documented shapes, for transport tests.

The bot's transport behaviour (threads, retries, signatures, limits) must not depend on the
estimator's numbers, so these tests drive `Advisor` with this stub; the end-to-end tests in
`test_e2e_http.py` (the `running` fixture, `real_advisor` in conftest.py) run the real packages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.service import Advisor
from engine.models import Advice, Workload
from tests.bot.factories import make_advice


@dataclass
class StubTurn:
    workload: Workload
    intent: str
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # field -> (old, new), as the parser
    questions: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


class StubConversation:
    def __init__(self, resolver: Any = None, history: list[dict[str, Any]] | None = None) -> None:
        self.history: list[dict[str, Any]] = history or []

    @property
    def workload(self) -> Workload:
        return Workload(**self.history[-1]) if self.history else Workload()

    def turn(self, text: str) -> StubTurn:
        lowered = text.lower()
        updates: dict[str, Any] = {}
        if "explode" in lowered:
            raise RuntimeError("stub failure")
        if m := re.search(r"(\d+)\s*runs?", lowered):
            updates["runs_per_month"] = float(m.group(1))
        if m := re.search(r"(\d+)\s*b\b", lowered):
            updates["params_b"] = float(m.group(1))
        if "qlora" in lowered:
            updates["mode"] = "qlora"
        if "a100" in lowered:
            updates["gpu"] = "a100-sxm-80gb"
        if "cache" in lowered:
            updates["cache_dataset"] = True
        if lowered.strip() == "undo":
            if len(self.history) > 1:
                self.history.pop()
            return StubTurn(self.workload, "undo")
        if not updates:
            return StubTurn(self.workload, "gibberish", questions=["Which model, and training or inference?"])
        intent = "refine" if self.history else "describe"
        before = self.workload
        changed = {k: (getattr(before, k), v) for k, v in updates.items()}
        self.history.append(self.workload.model_copy(update=updates).model_dump(exclude_none=True))
        return StubTurn(self.workload, intent, changed)

    def to_dict(self) -> dict[str, Any]:
        return {"history": self.history}

    @classmethod
    def from_dict(cls, data: dict[str, Any], resolver: Any = None) -> StubConversation:
        return cls(resolver, list(data.get("history", [])))


class StubCatalog:
    def data(self) -> None:
        return None

    def gpus(self) -> list[Any]:
        return []


def stub_advise(workload: Workload, data: Any) -> Advice:
    advice = make_advice(runs=workload.runs_per_month or 20, gpu=workload.gpu or "h100-sxm")
    return advice.model_copy(update={"workload": workload})


def stub_compare(before: Advice, after: Advice, names: object = None) -> list[str]:
    changes = []
    if before.workload.runs_per_month != after.workload.runs_per_month:
        changes.append(f"runs {before.workload.runs_per_month:g} -> {after.workload.runs_per_month:g}")
    if before.effective.gpu != after.effective.gpu:
        changes.append(f"gpu {before.effective.gpu} -> {after.effective.gpu}")
    if before.workload.cache_dataset != after.workload.cache_dataset:
        changes.append("dataset cached: egress drops to one pull a month")
    return changes


def stub_advisor() -> Advisor:
    return Advisor(StubCatalog(), conversation_factory=StubConversation, advise=stub_advise,
                   compare=stub_compare, to_contract=lambda advice, q, m: {"workload": advice.workload.model_dump()})
