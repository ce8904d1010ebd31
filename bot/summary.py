"""The first message: a summary a busy engineer reads in ten seconds.

Why its own module: the first message decides whether the answer is forwarded or ignored, so what
it shows is chosen here in one place: the verdict (fits or not, on what), the open questions, the
plan (GPUs x type, nodes, parallelism, replicas), speed, cost (per run and per month; the whole job
past a month), a three-row comparison (winner, runner-up, cheapest or fastest) and the assumptions
that move the answer most. Everything else is a layer posted on demand (`bot.details`). Like all of
`bot`, this selects and formats what the engine computed; it never estimates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot.caveats import (
    FALLBACK_WEIGHTS,
    FP8_NOTE,
    UNKNOWN_SIZED_NAME,
    UNLISTED_MODEL_NOTE,
    HardwareKinds,
    cheapest_fitting,
    decision_caveats,
    fallback_weights,
    plan_note,
    service_risks,
    unpriced_said,
)
from bot.formatting import (
    best_tco,
    fmt_count,
    fmt_gb,
    fmt_hours,
    fmt_num,
    fmt_usd,
    fmt_usd_short,
    gpu_name,
    label,
    rented_gpus,
    subject,
    tidy_plurals,
    winner_name,
    winner_option,
)
from bot.limits import HEADER_TEXT
from bot.reserved import reserved_cost_line
from bot.residency import cost_line_region, outside_headline
from bot.service import RANKED_ROWS, GpuPlan, Response, unit_cost_asked
from engine.advise import (
    LACKS_SAID,
    POOR_FIT_NOTE,
    POWER_RATE_SAID,
    PROVIDER_LACKS_GPU,
    REASONING_NOTE,
    REASONING_REPLY_TOKENS,
    RENTED_NOWHERE_NOTE,
    USERS_PAST_FIXED,
)
from engine.budget_ladder import Rung, largest_within
from engine.models import (
    COMPRESSED_TEXT_RATIO,
    DEFAULT_INPUT_TOKENS,
    DEFAULT_OUTPUT_TOKENS,
    TRAINING_MODES,
    Advice,
    ClusterPlan,
    Option,
    TargetCheck,
    Workload,
)
from engine.offer_plans import (
    EXPERT_PARALLEL_ACROSS,
    PCIE_REPLICAS,
    SLOW_FIXED_NOTE,
    pcie_tp_said,
    room_figures,
)
from engine.queueing import percentile_words
from engine.recommend import NO_INTEGER_KERNELS_NOTE, OWNED_PREFIX, owns_gpus
from engine.recommendation import BUDGET_NOTE, job_figures, job_rate_and_hours, one_run_usd
from engine.serving import DEFAULT_TOKENS_PER_S_PER_USER, floor_kept_at, user_floor
from engine.tco import HOURS_PER_WEEK, row_usd, schedule_words, scheduled_service
from engine.think_time import think_time_s
from engine.throughput import (
    AMD_SERVING_EFFICIENCY,
    AMD_SERVING_NOTE,
    planned_rate,
    total_in_rate,
    whole_run_range,
)
from engine.units import HOURS_PER_MONTH
from parser.budget_first import budget_words
from parser.questions import serving_without_load

# action ids: bot.listeners.actions routes on these
ACTION_COMPARE_GPU = "refine_gpu"
ACTION_CACHE = "refine_cache"
ACTION_RUNS = "refine_runs"
ACTION_FORMULAS = "show_formulas"
ACTION_DETAILS = "show_details"
ACTION_OPTIONS = "show_options"
ACTION_CHART = "show_chart"
ACTION_SHARE_VRAM = "vram_share"


@dataclass(frozen=True)
class Button:
    action_id: str
    text: str
    value: str


@dataclass(frozen=True)
class ComparisonRow:
    """One line of the first message's comparison: the winner, the runner-up, the cheapest or fastest."""

    role: str  # "winner" | "runner-up" | "cheapest" | "fastest"
    name: str
    monthly: str  # "$2.43M/month"
    unit_cost: str  # "$121,728/run" (training) or "$8.17/1M tokens" (serving); "" when unknown
    speed: str  # "590 h/run" or "6.5 tokens/s per user"
    winner: bool


@dataclass(frozen=True)
class AnswerView:
    """Context of `answer.json.j2` / `answer.txt.j2`: the first message, a summary a reader takes in at
    a glance. Every string is display-ready (not escaped); the breakdowns live in `DetailsView` and
    `OptionsView`, posted when asked for."""

    headline: str
    verdict: str  # "fits" | "does_not_fit" | "unknown"
    questions: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    plan: str = ""  # GPUs x type, nodes, parallelism, replicas, memory per GPU
    speed: str = ""
    published: str = ""  # pre-training: the GPU-hours the model's makers published, beside ours, and why they differ
    cost: str = ""
    targets: list[str] = field(default_factory=list)  # "per-user speed 20 tokens/s: target met (31)"
    not_covered: str = ""  # an accelerator the catalog does not cover
    fixes: list[str] = field(default_factory=list)  # what would make it fit (does-not-fit answers)
    comparison: list[ComparisonRow] = field(default_factory=list)
    cost_label: str = "per month"  # the first figure's column: "per job" for an offline job
    unit_cost_label: str = "per run"
    speed_label: str = "time per run"
    key_assumptions: str = ""  # one line: token count, utilisation, pricing basis
    notes: list[str] = field(default_factory=list)  # what the reader noticed (ambiguous names), at most two
    buttons: list[Button] = field(default_factory=list)
    runs_select: bool = False
    tables: bool = False  # the comparison as a Slack table block (workspaces that support it)
    vram_only: bool = False
    memory_line: str = ""  # /vram: peak per GPU and its biggest parts
    precision_rows: list[tuple[str, str, str]] = field(default_factory=list)  # (precision, weights+KV, caveat)
    precision_basis: str = "weights alone"  # what the rows count: "weights + KV cache of one 131,072-token sequence"
    assumptions: list[str] = field(default_factory=list)  # /vram: at most two
    hint: str = ""  # terminal only: how to see the rest
    api: str = ""  # "… vs gpt-4o-mini api": the API's bill beside the plan's, and where they cross (bot.api_compare)



def _buttons(advice: Advice, charts: bool = True) -> tuple[list[Button], bool]:
    """Details on demand first, then the refinements a user most often types."""
    w = advice.effective
    buttons = [Button(ACTION_DETAILS, "Details", "details")]
    if advice.options:
        buttons.append(Button(ACTION_OPTIONS, "All options", "options"))
    buttons.append(Button(ACTION_FORMULAS, "Formulas", "formulas"))
    if advice.options and charts:
        buttons.append(Button(ACTION_CHART, "Cost chart", "chart"))
    other = "H100" if (w.gpu or "").startswith("a100") else "A100"
    buttons.append(Button(ACTION_COMPARE_GPU, f"Try {other}", f"try {other}s"))
    if w.mode != "inference" and (w.dataset_gb or w.dataset_tokens) and not w.cache_dataset:
        buttons.append(Button(ACTION_CACHE, "Cache the dataset", "cache the dataset"))
    return buttons, w.mode != "inference"



def _is_serving(advice: Advice) -> bool:
    return advice.effective.mode == "inference"


def _is_job(advice: Advice) -> bool:
    """An offline job over a number of prompts ("summarize 2m rows"): read in hours and dollars for the job, and
    per prompt, not per month and per user."""
    return _is_serving(advice) and bool(advice.effective.batch_items)


def _per_user(option: Option) -> float | None:
    fig = option.throughput.decode_tokens_per_s_per_sequence
    return fig.value if fig is not None else None


def _comparison(advice: Advice, kinds: HardwareKinds | None = None) -> list[ComparisonRow]:
    """Winner, runner-up, and whichever of the cheapest / fastest alternative is not already shown. A
    cheapest row a service should not run on says why in its label ("cheapest, no SLA"), since the
    sentence about it is the first the one-note budget drops when a question is open."""
    if not advice.options or unpriced_said(advice):  # power alone ranked against nothing priced: no table
        return []
    by_name = {o.name: o for o in advice.options}
    winner = by_name.get(winner_name(advice) or "") or advice.options[0]
    alternatives = [by_name[n] for n in (advice.recommendation.alternatives if advice.recommendation else ())
                    if n in by_name and n != winner.name]
    rec = advice.recommendation
    # the engine names the runner-up (another provider) and the cheapest / fastest option that is still
    # on target; a renderer only shows them
    runner_up = (by_name.get(rec.runner_up or "") if rec is not None else None) or (alternatives[0] if alternatives else None)
    serving = _is_serving(advice)
    cheapest = by_name.get(rec.cheapest or "") if rec is not None else None
    fastest = by_name.get(rec.fastest or "") if rec is not None else None
    # rented GPUs a plan does not use: a service's replica in a bigger box, or a training count the user fixed (a
    # training plan otherwise runs data-parallel on the whole node it rents)
    idles = serving or bool(advice.workload.gpu_count)
    picked: list[tuple[str, Option]] = [(_role("winner", _idle(winner) if idles else None), winner)]
    floor = float(advice.workload.target_tokens_per_s_per_user or DEFAULT_TOKENS_PER_S_PER_USER)
    if runner_up is not None and runner_up.name != winner.name:
        # under the interactive floor (a budget ranks such options first): said in the label, as for the cheapest
        slow = serving and (_per_user(runner_up) or 0.0) < min(floor_kept_at(advice.effective), _per_user(winner) or 0.0)
        # what the runner-up risks that the winner does not (a marketplace host behind a cloud pick): "no SLA"
        shared = set((_unfit_for_service(winner, kinds) or "").split(", "))
        risks = ", ".join(r for r in (_unfit_for_service(runner_up, kinds) or "").split(", ") if r and r not in shared)
        picked.append((_role("runner-up", "slower" if slow else None, _idle(runner_up) if idles else None,
                             (risks or None) if serving else None), runner_up))
    shown = {o.name for _, o in picked}
    if cheapest is not None and cheapest.name not in shown:  # cheaper than the winner: say what it costs in time
        slower = (_per_user(cheapest) or 0.0) < (_per_user(winner) or 0.0) and not _is_job(advice) if serving else \
            (cheapest.hours_per_run or 0.0) > (winner.hours_per_run or 0.0)
        if slower and serving and not _is_job(advice) and (_per_user(cheapest) or 0.0) < floor_kept_at(advice.effective):
            slower_said = f"under {floor:g} tokens/s"  # below the speed the answer sizes for: not the same service
        else:
            slower_said = "slower" if slower else ""
        picked.append((_role("cheapest", slower_said or None,
                             _unfit_for_service(cheapest, kinds) if serving else None), cheapest))
    elif fastest is not None and fastest.name not in shown and not _is_job(advice):  # a job's options share its deadline
        picked.append((_role("fastest", _unfit_for_service(fastest, kinds) if serving else None), fastest))
    job = advice.effective if _is_job(advice) else None
    if _one_run(advice):  # one training run: ranked on what the run costs, so that is the first figure
        return [_one_run_row(role, o, advice.effective, winner.name) for role, o in picked]
    return [_comparison_row(role, o, serving, winner.name, job) for role, o in picked]


def _with_compared(rows: list[ComparisonRow], compared: tuple[GpuPlan, ...],
                   advice: Advice) -> list[ComparisonRow]:
    """Two GPUs (or weights) asked about together: the other one's plan is the second row, so the table shows both
    sides asked ("2x H100 or 1x MI300X": the rows had been two MI300X offers and no H100 at all)."""
    won, lost = compared
    # two GPUs compared at the provider renting both: the other GPU's row is its plan there, and the first GPU's
    # plan there follows when its own pick is elsewhere (the headline's two figures, side by side)
    one = _one_provider(won, lost)
    wanted = lost.shared.option if one and lost.shared is not None else lost.option
    other = next((o for o in lost.advice.options if o.name == wanted), None) if lost.fits else None
    if other is None or any(row.name == other.name for row in rows[:1]):
        return rows
    job = lost.advice.effective if _is_job(lost.advice) else None

    def row_of(role: str, option: Option, plan: GpuPlan) -> ComparisonRow:
        return (_one_run_row(role, option, plan.advice.effective, rows[0].name)
                if not _is_serving(advice) and _one_run(plan.advice) else
                _comparison_row(role, option, _is_serving(advice), rows[0].name, job))

    row = row_of(_role("asked too", _weights_name(lost.label) if lost.label else None), other, lost)
    first = replace(rows[0], role=_role(rows[0].role, _weights_name(won.label))) if won.label else rows[0]
    mine = (next((o for o in won.advice.options if o.name == won.shared.option), None)
            if one and won.shared is not None and won.shared.option != rows[0].name else None)
    extra = [row_of(f"at {won.shared.provider_name}", mine, won)] if mine is not None and won.shared else []
    return [first, row, *extra, *(r for r in rows[1:] if r.name not in (other.name, mine.name if mine else ""))][:3]


