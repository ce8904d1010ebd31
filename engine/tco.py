"""Four-row total cost of ownership for one way of running the workload, per month.

TCO is compute + storage + egress + managed-service premium, not a $/hr. Every row here is for one
month of `runs_per_month` runs:

- compute  = GPU-hours per run x runs per month x USD per GPU-hour (offer node price / GPUs per
             node, or the user's quoted `hourly_rate`). A managed offer's listed price includes its
             premium: compute is the self-managed equivalent (listed / (1 + premium)) and the
             premium is its own row, so it is visible, not blended, and never counted twice.
- storage  = GB-months x the GPU provider's storage rate (dataset + checkpoints + artifacts), or
             the user's fixed `storage_usd_per_month`. Not multiplied by runs: the same data sits there.
- egress   = cached (one pull a month) / uncached (every run pulls) / $0 same-cloud (engine.egress).
- managed  = compute x premium fraction (the user's override, else the offer's, else the
             provider's).

A service is one run a month of its fleet kept on (730 h). One used only in some hours
(`service_hours_per_week`, "9am-6pm weekdays" = 45 h) is stopped or scaled to zero outside them on
hourly-billed capacity, so on-demand and spot compute is billed for hours a week x 365/12/7 weeks a
month (45 h a week is 195.5 h of the 730); reserved capacity is paid around the clock whatever the
schedule, so it stays 730 h (`billed_service_hours_per_month`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from catalog.records import OfferRecord, ProviderRecord
from engine.models import BYTES_PER_TOKEN_TEXT, TRAINING_MODES, Figure, TcoOption, TcoRow, Workload
from engine.units import HOURS_PER_MONTH

HOURS_PER_WEEK = 168.0  # a 730-hour month is 365/12/7 = 4.345 such weeks, so 168 h a week is exactly always on

# Published 1-3 year commitments run 30-50% below on-demand (AWS Savings Plans / EC2 reserved,
# GCP committed use, Azure reservations): the low end is the conservative estimate where a provider
# publishes none, and the answer says it is an estimate.
RESERVED_DISCOUNT_ASSUMED = 0.30
DEFAULT_CHECKPOINTS_KEPT = 3
BYTES_PER_GB = 1e9

Workflow = Literal["cached", "uncached", "same_cloud", "none"]


def usd_per_gpu_hour(offer: OfferRecord | None, pricing: str, hourly_rate: float | None) -> tuple[float | None, str]:
    """The rate compute is billed at, and where it came from. None when the offer has no such price.

    The user's quoted rate wins (it is what they will actually pay). Reserved prices missing from
    the catalog are estimated at on-demand less 30% and labelled as an estimate.
    """
    if hourly_rate is not None:
        return hourly_rate, f"your quoted ${hourly_rate:g}/GPU-hr"
    if offer is None:
        return None, "no offer and no quoted rate"
    per_node = node_usd_per_hour(offer, pricing)
    if per_node is None or per_node <= 0 or offer.gpus_per_node <= 0:
        return None, f"no {pricing} price for {offer.id}"
    if pricing == "spot":
        source = "spot"
    elif pricing == "reserved":
        source = "reserved" if offer.reserved_usd_per_hour is not None else (
            f"reserved ESTIMATED as on-demand -{RESERVED_DISCOUNT_ASSUMED:.0%} (no published commitment "
            "price; 1-3 year terms typically run 30-50% below on-demand)")
    else:
        source = "on-demand"
    return per_node / offer.gpus_per_node, (f"{source} ${per_node:,.2f}/node-hr / {offer.gpus_per_node} GPUs "
                                            f"({offer.source}, {offer.observed_on})")


def node_usd_per_hour(offer: OfferRecord, pricing: str) -> float | None:
    """The offer's price per node-hour for this pricing kind (reserved without a published price: on-demand
    less RESERVED_DISCOUNT_ASSUMED); None when it has none."""
    if pricing == "spot":
        return offer.spot_usd_per_hour
    if pricing == "reserved":
        if offer.reserved_usd_per_hour is not None:
            return offer.reserved_usd_per_hour
        if offer.on_demand_usd_per_hour is not None:
            return offer.on_demand_usd_per_hour * (1 - RESERVED_DISCOUNT_ASSUMED)
        return None
    return offer.on_demand_usd_per_hour


def offer_usd_per_gpu_hour(offer: OfferRecord, pricing: str) -> float | None:
    """`usd_per_gpu_hour`'s figure for a catalog offer without its wording: the catalog search prices every offer
    of every GPU type and reads only the number, and the wording (two formatted prices) cost more than the rest."""
    per_node = node_usd_per_hour(offer, pricing)
    if per_node is None or per_node <= 0 or offer.gpus_per_node <= 0:
        return None
    return per_node / offer.gpus_per_node


def _listed_fraction(offer: OfferRecord | None, provider: ProviderRecord | None) -> tuple[float, str]:
    """The premium already inside a managed offer's listed price (offer's, else provider's, else ~30%)."""
    if offer is not None and offer.managed_premium_fraction is not None:
        return offer.managed_premium_fraction, f"offer {offer.id} premium over its self-managed equivalent"
    if provider is not None and provider.managed_premium_fraction is not None:
        return provider.managed_premium_fraction, f"{provider.name} default premium"
    return 0.30, "estimate: managed training services list ~30% over the same instance self-managed (15-40% across clouds)"


