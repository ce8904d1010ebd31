"""Storage and transfer answers: a checkpoint's size, what keeping checkpoints costs, what moving data out costs.

The parser reads such a message as intent "storage" (`parser.storage.StorageAsk`); `engine.checkpoints` does the
arithmetic on catalog records; this module words it. The answer is short: the figure asked for first, then what it
is made of, then the assumptions the user can change in the thread ("keep 3 checkpoints", "on GCS", "for 6 months").
Every figure's formula with its numbers is the details layer (`ask --details`, the small print of the Slack
message), and `ask --json` carries it under "storage" (docs/json.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.formatting import fmt_usd
from bot.limits import Message, fit_message
from catalog.records import CatalogData, ProviderRecord
from engine.checkpoints import (
    KEEP_LAST,
    CheckpointSize,
    architecture_of,
    checkpoint_size,
    kept_window,
    published_weights,
    resumable_equivalent,
    storage_cost,
    streamed_transfer_cost,
    transfer_cost,
    transfer_time,
)
from engine.egress import tier_table_text
from engine.models import Figure
from parser.storage import StorageAsk

DEFAULT_STORE = "aws"  # S3 Standard when no store is named: the most common place checkpoints are kept
_STORES = {"aws": "S3", "gcp": "GCS", "azure": "Azure Blob"}  # object stores as people name them
_METHODS = {"full": "full fine-tune", "pretrain": "pre-training run", "lora": "LoRA run", "qlora": "QLoRA run"}
_LABELS = {"bf16": "BF16", "fp16": "FP16", "fp32": "FP32", "fp8": "FP8", "int8": "INT8", "int4": "INT4", "nf4": "NF4",
           "mxfp4": "MXFP4"}
LINKS_GBPS = (1.0, 10.0, 100.0)  # the links a time is given for when none is said
SLOWER_LINK_SHARE = 0.7  # a share of the line rate the answer also times (one TCP stream over a long path gets less)
_OPTIMIZERS = {"adamw": "Adam", "adamw_8bit": "8-bit Adam", "paged_adamw_8bit": "paged 8-bit Adam", "sgd": "SGD"}


@dataclass(frozen=True)
class StorageAnswer:
    """Context of `storage.txt.j2` / `storage.json.j2` and the "storage" key of `ask --json`."""

    ask: StorageAsk
    headline: str  # the figure asked for, in one sentence
    lines: list[str]  # what it is made of, and the usual alternative
    assumptions: str  # what was assumed, and how to change it in the thread
    formulas: list[str] = field(default_factory=list)  # the details layer: each figure's formula with its numbers
    sources: list[str] = field(default_factory=list)
    contract: dict[str, Any] = field(default_factory=dict)


def build_storage_answer(ask: StorageAsk, data: CatalogData, names: dict[str, str] | None = None) -> StorageAnswer:
    """The answer to `ask` from the catalog's models and providers."""
    providers = {p.id: p for p in data.providers}
    if ask.question in ("transfer", "time"):
        size = _checkpoint(ask, data) if ask.checkpoint is not None and not ask.size_gb else None
        if size is None and not ask.size_gb:
            return StorageAnswer(ask=ask, headline="Which model, or how many GB? (e.g. “Llama 3.1 70B checkpoint”, “5 TB”)",
                                 lines=[], assumptions="", contract={"question": ask.question})
        if ask.question == "time":
            return _time(ask, size, providers, data)
        return _transfer(ask, size, providers, data)
    size = _checkpoint(ask, data) if ask.checkpoint is not None else None
    if size is None and not ask.size_gb:
        return StorageAnswer(ask=ask, headline="Which model, or how many GB? (e.g. “Llama 3.1 70B checkpoint”, “5 TB”)",
                             lines=[], assumptions="", contract={"question": ask.question})
    if ask.question == "size" and size is not None:
        return _size(ask, size, data)
    return _storage(ask, size, providers, data)


# --- sizes --------------------------------------------------------------------------------------------
def _checkpoint(ask: StorageAsk, data: CatalogData) -> CheckpointSize | None:
    model = data.model(ask.model) if ask.model else None
    if model is None and not ask.params_b:
        return None
    arch = architecture_of(model, ask.params_b, data.models)
    assert ask.checkpoint is not None
    precision = ask.precision
    if precision is None and ask.checkpoint == "weights" and model is not None:
        precision = model.native_precision  # as published: DeepSeek-V3's FP8, gpt-oss's MXFP4, most models' BF16
    size = checkpoint_size(arch, ask.checkpoint, precision=precision, optimizer=ask.optimizer,
                           lora_rank=ask.lora_rank, quantized_base=ask.mode == "qlora")
    name = model.name if model is not None else f"{ask.params_b:g}B"
    return size.model_copy(update={"model_name": name})