def _one_run(advice: Advice) -> bool:
    """One training run asked for, ending within the month: the options are ranked on the run's cost (compute and
    data transfer, `engine.recommendation.one_run_usd`), not on a month that includes storage left on the provider."""
    winner = next((o for o in advice.options if o.name == winner_name(advice)), advice.options[0] if advice.options else None)
    return winner is not None and one_run_usd(winner, advice.effective) is not None


ONE_RUN_LABELS = ("per run", "time per run", "storage a month if kept")  # the comparison's columns for one run


def _one_run_row(role: str, option: Option, w: Workload, winner: str) -> ComparisonRow:
    """A comparison row for one training run: its cost as ranked, its time, and what its provider charges a month
    for the dataset and checkpoints left there (what differs by provider, said apart from the run's cost, so the
    winner never shows a dearer run than the row below it). A run longer than a month is costed whole."""
    best = best_tco(option)
    run = one_run_usd(option, w)
    if run is None and best is not None:
        run = best.job_usd or best.per_run_usd
    storage = row_usd(best, "storage") if best is not None else None
    return ComparisonRow(role, option.name, f"{fmt_usd(run) if (run or 0) < 100_000 else fmt_usd_short(run)}/run" if run else "",
                         f"{fmt_hours(option.hours_per_run, compact=True)}/run" if option.hours_per_run is not None else "",
                         f"{fmt_usd_short(storage)}/month" if storage is not None else "", option.name == winner)


UNFIT_LABELS = ("no SLA", "GeForce")  # what _unfit_for_service says, last in a comparison row's label


def _role(role: str, *qualifiers: str | None) -> str:
    """A comparison row's label: its role, then each reason that applies ("cheapest, slower, no SLA")."""
    return ", ".join([role, *(q for q in qualifiers if q)])


def _idle(option: Option) -> str | None:
    """"6 GPUs idle": a serving option rented in bigger instances than its plan uses (a provider selling 8-GPU boxes
    only, for a 2-GPU replica), which is why it costs several times the winner."""
    rented = rented_gpus(option)
    idle = rented - option.cluster.gpus if rented else 0
    return tidy_plurals(f"{idle} GPU(s) idle") if idle > 0 else None


def _unfit_for_service(option: Option, kinds: HardwareKinds | None) -> str | None:
    """Why an always-on service would not run on this option, in two words, or None."""
    if kinds is None:
        return None
    geforce, market = service_risks(option, kinds)
    # a marketplace host has no SLA; a GeForce card's driver licence excludes datacenters and it has no ECC.
    # Both are said when both apply: the label is all the reader gets (no note repeats it)
    return ", ".join(word for word, applies in (("GeForce", geforce), ("no SLA", market)) if applies) or None


def _comparison_row(role: str, option: Option, serving: bool, winner: str, job: Workload | None = None) -> ComparisonRow:
    """`job`: the effective workload of an offline job, whose rows give the job's cost, per-1M cost and hours."""
    figures = job_figures(option, job) if job is not None else None
    if figures is not None:  # every option is sized to the same deadline: what it costs, and how long it takes
        return ComparisonRow(role, option.name, f"{fmt_usd(figures.usd)}/job",
                             f"{fmt_usd(figures.usd_per_1m_output)}/1M output tokens",
                             f"{fmt_hours(figures.hours, compact=True)}/job", option.name == winner)
    best = best_tco(option)
    if serving:
        fig = option.throughput.cost_per_1m_tokens_usd
        unit_cost = f"{fmt_usd(fig.value)}/1M output tokens" if fig is not None else ""
        per_user = _per_user(option)
        speed = f"{fmt_num(per_user)} tokens/s per user" if per_user is not None else ""
    else:
        # a run longer than a month is costed whole (job_usd); a shorter one per run
        per_run = (best.job_usd or best.per_run_usd) if best is not None else None
        unit_cost = f"{fmt_usd(per_run) if per_run < 100_000 else fmt_usd_short(per_run)}/run" if per_run else ""
        speed = f"{fmt_hours(option.hours_per_run, compact=True)}/run" if option.hours_per_run is not None else ""
    return ComparisonRow(role, option.name, f"{fmt_usd_short(option.total_usd)}/month", unit_cost, speed,
                         option.name == winner)


_OPTIMIZER_SAID = {"adamw_8bit": "8-bit Adam", "paged_adamw_8bit": "paged 8-bit Adam", "sgd": "SGD"}


