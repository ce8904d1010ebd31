"""A cloud's managed service against its own VMs ("serve gemma 3 27b on sagemaker vs ec2"): the same plan priced on
both, the premium in dollars and percent, and what it buys.

Why: the question is a comparison, and had been answered with SageMaker's plan alone (or RunPod's). Both sides are
planned together (the parser keeps both providers, `Workload.providers`); here the managed side's best plan is set
against the same GPUs, count and weights on the plain VMs, as two GPUs are set side by side at one provider
(`bot.compared`), so the difference is the managed premium and nothing else. The catalog says which provider is a
managed service (`kind: managed`) and which cloud each runs on (`cloud`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.compared import AtProvider, at_provider, best_by_provider, measure, provider_of
from engine.models import Advice, Option

# what the premium buys, by managed provider id and by serving / training: the user still brings the container
BUYS = {
    ("sagemaker", "serve"): ("a SageMaker endpoint: autoscaling, managed patching of the hosts, health checks and "
                             "rolling deployments; you still pick and maintain the serving container (LMI/vLLM, TGI)"),
    ("sagemaker", "train"): ("SageMaker training jobs: instances started and stopped per job, retries and managed spot "
                             "with checkpoints; you still bring the training container and the code"),
}
GENERIC_BUYS = "the managed service's operations (scaling, patching, health checks); you still pick the container"


@dataclass(frozen=True)
class ManagedVsOwn:
    """The managed side's best plan and the same plan on its cloud's own VMs, by the question's measure."""

    managed: AtProvider
    own: AtProvider
    per: str  # "month" (serving) or "run" (training)
    premium_usd: float  # managed - own, in `per`
    premium_fraction: float  # premium_usd / own
    same_plan: bool  # the same GPUs, count and weights on both (False: each side's best, none in common)
    buys: str
    gpu: str = ""  # the managed side's GPU id
    managed_usd: float = 0.0  # by `per`
    own_usd: float = 0.0


def pair_of(providers: Iterable[str] | None, records: Iterable[Any]) -> tuple[str, str] | None:
    """(managed id, own-VM id) when `providers` are a managed service and a self-managed provider on the same cloud
    ("sagemaker", "aws"), in either order; None otherwise."""
    said = tuple(providers or ())
    if len(said) != 2:
        return None
    by_id = {getattr(r, "id", ""): r for r in records}
    a, b = (by_id.get(p) for p in said)
    if a is None or b is None or not a.cloud or a.cloud != b.cloud:
        return None
    kinds = (a.kind == "managed", b.kind == "managed")
    if kinds == (True, False):
        return a.id, b.id
    if kinds == (False, True):
        return b.id, a.id
    return None


def _key(option: Option) -> tuple[str, int, str, str]:
    return option.gpu, option.cluster.gpus, str(option.precision), str(option.mode)


