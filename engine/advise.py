"""The engine's one entry point: workload + catalog records -> `Advice`. Never raises.

Order (each step's output feeds the next, and each says what it assumed):
validate -> defaults -> architecture -> options (memory/cluster/throughput/TCO per offer) ->
recommendation -> report parts for the chosen (or recommended) GPU -> notes.
Any unexpected exception becomes a Problem "internal" with a safe message: a wrong number is
worse than none, and a traceback is worse than both.
"""

from __future__ import annotations

import re
from typing import Any

from catalog.records import CatalogData, GpuRecord, OfferRecord
from engine.architecture import Architecture, architecture_for, architecture_like, reference_shape
from engine.buy_or_rent import (
    COLO_USD_PER_KW_MONTH,
    DEFAULT_YEARS,
    RESALE_BASIS,
    break_even_at,
    busy_hours_to_break_even,
    server_kw,
    server_usd,
    sla_rate,
)
from engine.cluster import fp8_weight_only, integer_kernels, plan_cluster, sixteen_bit
from engine.contract import CONTRACT_WORKLOAD_KEYS
from engine.defaults import apply_defaults
from engine.devices import as_devices
from engine.egress import egress_for, migration_friction
from engine.models import (
    TRAINING_MODES,
    Advice,
    Assumption,
    ClusterPlan,
    MemoryEstimate,
    Option,
    Problem,
    ThroughputEstimate,
    Workload,
)
from engine.offer_plans import SLOW_FIXED_NOTE, hours_text, room_figures
from engine.placement import in_place, placed_answer
from engine.poor_fit import cloud_of, cloud_words, dear_per_flop, on_one_cloud, same_cloud_option
from engine.preference import preference_note
from engine.published import published_ways_out
from engine.recommend import (
    BASEBOARD_GPUS,
    OWNED_PREFIX,
    PUE,
    SERVER_POWER_FACTOR,
    USD_PER_KWH,
    Ranked,
    baseboard,
    bf16_reference,
    compares_precisions,
    data_source,
    evaluate,
    owns_gpus,
    power_usd_per_gpu_hour,
    rented_nowhere,
    run_cost_usd,
    unpriced_rental,
)
from engine.recommendation import (
    BUDGET_NOTE,
    best_tco,
    fits_nowhere_problem,
    per_user_speed,
    recommended,
    work_usd,
)
from engine.rl import is_rl, rl_note
from engine.serving import SPEED_TARGET_MARGIN, TTFT_REACH_NOTE, failover_replicas, floor_kept_at, user_floor
from engine.spot import (
    SPOT_GANG_MAX_NODES,
    SPOT_SERVING_PREFIX,
    SPOT_TRAINING_PREFIX,
    gang_too_large,
    spot_gang_note,
)
from engine.tco import (
    RESERVED_DISCOUNT_ASSUMED,
    cold_start_note,
    reserved_part_time_note,
    reserved_training_note,
    row_usd,
)
from engine.throughput import estimate_inference, estimate_training
from engine.units import HOURS_PER_MONTH
from engine.unpriced_job import UnpricedJob, is_offline_job, unpriced_job
from engine.validate import blocking, duration_problem, validate
from engine.vision import as_dict, image_load, images_note, text_prompt


def advise(workload: Workload, data: CatalogData) -> Advice:
    """Full advice for one workload; problems come back in `Advice.problems`, never as exceptions."""
    if workload.gpu_vendor is not None:  # "NVIDIA only": the other vendor's offers are not options
        vendor = workload.gpu_vendor.upper()
        kept = {g.id for g in data.gpus if g.vendor.upper() == vendor}
        data = data.model_copy(update={"offers": tuple(o for o in data.offers if o.gpu in kept)})
    if workload.providers and workload.provider is None:  # "only AWS or GCP": the other providers are not options
        allowed = set(workload.providers)
        data = data.model_copy(update={"offers": tuple(o for o in data.offers if o.provider in allowed)})
    workload, counted = as_devices(workload, data)  # "8x MI250": 16 GCDs of 64 GB, as ROCm lists them
    asked, (workload, outside) = workload, in_place(workload, data)  # "data can't leave germany": none there, say so
    try:
        advice = _advise(workload, data)
        if asked.regions or asked.data_residency:  # where the pick is, and that the place said has no offer
            advice = placed_answer(advice, asked, outside, data)
        return advice if counted is None else advice.model_copy(update={"notes": (counted, *advice.notes)})
    except Exception as exc:  # the promise is "never raises": report, do not crash the bot
        return Advice(
            workload=workload,
            effective=workload,
            problems=(
                Problem(
                    code="internal",
                    message=f"The estimator hit an internal error ({type(exc).__name__}) on this workload; "
                    "no figures were produced rather than risk wrong ones. Please report it.",
                ),
            ),
        )