def _plan_line(advice: Advice, names: Mapping[str, str]) -> str:
    cluster, mem = advice.cluster, advice.memory
    if cluster is None:
        return f"{fmt_gb(mem.per_gpu_gb)} peak per GPU" if mem else ""
    gpu = gpu_name(cluster.gpu, names)
    nodes = tidy_plurals(f"{cluster.nodes} nodes × {cluster.gpus_per_node} GPU(s)") if cluster.nodes > 1 else "1 node"
    arm = " (Arm hosts: arm64 images)" if any("run an Arm (Grace) CPU" in n for n in cluster.notes) else ""
    bits = [f"*{cluster.gpus}× {gpu}*{arm} on {nodes}"]
    if cluster.replicas and cluster.gpus_per_replica:
        dp_attention = (" + DP attention" if "data-parallel attention" in cluster.parallelism
                        else " + expert parallel" if "with expert parallel" in cluster.parallelism else "")
        # without NVLink: "TP 2 over PCIe" and why it is not replicas of one card, or that it is one replica per card
        pcie = pcie_tp_said(cluster.parallelism) or ""
        split = [f"TP {cluster.tensor_parallel}{pcie}{dp_attention}"] if cluster.tensor_parallel > 1 else []
        split += [PCIE_REPLICAS.strip(" ()")] if cluster.gpus_per_replica == 1 and PCIE_REPLICAS in cluster.parallelism else []
        if EXPERT_PARALLEL_ACROSS in cluster.parallelism and cluster.gpus_per_replica > cluster.gpus_per_node:
            # the layout across nodes is what the reader must build: experts over every GPU, attention per node
            across = -(-cluster.gpus_per_replica // cluster.gpus_per_node)
            split = [f"expert parallel x{cluster.gpus_per_replica} across {across} nodes, data-parallel attention"]
        split += [f"PP {cluster.pipeline_parallel}"] if cluster.pipeline_parallel > 1 else []
        bits.append(tidy_plurals(f"{cluster.replicas} replica(s) of {cluster.gpus_per_replica} GPU(s)")
                    + (f" ({' · '.join(split)})" if split else ""))
    else:
        # ZeRO shards over data-parallel replicas: with one (tensor x pipeline only) it has nothing to shard
        zero = (f", ZeRO-{cluster.zero_stage}" if cluster.zero_stage and cluster.data_parallel > 1
                and "ZeRO" not in cluster.parallelism and "HYBRID_SHARD" not in cluster.parallelism else "")
        # an optimizer other than AdamW is part of what fits: forwarded without it, the plan reads as plain AdamW
        optimizer = _OPTIMIZER_SAID.get(str(advice.effective.optimizer or "")) \
            if advice.effective.mode in ("full", "pretrain") else None
        fp8 = (advice.effective.precision == "fp8" and advice.effective.mode in ("full", "pretrain"))
        extras = [e for e in (optimizer, "FP8 matmuls (torchao float8 or Transformer Engine)" if fp8 else None) if e]
        bits.append(cluster.parallelism + zero + (f" with {' and '.join(extras)}" if extras else ""))
    if mem is not None:
        usable = f" of {fmt_gb(mem.usable_gb_per_gpu)} usable" if mem.usable_gb_per_gpu else ""
        bits.append(f"{fmt_gb(mem.per_gpu_gb)}{usable} per GPU")
    if serving_without_load(advice.workload) and not _is_job(advice):
        bits.append(_room(cluster))
    return " · ".join(b for b in bits if b)


def _capacity_headline(response: Response, names: Mapping[str, str]) -> str | None:
    """"How many users can 8 H100s serve Llama 3.1 70B to?": the users the plan holds at the speed floor lead the
    answer, where a question back ("how many users at once?") would ask the user their own question; asked as a
    rate, the requests per second those users complete lead it."""
    advice, capacity = response.advice, response.capacity
    if advice is None or capacity is None:
        return None
    gpu = gpu_name(capacity.gpu, names)
    model = subject(advice, names).removeprefix("serving ")
    gpus, users, ctx = capacity.gpus, capacity.users, capacity.context
    if users == 0:
        return (f"⚠️ {gpus}× {gpu} {'holds' if gpus == 1 else 'hold'} {model} for {capacity.sequences:,} sequences of "
                f"{ctx} tokens, but none at {capacity.floor}+ tokens/s once they share it")
    if capacity.budget_usd_per_month is not None and capacity.usd_per_month is not None:
        # the users a budget keeps: the budget's figure leads, with the plan that spends it
        replicas = int(advice.cluster.replicas or 1) if advice.cluster is not None else 1
        shape = f" ({replicas} replicas of {gpus // replicas})" if replicas > 1 and gpus // replicas > 1 else ""
        return (f"✅ About {users:,} users at once on {model} for ≤{fmt_usd(capacity.budget_usd_per_month)} a month: "
                f"{gpus}× {gpu}{shape} at {fmt_usd(capacity.usd_per_month)} a month, ~{capacity.floor} tokens/s each at "
                f"{ctx} tokens each")  # "~": sized as every plan is, to the assumed floor within its slack
    room = f" (memory for {capacity.sequences:,} at {ctx} tokens)" if capacity.sequences > users else f" at {ctx} tokens each"
    verb = "serves" if gpus == 1 else "serve"
    rate = capacity.requests_per_s
    if rate is not None:
        reply = int(rate.inputs.get("reply_tokens", 0))
        return (f"✅ {gpus}× {gpu} {verb} {model} at about {_rate_figure(rate.value)} requests/s ({reply:,}-token replies), "
                f"{users:,} users at once at ≥{capacity.floor} tokens/s each")
    winner = winner_option(advice)
    per_1m = winner.throughput.cost_per_1m_tokens_usd if winner is not None else None
    if winner is not None and per_1m is not None and unit_cost_asked(response.text):
        # "cost per million tokens to self-host …": the unit cost leads, with the GPUs full that it assumes
        return (f"✅ ${per_1m.value:,.2f} per 1M output tokens for {model} with {gpus}× {gpu} full: about {users:,} "
                f"users at once at ≥{capacity.floor} tokens/s each, {fmt_usd(winner.total_usd)} a month")
    return f"✅ {gpus}× {gpu} {verb} {model} to about {users:,} users at once at ≥{capacity.floor} tokens/s each{room}"


def _compared_headline(response: Response, names: Mapping[str, str]) -> str | None:
    """The comparison's headline, saying when it compared providers with an SLA while the plan below picks a
    marketplace host (the headline's $103 a run beside a Cost line of $65.18 on Vast.ai read as a contradiction)."""
    headline = _compared_core(response, names)
    if headline and response.compared is not None and any(p.sla_only for p in response.compared):
        headline += " with an SLA (below: the cheapest host, a marketplace)"
    return headline


def _compared_core(response: Response, names: Mapping[str, str]) -> str | None:
    """"Is A100 or H100 cheaper per token for Llama 3.1 8B?": both planned on the same load, the cheaper first, by what
    the question is about: per 1M output tokens with the GPUs full (a service with no load said), per month for a
    load said, per run for training. The rest of the answer is the cheaper one's plan."""
    if response.compared is None:
        return None
    won, lost = response.compared
    a, b = gpu_name(won.gpu, names), gpu_name(lost.gpu, names)
    model = subject(won.advice, names)
    if _one_provider(won, lost):  # two GPUs: compared where both are rented, the cheapest of each on the next line
        model = f"{model} at {won.shared.provider_name}"  # type: ignore[union-attr]
        won, lost = _at_shared(won), _at_shared(lost)
    if won.label:  # two weights compared ("AWQ int4 vs FP8"): named by their weights, the model without them
        a, b = _weights_name(won.label), _weights_name(lost.label)
        model = model.rsplit(" in ", 1)[0] if " in " in model else model

    def count(p: GpuPlan) -> str:
        if p.label:
            return f"{p.gpus}× {gpu_name(p.gpu, names)}"
        return f"{p.gpus} GPU{'s' if p.gpus != 1 else ''}"

    def speed(p: GpuPlan) -> str:
        return fmt_num(p.tokens_per_s_per_user)

    if not lost.fits:
        need = f" (needs {fmt_gb(lost.need_gb)} per GPU)" if lost.need_gb else ""
        side = (f"{fmt_usd(won.usd_per_run)} a run" if won.usd_per_run is not None
                else f"{fmt_usd(won.usd_per_month)} a month" if won.usd_per_month is not None else "")
        slow = _short_of(won.advice)
        side += (f" at {speed(won)} tokens/s per user, {slow}" if slow and won.tokens_per_s_per_user else "")
        return (f"⚖️ {a} for {model}: {lost.gpus}× {b} cannot hold it{need}; {won.gpus}× {a} "
                f"{'does' if won.gpus == 1 else 'do'}" + (f", {side}" if side else ""))
    unpriced = _unpriced_against(won, lost, a, b, model)
    if unpriced:
        return unpriced
    if won.usd_per_run is not None and lost.usd_per_run is not None:
        hours = (f", {fmt_hours(won.hours_per_run)} vs {fmt_hours(lost.hours_per_run)}"
                 if won.hours_per_run and lost.hours_per_run else "")
        return (f"⚖️ {a} is cheaper per run than {b} for {model}: {fmt_usd(won.usd_per_run)} vs "
                f"{fmt_usd(lost.usd_per_run)} ({count(won)} vs {count(lost)}{hours})")
    if won.capacity is not None and lost.capacity is not None and won.usd_per_1m_tokens and lost.usd_per_1m_tokens:
        return (f"⚖️ {a} is cheaper per token than {b} for {model}: ${won.usd_per_1m_tokens:,.2f} vs "
                f"${lost.usd_per_1m_tokens:,.2f} per 1M output tokens with the GPUs full ({count(won)} holding "
                f"{won.capacity.users:,} users vs {count(lost)} holding {lost.capacity.users:,}, ≥{won.capacity.floor} "
                "tokens/s each)")
    same = _same_cost(won, lost, a, b)
    if same:
        return f"⚖️ {a} and {b} cost the same for {model}: {same}"
    if won.rescaled_from and won.usd_per_month is not None and lost.usd_per_month is not None:
        return (f"⚖️ {a} is cheaper than {b} for {model} at {user_floor(won.advice.effective):g}+ tokens/s per user: "
                f"{fmt_usd(won.usd_per_month)} vs {fmt_usd(lost.usd_per_month)} a month ({count(won)} vs {count(lost)}; "
                f"{won.rescaled_from} of either give each user less)")
    if won.usd_per_month is not None and lost.usd_per_month is not None:
        slow = _short_of(lost.advice)
        if slow and not _short_of(won.advice) and won.usd_per_month > lost.usd_per_month:
            # the cheaper one misses the speed: the answer is the one that keeps it, and what the cheaper one gives
            return (f"⚖️ {a} for {model}: {won.gpus} of them keep {speed(won)} tokens/s per user for "
                    f"{fmt_usd(won.usd_per_month)} a month; {lost.gpus}× {b} cost {fmt_usd(lost.usd_per_month)} "
                    f"but give {speed(lost)}, {slow}")
        speeds = ""
        if (won.tokens_per_s_per_user and lost.tokens_per_s_per_user
                and abs(won.tokens_per_s_per_user / lost.tokens_per_s_per_user - 1) >= 0.1):
            speeds = f", {speed(won)} vs {speed(lost)} tokens/s per user"
        return (f"⚖️ {a} is cheaper than {b} for {model}: {fmt_usd(won.usd_per_month)} vs {fmt_usd(lost.usd_per_month)} a "
                f"month on the same load ({count(won)} vs {count(lost)}{speeds})")
    return None


def _unpriced_against(won: GpuPlan, lost: GpuPlan, a: str, b: str, model: str) -> str | None:
    """Two GPUs, one (or both) rented by no provider in the catalog and not said to be theirs: its plan is costed at
    power only, which is no price to set against a rental ("Gaudi 3 is cheaper than H100: $369 vs $5,825"). Rented
    with rented: the rent per GPU-hour under which it costs less than the rented one on the same load (a bill is
    linear in its rate). Both unrented: owned with owned, power against power, said as such. None when neither."""
    mine, theirs = unpriced_said(won.advice), unpriced_said(lost.advice)
    if not (mine or theirs):
        return None

    def bill(p: GpuPlan) -> float | None:
        return p.usd_per_run if p.usd_per_run is not None else p.usd_per_month

    per = "a run" if won.usd_per_run is not None else "a month"
    if mine and theirs:
        first, second = bill(won), bill(lost)
        if first is None or second is None:
            return None
        return (f"⚖️ {a} vs {b} for {model}, both as your own GPUs (no provider in the catalog rents either): power "
                f"alone {fmt_usd(first)} vs {fmt_usd(second)} {per} ({won.gpus} vs {lost.gpus} GPUs), purchase not "
                "counted; give a price per GPU-hour for each to compare rents")
    free, rented = (won, lost) if mine else (lost, won)
    name, other = (a, b) if mine else (b, a)
    power, rent = bill(free), bill(rented)
    rate = re.search(r"\$([\d.,]+)" + re.escape(POWER_RATE_SAID), mine or theirs or "")
    if power is None or rent is None or not power or rate is None:
        return None
    even = float(rate.group(1).replace(",", "")) * rent / power
    speeds = ""
    if free.tokens_per_s_per_user and rented.tokens_per_s_per_user:
        speeds = f", {fmt_num(free.tokens_per_s_per_user)} vs {fmt_num(rented.tokens_per_s_per_user)} tokens/s per user"
    return (f"⚖️ {name} vs {other} for {model}: no provider in the catalog rents the {name}, so no price to compare; "
            f"rented at under ${even:,.2f} per GPU-hour it costs less than {other}'s {fmt_usd(rent)} {per} on the same "
            f"load ({free.gpus} vs {rented.gpus} GPUs{speeds}); give its price, e.g. “at $3/GPU-hour”")


def _one_provider(won: GpuPlan, lost: GpuPlan) -> bool:
    """Two GPUs that both fit, with a provider renting both (`bot.compared`)."""
    return bool(won.fits and lost.fits and not won.label and won.shared is not None and lost.shared is not None)


def _at_shared(plan: GpuPlan) -> GpuPlan:
    """A side of the comparison with the figures of its plan at the provider renting both."""
    at = plan.shared
    if at is None:
        return plan
    return replace(plan, gpus=at.gpus, usd_per_month=at.usd_per_month, usd_per_1m_tokens=at.usd_per_1m_tokens,
                   usd_per_run=at.usd_per_run, hours_per_run=at.hours_per_run,
                   tokens_per_s_per_user=at.tokens_per_s_per_user, option=at.option)


def _compared_line(response: Response, names: Mapping[str, str]) -> str | None:
    """Under a two-GPU headline: each GPU's cheapest plan anywhere (marketplace hosts aside), when that is not the
    provider the headline compared them at, and what their shapes mean when they differ ("H200 SXM 141GB's 2
    replicas keep serving (50% of the users) when a GPU fails; H100 SXM5 80GB's single replica has no failover")."""
    from bot.compared import redundancy_words, shape_words

    if response.compared is None:
        return None
    won, lost = response.compared
    if not (won.fits and lost.fits) or won.label or won.own is None or lost.own is None:
        return None
    a, b = gpu_name(won.gpu, names), gpu_name(lost.gpu, names)
    at = won.shared.provider if won.shared is not None else None
    moved = at is None or won.own.provider != at or (lost.own.provider != at)

    shaped = (won.own.replicas, won.own.gpus_per_replica) != (lost.own.replicas, lost.own.gpus_per_replica)

    def figure(plan: GpuPlan) -> str:
        own = plan.own
        assert own is not None
        if own.usd_per_run is not None:
            cost = f"{fmt_usd(own.usd_per_run)} a run" + (f" in {fmt_hours(own.hours_per_run)}" if own.hours_per_run else "")
        elif plan.capacity is not None and own.usd_per_1m_tokens is not None:
            cost = f"${own.usd_per_1m_tokens:,.2f} per 1M output tokens"
        else:
            cost = f"{fmt_usd(own.usd_per_month)} a month"
        shape = shape_words(own.replicas, own.gpus_per_replica) if shaped else ""
        return f"{gpu_name(plan.gpu, names)} at {own.provider_name}, {cost}" + (f", {shape}" if shape else "")

    failover = redundancy_words(a, won.own, b, lost.own) or (
        redundancy_words(a, won.shared, b, lost.shared) if won.shared is not None and lost.shared is not None else "")
    if not moved and not failover:
        return None
    aside = "" if response.workload is not None and response.workload.provider else " (marketplace hosts aside)"
    lead = (f"Cheapest of each anywhere{aside}: " if at is not None
            else f"No provider rents both{aside}; each at its cheapest: ")
    said = lead + f"{figure(won)}; {figure(lost)}" if moved else ""
    if failover:
        said = f"{said}. {failover[0].upper()}{failover[1:]}" if said else f"Not the same shape: {failover}"
    return said


_WEIGHTS_NAMES = {"int4": "AWQ/GPTQ 4-bit", "int8": "INT8 (W8A8)", "fp8": "FP8", "bf16": "BF16",
                  "fp16": "FP16", "nf4": "NF4"}


def _weights_name(precision: str) -> str:
    return _WEIGHTS_NAMES.get(precision, precision)


def _load_words(w: Workload) -> str:
    """"for 100 users", "at 5 requests/s", "" (one stream): the load a budget ladder was planned on."""
    if w.requests_per_s:
        return f" at {fmt_num(w.requests_per_s)} requests/s"
    if w.concurrency and w.concurrency > 1:
        return f" for {int(w.concurrency):,} users at once"
    return ""


_METHOD_WORDS = {"qlora": "QLoRA", "lora": "LoRA", "full": "a full fine-tune"}
_METHOD_TITLES = {"qlora": "QLoRA", "lora": "LoRA", "full": "Full fine-tune"}


def _data_words(w: Workload) -> str:
    """"100M tokens", "1B tokens × 3 epochs": the data a fine-tune's ladder was planned on."""
    tokens = f"{fmt_count(float(w.dataset_tokens))} tokens" if w.dataset_tokens else "the data said"
    return tokens + (f" × {w.epochs:g} epochs" if w.epochs and w.epochs != 1 else "")


def _training_ladder_headline(rungs: tuple[Rung, ...], names: Mapping[str, str]) -> str:
    """Per method (one said, or QLoRA and full side by side): the largest model whose run fits the budget, or what
    the smallest model's run costs when none does."""
    w = rungs[0].advice.effective
    bits: list[str] = []
    for method in dict.fromkeys(r.mode for r in rungs):
        mine = tuple(r for r in rungs if r.mode == method)
        how = _METHOD_WORDS.get(method, method)
        chosen = largest_within(mine)
        if chosen is None or chosen.option is None:
            smallest = mine[0]
            cost = (f": its cheapest run is {fmt_usd(smallest.usd_per_run)} on {smallest.option.cluster.gpus}× "
                    f"{gpu_name(smallest.option.cluster.gpu, names)}" if smallest.option is not None else "")
            bits.append(f"with {how}, not even {gpu_name(smallest.model, names)}{cost}")
            continue
        c = chosen.option.cluster
        top = ", the largest shortlisted" if chosen is mine[-1] else ""
        month = f" ({fmt_usd(chosen.usd_per_month)} a month)" if w.budget_usd_per_run is None else ""  # a monthly budget
        bits.append(f"with {how}, up to {gpu_name(chosen.model, names)}{top}: {fmt_usd(chosen.usd_per_run)} a run{month} "
                    f"on {c.gpus}× {gpu_name(c.gpu, names)} ({fmt_hours(chosen.hours_per_run, compact=True)})")
    return f"💰 {budget_words(w)} on {_data_words(w)}: " + "; ".join(bits)


def _ladder_headline(response: Response, names: Mapping[str, str]) -> str:
    """The largest model of the ladder whose plan fits the budget at the speed floor, or that none does."""
    rungs = response.ladder or ()
    if rungs and rungs[0].mode in TRAINING_MODES:
        return _training_ladder_headline(rungs, names)
    w = rungs[0].advice.effective if rungs else Workload()
    budget = fmt_usd(w.budget_usd_per_month)
    load = _load_words(w)
    floor = f"≥{user_floor(w):g} tokens/s each"
    chosen = next((r for r in reversed(rungs) if r.within), None)
    if chosen is None or chosen.option is None:
        smallest = rungs[0] if rungs else None
        if smallest is None or smallest.option is None:
            return f"💰 Nothing the catalog prices serves this load within {budget} a month"
        return (f"💰 {budget} a month does not serve even {gpu_name(smallest.model, names)}{load} at {floor}: its "
                f"cheapest plan is {fmt_usd(smallest.usd_per_month)} a month on {smallest.option.cluster.gpus}× "
                f"{gpu_name(smallest.option.cluster.gpu, names)}")
    c = chosen.option.cluster
    return (f"💰 Within {budget} a month{load} at {floor}: up to {gpu_name(chosen.model, names)}, on {c.gpus}× "
            f"{gpu_name(c.gpu, names)} at {fmt_usd(chosen.usd_per_month)} a month")


def _training_ladder_line(rungs: tuple[Rung, ...], names: Mapping[str, str]) -> str:
    """Every rung's run, method by method, smallest model first; the plan shown below is the first method's."""
    parts = []
    for method in dict.fromkeys(r.mode for r in rungs):
        bits = [f"{gpu_name(r.model, names)}: no priced plan fits" if r.usd_per_run is None else
                f"{gpu_name(r.model, names)} {fmt_usd(r.usd_per_run)}" + ("" if r.within else " (over)")
                for r in rungs if r.mode == method]
        parts.append(f"{_METHOD_TITLES.get(method, method)}: " + " · ".join(bits))
    methods = list(dict.fromkeys(r.mode for r in rungs))
    shown = (f". The plan below is {_METHOD_WORDS.get(methods[0], methods[0])}'s; say “full fine-tune” for that one's"
             if len(methods) > 1 else "")
    return ("By model, each one's cheapest run: " + ". ".join(parts) + shown
            + ". Size is not quality: check them on your own evals, and reply with a model for its full plan")


def _ladder_line(response: Response, names: Mapping[str, str]) -> str:
    """Every rung's cheapest plan, smallest model first, so the reader sees the steps and what one more costs."""
    if response.ladder and response.ladder[0].mode in TRAINING_MODES:
        return _training_ladder_line(response.ladder, names)
    bits = []
    for r in response.ladder or ():
        name = gpu_name(r.model, names)
        if r.usd_per_month is None:
            bits.append(f"{name}: no priced plan fits")
            continue
        slow = (f" at {fmt_num(r.tokens_per_s_per_user)} tokens/s, under the floor"
                if not r.within and r.tokens_per_s_per_user is not None
                and r.tokens_per_s_per_user < floor_kept_at(r.advice.effective) else "")
        over = " (over)" if not r.within and not slow else ""
        bits.append(f"{name} {fmt_usd(r.usd_per_month)}{over}{slow}")
    return ("By model, each one's cheapest plan at this load: " + " · ".join(bits)
            + ". Size is not quality: check them on your own evals, and reply with a model for its full plan")


def _same_cost(won: GpuPlan, lost: GpuPlan, first: str, second: str = "") -> str:
    """Two plans whose cost is the same to the cent ("fp8 or bf16 for Llama 3.1 8B on H100, 100 users": $2,154 each):
    the cost once and what tells them apart, speed or time; "" when they differ ("X is cheaper" would be false).
    Won by the published weights over a faster quant of them (`GpuPlan.published`): why, in the same line."""
    pairs = ((won.usd_per_run, lost.usd_per_run, " a run"), (won.usd_per_month, lost.usd_per_month, " a month"))
    for mine, theirs, per in pairs:
        if mine is None or theirs is None:
            continue
        if abs(mine - theirs) > 0.005 * max(mine, theirs):
            return ""
        faster = ""
        if won.published and won.tokens_per_s_per_user and lost.tokens_per_s_per_user:
            floor = user_floor(won.advice.effective)
            under = (f" (just under the {floor:g} tokens/s floor)" if won.tokens_per_s_per_user < floor_kept_at(won.advice.effective) else "")
            faster = (f"; {first} is the model's published weights, at {fmt_num(won.tokens_per_s_per_user)} tokens/s "
                      f"per user{under}; {second} trades quality for {fmt_num(lost.tokens_per_s_per_user)}")
        elif won.tokens_per_s_per_user and lost.tokens_per_s_per_user and \
                abs(won.tokens_per_s_per_user / lost.tokens_per_s_per_user - 1) >= 0.05:
            faster = (f"; {first} gives "
                      f"{fmt_num(won.tokens_per_s_per_user)} vs {fmt_num(lost.tokens_per_s_per_user)} tokens/s per user")
        elif won.hours_per_run and lost.hours_per_run and abs(won.hours_per_run / lost.hours_per_run - 1) >= 0.05:
            faster = f"; {fmt_hours(won.hours_per_run)} vs {fmt_hours(lost.hours_per_run)} a run"
        gpus = (f"{won.gpus} GPU{'s' if won.gpus != 1 else ''} each" if won.gpus == lost.gpus
                else f"{won.gpus} vs {lost.gpus} GPUs")
        return f"{fmt_usd(mine)}{per} each ({gpus}){faster}"
    return ""


def _context_headline(response: Response, names: Mapping[str, str]) -> str | None:
    """"What's the max context for Llama 3.1 70B on 2x H100 in FP8?": the longest sequence the plan's KV cache room
    holds after the weights, against the model's own window, and how many such sequences fit at once."""
    room, advice = response.context_room, response.advice
    if room is None or advice is None or advice.cluster is None:
        return None
    cluster = advice.cluster
    where = f"{cluster.gpus}× {gpu_name(cluster.gpu, names)}"
    model = subject(advice, names).removeprefix("serving ")
    if room.window and room.tokens >= room.window:
        bound = "its full window"
    elif room.window:
        bound = f"memory-bound: its window is {room.window:,}"
    else:
        bound = "memory-bound"
    per = " per replica" if (cluster.replicas or 1) > 1 else ""
    return (f"📏 {model} on {where}: up to {room.tokens:,} tokens of context ({bound}); "
            f"{room.at_longest:,} sequence{'s' if room.at_longest != 1 else ''} of that length at once{per}, "
            f"{room.room_tokens:,} tokens of KV cache in all")


def _rate_figure(value: float) -> str:
    """Two significant figures: a capacity is an estimate, not a count (9.1, 27, 140)."""
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}" if value >= 100 else f"{round(value):,}"


