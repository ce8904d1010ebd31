"""An offline inference job ("run Llama 3.1 8B over 10 million documents"): its prompts are sized as their average
rate over the time the job may take (a day unless said), and the answer gives the job's hours and cost on the pick.
Before, the count was dropped and the job was sized as one user chatting around the clock ($516 a month on one L4)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.caveats import decision_caveats
from engine.advise import advise
from engine.defaults import DEFAULT_JOB_HOURS
from engine.models import DEFAULT_SETUP_HOURS, Workload
from engine.recommendation import JOB_NOTE, job_figures
from engine.serving import JOB_TOKENS_PER_S_PER_PROMPT, user_floor
from engine.units import HOURS_PER_MONTH
from parser import Conversation

JOB = Workload(mode="inference", model="llama-3.1-8b", batch_items=10_000_000, input_tokens=500, output_tokens=100)


def _job_note(notes: tuple[str, ...] | list[str]) -> str:
    return next((n for n in notes if n.startswith(JOB_NOTE)), "")


def test_a_job_without_a_deadline_is_sized_to_finish_within_a_day(data: Any) -> None:
    advice = advise(JOB, data)
    rate = next(a for a in advice.assumptions if a.field == "requests_per_s")
    assert (DEFAULT_JOB_HOURS, DEFAULT_SETUP_HOURS) == (24.0, 0.25)
    # the fleet's quarter hour of start-up (weights, vLLM warm-up) comes out of the day before the first prompt
    assert rate.value == pytest.approx(10_000_000 / (23.75 * 3600))
    assert "within 24 hours, assumed" in rate.why and "15 minutes of it start-up" in rate.why
    # sized for the rate (continuous batching per option), not one stream
    assert next(a for a in advice.assumptions if a.field == "concurrency").value == "per option"
    pick = next(o for o in advice.options if o.name == advice.recommendation.primary)
    assert pick.throughput.decode_tokens_per_s.value > 50 * pick.throughput.decode_tokens_per_s_per_sequence.value


def test_the_job_note_prices_the_job_not_the_month(data: Any) -> None:
    advice = advise(JOB, data)
    pick = next(o for o in advice.options if o.name == advice.recommendation.primary)
    note = _job_note(advice.notes)
    # the fleet's rent by the hour: the month's compute row over 730 hours (no managed premium on this pick); the
    # month's storage of a service is not the job's
    best = min(pick.tco, key=lambda t: t.total_usd)
    compute = next(r.usd for r in best.rows if r.item == "compute")
    assert not any(r.item == "managed" and r.usd for r in best.rows)
    hourly = compute / HOURS_PER_MONTH
    # sized for the day's average rate with a service's 20% headroom, the fleet runs flat out offline and finishes
    # early: the hours are its capacity's (the rate check the option keeps), plus the quarter hour of start-up
    capacity = next(t.got for t in pick.throughput.targets if t.name == "requests_per_s")
    assert capacity > advice.effective.requests_per_s
    hours = 10_000_000 / capacity / 3600 + DEFAULT_SETUP_HOURS
    assert hours < 24
    assert note.startswith(f"{JOB_NOTE}10,000,000 prompts at {capacity:,.1f} requests/s take {hours:,.1f} h on {pick.name}, "
                           "start-up included: ")
    assert f"about ${hourly * hours:,.0f} for the job (${hourly:,.2f}/hour x {hours:,.1f} h" in note
    # per million tokens at the job's own load: 10M prompts x 100 tokens out, x 600 in and out
    usd = hourly * hours
    assert job_figures(pick, advice.effective) == pytest.approx(
        (hours, hourly, usd, usd / 1e9 * 1e6, usd / 6e9 * 1e6, capacity))
    assert f"${usd / 1e3:,.2f} per 1M output tokens, ${usd / 6e3:,.2f} per 1M tokens in and out" in note
    assert usd < pick.total_usd / 20  # under a day of the fleet, not its month
    # the first message says it in the Cost line, not again as a caveat
    assert not any(line.startswith("Job:") for line in decision_caveats(advice))


def test_a_job_is_batched_for_throughput_not_kept_at_the_chat_floor(data: Any) -> None:
    """Nobody reads a batch job's tokens as they come: each replica batches as memory allows, so prompts decode
    below the 20 tokens/s a chat is kept at, and the fleet is smaller than a service's at the same rate."""
    job = Workload(mode="inference", model="llama-3.1-70b", batch_items=2_000_000, input_tokens=1000, output_tokens=200)
    advice = advise(job, data)
    service = advise(Workload(mode="inference", model="llama-3.1-70b", requests_per_s=advice.effective.requests_per_s,
                              input_tokens=1000, output_tokens=200), data)
    assert user_floor(advice.effective) == JOB_TOKENS_PER_S_PER_PROMPT == 1.0
    assert not any(a.field == "target_tokens_per_s_per_user" for a in advice.assumptions)  # no chat floor assumed
    pick = next(o for o in advice.options if o.name == advice.recommendation.primary)
    served = next(o for o in service.options if o.name == service.recommendation.primary)
    assert pick.throughput.decode_tokens_per_s_per_sequence.value < 20
    assert job_figures(pick, advice.effective).usd < job_figures(served, advice.effective).usd


