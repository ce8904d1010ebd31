"""What to buy to run a model locally (engine.local): the cheapest desktop card(s) that hold it at the speed floor,
at which precision, with its memory and speed."""

from __future__ import annotations

import pytest

from engine.local import PRECISIONS, local_answer_for, local_cards
from engine.models import Workload


def _local(data, model: str, **kwargs):
    answer = local_answer_for(Workload(model=model, mode="inference"), data, **kwargs)
    assert answer is not None
    return answer


def test_an_8b_model_runs_on_the_cheapest_card_that_holds_it(data) -> None:
    """One user, as llama.cpp/Ollama run it: the 4-bit GGUF (4.9 GB) on an 8 GB card; was a $700 used 3090 at BF16
    while the catalog had no card under 24 GB."""
    answer = _local(data, "llama-3.1-8b")
    pick = answer.pick
    assert pick is not None and pick.gpus == 1 and (pick.gpu, pick.precision) == ("rtx-4060", "int4")
    assert pick.gpu in {g.id for g in local_cards(data)}
    assert pick.price_usd == min(g.purchase_price_usd for g in local_cards(data))
    assert pick.need_gb_per_gpu < pick.usable_gb_per_gpu and pick.tokens_per_s_per_user >= 20
    assert [p.precision for p in answer.by_precision] == list(PRECISIONS)
    assert answer.context_tokens == 4096 and pick.max_context_tokens > 8192


def test_a_70b_model_takes_several_cards_and_405b_none(data) -> None:
    seventy = _local(data, "llama-3.1-70b")
    assert seventy.pick is not None and seventy.pick.gpus > 1 and seventy.pick.precision != "bf16"
    assert _local(data, "llama-3.1-405b").pick is None  # no desktop of up to four cards holds it


def test_the_users_own_card_is_checked(data) -> None:
    answer = _local(data, "qwen2.5-32b", owned_gpu="rtx-3090", owned_count=1)
    assert [p.precision for p in answer.owned] == list(PRECISIONS)
    assert all(p.price_usd is None for p in answer.owned)  # theirs: nothing to pay
    mine = answer.owned_pick  # Ollama's qwen2.5:32b (Q4_K_M, 20 GB) on one 24 GB card: was "does not fit" at 22.1 GB
    assert mine is not None and mine.usable and mine.precision == "int4" and mine.usable_gb_per_gpu == 24
    assert 8192 < mine.max_context_tokens < 16384
    assert answer.pick is not None and (answer.pick.gpu, answer.pick.gpus) == ("rtx-3090", 1)


def test_a_precision_said_is_the_only_one_planned(data) -> None:
    answer = local_answer_for(Workload(model="llama-3.1-8b", mode="inference", precision="int4"), data)
    assert answer is not None and [p.precision for p in answer.by_precision] == ["int4"]


@pytest.mark.parametrize("small, large", [("llama-3.1-8b", "qwen2.5-32b"), ("qwen2.5-32b", "llama-3.1-70b")])
def test_a_bigger_model_never_costs_less_to_run(data, small: str, large: str) -> None:
    """Invariant: the cheapest local setup and the memory per precision grow with the model."""
    a, b = _local(data, small), _local(data, large)
    assert a.pick is not None and b.pick is not None and b.pick.price_usd >= a.pick.price_usd
    for x, y in zip(a.one_card, b.one_card, strict=True):
        assert y.need_gb_per_gpu > x.need_gb_per_gpu


@pytest.mark.parametrize("model, gpu, count", [
    ("qwen2.5-32b", "rtx-3090", 1),  # qwen2.5:32b Q4_K_M on one 3090/4090
    ("llama-3.1-70b", "rtx-4090", 2),  # 70B Q4_K_M across 2x 24 GB
    ("llama-3.1-8b", "rtx-4060", 1),  # llama3.1:8b Q4_K_M on an 8 GB card
])
def test_the_common_home_setups_fit_at_4k(data, model: str, gpu: str, count: int) -> None:
    """Told "does not fit" under vLLM's 10% server headroom; they run at home, and fit at 4,096 tokens here."""
    answer = _local(data, model, owned_gpu=gpu, owned_count=count)
    mine = answer.owned_pick
    assert mine is not None and mine.fits and mine.precision == "int4", answer.owned
    assert mine.max_context_tokens >= 4096 and mine.need_gb_per_gpu <= mine.usable_gb_per_gpu


def test_4_and_8_bit_are_sized_as_the_gguf_files(data) -> None:
    """llama.cpp's quantize table: Llama 3.1 70B Q4_K_M is 43.1 GB; Llama 3.1 8B Q8_0 is 8.50 bits a weight. Said
    AWQ, the vLLM layout (16-bit embeddings and head) is sized instead."""
    seventy = local_answer_for(Workload(model="llama-3.1-70b", mode="inference", precision="int4"), data)
    assert seventy is not None and seventy.one_card[0].weights_gb == pytest.approx(43.1, rel=0.01)
    eight = local_answer_for(Workload(model="llama-3.1-8b", mode="inference", precision="int8"), data)
    assert eight is not None and eight.one_card[0].weights_gb == pytest.approx(8.03 * 8.5 / 8, rel=0.01)
    awq = local_answer_for(Workload(model="llama-3.1-8b", mode="inference", precision="int4"), data, runtime="vllm")
    assert awq is not None and awq.one_card[0].file_label == "AWQ/GPTQ int4"
    assert awq.one_card[0].weights_gb > 5.5  # the 16-bit embeddings and head: 5.8 GB against the GGUF's 4.9


def test_a_context_too_long_for_the_card_says_what_fits(data) -> None:
    """32k tokens of context on one 3090: the 4-bit model fits with about 10k, said so (not "does not fit")."""
    w = Workload(model="qwen2.5-32b", mode="inference", seq_len=32768)
    answer = local_answer_for(w, data, owned_gpu="rtx-3090", owned_count=1)
    assert answer is not None
    mine = answer.owned_pick
    assert mine is not None and not mine.fits and mine.fits_shorter and mine.precision == "int4"
    assert 8192 < mine.max_context_tokens < 16384 and mine.context_tokens == 32768