def is_managed(offer: OfferRecord | None, provider: ProviderRecord | None) -> bool:
    return bool(offer is not None and offer.managed) or bool(provider is not None and provider.kind == "managed")


def managed_split(w: Workload, offer: OfferRecord | None, provider: ProviderRecord | None) -> tuple[float, float, str]:
    """(base_factor, premium_fraction, why) for splitting a listed price into compute + managed rows.

    Catalog convention: a managed offer's price is what the service lists (SageMaker's ml.* price,
    premium included) and `managed_premium_fraction` = listed / self-managed equivalent - 1. So the
    compute row is listed x base_factor = listed / (1 + listed premium) and the managed row is
    compute x premium: together exactly the listed price, never the premium counted twice. The
    user's `managed_premium` replaces the premium (not the base): "SageMaker at +20%".
    """
    if not is_managed(offer, provider):
        return 1.0, 0.0, "self-managed: no premium"
    listed, why = _listed_fraction(offer, provider)
    base_factor = 1.0 / (1.0 + max(0.0, listed))
    if w.managed_premium is not None:
        return base_factor, w.managed_premium, f"your managed-premium figure (listed price implies {listed:.0%})"
    return base_factor, listed, why


def managed_fraction(w: Workload, offer: OfferRecord | None, provider: ProviderRecord | None) -> tuple[float, str]:
    """Premium fraction over self-managed compute: 0 for self-managed offers (see `managed_split`)."""
    _base, fraction, why = managed_split(w, offer, provider)
    return fraction, why


