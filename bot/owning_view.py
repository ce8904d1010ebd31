"""The first message of an answer about owned hardware (bot.owning): what to buy to run a model locally, and buy or
rent with no model. Both are `AnswerView`s, so Slack's blocks and the terminal render them with the answer templates:
the headline says the decision, the comparison rows the cheapest card(s) at each precision, the notes the figures
behind it, and the assumptions line what the user can change."""

from __future__ import annotations

import math
from dataclasses import replace

from bot.formatting import fmt_gb
from bot.limits import HEADER_TEXT
from bot.owning import BuyOrRent, Local
from bot.summary import AnswerView, ComparisonRow
from engine.buy_or_rent import (
    COLO_USD_PER_KW_MONTH,
    PRICE_SPREAD_ASSUMED,
    RESALE_BASIS,
    SERVER_COST_FACTOR,
    BreakEven,
)
from engine.local import MAX_CARDS, MIN_CONTEXT, LocalPlan
from engine.recommend import PUE, SERVER_POWER_FACTOR
from parser.hardware import OWN_HARDWARE_NOTE

OWNED_NOTES = ("No provider in the catalog rents the ", OWN_HARDWARE_NOTE)
SHORT_LABEL = {"bf16": "BF16", "int8": "8-bit", "int4": "4-bit"}
USED = "used"  # a purchase source that says the price is the used market's


def _usd(value: float) -> str:
    return f"${value:,.0f}" if value < 1e6 else f"${value / 1e6:,.2f}M"


def _k(value: float) -> str:
    """$468k, $1.03M: totals in a headline."""
    return f"${value / 1e3:,.0f}k" if value < 1e6 else f"${value / 1e6:,.2f}M"


def _price(plan: LocalPlan) -> str:
    """'~$700 used', '~$1,600': what the card(s) cost, as the catalog's source says."""
    if plan.price_usd is None:
        return "yours"
    used = " used" if USED in plan.price_source.lower() and "used-market" in plan.price_source.lower() else ""
    return f"~{_usd(plan.price_usd)}{used}"


def _cards(plan: LocalPlan) -> str:
    return f"{plan.gpus}× {plan.gpu_name}"


def _fit(plan: LocalPlan) -> str:
    return f"{fmt_gb(plan.need_gb_per_gpu)} of {fmt_gb(plan.usable_gb_per_gpu)} per card"


def _speed(plan: LocalPlan) -> str:
    return f"{plan.tokens_per_s_per_user:,.0f} tokens/s"


def _tokens(n: int) -> str:
    """'4,096', '11k', '128k': a context length."""
    if n >= 10_000 and n % 1024 == 0:
        return f"{n // 1024}k"  # 32,768 is "32k" as people say it
    return f"{n:,}" if n < 10_000 else f"{n / 1000:,.0f}k"


def _precision(plan: LocalPlan) -> str:
    """'4-bit (GGUF Q4_K_M)', 'BF16': the precision and the file it was sized as."""
    short = SHORT_LABEL.get(plan.precision, plan.precision)
    return short if plan.precision == "bf16" else f"{short} ({plan.file_label})"


def _context(plan: LocalPlan) -> str:
    """', up to 11k tokens of context': the most the cards hold, when it is more than was sized."""
    most = plan.max_context_tokens
    return f", up to {_tokens(most)} tokens of context" if most > plan.context_tokens else ""


def _headline(text: str) -> str:
    return text if len(text) <= HEADER_TEXT else text[:HEADER_TEXT - 1] + "…"