def _what(ask: StorageAsk, size: CheckpointSize) -> str:
    """'Llama 3.1 70B checkpoint', 'checkpoint of a 70B full fine-tune', 'LoRA adapter for Llama 3.1 70B at rank 16'."""
    if size.kind == "adapter":
        method = "QLoRA" if ask.mode == "qlora" else "LoRA"
        return f"{method} adapter for {size.model_name} at rank {size.lora_rank}"
    if ask.mode in _METHODS:
        return f"checkpoint of {_article(size.model_name)} {size.model_name} {_METHODS[ask.mode]}"
    return f"{size.model_name} checkpoint"


def _size_words(size: CheckpointSize) -> str:
    """'980 GB resumable (70B params × 14 bytes: BF16 weights 140 GB + FP32 master copy 280 GB + Adam m and v 560 GB)'."""
    parts = " + ".join(f"{name} {_gb(gb)}" for name, gb in size.parts.items())
    if size.kind == "weights":
        return f"{_gb(size.gb.value)} ({_weights_formula(size)})"
    what = "adapter params" if size.kind == "adapter" else "params"
    return f"{_gb(size.gb.value)} ({_params(size.params)} {what} × {size.bytes_per_param:g} bytes: {parts})"


def _weights_formula(size: CheckpointSize) -> str:
    """'70.55B params × 2 bytes'; a quantised checkpoint by its parts: '68.4B params in linear layers × 1 byte +
    2.1B in BF16 embeddings and norms × 2 bytes'."""
    inputs = size.gb.inputs
    if "quantised_params" not in inputs:
        return f"{_params(size.params)} params × {size.bytes_per_param:g} bytes"
    quantised, rest = inputs["quantised_params"], inputs["bf16_params"]
    per = float(inputs["bytes_per_quantised_param"])
    names = list(size.parts)
    what = names[0].split(" ", 1)[1]
    bytes_words = "1 byte" if per == 1 else f"{per:.3g} bytes with scales"
    return (f"{_params(quantised)} params in {what} × {bytes_words} + {_params(rest)} in "
            f"{names[1].split(' ', 1)[1]} × 2 bytes")


def _label(precision: str) -> str:
    return _LABELS.get(precision, precision.upper())


def _published(ask: StorageAsk, size: CheckpointSize) -> bool:
    """Sized in a format the model is released in other than BF16, with none said (DeepSeek-V3's FP8)."""
    return size.kind == "weights" and ask.precision is None and size.precision not in ("bf16", "fp16", "fp32")


def _resume_words(size: CheckpointSize, resumable: CheckpointSize) -> str:
    """The resumable checkpoint's parts, which add up to its total: 'the weights plus an FP32 master copy (282 GB) and
    Adam's m and v (564 GB), 14 bytes per param'; weights in another precision are named with their size."""
    words: list[str] = []
    for name, gb in resumable.parts.items():
        if name.endswith(" weights"):
            words.append("the weights" if size.precision in ("bf16", "fp16")
                         else f"the {name} ({_gb(gb)})")
        elif name == "FP32 master copy":
            words.append(f"an FP32 master copy ({_gb(gb)})")
        else:  # "Adam m and v (FP32)" -> "Adam's m and v"
            moments = name.replace(" (FP32)", "").replace("Adam m", "Adam's m")
            words.append(f"{moments} ({_gb(gb)})")
    joined = words[0] + (" plus " + " and ".join(words[1:]) if len(words) > 1 else "")
    per = f", {resumable.bytes_per_param:g} bytes per param" if float(resumable.bytes_per_param).is_integer() else ""
    return f"To resume training it is {_gb(resumable.gb.value)}: {joined}{per}."