def _room(cluster: ClusterPlan) -> str:
    """Sized for one stream until the load is said, so how many users the same GPUs serve is the "does it fit"
    answer: the users kept at the speed floor, with the KV cache room beside it when memory is not what binds
    (405B FP8 on 4 MI300X has memory for 261 sequences but keeps 20 tokens/s for 6)."""
    room = room_figures(cluster)
    if room is None:
        return ""
    held, ctx, floor, users = room
    per = " per replica" if (cluster.replicas or 1) > 1 else ""
    if floor is None or users is None:
        return f"room for {held} users at {ctx} tokens each{per}"
    if users >= int(held.replace(",", "")):
        return f"room for {held} users at {ctx} tokens each{per}, ≥{floor} tokens/s"
    if users == 0:
        return f"memory for {held} users at {ctx} tokens each{per}, but under {floor} tokens/s each once they share it"
    return tidy_plurals(f"room for {users:,} user(s) at ≥{floor} tokens/s each{per} (memory for {held} at {ctx} tokens)")


BACK_TO_BACK_SAID_AFTER_H = 30 * 24  # several guessed runs that would take longer than a month one after another
QUARTER_H = 3 * HOURS_PER_MONTH  # the span "how many side by side" is said for


def _span(hours: float) -> str:
    """A long calendar span as a planner says it: months under two years, then years."""
    months = hours / HOURS_PER_MONTH
    return f"{months:,.1f} months" if months < 24 else f"{months / 12:,.1f} years"


ONE_NODE_SAID_AFTER_H = 14 * 24  # a run on a guessed token count longer than two weeks says why it is not scaled out


def _speed_line(advice: Advice, guessing: bool = False) -> str:
    tp = advice.throughput
    if tp is None:
        return ""
    w = advice.effective
    if _is_job(advice) and w.batch_items and w.requests_per_s:
        # nobody reads a prompt's tokens as they come: the rate, what it generates, and how long the whole job takes
        winner = winner_option(advice)
        job = job_figures(winner, w) if winner is not None else None
        out = w.output_tokens or DEFAULT_OUTPUT_TOKENS
        if job is None:
            # nothing priced: the rate the plan shown sustains (engine.unpriced_job), never the deadline's as its speed
            got = next((t.got for t in tp.targets if t.name == "requests_per_s"), None)
            if got is None:
                return f"*{fmt_num(w.requests_per_s)} prompts/s needed* · {fmt_num(w.requests_per_s * out)} output tokens/s"
            rate, hours = job_rate_and_hours(w, got)
            allowed = f" of the {fmt_hours(float(w.deadline_hours))} allowed" if w.deadline_hours else ""
            return (f"*{fmt_num(rate)} prompts/s* ({w.batch_items:,.0f} in {fmt_hours(hours)}{allowed}, start-up "
                    f"included) · {fmt_num(rate * out)} output tokens/s")
        allowed = f" of the {fmt_hours(float(w.deadline_hours))} allowed" if w.deadline_hours else ""
        return (f"*{fmt_num(job.prompts_per_s)} prompts/s* ({w.batch_items:,.0f} in {fmt_hours(job.hours)}{allowed}, "
                f"start-up included) · {fmt_num(job.prompts_per_s * out)} output tokens/s")
    if tp.decode_tokens_per_s is not None or tp.decode_tokens_per_s_per_sequence is not None:
        bits = []
        if tp.decode_tokens_per_s_per_sequence is not None:
            # a reasoning model's reply carries its thinking: how long a user waits for one, on the speed it comes at
            wait = re.search(r"tokens: ([\d,]+-[\d,]+ s) at ", next((n for n in advice.notes if n.startswith(REASONING_NOTE)), ""))
            reply = f" (a reply with its reasoning, {REASONING_REPLY_TOKENS[0] // 1000}-{REASONING_REPLY_TOKENS[1] // 1000}k " \
                    f"tokens: {wait.group(1)})" if wait else ""
            bits.append(f"*{fmt_num(tp.decode_tokens_per_s_per_sequence.value)} tokens/s per user*{reply}")
        if tp.decode_tokens_per_s is not None:
            bits.append(f"{fmt_num(tp.decode_tokens_per_s.value)} tokens/s in total")
        first = tp.ttft_s or tp.prefill_seconds
        queued = first is not None and "mean_ttft_s" in first.inputs and tp.prefill_seconds is not None
        at = str(first.inputs.get("percentile", "p95")) if first is not None else "p95"
        if (queued and first is not None and tp.prefill_seconds is not None and at != "mean"
                and first.value <= tp.prefill_seconds.value * 1.005):
            # prefills take so little of the replica that at the percentile asked nobody is ahead
            bits.append(f"first token in {first.value:,.2g} s (its prefill; at this load {at[1:]}% of requests find no "
                        "queue)")
        elif queued and first is not None and tp.prefill_seconds is not None:
            # the load is known: the first token at the percentile asked (p95 unless said), queued behind other
            # requests' prefills (engine.queueing), the mean beside it (the p95 beside a mean asked)
            beside = (f"{float(first.inputs['p95_ttft_s']):,.2g} s at p95" if at == "mean" and "p95_ttft_s" in first.inputs
                      else f"{float(first.inputs['mean_ttft_s']):,.2g} s mean")
            bits.append(f"first token in {first.value:,.2g} s {percentile_words(at)} "
                        f"({beside}; prefill alone {tp.prefill_seconds.value:,.2g} s)")
        elif first is not None:
            # the prefill of one prompt on the replica; under load a request can also wait behind others' prefills
            busy = (advice.effective.concurrency or 1) > 1 or bool(planned_rate(advice.effective))
            whole = advice.effective.seq_len if not busy and not advice.effective.input_tokens else None
            # one stream with no prompt length said prefills its whole window: 17 s reads as slow serving unless it
            # says it is a full 131k-token prompt
            said = (" (its prefill, before any queueing)" if busy
                    else f" (a full {whole:,}-token prompt)" if whole and first.value >= 1 else "")
            bits.append(f"first token in {first.value:,.2g} s{said}")
        return " · ".join(bits)
    bits = []
    winner = winner_option(advice)
    if winner is not None and winner.hours_per_run is not None:  # the billed wall clock: start-up included
        guess = f" at the guessed ~{fmt_count(_tokens_guessed(advice) or 0.0)} tokens" if guessing else ""
        # the engine does not scale a run out on a guessed token count: a weeks-long run says why it stays on one node
        held = ("; kept on one node until the token count is known"
                if guessing and winner.cluster.nodes == 1 and winner.hours_per_run > ONE_NODE_SAID_AFTER_H else "")
        bits.append(f"*{fmt_hours(winner.hours_per_run)} per run*{guess} (start-up included{held})")
    elif tp.wall_clock_hours is not None:
        bits.append(f"*{fmt_hours(tp.wall_clock_hours.value)} per run*")
    if tp.gpu_hours is not None:  # the wall clock above adds start-up
        # both ends in one style, the figure's own: "765-1,084", not "765-1.1k"; "24.5k-34.8k" past ten thousand
        scaled = tp.gpu_hours.value >= 10_000
        spread = _published_range(advice, tp.gpu_hours.value, lambda x: fmt_num(x) if scaled else f"{x:,.0f}", cite=True)
        # online RL: the GPU-hours hold the rollouts' generation too (engine.rl adds them to the run's)
        what = "rollouts and training" if getattr(advice.effective, "objective", None) in ("grpo", "ppo") else \
            "training only"
        bits.append(f"{fmt_num(tp.gpu_hours.value)} GPU-hours ({what}{'; ' + spread if spread else ''})")
    if tp.training_tokens_per_s is not None:
        bits.append(f"{fmt_num(tp.training_tokens_per_s.value)} tokens/s")
    return " · ".join(bits)


