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


def test_an_8b_model_runs_on_one_card_in_bf16(data) -> None:
    answer = _local(data, "llama-3.1-8b")
    pick = answer.pick
    assert pick is not None and pick.gpus == 1 and pick.precision == "bf16"
    assert pick.gpu in {g.id for g in local_cards(data)}
    assert pick.price_usd == min(g.purchase_price_usd for g in local_cards(data) if g.memory_gb >= 24)
    assert pick.need_gb_per_gpu < pick.usable_gb_per_gpu and pick.tokens_per_s_per_user >= 20
    assert [p.precision for p in answer.by_precision] == list(PRECISIONS)


def test_a_70b_model_takes_several_cards_and_405b_none(data) -> None:
    seventy = _local(data, "llama-3.1-70b")
    assert seventy.pick is not None and seventy.pick.gpus > 1 and seventy.pick.precision != "bf16"
    assert _local(data, "llama-3.1-405b").pick is None  # no desktop of up to four cards holds it


def test_the_users_own_card_is_checked(data) -> None:
    answer = _local(data, "qwen2.5-32b", owned_gpu="rtx-3090", owned_count=1)
    assert [p.precision for p in answer.owned] == list(PRECISIONS)
    assert all(p.price_usd is None for p in answer.owned)  # theirs: nothing to pay
    assert answer.owned_pick is None  # even 4-bit is over a 24 GB card's usable memory at 4k context
    assert answer.pick is not None and answer.pick.gpu == "rtx-3090" and answer.pick.gpus == 2


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