def test_a_deadline_sets_the_rate_and_a_shorter_one_a_bigger_fleet(data: Any) -> None:
    six = advise(JOB.model_copy(update={"deadline_hours": 6.0}), data)
    day = advise(JOB, data)
    rate = next(a for a in six.assumptions if a.field == "requests_per_s")
    assert rate.value == pytest.approx(10_000_000 / (5.75 * 3600))
    assert "within 6 hours as you said" in rate.why
    def pick_gpus(advice: Any) -> int:
        return next(o.cluster.gpus for o in advice.options if o.name == advice.recommendation.primary)

    assert pick_gpus(six) > pick_gpus(day)
    took = float(_job_note(six.notes).split(" take ")[1].split(" h ")[0])
    assert 4.0 < took <= 6.0  # within the deadline, with the fleet's headroom to spare


def test_a_service_has_no_job_note(data: Any) -> None:
    advice = advise(Workload(mode="inference", model="llama-3.1-8b", requests_per_s=100.0), data)
    assert not _job_note(advice.notes)


@pytest.mark.parametrize(("text", "items"), [
    ("run llama 3.1 8b over 10 million documents, 500 tokens in and 100 tokens out each", 10_000_000),
    ("batch inference: summarize 2m rows with llama 3.1 70b, 1k tokens in, 200 out", 2_000_000),
    ("classify 1b documents with llama 3.1 8b within 48 hours", 1_000_000_000),
    ("translate 500k product descriptions with qwen2.5-72b", 500_000),
])
def test_the_parser_reads_a_jobs_prompts(text: str, items: float) -> None:
    turn = Conversation().turn(text)
    assert turn.workload.batch_items == items
    assert turn.workload.mode == "inference"


@pytest.mark.parametrize("text", [
    "serve llama 3.1 8b for RAG over 1 billion documents",  # the corpus a service retrieves from
    "fine-tune llama 3.1 8b on 50k examples",  # training data
    "serve llama 3.1 8b at 1b requests a month",  # a rate
    "process 20 documents with llama 3.1 8b",  # a test run, not a fleet
    "serve llama 3.1 8b for 50 users",
])
def test_counts_that_are_not_a_jobs_prompts(text: str) -> None:
    assert Conversation().turn(text).workload.batch_items is None


def test_the_question_is_how_soon_not_how_many_users() -> None:
    turn = Conversation().turn("run llama 3.1 8b over 10 million documents, 500 tokens in and 100 tokens out each")
    texts = [q.text for q in turn.questions]
    assert any(t.startswith("How soon must the 10,000,000 prompts be done?") for t in texts)
    assert not any("How many users" in t for t in texts)
    answered = Conversation()
    answered.turn("run llama 3.1 8b over 10 million documents, 500 tokens in and 100 tokens out each")
    follow = answered.turn("within 6 hours")
    assert follow.workload.deadline_hours == 6.0 and follow.workload.batch_items == 10_000_000