def storage_footprint(w: Workload, total_params: float, trainable_params: float) -> Figure:
    """GB kept in storage: dataset + checkpoints kept + final artifact.

    Why these parts (what a training job keeps in storage: corpus, checkpoints, artifacts):
    - dataset: the corpus as given (`dataset_gb`);
    - checkpoints: `checkpoints_kept` (default 3) resumable states. Full training: bf16 weights +
      fp32 master + Adam m, v = 14 bytes/param (16 with fp32 grads excluded: grads are not saved).
      (Q)LoRA: adapter weights + optimizer only = 14 bytes/trainable param, the base is not saved;
    - artifact: the model you keep: a merged bf16 model (2 bytes/param) for training modes;
      nothing for inference (weights are already stored by whoever serves them).
    `storage_gb` from the user replaces the whole sum.
    """
    if w.storage_gb is not None:
        return Figure(value=w.storage_gb, unit="GB", formula="your storage_gb", inputs={"storage_gb": w.storage_gb})
    mode = w.mode or "inference"
    dataset_gb = float(w.dataset_gb or 0.0)
    from_tokens = w.dataset_gb is None and bool(w.dataset_tokens) and mode != "inference"
    if from_tokens:  # a corpus given as tokens is stored too: as text, at the bytes per token used to count it
        dataset_gb = float(w.dataset_tokens or 0) * BYTES_PER_TOKEN_TEXT / BYTES_PER_GB
    kept = w.checkpoints_kept if w.checkpoints_kept is not None else DEFAULT_CHECKPOINTS_KEPT
    if mode in ("full", "pretrain"):
        ckpt_gb = total_params * 14 / BYTES_PER_GB
        artifact_gb = total_params * 2 / BYTES_PER_GB
    elif mode in ("lora", "qlora"):
        ckpt_gb = trainable_params * 14 / BYTES_PER_GB
        artifact_gb = total_params * 2 / BYTES_PER_GB
    else:
        ckpt_gb = 0.0
        artifact_gb = 0.0
        kept = 0
    total = dataset_gb + kept * ckpt_gb + artifact_gb
    return Figure(
        value=total,
        unit="GB",
        formula="dataset_gb + checkpoints_kept x checkpoint_gb + artifact_gb",
        inputs={
            "dataset_gb": dataset_gb,
            "checkpoints_kept": kept,
            "checkpoint_gb": round(ckpt_gb, 3),
            "artifact_gb": round(artifact_gb, 3),
        },
        notes=(
            "checkpoint = 14 bytes per trained parameter (bf16 weights + fp32 master + Adam m, v); "
            "artifact = merged model in bf16 (2 bytes/param)",
            *((f"dataset_gb = {float(w.dataset_tokens or 0):,.0f} tokens x {BYTES_PER_TOKEN_TEXT:g} bytes per token of "
               "text (no size given)",) if from_tokens else ()),
        ),
    )


def _row(item: str, usd: float, formula: str, inputs: dict[str, Any]) -> TcoRow:
    return TcoRow(item=item, usd=max(0.0, usd), formula=formula, inputs=inputs)  # type: ignore[arg-type]


def workflows_for(w: Workload, egress: dict[str, Any]) -> tuple[Workflow, ...]:
    """Which egress workflows to show: both unless the user chose, one when there is no egress."""
    if egress.get("same_cloud"):
        return ("same_cloud",)
    if egress.get("basis") in (None, "none", "unknown"):
        return ("none",)
    if w.cache_dataset is True:
        return ("cached",)
    if w.cache_dataset is False:
        return ("uncached",)
    return ("cached", "uncached")


def scheduled_service(w: Workload) -> bool:
    """A service said to run only some hours of the week ("9am-6pm weekdays", "8 hours a day"). Training runs and
    offline jobs are priced by their own hours, and 168 h a week is always on."""
    hours = w.service_hours_per_week
    return (hours is not None and 0 < hours < HOURS_PER_WEEK and (w.mode or "inference") not in TRAINING_MODES
            and not w.batch_items)


def billed_service_hours_per_month(w: Workload) -> float:
    """Hours a month one GPU of a service is billed: its hours a week x 365/12/7 on hourly-billed (on-demand, spot)
    capacity stopped outside them; 730 for reserved capacity, which is paid around the clock whatever the schedule,
    and for a service with no schedule (always on)."""
    if not scheduled_service(w) or w.pricing == "reserved":
        return HOURS_PER_MONTH
    return float(w.service_hours_per_week or HOURS_PER_WEEK) * HOURS_PER_MONTH / HOURS_PER_WEEK


