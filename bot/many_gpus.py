"""Three or more GPUs compared ("H100 vs H200 vs B200 vs MI300X"), and GPUs ranked per dollar with none named ("which
GPU gives the best tokens/s per dollar for Llama 3.1 8B at high batch"): a headline that names every one, and a row
per GPU.

Why: "A vs B vs C" had been answered "which one did you mean?" and planned on a fourth GPU, and "best per dollar at
high batch" had been sized for one stream, where the GPU cheapest a month (an L4, $7.98 per 1M output tokens) is the
dearest per token in its own table; with the GPUs full a GH200 gives $0.12. The comparison is the one two GPUs get
(`Advisor._compare_plans`: the same load, at one provider renting them all where there is one); the ranking plans
each GPU type the catalog rents full, at its own cheapest provider.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.caveats import HardwareKinds, service_risks
from bot.formatting import fmt_num, fmt_usd, fmt_usd_short, gpu_name, subject
from bot.limits import HEADER_TEXT
from bot.service import RANKED_ROWS, GpuPlan, Response, per_dollar_asked
from engine.models import Option

_VENDOR_WORDS = {"NVIDIA", "AMD", "Intel", "Instinct", "GeForce", "Grace", "Hopper"}
_MEMORY = re.compile(r"^\d+GB$|^\(")
ORDINALS = ("winner", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")


def many(response: Response) -> bool:
    """True for a comparison this module renders: three or more GPUs, or a per-dollar ranking."""
    return response.compared is not None and (response.ranked or len(response.compared) > 2)


def short_gpu(gpu: str | None, names: Mapping[str, str]) -> str:
    """"MI300X", "H100 SXM5", "RTX 4090": a GPU's name without its vendor's brand and memory, for a headline that
    names four of them within Slack's 150 characters."""
    words = [w for w in gpu_name(gpu, names).split() if w not in _VENDOR_WORDS]
    kept: list[str] = []
    for word in words:
        if _MEMORY.match(word):
            break
        kept.append(word)
    return " ".join(kept) or gpu_name(gpu, names)


def _figures(plan: GpuPlan) -> GpuPlan:
    """A side's figures at the provider renting them all, when the comparison was read there."""
    at = plan.shared
    if at is None:
        return plan
    return GpuPlan(gpu=plan.gpu, advice=plan.advice, capacity=plan.capacity, gpus=at.gpus,
                   usd_per_month=at.usd_per_month, usd_per_1m_tokens=at.usd_per_1m_tokens, usd_per_run=at.usd_per_run,
                   hours_per_run=at.hours_per_run, tokens_per_s_per_user=at.tokens_per_s_per_user, fits=plan.fits,
                   option=at.option, own=plan.own, shared=at)


def _per(plans: Sequence[GpuPlan], text: str) -> str:
    """What the comparison ranks by, as `Advisor._compare_plans` did: "run", "token" or "month"."""
    first = plans[0]
    if first.usd_per_run is not None:
        return "run"
    if (first.capacity is not None or per_dollar_asked(text)) and first.usd_per_1m_tokens is not None:
        return "token"
    return "month"


def _cost(plan: GpuPlan, per: str) -> str:
    if not plan.fits:
        return "does not fit"
    if per == "run" and plan.usd_per_run is not None:
        return f"{fmt_usd_short(plan.usd_per_run)}"
    if per == "token" and plan.usd_per_1m_tokens is not None:
        return f"${plan.usd_per_1m_tokens:,.2f}"
    return fmt_usd_short(plan.usd_per_month) if plan.usd_per_month is not None else "?"


def _one_provider(plans: Sequence[GpuPlan]) -> bool:
    return all(p.fits and p.shared is not None for p in plans)


def many_headline(response: Response, names: Mapping[str, str]) -> str | None:
    """"⚖️ MI300X is cheapest per 1M output tokens for Llama 3.3 70B at RunPod: $0.92 vs H200 $1.10 · H100 $1.47 ·
    B200 $1.60"; ranked: "✅ Cheapest per 1M output tokens with the GPUs full for Llama 3.1 8B: GH200 at $0.12 …"."""
    if response.compared is None or response.advice is None:
        return None
    plans = list(response.compared)
    model = subject(plans[0].advice, names).removeprefix("serving ")
    if response.ranked:
        won = plans[0]
        users = f"{won.capacity.users:,} users at ≥{won.capacity.floor} tokens/s, " if won.capacity else ""
        at = f" on {won.own.provider_name}" if won.own is not None else ""
        month = f"{fmt_usd(won.usd_per_month)} a month" if won.usd_per_month is not None else ""
        head = (f"✅ Cheapest per 1M output tokens with the GPUs full, {model}: {won.gpus}× {short_gpu(won.gpu, names)} "
                f"at ${won.usd_per_1m_tokens or 0:,.2f}{at} ({users}{month})")
        return head if len(head) <= HEADER_TEXT else head[:HEADER_TEXT - 1] + "…"
    one = _one_provider(plans)
    shown = [_figures(p) for p in plans] if one else plans
    per = _per(shown, response.text)
    unit = {"run": " a run", "token": " per 1M output tokens", "month": " a month"}[per]
    won = shown[0]
    at = f" at {won.shared.provider_name}" if one and won.shared is not None else ""
    rest = " · ".join(f"{short_gpu(p.gpu, names)} {_cost(p, per)}" for p in shown[1:])
    head = (f"⚖️ {short_gpu(won.gpu, names)} is cheapest{unit} for {model}{at}: {_cost(won, per)} vs {rest}")
    return head if len(head) <= HEADER_TEXT else head[:HEADER_TEXT - 1] + "…"