def local_view(view: AnswerView, local: Local, model_name: str) -> AnswerView:
    """The answer drawn on the pick (or the user's card), with the local question's headline, its rows and notes."""
    if local.unsupported:  # "on my macbook m3 max": not sized here, and no card to buy or rent instead
        return _not_sized_view(view, local, model_name)
    answer = local.answer
    pick = answer.pick
    who = "you" if answer.users == 1 else f"{answer.users} users"
    rows = [ComparisonRow(role=SHORT_LABEL.get(p.precision, p.precision), name=_cards(p), monthly=_price(p),
                          unit_cost=_fit(p), speed=f"{_speed(p)} for {who}", winner=p == pick)
            for p in answer.by_precision]
    notes: list[str] = []
    named = answer.owned
    mine = answer.owned_pick
    if named:
        card = f"{named[0].gpus}× {named[0].gpu_name}"
        whose = "your " if local.owned else ""
        if mine is not None and mine.usable:
            headline = (f"✅ Runs on {whose}{card} at {_precision(mine)}: {_fit(mine)}, ~{_speed(mine)} for {who}"
                        f"{_context(mine)}")
        elif mine is not None and mine.fits_shorter:
            # holds the model, not the context asked: runs with a shorter one (llama.cpp -c, vLLM --max-model-len)
            headline = (f"⚠️ Fits {whose}{card} at {_precision(mine)} with up to {_tokens(mine.max_context_tokens)} "
                        f"tokens of context, not {_tokens(mine.context_tokens)} ({fmt_gb(mine.need_gb_per_gpu)} of "
                        f"{fmt_gb(mine.usable_gb_per_gpu)})")
        elif mine is not None:
            headline = (f"⚠️ Fits {whose}{card} at {SHORT_LABEL.get(mine.precision, mine.precision)} "
                        f"({_fit(mine)}) but at {_speed(mine)}, under {answer.floor_tokens_per_s:g} for {who}")
        else:
            least = named[-1]
            headline = (f"❌ Not on {whose}{card}: even {SHORT_LABEL.get(least.precision, least.precision)} needs "
                        f"{fmt_gb(least.need_gb_per_gpu)} of {fmt_gb(least.usable_gb_per_gpu)} usable")
            if pick is not None:
                notes.append(f"cheapest that runs it: {_cards(pick)} ({_price(pick)}) at {_precision(pick)}, "
                             f"{_fit(pick)}, ~{_speed(pick)} for {who}")
    elif local.unlisted_card is not None:
        headline, said = _unlisted(local, model_name, who)
        notes.extend(said)
    elif pick is not None:
        headline = (f"🖥️ To run {model_name} locally: {_cards(pick)} ({_price(pick)}) at "
                    f"{SHORT_LABEL.get(pick.precision, pick.precision)}: {_fit(pick)}, ~{_speed(pick)} for {who}")
        if answer.one_card:  # a card of their own (a laptop's) is checked against these
            notes.append("memory it needs on one card (weights, KV cache, runtime): " + " · ".join(
                f"{SHORT_LABEL.get(p.precision, p.precision)} {fmt_gb(p.need_gb_per_gpu)}" for p in answer.one_card)
                + "; name your card and its memory (e.g. “on my RTX 4060 8GB”) to check it")
    else:
        headline = (f"❌ No desktop setup of up to {MAX_CARDS} cards runs {model_name} at "
                    f"{answer.floor_tokens_per_s:g}+ tokens/s for {who}; it needs datacenter GPUs (ask to serve it)")
    cost_label = "to buy"
    if named and local.owned and mine is not None:
        # their own cards run it: the rows are those cards at each precision, the star on the one the headline names
        # (cards to buy would star a card they do not have)
        rows = [ComparisonRow(role=SHORT_LABEL.get(p.precision, p.precision), name=f"your {_cards(p)}", monthly="yours",
                              unit_cost=_fit(p) if p.fits else f"needs {fmt_gb(p.need_gb_per_gpu)} per card (does not fit)",
                              speed=f"{_speed(p)} for {who}" if p.fits else "—", winner=p == mine)
                for p in named]
        cost_label = "cost"
    sized = mine if named and mine is not None else pick
    if sized is not None and sized.precision != "bf16":
        notes.append(_sized_note(sized) + (f"; price: {pick.gpu_name} {pick.price_source}"
                                           if pick is not None and not named else ""))
    elif pick is not None and not named:
        notes.append(f"price: {pick.gpu_name} {pick.price_source}")
    # the plan is theirs, or a card to buy: "no provider rents it" and "give the GPU" answer another question
    kept = [n for n in view.notes if not n.startswith(OWNED_NOTES)]
    context = f"{answer.context_tokens:,} tokens of context · " if answer.context_tokens else ""
    assumptions = (f"Assumes {who} at {answer.floor_tokens_per_s:g}+ tokens/s · {context}1 GB of each card for the "
                   "CUDA context and runtime (nothing else kept back, as llama.cpp and Ollama run) · cards from the "
                   "catalog's GeForce and workstation lists at their purchase price")
    return replace(view, headline=_headline(headline), comparison=rows, cost_label=cost_label,
                   unit_cost_label="memory per card", speed_label="speed", key_assumptions=assumptions,
                   notes=(notes + kept)[:3], questions=[q for q in view.questions], fixes=[],
                   verdict="fits" if (mine if named else pick) is not None else view.verdict)