def _published_range(advice: Advice, value: float, fmt: Callable[[float], str] = fmt_usd_short, cite: bool = False) -> str:
    """A pre-training figure (GPU-hours or cost) with the spread of published whole runs around the model
    (engine.throughput.whole_run_range: wider for small models, whose published whole runs spread most), "" otherwise:
    a budget good to about a fifth is not a figure to the dollar. `cite`: name the run that sets the top end, unless
    the published runs have their own line (`_published_run`), which names them with their hours."""
    if advice.effective.mode != "pretrain" or value <= 0:
        return ""
    low_f, high_f, run = whole_run_range(float(advice.effective.params_b or 0.0),
                                         advice.cluster.gpus if advice.cluster is not None else None)
    low, high = value * low_f, value * high_f
    cite = cite and not _published_run(advice)
    return f"{fmt(low)}-{fmt(high)} going by published runs" + (f", where {run}" if run and cite else "")


def _published_run(advice: Advice) -> str:
    """The GPU-hours the model's (or its size class's) makers published for its pre-training, beside ours, with why
    they differ (engine.published_runs); "" where none is published."""
    if advice.effective.mode != "pretrain":
        return ""  # the note is made for pre-training alone (its module is imported only then)
    from engine.published_runs import PUBLISHED_RUN_NOTE

    note = next((n for n in advice.notes if n.startswith(PUBLISHED_RUN_NOTE)), "")
    return note[len(PUBLISHED_RUN_NOTE):][:1].upper() + note[len(PUBLISHED_RUN_NOTE) + 1:] if note else ""


def _hours_billed(w: Workload) -> str:
    """How many hours the monthly bill of a service pays for: always on, or its schedule's hours (engine.tco)."""
    if not scheduled_service(w):
        return "always on"
    if w.pricing == "reserved":
        return "reserved: paid around the clock"
    return f"{float(w.service_hours_per_week or 0):g} h a week, stopped outside"


def _cost_line(advice: Advice, asking: bool = False, guessing: bool = False) -> str:
    unpriced = unpriced_said(advice)
    if unpriced:  # a GPU nobody rents, not said to be theirs: its price is the question, power alone is no price
        return f"? {unpriced}"
    winner = winner_option(advice)
    if winner is None:
        if advice.cluster is not None and advice.cluster.fits:
            if owns_gpus(advice.workload):
                # "we have 16 A100s on prem": a cloud rental quote would price hardware they own
                # their power is what the Assumes line says they cost: priced once there is a run to power
                return ("at your GPUs' power cost once the token count is known (say e.g. “at $1.50/GPU-hour” to count "
                        "their full cost)")
            hourly = cheapest_fitting(advice)
            if asking:
                return "priced once the open question is answered" + (f"; meanwhile the cheapest per token trained: {hourly}"
                                                                      if hourly else "")
            if any(p.code == USERS_PAST_FIXED for p in advice.problems):
                return "not priced: no plan on the GPUs you fixed serves all the users at once (see above for what does)"
            return hourly or "no offer in the catalog is priced for this configuration"
        return ""
    best = best_tco(winner)
    reserved = reserved_cost_line(advice.effective, winner, best)
    if reserved:
        return reserved
    bits: list[str] = []
    job = job_figures(winner, advice.effective) if _is_job(advice) else None
    if job is not None:
        bits.append(f"*{fmt_usd(job.usd)} for the job* ({fmt_hours(job.hours)} at {fmt_usd(job.usd_per_hour)}/hour, "
                    "billed by the hour where the provider does)")
        bits.append(f"{fmt_usd(job.usd_per_1m_output)} per 1M output tokens ({fmt_usd(job.usd_per_1m_processed)} per 1M "
                    "in and out)")
    elif _is_serving(advice):
        bits.append(f"*{fmt_usd(winner.total_usd)} a month* ({_hours_billed(advice.effective)})")
        fig = winner.throughput.cost_per_1m_tokens_usd
        if fig is not None:
            one_stream = " at 1 stream" if serving_without_load(advice.workload) else ""  # 20-60x a batched figure
            bits.append(f"{fmt_usd(fig.value)} per 1M output tokens{one_stream}")
    elif guessing and best is not None and best.usd_per_1b_tokens and (best.job_usd or best.per_run_usd):
        # the token count is a guess the question asks about: the per-unit price first, the guess's totals after
        # one run is ranked on its compute and data transfer (`one_run_usd`): the figure its comparison row shows
        per_run = one_run_usd(winner, advice.effective) or float(best.job_usd or best.per_run_usd or 0.0)
        bits.append(f"*~{fmt_usd(best.usd_per_1b_tokens)} per 1B tokens trained*")
        at_guess = f"at the guessed ~{fmt_count(_tokens_guessed(advice) or 0.0)} tokens: {fmt_usd(per_run)} per run"
        asked = advice.workload.runs_per_month
        if asked and asked > 1:  # what the user asked for, at the guess: said, not hidden behind "1 run"
            at_guess += f", {asked:g} runs ≈ {fmt_usd_short(per_run * asked)}"
            back_to_back = (winner.hours_per_run or 0.0) * asked
            if back_to_back > BACK_TO_BACK_SAID_AFTER_H:  # the money is not the only thing 20 such runs cost
                at_guess += f" ({_span(back_to_back)} back to back"
                # a run is not split across nodes: each node does the whole runs that fit in the quarter one after
                # another (one run of 74 days each: 20 runs take 20 nodes, not 1,474 days / 91)
                per_node = math.floor(QUARTER_H * (1 + 1e-9) / max(winner.hours_per_run or 0.0, 1e-9))
                side = math.ceil(asked / max(per_node, 1))
                if side > 1 and (winner.hours_per_run or 0.0) <= QUARTER_H:  # each run fits a quarter: run them side by side
                    # as long as each node's share of the runs takes (one 74-day run each is 74 days, not "3 months")
                    rounds = math.ceil(asked / side)
                    at_guess += tidy_plurals(f", or {_span(rounds * (winner.hours_per_run or 0.0))} on {side} such "
                                             f"{'node' if winner.cluster.nodes == 1 else 'cluster'}(s) side by side, "
                                             f"{winner.cluster.gpus * side:,} GPUs")
                at_guess += ")"
        bits.append(at_guess)
    else:
        # the runs asked are planned as asked, a guessed token count included (each run costs what the guess says)
        runs = advice.effective.runs_per_month
        month = f" for {runs:g} run(s)" if runs else ""
        one_run = runs == 1 and not (best is not None and best.job_usd)
        run = one_run_usd(winner, advice.effective)
        if one_run and best is not None and best.per_run_usd and run is not None:
            # one run: the run's cost as ranked and as the table shows it (compute and data transfer), with what a
            # month of storage adds said as such, rather than as a second total the reader has to reconcile
            moved, extra = run - best.per_run_usd, winner.total_usd - run
            said = [_published_range(advice, best.per_run_usd),
                    f"{fmt_usd(moved)} of it data transfer" if moved >= 0.5 else "",
                    f"storage adds {fmt_usd(extra)} a month if the data and checkpoints stay there" if extra >= 0.5 else ""]
            bits.append(f"*{fmt_usd(run)} per run*" + (f" ({'; '.join(p for p in said if p)})" if any(said) else ""))
        elif best is not None and best.job_usd:
            # a run longer than a month: what the decision is about is the whole job, the monthly bill after it;
            # several runs are that many jobs
            monthly = f"{fmt_usd(winner.total_usd)} a month while it runs, storage and data transfer included"
            spread = _published_range(advice, best.job_usd * (runs if runs and runs > 1 else 1))
            monthly = f"{spread}; {monthly}" if spread else monthly
            if runs and runs > 1:
                bits.append(f"*{fmt_usd(best.job_usd * runs)} for {runs:g} runs* ({fmt_usd(best.job_usd)} each; a run "
                            f"lasts longer than a month; {monthly})")
            else:
                bits.append(f"*{fmt_usd(best.job_usd)} for the whole job* (a run lasts longer than a month; {monthly})")
        else:
            if best is not None and best.per_run_usd:
                bits.append(f"*{fmt_usd(best.per_run_usd)} per run*")
            beside = ""
            busy_h = (runs or 0) * (winner.hours_per_run or 0.0)
            if runs and runs > 1 and busy_h > HOURS_PER_MONTH * 1.0001:
                # 40 runs of 28.9 h are 1,156 h: more than a month of the one node the plan shows
                nodes = math.ceil(busy_h / HOURS_PER_MONTH)
                beside = (f" ({busy_h:,.0f} h of runs: {nodes} such {'node' if winner.cluster.nodes == 1 else 'cluster'}s "
                          "side by side all month)")
            bits.append(f"{fmt_usd(winner.total_usd)} a month{month}{beside}, storage and data transfer included")
        if best is not None and best.usd_per_1b_tokens and "dataset_tokens" in {a.field for a in advice.assumptions}:
            # the runs are the user's figure and are multiplied; what is a guess is each run's tokens (from a size)
            guess = _tokens_guessed(advice) if (runs or 1) > 1 and advice.effective.dataset_gb else None
            bits.append(f"~{fmt_usd(best.usd_per_1b_tokens)} per 1B tokens trained" + (
                f" (each run at the ~{fmt_count(guess)} tokens guessed from {advice.effective.dataset_gb:g} GB; give the "
                "tokens per run if runs train on less)" if guess else ""))
    return " · ".join(bits) + f" on {winner.name}{cost_line_region(advice, winner)}"


# Workload field of a TargetCheck -> (what it is, unit, higher is better)
TARGET_LABELS: dict[str, tuple[str, str, bool]] = {
    "target_tokens_per_s_per_user": ("per-user speed", "tokens/s", True),
    "target_tokens_per_s": ("total throughput", "tokens/s", True),
    "requests_per_s": ("request rate", "requests/s", True),
    "target_ttft_s": ("time to first token", "s", False),
    "deadline_hours": ("training time per run", "h", False),  # start-up included, as the speed line counts it
    "budget_usd_per_month": ("monthly budget", "$", False),
    "budget_usd_per_run": ("budget per run", "$", False),
}


TARGET_MARGIN = 0.05  # a speed or latency target met with less than 5% to spare says so


