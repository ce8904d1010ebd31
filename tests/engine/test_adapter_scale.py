"""LoRA or QLoRA over tens of billions of tokens per run is continued pre-training, where adapters learn clearly
less than a full fine-tune (Biderman et al. 2024, "LoRA Learns Less and Forgets Less", arXiv:2405.09673). The
plan is still the one asked for; the answer questions the method, first, and says how to compare."""

from __future__ import annotations

from engine.advise import ADAPTER_SCALE_NOTE, ADAPTER_SCALE_TOKENS, adapter_scale_note
from engine.models import Workload


def test_the_threshold_is_ten_billion_tokens_per_run() -> None:
    assert ADAPTER_SCALE_TOKENS == 10e9
    assert adapter_scale_note(Workload(mode="qlora", dataset_tokens=9.9e9)) == []
    assert adapter_scale_note(Workload(mode="qlora", dataset_tokens=5e9, epochs=2)) != []  # epochs count: 10B a run
    [note] = adapter_scale_note(Workload(mode="lora", dataset_tokens=125e9))
    assert note.startswith(ADAPTER_SCALE_NOTE + "~125B tokens per run is continued pre-training") and "2405.09673" in note


def test_only_adapters_are_questioned() -> None:
    assert adapter_scale_note(Workload(mode="full", dataset_tokens=125e9)) == []
    assert adapter_scale_note(Workload(mode="pretrain", dataset_tokens=1e12)) == []
    assert adapter_scale_note(Workload(mode="qlora")) == []  # no token count: nothing to judge yet