# the share of a Mac's unified memory macOS lets the GPU wire by default (Metal's recommendedMaxWorkingSetSize, raised
# with `sysctl iogpu.wired_limit_mb`): ~47 GB of 64 GB and ~21.8 GB of 32 GB as llama.cpp logs it
# (github.com/ggml-org/llama.cpp issues 1870 and PR 2011)
MAC_GPU_SHARE_LARGE, MAC_GPU_SHARE_SMALL, MAC_LARGE_GB = 0.75, 2 / 3, 36.0
MAC_SYSTEM_GB = 8.0  # what to leave macOS and its apps when the GPU's share is raised (an assumption, said in the note)


def mac_gpu_gb(memory_gb: float) -> float:
    """The unified memory a Mac's GPU may use by default: about three quarters above 36 GB, two thirds at or below."""
    return memory_gb * (MAC_GPU_SHARE_LARGE if memory_gb > MAC_LARGE_GB else MAC_GPU_SHARE_SMALL)


def _not_sized_view(view: AnswerView, local: Local, model_name: str) -> AnswerView:
    """A Mac or a CPU named as where a model runs: the catalog has no figures for it, so no speed and nothing to buy or
    rent in its place; the memory the model needs at each precision (the same arithmetic on any hardware), against the
    Mac's own memory when said, and the runtimes that run it there."""
    name = str(local.unsupported)
    apple = name != "CPU"
    runtimes = "llama.cpp or MLX" if apple else "llama.cpp"
    plans = local.answer.one_card
    needs = " · ".join(f"{SHORT_LABEL.get(p.precision, p.precision)} {fmt_gb(p.need_gb_per_gpu)}" for p in plans)
    context = f"{local.answer.context_tokens:,}" if local.answer.context_tokens else "the default"
    users = local.answer.users
    who, kv = ("you alone", context) if users <= 1 else (f"{users} users at once", f"{users} × {context}")
    notes = [f"memory it needs (weights, KV cache for {kv} tokens, runtime): {needs}"] if plans else []
    memory_gb = local.unlisted_card[1] if apple and local.unlisted_card is not None else None
    lead = f"⚠️ {name} is not covered (the catalog sizes GPUs)"
    verdict = "unknown"
    if memory_gb is not None and plans:
        usable = mac_gpu_gb(memory_gb)
        notes[0] += (f"; macOS lets the GPU use about {usable / memory_gb:.0%} of unified memory by default (~"
                     f"{usable:,.0f} of {memory_gb:g} GB; more with sysctl iogpu.wired_limit_mb)")
        fitting = next((p for p in plans if p.need_gb_per_gpu <= usable), None)
        raised = next((p for p in plans if p.need_gb_per_gpu <= memory_gb - MAC_SYSTEM_GB), None)
        if fitting is not None:
            verdict = "fits"
            headline = (f"{lead}; {model_name} should fit its {memory_gb:g} GB at {_precision(fitting)} "
                        f"({fmt_gb(fitting.need_gb_per_gpu)}): run it with {runtimes}")
        elif raised is not None:  # past the default share, within the memory: raising the limit is the way
            verdict = "fits"
            headline = (f"{lead}; {model_name} at {SHORT_LABEL.get(raised.precision, raised.precision)} needs "
                        f"{fmt_gb(raised.need_gb_per_gpu)}: over macOS's default ~{usable:,.0f} GB of its {memory_gb:g} GB")
            notes.append(f"raise the share with sysctl iogpu.wired_limit_mb, leaving ~{MAC_SYSTEM_GB:g} GB to macOS, "
                         f"and run it with {runtimes}")
        else:
            verdict = "does_not_fit"
            headline = (f"{lead}; {model_name} does not fit its {memory_gb:g} GB: even "
                        f"{SHORT_LABEL.get(plans[-1].precision, plans[-1].precision)} needs "
                        f"{fmt_gb(plans[-1].need_gb_per_gpu)}")
            notes.append("a smaller or distilled model fits; llama.cpp can also leave layers on the CPU, at a few "
                         "tokens/s")
    elif plans:
        least = plans[-1]
        headline = (f"{lead}; {model_name} needs {fmt_gb(least.need_gb_per_gpu)} of memory at "
                    f"{_precision(least)}: run it with {runtimes}")
    else:
        headline = f"{lead}: run {model_name} with {runtimes}"
    notes.append(f"no speed or price estimated: the catalog has no {'Apple silicon' if apple else 'CPU'} figures, and "
                 "nothing is rented or bought instead; ask to serve it for users to size GPUs")
    assumptions = (f"Assumes {who} · {context} tokens of context · 8- and 4-bit sized as GGUF files (Q8_0, Q4_K_M; "
                   + ("MLX's 8- and 4-bit builds are about the same size" if apple else "as llama.cpp runs them")
                   + ") · 1 GB for the runtime")
    problems = [p for p in view.problems if "the catalog sizes gpus" not in p.lower()]  # the headline says it
    return replace(view, headline=_headline(headline), verdict=verdict, problems=problems, plan="", speed="", cost="",
                   targets=[], not_covered="", fixes=[], comparison=[], key_assumptions=assumptions, notes=notes[:3],
                   buttons=[])


