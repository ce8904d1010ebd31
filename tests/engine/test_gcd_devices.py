"""MI250 and MI250X: one OAM is 2 GCDs of 64 GB, which ROCm lists as 2 GPUs, so "8x MI250" is planned on 16.

Unknown before review 28 ("Unknown GPU 'mi250'", and the plan moved to H100). The catalog row is one GCD (the
device a framework shards across), with the AMD datasheet's per-OAM figures halved."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import advise
from engine.devices import DEVICES_NOTE, as_devices
from engine.models import Workload


@pytest.mark.parametrize(("gpu_id", "bf16_per_oam"), [("mi250x", 383.0), ("mi250", 362.1)])
def test_a_row_is_one_gcd_of_the_datasheet_s_oam(data: CatalogData, gpu_id: str, bf16_per_oam: float) -> None:
    gpu = data.gpu(gpu_id)
    assert gpu is not None and gpu.devices_per_card == 2
    assert gpu.memory_gb * 2 == 128 and gpu.memory_bandwidth_tb_s * 2 == pytest.approx(3.2)
    assert gpu.bf16_dense_tflops is not None and gpu.bf16_dense_tflops * 2 == pytest.approx(bf16_per_oam, rel=1e-3)
    assert gpu.fp8_dense_tflops is None  # CDNA 2 has no FP8
    assert "amd.com" in gpu.source and gpu.observed_on
    assert gpu_id not in {o.gpu for o in data.offers}  # no public rental price was found: planned as their own


def test_cards_said_are_counted_as_gcds(data: CatalogData) -> None:
    given = Workload(mode="full", model="llama-3.1-8b", gpu="mi250", gpu_count=8, dataset_tokens=1_000_000_000)
    counted, note = as_devices(given, data)
    assert counted.gpu_count == 16 and note is not None and note.startswith(DEVICES_NOTE)
    assert "8× Instinct MI250 = 16 GPUs of 64 GB" in note
    one_die, none = as_devices(given.model_copy(update={"gpu": "mi300x"}), data)
    assert one_die.gpu_count == 8 and none is None


def test_a_full_fine_tune_on_8_mi250_is_planned_on_16_devices_of_64_gb(data: CatalogData) -> None:
    advice = advise(Workload(mode="full", model="llama-3.1-8b", gpu="mi250", gpu_count=8,
                             dataset_tokens=1_000_000_000), data)
    assert advice.cluster is not None and advice.cluster.gpus == 16 and advice.cluster.gpu == "mi250"
    assert advice.memory is not None and advice.memory.per_gpu_gb < 64 * 0.9  # fits one GCD, sharded
    assert advice.notes[0].startswith(DEVICES_NOTE)
