"""The event journal: claimed -> done, takeover of a dead process's claims (exactly once), expiry."""

from __future__ import annotations

import threading
from pathlib import Path

from bot.journal import CLAIMED, DONE, EXPIRED, EventJournal, Owner, TurnRequest
from bot.state import ThreadKey, ThreadStore
from tests.bot.test_state import Clock

KEY = ThreadKey("T1", "C1", "1700000001.000100")


def request(event_id: str, at: float = 0.0) -> TurnRequest:
    return TurnRequest(event_id, KEY, "U1", "qlora 70b", "mention", at)


def journals(target: str | Path, clock: Clock, n: int = 2) -> list[EventJournal]:
    """n processes on one database, each on its own host (so only heartbeats tell liveness)."""
    out = []
    for i in range(n):
        journal = EventJournal(ThreadStore(target, clock=clock), Owner(f"p{i}", f"host{i}", 100 + i))
        journal.register()
        out.append(journal)
    return out


def test_claim_then_finish_then_redelivery_is_dropped(store_target: str | Path) -> None:
    clock = Clock()
    [journal] = journals(store_target, clock, 1)
    assert journal.claim("Ev1", request("Ev1")) is True
    assert journal.state("Ev1") == CLAIMED
    with journal.store.transaction():
        assert journal.finish("Ev1") is True
    assert journal.state("Ev1") == DONE
    assert journal.claim("Ev1", request("Ev1")) is False


def test_an_event_that_is_no_turn_is_done_at_once(store_target: str | Path) -> None:
    [journal] = journals(store_target, Clock(), 1)
    assert journal.claim("EvJoin", None) is True
    assert journal.state("EvJoin") == DONE and journal.orphans() == []


def test_a_live_owners_claim_is_neither_replayed_nor_taken_over(store_target: str | Path) -> None:
    clock = Clock()
    alive, other = journals(store_target, clock)
    alive.claim("Ev1", request("Ev1", clock.now))
    assert other.orphans() == [] and other.claim("Ev1", request("Ev1")) is False


def test_a_dead_owners_claim_is_replayed_exactly_once(store_target: str | Path) -> None:
    clock = Clock()
    dead, one, two = journals(store_target, clock, 3)
    dead.claim("Ev1", request("Ev1", clock.now))
    clock.now += 20  # dead stops heartbeating
    one.heartbeat()
    two.heartbeat()
    results: list[list[TurnRequest]] = []
    threads = [threading.Thread(target=lambda j=j: results.append(j.orphans())) for j in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(len(r) for r in results) == [0, 1]
    [replayed] = [r for r in results if r][0]
    assert replayed.key == KEY and replayed.text == "qlora 70b" and replayed.kind == "mention"
    # the dead process cannot finish it any more (it lost the claim), the taker can
    with dead.store.transaction():
        assert dead.finish("Ev1") is False
    with one.store.transaction():
        finished_by_one = one.finish("Ev1")
    with two.store.transaction():
        finished_by_two = two.finish("Ev1")
    assert [finished_by_one, finished_by_two].count(True) == 1


def test_a_redelivery_takes_over_a_dead_owners_claim(store_target: str | Path) -> None:
    clock = Clock()
    dead, live = journals(store_target, clock)
    dead.claim("Ev1", request("Ev1", clock.now))
    dead.retire()  # stopped (a clean stop retires the owner at once)
    assert live.claim("Ev1", request("Ev1")) is True
    assert live.claim("Ev1", request("Ev1")) is False  # now owned by a live process


def test_old_or_poisonous_orphans_expire(store_target: str | Path) -> None:
    clock = Clock()
    dead, live = journals(store_target, clock)
    dead.claim("EvOld", request("EvOld", clock.now))
    clock.now += 601
    dead.claim("EvNew", request("EvNew", clock.now))
    dead.retire()
    assert [r.event_id for r in live.orphans()] == ["EvNew"]
    assert live.state("EvOld") == EXPIRED
    live.retire()
    other = EventJournal(live.store, Owner("p9", "elsewhere", 9), max_replays=1)
    other.register()
    assert other.orphans() == [] and other.state("EvNew") == EXPIRED  # replayed once already and died again


def test_same_pid_under_another_owner_id_is_a_previous_process(store_target: str | Path) -> None:
    """A container restarted as pid 1 again: the old owner's heartbeat is fresh but it cannot be alive."""
    store = ThreadStore(store_target)
    before = EventJournal(store, Owner("old", "host", 1))
    before.register()
    before.claim("Ev1", request("Ev1", store.clock()))
    after = EventJournal(store, Owner("new", "host", 1))
    after.register()
    assert [r.event_id for r in after.orphans()] == ["Ev1"]