def _sized_note(plan: LocalPlan) -> str:
    """How the 8- or 4-bit weights were sized, and the other kind of file."""
    from engine.local import GGUF_BITS

    if plan.runtime == "gguf":
        return (f"{SHORT_LABEL[plan.precision]} sized as {plan.file_label} (llama.cpp, Ollama, LM Studio: "
                f"{GGUF_BITS[plan.precision]:g} bits a weight, {fmt_gb(plan.weights_gb)} of weights); say “AWQ” for "
                "a vLLM checkpoint")
    return (f"{SHORT_LABEL[plan.precision]} sized as {plan.file_label} (vLLM: 16-bit embeddings and head, "
            f"{fmt_gb(plan.weights_gb)} of weights); a GGUF file (llama.cpp, Ollama) is a little smaller or larger")


def _unlisted(local: Local, model_name: str, who: str) -> tuple[str, list[str]]:
    """A card the catalog lacks ("laptop 4070 8GB"): its memory against the model's need at each precision; no
    speed is estimated for it."""
    name, memory_gb = local.unlisted_card or ("", None)
    answer = local.answer
    said = [f"the {name} is not in the catalog, so no speed is estimated for it; the rows below are desktop cards "
            "that run it"]
    if memory_gb is None:
        return (f"❓ The {name} is not in the catalog: say its memory (e.g. “8GB”) to check {model_name} against it",
                said)
    usable = memory_gb  # as for the catalog's cards: the need holds 1 GB for the CUDA context and runtime
    if name.startswith("Apple"):  # a Mac's GPU may use only part of its unified memory by default
        usable = mac_gpu_gb(memory_gb)
        said = [f"the {name} is not in the catalog, so no speed is estimated for it (its decode is bound by its memory "
                "bandwidth, one stream at a time); the plan below is GPUs that would serve the users instead"]
        raised = next((p for p in answer.one_card if usable < p.need_gb_per_gpu <= memory_gb - MAC_SYSTEM_GB), None)
        if raised is not None and not any(p.need_gb_per_gpu <= usable for p in answer.one_card):
            said.append(f"raise the GPU's share with sysctl iogpu.wired_limit_mb, leaving ~{MAC_SYSTEM_GB:g} GB to macOS")
            chip = name.removeprefix("Apple ")
            return (f"⚠️ {model_name} at {SHORT_LABEL.get(raised.precision, raised.precision)} needs "
                    f"{fmt_gb(raised.need_gb_per_gpu)}: over macOS's default ~{usable:,.0f} GB of your {chip}'s "
                    f"{memory_gb:g} GB; raise the limit", said)
    fitting = next((p for p in answer.one_card if p.need_gb_per_gpu <= usable), None)
    if fitting is not None:
        most = fitting.context_on(usable)
        room = f", up to {_tokens(most)} tokens of context" if most > fitting.context_tokens else ""
        return (f"✅ {model_name} should fit your {name} ({memory_gb:g} GB) at {_precision(fitting)}: "
                f"{fmt_gb(fitting.need_gb_per_gpu)} of {fmt_gb(usable)}{room}", said)
    shorter = max(answer.one_card, key=lambda p: p.context_on(usable), default=None)
    if shorter is not None and shorter.context_on(usable) >= MIN_CONTEXT:
        return (f"⚠️ {model_name} fits your {name} ({memory_gb:g} GB) at {_precision(shorter)} with up to "
                f"{_tokens(shorter.context_on(usable))} tokens of context; {shorter.context_tokens:,} need "
                f"{fmt_gb(shorter.need_gb_per_gpu)}", said)
    least = answer.one_card[-1] if answer.one_card else None
    need = f"even 4-bit needs {fmt_gb(least.need_gb_per_gpu)}" if least is not None else "it needs more"
    said.append("llama.cpp can offload the layers that do not fit to system RAM, at a few tokens/s")
    article = "an" if f"{memory_gb:g}".startswith(("8", "11", "18")) else "a"
    return f"❌ {model_name} does not fit {article} {memory_gb:g} GB {name}: {need}", said


