"""torchtune's README speed table ('Memory and training speed', calibration rows a09-a11) is not a measurement on the
RTX 4090 it names, so the engine's single consumer GPU utilisation (0.35) is not moved to match it.

The table's column is "Runnable On": the smallest card the peak memory fits. Its notes give batch 2, packed 2,048-token
sequences and torch.compile, not the GPU the tokens/s were measured on. LoRA with activation checkpointing runs ~6N
FLOPs per token (forward 2N, input gradients 2N, recompute 2N): 3,083 tokens/s of Llama 3.1 8B would be ~90% of the
4090's 165 dense BF16 TFLOPS with FP32 accumulation (NVIDIA Ada whitepaper), before attention. The A6000 row (30.3 GiB,
room for activations without checkpointing, 4N) implies the same FLOP rate, ~97% of that card's 155 TFLOPS. Both are
~48% of an A100's 312, the GPU the table's 70B rows name, and what the engine gives a datacenter GPU. The QLoRA/LoRA
ratio, 2,413 / 3,083 = 0.78, holds whatever GPU both ran on: it is what the x0.8 for NF4 dequantisation rests on."""

from __future__ import annotations

import pytest

from engine.architecture import from_record
from engine.models import Workload
from engine.throughput import default_mfu, estimate_training
from tests.engine.fixtures_physics import A100_80, LLAMA3_8B, RTX_4090

N = 8.03e9
LORA_4090, LORA_A6000, QLORA_4090 = 3083, 4699, 2413  # torchtune README, tokens/s
A6000_BF16_TFLOPS = 154.8  # RTX A6000 datasheet, dense


def _tps(mode: str, gpu) -> float:  # type: ignore[no-untyped-def]
    w = Workload(mode=mode, seq_len=2048, batch_size=2, gradient_checkpointing=True, dataset_tokens=10**7)
    return estimate_training(w, from_record(LLAMA3_8B), gpu, 1).training_tokens_per_s.value


def test_the_readme_tokens_per_s_are_beyond_a_4090_and_an_a6000() -> None:
    on_4090 = LORA_4090 * 6 * N / (RTX_4090.bf16_dense_tflops * 1e12)
    on_a6000 = LORA_A6000 * 4 * N / (A6000_BF16_TFLOPS * 1e12)
    assert on_4090 > 0.85 and on_a6000 > 0.9, (on_4090, on_a6000)
    # one FLOP rate for both 8B LoRA rows: one measuring GPU, ~48% of an A100
    assert pytest.approx(LORA_A6000 * 4, rel=0.03) == LORA_4090 * 6
    assert pytest.approx(0.48, abs=0.02) == LORA_4090 * 6 * N / 312e12


def test_the_engine_matches_the_readme_on_an_a100_and_keeps_the_4090_at_its_physics() -> None:
    assert _tps("lora", A100_80) == pytest.approx(LORA_4090, rel=0.2)  # +16%: a well-tuned run
    assert _tps("qlora", A100_80) == pytest.approx(QLORA_4090, rel=0.2)
    assert default_mfu(RTX_4090, "full", 1)[0] == 0.35
    assert 1000 < _tps("qlora", RTX_4090) < 1300  # ~1.1k tokens/s, not the README's 2,413
    assert pytest.approx(0.8, abs=0.03) == QLORA_4090 / LORA_4090
    assert "torchtune: QLoRA 2413 vs LoRA 3083" in default_mfu(RTX_4090, "qlora", 1)[1]
