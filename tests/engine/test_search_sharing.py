"""The catalog search shares work between node shapes, offers and searches of one answer (memos, a rate without
its wording, a BF16 reference reading the search's memo). Sharing must never change a figure: each test here
plans the same thing shared and fresh, on the shipped catalog, and wants the same objects back, field for field."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.records import CatalogData, OfferRecord
from engine.architecture import Architecture, architecture_for
from engine.defaults import apply_defaults
from engine.memory import GB, usable_gb
from engine.models import TRAINING_MODES, Option, Workload
from engine.offer_plans import is_late, plan_shape, serving_shape
from engine.recommend import NARROW_WEIGHTS, TIE_FRACTION, _at_the_limit, _rank, bf16_reference, evaluate
from engine.recommendation import at_the_edge, per_user_speed, work_usd
from engine.serving import DEFAULT_OPTIONS, _size_group, choose, user_floor
from engine.tco import offer_usd_per_gpu_hour, usd_per_gpu_hour
from engine.throughput import link_kind, prefill_tokens, request_shape, under_load

SERVING = [
    dict(model="llama-3.1-8b", precision="int8", concurrency=32, seq_len=8192),
    dict(model="qwen2.5-72b", concurrency=64, seq_len=4096, gpu="a100-sxm-80gb"),
    dict(model="llama-3.1-70b", requests_per_s=5.0, input_tokens=2000, output_tokens=300),
    dict(model="mixtral-8x7b", concurrency=20, target_tokens_per_s_per_user=40.0),
]
TRAINING = [
    dict(model="llama-3.1-70b", mode="qlora", dataset_tokens=1_000_000_000, runs_per_month=20),
    dict(model="mixtral-8x7b", mode="lora", lora_rank=16, dataset_tokens=50_000_000),
    # scaled out for a deadline: node counts, cluster limits and tensor-parallel links decide the plan
    dict(model="llama-3.1-70b", mode="full", dataset_tokens=5_000_000_000, deadline_hours=72.0),
]


def _effective(data: CatalogData, **kw: Any) -> tuple[Workload, Architecture]:
    w, _, _ = apply_defaults(Workload(**kw), data)
    model = data.model(w.model or "")
    assert model is not None, f"{w.model} is not in the shipped catalog"
    return w, architecture_for(model, w.params_b)


def _by_gpu(data: CatalogData) -> dict[str, list[OfferRecord]]:
    out: dict[str, list[OfferRecord]] = {}
    for offer in data.offers:
        out.setdefault(offer.gpu, []).append(offer)
    return out


@pytest.mark.parametrize("pricing", ["on_demand", "spot", "reserved"])
def test_the_searchs_rate_is_the_figure_usd_per_gpu_hour_states(data: CatalogData, pricing: str) -> None:
    """`offer_usd_per_gpu_hour` prices every offer the search tries: the same float the option's TCO row shows."""
    for offer in data.offers:
        assert offer_usd_per_gpu_hour(offer, pricing) == usd_per_gpu_hour(offer, pricing, None)[0], offer.id


@pytest.mark.parametrize("kw", SERVING, ids=lambda kw: kw["model"])
def test_a_one_gpu_group_is_sized_alike_on_nvlink_and_pcie(data: CatalogData, kw: dict[str, Any]) -> None:
    """`choose` sizes a tp=1 group once per GPU whatever the node's link: with no all-reduce, nothing of its
    sizing reads the link. If it ever did, NVLink and PCIe shapes would be sharing a wrong figure."""
    w, arch = _effective(data, **kw)
    w1 = w.model_copy(update={"concurrency": 1})
    floor, (_, out_tokens) = user_floor(w), request_shape(w)
    for gpu in data.gpus:
        limit = usable_gb(gpu, w.headroom) * GB
        for pp in (1, 2):
            sized = [_size_group(w, w1, arch, gpu, 1, pp, kind, limit, DEFAULT_OPTIONS, {}, floor, prefill_tokens(w),
                                 out_tokens, under_load(w), None) for kind in ("fast", "pcie", "")]
            assert sized[0] == sized[1] == sized[2], (gpu.id, pp)


@pytest.mark.parametrize("kw", SERVING, ids=lambda kw: kw["model"])
def test_serving_plans_are_the_same_with_the_searchs_memo_as_without(data: CatalogData, kw: dict[str, Any]) -> None:
    """One memo shared by every GPU and node shape of the search (as `evaluate` shares it) gives each shape the
    plan a fresh search of that shape alone gives: the group sizes, the decode steps, the cheaper plan below the
    floor."""
    w, arch = _effective(data, **kw)
    memo: dict[tuple[object, ...], object] = {}
    tried = 0
    for gpu_id, offers in _by_gpu(data).items():
        gpu = data.gpu(gpu_id)
        assert gpu is not None
        for offer in offers:
            gpn, link = serving_shape(w, gpu, offer)
            multi = offer.inter_node_fabric is not None
            assert choose(w, arch, gpu, gpn, link_kind(link), multi, memo=memo) == \
                choose(w, arch, gpu, gpn, link_kind(link), multi), offer.id
            tried += 1
    assert tried == len(data.offers)