def _size(ask: StorageAsk, size: CheckpointSize, data: CatalogData) -> StorageAnswer:
    model = data.model(ask.model) if ask.model else None
    arch = architecture_of(model, ask.params_b, data.models)
    lines: list[str] = []
    if size.kind == "weights":
        resumable = resumable_equivalent(size, arch)
        published = ", as published" if _published(ask, size) else ""
        headline = (f"{_what(ask, size)}: {_gb(size.gb.value)} of {_label(size.precision)} weights{published} "
                    f"({_weights_formula(size)}).")
        figures = {"weights_gb": size.gb, "resumable_gb": resumable.gb}
        if published:
            bf16, _ = published_weights(arch, "bf16")
            lines.append(f"Cast to BF16 (as fine-tuning loads it): {_gb(bf16.value)}.")
            figures["bf16_weights_gb"] = bf16
        lines.append(_resume_words(size, resumable))
    elif size.kind == "training":
        optimizer = _OPTIMIZERS.get(size.optimizer or "adamw", "Adam")
        headline = f"{_cap(_what(ask, size))}, resumable with {optimizer}: {_gb(size.gb.value)}."
        lines.append(f"= {_size_words(size).split('(', 1)[1].rstrip(')')}.")
        lines.append(f"Weights alone (to evaluate, release or serve): {_gb(size.weights_gb.value)}.")
        figures = {"checkpoint_gb": size.gb, "weights_gb": size.weights_gb}
    else:
        headline = (f"{_what(ask, size)}: {_gb(size.weights_gb.value)} ({_params(size.params)} params in FP32); "
                    f"{_gb(size.gb.value)} with its optimizer state, to resume.")
        lines.append(f"= rank {size.lora_rank} × (d_in + d_out) on q, k, v, o, gate, up and down in {arch.layers} layers; "
                     f"the frozen {_gb(arch.total_params * 2 / 1e9)} base is not saved again.")
        lines.append(f"Saved in BF16 for serving (vLLM loads it beside the base): {_gb(size.weights_gb.value / 2)}.")
        figures = {"adapter_gb": size.weights_gb, "resumable_gb": size.gb}
    assumptions = _assumptions(ask, size, None)
    return _answer(ask, headline, lines, assumptions, figures, size, None, data)


# --- storage ------------------------------------------------------------------------------------------
def _storage(ask: StorageAsk, size: CheckpointSize | None, providers: dict[str, ProviderRecord],
             data: CatalogData) -> StorageAnswer:
    store = providers.get(ask.provider or DEFAULT_STORE) or providers[DEFAULT_STORE]
    volume = bool(ask.size_gb)  # "5 TB of checkpoints": the volume said is what is kept
    count = 1 if volume else ask.count or 1
    months = ask.months or 1.0
    each = float(ask.size_gb or 0.0) if volume or size is None else size.gb.value
    total_gb = each * count
    monthly = storage_cost(each, count, 1.0, store)
    whole = storage_cost(each, count, months, store)
    product = _product(store)
    if volume or size is None:
        what = _gb(total_gb)
    elif size.kind != "adapter" and ask.mode in _METHODS:
        noun = "checkpoint" if count == 1 else "checkpoints"
        what = f"{count} {noun} of {_article(size.model_name)} {size.model_name} {_METHODS[ask.mode]}"
    else:
        what = f"{count} × {_what(ask, size)}" if count > 1 else _what(ask, size)
    size_said = "" if volume or size is None else f"{_gb(total_gb)}, "
    if ask.months and months != 1:
        headline = (f"{_cap(what)} on {product} for {_months(months)}: {size_said}{fmt_usd(whole.value)} "
                    f"({fmt_usd(monthly.value)} a month).")
    else:
        headline = f"{_cap(what)} on {product}: {size_said}{fmt_usd(monthly.value)} a month."
    lines: list[str] = []
    if size is not None and not volume:
        if size.kind == "weights":
            model = data.model(ask.model) if ask.model else None
            resumable = resumable_equivalent(size, architecture_of(model, ask.params_b, data.models))
            lines.append(f"Each: {_size_words(size)}, weights only; a resumable training checkpoint is "
                         f"{_gb(resumable.gb.value)}.")
        else:
            words = _size_words(size)
            if size.kind == "training":
                words = words.replace(" (", " resumable (", 1)
            lines.append(f"Each: {words}"
                         + (f"; weights alone {_gb(size.weights_gb.value)}." if size.kind == "training" else "."))
    months_said = f" × {months:g} months" if ask.months and months != 1 else ""
    lines.append(f"= {_num(total_gb)} GB × ${store.storage_usd_per_gb_month:g}/GB-month{months_said} "
                 f"= {fmt_usd(whole.value)}; {store.storage_product}.")
    window = kept_window(size, count) if size is not None and not volume else None
    figures: dict[str, Figure] = {} if size is None or volume else {"checkpoint_gb": size.gb}
    figures.update(total_gb=_total(each, count), usd_per_month=monthly)
    if ask.months and months != 1:
        figures["usd_total"] = whole
    if size is not None and not volume and size.kind == "adapter" and count > 1:
        # adapters kept to be served (one per customer) need the weights alone, not the optimizer state to resume
        served_gb = size.weights_gb.value * count
        lines.append(f"Adapter weights alone (what vLLM loads; no optimizer state to resume): {_gb(served_gb)}, "
                     f"{fmt_usd(served_gb * store.storage_usd_per_gb_month)} a month.")
        figures["adapter_weights_gb"] = _total(size.weights_gb.value, count)
    if window is not None:
        kept_usd = window.value * store.storage_usd_per_gb_month
        lines.append(f"Keeping only the last {KEEP_LAST} resumable and weights alone for the other {count - KEEP_LAST} "
                     f"(the usual practice: a run resumes from its latest): {_gb(window.value)}, "
                     f"{fmt_usd(kept_usd)} a month.")
        figures["kept_window_gb"] = window
    assumptions = _assumptions(ask, size, store)
    return _answer(ask, headline, lines, assumptions, figures, size, store, data, total_gb=total_gb,
                   monthly=monthly.value, whole=whole.value, count=count, months=months)


