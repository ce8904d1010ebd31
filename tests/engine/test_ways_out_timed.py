"""A training run that does not fit the GPUs fixed: the ways out are planned and timed ("how long will it take to
full fine-tune Qwen2.5 32B on 1B tokens on 8 H100s?" had only memory figures for its remedies)."""

from __future__ import annotations

import re

import pytest

from catalog.records import CatalogData
from engine.advise import WAYS_OUT_NOTE, advise
from engine.models import Workload
from engine.offer_plans import hours_text
from engine.recommend import run_cost_usd


def _full(data: CatalogData, **extra) -> Workload:
    record = data.model("qwen2.5-32b")
    return Workload(mode="full", model="qwen2.5-32b", params_b=record.total_params_b, gpu="h100-sxm",
                    dataset_tokens=1_000_000_000, **extra)


def test_each_way_out_is_the_plan_asked_directly(data: CatalogData) -> None:
    advice = advise(_full(data, gpu_count=8), data)
    assert advice.cluster is not None and not advice.cluster.fits
    note = next(n for n in advice.notes if n.startswith(WAYS_OUT_NOTE))
    adam8 = advise(_full(data, gpu_count=8, optimizer="adamw_8bit"), data)
    pick = next(o for o in adam8.options if o.name == adam8.recommendation.primary)
    assert (f"8-bit Adam on the same 8: {hours_text(pick.hours_per_run)} a run, from "
            f"${run_cost_usd(pick.tco, adam8.effective):,.0f} rented") in note
    more = re.search(r"; (\d+) of them: ", note)
    free = advise(_full(data), data)
    assert more is not None and int(more.group(1)) == free.cluster.gpus > 8


@pytest.mark.parametrize("extra", [{"gpu_count": 16}, {}, {"gpu_count": 8, "dataset_tokens": None}])
def test_not_said_when_it_fits_or_nothing_is_fixed_or_no_tokens(data: CatalogData, extra: dict) -> None:
    w = _full(data, **{k: v for k, v in extra.items() if k != "dataset_tokens"})
    if "dataset_tokens" in extra:
        w = w.model_copy(update={"dataset_tokens": None})
    assert not any(n.startswith(WAYS_OUT_NOTE) for n in advise(w, data).notes)