def target_line(check: TargetCheck, sized_margin: float | None = None, total_at_capacity: bool = True,
                percentile_said: bool = True) -> str:
    """"per-user speed ≥ 20 tokens/s: target met (31)" or "... missed by 4.2 tokens/s (got 15.8)".
    `sized_margin`: the share over a per-user speed target the engine sized for, said when the plan has it.
    `total_at_capacity`: a total throughput checked as the fleet's capacity (sized as a rate), said like a rate's;
    off where it is the output of users held at once (engine.throughput.total_in_rate).
    `percentile_said`: a time to first token's percentile was the user's ("≤ 0.3 s at p50"); else it is the p95
    assumed, and said so ("≤ 0.5 s (p95 assumed)")."""
    label, unit, higher = TARGET_LABELS.get(check.name, (check.name.replace("_", " "), "", True))
    if unit == "$":  # money reads as money: "monthly budget ≤ $5,000: missed by $1,979 (got $6,979)"
        verdict = "within it" if check.met else f"over by {fmt_usd(check.got - check.wanted)}"
        per = "a run" if check.name == "budget_usd_per_run" else "a month"
        return f"{label} ≤ {fmt_usd(check.wanted)}: {verdict} ({fmt_usd(check.got)} {per})"
    whole_hours = unit == "h" and max(check.wanted, check.got) >= 100  # "missed by 959 h (got 1,295 h)": one style

    def fmt(value: float) -> str:
        if unit == "h" and value >= 1 and value == int(value):  # a deadline as said: "1 h", "24 h"
            return f"{value:,.0f} h"
        if unit == "h" and 0 < value < 48 and not whole_hours:  # as the speed line says it: "47 min", "5.5 h"
            return fmt_hours(value)
        if unit == "s" and 0 < value < 1:  # a first token in 0.048 s is not "0.0 s": two significant figures
            return f"{value:.2g} s"
        return f"{value:,.0f} {unit}" if whole_hours else fmt_num(value, unit)

    wanted = f"{'≥' if higher else '≤'} {fmt(check.wanted)}"
    if check.percentile is not None:  # a time to first token: at which percentile it is graded
        wanted += f" {percentile_words(check.percentile)}" if percentile_said else f" ({check.percentile} assumed)"
    if check.met:
        margin = (check.got / check.wanted - 1 if higher else 1 - check.got / check.wanted) if check.wanted else 1.0
        # a target met by a hair is met on paper: real prompts, a slower kernel or a burst take the margin
        thin = f", {margin:.1%} to spare: plan headroom" if 0 <= margin < TARGET_MARGIN and check.name != "concurrency" else ""
        if (not thin and sized_margin and check.name == "target_tokens_per_s_per_user"
                and margin >= sized_margin * 0.999):
            thin = f"; sized with {sized_margin:.0%} to spare"  # why the plan has more GPUs than the target alone needs
        if (check.name == "requests_per_s" or (check.name == "target_tokens_per_s" and total_at_capacity)) and check.got:
            # the figure is what the fleet sustains; the fleet is sized to run below it (engine RATE_UTILISATION)
            # to the request (1,261, not 1.3k): the reader checks the load against it
            capacity = f"{check.got:,.0f} {unit}" if check.got >= 100 else fmt(check.got)
            return f"{label} {wanted}: target met (capacity {capacity}, run at {check.wanted / check.got:.0%})"
        return f"{label} {wanted}: target met ({fmt(check.got)}{thin})"
    return f"{label} {wanted}: missed by {fmt(abs(check.wanted - check.got))} (got {fmt(check.got)})"


def _prompt_open(response: Response) -> bool:
    """The prompt length is an open question the answer assumed (long-context users, a request rate with no lengths):
    a time to first token is the prefill of that guess, so grading it against a target reports the guess."""
    workload = response.advice.workload if response.advice is not None else None
    return bool(workload is not None and workload.input_tokens is None
                and {"input_tokens", "output_tokens"} & set(response.question_fields))


def _ttft_unjudged(check: TargetCheck, effective: Workload) -> str:
    """"time to first token ≤ 2 s: not judged until the prompt length is said (0.011 s at 1,024-token prompts)":
    never "target met" on a prefill of the default 1,024 tokens when the prompts may be a 128k window's."""
    got = f"{check.got:.2g} s" if 0 < check.got < 1 else fmt_num(check.got, "s")
    wanted = f"{check.wanted:.2g} s" if 0 < check.wanted < 1 else fmt_num(check.wanted, "s")
    prompt = int(effective.input_tokens or DEFAULT_INPUT_TOKENS)  # an agent's call is assumed longer
    return (f"time to first token ≤ {wanted}: not judged until the prompt length is said ({got} at the assumed "
            f"{prompt:,}-token prompts)")


def speed_margin(advice: Advice) -> float | None:
    """The margin over a stated per-user speed the engine sized the plan for (its `speed_margin` assumption)."""
    found = next((a.value for a in advice.assumptions if a.field == "speed_margin"), None)
    return float(found) if isinstance(found, int | float) else None


def _stated(advice: Advice, check: TargetCheck) -> bool:
    """A target the user gave. One the engine assumed (1 concurrent user, 10 tokens/s per user) is an
    assumption, listed as such: "target met" against it would report a guess as a success."""
    return getattr(advice.workload, check.name, None) is not None


def stated_mfu(advice: Advice) -> float | None:
    """The MFU a training answer states: every model FLOP over peak (attention included, recompute not)."""
    tp = advice.throughput
    mfu = tp.training_tokens_per_s.inputs.get("mfu") if tp and tp.training_tokens_per_s else None
    return float(mfu) if isinstance(mfu, int | float) else None


TRAINING_SEQ_SAID_AT = 0.85  # share of usable memory from which a training plan's assumed sequence length is said


def key_assumptions(advice: Advice) -> str:
    """The assumptions that move the answer most, in a few words each: token count, utilisation, pricing."""
    found = {a.field: a for a in advice.assumptions}
    bits: list[str] = []
    tokens = found.get("dataset_tokens")
    if tokens is not None and isinstance(tokens.value, int | float):
        gb = advice.effective.dataset_gb
        # a compressed or columnar corpus holds several times its size in text (engine.defaults): say both
        source = ("" if not gb else f" from {fmt_gb(gb)} compressed (~{fmt_gb(gb * COMPRESSED_TEXT_RATIO)} of text)"
                  if advice.effective.dataset_compressed else f" from {fmt_gb(gb)} of text")
        bits.append(f"~{fmt_count(float(tokens.value))} tokens per epoch{source}")
    steps = found.get("train_steps")  # "5000 steps at global batch 256": the data is the arithmetic, said whole
    if steps is not None:
        bits.append(steps.why)
    tp = advice.throughput
    mfu = stated_mfu(advice)
    if mfu is not None:
        bits.append(f"{mfu:.0%} MFU")
    elif tp is not None and tp.decode_tokens_per_s is not None:
        efficiency = tp.decode_tokens_per_s.inputs.get("bandwidth_efficiency")
        if isinstance(efficiency, int | float):
            per_user = tp.decode_tokens_per_s_per_sequence
            amd = per_user is not None and AMD_SERVING_NOTE in per_user.notes
            bits.append(f"{efficiency:.0%} of peak memory bandwidth" + (f" (x{AMD_SERVING_EFFICIENCY:g} on AMD)" if amd else ""))
    if "kv_cache_dtype" in found and _is_serving(advice) and not any(n.startswith(FP8_NOTE) for n in advice.notes):
        bits.append("FP8 KV cache")  # asked for FP8 weights; the cache's precision is ours (an engine-chosen FP8 says both)
    # a priced service's duty cycle (a job's cost per token is at its own load, over the hours it runs)
    if tp is not None and tp.cost_per_1m_tokens_usd is not None and advice.options and not _is_job(advice):
        busy = tp.cost_per_1m_tokens_usd.inputs.get("utilization")
        schedule = schedule_words(advice.effective)
        if schedule is not None:
            bits.append(schedule)
        if isinstance(busy, int | float):
            bits.append(f"busy {busy:.0%} of the time" + (" it runs" if schedule is not None else ""))
    seq = found.get("seq_len")
    mem = advice.memory
    if (seq is not None and not _is_serving(advice) and isinstance(seq.value, int | float) and mem is not None
            and mem.usable_gb_per_gpu and mem.per_gpu_gb >= TRAINING_SEQ_SAID_AT * mem.usable_gb_per_gpu):
        # a training plan this full would not hold much longer sequences: the length it assumed is said up front
        bits.append(f"{int(seq.value):,}-token sequences")
    # request lengths assumed under load ("1024 in / 256 out"; a reasoning model's reply length is its own assumption)
    shape = next((found[f] for f in ("output_tokens", "input_tokens")
                  if f in found and isinstance(found[f].value, str) and " in / " in found[f].value), None)
    turn = (tuple(int(part.split()[0]) for part in shape.value.split(" / "))
            if shape is not None and _is_serving(advice) and isinstance(shape.value, str) else None)
    for name, what in (("concurrency", "concurrent user"), ("seq_len", "tokens of context")):
        a = found.get(name)
        if a is not None and _is_serving(advice) and isinstance(a.value, int | float):
            plural = "s" if name == "concurrency" and a.value != 1 else ""
            if name == "seq_len" and turn is not None and a.value > sum(turn) and not _is_job(advice):
                # more context than one turn's prompt and reply: the conversation so far is in the cache too
                what = "tokens of context per user (earlier turns included)"
            bits.append(f"{fmt_num(float(a.value))} {what}{plural}")
    if turn is not None:
        bits.append(f"{turn[0]:,}-token prompts, {turn[1]:,}-token replies")
    pause = found.get("think_time_s")  # chat users read each reply: their prompts arrive a pause apart, not back to back
    if pause is not None and _is_serving(advice) and isinstance(pause.value, int | float) and pause.value:
        users = int(advice.effective.concurrency or 0)
        bits.append(f"users pause ~{fmt_num(float(pause.value))} s between turns"
                    + (f" (sized for all {users:,} generating at once)" if users > 1 else ""))
    elif _is_serving(advice) and advice.cluster is not None:
        # one stream, with the users the GPUs hold at the floor beside it: counted as users pausing between turns
        room = room_figures(advice.cluster)
        held = think_time_s(advice.effective.model_copy(update={"concurrency": 2})) if room and room[3] else 0.0
        if held:
            bits.append(f"users pause ~{fmt_num(held)} s between turns")
    hit = found.get("prefix_cache_hit")  # an agent's calls: most of each prompt is the conversation already cached
    if hit is not None and _is_serving(advice) and isinstance(hit.value, int | float) and hit.value:
        bits.append(f"{hit.value:.0%} of each prompt in the prefix cache")
    floor = found.get("target_tokens_per_s_per_user")  # the per-user speed sized for when none was asked
    if floor is not None and _is_serving(advice) and isinstance(floor.value, int | float):
        batch = " (batch floor: no latency target)" if advice.effective.offline and not advice.effective.batch_items else ""
        # the assumed chat floor counts as kept within its slack (19.8 of 20): "~20", where "≥20" beside 19.8 reads false
        near = "~" if float(floor.value) == DEFAULT_TOKENS_PER_S_PER_USER and not batch \
            and advice.workload.target_tokens_per_s_per_user is None and not advice.effective.batch_items else "≥"
        bits.append(f"{near}{fmt_num(float(floor.value))} tokens/s per user{batch}")
    if not bits:  # none of those apply: the first two the engine lists
        bits = [f"{a.field.replace('_', ' ')} {a.value}" for a in advice.assumptions[:2]
                if isinstance(a.value, str | int | float)]
    pricing = advice.effective.pricing or (found["pricing"].value if "pricing" in found else None)
    if (owns_gpus(advice.workload) or any(o.name.startswith(OWNED_PREFIX) for o in advice.options[:1])
            or any(n.startswith(RENTED_NOWHERE_NOTE) for n in advice.notes)):
        # no rental (theirs, or a GPU no provider rents): their GPUs cost the electricity they draw
        bits.append("no rental price in the catalog" if unpriced_said(advice) else "your own GPUs at power cost")
    elif pricing:
        bits.append(f"{str(pricing).replace('_', '-')} prices")
    return "Assumes " + " · ".join(bits) if bits else ""


def _coherent_change(line: str, verdict: str, asking: bool = False) -> str:
    """A change line must not contradict the headline: when the model still fits but no priced option
    is left (often because a question about the data is open), say that instead of "no configuration fits"."""
    if verdict == "fits":
        instead = "it fits; the cost follows once the open question is answered" if asking else \
            "it still fits, but no priced offer is left"
        return line.replace("no configuration fits any more", instead)
    return line