# --- transfer -----------------------------------------------------------------------------------------
def _moved(ask: StorageAsk, size: CheckpointSize | None, volume: float) -> str:
    """'2 TB', 'the Llama 3.1 70B checkpoint (141 GB)'."""
    if size is None:
        return _gb(volume)
    return f"the {_what(ask, size)} ({_gb(volume)})"


def _transfer(ask: StorageAsk, size: CheckpointSize | None, providers: dict[str, ProviderRecord],
              data: CatalogData) -> StorageAnswer:
    source = providers.get(ask.provider or DEFAULT_STORE) or providers[DEFAULT_STORE]
    destination = providers.get(ask.destination or "")
    volume = float(ask.size_gb or 0.0) if ask.size_gb or size is None else size.gb.value
    fig = transfer_cost(volume, source, destination)
    where = f"from {_STORES.get(source.id, source.name)}" + (f" to {_place_name(destination)}" if destination else "")
    moved = _moved(ask, size, volume)
    lines: list[str] = []
    cloud = source.name.split(" (")[0]
    if fig.formula.startswith("0:"):
        headline = f"Moving {moved} {where}: $0, both are in {cloud} (no internet egress)."
        lines.append("Free within one region; between regions of the same cloud it is billed per GB (not counted here).")
    else:
        out = "" if destination else " to the internet"
        headline = (f"Moving {moved} {where}{out}: {fmt_usd(fig.value)} of {cloud} internet egress." if fig.value
                    else f"Moving {moved} {where}{out}: $0, {cloud} charges no egress.")
        slices = [s for s in fig.inputs.get("tiers", []) if s["gb"]]
        if slices and any(s["usd_per_gb"] for s in slices):
            sums = " + ".join(f"{s['gb']:,.0f} GB × ${s['usd_per_gb']:g}/GB" for s in slices if s["usd_per_gb"])
            free = sum(s["gb"] for s in slices if not s["usd_per_gb"])
            lines.append(f"= {sums}" + (f" (the first {free:,.0f} GB a month are free)." if free else "."))
        first = source.egress_tiers[0] if source.egress_tiers else None
        if first is not None and first.usd_per_gb == 0 and first.up_to_gb and volume > first.up_to_gb:
            rate = source.egress_tiers[1].usd_per_gb if len(source.egress_tiers) > 1 else 0.0
            lines.append(f"The free {first.up_to_gb:,.0f} GB a month is per account across all services: if other "
                         f"traffic uses it, {fmt_usd(fig.value + first.up_to_gb * rate)}.")
    figures: dict[str, Figure] = {"transfer_usd": fig}
    if (ask.runs or ask.training) and not fig.formula.startswith("0:"):
        headline = _runs_words(ask, headline, lines, figures, volume, source, destination)
    if fig.value and not fig.formula.startswith("0:"):
        lines.append(f"Tiers: {cloud} internet egress a month, {tier_table_text(source.egress_tiers)} "
                     f"({source.source.split(';')[0].strip()}, read {source.observed_on}).")
    if ask.link_gbps:
        took = transfer_time(volume, ask.link_gbps)
        lines.append(f"Over {_link(ask)}: {_duration(took.value)} at the full line rate.")
        figures["transfer_seconds"] = took
    said_from = "" if ask.provider else f"{_STORES.get(source.id, source.name)} as the source (none said), "
    hints = [f"{'“from S3”' if source.id == 'gcp' else '“from GCS”'}", "“to RunPod”", "“5 TB”"]
    if ask.runs or ask.training:
        hints.insert(0, f"“{int(ask.runs or 1) * 2} runs”")
    if not ask.link_gbps:
        hints.append("“how long at 10 Gbps?”")
    assumptions = (f"Assumes {said_from}{'out to the internet (no destination said), ' if destination is None else ''}"
                   f"{_size_said(ask, size)}{_runs_said(ask)}one month's transfer, decimal GB (1 TB = 1,000 GB) "
                   "(reply to change: "
                   f"{', '.join(hints)})")
    sources = [f"{source.name}: {source.source} (observed {source.observed_on})"]
    contract: dict[str, Any] = {
        "question": "transfer", "volume_gb": volume, "source": source.id, "runs": ask.runs,
        "streamed_usd": round(figures["streamed_usd"].value, 2) if "streamed_usd" in figures else None,
        "cached_copy_usd_per_month": (round(figures["cached_copy_usd_per_month"].value, 2)
                                      if "cached_copy_usd_per_month" in figures else None),
        "destination": destination.id if destination else None, "usd": round(fig.value, 2),
        "same_cloud": fig.formula.startswith("0:"), "formulas": {k: _figure_json(f) for k, f in figures.items()},
        "sources": sources}
    if ask.link_gbps:
        contract.update(link_gbps=ask.link_gbps, seconds=round(figures["transfer_seconds"].value, 1))
    _checkpoint_contract(contract, ask, size)
    formulas = [_formula(k, f) for k, f in figures.items()]
    formulas.append(f"{source.name} internet egress tiers a month: {fig.inputs.get('tier_table')}")
    return StorageAnswer(ask=ask, headline=headline, lines=lines, assumptions=assumptions, formulas=formulas,
                         sources=sources, contract=contract)