def _advise(w: Workload, data: CatalogData) -> Advice:
    problems = validate(w, data)
    if blocking(problems):
        return Advice(workload=w, effective=w, problems=tuple(problems), missing=_missing(w, []))
    effective, assumptions, default_problems = apply_defaults(w, data)
    problems.extend(default_problems)
    model = data.model(effective.model) if effective.model else None
    reference = reference_shape(effective.params_b, data.models) if model is None and effective.params_b else None
    if reference is not None and effective.params_b:
        arch = architecture_like(reference, effective.params_b)
    else:
        arch = architecture_for(model, effective.params_b)
    notes: list[str] = list(arch.notes)
    if arch.generic:
        assumptions.append(Assumption(field="model", value=arch.name, why=arch.notes[0] if arch.notes else "generic architecture"))

    result = evaluate(effective, arch, data, given=w)
    effective, result, assumptions = _spot_gang_led_on_demand(w, effective, arch, data, result, assumptions)
    effective, result, assumptions = _spot_weighed_on_demand(w, effective, arch, data, result, assumptions)
    lacking: Problem | None = None
    if provider_lacks_gpu(w, data):  # "Lambda MI300X": planned where that GPU is rented, Lambda's own GPUs named
        effective, assumptions, problems, result, lacking = _where_it_is_rented(w, arch, data, effective, assumptions,
                                                                                problems, result)
        problems.append(lacking)
    notes.extend(_with_looser_ttft(result.notes, effective, w, arch, data))
    no_fit = fits_nowhere_problem(result, effective, data)
    if no_fit is not None:
        problems.append(no_fit)

    chosen = _chosen_option(result, effective)
    if chosen is not None and (effective.mode or "inference") in TRAINING_MODES:
        long_run = duration_problem(chosen.hours_per_run, chosen.cluster.gpus)
        if long_run is not None:
            problems.append(long_run)
    egress = _egress_summary(effective, data, chosen)
    # The tier-vs-flat explanation is about whichever shown option pays egress (the chosen one may be same-cloud).
    paying = next((o for o in [chosen, *result.options] if o is not None and any(t.workflow == "uncached" for t in o.tco)), None)
    explained = egress if paying is None or paying is chosen else _egress_summary(effective, data, paying)
    notes.extend(_explanations(effective, chosen, result, explained, data))
    quantization = _quantization(arch, effective)
    memory, cluster, throughput = (chosen.memory, chosen.cluster, chosen.throughput) if chosen else (None, None, None)
    fit = result.fit_only
    variant = chosen_variant(chosen, fit, effective)
    if variant is not None and (effective.mode or "inference") == "inference":
        effective = variant
        assumptions = [a for a in assumptions if a.field != "precision"] + [Assumption(
            field="precision", value=effective.precision,
            why="precision not given: BF16 and FP8 (W8A8) weights both planned, FP8 only on GPUs with FP8 tensor cores; "
                + ("FP8 is the cheaper that meets the targets (half the weight memory, accuracy within about 1% on "
                   "standard benchmarks for 70B-class models); reply 'bf16' to keep 16-bit weights"
                   if effective.precision == "fp8" else "BF16 is the cheaper here; reply 'fp8' to compare"))]
        if effective.precision == "fp8" and chosen is not None:
            bf16 = bf16_reference(variant.model_copy(update={"precision": "bf16"}), arch, data, chosen, result.memos)
            notes.insert(0, f"{fp8_assumed(data.gpu(chosen.cluster.gpu or ''))}: about half the memory of BF16, "
                            "accuracy within about 1% on standard benchmarks" + (f"; {bf16}" if bf16 else ""))
    elif variant is not None:
        effective = variant
        assumptions = [a for a in assumptions if a.field not in ("mode", "precision", "optimizer")] + [Assumption(
            field="mode", value=effective.mode,
            why=f"fine-tuning method not given: {effective.mode.upper() if effective.mode else ''} is the cheaper that fits "
                "(LoRA and QLoRA both planned); reply 'full', 'lora' or 'qlora' to choose")]
    named_gpu = data.gpu(w.gpu) if w.gpu else None
    if (chosen is not None and (effective.mode or "inference") == "inference" and w.precision is None
            and chosen.precision == "bf16" and named_gpu is not None and not named_gpu.fp8_dense_tflops):
        # "try A100s" after an FP8 answer: the GPU count jumps, and the reason is the GPU, not the load
        sixteen = sixteen_bit(named_gpu)
        before_ampere = "; no BF16 before Ampere, so vLLM's --dtype half" if sixteen == "FP16" else ""
        notes.insert(0, f"{NO_FP8_NOTE}{named_gpu.name}: planned with {sixteen} weights (twice the memory of FP8"
                        f"{before_ampere}); 8-bit or "
                        "4-bit weight-only kernels (vLLM's Marlin, GPTQ/AWQ) run on it: say “int8” or “int4” to plan "
                        "with them")
    if chosen is None and fit is not None:
        memory, cluster, throughput = fit.memory, fit.plan, fit.throughput
        gpus = max(1, fit.plan.gpus)
        fit_gpu = data.gpu(fit.plan.gpu)
        if fit_gpu is not None and not fit.name.startswith(OWNED_PREFIX):  # their own GPUs are bought already
            notes.extend(_break_even_note(fit_gpu, gpus, fit.usd_per_hour / gpus, data,
                                          fit.offer.provider if fit.offer is not None else None, effective.pricing))
        notes.insert(0, f"no token count, so no GPU-hours or monthly cost: the cheapest per token trained is {fit.name} "
                        f"at ${fit.usd_per_hour:,.2f}/hour (${fit.usd_per_hour / gpus:,.2f} per GPU-hour); "
                        "say e.g. '1B tokens, 3 epochs' for the costs")
    elif chosen is None:
        reported = _as_ranked(effective, w, arch, data)
        memory, cluster, throughput = _report_without_options(reported, arch, data, result)
        job = _unpriced_job(reported, arch, data, cluster)
        if job is not None:  # an offline job with no priced offer: what the fitted GPUs sustain, not the deadline's rate
            memory, cluster, throughput = job.memory, job.plan, job.throughput
            if job.note:
                notes.insert(0, job.note)
        if reported is not effective:  # said, as the plans that fit say it: the figures are FP8's
            notes.insert(0, f"{fp8_assumed(data.gpu(cluster.gpu or '') if cluster is not None else None)}, as the plans that fit would be; BF16 as "
                            "published needs more")
        if cluster is not None:
            problems = [p for p in problems if p.code != "fits_nowhere"]
            if lacking is None or not cluster.fits:  # the provider's problem already says why there is no price
                why = _why_no_option(effective, data, cluster, memory)
                serving_fixed = (effective.mode or "inference") == "inference" and bool(w.gpu_count)
                if not cluster.fits and serving_fixed:
                    why = why.model_copy(update={"message": _at_the_floor(why.message, effective, w, arch, data, cluster)})
                elif cluster.fits and serving_fixed and (effective.concurrency or 0) > 1 and why.code == "no_price":
                    # priced offers exist, but no replica on the GPUs fixed batches all the users (memory, or
                    # vLLM's max_num_seqs): that is the answer, not a missing price
                    gpu_named = data.gpu(cluster.gpu)
                    ctx = int(effective.seq_len or 0)
                    said = (f"The model fits {cluster.gpus}x {gpu_named.name if gpu_named else cluster.gpu}, but not "
                            f"beside {int(effective.concurrency or 0):,} users' KV cache"
                            + (f" at {ctx:,} tokens each" if ctx else ""))
                    why = Problem(code=USERS_PAST_FIXED, field="concurrency",
                                  message=_at_the_floor(said, effective, w, arch, data, cluster.model_copy(
                                      update={"fits": False})).replace(" (by memory alone)", ""))
                problems.append(why)
            if job is not None and job.needed_gpus != cluster.gpus:  # the headline's GPUs miss the deadline: said first
                problems = [_short_said(p, job, cluster) for p in problems]
    if rented_nowhere(w, data) and named_gpu is not None:
        notes.insert(0, rented_nowhere_note(w, named_gpu, data, chosen, effective))
    notes.extend(availability_note(effective, chosen))
    free = _FreeOfPin(w, effective, arch, data)
    budget_said = pinned_budget_note(w, effective, data, chosen, notes, free)
    if budget_said == notes:  # a budget note naming the catalog's pick already says the GPU is the problem
        notes.extend(poor_fit_note(w, effective, arch, data, chosen, free))
    notes = budget_said
    notes.extend(margin_cost_note(w, effective, arch, data, chosen))
    notes.extend(int4_on_fixed_note(w, effective, arch, data, chosen))
    notes.extend(published_ways_out(w, effective, arch, data, chosen))
    if effective.mode == "pretrain":  # imported only for pre-training: its table costs the cold start of every other ask
        from engine.published_runs import published_run_note

        notes.extend(published_run_note(effective, arch, data.gpu(cluster.gpu) if cluster is not None else None,
                                        cluster, throughput))
    notes.extend(fixed_training_ways_out(w, effective, arch, data, cluster, chosen))
    notes.extend(tight_memory_note(memory))
    notes.extend(preference_note(w, effective, arch, memory, cluster))
    notes.extend(_rl_note(effective, arch, data, cluster, throughput, chosen))
    notes.extend(disputed_price_note(chosen, data, effective.pricing))
    notes.extend(methods_on_stated_gpus(w, effective, arch, data))
    if adapter_tokens_at_scale(effective) is not None:  # LoRA/QLoRA at pre-training scale: price a full fine-tune too
        full = full_fine_tune_pick(w, arch, data, chosen.gpu if chosen is not None else None)
        full_gpu = data.gpu(full.gpu) if full is not None else None
        notes.extend(adapter_scale_note(effective, full, chosen, full_gpu.name if full_gpu is not None else ""))
    notes.extend(reasoning_reply_note(effective, model, throughput, given_output=w.output_tokens))
    images = image_load(w.model_copy(update={"mode": effective.mode}), model)
    if images is not None and images.images_per_request > 0:
        notes.insert(0, images_note(images, text_prompt(w)))
    cold = cold_start_note(effective, _weights_gb(chosen))
    part_time = reserved_part_time_note(effective, best_tco(chosen),
                                        data.offer(chosen.offer_id) if chosen is not None else None)
    reserved_runs = reserved_training_note(effective, best_tco(chosen),
                                           data.offer(chosen.offer_id) if chosen is not None else None,
                                           chosen.cluster.gpus if chosen is not None else 0,
                                           chosen.hours_per_run if chosen is not None else None)
    notes.extend(note for note in (part_time, reserved_runs, cold) if note is not None)
    return Advice(
        workload=w,
        effective=effective,
        assumptions=tuple(assumptions),
        missing=_missing(w, assumptions),
        problems=tuple(problems),
        memory=memory,
        cluster=cluster,
        throughput=throughput,
        options=tuple(result.options),
        recommendation=result.recommendation,
        quantization=tuple(quantization),
        egress=egress,
        notes=tuple(dict.fromkeys(notes)),
        images=as_dict(images),
    )


# FP8 weights planned where the user named no precision (read by the first message as FP8_NOTE)
FP8_ASSUMED = ("FP8 assumed for weights and KV cache (vLLM --quantization fp8 --kv-cache-dtype fp8, or a published FP8 "
               "checkpoint)")
# FP8 on Intel Gaudi is not vLLM's --quantization fp8: vllm-gaudi quantizes through Intel Neural Compressor, from
# measurements of the model on calibration prompts taken first (docs.vllm.ai, "FP8 INC"; Intel Gaudi docs, "FP8
# Calibration and Inference with vLLM")
GAUDI_FP8 = ("FP8 assumed for weights and KV cache (on Gaudi: vllm-gaudi with Intel Neural Compressor, measured first "
             "on calibration prompts with QUANT_CONFIG at a measure config (vllm-hpu-extension calibrate_model.sh), then "
             "vllm serve --quantization inc --kv-cache-dtype fp8_inc with QUANT_CONFIG at the quant config)")
INC_SAID = "Intel Neural Compressor"  # in GAUDI_FP8: the first message's FP8 line keeps its recipe


def fp8_assumed(gpu: GpuRecord | None) -> str:
    """The FP8 note's opening, with the recipe of the GPU it runs on: vLLM's flags, or the INC steps on Gaudi."""
    return GAUDI_FP8 if gpu is not None and gpu.id.startswith("gaudi") else FP8_ASSUMED


NO_FP8_NOTE = "no FP8 tensor cores on "  # a named GPU planned with BF16 weights where FP8 was compared (first message)
USERS_PAST_FIXED = "users_past_fixed"  # Problem.code: the GPUs fixed hold the model but not the users at once
RENTED_NOWHERE_NOTE = "no provider in the catalog rents the "  # a GPU named that nobody rents (engine.recommend.rented_nowhere)
UNPRICED_SAID = ": give a price per GPU-hour to cost it"  # after the GPU's name: not said to be theirs, so no price yet
POWER_RATE_SAID = " per GPU-hour of power"  # after the power rate in that note: a comparison's break-even reads it


