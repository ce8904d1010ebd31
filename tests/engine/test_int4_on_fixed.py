"""GPUs the user fixed that serve below the speed floor: before "N more GPUs keep 20+", whether a 4-bit AWQ/GPTQ
checkpoint keeps the floor on the same GPUs (it halves the bytes each decode step reads). Said only when it does,
when the weights were left open, and where vLLM has integer kernels for the GPU."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import INT4_FIXED_NOTE, advise
from engine.models import Workload
from engine.offer_plans import SLOW_FIXED_NOTE


def _serve(data: CatalogData, model: str, gpu: str, count: int, users: int, **extra) -> Workload:
    record = data.model(model)
    return Workload(mode="inference", intent="serve", model=model, params_b=record.total_params_b, gpu=gpu,
                    gpu_count=count, concurrency=users, **extra)


def _note(advice) -> str | None:
    return next((n for n in advice.notes if n.startswith(INT4_FIXED_NOTE)), None)


def test_said_when_4_bit_keeps_the_floor_on_the_same_gpus(data: CatalogData) -> None:
    advice = advise(_serve(data, "llama-3.1-70b", "l40s", 2, 3), data)
    winner = advice.options[0]
    assert any(n.startswith(SLOW_FIXED_NOTE) for n in winner.cluster.notes)
    note = _note(advice)
    assert note is not None
    int4 = advise(_serve(data, "llama-3.1-70b", "l40s", 2, 3, precision="int4"), data)
    speed = int4.options[0].throughput.decode_tokens_per_s_per_sequence.value
    assert speed >= 20 and int4.options[0].cluster.gpus == 2
    assert note.endswith(f"keeps {speed:.1f} tokens/s per user on the same 2 GPUs")


@pytest.mark.parametrize("model, gpu, count, users, extra", [
    ("llama-3.1-70b", "l40s", 2, 3, {"precision": "fp8"}),  # the weights were chosen
    ("llama-3.1-70b", "a100-sxm-80gb", 2, 30, {}),  # the KV cache of 30 users is what is read: 4-bit does not rescue it
    ("llama-3.1-70b", "l40s", 4, 8, {}),  # not slow at all (10 users: 19.8 tokens/s, each prefill's all-reduces over PCIe)
])
def test_not_said_otherwise(data: CatalogData, model: str, gpu: str, count: int, users: int, extra: dict) -> None:
    assert _note(advise(_serve(data, model, gpu, count, users, **extra), data)) is None