@pytest.mark.parametrize("kw", TRAINING, ids=lambda kw: kw["model"])
def test_training_options_are_the_same_with_the_searchs_memo_as_without(data: CatalogData, kw: dict[str, Any]) -> None:
    """A training option's speed estimate is shared by the offers planned at the same GPU type and count: each
    option built from the shared memo states what it states built alone."""
    w, arch = _effective(data, **kw)
    memo: dict[tuple[object, ...], object] = {}
    for gpu_id, offers in _by_gpu(data).items():
        gpu = data.gpu(gpu_id)
        assert gpu is not None
        for offer in offers:
            shared, alone = plan_shape(w, arch, gpu, offer, memo=memo), plan_shape(w, arch, gpu, offer)
            if shared.fits:
                assert shared.built() == alone.built(), offer.id
    assert any(key[0] == "train_estimate" for key in memo), "no option read the shared speed estimate"


@pytest.mark.parametrize("kw", SERVING[:2], ids=lambda kw: kw["model"])
def test_the_bf16_reference_reads_the_searchs_memo_with_the_same_answer(data: CatalogData, kw: dict[str, Any]) -> None:
    """The FP8 pick's BF16 reference reuses the search's memo of the equal BF16 workload: same sentence as with a
    memo of its own, for the pick and for every other GPU the search listed."""
    kw = {k: v for k, v in kw.items() if k != "precision"}
    w, arch = _effective(data, **kw)
    result = evaluate(w, arch, data, given=Workload(**kw))
    assert any(v == w for v, _ in result.memos), "the BF16 variant's memo was not kept"
    for option in result.options:
        assert bf16_reference(w, arch, data, option, result.memos) == bf16_reference(w, arch, data, option), option.name


def _ranked_by_full_scan(options: list[Option], w: Workload) -> list[str]:
    """`_rank`'s order (no flags) found the long way: each pick's ties gathered from the whole pool."""
    training = (w.mode or "inference") in TRAINING_MODES
    # a training plan at the edge of memory after the plans with room
    lates = {o.name: 2 * int(is_late(w, o.hours_per_run or 0.0)) + int(training and at_the_edge(o)) for o in options}
    scores = {o.name: work_usd(o, w) for o in options}
    pool = sorted(options, key=lambda o: (lates[o.name], scores[o.name], o.hours_per_run or 0.0, o.name))
    out: list[str] = []
    while pool:
        head = pool[0]
        ties = [o for o in pool if lates[o.name] == lates[head.name]
                and scores[o.name] <= scores[head.name] * (1 + TIE_FRACTION)]
        pick = min(ties, key=lambda o: (_at_the_limit(o), o.cluster.nodes, (o.hours_per_run or 0.0) if training else 0.0,
                                        o.cluster.gpus, NARROW_WEIGHTS.get(o.precision, 0), -per_user_speed(o),
                                        scores[o.name], o.name))
        out.append(pick.name)
        pool.remove(pick)
    return out


@pytest.mark.parametrize("kw", SERVING + TRAINING, ids=lambda kw: f"{kw['model']}-{kw.get('mode', 'serve')}")
def test_ranking_reads_the_ties_from_the_head_of_the_sorted_pool(data: CatalogData, kw: dict[str, Any]) -> None:
    """`_rank` gathers each pick's ties from the run at the head of the sorted pool: the order is the one a scan
    of the whole pool gives, on the catalog's real options (many within 3% of each other)."""
    w, arch = _effective(data, **kw)
    options = evaluate(w, arch, data, given=Workload(**kw)).options
    assert len(options) > 5
    reversed_options = list(reversed(options))  # the order they arrive in must not matter either
    assert [o.name for o in _rank(reversed_options, w)] == _ranked_by_full_scan(reversed_options, w)


def test_a_training_choice_is_shared_only_by_offers_it_reads_alike(data: CatalogData) -> None:
    """The memo keeps a training choice per node size, fabric or not, cluster limit and intra-node link: one 8x H100
    offer re-listed with each of those changed (and with its fabric renamed, which the choice does not read) is
    planned from the shared memo exactly as alone, so no variant is handed another's choice."""
    w, arch = _effective(data, model="llama-3.1-70b", mode="full", dataset_tokens=5_000_000_000, deadline_hours=72.0)
    base = next(o for o in data.offers if o.gpu == "h100-sxm" and o.gpus_per_node == 8 and o.inter_node_fabric)
    gpu = data.gpu("h100-sxm")
    assert gpu is not None
    variants = [base, base.model_copy(update={"id": "renamed", "inter_node_fabric": "RoCE 3200 Gbps"}),
                base.model_copy(update={"id": "limited", "max_nodes": 2}),
                base.model_copy(update={"id": "single", "inter_node_fabric": None}),
                base.model_copy(update={"id": "pcie", "intra_node_link": "PCIe Gen5"}),
                base.model_copy(update={"id": "four", "gpus_per_node": 4})]
    memo: dict[tuple[object, ...], object] = {}
    shared = [plan_shape(w, arch, gpu, offer, memo=memo) for offer in variants]
    alone = [plan_shape(w, arch, gpu, offer) for offer in variants]
    assert [p.train for p in shared] == [p.train for p in alone]
    assert len({(p.gpus, p.gpu_hours) for p in alone}) >= 3, "the variants should plan differently"
    assert sum(key[0] == "train_choice" for key in memo) == len(variants) - 1  # the renamed fabric shares one