def rented_nowhere_note(w: Workload, gpu: GpuRecord, data: CatalogData, chosen: Option | None,
                        effective: Workload) -> str:
    """A GPU nobody in the catalog rents. Said to be theirs: costed at its power. Not said: its cost is a question,
    with the power figure as a floor, never as its price (a neocloud's MI355X rents at several times its power). A GPU
    sold on 8-GPU baseboards is bought or quoted by the node: the nodes a plan of another count takes are said."""
    nodes = ""
    if chosen is not None and baseboard(gpu) and chosen.cluster.gpus % BASEBOARD_GPUS:
        whole = -(-chosen.cluster.gpus // BASEBOARD_GPUS)
        nodes = (f"; it is sold on {BASEBOARD_GPUS}-GPU baseboards, so bought or quoted per node this is {whole} "
                 f"node{'s' if whole != 1 else ''} of {BASEBOARD_GPUS} ({chosen.cluster.gpus} used)")
    if not unpriced_rental(w, data):
        return (f"{RENTED_NOWHERE_NOTE}{gpu.name}: planned as your own hardware, costed at its power only (not its "
                f"purchase); give a price (e.g. 'at $1.50/hr per GPU') to cost a rental{nodes}")
    power = ""
    if chosen is not None:
        training = (effective.mode or "inference") in TRAINING_MODES
        usd = run_cost_usd(chosen.tco, effective) if training else chosen.total_usd
        power = (f"; power alone would be ${usd:,.0f} {'a run' if training else 'a month'} on your own "
                 f"{chosen.cluster.gpus}x (${power_usd_per_gpu_hour(gpu):.2f}{POWER_RATE_SAID}, not their purchase)")
    return (f"{RENTED_NOWHERE_NOTE}{gpu.name}{UNPRICED_SAID}, e.g. “at $3/GPU-hour” (or say “our own”){power}"
            f"{nodes}")
PROVIDER_LACKS_GPU = "provider_lacks_gpu"  # Problem.code: the provider named rents no GPU of the type named
LACKS_SAID = " does not rent "  # "Lambda does not rent Instinct MI300X 192GB ...": the headline reads the provider from it


def _weights_gb(chosen: Option | None) -> float | None:
    """The weights one replica loads (per GPU x GPUs per replica), for the cold-start note."""
    if chosen is None or "weights_gb" not in chosen.memory.components:
        return None
    return chosen.memory.components["weights_gb"].value * (chosen.cluster.gpus_per_replica or 1)


def provider_lacks_gpu(given: Workload, data: CatalogData) -> bool:
    """The user named a rental provider and a GPU it has no offer of ("Lambda MI300X"), with no price of their own and
    no machine named: there is nothing to price at that provider, and planning "your own hardware" answers a question
    nobody asked."""
    return bool(given.provider and given.gpu and given.hourly_rate is None and given.instance_type is None
                and not owns_gpus(given) and data.provider(given.provider) is not None
                and not any(o.gpu == given.gpu and o.provider == given.provider for o in data.offers))


def _where_it_is_rented(given: Workload, arch: Architecture, data: CatalogData, effective: Workload,
                        assumptions: list[Assumption], problems: list[Problem],
                        result: Ranked) -> tuple[Workload, list[Assumption], list[Problem], Ranked, Problem]:
    """The two ways out when the provider named does not rent the GPU named: that GPU at the providers that rent it
    (planned in full, so the answer's plan and costs are real rentals; kept as asked when nobody rents it) and the
    provider's own GPUs (its cheapest option, named). Returns the answer's workload, assumptions, problems, options
    and the problem that says it up front."""
    anywhere_given = given.model_copy(update={"provider": None})
    anywhere_w, anywhere_assumed, anywhere_problems = apply_defaults(anywhere_given, data)
    anywhere = evaluate(anywhere_w, arch, data, given=anywhere_given)
    theirs_given = given.model_copy(update={"gpu": None, "gpu_count": None, "nodes": None, "gpu_memory_gb": None})
    theirs_w, _, _ = apply_defaults(theirs_given, data)
    theirs = evaluate(theirs_w, arch, data, given=theirs_given)
    provider = data.provider(str(given.provider))
    gpu = data.gpu(str(given.gpu))
    who = provider.name if provider is not None else str(given.provider)
    what = gpu.name if gpu is not None else str(given.gpu)
    rented = anywhere.options or anywhere.fit_only is not None
    nowhere = rented_nowhere(anywhere_given, data)  # then `anywhere` is planned as their own, at its power
    ways = [f"{what} where it is rented: the plan below, cheapest at {_cheapest(anywhere)}" if rented and not nowhere
            else f"no provider in the catalog rents the {what}: the plan below is for your own hardware"
            + (", costed at its power" if rented else "")]
    own = _cheapest(theirs)
    if own:
        shown = theirs.options[0].gpu if theirs.options else (theirs.fit_only.plan.gpu if theirs.fit_only else "")
        short = data.gpu(shown).name if data.gpu(shown) is not None else shown  # type: ignore[union-attr]
        ways.append(f"a GPU {who} rents: {own} (reply “try {short}”)")
    else:
        ways.append(f"no GPU {who} rents fits this")
    lacking = Problem(code=PROVIDER_LACKS_GPU, field="provider",
                      message=f"{who}{LACKS_SAID}the {what}: the catalog has no {who} offer of it. Two ways out: "
                              + "; or ".join(ways) + ".")
    if not rented:
        return effective, assumptions, problems, result, lacking
    return anywhere_w, anywhere_assumed, [*validate(anywhere_given, data), *anywhere_problems], anywhere, lacking


def _cheapest(result: Ranked) -> str:
    """The recommended option of a ranking as the way-out sentence names it: who, what, and its price ("" if none)."""
    if result.options:
        option = recommended(result.options, result.recommendation)
        assert option is not None  # options is not empty
        run = _run_usd(option)
        if option.mode == "inference":
            speed = option.throughput.decode_tokens_per_s_per_sequence
            per_user = f", {speed.value:,.1f} tokens/s per user" if speed is not None else ""
            return f"{option.name}, ${option.total_usd:,.0f} a month{per_user}"
        return f"{option.name}, ${run:,.0f} per run" if run else f"{option.name}, ${option.total_usd:,.0f} a month"
    if result.fit_only is not None:
        return f"{result.fit_only.name} at ${result.fit_only.usd_per_hour:,.2f}/hour"
    return ""


def disputed_price_note(chosen: Option | None, data: CatalogData, pricing: str | None = None) -> list[str]:
    """The pick's price comes from a row whose sources disagree (the catalog says 're-check'): said, so
    nobody signs a contract on a stale number. The doubt is about the on-demand price (and the reserved estimate
    derived from it); a spot price is its own published figure, which a higher on-demand listing does not contradict."""
    if chosen is None or chosen.offer_id is None or pricing == "spot":
        return []
    offer = data.offer(chosen.offer_id)
    said = _price_doubt(offer) if offer is not None else ""
    return [f"price to confirm: {chosen.name} is priced from {offer.source}, but {said}"] if offer is not None and said else []


REASONING_NOTE = "reasoning model: "
REASONING_REPLY_TOKENS = (1_000, 4_000)  # a reply with its thinking: DeepSeek-R1, QwQ, Qwen3 and gpt-oss traces


def reasoning_reply_note(effective: Workload, model: Any, throughput: ThroughputEstimate | None,
                         given_output: int | None = None) -> list[str]:
    """Serving a model that thinks before it answers: its replies carry the reasoning, often 1,000-4,000 tokens
    (the DeepSeek-R1 paper's responses grow to thousands of tokens), so the per-user speed decides whether a user
    waits seconds or minutes. Said with the plan's speed, unless the user gave the reply length."""
    if effective.mode != "inference" or model is None or not getattr(model, "reasoning", False) \
            or given_output is not None or throughput is None:
        return []
    speed = throughput.decode_tokens_per_s_per_sequence
    if speed is None or speed.value <= 0:
        return []
    short, long = (n / speed.value for n in REASONING_REPLY_TOKENS)
    return [f"{REASONING_NOTE}{model.name} thinks before it answers, so a reply often runs to "
            f"{REASONING_REPLY_TOKENS[0]:,}-{REASONING_REPLY_TOKENS[1]:,} tokens: {short:,.0f}-{long:,.0f} s at "
            f"{speed.value:,.1f} tokens/s per user; say a per-user speed (e.g. “60 tokens/s per user”) if answers "
            "must come sooner"]


ADAPTER_SCALE_NOTE = "adapters at pre-training scale: "
METHOD_NAMES = {"lora": "LoRA", "qlora": "QLoRA"}
ADAPTER_SCALE_TOKENS = 10e9  # tokens per run from which LoRA/QLoRA is questioned (typical fine-tuning sets are < 1B)


def adapter_scale_note(effective: Workload, full: Option | None = None, chosen: Option | None = None,
                       gpu_name: str = "") -> list[str]:
    """LoRA or QLoRA over tens of billions of tokens per run: that is continued pre-training, where adapters learn
    clearly less than a full fine-tune (Biderman et al. 2024, "LoRA Learns Less and Forgets Less", on 20B tokens
    of code and math). The plan is right for what was asked; the method may not be what the team wants, so the
    full fine-tune's own pick (`full`) is priced beside the adapters' (`chosen`) when the engine could plan it. It is
    planned on the adapters' GPU type (said: "on the same GPU type"), so a like-for-like price; the full fine-tune's
    own answer ranks every GPU type and may pick a faster, dearer plan."""
    tokens = adapter_tokens_at_scale(effective)
    if tokens is None:
        return []
    compared = ""
    full_run, adapter_run = _run_usd(full), _run_usd(chosen)
    if full is not None and full_run and adapter_run and full.hours_per_run:
        same = " on the same GPU type" if chosen is not None and full.gpu == chosen.gpu else ""
        compared = (f"; a full fine-tune{same}: {full.cluster.gpus}x {gpu_name or full.gpu}, ${full_run:,.0f} and "
                    f"{full.hours_per_run / 24:,.1f} "
                    f"days per run ({full_run / adapter_run - 1:+.0%} on {METHOD_NAMES[str(effective.mode)]}'s ${adapter_run:,.0f})")
    return [f"{ADAPTER_SCALE_NOTE}~{tokens / 1e9:,.0f}B tokens per run is continued pre-training, where LoRA and QLoRA "
            "learn clearly less than a full fine-tune (Biderman et al. 2024, 'LoRA Learns Less and Forgets Less', "
            f"arXiv:2405.09673, on 20B tokens of code and math){compared}; reply 'full fine-tune' to compare in full, or "
            "give the tokens per run if you train on a sample"]


def adapter_tokens_at_scale(effective: Workload) -> float | None:
    """Tokens per run of a LoRA/QLoRA plan at continued-pre-training scale (ADAPTER_SCALE_TOKENS or more), else None."""
    if effective.mode not in ("lora", "qlora") or not effective.dataset_tokens:
        return None
    tokens = float(effective.dataset_tokens) * float(effective.epochs or 1)
    return tokens if tokens >= ADAPTER_SCALE_TOKENS else None


def _rl_note(effective: Workload, arch: Architecture, data: CatalogData, cluster: ClusterPlan | None,
             throughput: ThroughputEstimate | None, chosen: Option | None) -> list[str]:
    """Online RL: the rollouts and the training of the plan shown, with its cost a run (engine.rl)."""
    if not is_rl(effective):
        return []
    gpu = data.gpu(cluster.gpu) if cluster is not None else None
    wall = throughput.wall_clock_hours.value if throughput is not None and throughput.wall_clock_hours else None
    return rl_note(effective, arch, gpu, cluster.gpus if cluster is not None else 1, wall, _run_usd(chosen))


def _run_usd(option: Option | None) -> float | None:
    """One run's cost on an option, the whole job when a run outlasts a month (the figure its table row shows)."""
    t = best_tco(option)
    return None if t is None else t.job_usd or t.per_run_usd


def full_fine_tune_pick(given: Workload, arch: Architecture, data: CatalogData, gpu: str | None = None) -> Option | None:
    """The option a full fine-tune of the same data would be ranked first on (None when nothing fits), on the
    adapters' GPU type (`gpu`) unless the user named one: for `adapter_scale_note`, so "continued pre-training"
    comes with what the alternative costs. One GPU type keeps it to a small share of the answer's time."""
    full_given = given.model_copy(update={"mode": "full", "precision": None, "optimizer": None, "lora_rank": None,
                                          "lora_targets": None, "gpu": given.gpu or gpu})
    full_w, _, _ = apply_defaults(full_given, data)
    ranked = evaluate(full_w, arch, data, given=full_given, ranking_only=True)
    return ranked.options[0] if ranked.options else None


METHODS_NOTE = "methods on "


def methods_on_stated_gpus(given: Workload, effective: Workload, arch: Architecture, data: CatalogData) -> list[str]:
    """Fine-tuning with no method named on a stated number of GPUs (to buy, or already owned): whether those GPUs
    also hold a full fine-tune. The plan shown is LoRA (the cheaper method that fits), and LoRA fitting says
    nothing of a full fine-tune's ~16 bytes of weights, gradients and Adam state per parameter: a team buying 8
    GPUs "for fine-tuning" should know which methods it is buying."""
    if given.mode is not None or effective.mode not in ("lora", "qlora") or not given.gpu or not given.gpu_count:
        return []
    gpu = data.gpu(given.gpu)
    if gpu is None:
        return []
    full, _, _ = apply_defaults(given.model_copy(update={"mode": "full"}), data)
    on_theirs, _ = plan_cluster(full, arch, gpu)
    said = f"{METHODS_NOTE}{given.gpu_count} x {gpu.name}: "
    if on_theirs.fits:
        return [said + "LoRA, QLoRA and a full fine-tune of this model all fit"]
    anywhere, _ = plan_cluster(full.model_copy(update={"gpu_count": None, "nodes": None}), arch, gpu)
    need = f"{anywhere.gpus} GPUs" + (f" on {anywhere.nodes} nodes" if anywhere.nodes > 1 else "") if anywhere.fits \
        else "more GPUs than the search tried"
    return [said + f"LoRA and QLoRA of this model fit; a full fine-tune does not (it needs {need})"]


TIGHT_MEMORY_FRACTION = 0.95


def tight_memory_note(memory: MemoryEstimate | None) -> list[str]:
    """A plan at 95%+ of usable memory fits on paper only: longer prompts, allocator fragmentation, NCCL
    buffers or an unlucky MoE routing step take the rest. Said, so the user can take the next plan up."""
    if memory is None or not memory.usable_gb_per_gpu or not memory.fits:
        return []
    share = memory.per_gpu_gb / memory.usable_gb_per_gpu
    if share < TIGHT_MEMORY_FRACTION:
        return []
    return [f"tight memory: {memory.per_gpu_gb:,.1f} of {memory.usable_gb_per_gpu:,.1f} GB usable per GPU ({share:.0%}, "
            "after the headroom kept for fragmentation): little margin for longer sequences or allocator spikes; test "
            "the peak on one node first, or take the next-larger plan"]


def chosen_variant(chosen: Option | None, fit: Any, effective: Workload) -> Workload | None:
    """When LoRA and QLoRA were both planned, the effective workload of the one recommended."""
    if chosen is not None and (effective.mode or "inference") == "inference" and effective.precision == "bf16" \
            and chosen.precision == "fp8":
        return effective.model_copy(update={"precision": "fp8"})
    if chosen is not None and effective.mode in ("lora", "qlora") and chosen.mode != effective.mode:
        return effective.model_copy(update={"mode": chosen.mode, "precision": chosen.precision,
                                            "optimizer": "paged_adamw_8bit" if chosen.mode == "qlora" else effective.optimizer})
    if chosen is None and fit is not None and fit.workload is not None and fit.workload.mode != effective.mode:
        return fit.workload
    return None


def _as_ranked(effective: Workload, given: Workload, arch: Architecture, data: CatalogData) -> Workload:
    """The weights the search would have led with when nothing fits: FP8 on a GPU that runs it (FP8 tensor cores, or
    weight-only on Ampere for a dense model), where BF16 and FP8 were ranked together. A fixed count that holds
    neither was reported in BF16, so "at most 95 users" contradicted the FP8 plan of the turn before (about 260)."""
    gpu = data.gpu(effective.gpu) if effective.gpu else None
    if gpu is None or not compares_precisions(effective, given):
        return effective
    if gpu.fp8_dense_tflops or fp8_weight_only(gpu, arch):
        return effective.model_copy(update={"precision": "fp8"})
    return effective


def _report_without_options(w: Workload, arch: Architecture, data: CatalogData,
                            result: Ranked) -> tuple[MemoryEstimate | None, ClusterPlan | None, ThroughputEstimate | None]:
    """No option to price, but "does it fit, and with what breakdown" still has an answer: on the
    user's GPU (owned, or not offered by any provider in the catalog) or the largest configuration
    tried. The plan's `fits` says no, and its notes say what would make it fit."""
    gpu_id = w.gpu or (result.largest[0] if result.largest else None)
    gpu = data.gpu(gpu_id) if gpu_id else None
    if gpu is None:
        return None, None, None
    plan, memory = plan_cluster(w, arch, gpu, _report_offer(w, gpu, data))
    if (w.mode or "inference") in TRAINING_MODES:
        throughput = estimate_training(w, arch, gpu, plan.gpus)
    else:
        throughput = estimate_inference(w, arch, gpu, plan)
    return memory, plan, throughput


def _at_the_floor(message: str, effective: Workload, given: Workload, arch: Architecture, data: CatalogData,
                  cluster: ClusterPlan) -> str:
    """A service too big for the GPUs the user fixed: the ways out said by memory alone ("at most 248 users", "or 8x
    L40S") are restated at the per-user speed floor, since a plan that fits the memory but serves each user at
    10 tokens/s is not a way out (300 users of Qwen3-32B on 4 L40S: 248 fit the memory at 9.8 tokens/s each; 8 L40S
    hold all 300 at 14.4; 16 keep 20+). Both from the serving search on that GPU type: the users the fixed GPUs keep
    at the floor, and the GPUs all the users need."""
    floor = user_floor(effective)
    fixed = evaluate(effective.model_copy(update={"concurrency": None}), arch, data,
                     given=given.model_copy(update={"concurrency": None}), ranking_only=True)
    held = None
    if fixed.options:
        room = room_figures(fixed.options[0].cluster)
        replicas = max(1, fixed.options[0].cluster.replicas or 1)
        held = room[3] * replicas if room is not None and room[3] is not None else None
    free = evaluate(effective.model_copy(update={"gpu_count": None, "nodes": None}), arch, data,
                    given=given.model_copy(update={"gpu_count": None, "nodes": None}), ranking_only=True)
    option = free.options[0] if free.options else None
    speed = option.throughput.decode_tokens_per_s_per_sequence if option is not None else None
    gpu = data.gpu(cluster.gpu)
    name = gpu.name if gpu is not None else cluster.gpu
    users = int(effective.concurrency or 1)
    said: list[str] = []
    if held is not None and held < users:
        said.append(f"the {cluster.gpus} GPUs you fixed serve about {held:,} users")
    if option is not None and speed is not None and speed.value >= floor_kept_at(effective) and option.cluster.gpus > cluster.gpus:
        layout = (f"{option.cluster.replicas} replicas of {option.cluster.gpus_per_replica}"
                  if (option.cluster.replicas or 1) > 1 else option.cluster.parallelism)
        who = f"all {users:,} need" if users > 1 else "one stream needs"
        said.append(f"{who} {option.cluster.gpus}x {name} ({layout}, {speed.value:,.1f} tokens/s each)")
        if not held and f"; or {option.cluster.gpus}x {name}" in message:
            said.pop()  # the memory's answer is the speed's too: said once
    if not said:
        return message
    return (f"{message.rstrip('.')} (by memory alone). At ≥{floor:g} tokens/s per user: " + ", and ".join(said) + ".")


POOR_FIT_NOTE = "poor fit: "  # a GPU named that takes a fleet where another GPU does the work for far less
POOR_FIT_NODES = 2  # a plan on this many nodes of the GPU named is checked against the catalog's best
POOR_FIT_FACTOR = 3.0  # ... and called a poor fit when that best costs a third or less
# one node of the GPU named (a training run): called a poor fit when the best is this many times cheaper and faster
# both. A node is a choice a buyer makes for their own reasons (quota, the node they have); an A100 40GB node at 3x an
# H100's cost ($187 against $58 for a 32B LoRA) is theirs to make, 8 A10G at 29x (59.7 days against 2) is not
POOR_FIT_ONE_NODE_FACTOR = 5.0


class _FreeOfPin:
    """The workload planned with the GPU named left free (the catalog's best), ranked once per answer and only when
    asked for: the poor-fit check and a budget missed on the GPU named both weigh the plan against it (a search of
    the whole catalog costs about as much as the answer)."""

    def __init__(self, given: Workload, effective: Workload, arch: Architecture, data: CatalogData) -> None:
        self.given, self.effective, self.arch, self.data = given, effective, arch, data
        self._ranked: Ranked | None = None

    def ranked(self) -> Ranked:
        if self._ranked is None:
            free_given = self.given.model_copy(update={"gpu": None, "gpu_memory_gb": None})
            self._ranked = evaluate(self.effective.model_copy(update={"gpu": None, "gpu_memory_gb": None}), self.arch,
                                    self.data, given=free_given, ranking_only=True)
        return self._ranked


def _short_gpu(name: str) -> str:
    """The word a user types for a GPU ("try GH200", "try MI300X"): its name's first word, past a family name."""
    words = name.split()
    return words[1] if len(words) > 1 and words[0] in ("Instinct", "Tesla") else words[0]


def _gpu_named_freely(given: Workload, data: CatalogData) -> bool:
    """A GPU type named ("try L4s"), not GPUs the user owns or counted: a plan on another GPU is an answer to give."""
    return not (given.gpu is None or given.gpu_count or given.nodes or owns_gpus(given) or rented_nowhere(given, data))


PIN_DROPPED = "without the "  # a budget missed on the GPU named, met by the catalog's pick: "without the L4 24GB pin, …"


def pinned_budget_note(given: Workload, effective: Workload, data: CatalogData, chosen: Option | None,
                       notes: list[str], free: _FreeOfPin) -> list[str]:
    """A monthly budget no plan on the GPU named meets: whether dropping the pin meets it. "serve Qwen3 30B-A3B for
    100 users" (1 GH200, $1,672) -> "try L4s" ($11,685) -> "under $3k/month" said "no option is within $3,000 a
    month" where the thread's first answer met it: the budget is missed on L4s, not everywhere."""
    budget = effective.budget_usd_per_month
    missed = f"{BUDGET_NOTE}no option is within "
    note = next((n for n in notes if n.startswith(missed)), None)
    if (note is None or budget is None or chosen is None or not _gpu_named_freely(given, data)
            or (effective.mode or "inference") in TRAINING_MODES or effective.budget_usd_per_run is not None):
        return notes
    floor = user_floor(effective)
    meets = next((o for o in free.ranked().options if o.gpu != chosen.gpu and o.total_usd <= budget * 1.0001
                  and all(t.met for t in o.throughput.targets)
                  and per_user_speed(o) >= floor * 0.999), None)
    named = data.gpu(chosen.gpu)
    name = named.name if named is not None else chosen.gpu
    cheapest = re.search(r"; the cheapest is (.+) at (\$[\d,]+)(.*)$", note)
    if cheapest is None:
        return notes
    on_pin = f"{BUDGET_NOTE}not on {name} within ${budget:,.0f} a month (the cheapest, {cheapest.group(1)}, is {cheapest.group(2)}{cheapest.group(3)})"
    if meets is None:
        said = f"{on_pin}; nor on any other GPU in the catalog at this load"
    else:
        other = data.gpu(meets.gpu)
        short = _short_gpu(other.name) if other is not None else meets.gpu
        said = (f"{on_pin}; {PIN_DROPPED}{name} pin, {meets.name} at ${meets.total_usd:,.0f} a month meets it "
                f"({per_user_speed(meets):.1f} tokens/s per user): reply “try {short}” to plan on it")
    return [said if n is note else n for n in notes]


def poor_fit_note(given: Workload, effective: Workload, arch: Architecture, data: CatalogData,
                  chosen: Option | None, free: _FreeOfPin | None = None) -> list[str]:
    """The user named a GPU type (not a count they own) and it takes a fleet: LoRA of Llama 4 Maverick on L40S is 168
    GPUs over 21 nodes, comm-bound at 1% effective MFU, for $2,197 a run where one 8x B200 node does it for $29; Qwen3
    30B-A3B for 100 users on L4s is 16 GPUs on 2 nodes for $11,685 a month where one GH200 does it for $1,672. The
    plan is right for the GPU asked about, and the answer says the GPU is the problem, with what the catalog's pick
    costs. Checked from two nodes up (it was four, and the L4 fleet at 7x went unsaid): the catalog search is one
    more ranking of every GPU (measured on that L4 plan: ~30 ms against ~7 ms without it), paid only where a GPU
    named takes several machines. On one node a training run is checked too when the GPU named is dear per peak
    TFLOP (`engine.poor_fit.dear_per_flop`), and a count said counts ("pretrain 1B on 100B tokens on 8 A10G": 59.7
    days and $23,347 where 8 H100s take ~2 days for under $1k) and is kept in the search; there the pick must be
    POOR_FIT_ONE_NODE_FACTOR times cheaper and faster both. Where the user is on one cloud (named, or the only one renting the GPU),
    the cheaper option on that cloud is named beside the catalog's pick."""
    training = (effective.mode or "inference") in TRAINING_MODES
    counted = training and given.gpu is not None and not (owns_gpus(given) or rented_nowhere(given, data))
    if chosen is None or not (_gpu_named_freely(given, data) or counted):
        return []
    one_node = chosen.cluster.nodes < POOR_FIT_NODES
    if one_node and not (training and dear_per_flop(given, effective, chosen, data)):
        return []
    free = free or _FreeOfPin(given, effective, arch, data)
    ranked = free.ranked()
    best = ranked.options[0] if ranked.options else None
    if best is None or best.gpu == chosen.gpu:
        return []
    mine, theirs = ((_run_usd(chosen) or 0.0, _run_usd(best) or 0.0) if training
                    else (work_usd(chosen, effective), work_usd(best, effective)))
    factor = POOR_FIT_ONE_NODE_FACTOR if one_node else POOR_FIT_FACTOR
    if not (theirs > 0 and mine >= factor * theirs):
        return []
    hours, best_hours = chosen.hours_per_run or 0.0, best.hours_per_run or 0.0
    if one_node and not (best_hours > 0 and hours >= factor * best_hours):
        return []  # cheaper but slower elsewhere: one node of the GPU named may be bought for its speed
    named = data.gpu(chosen.gpu)
    other = data.gpu(best.gpu)
    per = " a run" if training else " a month"
    what = f"${mine:,.0f} against ${theirs:,.0f}{per}"
    short = _short_gpu(other.name) if other is not None else best.gpu
    days = f" ({hours / 24:,.1f} days)" if hours >= 48 else ""
    fleet = (f"takes {hours_text(hours)}{days} a run on {chosen.cluster.gpus} GPUs" if one_node
             else f"takes {chosen.cluster.gpus} GPUs on {chosen.cluster.nodes} nodes")
    within = f" in {hours_text(best_hours)}" if training and best_hours else ""
    said = (f"{POOR_FIT_NOTE}{named.name if named else chosen.gpu} {fleet} here; {best.name} does it{within} for "
            f"{mine / theirs:,.0f}x less ({what})")
    cloud = on_one_cloud(given, chosen, data)
    near = same_cloud_option(cloud, chosen, ranked.options, data) if cloud and cloud_of(best, data) != cloud else None
    near_usd = (_run_usd(near) or 0.0) if near is not None and training else work_usd(near, effective) if near else 0.0
    if near is not None and 0 < near_usd < mine:
        near_gpu = data.gpu(near.gpu)
        near_short = _short_gpu(near_gpu.name) if near_gpu is not None else near.gpu
        near_within = f" in {hours_text(near.hours_per_run)}" if training and near.hours_per_run else ""
        said += (f"; on {cloud_words(cloud or '', data)}, {near.name} does it{near_within} for "
                 f"{mine / near_usd:,.0f}x less (${near_usd:,.0f}{per})")
        there = "" if given.provider else f" on {cloud_words(cloud or '', data, reply=True)}"  # a thread keeps a provider named
        reply = f"“try {near_short}{there}”" + (f" or “try {short}”" if near_short != short or there else "")
        return [f"{said}: reply {reply} to plan on it"]
    return [f"{said}: reply “try {short}” to plan on it"]


AVAILABILITY_NOTE = "availability: "  # replicas asked for failover, and what one failing leaves (first message)


def availability_note(effective: Workload, chosen: Option | None) -> list[str]:
    """Availability asked ("99.9% uptime", "HA"): what the plan gives, in one line the first message keeps, since
    the parser's note of how it read the request is among the first a busy answer drops. With the GPUs fixed
    holding a single replica, that it is a single point of failure."""
    wanted = failover_replicas(effective)
    if chosen is None or wanted < 2 or (effective.mode or "inference") != "inference":
        return []
    plan = chosen.cluster
    replicas = int(plan.replicas or 1)
    if replicas < wanted:
        return [f"{AVAILABILITY_NOTE}the {plan.gpus} GPUs fixed hold {replicas} replica of {plan.gpus_per_replica or plan.gpus}: "
                f"a single point of failure; {wanted} replicas on separate machines need "
                f"{wanted * int(plan.gpus_per_replica or plan.gpus)} GPUs"]
    left = (replicas - 1) / replicas
    return [f"{AVAILABILITY_NOTE}{replicas} replicas on separate machines; with one down the rest serve {left:.0%} of "
            "the users at the speed shown (for full capacity through a failure, ask for the users times "
            f"{replicas / max(1, replicas - 1):.2g})"]


MARGIN_NOTE = "speed margin: "  # what sizing over the per-user speed asked costs, when it costs (first message)
MARGIN_SAID_FROM = 0.05  # ... said when the plan at the speed exactly is this much cheaper


def margin_cost_note(given: Workload, effective: Workload, arch: Architecture, data: CatalogData,
                     chosen: Option | None) -> list[str]:
    """A per-user speed asked is met with SPEED_TARGET_MARGIN to spare (the estimate's error is about ±10%): where
    that margin buys whole replicas, what it costs is said with the plan sized to the speed exactly, so the buyer
    decides (DeepSeek-V3 for 500 users at 30 tokens/s: 9 nodes at 33.8 tokens/s for $289k a month, where 7 nodes
    meet 30 for $225k)."""
    if (chosen is None or (effective.mode or "inference") != "inference" or not effective.target_tokens_per_s_per_user
            or given.speed_margin is not None or given.gpu_count or given.nodes):
        return []
    exact_given = given.model_copy(update={"speed_margin": 0.0})
    exact = evaluate(effective.model_copy(update={"speed_margin": 0.0}), arch, data, given=exact_given,
                     ranking_only=True)
    best = exact.options[0] if exact.options else None
    if best is None or best.total_usd > chosen.total_usd * (1 - MARGIN_SAID_FROM):
        return []
    speed = best.throughput.decode_tokens_per_s_per_sequence
    at = f", {speed.value:,.1f} tokens/s per user" if speed is not None else ""
    return [f"{MARGIN_NOTE}the {SPEED_TARGET_MARGIN:.0%} kept over {effective.target_tokens_per_s_per_user:g} tokens/s "
            f"per user (for the estimate's error) costs ${chosen.total_usd - best.total_usd:,.0f} a month: sized to "
            f"{effective.target_tokens_per_s_per_user:g} exactly, {best.name} for ${best.total_usd:,.0f}{at}; say “no "
            "margin” to plan on it"]


WAYS_OUT_NOTE = "the ways out, timed: "


def fixed_training_ways_out(given: Workload, effective: Workload, arch: Architecture, data: CatalogData,
                            cluster: ClusterPlan | None, chosen: Option | None = None) -> list[str]:
    """"How long will it take to full fine-tune Qwen2.5 32B on 1B tokens on 8 H100s?": the 8 do not hold it, and the
    ways out said in memory alone (8-bit Adam at 50.6 GB, 16 H100s) do not answer "how long". Each is planned as
    the engine plans any run (the same GPU, on the GPUs fixed or on as many as it takes) and its time and cost per
    run are said, so the user picks a way out by what it costs them. The GPUs fixed that hold it but miss the
    deadline said ("on 8 H100s in 12 hours": 20.8 h) get the fewest of the same GPU that finish in time, on any offer
    (the note on the fixed count had said no count "on this offer" finishes, a dead end)."""
    if not given.gpu_count or effective.mode not in ("full", "pretrain", "lora", "qlora") or not effective.dataset_tokens \
            or not effective.gpu:
        return []
    deadline = float(given.deadline_hours or 0)
    late = (chosen is not None and deadline > 0 and chosen.hours_per_run is not None
            and chosen.hours_per_run > deadline * 1.0001)
    free = effective.model_copy(update={"gpu_count": None, "nodes": None})  # as many of the same GPU as it takes
    if late:
        on_time = [o for o in _timed_options(free, arch, data) if (o.hours_per_run or 0.0) <= deadline * 1.0001]
        if not on_time:
            return []
        fewest = _fewest_gpus(on_time, free)
        return [f"{WAYS_OUT_NOTE}{fewest.cluster.gpus} of them finish in {hours_text(fewest.hours_per_run or 0.0)}, "
                f"from ${run_cost_usd(fewest.tco, free):,.0f} a run rented ({fewest.name})"]
    if cluster is None or cluster.fits:
        return []
    ways: list[tuple[str, Workload]] = []
    same = "on the same GPU" if given.gpu_count == 1 else f"on the same {given.gpu_count}"
    if effective.mode in ("full", "pretrain") and effective.optimizer in (None, "adamw"):
        ways.append((f"8-bit Adam {same}", effective.model_copy(update={"optimizer": "adamw_8bit"})))
    if effective.mode == "full":
        ways.append((f"LoRA {same}", effective.model_copy(update={
            "mode": "lora", "optimizer": None, "lora_rank": effective.lora_rank or 16, "zero_stage": None})))
    elif effective.mode == "lora":
        ways.append((f"QLoRA {same}", effective.model_copy(update={
            "mode": "qlora", "precision": "nf4", "optimizer": "paged_adamw_8bit", "zero_stage": None})))
    ways.append(("more of them", free))
    said: list[str] = []
    for label, variant in ways:
        fitting = _timed_options(variant, arch, data)
        if not fitting:
            continue
        # more GPUs: the fewest that hold it (the count the fix names), the cheapest of those
        best = _fewest_gpus(fitting, variant) if label == "more of them" else fitting[0]
        if best.hours_per_run is None:
            continue
        what = f"{best.cluster.gpus} of them" if label == "more of them" else label
        said.append(f"{what}: {hours_text(best.hours_per_run)} a run, from ${run_cost_usd(best.tco, variant):,.0f} "
                    f"rented")
    return [f"{WAYS_OUT_NOTE}" + "; ".join(said)] if said else []


def _timed_options(w: Workload, arch: Architecture, data: CatalogData) -> list[Option]:
    """The ranked options of `w` that fit and have a run length: what a timed way out is read from."""
    ranked = evaluate(w, arch, data, given=w, ranking_only=True)
    return [o for o in ranked.options if o.cluster.fits and o.hours_per_run is not None]


def _fewest_gpus(options: list[Option], w: Workload) -> Option:
    """The option with the fewest GPUs, the cheapest run among those."""
    return min(options, key=lambda o: (o.cluster.gpus, run_cost_usd(o.tco, w)))


INT4_FIXED_NOTE = "4-bit weights on the GPUs you fixed: "


def int4_on_fixed_note(given: Workload, effective: Workload, arch: Architecture, data: CatalogData,
                       chosen: Option | None) -> list[str]:
    """GPUs the user fixed serve below the speed floor (4 RTX 3090s give 70B's 10 users 13 tokens/s in FP8
    weight-only): before "16 GPUs keep 20+", whether a 4-bit AWQ/GPTQ checkpoint keeps the floor on the same GPUs,
    as it halves the bytes every decode step reads. Only where the user left the weights open, vLLM has the integer
    kernels for the GPU, and the chosen plan is not already 4-bit."""
    if (chosen is None or (effective.mode or "inference") != "inference" or not given.gpu_count
            or given.precision is not None or chosen.precision in ("int4", "nf4")
            or not any(n.startswith(SLOW_FIXED_NOTE) for n in chosen.cluster.notes)):
        return []
    gpu = data.gpu(chosen.gpu)
    released = data.model(effective.model) if effective.model else None
    if gpu is None or not integer_kernels(gpu) or (released is not None and released.native_precision in ("int4", "mxfp4")):
        return []
    narrow = evaluate(effective.model_copy(update={"precision": "int4"}), arch, data,
                      given=given.model_copy(update={"precision": "int4"}), ranking_only=True)
    best = narrow.options[0] if narrow.options else None
    speed = best.throughput.decode_tokens_per_s_per_sequence if best is not None else None
    if (best is None or speed is None or best.cluster.gpus > given.gpu_count
            or any(n.startswith(SLOW_FIXED_NOTE) for n in best.cluster.notes)):
        return []
    return [f"{INT4_FIXED_NOTE}an AWQ or GPTQ 4-bit checkpoint (vLLM reads either; check quality on your task) keeps "
            f"{speed.value:.1f} tokens/s per user on the same {given.gpu_count} GPUs"]


def _unpriced_job(w: Workload, arch: Architecture, data: CatalogData, cluster: ClusterPlan | None) -> UnpricedJob | None:
    """The offline job on the GPUs the no-option report fits on (engine.unpriced_job), None for anything else."""
    gpu = data.gpu(cluster.gpu) if cluster is not None else None
    if cluster is None or gpu is None or not is_offline_job(w):
        return None
    return unpriced_job(w, arch, gpu, cluster, _report_offer(w, gpu, data))


def _short_said(problem: Problem, job: UnpricedJob, cluster: ClusterPlan) -> Problem:
    """"It fits on 2x H100 …, but …" with what those GPUs sustain against the deadline and the GPUs that meet it."""
    lead = re.match(r"It fits on \d+x [^,.]+", problem.message)
    if lead is None or not job.note:
        return problem
    rate = job.throughput.targets
    wanted = next((t.wanted for t in rate if t.name == "requests_per_s"), None)
    if wanted is None:
        return problem
    meets = (f"{job.needed_gpus:,} GPUs ({job.needed_layout}) meet it" if job.needed_gpus else "no count of them meets it")
    said = (f"{lead.group(0)}, which sustain {job.sustained_rps:,.1f} of the {wanted:,.1f} prompts/s the deadline "
            f"needs ({meets})")
    return problem.model_copy(update={"message": said + problem.message[lead.end():]})


def _report_offer(w: Workload, gpu: GpuRecord, data: CatalogData) -> OfferRecord | None:
    """The machine the no-option report is planned on: "2x RTX 4090" is one box with two cards, so the smallest
    offer that holds the GPUs the user fixed on one node (else the largest node there is); the first listed when no
    count was given. Planned on a 1-GPU offer, two cards read as two nodes joined by InfiniBand."""
    listed = [o for o in data.offers if o.gpu == gpu.id and (w.provider is None or o.provider == w.provider)]
    count = w.gpu_count if w.gpu_count and not w.nodes else None
    if not listed or count is None:
        return listed[0] if listed else None
    holds = [o for o in listed if o.gpus_per_node >= count]
    return min(holds, key=lambda o: o.gpus_per_node) if holds else max(listed, key=lambda o: o.gpus_per_node)


def _why_no_option(w: Workload, data: CatalogData, cluster: ClusterPlan, memory: MemoryEstimate | None) -> Problem:
    """The reason there is nothing to price, in the terms of the user's own configuration."""
    gpu = data.gpu(cluster.gpu)
    name = gpu.name if gpu is not None else cluster.gpu
    if not cluster.fits and memory is not None:
        usable = memory.usable_gb_per_gpu
        fix = next((n for n in cluster.notes if "needs" in n or "does not fit" in n), "")
        kept = f" after {float(w.headroom):.0%} headroom" if w.headroom else ""  # none kept back: a local card's all
        room = f", {usable:,.1f} GB usable{kept}" if usable else ""
        return Problem(code="does_not_fit", field="gpu",
                       message=f"Does not fit on {cluster.gpus}x {name}: {memory.per_gpu_gb:,.1f} GB needed per GPU"
                               f"{room}. {fix[:1].upper() + fix[1:] if fix else ''}".strip())
    listed = [o for o in data.offers if o.gpu == cluster.gpu and (w.provider is None or o.provider == w.provider)]
    kind = w.pricing or "on_demand"
    priced = [o for o in listed if (o.spot_usd_per_hour if kind == "spot" else o.on_demand_usd_per_hour)]
    largest = max((o.gpus_per_node for o in priced), default=0)
    if priced and cluster.gpus > largest and not any(o.inter_node_fabric for o in priced):
        # priced, but no offer is big enough for the plan and none links its machines: the shape, not the price
        # a GPU with more memory that the catalog rents (the next size up): "try L40S" was said of MI300X plans too
        sold = {o.gpu for o in data.offers}
        bigger = min((g for g in data.gpus if gpu is not None and g.memory_gb > gpu.memory_gb and g.id in sold),
                     key=lambda g: (g.memory_gb, g.id), default=None)
        instead = (f"A GPU with more memory holds it on fewer cards ('try {bigger.name}'), or give a " if bigger is not None
                   else "Give a ")
        return Problem(code="no_offer_shape", field="gpu",
                       message=f"It fits on {cluster.gpus}x {name} across {cluster.nodes} nodes, but the catalog's {name} "
                               f"offers are single machines of up to {largest} GPUs with no network between them: no offer "
                               f"hosts the plan. {instead}price for your own cluster ('at $0.50/hr per GPU').")
    if listed and kind == "spot" and not any(o.spot_usd_per_hour for o in listed):
        sellers = ", ".join(sorted({getattr(data.provider(o.provider), "name", o.provider) for o in listed})[:3])
        return Problem(code="no_price", field="pricing",
                       message=f"It fits on {cluster.gpus}x {name}, but {sellers} sells no spot {name} in the catalog "
                               "(on-demand and reserved only): say “on demand”, or drop the provider to see spot "
                               "prices elsewhere.")
    if listed:
        shapes = ", ".join(sorted({f"{o.provider} {o.instance_type}" for o in listed})[:3])
        return Problem(code="no_price", field="pricing",
                       message=f"It fits on {cluster.gpus}x {name}. The catalog lists {shapes} but has no sourced "
                               f"{kind.replace('_', '-')} price for it (a wrong price is worse than none): give yours "
                               "('at $4/hr per GPU') for the costs, or drop the provider to compare the others.")
    return Problem(code="no_offer", field="gpu",
                   message=f"It fits on {cluster.gpus}x {name}, but no provider in the catalog rents that "
                           f"{'GPU' if w.provider is None else 'GPU at ' + w.provider}: the figures are for your own "
                           "hardware. Give a price ('at $0.40/hr') for the costs, or name a GPU providers rent ('try L40S').")


def _spot_gang_led_on_demand(w: Workload, effective: Workload, arch: Architecture, data: CatalogData, result: Ranked,
                             assumptions: list[Assumption]) -> tuple[Workload, Ranked, list[Assumption]]:
    """Synchronous training on spot whose pick needs more nodes than spot capacity reliably holds together
    (engine.spot.SPOT_GANG_MAX_NODES): led with on demand, spot said as possible and risky with its price. 64 p5
    nodes on spot for a month won at $560k beside $947k on demand, though any of the 64 reclaimed stalls the run and
    AWS sells multi-week multi-node capacity as Capacity Blocks, not spot."""
    if effective.pricing != "spot" or (effective.mode or "inference") not in TRAINING_MODES:
        return effective, result, assumptions
    spot_pick = _chosen_option(result, effective)
    if spot_pick is None or not gang_too_large(spot_pick.cluster.nodes):
        return effective, result, assumptions
    on_demand = effective.model_copy(update={"pricing": "on_demand"})
    led = evaluate(on_demand, arch, data, given=w)
    if _chosen_option(led, on_demand) is None:
        return effective, result, assumptions  # nothing sold on demand for it: spot, as asked, with its note
    led.notes.insert(0, spot_gang_note(spot_pick.name, run_cost_usd(spot_pick.tco, effective), spot_pick.cluster.nodes,
                                       spot_pick.hours_per_run or 0.0))
    said = Assumption(field="pricing", value="on_demand", why=(
        f"spot asked, but its cheapest plan needs {spot_pick.cluster.nodes} nodes: past {SPOT_GANG_MAX_NODES} a "
        "synchronous run on spot is shown as possible, not planned (any node reclaimed stalls them all, and the "
        "replacement must come from the same zone's spare capacity); on-demand prices"))
    return on_demand, led, [a for a in assumptions if a.field != "pricing"] + [said]


SPOT_DEARER_NOTE = "spot is not cheaper here: "  # spot asked, the on-demand pick cheaper: led with it (first message)
SPOT_SAVES_SAID = "; against the on-demand pick, "  # the spot training note's saving, weighed against that pick


def _spot_cost(option: Option, w: Workload) -> tuple[float, str]:
    """What a spot plan is weighed against on demand by, and its unit: a training run's cost as printed (per run),
    an offline job's, or a service's monthly bill."""
    if (w.mode or "inference") in TRAINING_MODES:
        return run_cost_usd(option.tco, w), "per run"
    if w.batch_items:
        return work_usd(option, w), "for the job"
    return option.total_usd, "a month"


def _spot_weighed_on_demand(w: Workload, effective: Workload, arch: Architecture, data: CatalogData, result: Ranked,
                            assumptions: list[Assumption]) -> tuple[Workload, Ranked, list[Assumption]]:
    """Spot asked ("use spot"): its pick weighed against the plan the answer picks on demand under the same
    constraints. Spot never wins over a cheaper on-demand plan: QLoRA of an 8B on A100s was $9.25 a run on demand
    (a marketplace host, 1 GPU), then "use spot" led with AWS 8x A100 spot at $13.70 and said "spot saves 25%" against
    RunPod, a plan the answer would not have picked. Where spot is dearer the answer leads with on demand and says
    so; where it is cheaper, the training note states the saving against that on-demand pick."""
    if effective.pricing != "spot":
        return effective, result, assumptions
    spot_pick = _chosen_option(result, effective)
    if spot_pick is None:
        return effective, result, assumptions
    on_demand = effective.model_copy(update={"pricing": "on_demand"})
    led = evaluate(on_demand, arch, data, given=w)
    od_pick = _chosen_option(led, on_demand)
    if od_pick is None:
        return effective, result, assumptions  # nothing sold on demand for it: spot, as asked
    spot_usd, unit = _spot_cost(spot_pick, effective)
    od_usd, _ = _spot_cost(od_pick, on_demand)
    money = (lambda x: f"${x:,.2f}") if max(spot_usd, od_usd) < 100 else (lambda x: f"${x:,.0f}")
    if od_usd < spot_usd * 0.999 and all(t.met for t in od_pick.throughput.targets):
        led.notes.insert(0, f"{SPOT_DEARER_NOTE}the best spot plan, {spot_pick.name}, is {money(spot_usd)} {unit} "
                            f"against {money(od_usd)} on demand ({od_pick.name}); keep on demand")
        said = Assumption(field="pricing", value="on_demand", why=(
            f"spot asked, but its best plan ({money(spot_usd)} {unit}) costs more than the on-demand pick "
            f"({money(od_usd)}); on-demand prices"))
        return on_demand, led, [a for a in assumptions if a.field != "pricing"] + [said]
    same_plan = od_pick.offer_id == spot_pick.offer_id and od_pick.cluster.gpus == spot_pick.cluster.gpus
    saving = (f"{SPOT_SAVES_SAID}{od_pick.name}, {money(od_usd)} {unit}: spot saves {1 - spot_usd / od_usd:.0%}"
              if od_usd > 0 and not same_plan else "")  # the same plan on demand is said already (its compute)
    if saving and (effective.mode or "inference") in TRAINING_MODES:
        result.notes[:] = [n + saving if n.startswith(SPOT_TRAINING_PREFIX) else n for n in result.notes]
    elif saving:
        result.notes[:] = [n + saving if n.startswith(SPOT_SERVING_PREFIX) else n for n in result.notes]
    return effective, result, assumptions


LOOSER_TTFT_FACTORS = (2.0, 4.0)  # the looser first-token targets priced beside one no plan meets


def _with_looser_ttft(notes: list[str], effective: Workload, given: Workload, arch: Architecture,
                      data: CatalogData) -> list[str]:
    """A first-token target no plan can meet (the prompt's prefill alone is over it, `TTFT_REACH_NOTE`): what a looser
    one costs, the cheapest plan meeting 2x and 4x the target. The closest plan to an unreachable 5 s for 10 users of
    130k-token prompts is a TP8 group per user, 80 GPUs at $613k a month; at 10 s it is half of that and at 20 s 32
    B200s: the trade a team decides on, said beside the ways to meet the target itself. Two more searches, only then."""
    at = next((i for i, n in enumerate(notes) if n.startswith(TTFT_REACH_NOTE)), None)
    target = effective.target_ttft_s
    if at is None or not target:
        return notes
    said: list[str] = []
    for factor in LOOSER_TTFT_FACTORS:
        looser = float(target) * factor
        w = effective.model_copy(update={"target_ttft_s": looser})
        ranked = evaluate(w, arch, data, given=given.model_copy(update={"target_ttft_s": looser}), ranking_only=True)
        pick = next((o for o in ranked.options if all(t.met for t in o.throughput.targets)), None)
        if pick is None:
            continue
        name = next((g.name for g in data.gpus if g.id == pick.gpu), pick.gpu)
        said.append(f"{looser:g} s takes {pick.cluster.gpus}× {name} (${pick.total_usd:,.0f} a month)")
    if not said:
        return notes
    return [*notes[:at], f"{notes[at]}; a looser target costs less: {', '.join(said)}", *notes[at + 1:]]


def _chosen_option(result: Ranked, w: Workload) -> Option | None:
    """The report describes the user's GPU if they fixed one, else the recommended option."""
    if not result.options:
        return None
    if w.gpu is not None:
        return next((o for o in result.options if o.gpu == w.gpu), result.options[0])
    return recommended(result.options, result.recommendation)


def _missing(w: Workload, assumptions: list[Assumption]) -> tuple[str, ...]:
    """Contract fields the user did not give and the answer assumed or still needs."""
    out = [a.field for a in assumptions if a.field in CONTRACT_WORKLOAD_KEYS and getattr(w, a.field) is None]
    if w.model is None and w.params_b is None:
        out.append("model")
    steps = any(a.field == "train_steps" for a in assumptions)  # steps x global batch x sequence: the data
    if (w.mode in TRAINING_MODES or w.mode is None) and w.dataset_gb is None and w.dataset_tokens is None and w.mode is not None \
            and not steps:
        out.append("dataset_tokens")
    if w.data_location is None and w.mode in TRAINING_MODES:
        out.append("data_location")
    return tuple(dict.fromkeys(out))


def _egress_summary(w: Workload, data: CatalogData, chosen: Option | None) -> dict[str, Any] | None:
    source = data_source(w, data)
    destination = None
    if chosen is not None and chosen.offer_id is not None:
        offer = data.offer(chosen.offer_id)
        destination = data.provider(offer.provider) if offer is not None else None
    out = egress_for(w, source, destination)
    out["migration_friction"] = migration_friction(w.dependencies)
    out["source"] = source.id if source is not None else None
    out["destination"] = destination.id if destination is not None else None
    return out


def _quantization(arch: Architecture, w: Workload) -> list[dict[str, Any]]:
    """Weight footprint per precision, from engine.quantization; for serving, with one sequence's KV cache at the
    context asked (at 128k, Llama 3.1 70B's BF16 KV is ~43 GB: a table of weights alone read "142 GB" where one
    128k sequence needs ~184, and sent a /vram check to an OOM)."""
    try:
        from engine.quantization import precision_table
    except ImportError:  # physics module not present: the table is optional
        return []
    try:
        serving = (w.mode or "inference") == "inference"
        return list(precision_table(arch, seq_len=int(w.seq_len) if serving and w.seq_len else None))
    except Exception:
        return []


def _price_doubt(offer: OfferRecord) -> str:
    """What a catalog row says against its own price ("nebius.com/prices read 2026-09-25 ... listed HGX H100 at
    $3.85/GPU-h: re-check before quoting"), or "" when its sources agree."""
    if "re-check" not in (offer.notes or ""):
        return ""
    return "; ".join(part.strip() for part in offer.notes.split(";") if "re-check" in part or "listed" in part)


def _doubted_rate(gpu_id: str, rate: float, data: CatalogData | None) -> str:
    """`_price_doubt` of the on-demand row this per-GPU rate comes from, without its "re-check" ending."""
    for offer in data.offers if data is not None else ():
        if offer.gpu != gpu_id:
            continue
        doubt = _price_doubt(offer)
        if (doubt and offer.on_demand_usd_per_hour
                and abs(offer.on_demand_usd_per_hour / offer.gpus_per_node - rate) < 0.005):
            return doubt.removesuffix(": re-check before quoting")
    return ""


def _break_even_note(gpu: GpuRecord, gpus: int, rate: float, data: CatalogData | None = None,
                     provider_id: str | None = None, pricing: str | None = None) -> list[str]:
    """Buy or rent for `gpus` of this GPU at `rate` USD per GPU-hour, where the GPU has a purchase price. When
    `rate` is a marketplace host's (one machine, no SLA, prices that move daily), the verdict is taken against
    the cheapest provider with an SLA instead, and the marketplace figure is given beside it: a purchase is
    weighed against the rental a team would actually run on for years; for the same reason an on-demand rate is
    also weighed as 1-3 year reserved capacity (`pricing`: the rate's basis, on-demand when not given)."""
    if not gpu.purchase_price_usd or rate <= 0:
        return []
    hardware = server_usd(gpu, gpus)
    kw = server_kw(gpu, gpus)  # the IT load a colocation contract is sized by
    space = kw * COLO_USD_PER_KW_MONTH / HOURS_PER_MONTH

    def hours_at(usd_per_gpu_hour: float) -> float:
        return busy_hours_to_break_even(gpu, gpus, usd_per_gpu_hour).value

    provider = data.provider(provider_id) if data is not None and provider_id else None
    alternative = ""
    if data is not None and provider is not None and provider.kind == "marketplace":
        sla = sla_rate(gpu.id, data)
        if sla is not None and sla[0] > rate:
            market_hours = hours_at(rate)
            market = (f"~{market_hours / HOURS_PER_MONTH:,.0f} months" if market_hours > 0
                      else "never: that rent barely covers the power")
            alternative = f" ({sla[1]}, the cheapest with an SLA); against a ${rate:,.2f} marketplace host: {market}"
            rate = sla[0]
    even = hours_at(rate)
    if even <= 0:
        return [f"buy vs rent: rent. At ${rate:,.2f}/GPU-hour the rent barely covers the power and rack space of owned "
                f"{gpu.name} servers"]
    months = even / HOURS_PER_MONTH
    on_demand = (pricing or "on_demand") == "on_demand"
    reserved_rate = rate * (1 - RESERVED_DISCOUNT_ASSUMED) if on_demand else rate
    # the verdict is the no-model answer's (engine.buy_or_rent): owning over 3 years around the clock, less the GPUs'
    # resale, against the cheaper rental; a close call when the GPU price's own spread holds both answers
    weighed = break_even_at(gpu, gpus, rate, reserved_rate=reserved_rate)
    verdict = ("close call" if weighed is not None and weighed.close else
               "buying can pay off" if weighed is not None and weighed.verdict == "buy" else "rent")
    if on_demand:
        # hardware kept busy for years is weighed against the rent a team would commit to for that long
        reserved_hours = hours_at(reserved_rate)
        reserved = (f"~{reserved_hours / HOURS_PER_MONTH:,.0f} months" if reserved_hours > 0
                    else "never: that rent barely covers the power")
        alternative += (f"; against 1-3 year reserved capacity (~{RESERVED_DISCOUNT_ASSUMED:.0%} below on-demand, "
                        f"${reserved_rate:,.2f}/GPU-hour): {reserved}")
    doubt = _doubted_rate(gpu.id, rate, data)
    if doubt:  # the rent the purchase is weighed against comes from a row whose sources disagree
        alternative += f"; that ${rate:,.2f} is to confirm: {doubt}"
    resale = ""
    close = ""
    if weighed is not None:
        resale = (f"; the GPUs resold for ~{weighed.resale_share:.0%} of their price after {DEFAULT_YEARS:g} years, "
                  f"~${weighed.resale_usd:,.0f}: {RESALE_BASIS}")
        if weighed.close:
            close = (f"; over {DEFAULT_YEARS:g} years owning costs ${weighed.own_low_usd / 1e3:,.0f}k-"
                     f"${weighed.own_high_usd / 1e3:,.0f}k across the GPU's price spread (${weighed.price_low_usd:,.0f}-"
                     f"${weighed.price_high_usd:,.0f} each) against ${weighed.best_rent_usd / 1e3:,.0f}k rented")
    return [f"buy vs rent: {verdict}. {gpus} x {gpu.name} as servers cost ~${hardware:,.0f} (GPUs at ~${gpu.purchase_price_usd:,.0f} "
            f"each, {gpu.purchase_price_source or gpu.source}, plus ~50% for the rest of the server{resale}) and pay for "
            f"themselves after {even:,.0f} busy hours (~{months:,.1f} months around the clock, counting their resale then) "
            f"against ${rate:,.2f}/GPU-hour{alternative}; power for "
            f"the whole server with cooling ({SERVER_POWER_FACTOR:g}x GPU TDP, PUE {PUE:g}) at ${USD_PER_KWH:g}/kWh and colocation "
            f"space for its {kw:,.1f} kW at ${COLO_USD_PER_KW_MONTH:,.0f}/kW-month (CBRE's H2 2024 North America average "
            f"asking rate: ${space * HOURS_PER_MONTH:,.0f} a month) included; networking and staff are "
            f"not (owning usually wins only above ~70% sustained utilisation for 3+ years){close}"]


def _buy_vs_rent(w: Workload, chosen: Option, data: CatalogData) -> list[str]:
    """Buy or rent: the chosen option's break-even, where the GPU has a purchase price."""
    gpu = data.gpu(chosen.gpu)
    compute = next((r for t in chosen.tco[:1] for r in t.rows if r.item == "compute"), None)
    if gpu is None or compute is None:
        return []
    rate = compute.inputs.get("usd_per_gpu_hour")
    if not isinstance(rate, int | float):
        return []
    return _break_even_note(gpu, chosen.cluster.gpus, float(rate), data, chosen.tco[0].provider if chosen.tco else None,
                            w.pricing)


def _explanations(w: Workload, chosen: Option | None, result: Ranked, egress: dict[str, Any] | None,
                  data: CatalogData | None = None) -> list[str]:
    """Where this answer departs from the naive calculation (100% of peak FLOPs, a flat egress rate), and why."""
    notes: list[str] = []
    if chosen is None:
        return notes
    t = chosen.throughput
    if t.gpu_hours is not None and w.mode in TRAINING_MODES:
        inputs = t.gpu_hours.inputs
        util = float(inputs.get("utilisation", 1.0))
        peak = float(inputs.get("peak_tflops", 0.0))
        tokens = float(inputs.get("tokens", 0.0)) * float(inputs.get("epochs", 1.0))
        if util < 1.0 and peak > 0:
            naive_hours = 6 * float(w.params_b or 0) * 1e9 * tokens / (peak * 1e12) / 3600
            mfu = float(inputs.get("mfu", util))
            executed = float(inputs.get("flops_per_token", 0))
            model_flops = float(inputs.get("model_flops_per_token", executed))
            basis = (f"{mfu:.0%} model FLOPs utilisation ({util:.0%} hardware utilisation including the "
                     f"{executed / model_flops - 1:.0%} recompute of gradient checkpointing)"
                     if executed > model_flops * 1.001 else f"{mfu:.0%} model FLOPs utilisation")
            notes.append(
                f"GPU-hours assume {basis} at {model_flops:.3g} model FLOPs/token: "
                f"{t.gpu_hours.value:,.0f} GPU-hours per run; the naive 6 x params x tokens at 100% of "
                f"{peak:g} TFLOPS (never reached in practice) would say {naive_hours:,.0f}"
            )
    basis = str((egress or {}).get("basis", ""))
    if egress is not None and "tiers" in basis and egress.get("uncached") is not None:
        pulls = egress.get("pulls_per_month", 1)
        volume = float(w.dataset_gb or 0) * float(pulls)
        flat = volume * 0.09
        notes.append(
            f"egress priced on the source's monthly tier table ({basis}): {pulls:g} x {w.dataset_gb:g} GB = "
            f"${egress['uncached'].value:,.0f}; a flat $0.09/GB would say ${flat:,.0f}"
        )
    # their own GPUs: already bought, priced at their power (the effective workload carries that power as a rate, so
    # the pick's name says it: "rent, the rent barely covers the power" was said of GPUs they own)
    if data is not None and not owns_gpus(w) and not chosen.name.startswith(OWNED_PREFIX):
        notes.extend(_buy_vs_rent(w, chosen, data))
    runs = float(w.runs_per_month or 1)
    if runs > 1 and w.mode in TRAINING_MODES and w.dataset_pulls_per_month is None:
        tco = chosen.tco[0]
        notes.append(
            f"compute counts all {runs:g} runs a month (${row_usd(tco, 'compute'):,.0f}); if your runs are smaller "
            "experiments than the full corpus, give the tokens per run"
        )
    return notes
