"""The engine notes that change the decision, cut to one short line each for the first message.

Why its own module: the engine explains everything it assumed or ranked down in `advice.notes`,
full sentences meant for the Details layer. A few of them decide whether the pick can be taken as
it stands (GeForce cards or a marketplace host for a service, spot for a multi-node training run,
a model that was guessed, a managed service the user asked for but that did not win), and a busy
reader must see those without opening anything. This module recognises those notes by the words
the engine opens them with (tests/bot/test_caveats.py runs the real engine, so a rewording there
fails a test here) and says each in one line, most important first. It selects and shortens; it
never estimates.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.formatting import (
    fmt_num,
    fmt_usd,
    fmt_usd_short,
    rented_gpus,
    tidy_plurals,
    winner_name,
    winner_option,
)
from engine.advise import (
    ADAPTER_SCALE_NOTE,
    AVAILABILITY_NOTE,
    INC_SAID,
    INT4_FIXED_NOTE,
    MARGIN_NOTE,
    METHODS_NOTE,
    NO_FP8_NOTE,
    POOR_FIT_NOTE,
    RENTED_NOWHERE_NOTE,
    SPOT_DEARER_NOTE,
    UNPRICED_SAID,
    WAYS_OUT_NOTE,
)
from engine.cluster import BATCH_NOTE, MOE_KERNELS_NOTE, MOE_STACK_NOTE, ZERO3_BATCH_NOTE, ZERO3_COMM_NOTE
from engine.devices import DEVICES_NOTE
from engine.models import Advice, Option
from engine.network import NETWORK_NOTE
from engine.offer_plans import CAPACITY_NOTE, MISSED_FIXED_NOTE, SHORT_DEADLINE_NOTE, SLOW_FIXED_NOTE
from engine.preference import LORA_DPO_NOTE, PREFERENCE_NOTE
from engine.published import PUBLISHED_NOTE
from engine.recommend import FALLBACK_NOTE, IDLE_FIXED_NOTE, NO_INTEGER_KERNELS_NOTE
from engine.recommendation import BUDGET_NOTE, EDGE_NOTE, JOB_SPOT_HINT, JOB_SPOT_NOTE
from engine.rl import RL_NOTE, RL_SPLIT, critic_params_b, ppo_passes, rl_shape
from engine.serving import TTFT_REACH_NOTE
from engine.spot import SPOT_GANG_NOTE
from engine.tco import COLD_START_NOTE, RESERVED_PART_TIME_NOTE
from engine.vision import IMAGES_NOTE

# How the engine's notes begin (engine/recommend.py, engine/architecture.py, engine/advise.py).
CONSUMER_NOTE = "consumer GPUs and marketplace hosts"
SPOT_TRAINING_NOTE = "spot: checkpoint"
SPOT_SERVING_NOTE = "spot for serving"
ASSUMED_MODEL_NOTE = "no model named: assumed"
# a model the user named that the catalog lacks, sized from a size in its name: "foo-80b is not in the catalog: …"
UNLISTED_MODEL_NOTE = " is not in the catalog: sized as "
# the parser's note for such a name (parser/names.py): the caveat line names the model instead
UNKNOWN_SIZED_NAME = re.compile(r"I don't know “([^”]+)”.* I'll size it as a generic ")
NO_TOKENS_NOTE = "no token count, so no GPU-hours or monthly cost: the cheapest per token trained is "
TIGHT_NOTE = "tight memory: "
PRICE_NOTE = "price to confirm: "
FP8_NOTE = "FP8 assumed for weights and KV cache"
UNSTATED_NETWORK_NOTE = "network between your nodes not stated"
NO_FP8_CORES_NOTE = "has no FP8 tensor cores"

MAX_CAVEATS = 2
CHEAPEST_WORTH_A_LINE = 0.85  # a cheaper GeForce/marketplace option is named when it saves 15% or more  # the first message keeps its ten-second read: details hold the full sentences


@dataclass(frozen=True)
class HardwareKinds:
    """What the catalog says about the shown options' hardware, which the notes cannot: which GPU ids
    are consumer cards, which provider ids are marketplaces or managed services, provider names."""

    consumer_gpus: frozenset[str] = frozenset()
    marketplaces: frozenset[str] = frozenset()
    managed: frozenset[str] = frozenset()
    provider_names: Mapping[str, str] | None = None


def _provider(option: Option) -> str:
    return option.tco[0].provider if option.tco else ""


def _starting(notes: Collection[str], prefix: str) -> str | None:
    return next((n for n in notes if n.startswith(prefix)), None)


def plan_note(advice: Advice, prefix: str) -> str | None:
    """The note of the picked plan (the cluster's notes) that starts with `prefix`, or None."""
    return _starting(advice.cluster.notes if advice.cluster is not None else (), prefix)


def _picked(advice: Advice) -> list[tuple[str, Option]]:
    """The options a reader may act on from the first message, with their role: the pick, the runner-up,
    and the cheapest when the recommendation names it."""
    rec = advice.recommendation
    wanted = [("The pick", winner_name(advice)), ("The runner-up", rec.runner_up if rec else None),
              ("The cheapest", rec.cheapest if rec else None)]
    by_name = {o.name: o for o in advice.options}
    return [(role, by_name[n]) for role, n in wanted if n and n in by_name]


def service_risks(option: Option, kinds: HardwareKinds) -> tuple[bool, bool]:
    """(a GeForce card, a marketplace host): why an always-on service would not run on this option."""
    return option.gpu in kinds.consumer_gpus, _provider(option) in kinds.marketplaces


def _consumer_line(advice: Advice, kinds: HardwareKinds, roles: tuple[str, ...] = ("The pick", "The runner-up")
                   ) -> str | None:
    note = _starting(advice.notes, CONSUMER_NOTE)
    if note is None:
        return None
    picked = _picked(advice)
    pick = next((o for r, o in picked if r == "The pick"), None)

    def what(option: Option) -> str | None:
        geforce, market = service_risks(option, kinds)
        if not (geforce or market):
            return None
        return {(True, True): "a GeForce card on a marketplace host: its driver licence excludes datacenters, "
                              "no ECC, no SLA",
                (True, False): "a GeForce card: its driver licence excludes datacenters, no ECC",
                (False, True): "a marketplace host: one rented machine, no SLA"}[(geforce, market)]

    for role, option in picked:
        said = what(option) if role in roles else None
        if said is None:
            continue
        dearer = re.search(r"(\d+% dearer)", note)
        if role == "The cheapest":
            if pick is not None and option.total_usd > CHEAPEST_WORTH_A_LINE * pick.total_usd:
                return None  # a few percent cheaper is not worth a line of its own
            return (f"The cheapest, {option.name} at {fmt_usd_short(option.total_usd)}/month, is {said}; "
                    "not recommended for a service unless you name it")
        if role == "The runner-up" and pick is not None and option.total_usd < pick.total_usd:
            # listed second though cheaper: the reader needs the reason in the same line
            return f"The runner-up, {option.name} at {fmt_usd_short(option.total_usd)}/month, is cheaper but {said}"
        line = f"{role} is {said}" + (f" (ranked {dearer.group(1)} for it)" if dearer else "")
        runner_up = next((o for r, o in picked if r == "The runner-up"), None)
        if (role == "The pick" and runner_up is not None and runner_up.total_usd < option.total_usd
                and _provider(runner_up) in kinds.marketplaces and _provider(option) not in kinds.marketplaces):
            # why the cheaper one is second: the reader would otherwise take it
            line += (f"; the runner-up, {fmt_usd_short(runner_up.total_usd)}/month, is cheaper but a marketplace host "
                     "(one rented machine, no SLA)")
        return line
    return None


def _spot_dearer_line(advice: Advice) -> str | None:
    """Spot asked where the on-demand pick is cheaper: the answer leads with on demand, and says why first."""
    note = _starting(advice.notes, SPOT_DEARER_NOTE)
    return f"Spot is not cheaper here: {note[len(SPOT_DEARER_NOTE):]}" if note else None


def _spot_line(advice: Advice) -> str | None:
    note = _starting(advice.notes, SPOT_TRAINING_NOTE)
    if note is not None:
        extra = re.search(r"(\d+%) more GPU-hours", note)
        nodes = advice.cluster.nodes if advice.cluster is not None else 1
        reclaims = re.search(r"\(~([\d.]+) reclaims expected over the run", note)
        stall = (f"one preemption stalls all {nodes} nodes until capacity returns"
                 + (f", ~{reclaims.group(1)} expected over the run" if reclaims else "")) if nodes > 1 else \
            "a preemption waits for capacity"
        counted = f" ({extra.group(1)} more GPU-hours counted)" if extra else ""
        baseline = re.search(r"on demand the same plan's compute is (\$[\d,]+) per run: spot saves (\d+%)", note)
        saves = f"; on demand {baseline.group(1)} per run, so spot saves {baseline.group(2)}" if baseline else ""
        # the plan the answer would pick on demand: the alternative the user actually has
        picked = re.search(r"; against the on-demand pick, (.+?), (\$[\d,.]+) per run: spot saves (-?\d+%)", note)
        if picked:
            saves = saves.replace(" per run, so", " per run at the same provider, so")
            saves += f"; {picked.group(2)} per run on the on-demand pick ({picked.group(1)}): spot saves {picked.group(3)}"
        return f"Spot: checkpoint every 30-60 min and resume automatically; {stall}{counted}{saves}"
    serving = _starting(advice.notes, SPOT_SERVING_NOTE)
    if serving is not None:
        picked = re.search(r"; against the on-demand pick, (.+?), (\$[\d,.]+) a month: spot saves (-?\d+%)", serving)
        saves = f"; {picked.group(2)} a month on demand ({picked.group(1)}): spot saves {picked.group(3)}" if picked else ""
        return f"Spot for serving: instances can be reclaimed at a minute's notice; keep on-demand capacity behind it{saves}"
    return None


def _fp8_line(advice: Advice, amd: bool = False) -> str | None:
    """No precision named and FP8 won: the assumption that halves the hardware, with the BF16 price. `amd`: the
    pick is AMD, and the ROCm advice is said in the same line (a first message with a question open keeps one)."""
    note = _starting(advice.notes, FP8_NOTE)
    if note is None:
        return None
    bf16 = re.search(r"; (BF16 as published[^;]*)$", note)
    if INC_SAID in note:  # Gaudi: vllm-gaudi's INC calibration and flags, not NVIDIA's --quantization fp8
        recipe = note[len(FP8_NOTE):].split("): ", 1)[0].split("), as ", 1)[0]
        return f"FP8 weights and KV cache assumed{recipe})" + (f"; {bf16.group(1)}" if bf16 else "")
    said = ("AMD pick, FP8 weights and KV cache assumed (benchmark your model first, spec-sheet speeds are not always "
            "reached; ROCm vLLM" if amd else "FP8 weights and KV cache assumed (vLLM")
    return f"{said} --quantization fp8 --kv-cache-dtype fp8)" + (f"; {bf16.group(1)}" if bf16 else "")


def _note_match(advice: Advice, prefix: str, pattern: str) -> re.Match[str] | None:
    """The engine note that starts with `prefix`, matched against `pattern` right after it (None when absent)."""
    return re.match(re.escape(prefix) + pattern, _starting(advice.notes, prefix) or "")


def _tight_line(advice: Advice) -> str | None:
    found = _note_match(advice, TIGHT_NOTE, r"([\d.,]+) of ([\d.,]+) GB usable per GPU \((\d+%)")
    if found is None:
        return None
    return (f"Tight: {found.group(1)} of {found.group(2)} GB usable per GPU ({found.group(3)}); test the peak on one "
            "node first or take the next-larger plan")


def _edge_line(advice: Advice) -> str | None:
    """A cheaper training plan at the edge of memory ranked after the pick (engine.recommendation.edge_note): why the
    answer does not lead with it."""
    found = _starting(advice.notes, EDGE_NOTE)
    return "Room: " + found[len(EDGE_NOTE):] if found else None


def _zero3_line(advice: Advice) -> str | None:
    """ZeRO-3 sharded across nodes with weight gathers that outrun the compute: the time and cost shown are what
    the GPUs' FLOPs allow, not what the fabric does, unless a bigger micro-batch (memory permitting) hides them."""
    batch = re.match(re.escape(ZERO3_BATCH_NOTE) + r"each step moves about ([\d,]+) GB per GPU .*?about ([\d.,]+x) the "
                     r"compute of (one|\d+) .*?micro-batches of (\d+)", plan_note(advice, ZERO3_BATCH_NOTE) or "")
    if batch is not None:
        return (f"Micro-batch: ZeRO-3 across nodes moves ~{batch.group(1)} GB per GPU each step, ~{batch.group(2)} the "
                f"compute of {'one sequence' if batch.group(3) == 'one' else batch.group(3) + ' sequences'} per GPU; the speed shown needs micro-batches of about "
                f"{batch.group(4)} (the memory left holds them; gradient accumulation does not help)")
    found = re.match(re.escape(ZERO3_COMM_NOTE) + r"each step moves about ([\d,]+) GB per GPU .*?still about ([\d.,]+x) "
                     r"(?:at (\d+) sequences|with no memory)", plan_note(advice, ZERO3_COMM_NOTE) or "")
    if found is None:
        return None
    fit = (f"even at the {found.group(3)} sequences per GPU that fit" if found.group(3) else
           "with no memory left for a bigger micro-batch")
    return (f"Comm-bound: ZeRO-3 across nodes moves ~{found.group(1)} GB per GPU each step, ~{found.group(2)} the compute "
            f"{fit}; the time and cost shown count it. Tensor/pipeline parallel across nodes on more GPUs (Megatron-LM) "
            "or sharding within each node (FSDP HYBRID_SHARD) keep it compute-bound")


def _moe_stack_line(advice: Advice) -> str | None:
    """An MoE trained across GPUs is planned with expert parallelism; the stack most fine-tuning starts from does
    not split experts, and runs several times slower: the speed holds only on the right stack."""
    if plan_note(advice, MOE_KERNELS_NOTE) is not None:  # one GPU: the expert kernels, not their split
        return ("MoE speed assumes fused expert kernels (Megatron-LM, torchtitan, Unsloth); Hugging Face Trainer + PEFT "
                "loops over the experts, several times slower")
    if plan_note(advice, MOE_STACK_NOTE) is None:
        return None
    return ("MoE speed assumes expert parallelism (Megatron-LM, torchtitan, ms-swift's Megatron backend); Hugging Face "
            "Trainer + PEFT runs about 10x slower")


def _slow_fixed_line(advice: Advice) -> str | None:
    """The GPUs the user fixed hold the model but miss a target they stated, or give each user less than the speed
    the Assumes line promises: the first thing to say, with how many GPUs would not."""
    short = plan_note(advice, MISSED_FIXED_NOTE)
    if short is not None:
        timed = _starting(advice.notes, WAYS_OUT_NOTE)
        text = short[len(MISSED_FIXED_NOTE):]
        dead_end = "; no GPU count on this offer finishes in time"
        if timed is not None and dead_end in text:  # the count that finishes in time on any offer, not a dead end
            text = text.replace(dead_end, "") + f"; {timed[len(WAYS_OUT_NOTE):]}"
        return tidy_plurals(f"Short: {text}")
    found = re.match(re.escape(SLOW_FIXED_NOTE) + r"(.+?) under the ([\d.]+) tokens/s assumed for interactive use; (.+?) "
                     r"\(or say", plan_note(advice, SLOW_FIXED_NOTE) or "")
    if found is None:
        return None
    narrower = next((n[len(INT4_FIXED_NOTE):] for n in advice.notes if n.startswith(INT4_FIXED_NOTE)), "")
    # the way out that buys nothing first: 4-bit weights on the same GPUs, then more of them
    narrower = f"{narrower}; or " if narrower else ""
    return tidy_plurals(f"Slow: {found.group(1).rstrip(',')}, under the {found.group(2)} assumed for chat; {narrower}"
                        f"{found.group(3)}, or say the speed you need")


# a serving fallback to narrower weights: what it takes to run (a quantized checkpoint) and what it may cost (quality)
FALLBACK_WEIGHTS = {
    "int4": ("4-bit", "serve an AWQ or GPTQ 4-bit checkpoint (vLLM reads either) and check quality on your task"),
    "int8": ("8-bit", "serve an INT8 (GPTQ or W8A8) checkpoint and check quality on your task"),
}


def fallback_weights(advice: Advice) -> tuple[str, bool] | None:
    """(the pick's precision, whether 8-bit fits too) when the engine fell back to narrower weights than asked or
    published ("int4", "int8"); None otherwise. The headline and the weights line both read it."""
    picked = winner_option(advice)
    if (picked is None or picked.precision not in FALLBACK_WEIGHTS or advice.workload.precision is not None
            or _starting(advice.notes, FALLBACK_NOTE) is None):
        return None
    return picked.precision, picked.precision == "int4" and f"{FALLBACK_NOTE}int8 weights does" in advice.notes


LONG_PREFILL_S = 10.0  # a first token this slow means the prompts, not the decoding, set the GPU count


def _prefill_line(advice: Advice) -> str | None:
    """Long prompts sent whole every turn ("10 users with 128k-token prompts"): each prefill is long and stalls the
    other users of its replica, so replicas are kept small and many. 40 MI300X for 10 users reads as a mistake
    unless the answer says this is what sets the count, and what would change it."""
    tp = advice.throughput
    w = advice.effective
    if (tp is None or tp.prefill_seconds is None or tp.prefill_seconds.value < LONG_PREFILL_S or not w.input_tokens
            or (w.mode or "inference") != "inference" or w.prefix_cache_hit or w.batch_items or w.offline):
        return None
    return (f"Prefill-bound: each {int(w.input_tokens):,}-token prompt takes {fmt_num(tp.prefill_seconds.value, 's')} to prefill and "
            "holds up the other users on its replica meanwhile, which is what sets the GPU count; if turns resend a cached "
            "prefix (the same document or conversation), say e.g. “90% prefix cache hits”")


def _fallback_line(advice: Advice) -> str | None:
    found = fallback_weights(advice)
    if found is None:
        return None
    precision, wider_fits = found
    bits, what = FALLBACK_WEIGHTS[precision]
    count = advice.workload.gpu_count
    where = (f"the {count} GPU{'s' if count != 1 else ''} you fixed" if count else "any offered configuration")
    # the model's own weights on more of those GPUs or one node of a bigger one: what the quant is traded against
    published = re.match(re.escape(PUBLISHED_NOTE) + r".+?, published in (\w+), takes (.+)$",
                         _starting(advice.notes, PUBLISHED_NOTE) or "")
    if published is not None:
        native = published.group(1)
        wider = f"the published {native}" if precision == "int8" or native == "FP8" else f"8-bit or the published {native}"
        head = (f"Weights: 4-bit; 8-bit fits {where} too but ranks after it (slower or dearer)" if wider_fits
                else f"Weights: only {bits} weights fit {where}, not {wider}")
        lead = f"In {native} as published" if native == "FP8" else "Without a quant"
        return f"{head}: {what}. {lead}: {published.group(2)}"
    if wider_fits:
        return f"Weights: 4-bit; 8-bit fits {where} too but ranks after it (slower or dearer): {what}"
    return f"Weights: only {bits} weights fit {where}; wider ones do not: {what}"


def _kernels_line(advice: Advice) -> str | None:
    note = _starting(advice.notes, NO_INTEGER_KERNELS_NOTE)
    return f"Kernels: vLLM has {note}" if note else None


def _idle_fixed_line(advice: Advice) -> str | None:
    note = plan_note(advice, IDLE_FIXED_NOTE)
    return f"The GPU count you fixed: {note[len(IDLE_FIXED_NOTE):]}" if note else None


def _idle_serving_line(advice: Advice) -> str | None:
    """A service whose pick rents whole instances bigger than its plan ("AWS 4x A10G" for one TP2 replica of Gemma 3
    27B): the GPUs paid for and unused are worth a second replica (twice the users, and a failover) at no extra rent.
    None when no whole replica fits in what sits idle, for training, or for GPUs the user fixed."""
    w = advice.effective
    if (w.mode or "inference") != "inference" or w.gpu_count or w.batch_items or w.offline:
        return None
    pick = winner_option(advice)
    rented = rented_gpus(pick) if pick is not None else None
    if pick is None or rented is None:
        return None
    plan = pick.cluster
    group = plan.gpus_per_replica or plan.gpus
    idle = rented - plan.gpus
    if group < 1 or idle < group:
        return None
    more = idle // group
    return (f"Idle GPUs: the instance rents {rented}, the plan uses {plan.gpus}; {more} more "
            f"replica{'s' if more > 1 else ''} of {group} on the rest {'hold' if more > 1 else 'holds'} "
            f"{1 + more}x the users and keep{'' if more > 1 else 's'} serving if one fails, at no extra rent "
            f"(say “{rented} GPUs” to plan on all of them)")


def _relabelled(advice: Advice, prefix: str, label: str) -> str | None:
    """The engine's note that starts with `prefix` ("budget: ", "job: "), led by the first message's `label`."""
    note = _starting(advice.notes, prefix)
    return f"{label}: {note[len(prefix):]}" if note else None


def _images_line(advice: Advice) -> str | None:
    """A VLM served with images: the image tokens counted into each prompt (and whether the count was assumed), the
    one statement that says why the plan is bigger than the text model's."""
    note = _starting(advice.notes, IMAGES_NOTE)
    if not note:
        return None
    return "Images: " + note[len(IMAGES_NOTE):].split("; the ")[0]


def unpriced_said(advice: Advice) -> str | None:
    """A GPU nobody in the catalog rents, not said to be theirs (engine.recommend.unpriced_rental): the sentence that
    asks its price, with power alone as a floor ("No provider in the catalog rents the Instinct MI355X 288GB: give a
    price per GPU-hour …"); the Cost line says it in place of a price. None otherwise."""
    note = _starting(advice.notes, RENTED_NOWHERE_NOTE)
    return f"No provider in the catalog rents the {note[len(RENTED_NOWHERE_NOTE):]}" if note and UNPRICED_SAID in note \
        else None


def _rented_nowhere_line(advice: Advice) -> str | None:
    """A GPU nobody in the catalog rents, planned as the user's own: why the cost is power only (not priced at all,
    `unpriced_said`: the Cost line asks)."""
    note = _starting(advice.notes, RENTED_NOWHERE_NOTE)
    if note is None or UNPRICED_SAID in note:
        return None
    return f"No provider in the catalog rents the {note[len(RENTED_NOWHERE_NOTE):]}"


def _devices_line(advice: Advice) -> str | None:
    """A package ROCm lists as several GPUs (MI250: 2 GCDs): why the headline's count is twice the cards said."""
    note = _starting(advice.notes, DEVICES_NOTE)
    return f"Counted in GCDs: {note[len(DEVICES_NOTE):]}" if note else None


def _no_fp8_line(advice: Advice) -> str | None:
    """A GPU asked for that has no FP8 tensor cores: why its plan takes more GPUs than the FP8 answer before it."""
    note = _starting(advice.notes, NO_FP8_NOTE)
    return f"No FP8 tensor cores on {note[len(NO_FP8_NOTE):]}" if note else None


def _plan_relabelled(advice: Advice, prefix: str, label: str) -> str | None:
    """`_relabelled` for a note of the plan's: a training deadline shorter than the run's start-up ("Deadline"), or
    more data parallel than any published batch allows ("Global batch": the GPU-hours or the speed-up are not what
    the GPUs alone suggest)."""
    note = plan_note(advice, prefix)
    return f"{label}: {note[len(prefix):]}" if note else None


def _reservation_line(advice: Advice) -> str | None:
    """Past 512 GPUs the price is a negotiation: the engine says so in the plan's notes."""
    notes = advice.cluster.notes if advice.cluster is not None else ()
    note = next((n for n in notes if "reserved-cluster negotiation" in n), None)
    if note is None:
        return None
    return f"{note.split(' is ')[0]} is a reserved-cluster negotiation: the on-demand price here is an upper bound"


def _schedule_lines(advice: Advice) -> tuple[str | None, str | None]:
    """A service kept to its hours: reserved capacity that pays all month for them (what on-demand would cost decides
    it), and the cold start each time it is started (engine.tco)."""
    reserved = _starting(advice.notes, RESERVED_PART_TIME_NOTE)
    cold = _starting(advice.notes, COLD_START_NOTE)
    training = (advice.effective.mode or "inference") != "inference"
    return (f"Reserved{'' if training else ', part-time'}: {reserved[len(RESERVED_PART_TIME_NOTE):]}" if reserved else None,
            f"Cold start: {cold[len(COLD_START_NOTE):]}" if cold else None)


def _capacity_line(advice: Advice, kinds: HardwareKinds) -> str | None:
    """Tens of instances of one GPU by the hour from one provider: whether it has them is the first thing to ask."""
    found = re.match(re.escape(CAPACITY_NOTE) + r"([\d,]+) instances \(([\d,]+) GPUs\) (on demand|spot) from one provider",
                     plan_note(advice, CAPACITY_NOTE) or "")
    winner = winner_option(advice)
    if found is None or winner is None:
        return None
    provider = _provider(winner)
    who = (kinds.provider_names or {}).get(provider, provider) or "the provider"
    return (f"Capacity: {found.group(1)} instances {found.group(3)} from {who}; confirm they have them free, or reserve "
            "them, before planning on it")


def _price_line(advice: Advice, buying: bool = False) -> str | None:
    """A price the catalog doubts: the pick's, or (`buying`: the answer leads with buy or rent) the rent the
    purchase is weighed against."""
    note = _starting(advice.notes, PRICE_NOTE)
    found = re.search(r"listed (.+?) at \$([\d.,]+)/GPU-h", note or "")
    if found is None and not buying:
        return None
    if found is None:  # the pick's price is not in doubt; the rent a purchase is weighed against may be
        doubt = re.search(r"that \$([\d.,]+) is to confirm: .*?listed (.+?) at \$([\d.,]+)/GPU-h",
                          _starting(advice.notes, "buy vs rent") or "")
        if doubt is None:
            return None
        return (f"Price to confirm: the break-even's ${doubt.group(1)}/GPU-h; the provider's page listed {doubt.group(2)} "
                f"at ${doubt.group(3)}/GPU-h")
    rate = next((r.inputs.get("usd_per_gpu_hour") for o in advice.options if o.name == winner_name(advice)
                 for t in o.tco[:1] for r in t.rows if r.item == "compute"), None)
    here = f" vs ${rate:,.2f} here" if isinstance(rate, int | float) else ""
    return f"Price to confirm: the provider's page listed {found.group(1)} at ${found.group(2)}/GPU-h{here}"


def _methods_line(advice: Advice) -> str | None:
    """GPUs stated (to buy, or owned) for fine-tuning with no method named: which methods they hold. A full
    fine-tune that does not fit is what decides a purchase, so it comes first."""
    found = _note_match(advice, METHODS_NOTE, r"(\d+) x (.+?): (.+)$")
    if found is None:
        return None
    return f"{found.group(1)}× {found.group(2)}: {found.group(3)}"


def _adapter_scale_line(advice: Advice) -> str | None:
    """LoRA/QLoRA over tens of billions of tokens: the method, not the GPUs, is the first thing to question."""
    found = _note_match(advice, ADAPTER_SCALE_NOTE, r"(~[\d,]+B) tokens")
    if found is None:
        return None
    full = re.search(r"; a full fine-tune( on the same GPU type)?: (.+? days per run) \(([+-]\d+%) on (\w+)'s ", found.string)
    priced = (f"; full{' on the same GPUs' if full.group(1) else ''}: {full.group(2)}, {full.group(3)} on {full.group(4)}"
              if full else "")
    see = "its own best plan" if full and full.group(1) else "it"
    return (f"{found.group(1)} tokens per run is continued pre-training, where adapters learn clearly less than a full "
            f"fine-tune (Biderman et al. 2024){priced}; reply “full fine-tune” to see {see}, or give the tokens you "
            "train on")


def _preference_line(advice: Advice) -> str | None:
    """Preference tuning: what the plan counted for it. A full-parameter DPO's reference copy decides the GPUs, so its
    share per GPU and the two ways to drop it (with LoRA-DPO's figure) are said up front."""
    note = _starting(advice.notes, PREFERENCE_NOTE)
    if note is None:
        return None
    per_gpu = re.search(r": ([\d.,]+) GB per GPU on this plan", note)
    if per_gpu is not None:
        lora = re.search(re.escape(LORA_DPO_NOTE) + r"([\d.,]+) GB per GPU", note)
        instead = f" ({lora.group(1)} GB per GPU on the same split)" if lora else ""
        return (f"DPO: the frozen reference model is counted ({per_gpu.group(1)} GB per GPU here) with its forward over "
                "chosen and rejected (8N FLOPs per token, not 6N); TRL's precompute_ref_log_probs=True frees that "
                f"memory at the same FLOPs, and LoRA-DPO needs no copy{instead}")
    adapter = re.match(re.escape(PREFERENCE_NOTE) + r"(Q?LoRA)-DPO", note)
    if adapter is not None:
        return (f"{adapter.group(1)}-DPO: no reference copy (the base with the adapter disabled is the reference); its "
                "forward over chosen and rejected is counted (6N FLOPs per token, not 4N)")
    if "reference-free" in note:
        return "Reference-free preference tuning (ORPO, SimPO): two sequences per pair counted, no reference model"
    if "DPO holds a frozen reference copy" in note:  # no plan to read a share from: the copy and the ways out
        return ("DPO: the frozen reference model and its forward over chosen and rejected are counted; TRL's "
                "precompute_ref_log_probs=True or LoRA-DPO (no copy) drop its memory")
    return None


def _rl_line(advice: Advice) -> str | None:
    """Online RL: the split between generating the rollouts and training on them, and the assumptions a reply
    changes (engine.rl's note holds the figures)."""
    note = _starting(advice.notes, RL_NOTE)
    if note is None:
        return None
    w = advice.effective
    g, prompt, completion, beta = rl_shape(w)
    split = re.search(re.escape(RL_SPLIT) + r"(.+?) per run on", note)
    head = f"Rollouts {split.group(1)}, one after the other" if split else "Rollouts sized with the training"
    critic = (f"; PPO's {critic_params_b(w):g}B value model counted (weights, gradients, optimizer state, forward and "
              "backward)" if critic_params_b(w) else "")
    if w.rl_reward_params_b:
        critic += f"; {float(w.rl_reward_params_b):g}B reward model counted (held, one forward per completion)"
    passes = (f"{int(w.train_steps):,} steps of {int(w.global_batch):,} prompts" if w.train_steps and w.global_batch
              else f"{float(w.epochs or 1):g} epoch(s)")
    if w.objective == "ppo":  # PPO as PPO: one rollout per prompt, a KL penalty, epochs over each rollout batch
        reference = "the frozen reference policy counted" if beta > 0 else "no reference"
        if ppo_passes(w):
            passes = f"{float(w.epochs or 1):g} PPO epochs over each rollout batch (num_ppo_epochs)"
        return (f"{head}: {g} completion{'s' if g != 1 else ''} per prompt of up to {completion:,} tokens ({prompt:,}-token "
                f"prompts), KL penalty {beta:g} ({reference}), {passes}{critic}; say “2k-token completions”, "
                "“kl coef 0.1”, “2 epochs” to change")
    return (f"{head}: {g} completions per prompt of up to {completion:,} tokens ({prompt:,}-token prompts), beta "
            f"{beta:g}, {passes}{critic}; say “16 generations”, “2k-token completions”, "
            "“beta 0.04” to change")


def _rocm_line(advice: Advice) -> str | None:
    """An AMD pick: the figures come from spec sheets and the stack has ROCm builds (vLLM/SGLang to serve,
    PyTorch FSDP to train), but a benchmark first is what a team would do before committing."""
    notes = advice.cluster.notes if advice.cluster is not None else ()
    if not any("runs ROCm, not CUDA" in n for n in notes):
        return None
    if advice.effective.mode not in (None, "inference"):
        plan = advice.cluster
        tp, pp = (plan.tensor_parallel, plan.pipeline_parallel) if plan is not None else (1, 1)
        zero = plan.zero_stage if plan is not None else 0
        expert = plan is not None and "expert parallel" in plan.parallelism
        # the stack the plan's own split needs: FSDP alone does not split a layer across GPUs; ZeRO-1/2 are the
        # distributed optimizer, not FSDP; an MoE's split is its experts
        split = " and ".join([f"{'expert' if expert else 'tensor'} parallel x{tp}"] * (tp > 1)
                             + [f"pipeline x{pp}"] * (pp > 1))
        shard = "FSDP" if zero >= 3 else "a distributed optimizer" if zero else "data parallel"
        how = (f" with {shard} plus {split} as planned, in torchtitan or AMD's Megatron-LM fork (ROCm/Megatron-LM)" if split
               else "" if plan is None or plan.gpus == 1 else f" with {shard}" + (" (DDP)" if not zero else ""))
        return (f"AMD pick: PyTorch's ROCm builds train it{how}; FlashAttention has a ROCm port, custom CUDA kernels "
                "and some bitsandbytes paths do not; run a few hundred steps first, spec-sheet speeds are not always reached")
    return "AMD pick: ROCm builds of vLLM/SGLang serve it; benchmark your model first, spec-sheet speeds are not always reached"


def _weight_only_fp8_lines(advice: Advice) -> tuple[str | None, str | None]:
    """(pick's line, runner-up's line): FP8 asked for, and the pick or runner-up is an Ampere (or older) GPU:
    vLLM runs it weight-only (W8A16 Marlin), so it holds the memory saving but not the speed a reader expects
    from FP8. Said once: for the runner-up only when the pick has no such line."""
    if advice.effective.mode != "inference":
        return None, None
    lines: dict[str, str] = {}
    for role, option in _picked(advice):
        note = next((n for n in option.cluster.notes if NO_FP8_CORES_NOTE in n), None)
        if note is not None:
            gpu = note.split(f" {NO_FP8_CORES_NOTE}")[0]
            lines[role] = (f"{role}'s {gpu} has no FP8 tensor cores: FP8 runs weight-only there (vLLM W8A16 Marlin), "
                           "memory halved but matmuls in 16-bit")
    pick = lines.get("The pick")
    return pick, (None if pick else lines.get("The runner-up"))


def _marketplace_training_line(advice: Advice, kinds: HardwareKinds) -> str | None:
    """A training pick on a marketplace host: the price is real and a restartable fine-tune can use it, but
    the machine is someone else's, with no SLA, and its listed price moves daily; the reader should know
    before sending a corpus there, and what the first provider with an SLA would cost."""
    if (advice.effective.mode or "inference") == "inference":
        return None
    picked = dict(_picked(advice))
    pick = picked.get("The pick")
    if pick is None or _provider(pick) not in kinds.marketplaces:
        return None
    runner_up = picked.get("The runner-up")
    other = next((o for o in advice.options if _provider(o) not in kinds.marketplaces), None)
    # the runner-up line above already names a provider with an SLA unless it is a marketplace host too
    instead = (f"; with an SLA: {other.name} at {fmt_usd_short(other.total_usd)}/month"
               if other is not None and (runner_up is None or _provider(runner_up) in kinds.marketplaces) else "")
    return ("The pick is a marketplace host (one machine, no SLA, price moves daily): fine for a restartable run; "
            f"check where your data may go{instead}")


def _network_line(advice: Advice) -> str | None:
    """Their own multi-node cluster, fully sharded, with no network said: the speed holds on InfiniBand or
    RoCE only, and over Ethernet the plan changes (hybrid sharding), which decides whether to start."""
    cluster = advice.cluster
    note = next((n for n in cluster.notes if n.startswith(UNSTATED_NETWORK_NOTE)), None) if cluster else None
    if cluster is None or note is None:
        return None
    found = re.search(r": ([\d.,]+) GB per GPU, which (fits)?", note)
    fallback = (f"over Ethernet shard within each node instead (FSDP HYBRID_SHARD, {found.group(1)} GB per GPU)"
                if found and found.group(2) else "over Ethernet this plan is not practical (see details)")
    return f"Network between your {cluster.nodes} nodes not stated: the speed assumes InfiniBand or RoCE; {fallback}"


def _network_said_line(advice: Advice) -> str | None:
    """The network the user said between their nodes (engine.network): what crosses it a step, against the compute,
    and the run's time against InfiniBand, which decides whether the plan can be taken as it stands."""
    note = plan_note(advice, NETWORK_NOTE)
    found = re.match(re.escape(NETWORK_NOTE) + r"(.+?)(?:, as you said)?: each optimiser step moves ([\d,.]+) GB out of "
                     r"each node .*?, ([\d.,]+) s over .*? against ([\d.,]+) s of compute at (?:a ([\d,.]+M)-token|the "
                     r"global batch you said \(([\d,]+) tokens\)).*?: the run takes [\d.,]+x its compute, (.+?)(?:\. [A-Z]|$)",
                     note or "")
    slower = re.search(r"\((\d+)% slower\)", note or "")
    if found is None or (slower is not None and int(slower.group(1)) < 5):
        return None  # on InfiniBand-class links the traffic hides behind the compute: Details says so
    batch = f"{found.group(5)}-token batch, assumed" if found.group(5) else f"{found.group(6)}-token batch"
    line = (f"Network: {found.group(1)}: {found.group(2)} GB cross each node a step, {found.group(3)} s against "
            f"{found.group(4)} s of compute ({batch}); {found.group(7)}")
    alternative = re.search(r"Planned as (pipeline stages across the \d+ nodes) .*?Data parallel across nodes .*? would "
                            r"all-reduce ([\d,]+) GB of gradients a step: ([\d.,]+x) its compute", note or "")
    if alternative is not None:
        line += (f". Planned as {alternative.group(1)} (Megatron-LM, NeMo): data parallel (FSDP HYBRID_SHARD, ZeRO-2) "
                 f"would be {alternative.group(3)}")
    bigger = re.search(r"A larger global batch .*?: ([\d.,]+x) at ([\d,]+M) tokens a step", note or "")
    if bigger is not None:
        line += f". A {bigger.group(2)}-token global batch (gradient accumulation) brings it to {bigger.group(1)}"
    return line


def _model_line(advice: Advice, said: Collection[str] = ()) -> str | None:
    """The guessed shape behind a model the catalog does not hold. When the user named one ("Foo-80B"; the parser's
    note "I don't know “foo-80b”…" is in `said`), the line names it: "No model named" would be false."""
    note = _starting(advice.notes, ASSUMED_MODEL_NOTE)
    if note is None:  # an MoE name the catalog lacks, sized from its total and active counts (the catalog's stand-in)
        stand_in = next((n for n in advice.notes if UNLISTED_MODEL_NOTE in n), None)
        return re.sub(r" \(the sizes its name states\)| \(\d+ layers, [^)]*\);.*", "", stand_in) if stand_in else None
    found = re.search(r"assumed an? (.+?)-like architecture", note)
    like = f"a {found.group(1)}-like architecture" if found else "a typical architecture of that size"
    named = next((m.group(1) for m in map(UNKNOWN_SIZED_NAME.match, said) if m), None)
    if named:
        return f"{named}{UNLISTED_MODEL_NOTE}{like}; name a catalog model for exact figures"
    return f"No model named: sized as {like}; name the model for exact figures"


def _managed_line(advice: Advice, kinds: HardwareKinds) -> str | None:
    """The user named a managed service (SageMaker) and another provider won: its price, for comparison."""
    asked = advice.workload.provider
    if not asked or asked not in kinds.managed:
        return None
    winner = winner_option(advice)
    if winner is None or _provider(winner) == asked:
        return None
    name = (kinds.provider_names or {}).get(asked, asked)
    option = next((o for o in advice.options if _provider(o) == asked), None)
    if option is None:
        return f"{name}, as asked, has no priced offer that fits this plan"
    return (f"{name}, as asked: {option.name} at {fmt_usd_short(option.total_usd)}/month "
            f"(the pick: {fmt_usd_short(winner.total_usd)}/month)")


def decision_caveats(advice: Advice, kinds: HardwareKinds | None = None, cheapest_labelled: bool = False,
                     buying: bool = False, said: Collection[str] = ()) -> list[str]:
    """At most two lines, most important first: hardware that cannot run a service as is, spot risk
    for a training run, a plan at 95%+ of memory, a guessed model, the managed service the user asked about.
    `cheapest_labelled`: the comparison's cheapest row already says why a service should not run on it; `said`: the
    parser's notes for this turn (an unknown model's name)."""
    kinds = kinds or HardwareKinds()
    fp8_pick, fp8_runner_up = _weight_only_fp8_lines(advice)
    fp8, rocm = _fp8_line(advice), _rocm_line(advice)
    if fp8 is not None and rocm is not None and advice.effective.mode in (None, "inference"):
        fp8, rocm = _fp8_line(advice, amd=True), None  # an AMD pick served in FP8: one line says both
    if fp8 is not None and fp8_pick is not None:  # FP8 assumed on an Ampere pick: how it runs there, in the same line
        fp8, fp8_pick = f"{fp8}; {fp8_pick[0].lower()}{fp8_pick[1:]}", None
    # buying the capacity (a reserved-cluster negotiation, tens of hourly instances) and spot's risk decide more than
    # the FP8 reminder, which the comparison rows' "(FP8)" already carry
    # a price the catalog itself doubts comes before anything priced from it (after what GPUs bought can train)
    kernels = _kernels_line(advice)
    if kernels is not None:
        fp8, rocm = None, None  # the ROCm line would say vLLM serves it; the kernels line says what does not
    price, reservation = _price_line(advice, buying), _reservation_line(advice)
    if price is not None and reservation is not None:  # one line for the two things said about the price
        price, reservation = f"{price}; {reservation[0].lower()}{reservation[1:]}", None
    part_time, cold_start = _schedule_lines(advice)
    named_model = _model_line(advice, said)
    comm, network = _zero3_line(advice), _network_line(advice)
    if comm is not None and network is not None:  # their own nodes, network unsaid: one line says both
        comm, network = (f"{comm}; your nodes' network was not stated: this assumes InfiniBand or RoCE, and over Ethernet "
                         "sharding within each node is the only way"), None
    lines = [_images_line(advice), _devices_line(advice),
             None if plan_note(advice, MISSED_FIXED_NOTE) else _relabelled(advice, WAYS_OUT_NOTE, "Timed"),
             _relabelled(advice, POOR_FIT_NOTE, "Poor fit"), _relabelled(advice, SPOT_GANG_NOTE, "Spot"),
             _spot_dearer_line(advice),
             _relabelled(advice, AVAILABILITY_NOTE, "Availability"),
             _relabelled(advice, BUDGET_NOTE, "Budget"),
             _relabelled(advice, MARGIN_NOTE, "Speed margin"),
             _rented_nowhere_line(advice), part_time, _no_fp8_line(advice), kernels,
             _relabelled(advice, TTFT_REACH_NOTE, "Time to first token") or _prefill_line(advice),
             comm, _network_said_line(advice),
             _fallback_line(advice), _idle_fixed_line(advice), _slow_fixed_line(advice), _methods_line(advice), _plan_relabelled(advice, SHORT_DEADLINE_NOTE, "Deadline"), _plan_relabelled(advice, BATCH_NOTE, "Global batch"), price, _adapter_scale_line(advice), _preference_line(advice), _rl_line(advice), _consumer_line(advice, kinds),
             reservation, _capacity_line(advice, kinds), _spot_line(advice), _relabelled(advice, JOB_SPOT_NOTE, "Spot"),
             # a model the user named that the catalog sizes as a stand-in decides whether any figure holds: before the
             # FP8 reminder the rows carry ("No model named", a size said without a name, keeps its later place)
             named_model if named_model and UNLISTED_MODEL_NOTE in named_model else None, fp8, fp8_pick,
             _tight_line(advice), _edge_line(advice), None if cheapest_labelled else _consumer_line(advice, kinds, ("The cheapest",)),
             rocm, fp8_runner_up, _relabelled(advice, JOB_SPOT_HINT, "Spot"), network,
             _marketplace_training_line(advice, kinds), _moe_stack_line(advice),
             None if named_model and UNLISTED_MODEL_NOTE in named_model else named_model,
             _managed_line(advice, kinds), cold_start, _idle_serving_line(advice)]
    return [line for line in lines if line][:MAX_CAVEATS]


def cheapest_fitting(advice: Advice) -> str | None:
    """'AWS SageMaker 1x H100 SXM5 80GB (on-demand) at $7.91/hour' when there is no token count to
    cost a run: the hourly price of the cheapest configuration that fits, from the engine's note."""
    found = _note_match(advice, NO_TOKENS_NOTE, r"(.+?) at \$([\d,]+(?:\.\d+)?)/hour")
    if found is None:
        return None
    return f"{found.group(1)} at {fmt_usd(float(found.group(2).replace(',', '')))}/hour"
