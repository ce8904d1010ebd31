"""What the poor-fit note needs besides the search itself: whether a one-node training plan on the GPU named is worth
checking at all, and the cheaper option on the cloud the user is on.

Why a module of its own: `engine.advise` decides when the note is said; the two questions here read only catalog
records and ranked options, and keeping them apart keeps that file's poor-fit part small."""

from __future__ import annotations

from catalog.records import CatalogData, GpuRecord, OfferRecord
from engine.models import Option, Workload
from engine.throughput import default_mfu

# A one-node training plan is searched against the whole catalog only when the GPU named costs this many times the
# catalog's cheapest per effective TFLOP-hour (rate / (dense BF16 peak x the MFU the engine assumes for that GPU
# class)). A run's cost is FLOPs / (peak x MFU) x rate, so this estimates how much cheaper another GPU can be; what it
# leaves out (communication, memory forcing ZeRO-3, the shape of the offers) is kept inside the margin between this
# and the note's one-node factor (5x in engine.advise): 8 A10G estimate ~30x (29x planned), 8 L4 ~10x (8x), an A100
# or H100 node under 2x, so the common answers pay nothing.
SEARCH_FROM_PER_TFLOP = 3.0

CLOUD_NAMES = {"aws": "AWS", "gcp": "Google Cloud", "azure": "Azure"}
CLOUD_REPLIES = {"aws": "AWS", "gcp": "GCP", "azure": "Azure"}  # what a thread's "try B200 on AWS" is read from


def _rate(offer: OfferRecord, pricing: str) -> float | None:
    """USD per GPU-hour of an offer at the pricing asked (on-demand where it has no such price)."""
    rate = {"spot": offer.spot_usd_per_hour, "reserved": offer.reserved_usd_per_hour}.get(pricing)
    rate = rate or offer.on_demand_usd_per_hour
    return rate / offer.gpus_per_node if rate and offer.gpus_per_node else None


def _per_effective_tflop(gpu: GpuRecord | None, rate: float | None, mode: str | None, gpus: int) -> float | None:
    peak = (gpu.bf16_dense_tflops or gpu.fp16_dense_tflops) if gpu is not None else None
    if gpu is None or not peak or not rate:
        return None
    return rate / (peak * default_mfu(gpu, mode, gpus)[0])


def dear_per_flop(given: Workload, effective: Workload, chosen: Option, data: CatalogData) -> bool:
    """Whether the plan's GPU costs at least SEARCH_FROM_PER_TFLOP times the catalog's cheapest per effective
    TFLOP-hour, at the plan's GPU count and the provider named if any: the test a one-node training plan passes
    before the catalog is searched for a cheaper GPU (that search costs several times the answer itself: ~5 ms
    against ~1 ms for 1B pre-training on 8 A10G). The plan's own rate is its offer's (8 A10G rent as a g5.48xlarge,
    $2.04 a GPU-hour, not the g5.xlarge's $1.01) or the rate the user gave."""
    pricing = effective.pricing or "on_demand"
    gpus = chosen.cluster.gpus
    offer = data.offer(chosen.offer_id)
    rate = given.hourly_rate or (_rate(offer, pricing) if offer is not None else None)
    mine = _per_effective_tflop(data.gpu(chosen.gpu), rate, effective.mode, gpus)
    if mine is None:
        return False
    best = _cheapest_per_effective_tflop(data, pricing, given.provider, effective.mode, gpus, chosen.gpu)
    return best is not None and mine >= SEARCH_FROM_PER_TFLOP * best


# The catalog's cheapest per effective TFLOP-hour, by (pricing, provider, mode, GPU count, GPU left out), for the one
# catalog object last asked about: a scan of every offer costs ~0.4 ms, most of a fast answer's time, and its result
# changes only with the catalog (a new CatalogData object, when prices are refreshed). An index of the catalog's
# prices, not of answers.
_CHEAPEST: list[tuple[CatalogData, dict[tuple[str, str | None, str | None, int, str], float | None]]] = []


def _cheapest_per_effective_tflop(data: CatalogData, pricing: str, provider: str | None, mode: str | None,
                                  gpus: int, left_out: str) -> float | None:
    held = _CHEAPEST[0] if _CHEAPEST and _CHEAPEST[0][0] is data else None
    if held is None:
        held = (data, {})
        _CHEAPEST[:] = [held]
    key = (pricing, provider, mode, gpus, left_out)
    if key in held[1]:
        return held[1][key]
    cheapest: dict[str, float] = {}
    for other in data.offers:
        if other.gpu == left_out or (provider and other.provider != provider):
            continue
        other_rate = _rate(other, pricing)
        if other_rate is not None and other_rate < cheapest.get(other.gpu, float("inf")):
            cheapest[other.gpu] = other_rate
    records = {g.id: g for g in data.gpus if g.id in cheapest}
    best = min((v for g, r in cheapest.items()
                if (v := _per_effective_tflop(records.get(g), r, mode, gpus)) is not None), default=None)
    if len(held[1]) < 256:  # bounded: a few keys per question shape
        held[1][key] = best
    return best


def cloud_of(option: Option, data: CatalogData) -> str | None:
    """The cloud an option runs on ("aws" for EC2 and SageMaker alike), else its provider id."""
    offer = data.offer(option.offer_id)
    if offer is None:
        return None
    provider = data.provider(offer.provider)
    return (provider.cloud if provider is not None and provider.cloud else None) or offer.provider


def cloud_words(cloud: str, data: CatalogData, *, reply: bool = False) -> str:
    """"AWS", "Google Cloud" ("GCP" in a reply to type), or the provider's name."""
    provider = data.provider(cloud)
    return (CLOUD_REPLIES if reply else CLOUD_NAMES).get(cloud) or (provider.name if provider is not None else cloud)


def on_one_cloud(given: Workload, chosen: Option, data: CatalogData) -> str | None:
    """The cloud the user is on, when it is known: the provider named, or the only cloud renting the GPU named (an
    A10G is AWS's alone, EC2 or SageMaker). None when the GPU is rented on several clouds and none was named."""
    if given.provider:
        provider = data.provider(given.provider)
        return (provider.cloud if provider is not None and provider.cloud else None) or given.provider
    clouds = set()
    for offer in data.offers:
        if offer.gpu == chosen.gpu:
            provider = data.provider(offer.provider)
            clouds.add((provider.cloud if provider is not None and provider.cloud else None) or offer.provider)
    return next(iter(clouds)) if len(clouds) == 1 else None


def same_cloud_option(cloud: str, chosen: Option, options: tuple[Option, ...] | list[Option],
                      data: CatalogData) -> Option | None:
    """The best-ranked option of another GPU on that cloud (AWS p6-b200 or p5 beside a g5.48xlarge): what a team tied
    to one cloud's account, credits or data can move to without moving cloud."""
    return next((o for o in options if o.gpu != chosen.gpu and cloud_of(o, data) == cloud), None)
