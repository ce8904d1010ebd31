"""Which weights run where, as vLLM serves them: AWQ/GPTQ/W8A8 integer weights on NVIDIA only (vLLM's supported-hardware
table marks them unsupported on AMD GPUs), 8-bit before 4-bit at the same price, and a spot price not doubted against an
on-demand listing. Before, an AWQ 405B was planned on 8 MI300X, and 70B on 2 A100s picked 4-bit over 8-bit for the
same rent."""

from __future__ import annotations

from typing import Any

from engine.advise import advise
from engine.models import Workload
from engine.recommend import NO_INTEGER_KERNELS_NOTE


def _vendor(data: Any, gpu_id: str) -> str:
    return data.gpu(gpu_id).vendor.upper()


def test_integer_weights_are_planned_on_nvidia_only_unless_an_amd_gpu_is_named(data: Any) -> None:
    w = Workload(mode="inference", model="llama-3.1-405b", precision="int4", concurrency=10)
    advice = advise(w, data)
    assert advice.options and all(_vendor(data, o.gpu) == "NVIDIA" for o in advice.options)
    assert any("left out: vLLM has no kernels for AWQ/GPTQ" in n for n in advice.notes), advice.notes
    named = advise(w.model_copy(update={"gpu": "mi300x"}), data)
    # the GPU named is kept; the weights become ones vLLM runs there (FP8), and the first note says why
    assert named.options and all(o.gpu == "mi300x" and o.precision == "fp8" for o in named.options)
    assert any(n.startswith(NO_INTEGER_KERNELS_NOTE + "Instinct MI300X") and "planned with FP8 weights" in n
               for n in named.notes), named.notes
    fp8 = advise(w.model_copy(update={"precision": "fp8"}), data)  # FP8 (W8A8) does run on MI300X
    assert any(_vendor(data, o.gpu) == "AMD" for o in fp8.options)


def test_the_same_gpus_go_to_8_bit_weights_before_4_bit(data: Any) -> None:
    """70B on the 2 A100 80GB fixed: BF16 does not fit; FP8 weights do, run weight-only through vLLM's FP8 Marlin
    kernel (W8A16) on the A100, so 8-bit is the pick and the 4-bit fallback is not needed. On a T4 (SM 7.5, no
    Marlin) 8-bit integer weights are tried before 4-bit."""
    advice = advise(Workload(mode="inference", model="llama-3.1-70b", gpu="a100-sxm-80gb", gpu_count=2), data)
    pick = advice.options[0]
    assert pick.precision == "fp8" and pick.cluster.gpus == 2
    assert not any(o.precision == "int4" for o in advice.options)
    t4 = advise(Workload(mode="inference", model="llama-3.1-8b", gpu="t4", concurrency=20), data)
    assert t4.options and t4.options[0].precision in ("int8", "int4") and not any(o.precision == "fp8" for o in t4.options)


def test_a_spot_pick_is_not_doubted_against_the_on_demand_listing(data: Any) -> None:
    """A row that doubts its on-demand price (Nebius's H100 at $2.95 against a $3.85 listing, as a team's own offers
    file may say); its spot price is its own published figure: a spot pick on that row carries no "price to confirm".
    The shipped rows' sources agree: no doubt at all."""
    shipped = advise(Workload(mode="lora", model="qwen2.5-32b", dataset_tokens=300_000_000, gpu="h100-sxm",
                              provider="nebius"), data)
    assert shipped.options and not any(n.startswith("price to confirm") for n in shipped.notes), shipped.notes
    doubt = "nebius.com/prices read 2026-09-25 listed HGX H100 at $3.85/GPU-h: re-check before quoting"
    data = data.model_copy(update={"offers": tuple(
        o.model_copy(update={"notes": f"{o.notes}; {doubt}"}) if o.provider == "nebius" and o.gpu == "h100-sxm" else o
        for o in data.offers)})
    w = Workload(mode="lora", model="qwen2.5-32b", dataset_tokens=300_000_000, gpu="h100-sxm", provider="nebius")
    on_demand = advise(w, data)
    spot = advise(w.model_copy(update={"pricing": "spot"}), data)
    assert on_demand.options[0].offer_id and on_demand.options[0].offer_id.startswith("nebius")
    assert any(n.startswith("price to confirm") for n in on_demand.notes)
    assert spot.options[0].offer_id == on_demand.options[0].offer_id
    assert not any(n.startswith("price to confirm") for n in spot.notes), spot.notes


def test_block_fp8_experts_that_do_not_split_are_served_with_expert_parallel(data: Any) -> None:
    """Qwen3-235B-A22B FP8 at TP 8: each expert's 1536-wide FFN splits into 192, not a whole number of vLLM's
    128-wide FP8 blocks, and vLLM refuses the layout; expert parallel places whole experts. At TP 4 (384) it splits."""
    from engine.architecture import from_record
    from engine.offer_plans import needs_expert_parallel

    arch = from_record(next(m for m in data.models if m.id == "qwen3-235b-a22b-instruct-2507"))
    fp8 = Workload(mode="inference", precision="fp8")
    assert needs_expert_parallel(fp8, arch, 8) and not needs_expert_parallel(fp8, arch, 4)
    assert not needs_expert_parallel(fp8.model_copy(update={"precision": "bf16"}), arch, 8)
    advice = advise(Workload(mode="inference", model="qwen3-235b-a22b-instruct-2507", precision="fp8", concurrency=150,
                             gpu="h100-sxm"), data)
    plan = advice.cluster
    assert plan is not None and plan.tensor_parallel == 8 and "with expert parallel" in plan.parallelism


def test_an_fp8_row_on_a_gpu_without_fp8_cores_says_weight_only(data: Any) -> None:
    """"serve Llama 3.1 405B in fp8": the 8x A100 runner-up read "(on-demand)" like the FP8 rows around it, while it
    runs FP8 weight-only (W8A16 Marlin); its name says so, and rows on GPUs with FP8 tensor cores do not."""
    advice = advise(Workload(mode="inference", model="llama-3.1-405b", precision="fp8"), data)
    a100 = [o for o in advice.options if o.gpu.startswith("a100")]
    assert a100 and all(o.name.endswith(", FP8 weight-only)") for o in a100), [o.name for o in a100]
    fp8_cores = [o for o in advice.options if data.gpu(o.gpu).fp8_dense_tflops]
    assert fp8_cores and not any("weight-only" in o.name for o in fp8_cores)