def _runs_said(ask: StorageAsk) -> str:
    """'the 10 runs in one month (its tiers), ': what the streamed bill assumes."""
    return f"the {ask.runs:g} runs in one month (the tiers count a month's total), " if ask.runs and ask.runs > 1 else ""


def _runs_words(ask: StorageAsk, headline: str, lines: list[str], figures: dict[str, Figure], volume: float,
               source: ProviderRecord, destination: ProviderRecord | None) -> str:
    """Training data moved to another cloud: paid once when the runs read a copy kept where the GPUs are, once per
    run when each streams it from the source. Adds the streamed bill and the copy's storage; returns the headline."""
    store = _STORES.get(source.id, source.name)
    there = _place_name(destination) if destination else "the GPUs' cloud"
    once = figures["transfer_usd"].value
    if ask.runs and ask.runs > 1:
        streamed = streamed_transfer_cost(volume, ask.runs, source, destination)
        figures["streamed_usd"] = streamed
        headline = (f"{headline.rstrip('.')} once, if you copy it to {there} and train from the copy; "
                    f"{fmt_usd(streamed.value)} a month if each of the {ask.runs:g} runs streams it from {store}.")
        slices = [x for x in streamed.inputs.get("tiers", []) if x["gb"] and x["usd_per_gb"]]
        lines.append(f"Streamed: {_gb(volume * ask.runs)} a month = "
                     + " + ".join(f"{x['gb']:,.0f} GB × ${x['usd_per_gb']:g}/GB" for x in slices)
                     + " (the tiers count a month's total).")
    else:
        lines.append(f"That is once, if the runs read a copy kept on {there}; a run that streams it from {store} "
                     f"instead pays it again ({fmt_usd(once)} each).")
    if destination is not None and destination.storage_usd_per_gb_month:
        kept = storage_cost(volume, 1, 1.0, destination)
        figures["cached_copy_usd_per_month"] = kept
        lines.append(f"Keeping the copy on {_product(destination)}: {fmt_usd(kept.value)} a month "
                     f"(${destination.storage_usd_per_gb_month:g}/GB-month), while the runs last.")
    return headline