def _headline(advice: Advice, names: Mapping[str, str], problems: list[str]) -> tuple[str, str]:
    mem, cluster = advice.memory, advice.cluster
    what = subject(advice, names)
    if cluster is not None and cluster.fits:
        nodes = f" ({cluster.nodes} nodes)" if cluster.nodes > 1 else ""
        other = advice.effective.unsupported_accelerator or advice.workload.unsupported_accelerator
        if other:  # the user asked about hardware we do not cover: no green tick for a different question
            return "fits", f"⚠️ {other} is not covered; on GPUs: {what} fits on {cluster.gpus}× {gpu_name(cluster.gpu, names)}{nodes}"
        short = _short_of(advice)
        if any(p.code == "no_offer_shape" for p in advice.problems):
            short = "but no offer hosts it"  # machines too small and unlinked: nothing to rent it on
        if any(p.code == USERS_PAST_FIXED for p in advice.problems):
            short = f"but not {int(advice.effective.concurrency or 0):,} users at once"
        if not short and any(n.startswith(POOR_FIT_NOTE) for n in advice.notes):
            short = "but a poor fit for this GPU"  # the note under it names the GPU that does it for far less
        if (not short and mem is not None and mem.usable_gb_per_gpu and advice.effective.mode in TRAINING_MODES
                and mem.per_gpu_gb / mem.usable_gb_per_gpu >= EDGE_OF_MEMORY):
            # 161.9 of 162 GB: a tick over a plan that may not survive its first step read as a contradiction of the
            # "Tight" line under it
            short = "but at the edge of memory"
        lacking = next((p.message for p in advice.problems if p.code == PROVIDER_LACKS_GPU), "")
        if LACKS_SAID in lacking:  # "Lambda MI300X": the provider named does not rent it, said before anything else
            short = f"but not at {lacking.split(LACKS_SAID)[0]}"
        short = outside_headline(advice) or short  # "data can't leave germany": no offer there, said first
        if short:  # it fits in memory, but not what was asked of it: no green tick over a missed target
            return "fits", f"⚠️ Fits, {short}: {what} on {cluster.gpus}× {gpu_name(cluster.gpu, names)}{nodes}"
        narrowed = fallback_weights(advice)
        if narrowed is not None:  # "does 70B fit on one H100?": only as a quantized checkpoint, the answer's condition
            precision, wider_fits = narrowed
            only = "" if wider_fits else " only"
            return "fits", (f"✅ Fits in {FALLBACK_WEIGHTS[precision][0]} weights{only}: {what} on {cluster.gpus}× "
                            f"{gpu_name(cluster.gpu, names)}{nodes}")
        return "fits", f"✅ Fits: {what} on {cluster.gpus}× {gpu_name(cluster.gpu, names)}{nodes}"
    if cluster is not None or (mem is not None and mem.fits is False):
        gpu = gpu_name(cluster.gpu if cluster else advice.effective.gpu, names)
        gpu = f"{cluster.gpus}× {gpu}" if cluster is not None and cluster.gpus > 1 else gpu
        need = f" (needs {fmt_gb(mem.per_gpu_gb)} per GPU)" if mem is not None else ""
        return "does_not_fit", f"❌ Does not fit: {what} on {gpu}{need}"
    reason = problems[0] if problems else "not enough to size it yet"
    has_subject = bool(advice.effective.model or advice.effective.params_b)
    return "unknown", (f"⚠️ {what}: {reason}" if has_subject else f"⚠️ {reason}")


EDGE_OF_MEMORY = 0.98  # of usable memory per GPU (after the headroom): a training plan there gets no tick
_UNDER_FLOOR = re.compile(r"under the ([\d.]+) tokens/s assumed")  # in the fixed-GPU and budget notes


def _short_of(advice: Advice) -> str:
    """"misses the request rate", "under 20 tokens/s per user": what the fitting plan falls short of (a target the
    user stated, or the interactive floor on GPUs they fixed), "" when nothing."""
    missed = [t for t in (advice.throughput.targets if advice.throughput else ()) if not t.met and _stated(advice, t)]
    if missed:
        label = TARGET_LABELS.get(missed[0].name, (missed[0].name.replace("_", " "), "", True))[0]
        return f"misses the {label}" if len(missed) == 1 else "misses its targets"
    budget = next((n for n in advice.notes if n.startswith(BUDGET_NOTE)), "")
    slow = _UNDER_FLOOR.search(plan_note(advice, SLOW_FIXED_NOTE) or "") or _UNDER_FLOOR.search(budget)
    if slow:
        return f"under {slow.group(1)} tokens/s per user"
    # no plan on the GPUs asked for keeps the interactive floor (4 T4s across nodes at 2.5 tokens/s): not a green tick
    winner = winner_option(advice)
    if (winner is not None and _is_serving(advice) and not _is_job(advice) and not advice.effective.offline
            and advice.workload.target_tokens_per_s_per_user is None
            and (_per_user(winner) or math.inf) < floor_kept_at(advice.effective)):
        return f"under {DEFAULT_TOKENS_PER_S_PER_USER:g} tokens/s per user"
    return ""


def _tokens_guessed(advice: Advice) -> float | None:
    """The tokens per epoch the engine assumed from the corpus size (None when the user gave them)."""
    found = next((a for a in advice.assumptions if a.field == "dataset_tokens"), None)
    return float(found.value) if found is not None and isinstance(found.value, int | float) else None


def _guess_headline(advice: Advice, names: Mapping[str, str], guessing: bool) -> str:
    """A run sized on a guessed token count leads with the price per 1B tokens and the question, not with
    a months-long run nobody asked for: "✅ Fits: QLoRA 70B on 8× B200: ~$623 and ~14 h per 1B tokens; ..."."""
    winner = winner_option(advice)
    best = best_tco(winner) if winner is not None else None
    tokens = _tokens_guessed(advice)
    if not guessing or best is None or not best.usd_per_1b_tokens or advice.cluster is None or not tokens:
        return ""
    epochs = advice.effective.epochs or 1
    hours = f" and ~{fmt_hours(winner.hours_per_run * 1e9 / (tokens * epochs))}" if winner and winner.hours_per_run else ""
    cluster = advice.cluster
    return (f"✅ Fits: {subject(advice, names)} on {cluster.gpus}× {gpu_name(cluster.gpu, names)}: "
            f"~{fmt_usd(best.usd_per_1b_tokens)}{hours} per 1B tokens; how many tokens per run?")


BUY_OR_RENT = re.compile(r"buy vs rent: (rent|buying can pay off|close call)\. (\d+) x (.+?) as servers cost ~\$([\d,]+) .*? pay for "
                         r"themselves after ([\d,]+) busy hours \(~([\d.,]+) months around the clock(?:, counting their resale then)?\) against "
                         r"\$([\d.,]+)/GPU-hour(?: \((.+?), the cheapest with an SLA\); against a \$([\d.,]+) marketplace "
                         r"host: (~[\d,]+ months|never))?(?:; against 1-3 year reserved capacity \(~\d+% below on-demand, "
                         r"\$[\d.,]+/GPU-hour\): (~[\d,]+ months|never))?")


def _buy_or_rent_headline(response: Response, names: Mapping[str, str] | None = None) -> str:
    """"Should I buy or rent?": the engine's break-even is the answer, so it is the headline."""
    advice = response.advice
    if advice is None or " buy" not in f" {response.text.lower()}":
        return ""
    note = next((n for n in advice.notes if n.startswith("buy vs rent")), "")
    found = BUY_OR_RENT.match(note)
    if found is None and not note and advice.cluster is not None and advice.cluster.fits:
        # the catalog has no sourced purchase price for this GPU (only street prices where published): said, not
        # dropped; the rental below is the answer's half that can be priced
        label = gpu_name(advice.cluster.gpu, names or {})
        return (f"💸 Buy or rent: no sourced purchase price for {label}, so no break-even; renting is priced below "
                "(owning pays only at ~70%+ use for 3+ years)")[:HEADER_TEXT]
    if found is None:
        return ""
    verdict, gpus, gpu, _, _, months, rate, sla_name, market_rate, market, reserved = found.groups()
    on_demand_months = f"{float(months.replace(',', '')):,.0f}"
    busy = f"{on_demand_months}+ months around the clock"
    at = f"vs ${rate}/GPU-h at {sla_name}" if sla_name else f"vs ${rate}/GPU-h on-demand"
    # against a marketplace pick, the break-even is the SLA provider's; the marketplace figure follows it
    versus_market = f"{market.lstrip('~')} vs a ${market_rate} marketplace host" if sla_name and market else ""
    if reserved and reserved != "never":
        # hardware kept busy for years competes with a 1-3 year commitment, not with hourly rent: that break-even
        # leads, the on-demand one follows
        busy = f"{float(reserved.lstrip('~').split()[0].replace(',', '')):,.0f}+ months around the clock"
        at_on_demand = f"{on_demand_months} months {at}"
        candidates = ["; ".join(p for p in ("vs 1-3 yr reserved", at_on_demand, versus_market) if p),
                      f"vs 1-3 yr reserved; {at_on_demand}", "vs 1-3 yr reserved"]
    elif sla_name:
        candidates = ["; ".join(p for p in (at, versus_market) if p), at]
    else:  # the rate is the pick's own (reserved or spot, as asked)
        candidates = [f"break-even vs ${rate}/GPU-h; server and power counted"]
    w = advice.effective
    if scheduled_service(w) and float(w.service_hours_per_week or 0) / HOURS_PER_WEEK < OWNING_USE:
        # a service kept to its hours leaves owned GPUs idle the rest of the week: the around-the-clock break-even is moot
        return (f"💸 Buy or rent: rent: {float(w.service_hours_per_week or 0):g} h a week keep {gpus}× {gpu} busy "
                f"{float(w.service_hours_per_week or 0) / HOURS_PER_WEEK:.0%} of the time; owning pays off only if busy "
                f"{busy}")[:HEADER_TEXT]
    load = _training_use(advice)
    if load is not None and load[0] < OWNING_USE:
        # the load the user gave keeps the GPUs idle most of the month: the break-even (around the clock) is moot
        use, hours = load
        return (f"💸 Buy or rent: rent: {advice.effective.runs_per_month or 1:g} runs of "
                f"{fmt_hours(hours, compact=True)} keep {gpus}× {gpu} busy {use:.0%} of the month; "
                f"owning pays off only if busy {busy}")[:HEADER_TEXT]
    for said in candidates:  # the fullest that fits: a header holds 150 characters
        headline = (f"💸 Buy or rent: rent, unless {gpus}× {gpu} stay busy {busy} ({said})" if verdict == "rent"
                    else f"💸 Buy or rent: close call: {gpus}× {gpu} {'pays' if gpus == '1' else 'pay'} off at {busy} ({said})"
                    if verdict == "close call" else f"💸 Buy or rent: buying {gpus}× {gpu} pays off if busy {busy} ({said})")
        if len(headline) <= HEADER_TEXT:
            break
    return headline


OWNING_USE = 0.7  # owning usually wins only above ~70% sustained use (the engine's buy-vs-rent note says the same)


def _training_use(advice: Advice) -> tuple[float, float] | None:
    """(share of a month the runs the user asked for keep the GPUs busy, hours per run) for training with a run
    count said; None otherwise."""
    w = advice.effective
    winner = winner_option(advice)
    hours = float(winner.hours_per_run or 0.0) if winner is not None else 0.0
    if (w.mode or "inference") == "inference" or advice.workload.runs_per_month is None or not hours:
        return None
    return min(1.0, float(w.runs_per_month or 1.0) * hours / HOURS_PER_MONTH), hours


def _not_covered(advice: Advice) -> str:
    name = advice.effective.unsupported_accelerator or advice.workload.unsupported_accelerator
    if not name or any(p.code == "unsupported_accelerator" for p in advice.problems):
        return ""  # the engine's problem says it (once)
    return (f"{name} is not covered: the catalog holds NVIDIA and AMD GPUs only, so the plan below is for GPUs, "
            f"not {name}.")


