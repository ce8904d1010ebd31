"""The benchmarks must keep running: one quick pass of every part (`python -m benchmarks.run --quick`).

Only correctness facts are asserted — nothing lost, nothing duplicated, replies delivered through
429/500, scenarios intact after kill -9, no fuzz failure — never a timing: timings belong in
docs/benchmarks.md, not in a test that flakes on a busy CI machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks import run as bench_run
from benchmarks.harness import percentile

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[bench_run.Report]:
    out = tmp_path_factory.mktemp("bench") / "benchmarks.md"
    yield bench_run.run(quick=True, out=out)


def test_every_part_ran_and_the_document_was_written(report: bench_run.Report) -> None:
    titles = " ".join(t.title for t in report.tables)
    for expected in ("Parse time", "Engine time", "Fuzz", "Cold start", "End-to-end latency", "Sustained",
                     "Load", "Slack Web API failing", "kill -9", "Two servers on one PostgreSQL", "State store work"):
        assert expected in titles
    text = Path(report.facts["out"]).read_text()
    assert "## Summary" in text and "## Machine" in text and "quick mode" in text


def test_fuzz_found_no_failure(report: bench_run.Report) -> None:
    for target, (tried, failures) in report.facts["fuzz"].items():
        assert tried > 0, target
        assert failures == 0, target


def test_end_to_end_runs_lose_and_duplicate_nothing(report: bench_run.Report) -> None:
    assert report.facts["e2e"] == {"lost": 0, "duplicates": 0}


def test_two_servers_on_one_postgres_lose_and_duplicate_nothing_through_a_kill_9(report: bench_run.Report) -> None:
    cluster = report.facts["cluster"]
    assert cluster["sent"] > 0 and (cluster["lost"], cluster["duplicates"]) == (0, 0), cluster
    assert cluster["held_answered_once"] == cluster["held"]


def test_load_run_answers_every_turn_once(report: bench_run.Report) -> None:
    load = report.facts["load"]
    assert load == {"lost": 0, "duplicates": 0, "not_refined": 0, "apologies": 0, "redeliveries": load["redeliveries"]}
    assert load["redeliveries"] > 0  # the dedup path was exercised


def test_replies_are_delivered_after_429_and_500(report: bench_run.Report) -> None:
    for label, sent, delivered, answers, duplicates in report.facts["slack_errors"]:
        assert (delivered, answers, duplicates) == (sent, sent, 0), label


def test_scenarios_survive_kill_9(report: bench_run.Report) -> None:
    kill = report.facts["kill9"]
    assert kill["integrity"] == "ok"
    assert kill["intact"] == kill["threads"] > 0


@pytest.mark.parametrize(("samples", "q", "expected"), [
    ([5.0], 99, 5.0),
    (list(range(1, 101)), 50, 50),
    (list(range(1, 101)), 99, 99),
    (list(range(1, 201)), 99, 198),
    (list(range(1, 11)), 95, 10),
])
def test_percentile_is_nearest_rank(samples: list[float], q: float, expected: float) -> None:
    assert percentile(samples, q) == expected