# --- transfer time --------------------------------------------------------------------------------------
def _time(ask: StorageAsk, size: CheckpointSize | None, providers: dict[str, ProviderRecord],
          data: CatalogData) -> StorageAnswer:
    """How long a move takes: bytes x 8 / the link's bits a second, at its full line rate (a floor), and at
    `SLOWER_LINK_SHARE` of it; the egress bill beside it when the data leaves a cloud that was named."""
    volume = float(ask.size_gb or 0.0) if ask.size_gb or size is None else size.gb.value
    moved = _cap(_moved(ask, size, volume))
    lines: list[str] = []
    figures: dict[str, Figure] = {}
    if ask.link_gbps:
        took = transfer_time(volume, ask.link_gbps)
        slower = transfer_time(volume, ask.link_gbps, SLOWER_LINK_SHARE)
        headline = f"{moved} over {_link(ask)}: {_duration(took.value)} at the full line rate."
        lines.append(f"= {_num(volume)} GB × 8 bits / {ask.link_gbps:g} Gbps = {_num(took.value)} s.")
        lines.append(f"Transfers rarely hold the full rate (TCP/TLS framing, one stream over a long path): at "
                     f"{SLOWER_LINK_SHARE:.0%} of it, {_duration(slower.value)}; parallel streams (hf_transfer, s5cmd, "
                     "rclone --transfers) come closest.")
        figures.update(transfer_seconds=took, transfer_seconds_slower=slower)
    else:
        times = [(rate, transfer_time(volume, rate)) for rate in LINKS_GBPS]
        headline = (f"{moved}: " + ", ".join(f"{_duration(t.value)} at {rate:g} Gbps" for rate, t in times)
                    + ", at the full line rate.")
        lines.append(f"= {_num(volume)} GB × 8 bits / the link's Gbps; transfers rarely hold the full rate (TCP/TLS "
                     "framing, one stream over a long path), parallel streams come closest.")
        figures.update({f"transfer_seconds_{rate:g}gbps": t for rate, t in times})
    source = providers.get(ask.provider or "")
    usd: float | None = None
    if source is not None:  # the data leaves a cloud that was named: its egress bill too
        destination = providers.get(ask.destination or "")
        bill = transfer_cost(volume, source, destination)
        usd = bill.value
        cloud = source.name.split(" (")[0]
        where = f"out of {_STORES.get(source.id, source.name)}" + (f" to {_place_name(destination)}" if destination else "")
        lines.append(f"Moving it {where} costs {fmt_usd(bill.value)} of {cloud} egress" + (
            " (same cloud)." if bill.formula.startswith("0:") else "."))
        figures["transfer_usd"] = bill
    hints = ["“at 10 Gbps”" if ask.link_gbps != 10 else "“at 1 Gbps”"]
    if size is not None and size.kind == "weights":
        hints.append("“in BF16”" if size.precision != "bf16" else "“in FP8”")
    hints.append("“from GCS”" if source is None or source.id != "gcp" else "“from S3”")
    link = "" if ask.link_gbps else "no link said, "
    assumptions = (f"Assumes {link}the full line rate (a floor), {_size_said(ask, size)}decimal GB, 8 bits a byte "
                   f"(reply to change: {', '.join(hints)})")
    contract: dict[str, Any] = {"question": "time", "volume_gb": round(volume, 3), "link_gbps": ask.link_gbps,
                                "seconds": round(figures["transfer_seconds"].value, 1) if ask.link_gbps else None,
                                "source": ask.provider, "destination": ask.destination,
                                "usd": round(usd, 2) if usd is not None else None,
                                "formulas": {k: _figure_json(f) for k, f in figures.items()}, "sources": []}
    _checkpoint_contract(contract, ask, size)
    return StorageAnswer(ask=ask, headline=headline, lines=lines, assumptions=assumptions,
                         formulas=[_formula(k, f) for k, f in figures.items()], sources=[], contract=contract)


def _link(ask: StorageAsk) -> str:
    """'10 Gbps', '1 GB/s (8 Gbps)'."""
    rate = f"{ask.link_gbps:g} Gbps"
    return f"{ask.link_said} ({rate})" if ask.link_said else rate


