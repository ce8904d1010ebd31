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
