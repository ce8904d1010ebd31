"""What a serving process keeps in memory between turns, and when it must not trust it: catalog reads
(forgotten after any write) and the last advice of a thread (only for the version this process saved)."""

from __future__ import annotations

from pathlib import Path

from bot.replies import Replier
from bot.service import ThreadConfinedCatalog
from bot.state import ThreadKey, ThreadStore
from tests.bot.factories import make_advice
from tests.bot.stub import stub_advisor

KEY = ThreadKey("T1", "C1", "1700000001.000100")


class CountingCatalog:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.names = ["h100-sxm"]

    def resolve_gpu(self, text: str) -> str:
        self.calls.append(text)
        return f"{text}:{len(self.names)}"

    def gpus(self) -> list[str]:
        self.calls.append("gpus")
        return list(self.names)

    def add(self, name: str) -> None:  # a write that is not run through `run`
        self.names.append(name)


def test_catalog_reads_are_remembered_until_a_write() -> None:
    inner = CountingCatalog()
    catalog = ThreadConfinedCatalog(lambda: inner)
    assert catalog.resolve_gpu("h100") == catalog.resolve_gpu("h100") == "h100:1"
    assert inner.calls == ["h100"]
    catalog.run(lambda c: c.names.append("a100"))  # a write through run: forget everything
    assert catalog.resolve_gpu("h100") == "h100:2"
    catalog.add("b200")  # any other call may write: forget too
    assert catalog.resolve_gpu("h100") == "h100:3"
    assert inner.calls == ["h100", "h100", "h100"]


def test_a_remembered_list_is_handed_out_as_a_copy() -> None:
    catalog = ThreadConfinedCatalog(CountingCatalog)
    catalog.gpus().append("mutated by a caller")
    assert catalog.gpus() == ["h100-sxm"]


def test_the_last_advice_is_reused_only_for_the_version_this_process_saved(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store, other = ThreadStore(db), ThreadStore(db)
    replier = Replier(stub_advisor(), store)
    mine, theirs = make_advice(runs=20), make_advice(runs=40)
    store.save(KEY, {"turns": 1}, mine.model_dump_json(), expected_version=0)
    replier._remember(KEY, 1, mine)

    state, advice = replier._load(KEY)
    assert advice is mine and state is not None and state.advice_json is None  # not read, not re-validated

    other.save(KEY, {"turns": 2}, theirs.model_dump_json(), expected_version=1)  # another process answered
    state, advice = replier._load(KEY)
    assert advice == theirs and advice is not mine and state is not None and state.version == 2


def test_advice_pushed_out_of_memory_is_handed_back_to_free_after_the_post() -> None:
    """`_remember` returns what it replaced or dropped (the turn lets it go once its reply was sent)."""
    replier = Replier(stub_advisor(), ThreadStore(None))
    first, second = make_advice(runs=20), make_advice(runs=40)
    assert replier._remember(KEY, 1, first) == []
    assert replier._remember(KEY, 2, second) == [(1, first)]  # the thread's earlier answer
    keys = [ThreadKey("T1", "C1", f"{n}.0") for n in range(Replier.ADVICE_KEPT - 1)]
    assert all(replier._remember(k, 1, first) == [] for k in keys)  # room for ADVICE_KEPT threads
    assert replier._remember(ThreadKey("T1", "C2", "1.0"), 1, first) == [(2, second)]  # the oldest goes
    assert replier._remember(keys[0], 2, None) == [(1, first)]