def _duration(seconds: float) -> str:
    """'45 s', '11 min', '1.8 hours', '2.3 days'."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    hours = seconds / 3600
    return f"{hours:.1f} hours" if hours < 48 else f"{hours / 24:.1f} days"


def _size_said(ask: StorageAsk, size: CheckpointSize | None) -> str:
    """'BF16 weights as published, ', 'FP8 as published, ' for a model's weights moved; '' for a volume said."""
    if size is None or size.kind != "weights" or ask.precision:
        return ""
    return f"{_label(size.precision)} weights as published, "


def _checkpoint_contract(contract: dict[str, Any], ask: StorageAsk, size: CheckpointSize | None) -> None:
    if size is not None:
        contract["checkpoint"] = {
            "kind": size.kind, "model": ask.model, "model_name": size.model_name, "params": size.params,
            "gb": round(size.gb.value, 3), "precision": size.precision,
            "as_published": size.kind == "weights" and ask.precision is None}


# --- shared ---------------------------------------------------------------------------------------------
def _assumptions(ask: StorageAsk, size: CheckpointSize | None, store: ProviderRecord | None) -> str:
    bits: list[str] = []
    hints: list[str] = []
    if size is not None and size.kind == "training":
        bits.append(f"mixed-precision {_OPTIMIZERS.get(size.optimizer or 'adamw', 'Adam')} as DeepSpeed, Megatron and "
                    "PyTorch DCP save it (gradients are not saved)")
    if size is not None and size.kind == "adapter":
        bits.append(f"rank {size.lora_rank} on every linear projection" + ("" if ask.lora_rank else " (none said)")
                    + f", FP32 adapter as PEFT keeps it, {_OPTIMIZERS.get(size.optimizer or 'adamw', 'Adam')} state")
        hints.append("“rank 64”")
    if size is not None and size.kind == "weights" and not ask.precision:
        bits.append(f"{_label(size.precision)} as published")
        hints.append("“in BF16”" if size.precision != "bf16" else "“in FP8”")
    if store is not None:
        if not ask.provider:
            bits.append(f"{_product(store)} (no store named)")
        if not ask.count and not ask.size_gb:
            bits.append("1 copy")
        if not ask.months:
            bits.append("1 month")
        if not ask.size_gb:
            hints.append("“keep 3 checkpoints”")
        hints += ["“on S3”" if store.id == "gcp" else "“on GCS”", "“for a year”" if ask.months else "“for 6 months”"]
    else:
        hints += ["“on S3 for 6 months”"]
    bits.append("decimal GB")
    return "Assumes " + ", ".join(bits) + " (reply to change: " + ", ".join(dict.fromkeys(hints)) + ")"


def _answer(ask: StorageAsk, headline: str, lines: list[str], assumptions: str, figures: dict[str, Figure],
            size: CheckpointSize | None, store: ProviderRecord | None, data: CatalogData, **totals: Any) -> StorageAnswer:
    sources: list[str] = []
    model = data.model(ask.model) if ask.model else None
    if model is not None:
        sources.append(f"{model.name}: {model.source} (observed {model.observed_on})")
    if store is not None:
        sources.append(f"{store.storage_product}, ${store.storage_usd_per_gb_month:g}/GB-month: {store.source} "
                       f"(observed {store.observed_on})")
    contract: dict[str, Any] = {"question": ask.question}
    if size is not None:
        contract["checkpoint"] = {
            "kind": size.kind, "model": ask.model, "model_name": size.model_name, "params": size.params,
            "model_params": size.model_params, "bytes_per_param": size.bytes_per_param, "gb": round(size.gb.value, 3),
            "weights_gb": round(size.weights_gb.value, 3), "parts_gb": {k: round(v, 3) for k, v in size.parts.items()},
            "precision": size.precision, "optimizer": size.optimizer, "lora_rank": size.lora_rank,
            "as_published": size.kind == "weights" and ask.precision is None}
    if store is not None:
        contract.update(provider=store.id, product=store.storage_product,
                        usd_per_gb_month=store.storage_usd_per_gb_month, count=totals.get("count"),
                        months=totals.get("months"), total_gb=round(float(totals.get("total_gb") or 0.0), 3),
                        usd_per_month=round(float(totals.get("monthly") or 0.0), 2),
                        usd_total=round(float(totals.get("whole") or 0.0), 2))
    contract["formulas"] = {name: _figure_json(fig) for name, fig in figures.items()}
    contract["sources"] = sources
    return StorageAnswer(ask=ask, headline=headline, lines=lines, assumptions=assumptions,
                         formulas=[_formula(name, fig) for name, fig in figures.items()], sources=sources,
                         contract=contract)


