"""Every default is an Assumption with a reason; user-given values are never overridden."""

from __future__ import annotations

import pytest

from engine.defaults import LORA_TARGETS_ALL, apply_defaults
from engine.models import Workload
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()


def _run(**kw):
    effective, assumptions, problems = apply_defaults(Workload(**kw), DATA)
    return effective, {a.field: a for a in assumptions}, problems


def test_qlora_defaults() -> None:
    eff, by_field, _ = _run(mode="qlora", model="llama-3-70b", dataset_gb=500)
    assert eff.precision == "nf4" and eff.optimizer == "paged_adamw_8bit"
    assert eff.params_b == pytest.approx(70.55)
    assert eff.lora_rank == 16 and eff.lora_targets == LORA_TARGETS_ALL
    assert eff.seq_len == 2048 and eff.batch_size == 1 and eff.epochs == 1
    assert eff.headroom == pytest.approx(0.10) and eff.runs_per_month == 1 and eff.pricing == "on_demand"
    assert eff.dataset_tokens == 125_000_000_000
    assert "4 bytes/token" in by_field["dataset_tokens"].why and "subset" in by_field["dataset_tokens"].why
    assert eff.gradient_checkpointing is True and eff.flash_attention is True
    assert all(a.why for a in by_field.values())
    assert by_field["data_location"].value is None and "no egress" in by_field["data_location"].why


def test_full_training_and_serving_defaults() -> None:
    eff, _, _ = _run(mode="full", model="llama-3.1-8b")
    # the ZeRO stage is left to each plan (the lowest that fits), and stated as such
    assert eff.precision == "bf16" and eff.optimizer == "adamw" and eff.zero_stage is None
    serve, by_field, _ = _run(mode="inference", model="llama-3-70b")
    assert serve.precision == "bf16" and serve.concurrency == 1
    assert serve.seq_len == 4096 and serve.optimizer is None and serve.epochs is None
    assert "mfu" not in by_field


def test_seq_len_capped_by_context_and_overlong_flagged() -> None:
    data = DATA.model_copy(update={"models": tuple(m.model_copy(update={"max_context": 1024}) for m in DATA.models)})
    eff, by_field, _ = apply_defaults(Workload(mode="full", model="llama-3.1-8b"), data)
    assert eff.seq_len == 1024
    _, _, problems = _run(mode="inference", model="llama-3-70b", seq_len=100_000)
    assert [p.code for p in problems] == ["exceeds_context"]


def test_user_values_are_kept() -> None:
    given = dict(mode="qlora", model="llama-3-70b", precision="nf4", seq_len=512, epochs=3, lora_rank=64,
                 optimizer="adamw", runs_per_month=20, headroom=0.15, mfu=0.4, pricing="spot")
    eff, by_field, _ = _run(**given)
    for key, value in given.items():
        assert getattr(eff, key) == value
        assert key not in by_field


def test_mode_guessed_and_said() -> None:
    eff, by_field, _ = _run(model="llama-3.1-8b", dataset_gb=1)
    assert eff.mode == "lora" and "mode" in by_field
    eff, by_field, _ = _run(model="llama-3.1-8b")
    assert eff.mode == "inference"


def test_a_request_rate_sizes_each_sequence_at_its_request_not_the_serving_default() -> None:
    """1,000 requests/s of 1,024 + 256 tokens hold 1,280 tokens of KV each, not the 4,096-token default:
    reserving 4,096 would cut the batch per GPU ~3x and inflate the fleet."""
    eff, by_field, _ = _run(mode="inference", model="llama-3.1-8b", requests_per_s=1000)
    assert eff.seq_len == 1024 + 256
    assert "assumed" in by_field["seq_len"].why
    given, by_field, _ = _run(mode="inference", model="llama-3.1-8b", requests_per_s=50, input_tokens=2000, output_tokens=300)
    assert given.seq_len == 2300 and "assumed" not in by_field["seq_len"].why


def test_pretraining_defaults_to_an_8k_sequence_fine_tuning_to_2k() -> None:
    """Llama 3 and torchtitan pre-train at 8,192 tokens; at 2,048 the attention FLOPs (and GPU-hours) of a
    pre-training run come out ~15-20% low against published runs (Llama 3 70B: 6.4M H100-hours for 15T)."""
    pre, by_field, _ = _run(mode="pretrain", model="llama-3-70b", dataset_tokens=10**12)
    assert pre.seq_len == 8192 and "8,192" in by_field["seq_len"].why
    ft, _, _ = _run(mode="full", model="llama-3.1-8b")
    assert ft.seq_len == 2048