def schedule_words(w: Workload) -> str | None:
    """The schedule as the answer states it, in plain words (the Assumes line); None for an always-on service."""
    if not scheduled_service(w):
        return None
    said = f" ({w.service_schedule})" if w.service_schedule else ""
    hours = f"runs {float(w.service_hours_per_week or 0):g} h a week{said}"
    if w.pricing == "reserved":
        return f"{hours}, but reserved capacity is paid around the clock ({HOURS_PER_MONTH:.0f} h a month)"
    return f"{hours}: stopped outside; reserved capacity is paid around the clock"


COLD_START_NOTE = "stopped outside its hours, it starts cold each time: "


def cold_start_note(w: Workload, weights_gb: float | None) -> str | None:
    """What a scheduled service pays that an always-on one does not: a cold start at the start of its hours
    (instance boot, the weights loaded from storage, the server's warm-up), minutes for a large model."""
    if not scheduled_service(w) or w.pricing == "reserved":
        return None
    weights = f"{weights_gb:,.0f} GB of weights to load" if weights_gb else "the weights to load"
    return (f"{COLD_START_NOTE}instance boot, {weights} and the server's warm-up take minutes before the first reply: "
            "schedule the start ahead of the first user (or scale to zero with a warm-up request)")


RESERVED_PART_TIME_NOTE = "reserved for a part-time service: "


def reserved_part_time_note(w: Workload, option: TcoOption | None, offer: OfferRecord | None) -> str | None:
    """Reserved capacity for a service that runs some hours only pays all 730 h: what the same plan costs on-demand,
    stopped outside its hours, is the comparison that decides (45 h a week on-demand is ~27% of an always-on month)."""
    if not scheduled_service(w) or w.pricing != "reserved" or option is None or offer is None:
        return None
    compute = next((r for r in option.rows if r.item == "compute"), None)
    listed = compute.inputs.get("listed_usd_per_gpu_hour") if compute is not None else None
    on_demand = usd_per_gpu_hour(offer, "on_demand", None)[0]
    if compute is None or not isinstance(listed, int | float) or listed <= 0 or on_demand is None:
        return None
    rented = compute.usd + row_usd(option, "managed")
    part_time = rented * on_demand / listed * billed_service_hours_per_month(w.model_copy(update={"pricing": None})) \
        / HOURS_PER_MONTH
    if part_time >= rented:
        return None
    return (f"{RESERVED_PART_TIME_NOTE}it pays all {HOURS_PER_MONTH:.0f} h a month; the same plan on-demand, stopped "
            f"outside its {float(w.service_hours_per_week or 0):g} h a week, is ~${part_time:,.0f} a month of compute "
            f"against ${rented:,.0f} reserved: say “on-demand” to compare in full")


RESERVED_FILLED = 0.9  # runs that keep a reservation this busy are its price: nothing past the month's bill to say


@dataclass(frozen=True)
class ReservedCommitment:
    """What reserving GPUs for training runs commits to, beside what the runs use of it and the on-demand price of
    the same runs. `break_even` is the busy share from which reserving costs less than on demand: the reserved
    price over the on-demand one (1 - the discount: 70% at the 30% estimated), so runs that keep a reservation
    busy less than that are cheaper on demand."""

    gpus: int  # GPUs reserved: the plan's, times the sets its runs keep busy side by side
    usd_per_month: float  # paid all 730 h, busy or not
    runs: float
    hours_per_run: float
    busy: float  # share of the reserved hours the runs use
    break_even: float
    usd_per_run: float  # the commitment spread over the runs asked for
    on_demand_usd_per_run: float | None  # the same run at the offer's on-demand price (None: the offer has none)
    runs_to_break_even: int  # runs a month from which the GPUs reserved cost less than on demand

    @property
    def on_demand_cheaper(self) -> bool:
        return self.busy < self.break_even


