"""Chat users pause between turns (engine.think_time): their prompts arrive every prefill + reply + pause, not back to
back, so their prefills take a smaller share of each replica; the decode batch is still sized for all of them at once.

"N users" had been read as N sessions each sending its next prompt the moment the last reply ended (NVIDIA NIM's
closed-loop "25 in flight" benchmark): 20 users of Llama 3.1 8B with 130k-token RAG prompts each came back every ~2 s
and took a TP4 group of GB200s each, 80 GPUs for $613k a month."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Workload
from engine.queueing import prefill_share, queued_ttft
from engine.think_time import DEFAULT_THINK_TIME_S, think_time_s
from engine.throughput import loaded_step


def _old_loaded_step(step_s: float, batch: int, prefill_s: float, output_tokens: int) -> float:
    """`loaded_step` as it was, with no pause: the smaller root of prefill x^2 - (out step + prefill + batch prefill) x
    + batch prefill = 0."""
    b_coef = output_tokens * step_s + prefill_s + batch * prefill_s
    disc = b_coef * b_coef - 4 * prefill_s * batch * prefill_s
    busy = (b_coef - math.sqrt(max(disc, 0.0))) / (2 * prefill_s)
    return step_s / (1 - min(0.9, max(0.0, busy)))


def test_the_pause_is_twenty_seconds_for_chat_users_and_none_where_nobody_reads() -> None:
    users = Workload(mode="inference", model="llama-3.1-70b", concurrency=50)
    assert DEFAULT_THINK_TIME_S == 20.0 and think_time_s(users) == 20.0
    assert think_time_s(users.model_copy(update={"think_time_s": 60.0})) == 60.0  # said
    assert think_time_s(users.model_copy(update={"think_time_s": 0.0})) == 0.0  # "no pause", "50 concurrent requests"
    assert think_time_s(users.model_copy(update={"agentic": True})) == 0.0  # an agent's next call follows its tool
    assert think_time_s(users.model_copy(update={"requests_per_s": 5.0})) == 0.0  # a rate is the load itself
    assert think_time_s(users.model_copy(update={"offline": True})) == 0.0
    assert think_time_s(users.model_copy(update={"batch_items": 1e6})) == 0.0
    assert think_time_s(users.model_copy(update={"concurrency": 1})) == 0.0  # one stream: nobody else to queue behind
    assert think_time_s(users.model_copy(update={"mode": "lora"})) == 0.0


def test_loaded_step_with_a_pause_pinned() -> None:
    """50 users, a 20 ms bare step, 0.15 s prefills, 256-token replies, 20 s pauses: the prefills' share x is the smaller
    root of (0.15 + 20) x^2 - (256 x 0.02 + 0.15 + 20 + 50 x 0.15) x + 50 x 0.15 = 0, i.e. 20.15 x^2 - 32.77 x + 7.5:
    x = (32.77 - sqrt(32.77^2 - 4 x 20.15 x 7.5)) / (2 x 20.15) = 0.2756, so a token takes 0.02 / (1 - x) = 27.6 ms,
    where back to back (x = 0.591) it took 49.0 ms."""
    x = (32.77 - math.sqrt(32.77 ** 2 - 4 * 20.15 * 7.5)) / (2 * 20.15)
    assert x == pytest.approx(0.2756, abs=1e-4)
    paused = loaded_step(0.02, 50, 0.15, 256, 20.0)
    assert paused == pytest.approx(0.02 / (1 - x))
    assert paused == pytest.approx(0.02761, abs=1e-5)
    # the share is Little's law over turns that now include the pause
    assert x == pytest.approx(50 * 0.15 / (256 * paused + 0.15 + 20.0))
    assert prefill_share(50, paused, 0.15, 256, 20.0) == pytest.approx(x)
    assert loaded_step(0.02, 50, 0.15, 256) == pytest.approx(0.04895, abs=1e-5)


@given(step=st.floats(0.002, 0.2), batch=st.integers(1, 1024), prefill=st.floats(0.001, 20.0),
       out=st.integers(1, 4000))
def test_no_pause_is_the_old_loaded_step_to_the_bit(step: float, batch: int, prefill: float, out: int) -> None:
    assert loaded_step(step, batch, prefill, out, 0.0) == _old_loaded_step(step, batch, prefill, out)


@given(step=st.floats(0.002, 0.2), batch=st.integers(1, 1024), prefill=st.floats(0.001, 20.0),
       out=st.integers(1, 4000), p1=st.floats(0.0, 600.0), p2=st.floats(0.0, 600.0))
def test_a_longer_pause_never_slows_a_token(step: float, batch: int, prefill: float, out: int, p1: float,
                                            p2: float) -> None:
    short, long = sorted((p1, p2))
    assert loaded_step(step, batch, prefill, out, long) <= loaded_step(step, batch, prefill, out, short) * (1 + 1e-9)


def test_the_queue_for_the_first_token_counts_the_pause() -> None:
    """50 users at 20.7 tokens/s with 0.15 s prefills: back to back the others' prefills kept the replica 59% busy
    (0.6 s at p95); pausing 20 s between turns, 49 x 0.15 / (256 / 20.7 + 0.15 + 20) = 22.6%."""
    users = Workload(mode="inference", model="llama-3.1-70b", concurrency=50, input_tokens=2000, output_tokens=256)
    paused = queued_ttft(users, 50, 1, 1 / 20.7, 0.15)
    back_to_back = queued_ttft(users.model_copy(update={"think_time_s": 0.0}), 50, 1, 1 / 20.7, 0.15)
    assert paused is not None and back_to_back is not None
    assert paused.utilisation == pytest.approx(49 * 0.15 / (256 / 20.7 + 0.15 + 20.0))
    assert paused.utilisation == pytest.approx(0.226, abs=1e-3)
    assert back_to_back.utilisation == pytest.approx(50 * 0.15 / (256 / 20.7 + 0.15) * 49 / 50)
    assert paused.p95_s < 0.3 < 0.55 < back_to_back.p95_s


_RAG_8B = Workload(mode="inference", model="llama-3.1-8b", seq_len=131072, concurrency=20, target_ttft_s=2.0,
                   input_tokens=130816, intent="serve")


def test_twenty_rag_users_share_replicas_once_they_pause(data: CatalogData) -> None:
    """"serve llama 3.1 8b with 128k context RAG prompts, 20 concurrent users, TTFT under 2s": back to back each user's
    1.9 s prefill came back every ~2.2 s, so each needed a replica of its own (20 TP4 groups of GB200, 80 GPUs,
    $613,200 a month). Pausing 20 s, 5 users share a TP8 B200 replica: each turn is its 1.057 s prefill + 256 tokens
    at 295.7 tokens/s (0.866 s) + 20 s, so the other 4 users' prefills keep it 4 x 1.057 / 21.92 = 19.3% busy and the
    p95 first token is 1.94 s: 4 replicas, 32 B200."""
    back_to_back = advise(_RAG_8B.model_copy(update={"think_time_s": 0.0}), data).options[0]
    assert back_to_back.cluster.gpus == 80 and back_to_back.cluster.replicas == 20
    paused = advise(_RAG_8B, data).options[0]
    assert paused.gpu == "b200" and paused.cluster.gpus == 32 and paused.cluster.replicas == 4
    tp = paused.throughput
    assert tp.ttft_s is not None and tp.prefill_seconds is not None and tp.decode_tokens_per_s_per_sequence is not None
    prefill, speed = tp.prefill_seconds.value, tp.decode_tokens_per_s_per_sequence.value
    assert tp.ttft_s.inputs["prefill_utilisation"] == pytest.approx(4 * prefill / (prefill + 256 / speed + 20.0),
                                                                     abs=1e-3)
    assert tp.ttft_s.inputs["prefill_utilisation"] == pytest.approx(0.193, abs=1e-3)
    assert 1.9 < tp.ttft_s.value <= 2.0
    assert paused.total_usd < back_to_back.total_usd / 4


def test_fifty_users_of_a_70b_fit_one_gpu_once_they_pause(data: CatalogData) -> None:
    """"serve Llama 3.1 70B for 50 users": back to back, 50 prompts of 1,024 tokens every ~13 s kept the prefills ~40%
    of one GPU's time and 50 users at 20 tokens/s needed 2 MI300X ($3,489); pausing 20 s, one H200 holds them at 22.7
    tokens/s ($2,555), all 50 in its batch at once."""
    w = Workload(mode="inference", model="llama-3.1-70b", concurrency=50, intent="serve")
    back_to_back = advise(w.model_copy(update={"think_time_s": 0.0}), data).options[0]
    assert back_to_back.cluster.gpus == 2 and back_to_back.gpu == "mi300x"
    paused = advise(w, data).options[0]
    assert paused.cluster.gpus == 1 and paused.gpu == "h200-sxm"
    assert paused.total_usd < back_to_back.total_usd
    speed = paused.throughput.decode_tokens_per_s_per_sequence
    assert speed is not None and speed.value == pytest.approx(22.7, abs=0.1)
    concurrency = next(t for t in paused.throughput.targets if t.name == "concurrency")
    assert concurrency.met and concurrency.got == 50  # the decode batch: every user generating at once


def test_the_pause_is_an_assumption_only_where_it_applies(data: CatalogData) -> None:
    users = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=20), data)
    found = [a for a in users.assumptions if a.field == "think_time_s"]
    assert len(found) == 1 and found[0].value == 20.0 and "all 20 generating at once" in found[0].why
    for other in (Workload(mode="inference", model="llama-3.1-8b", concurrency=20, think_time_s=0.0),
                  Workload(mode="inference", model="llama-3.1-8b", concurrency=20, agentic=True),
                  Workload(mode="inference", model="llama-3.1-8b", requests_per_s=5.0),
                  Workload(mode="inference", model="llama-3.1-8b")):
        assert not any(a.field == "think_time_s" for a in advise(other, data).assumptions), other


def _gpus(w: Workload, gpu_id: str, data: CatalogData) -> int:
    from engine.architecture import architecture_for
    from engine.serving import choose

    gpu = next(g for g in data.gpus if g.id == gpu_id)
    model = data.model(w.model or "")
    assert model is not None
    found = choose(w, architecture_for(model, None), gpu, 8, "fast", True)
    assert found is not None
    return found.gpus


@settings(max_examples=40, deadline=None)
@given(users=st.integers(2, 400), prompt=st.sampled_from([1024, 8000, 32000, 130816]), ttft=st.sampled_from([None, 1.0, 3.0]),
       gpu=st.sampled_from(["h100-sxm", "l40s", "b200"]), p1=st.floats(0.0, 120.0), p2=st.floats(0.0, 120.0))
def test_more_pause_never_needs_more_gpus(data: CatalogData, users: int, prompt: int, ttft: float | None, gpu: str,
                                          p1: float, p2: float) -> None:
    short, long = sorted((p1, p2))
    w = Workload(mode="inference", model="llama-3.1-8b", precision="fp8", concurrency=users, input_tokens=prompt,
                 output_tokens=256, seq_len=prompt + 256, target_ttft_s=ttft)
    assert _gpus(w.model_copy(update={"think_time_s": long}), gpu, data) <= \
        _gpus(w.model_copy(update={"think_time_s": short}), gpu, data)