def _total(each: float, count: int) -> Figure:
    return Figure(value=each * count, unit="GB", formula="size_gb x count", inputs={"size_gb": each, "count": count})


def _formula(name: str, fig: Figure) -> str:
    """'usd_per_month = size_gb x count x months x usd_per_gb_month = 980 x 10 x 1 x 0.023 = 225.4 USD'."""
    shown = {k: v for k, v in fig.inputs.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    numbers = ", ".join(f"{k} {_num(v)}" for k, v in shown.items())
    return f"{name} = {fig.formula} ({numbers}) = {_num(fig.value)} {fig.unit}"


def _figure_json(fig: Figure) -> dict[str, Any]:
    return {"value": round(fig.value, 4), "unit": fig.unit, "formula": fig.formula, "inputs": fig.inputs}


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.4g}"


def _gb(gb: float) -> str:
    """'988 GB', '9.88 TB', '828 MB': decimal units, three figures."""
    if gb >= 1000:
        return f"{gb / 1000:,.3g} TB" if gb < 100_000 else f"{gb / 1000:,.0f} TB"
    if gb >= 1:
        return f"{gb:,.3g} GB" if gb < 100 else f"{gb:,.0f} GB"
    return f"{gb * 1000:,.3g} MB"


def _params(n: float) -> str:
    return f"{n / 1e9:.4g}B" if n >= 1e9 else f"{n / 1e6:.3g}M"


def _months(months: float) -> str:
    if months == 12:
        return "a year"
    return f"{months:g} months"


def _product(store: ProviderRecord) -> str:
    """'S3 Standard', 'Cloud Storage Standard', 'Lambda persistent filesystem'."""
    product = store.storage_product.split(" (")[0]
    if store.kind == "hyperscaler" or store.cloud:
        return product
    return f"{store.name} {product}"


def _place_name(provider: ProviderRecord) -> str:
    return _STORES.get(provider.id, provider.name)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeio8" or word.startswith(("11", "18")) else "a"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- rendering --------------------------------------------------------------------------------------------
def render_storage(answer: StorageAnswer) -> list[Message]:
    """Block Kit (validated by `bot.limits`) plus the plain-text fallback."""
    from bot.render import render_blocks, render_text

    blocks = render_blocks("storage.json.j2", answer=answer)
    return fit_message(blocks, render_text("storage.txt.j2", answer=answer, details=False), owned=True)


def render_storage_text(answer: StorageAnswer, *, details: bool = False) -> str:
    from bot.render import render_text

    return render_text("storage.txt.j2", answer=answer, details=details)


def storage_contract(answer: StorageAnswer, workload_keys: tuple[str, ...]) -> dict[str, Any]:
    """`ask --json` for a storage question: every key a plan's answer has (the report parts null: no plan was made)
    plus "storage" (docs/json.md). `notes[0]` is the headline."""
    ask = answer.ask
    workload = dict.fromkeys(workload_keys)
    # a transfer's source is where the data lives and its destination where it goes, as in a plan's workload
    places = ({"data_location": ask.provider if ask.provider in ("aws", "gcp", "azure") else None,
               "provider": ask.destination} if ask.question in ("transfer", "time") else {"provider": ask.provider})
    workload.update({k: v for k, v in {"mode": ask.mode, "model": ask.model, "params_b": ask.params_b,
                                       "precision": ask.precision, "optimizer": ask.optimizer,
                                       "lora_rank": ask.lora_rank, **places}.items()
                     if v is not None and k in workload})
    return {
        "workload": workload,
        "missing": [],
        "questions": [],
        "assumptions": [],
        "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
        "notes": [answer.headline, *answer.lines, answer.assumptions],
        "capacity": None,
        "compared_gpus": None,
        "storage": answer.contract,
        # the other question kinds' keys, null here: every `ask --json` object has the same keys
        "local": None,
        "buy_or_rent": None,
        "images": None,
        "max_context": None,
        "reserve_or_on_demand": None,
    }