def test_a_token_load_is_sized_as_requests_at_its_busy_hour() -> None:
    """500M tokens a day (prompt + output) average 5,787 tokens/s; the busy hour is taken at 2x: 11,574 tokens/s,
    which at 1,024 + 256 tokens a request is 9.04 requests/s, stated in words with the question it leaves."""
    eff, by_field, _ = _run(mode="inference", model="llama-3-70b", load_tokens_per_s=5e8 / 86_400, load_period="day")
    assert eff.requests_per_s == pytest.approx(2 * 5e8 / 86_400 / 1280)
    why = by_field["requests_per_s"].why
    for words in ("500M tokens a day", "prompt + output", "5,787 tokens/s", "2x the day's average", "11,574 tokens/s",
                  "9 requests/s", "1,024 prompt + 256 output", "2k-token prompts, 300-token replies"):
        assert words in why, words
    assert eff.seq_len == 1280  # a request's prompt + output, not a chat window
    assert "concurrency" in by_field and eff.concurrency is None  # replicas batch as memory allows


def test_a_token_load_per_hour_is_sized_as_said_at_the_stated_request_shape() -> None:
    eff, by_field, _ = _run(mode="inference", model="llama-3-70b", load_tokens_per_s=1000.0, load_period="hour",
                            input_tokens=1700, output_tokens=300)
    assert eff.requests_per_s == pytest.approx(0.5)
    assert "busy hour" not in by_field["requests_per_s"].why and "as you said" in by_field["requests_per_s"].why


def test_a_compressed_corpus_counts_three_times_its_size_in_text() -> None:
    eff, by_field, _ = _run(mode="lora", model="llama-3.1-8b", dataset_gb=40, dataset_compressed=True)
    assert eff.dataset_tokens == 30_000_000_000 and eff.dataset_gb == 40  # transfer and storage stay at 40 GB
    why = by_field["dataset_tokens"].why
    assert "40 GB compressed" in why and "120 GB of text" in why and "30B tokens" in why


def test_examples_are_counted_at_a_thousand_tokens_each() -> None:
    eff, by_field, _ = _run(mode="qlora", params_b=70, dataset_examples=2000)
    assert eff.dataset_tokens == 2_000_000
    assert "2,000 examples at ~1,000 tokens each" in by_field["dataset_tokens"].why
    said, by_field, _ = _run(mode="qlora", params_b=70, dataset_examples=2000, dataset_tokens=600_000)
    assert said.dataset_tokens == 600_000 and "dataset_tokens" not in by_field


def test_a_small_request_rate_keeps_its_digits() -> None:
    _, by_field, _ = _run(mode="inference", model="llama-3-70b", requests_per_s=10_000 / 86_400)
    assert by_field["output_tokens"].why.startswith("0.12 requests/s")


def test_an_offline_load_is_sized_at_its_average_with_no_chat_floor(data) -> None:
    """A token load processed offline is queued and batched: the day's average, not a 2x busy hour, and no 20 tokens/s
    per-user floor assumed (the fleet's throughput is what the load needs)."""
    from engine.advise import advise
    from engine.models import Workload

    base = Workload(mode="inference", model="llama-3.3-70b", load_tokens_per_s=5787.037, load_period="day", provider="aws")
    chat, offline = advise(base, data), advise(base.model_copy(update={"offline": True}), data)
    rate = {a.field: a.value for a in chat.assumptions}["requests_per_s"]
    rate_offline = {a.field: a.value for a in offline.assumptions}["requests_per_s"]
    assert rate_offline == pytest.approx(rate / 2, rel=1e-3)
    assert any(a.field == "target_tokens_per_s_per_user" for a in chat.assumptions)
    # the chat floor is dropped for the batch floor, which is said (engine.serving.JOB_TOKENS_PER_S_PER_PROMPT)
    floors = {a.field: a.value for a in offline.assumptions}
    assert floors["target_tokens_per_s_per_user"] == 1.0 and {a.field: a.value for a in chat.assumptions}[
        "target_tokens_per_s_per_user"] == 20.0
    assert offline.options[0].total_usd < chat.options[0].total_usd / 2


def test_prompts_longer_than_the_chat_default_set_the_context(data) -> None:
    """"40 developers, prompts around 30k tokens": the KV cache was sized at the 4,096-token chat default beside
    30,000-token prompts. A said prompt (and reply) longer than the default is the context each sequence holds."""
    from engine.advise import advise
    from engine.models import Workload

    advice = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=40, input_tokens=30_000), data)
    from engine.throughput import request_shape

    assert advice.effective.seq_len == sum(request_shape(advice.effective)) == 30_256
    short = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=40, input_tokens=500), data)
    assert short.effective.seq_len == 4096  # a short prompt in a chat: earlier turns fill the default window