def build_answer_view(response: Response, names: Mapping[str, str] | None = None,
                      *, vram_only: bool = False, tables: bool = False, charts: bool = True,
                      hint: str = "") -> AnswerView:
    """Select and format what the engine computed for the first message; no arithmetic beyond unit display."""
    names = names or {}
    if response.buy_or_rent is not None:  # "should we buy or rent 8 H100s?": the break-even, no model to plan
        from bot.owning_view import buy_or_rent_view

        view = buy_or_rent_view(response.buy_or_rent)
        server = [n for n in response.notes if "DGX" in n]  # the reader's "a DGX holds 8 GPUs": the count answered
        return replace(view, notes=[*view.notes, *server], questions=list(response.questions), hint=hint)
    if response.reserve is not None:  # "reserve 8 H100s or on demand 6 h a day?": both bills, no model to plan
        from bot.reserve import reserve_view

        view = reserve_view(response.reserve)
        # no --details layer to point at: the rows and the arithmetic are the whole answer
        return replace(view, notes=[*view.notes, *response.notes][:3], questions=[*view.questions, *response.questions])
    if response.api is not None and response.advice is None:  # an API named, no model: its bill (bot.api_compare)
        from bot.api_compare import api_only_view

        return replace(api_only_view(response.api, list(response.questions), list(response.notes)), hint=hint)
    advice = response.advice
    assert advice is not None, "build_help_view is for responses without advice"
    vram_only = vram_only or bool(getattr(response, "vram_asked", False))  # "how much VRAM do I need …"
    problems = [p.message for p in advice.problems]
    verdict, headline = _headline(advice, names, problems)
    if "gpu" in response.question_fields and headline.startswith("✅ Fits"):
        # the GPU named is unknown or ambiguous ("8 RTX 6000": Ada or PRO?): a green tick over another GPU's plan would
        # read as an answer about theirs; the question under it says which GPU the plan is on meanwhile
        condition, _, plan = headline.partition(": ")
        what_part, _, on = plan.rpartition(" on ")
        fits = condition.removeprefix("✅ ").replace("Fits", "fits", 1)
        headline = f"⚠️ Which GPU? Meanwhile, {what_part} {fits} on {on}"
    other = advice.effective.unsupported_accelerator or advice.workload.unsupported_accelerator
    if other and headline.startswith(f"⚠️ {other} is not covered"):  # the headline says it: the problem says why
        said_once = f"{other} is not covered: "
        problems = [m[len(said_once):][:1].upper() + m[len(said_once) + 1:] if m.startswith(said_once) else m
                    for m in problems]
    problems = problems[1:] if verdict == "unknown" else problems
    said = {a.why for a in advice.assumptions} | set(response.questions)
    accelerator = (advice.effective.unsupported_accelerator or "").lower()
    restated = [QUESTION_NOTES[f] for f in response.question_fields if f in QUESTION_NOTES]
    # weights re-planned for the GPU named (no vLLM kernels for the checkpoint's format there): the parser's
    # "served in 4-bit, the format of the checkpoint" is no longer what the answer does
    replanned = any(n.startswith(NO_INTEGER_KERNELS_NOTE) and "planned with" in n for n in advice.notes)
    notes = [n for n in dict.fromkeys(response.notes) if n not in said
             and not (replanned and n.startswith("served in "))
             and not (accelerator and accelerator in n.lower() and "not cover" in n.lower())
             and not any(words in n for words in restated)][:2]
    buying = " buy" in f" {response.text.lower()}"
    if buying:  # "should I buy or rent": the break-even is the answer, up front
        notes = [n for n in advice.notes if n.startswith("buy vs rent")][:1] + notes[:1]
    # what changes the decision (GeForce / marketplace, spot, a guessed model) before what the reader noticed
    comparison = [] if vram_only else _comparison(advice, response.hardware)
    if comparison and response.compared is not None:
        from bot.many_gpus import many, many_rows

        comparison = (many_rows(response, response.hardware, ComparisonRow)[:RANKED_ROWS] if many(response)
                      else _with_compared(comparison, response.compared, advice))
    one_run = bool(comparison) and not _is_serving(advice) and _one_run(advice)
    # a cheapest row labelled "cheapest, no SLA" already says why it is not the pick: no sentence repeats it
    labelled = any(row.role.startswith("cheapest") and row.role.endswith(UNFIT_LABELS) for row in comparison)
    caveats = decision_caveats(advice, response.hardware, cheapest_labelled=labelled, buying=buying,
                               said=response.notes)
    if response.capacity is not None:  # planned to fill the GPUs: memory at its limit is the answer, not a risk
        caveats = [c for c in caveats if not c.startswith("Tight:")]
    if any(UNLISTED_MODEL_NOTE in c for c in caveats):  # the caveat names the model the parser did not know
        notes = [n for n in notes if not UNKNOWN_SIZED_NAME.match(n)]
    # two decision caveats are enough to read under an answer: the parser's own notes then wait for Details
    # an open question takes two lines of the ten-second read: one note fewer then
    # (a buy-or-rent answer's break-even is its headline, not a note: its two caveats keep their lines)
    # the line saying the provider named does not rent the GPU named (its two ways out are the answer) leaves room for one
    lacking = any(p.code == PROVIDER_LACKS_GPU for p in advice.problems)
    notes = (caveats + notes)[:MAX_NOTES - (1 if len(caveats) >= 2 and not buying else 0)
                              - (1 if response.questions else 0)][:1 if lacking else MAX_NOTES]
    if vram_only:
        mem = advice.memory
        parts = sorted(mem.components.items(), key=lambda kv: -kv[1].value)[:3] if mem else []
        memory_line = (f"*{fmt_gb(mem.per_gpu_gb)} per GPU*"
                       + (f" of {fmt_gb(mem.usable_gb_per_gpu)} usable" if mem.usable_gb_per_gpu else "")
                       + (" (" + " · ".join(f"{label(k)} {fmt_gb(f.value)}" for k, f in parts) + ")" if parts else "")
                       ) if mem else ""
        precision_rows = [
            (str(q.get("precision")), fmt_gb(q.get("total_gb")), str(q.get("accuracy", "")).split(";")[0])
            for q in advice.quantization if q.get("total_gb") is not None
        ]
        with_kv = any(float(q.get("kv_cache_gb") or 0) > 0 for q in advice.quantization)
        precision_basis = (f"weights + KV cache of one {int(advice.effective.seq_len or 0):,}-token sequence; the KV "
                           "in 16 bits, 8 on the fp8 row"
                           if with_kv and advice.effective.seq_len else "weights alone")
        vram_assumptions = [f"{a.field.replace('_', ' ')} {a.value}" for a in advice.assumptions
                            if a.field in VRAM_ASSUMPTIONS][:2]
        return AnswerView(headline=headline, verdict=verdict, questions=list(response.questions),
                          changes=list(response.changes), problems=problems, memory_line=memory_line,
                          precision_rows=precision_rows, precision_basis=precision_basis,
                          assumptions=vram_assumptions, notes=notes,
                          not_covered=_not_covered(advice), vram_only=True, hint=hint)
    fixes: list[str] = []
    if verdict == "does_not_fit" and advice.recommendation:
        fixes = list(advice.recommendation.what_would_change_it[:2])
    tp = advice.throughput
    serving = _is_serving(advice)
    buttons, runs = _buttons(advice, charts)
    asking = bool(response.questions)
    # a refinement's new problem is said once, among the problems under the headline
    shown = {p.message for p in advice.problems}
    changes = [_coherent_change(c, verdict, asking) for c in response.changes
               if not (c.startswith("new problem: ") and c[len("new problem: "):] in shown)]
    assumptions = key_assumptions(advice)
    guessing = "dataset_tokens" in response.question_fields and _tokens_guessed(advice) is not None
    if verdict == "fits":
        buy_or_rent = _buy_or_rent_headline(response, names)
        capacity = _capacity_headline(response, names)
        from bot.many_gpus import many, many_headline, many_line

        several = many(response)  # three GPUs or more, or a per-dollar ranking of every type: a row each
        versus = many_headline(response, names) if several else _compared_headline(response, names)
        versus_line = (many_line(response, names) if several else _compared_line(response, names)) if versus else None
        if versus is None and getattr(response, "managed", None) is not None:
            # "sagemaker vs ec2": the same plan on both, the premium and what it buys
            from bot import managed as managed_words

            versus = managed_words.headline(response.managed, subject(advice, names), names, fmt_usd)
            versus_line = managed_words.line(response.managed)
        if versus_line:  # the cheapest of each anywhere, under a verdict read at one provider
            notes = [versus_line, *notes][:MAX_NOTES]
        room = _context_headline(response, names)
        # "… vs gpt-4o-mini api" asks which is cheaper: the answer to it leads, the plan it is weighed on under it
        api_versus = response.api.comparison if getattr(response, "api", None) is not None else None
        api = _api_headline(response, api_versus, headline) if api_versus is not None else None
        headline = (_guess_headline(advice, names, guessing) or buy_or_rent or versus or api or capacity or room
                    or headline)
        notes = [n for n in notes if not (n.startswith("buy vs rent") and buy_or_rent)]
    if response.ladder:  # "the biggest model for $20k a month": the ladder is the answer, the plan its pick's
        headline = _ladder_headline(response, names)
        notes = [_ladder_line(response, names), *notes][:MAX_NOTES]
    view = AnswerView(
        headline=headline,
        verdict=verdict,
        questions=list(response.questions),
        changes=changes,
        problems=problems,
        plan=_plan_line(advice, names),
        speed=_speed_line(advice, guessing) if verdict == "fits" else "",  # the speed of a plan that cannot run misleads
        published=_published_run(advice) if verdict == "fits" else "",
        cost=_cost_line(advice, asking, guessing),
        # the users to serve are the load the plan is sized for, not a target: said only when the GPUs fixed cannot
        # hold them
        targets=[_ttft_unjudged(t, advice.effective) if _prompt_open(response) and t.name == "target_ttft_s" else
                 target_line(t, speed_margin(advice), total_in_rate(advice.effective),
                             advice.workload.ttft_percentile is not None) for t in tp.targets
                 if _stated(advice, t) and not (t.name == "concurrency" and t.met)] if tp else [],
        not_covered=_not_covered(advice),
        fixes=fixes,
        comparison=comparison,
        cost_label="per job" if _is_job(advice) else ONE_RUN_LABELS[0] if one_run else "per month",
        unit_cost_label="per 1M output tokens" if serving else ONE_RUN_LABELS[1] if one_run else "per run",
        speed_label=("time per job" if _is_job(advice) else "per user") if serving else ONE_RUN_LABELS[2] if one_run
        else "time per run",
        key_assumptions=assumptions,
        notes=notes,
        buttons=buttons,
        runs_select=runs,
        tables=tables,
        hint=hint,
        api=_api_line(response) if verdict == "fits" else "",
    )
    if getattr(response, "owned_types", None):  # "our slurm cluster", no GPU named: the job per common type, owned
        from bot.fleet import owned_types_view

        return owned_types_view(view, response.owned_types, advice, dict(names))
    if getattr(response, "window", None) is not None:  # "500 A100s for 2 hours": the tokens trained in it lead
        from bot.fleet import window_view

        view = window_view(view, response.window, dict(names), list(response.notes))
    if response.local is not None:  # "what GPU do I need to run it locally?": the cards to buy lead
        from bot.owning_view import local_view

        model = advice.effective.model
        return local_view(view, response.local, names.get(model, model) if model else "the model")
    return view


def _api_headline(response: Response, comparison: Any, fits: str) -> str:
    """"⚖️ GPT-4o mini is cheaper below ~88% load: $1,184 a month at 30% vs $3,489 self-hosted on 2× MI300X ($3,948 at
    full load)": which of the API and the plan costs less, and where they cross. `fits`: the plan's own headline, whose
    GPUs are named."""
    name = response.api.price.name  # "Llama 3.3 70B Instruct Turbo (Together AI API)": the host said for open models
    api = name.replace(" API)", ")") if response.api.price.open_model else name.split(" (")[0]
    on = fits.split(" on ", 1)[1] if " on " in fits else "the plan"
    hosted, api_usd = comparison.self_hosted_usd_per_month, comparison.bill.usd_per_month.value
    share = comparison.break_even_load.value
    said = comparison.load == "said"
    # the verdict first: Slack cuts a header at 150 characters
    if said:
        cheaper = api if api_usd < hosted else "Self-hosting"
        return f"⚖️ At your load {cheaper} is cheaper: {api} {fmt_usd(api_usd)} a month vs {fmt_usd(hosted)} self-hosted on {on}"
    if share >= 1:
        return f"⚖️ {api} is cheaper at any load: {fmt_usd(api_usd)} a month at full load vs {fmt_usd(hosted)} self-hosted on {on}"
    if share <= 0:
        return f"⚖️ Self-hosting is cheaper at any load: {fmt_usd(hosted)} a month on {on} vs {api} {fmt_usd(api_usd)}"
    real = comparison.realistic_load
    return (f"⚖️ {api} is cheaper below ~{share:.0%} load: {fmt_usd(comparison.api_usd_per_month_realistic.value)} a month "
            f"at {real:.0%} vs {fmt_usd(hosted)} self-hosted on {on} ({fmt_usd(api_usd)} at full load)")


def _api_line(response: Response) -> str:
    """The `API:` line of an answer that names a hosted API (bot.api_compare); "" otherwise."""
    if getattr(response, "api", None) is None:
        return ""
    from bot.api_compare import api_line

    return api_line(response.api)


# A parser note that asks what an open question asks (by the Workload field the question fills): the
# question says it once, in "Still open".
QUESTION_NOTES = {"output_tokens": "say the response length"}

MAX_NOTES = 3  # note lines under the first message: decision caveats first, then what the reader noticed

# Assumptions a /vram reader needs: what the memory figure was computed at.
VRAM_ASSUMPTIONS = ("precision", "seq_len", "batch_size", "concurrency", "optimizer", "gradient_checkpointing")