def managed_vs_own(advice: Advice, managed: str, own: str, names: Mapping[str, str]) -> ManagedVsOwn | None:
    """The same plan on `managed` and on `own` (the pick's, else the managed side's best plan that the VMs also rent,
    in the engine's order), else each side's best; None when either has no plan meeting the targets (and the speed floor
    `bot.compared.best_by_provider` keeps)."""
    from engine.serving import floor_kept_at

    best = best_by_provider(advice)
    if managed not in best or own not in best:
        return None
    serving = (advice.effective.mode or "inference") == "inference"
    per = "month" if serving else "run"
    floor = floor_kept_at(advice.effective) if serving else 0.0
    if any(_speed(o) < floor for o in best.values()):  # no option keeps it (GPUs fixed): none is held to it
        floor = 0.0
    usable = [o for o in advice.options if _meets(o) and _speed(o) >= floor]
    theirs: dict[tuple[str, int, str, str], Option] = {}
    for option in usable:
        if provider_of(option) == own:
            theirs.setdefault(_key(option), option)
    # the plan the answer shows first (its pick's GPUs, count and weights), where both rent it: the headline is about
    # the plan under it ("LoRA 8B": the 1x L40S picked, not SageMaker's own best on an H100)
    pick = next((o for o in advice.options if advice.recommendation is not None
                 and o.name == advice.recommendation.primary), None)
    ordered = sorted(usable, key=lambda o: pick is None or _key(o) != _key(pick))
    pair = next(((m, theirs[_key(m)]) for m in ordered if provider_of(m) == managed and _key(m) in theirs), None)
    m_opt, o_opt = pair if pair is not None else (best[managed], best[own])
    m_usd, o_usd = measure(m_opt, advice, per), measure(o_opt, advice, per)
    premium = m_usd - o_usd
    return ManagedVsOwn(managed=at_provider(m_opt, advice, names.get(managed, managed)),
                        own=at_provider(o_opt, advice, names.get(own, own)), per=per, premium_usd=premium,
                        premium_fraction=premium / o_usd if o_usd else 0.0, same_plan=pair is not None,
                        buys=BUYS.get((managed, "serve" if serving else "train"), GENERIC_BUYS),
                        gpu=m_opt.gpu, managed_usd=m_usd, own_usd=o_usd)


def _meets(option: Option) -> bool:
    return option.cluster.fits and all(t.met for t in option.throughput.targets)


def _speed(option: Option) -> float:
    tp = option.throughput.decode_tokens_per_s_per_sequence
    return tp.value if tp is not None else 0.0


def short_name(name: str) -> str:
    """"AWS SageMaker" -> "SageMaker", "AWS (EC2)" -> "EC2": the words a comparison's headline uses."""
    if "(" in name and name.endswith(")"):
        return name[name.index("(") + 1:-1]
    return name.removeprefix("AWS ").removeprefix("Google Cloud ").removeprefix("Microsoft ")


def headline(answer: ManagedVsOwn, subject: str, gpu_names: Mapping[str, str], fmt_usd: Any) -> str:
    """"⚖️ SageMaker costs $543 a month more than EC2 (+40%) for serving Gemma 3 27B on the same 1× L40S 48GB: $1,902
    vs $1,359 a month"."""
    m, o = short_name(answer.managed.provider_name), short_name(answer.own.provider_name)
    per = "a month" if answer.per == "month" else "a run"
    more = "more" if answer.premium_usd >= 0 else "less"
    head = (f"⚖️ {m} costs {fmt_usd(abs(answer.premium_usd))} {per} {more} than {o} "
            f"({answer.premium_fraction:+.0%}) for {subject}")
    figures = f"{fmt_usd(answer.managed_usd)} vs {fmt_usd(answer.own_usd)} {per}"
    if answer.same_plan:
        return f"{head} on the same {answer.managed.gpus}× {gpu_names.get(answer.gpu, answer.gpu)}: {figures}"
    return f"{head}: {figures} (no plan on the same GPUs at both: each side's best)"


def line(answer: ManagedVsOwn) -> str:
    """Under the headline: what the premium buys."""
    m = short_name(answer.managed.provider_name)
    return f"{m}'s premium buys {answer.buys}"


def contract(answer: ManagedVsOwn | None) -> dict[str, Any] | None:
    """`managed_vs_self_managed` in `ask --json` (docs/json.md)."""
    if answer is None:
        return None

    def side(at: AtProvider) -> dict[str, Any]:
        return {"provider": at.provider, "option": at.option, "gpus": at.gpus,
                "usd_per_month": round(at.usd_per_month, 2),
                "usd_per_run": round(at.usd_per_run, 2) if at.usd_per_run is not None else None}

    return {"managed": side(answer.managed), "self_managed": side(answer.own), "per": answer.per,
            "premium_usd": round(answer.premium_usd, 2), "premium_fraction": round(answer.premium_fraction, 4),
            "same_plan": answer.same_plan, "premium_buys": answer.buys}