def _option(plan: GpuPlan) -> Option | None:
    wanted = plan.shared.option if plan.shared is not None else plan.option
    return next((o for o in plan.advice.options if o.name == wanted), None)


def _flags(option: Option, kinds: HardwareKinds | None) -> str:
    if kinds is None:
        return ""
    geforce, market = service_risks(option, kinds)
    return ", ".join(word for word, applies in (("GeForce", geforce), ("no SLA", market)) if applies)


def _flags_of(plan: GpuPlan, kinds: HardwareKinds | None) -> str:
    option = _option(plan)
    return _flags(option, kinds) if option is not None else ""


def many_rows(response: Response, kinds: HardwareKinds | None, row_type: type) -> list:  # type: ignore[type-arg]
    """A row per GPU, in the comparison's order: its option (at the shared provider when there is one), its month,
    its cost per 1M output tokens (serving) or per run, and its speed per user (with the users it holds, full)."""
    if response.compared is None:
        return []
    plans = list(response.compared)
    one = not response.ranked and _one_provider(plans)
    if response.ranked:  # the types with an SLA, then the cheapest flagged one when it is cheaper than the first
        fine = [p for p in plans if not _flags_of(p, kinds)]
        flagged = [p for p in plans if _flags_of(p, kinds)][:1]
        cheaper = [p for p in flagged if (p.usd_per_1m_tokens or 0) < (plans[0].usd_per_1m_tokens or 0)]
        plans = fine[:RANKED_ROWS - len(cheaper)] + cheaper
    rows = []
    for n, plan in enumerate(plans):
        role = ORDINALS[n] if n < len(ORDINALS) else f"{n + 1}th"
        if response.ranked and _flags_of(plan, kinds):
            role = "cheapest"
        if not plan.fits:
            rows.append(row_type(role, f"{plan.gpus}× {plan.gpu}: does not fit", "", "", "", False))
            continue
        option = _option(plan)
        if option is None:
            continue
        shown = _figures(plan) if one else plan
        flags = _flags(option, kinds)
        role = f"{role}, {flags}" if flags else role
        monthly = f"{fmt_usd_short(shown.usd_per_month)}/month" if shown.usd_per_month is not None else ""
        if shown.usd_per_run is not None:
            unit = f"{fmt_usd_short(shown.usd_per_run)}/run"
            speed = f"{fmt_num(shown.hours_per_run)} h/run" if shown.hours_per_run else ""
        else:
            unit = (f"${shown.usd_per_1m_tokens:,.2f}/1M output tokens" if shown.usd_per_1m_tokens is not None else "")
            speed = f"{fmt_num(shown.tokens_per_s_per_user)} tokens/s per user" if shown.tokens_per_s_per_user else ""
            if plan.capacity is not None and plan.capacity.users:
                speed += f", {plan.capacity.users:,} users"
        rows.append(row_type(role, option.name, monthly, unit, speed, n == 0))
    return rows


def many_line(response: Response, names: Mapping[str, str]) -> str | None:
    """Under the headline: for a comparison read at one provider, each GPU's cheapest anywhere when elsewhere; with no
    provider renting them all, that each is at its own cheapest; for a ranking, what it ranked."""
    if response.compared is None:
        return None
    plans = list(response.compared)
    if response.ranked:
        floor = plans[0].capacity.floor if plans[0].capacity is not None else "20"
        return (f"Ranked: each GPU type the catalog rents, planned full (as many users as keep ≥{floor} tokens/s each) "
                f"at its cheapest provider ({len(plans)} types fit; GeForce cards and hosts without an SLA after the "
                "rest). Cost per token falls with load: at one stream every GPU is several times dearer")
    if not _one_provider(plans):
        return "No provider rents them all (marketplace hosts aside); each at its cheapest"
    at = plans[0].shared.provider if plans[0].shared is not None else None
    moved = [p for p in plans if p.own is not None and p.own.provider != at]
    if not moved:
        return None
    per = _per(plans, response.text)

    def figure(p: GpuPlan) -> str:
        own = p.own
        assert own is not None
        cost = (f"{fmt_usd_short(own.usd_per_run)} a run" if per == "run" and own.usd_per_run is not None
                else f"${own.usd_per_1m_tokens:,.2f} per 1M" if per == "token" and own.usd_per_1m_tokens is not None
                else f"{fmt_usd(own.usd_per_month)} a month")
        return f"{short_gpu(p.gpu, names)} at {own.provider_name}, {cost}"

    return "Cheapest of each elsewhere (marketplace hosts aside): " + "; ".join(figure(p) for p in moved)