def _rent_label(b: BreakEven) -> str:
    return "1-3 yr reserved" if b.reserved_usd <= b.on_demand_usd else "on-demand"


def _per_gpu(value: float) -> str:
    """$4,200 (to the hundred: the inputs are not better than that); $25k past $10k."""
    return f"${value / 1e3:,.0f}k" if value >= 10_000 else f"${round(value, -2):,.0f}"


def _resale_said(b: BreakEven) -> str:
    """'GPUs resold for 20% of their price at the end' (or 'no resale'), as said or assumed."""
    if b.resale_share <= 0:
        return "no resale at the end" + (" (as you said)" if b.resale_said else "")
    return f"GPUs resold for {b.resale_share:.0%} of their price at the end" + (" (as you said)" if b.resale_said else "")


def _spread(b: BreakEven) -> str:
    """'$25k-$40k a GPU, the range its price source quotes' (or the spread assumed where it quotes none)."""
    where = ("the range its price source quotes" if b.price_range_published else
             f"±{PRICE_SPREAD_ASSUMED:.0%}: its price source quotes no range")
    return f"{_per_gpu(b.price_low_usd)}-{_per_gpu(b.price_high_usd)} a GPU, {where}"


def _flip(b: BreakEven) -> str:
    """The resale per GPU after the horizon that would flip the verdict, in words."""
    flip = b.resale_to_flip_usd_per_gpu
    if flip <= 0:
        return "owning wins even with no resale"
    if flip >= b.purchase_usd_per_gpu:
        return "no resale value makes up for it"
    return (f"owning wins with resale above ~{_per_gpu(flip)} a GPU ({flip / b.purchase_usd_per_gpu:.0%} of its price) "
            f"after {b.years:g} years")


def _verdict_note(b: BreakEven) -> str:
    """A close call says the spread it sits in and what flips it; otherwise the utilisation from which owning wins,
    or that it does not at any (with what resale would take): never a bare "never"."""
    years = f"{b.years:g} years"
    if b.close:
        return (f"close call: at the GPU's price spread ({_spread(b)}) owning costs {_k(b.own_low_usd)}-"
                f"{_k(b.own_high_usd)} over {years} against {_k(b.best_rent_usd)} {_rent_label(b)}; {_flip(b)}, "
                "and your server and reserved quotes move it as much")
    if b.min_utilisation is not None:
        return (f"owning beats renting over {years} from ~{b.min_utilisation:.0%} use (below it, on-demand is cheaper); "
                f"{_flip(b)}")
    return (f"owning does not beat renting over {years} at any utilisation, even at {_per_gpu(b.price_low_usd)} a GPU "
            f"({_spread(b)}): on-demand or 1-3 year reserved costs less; {_flip(b)}")