def reserved_commitment(w: Workload, option: TcoOption | None, gpus: int,
                        hours_per_run: float | None) -> ReservedCommitment | None:
    """Reserved pricing for training runs that end within the month: the commitment a team signs (the plan's GPUs
    x 730 h at the reserved rate, per set of them the runs keep busy at once), the share of it the runs use and
    the on-demand price of a run. None for other pricing, serving, a run longer than a month (a commitment for its
    months) or a rate the option does not carry. Read from the option's compute row (`tco_options` records the
    on-demand rate beside the reserved one), so the engine's note and the answer's cost line say the same figures."""
    if w.pricing != "reserved" or (w.mode or "inference") == "inference" or option is None or gpus <= 0 \
            or not hours_per_run or hours_per_run > HOURS_PER_MONTH:
        return None
    compute = next((r for r in option.rows if r.item == "compute"), None)
    inputs = compute.inputs if compute is not None else {}
    rate = inputs.get("listed_usd_per_gpu_hour", inputs.get("usd_per_gpu_hour"))
    if not isinstance(rate, int | float) or rate <= 0:
        return None
    on_demand = inputs.get("on_demand_usd_per_gpu_hour")
    on_demand = float(on_demand) if isinstance(on_demand, int | float) and on_demand > 0 else None
    runs = float(w.runs_per_month or 1)
    busy_hours = runs * hours_per_run
    sets = max(1, math.ceil(busy_hours / HOURS_PER_MONTH - 1e-9))  # 40 runs of 63 h: 4 GPUs reserved, not 1
    committed = float(rate) * gpus * sets * HOURS_PER_MONTH
    break_even = min(1.0, float(rate) / on_demand) if on_demand else 1 - RESERVED_DISCOUNT_ASSUMED
    return ReservedCommitment(
        gpus=gpus * sets, usd_per_month=committed, runs=runs, hours_per_run=hours_per_run,
        busy=min(1.0, busy_hours / (sets * HOURS_PER_MONTH)), break_even=break_even, usd_per_run=committed / runs,
        on_demand_usd_per_run=on_demand * gpus * hours_per_run if on_demand else None,
        runs_to_break_even=max(1, math.ceil(break_even * sets * HOURS_PER_MONTH / hours_per_run - 1e-9)))


def reserved_training_note(w: Workload, option: TcoOption | None, offer: OfferRecord | None, gpus: int,
                           hours_per_run: float | None) -> str | None:
    """Reserved capacity for training runs that keep it busy part of the month: a 1-3 year commitment is paid for all
    730 h whether runs use them or not, so a $140 run "on reserved H100s" read as a price one can buy an 8.5 h run at.
    Says what the commitment costs a month and how much of it the runs use, and recommends on demand when the runs
    keep it busy less than the break-even share (None when they fill the month)."""
    if offer is None:
        return None
    commit = reserved_commitment(w, option, gpus, hours_per_run)
    if commit is None or commit.busy >= RESERVED_FILLED:
        return None
    runs = commit.runs
    run_od = (f"; on demand a run is ~${commit.on_demand_usd_per_run:,.0f}"
              if commit.on_demand_usd_per_run is not None else "")
    pays = f"reserving pays from {commit.break_even:.0%} busy (the reserved price is {commit.break_even:.0%} of on-demand)"
    if commit.on_demand_cheaper:
        verdict = f"{pays}: rent on demand, or reserve once {commit.runs_to_break_even:,} runs a month keep it that busy"
    else:
        verdict = f"{pays}: reserving is the cheaper at this use"
    these = "this GPU reserved is" if commit.gpus == 1 else f"these {commit.gpus} GPUs reserved are"
    used = "under 1%" if commit.busy < 0.005 else f"{commit.busy:.0%}"
    return (f"{RESERVED_PART_TIME_NOTE}a 1-3 year commitment is paid for all {HOURS_PER_MONTH:.0f} h a month, busy or "
            f"not: {these} ~${commit.usd_per_month:,.0f} a month, and {runs:g} run{'' if runs == 1 else 's'} of "
            f"{commit.hours_per_run:,.1f} h {'uses' if runs == 1 else 'use'} {used} of it{run_od}; {verdict}")


