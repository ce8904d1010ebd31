"""Fine-tuning with no method named on a stated number of GPUs: the answer says whether those GPUs also hold
a full fine-tune (LoRA fitting says nothing of a full fine-tune's ~16 bytes of state per parameter)."""

from __future__ import annotations

from engine.advise import METHODS_NOTE, advise
from engine.models import Workload
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()


def _note(**kw) -> str | None:
    advice = advise(Workload(intent="train", gpu="h100-sxm", **kw), DATA)
    return next((n for n in advice.notes if n.startswith(METHODS_NOTE)), None)


def test_eight_h100s_hold_lora_of_a_70b_model_not_a_full_fine_tune() -> None:
    note = _note(model="llama-3-70b", gpu_count=8)
    assert note is not None and "LoRA and QLoRA of this model fit; a full fine-tune does not" in note, note
    assert "(it needs 24 GPUs on 3 nodes)" in note, note  # 70B x ~16 bytes of state + activations over 80 GB GPUs


def test_an_8b_model_fits_every_method_on_eight_h100s() -> None:
    note = _note(model="llama-3.1-8b", gpu_count=8)
    assert note is not None and note.endswith("LoRA, QLoRA and a full fine-tune of this model all fit"), note


def test_no_methods_note_when_the_method_or_the_gpu_count_was_said() -> None:
    assert _note(model="llama-3-70b") is None
    assert _note(model="llama-3-70b", gpu_count=8, mode="qlora") is None