def buy_or_rent_view(asked: BuyOrRent) -> AnswerView:
    """Buy or rent N GPUs with no model: the verdict over the years assumed (a close call when the GPU's own price
    spread holds both answers), the break-even months, the costs and resale behind them, and the assumptions the
    thread can change."""
    b = asked.result
    gpus = f"{asked.gpus}× {asked.gpu_name}"
    if b is None:
        return AnswerView(
            headline=_headline(f"💸 Buy or rent {gpus}: no sourced purchase price (or no rental) in the catalog, so no "
                               "break-even"),
            verdict="unknown",
            notes=["owning usually pays only at ~70%+ sustained use for 3+ years; name a model and load to price "
                   "the rental"])
    years = f"{b.years:g} years"
    use = f"{b.utilisation:.0%} busy"
    verdict = b.verdict
    if b.close:  # within the GPU price's own spread: which way it leans, and by how much
        verdict = f"close call, {b.verdict} by {abs(b.own_usd - b.best_rent_usd) / b.best_rent_usd:.0%}"
    net = " net of resale" if b.resale_usd > 0 else ""
    headline = (f"💸 Buy or rent {gpus}: {verdict}: over {years} at {use}, owning costs {_k(b.own_usd)}{net} against "
                f"{_k(b.best_rent_usd)} {_rent_label(b)}")
    where = f"{b.rent_provider}, the cheapest with an SLA" if b.rent_sla else f"{b.rent_provider}, no SLA offer listed"

    def months(value: float) -> str:
        return "none (the rent barely covers power and space)" if math.isinf(value) else f"~{value:,.0f} months"

    resale = (f"resale after {years} ~{_usd(b.resale_usd)} ({b.resale_share:.0%} of the GPUs' price"
              + (", as you said" if b.resale_said else f", assumed: {RESALE_BASIS}") + "; the rest of the server $0)"
              if b.resale_usd > 0 else
              "no resale counted" + (" (as you said)" if b.resale_said else ""))
    notes = [
        f"break-even at {use}{', counting what the GPUs resell for then' if b.resale_usd > 0 else ''}: "
        f"{months(b.months_on_demand)} against on-demand "
        f"${b.rent_usd_per_gpu_hour:,.2f}/GPU-hour ({where}; {_k(b.on_demand_usd)} over {years}); "
        f"{months(b.months_reserved)} against 1-3 year reserved capacity at ${b.reserved_usd_per_gpu_hour:,.2f}/GPU-hour "
        f"(~30% below on-demand, paid busy or not: {_k(b.reserved_usd)})",
        f"owning: servers ~{_usd(b.hardware_usd)} (GPUs at ~{_usd(b.purchase_usd_per_gpu)} each, {b.purchase_source}, "
        f"plus ~{SERVER_COST_FACTOR - 1:.0%} for the rest of the server); {resale}; power ~{_usd(b.power_usd_per_month)} "
        f"a month ({SERVER_POWER_FACTOR:g}x GPU TDP, PUE {PUE:g}, ${b.usd_per_kwh:g}/kWh); colocation for "
        f"{b.server_kw:,.1f} kW ~{_usd(b.space_usd_per_month)} a month (${COLO_USD_PER_KW_MONTH:,.0f}/kW-month, CBRE H2 "
        "2024 North America average); networking and staff not counted",
        _verdict_note(b),
    ]
    said = asked.said
    assumptions = (f"Assumes busy {b.utilisation:.0%} of the time{'' if 'utilisation' in said else ' (around the clock)'} · "
                   f"power at ${b.usd_per_kwh:g}/kWh · owned for {years} · {_resale_said(b)}; say e.g. “at 50% "
                   "utilisation”, “$0.08/kWh”, “over 5 years”, “no resale”, “resale 30%”")
    return AnswerView(headline=_headline(headline), verdict="fits", key_assumptions=assumptions, notes=notes)
