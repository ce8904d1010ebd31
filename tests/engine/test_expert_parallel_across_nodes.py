"""A large MoE on 80 GB GPUs is served across nodes with expert parallelism and data-parallel attention (SGLang's
two-node H100 DeepSeek recipe, DeepSeek's own EP decode units, vLLM DP + EP), not only with pipeline stages: each GPU
holds and reads 1/16 of the routed experts instead of a stage's 1/8 read in turn, at the price of an all-to-all per
MoE layer over the inter-node fabric. Dense models keep pipeline stages across nodes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.architecture import from_record
from engine.memory import estimate_memory
from engine.serving import below_floor, choose
from engine.throughput import decode_step_seconds_for, expert_all_to_all_seconds, prefill_seconds_for
from tests.engine.fixtures_physics import A100_80, DEEPSEEK_V3, H100_SXM, LLAMA3_70B, MIXTRAL_8X7B, workload

DSV3 = from_record(DEEPSEEK_V3)


def _serve(concurrency: int, **kw: object):  # type: ignore[no-untyped-def]
    return workload(mode="inference", precision="fp8", concurrency=concurrency, seq_len=4096, **kw)


def test_ep16_is_faster_per_user_than_pp2_on_the_same_16_gpus() -> None:
    """At the same batch, 16 H100s in EP16 read half the expert bytes per GPU of two TP8 stages read in turn: about
    1.5-2x the per-user speed once the all-to-all, the MoE layers' fixed time and the attention are counted (the
    weight reads alone halve)."""
    w = _serve(200)
    for batch in (64, 200):
        pp2 = decode_step_seconds_for(w, DSV3, H100_SXM, 8, 2, batch, "fast")
        ep16 = decode_step_seconds_for(w, DSV3, H100_SXM, 8, 1, batch, "fast", ep=16)
        assert 1.3 < pp2[0] / ep16[0] < 2.0
        assert 1.8 < pp2[1] / ep16[1] < 2.05  # the memory time: experts /16 instead of /8
        assert ep16[3] > pp2[3]  # it pays for the fabric
    # a prompt's prefill reads the experts over 16 GPUs too, its tokens crossing to the other node once per layer
    assert prefill_seconds_for(w, DSV3, H100_SXM, 8, 1024, ep=16) < 0.8 * prefill_seconds_for(w, DSV3, H100_SXM, 8, 1024)


def test_memory_per_gpu_is_the_expert_share_plus_the_node_share_of_the_rest() -> None:
    w = _serve(200)
    mem = estimate_memory(w, DSV3, 16, H100_SXM, tensor_parallel=8, pipeline_parallel=1, zero_stage=0,
                          expert_parallel=16)
    routed = DSV3.routed_params
    params = (DSV3.total_params - routed) / 8 + routed / 16
    assert mem.components["weights_gb"].inputs["params_on_gpu"] == int(params)
    assert 40 < mem.components["weights_gb"].value < 45  # ~654B routed FP8 / 16 + ~17B / 8
    # each node's attention group holds the cache of its own half of the users
    tp8 = estimate_memory(w, DSV3, 8, H100_SXM, tensor_parallel=8, pipeline_parallel=1, zero_stage=0)
    assert abs(mem.components["kv_cache_gb"].value * 2 - tp8.components["kv_cache_gb"].value) < 1e-3
    assert mem.fits and not tp8.fits
    # a dense model, or a layout without expert parallelism across nodes, is unchanged by the argument
    dense = workload(mode="inference", precision="fp8", concurrency=8, seq_len=4096)
    a = estimate_memory(dense, from_record(LLAMA3_70B), 8, H100_SXM, tensor_parallel=8, pipeline_parallel=1)
    b = estimate_memory(dense, from_record(LLAMA3_70B), 8, H100_SXM, tensor_parallel=8, pipeline_parallel=1,
                        expert_parallel=16)
    assert a.per_gpu_gb == b.per_gpu_gb


def test_all_to_all_grows_with_the_batch_and_matches_deepep() -> None:
    """DeepEP's published low-latency kernels (H800, one 400 Gb/s CX7 NIC per GPU, 128 tokens per GPU, hidden
    7168, top-8, FP8 dispatch and BF16 combine): 118 + 195 us per MoE layer at EP16, 155 + 273 us at EP32."""
    per_layer16 = expert_all_to_all_seconds(DSV3, 128, 16, 8, "fp8", 50.0) / DSV3.moe_layers
    per_layer32 = expert_all_to_all_seconds(DSV3, 128, 32, 8, "fp8", 50.0) / DSV3.moe_layers
    assert abs(per_layer16 / 313e-6 - 1) < 0.10
    assert abs(per_layer32 / 428e-6 - 1) < 0.10
    times = [expert_all_to_all_seconds(DSV3, t, 16, 8, "fp8", 50.0) for t in (1, 8, 32, 128)]
    assert times == sorted(times) and times[0] < times[-1]
    steps = [decode_step_seconds_for(_serve(b), DSV3, H100_SXM, 8, 1, b, "fast", ep=16)[3] for b in (16, 128, 512)]
    assert steps == sorted(steps) and steps[0] < steps[-1]
    # a slower fabric costs more; inside one node, or for a dense model, there is no inter-node all-to-all
    assert expert_all_to_all_seconds(DSV3, 32, 16, 8, "fp8", 25.0) > expert_all_to_all_seconds(DSV3, 32, 16, 8, "fp8", 50.0)
    assert expert_all_to_all_seconds(DSV3, 32, 8, 8, "fp8", 50.0) == 0.0
    assert expert_all_to_all_seconds(from_record(LLAMA3_70B), 32, 16, 8, "fp8", 50.0) == 0.0


def test_the_search_picks_expert_parallel_for_deepseek_on_h100_and_pipeline_for_a_dense_model() -> None:
    w = _serve(200)
    ep = choose(w, DSV3, H100_SXM, 8, "fast", True)
    assert ep is not None and ep.ep == 16 and ep.tp == 8 and ep.pp == 1 and ep.gpus_per_replica == 16
    assert not below_floor(w, ep.per_user_tokens_s)
    pp_only = choose(w.model_copy(update={"pipeline_parallel": 2}), DSV3, H100_SXM, 8, "fast", True)
    assert pp_only is not None and pp_only.ep == 0 and pp_only.pp == 2
    assert ep.billed_gpus < pp_only.billed_gpus  # 32 H100s where pipeline stages took 80
    # 16 GPUs fixed: one EP16 replica, faster than the PP2 one
    fixed = choose(_serve(200, gpu_count=16), DSV3, H100_SXM, 8, "fast", True)
    assert fixed is not None and fixed.ep == 16
    # no fabric between nodes: nothing holds the model
    assert choose(w, DSV3, H100_SXM, 8, "fast", False) is None
    # a model a part of a node holds is not spread across nodes
    mixtral = choose(workload(mode="inference", precision="bf16", concurrency=200, seq_len=4096),
                     from_record(MIXTRAL_8X7B), H100_SXM, 8, "fast", True)
    assert mixtral is not None and mixtral.ep == 0
    # a dense model too big for one node keeps pipeline stages
    big = workload(mode="inference", precision="bf16", concurrency=64, seq_len=4096)
    dense = choose(big, from_record(LLAMA3_70B), A100_80.model_copy(update={"memory_gb": 16.0}), 8, "fast", True)
    assert dense is None or dense.ep == 0


def _rank(choice) -> tuple[int, bool, int]:  # type: ignore[no-untyped-def]
    w = _serve(1)
    return len(choice.misses), below_floor(w, choice.per_user_tokens_s), choice.billed_gpus


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(users=st.integers(min_value=1, max_value=700), gpu=st.sampled_from([H100_SXM, A100_80]),
       slow=st.sampled_from([3.0, 12.5, 25.0]), fast=st.sampled_from([25.0, 50.0, 100.0]))
def test_adding_the_fabric_never_makes_the_plan_dearer(users: int, gpu, slow: float, fast: float) -> None:  # type: ignore[no-untyped-def]
    """Linking the nodes only adds layouts (pipeline stages, expert parallel), and a faster fabric only speeds the
    all-to-all: the plan chosen never misses more, falls below the floor where it did not, or bills more GPUs."""
    w = _serve(users)
    for arch in (DSV3, from_record(MIXTRAL_8X7B)):
        alone = choose(w, arch, gpu, 8, "fast", False)
        slower = choose(w, arch, gpu, 8, "fast", True, fabric_gb_s=slow)
        faster = choose(w, arch, gpu, 8, "fast", True, fabric_gb_s=max(slow, fast))
        assert slower is not None and faster is not None
        if alone is not None:
            assert _rank(slower) <= _rank(alone)
        assert _rank(faster) <= _rank(slower)