def monthly_gpu_hours(gpu_hours_per_run: float, runs: float, billed_gpus: int | None, wall_hours: float | None) -> float:
    """GPU-hours billed in one month. A run that lasts longer than a month is billed month by month: at
    most the rented GPUs x 730 h (per concurrent run), never the whole job in one month."""
    if billed_gpus and wall_hours and wall_hours > HOURS_PER_MONTH:
        return billed_gpus * HOURS_PER_MONTH * max(1.0, runs)
    return max(0.0, gpu_hours_per_run) * runs


def tco_options(
    w: Workload,
    *,
    name: str,
    offer: OfferRecord | None,
    provider: ProviderRecord | None,
    gpu_hours_per_run: float,
    usd_per_gpu_hr: float,
    rate_source: str,
    storage_gb: Figure,
    egress: dict[str, Any],
    billed_gpus: int | None = None,
    wall_hours: float | None = None,
    tokens_per_run: float | None = None,
    shared: dict[tuple[object, ...], TcoRow] | None = None,
) -> tuple[TcoOption, ...]:
    """The four rows for each applicable workflow of one option (see module docstring). A job longer
    than a month is billed per month (GPUs x 730 h) and its whole cost is `job_usd`.

    `shared`: the storage and egress rows already made for other options of one search, by what they read (the
    storage figure, the provider, the egress table and the runs): the catalog search builds dozens of options whose
    rows are the same frozen objects, so each is made once. Its keys hold `id()`s of `storage_gb` and `egress`: the
    caller keeps one dict per search, while those objects are alive."""
    runs = float(w.runs_per_month or 1.0)
    gpu_hours_month = monthly_gpu_hours(gpu_hours_per_run, runs, billed_gpus, wall_hours)
    long_job = gpu_hours_month < max(0.0, gpu_hours_per_run) * runs - 1e-6
    # a service's run is its fleet's month (730 h per billed GPU): one kept only to its hours is billed for those
    # (computed from the billed GPUs, so a caller that already passes the scheduled hours is not scaled twice)
    schedule = scheduled_service(w) and w.pricing != "reserved"
    if schedule:
        hours = billed_service_hours_per_month(w)
        gpu_hours_month = (billed_gpus * hours if billed_gpus
                           else max(0.0, gpu_hours_per_run) * runs * hours / HOURS_PER_MONTH)
        long_job = False
    base_factor, fraction, fraction_source = managed_split(w, offer, provider)
    base_rate = usd_per_gpu_hr * base_factor
    compute_usd = gpu_hours_month * base_rate
    compute = _row(
        "compute",
        compute_usd,
        ("billed GPUs x 730 h x usd_per_gpu_hour (a job longer than a month, billed month by month)" if long_job
         else "billed GPUs x service_hours_per_week x 365/12/7 weeks a month x usd_per_gpu_hour (stopped outside its "
              "hours)" if schedule
         else "gpu_hours_per_run x runs_per_month x usd_per_gpu_hour")
        + (" (self-managed equivalent = listed / (1 + premium))" if base_factor != 1.0 else ""),
        {"gpu_hours_per_run": gpu_hours_per_run, "runs_per_month": runs, "usd_per_gpu_hour": base_rate,
         "listed_usd_per_gpu_hour": usd_per_gpu_hr, "rate": rate_source,
         # reserved: the same offer on demand, which a reservation the runs keep part-busy is weighed against
         **({"on_demand_usd_per_gpu_hour": od} if w.pricing == "reserved" and offer is not None
            and (od := usd_per_gpu_hour(offer, "on_demand", None)[0]) else {}),
         **({"service_hours_per_week": w.service_hours_per_week, "gpu_hours_per_month": round(gpu_hours_month, 3)}
            if schedule else {})},
    )
    storage_key = ("storage", id(storage_gb), provider.id if provider is not None else None, w.storage_usd_per_month)
    known = shared.get(storage_key) if shared is not None else None
    if known is not None:
        storage = known
    elif w.storage_usd_per_month is not None:
        storage = _row("storage", w.storage_usd_per_month, "your fixed storage bill per month", {"usd_per_month": w.storage_usd_per_month})
    else:
        rate = provider.storage_usd_per_gb_month if provider is not None else 0.0
        product = provider.storage_product if provider is not None else "unknown storage"
        storage = _row(
            "storage",
            storage_gb.value * rate,
            "storage_gb x usd_per_gb_month",
            {"storage_gb": storage_gb.value, "usd_per_gb_month": rate, "product": product, **storage_gb.inputs},
        )
    if shared is not None:
        shared[storage_key] = storage
    managed_key = ("managed", repr(fraction), fraction_source)  # repr: -0.0 is not 0.0 in the JSON
    unmanaged = fraction == 0.0 and shared is not None  # no premium: the same zero row for every self-managed option
    known_managed = shared.get(managed_key) if unmanaged and shared is not None else None
    if known_managed is not None:
        managed = known_managed
    else:
        managed = _row("managed", compute_usd * fraction, "compute x managed premium fraction", {"fraction": fraction, "source": fraction_source})
        if unmanaged and shared is not None:
            shared[managed_key] = managed
    options: list[TcoOption] = []
    for flow in workflows_for(w, egress):
        egress_key = ("egress", id(egress), flow, runs)
        found = shared.get(egress_key) if shared is not None else None
        if found is None:
            found = _egress_row(egress, flow, runs)
            if shared is not None:
                shared[egress_key] = found
        egress_row = found
        rows = (compute, storage, egress_row, managed)
        label = {"cached": " - data cached", "uncached": " - pull every run", "same_cloud": "", "none": ""}[flow]
        options.append(
            TcoOption(
                name=name + label,
                offer_id=offer.id if offer is not None else None,
                provider=provider.id if provider is not None else (offer.provider if offer is not None else "quote"),
                rows=rows,
                total_usd=sum(r.usd for r in rows),
                workflow=flow,
                prices_observed_on=offer.observed_on if offer is not None else None,
                usd_per_1b_tokens=(gpu_hours_per_run * base_rate * (1 + fraction) / tokens_per_run * 1e9
                                   if tokens_per_run else None),
                per_run_usd=(compute.usd + managed.usd + (egress_row.usd if flow == "uncached" else 0.0)) / runs
                if runs > 0 and not long_job else None,
                job_usd=(gpu_hours_per_run * base_rate * (1 + fraction) + storage.usd * wall_hours / HOURS_PER_MONTH
                         + egress_row.usd) if long_job and wall_hours else None,
                notes=tuple(egress.get("notes", ())) + storage_gb.notes,
            )
        )
    return tuple(options)


def _egress_row(egress: dict[str, Any], flow: Workflow, runs: float) -> TcoRow:
    """One workflow's egress row: what `tco_options` reads of the egress table for it."""
    fig: Figure = egress["uncached"] if flow == "uncached" else egress["cached"]
    if flow == "same_cloud":
        formula = "0: same cloud as the data"
    elif flow == "none":
        formula = "0: no egress (data location unknown or no dataset)"
        fig = Figure(value=0.0, unit="USD", formula=formula)
    elif flow == "cached":
        formula = "one pull a month, cached on the provider: " + fig.formula
    else:
        formula = f"{egress.get('pulls_per_month', runs):g} pulls a month: " + fig.formula
    return _row("egress", fig.value, formula, {**fig.inputs, "basis": egress.get("basis")})


def row_usd(option: TcoOption, item: str) -> float:
    """The USD of one row (0 when absent)."""
    return next((r.usd for r in option.rows if r.item == item), 0.0)
