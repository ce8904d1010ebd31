"""DeepSeek-V3/R1 serving checked against published runs (benchmarks/data/calibration.csv, rows m05-m08).

Published per-user speeds on one 8x H200 node, DeepSeek-R1 FP8 (the DeepSeek-V3 architecture):
- SGLang v0.5.7, TP8, 1,024-token prompts and replies (SemiAnalysisAI/InferenceX issue 870): mean TPOT 12.8 / 25.6 /
  34.6 ms at 8 / 32 / 64 in flight (78.1 / 39.1 / 28.9 tokens/s per user).
- TensorRT-LLM, TP8 EP8 with attention DP, 1,024 in flight, 1K in / 2K out (NVIDIA/TensorRT-LLM, docs/source/blogs/
  Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md, "H200 max-throughput"): 11,489 output tokens/s, 11.35 per user.

What they showed: at 64 in flight the model was already within 6%, the MoE layers' fixed time included; at 1,024 it
was 36% fast, because MLA's absorbed attention (279k FLOPs per cached token per layer for DeepSeek-V3, compute-bound)
was counted as a multi-head layer's 66k and hidden under the weight reads. "8 H200 for 200 users at 14.8 tokens/s"
is the default chat turn (1,024 prompt tokens per 256-token reply, every user's 4,096-token context read), not the
1:1-1:2 shapes those runs measured: at their shapes the model gives 21-24 tokens/s at 200 in flight.

GB200 NVL72 came out 2.3x dearer per token than HGX B200 for 2,000 users because an expert-parallel replica was
charged one prompt's prefill latency per request, as if its attention groups prefilled one prompt at a time:
at EP72 a 12 ms prefill per 256-token reply took 86% of the replica. Each group prefills its own users' prompts.
"""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

from catalog.query import open_catalog
from engine.architecture import from_record
from engine.models import Workload
from engine.offer_plans import plan_offer
from engine.throughput import (
    decode_step_seconds_for,
    loaded_step,
    mla_decode_attention_flops,
    prefill_load_seconds,
    prefill_seconds_for,
)

ROOT = Path(__file__).resolve().parents[2]
CALIBRATION = ROOT / "benchmarks" / "data" / "calibration.csv"
INFERENCEX_870 = "SemiAnalysisAI/InferenceX issue 870"
TRTLLM_BLOG = "Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md"


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    return open_catalog().data()


@pytest.fixture(scope="module")
def accuracy():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("accuracy", ROOT / "benchmarks" / "accuracy.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    results, _extra = mod.run(CALIBRATION)
    return {r["id"]: r for rows in results.values() for r in rows}


def test_the_published_h200_rows_are_in_the_calibration_data_with_their_sources() -> None:
    rows = {r["id"]: r for r in csv.DictReader(CALIBRATION.open())}
    expected = {"m05": ("12.8", INFERENCEX_870), "m06": ("25.6", INFERENCEX_870), "m07": ("34.6", INFERENCEX_870),
                "m08": ("11.35", TRTLLM_BLOG)}
    for row_id, (value, source) in expected.items():
        row = rows[row_id]
        assert row["value"] == value and source in row["source"] and row["gpu"] == "H200 SXM"
        assert row["precision"] == "fp8" and row["model"] == "DeepSeek-V3"


def test_sglang_at_64_in_flight_is_met_and_trtllm_at_1024_within_its_stated_error(accuracy) -> None:  # type: ignore[no-untyped-def]
    """m07 (where a chat service runs) within 10%; m08, a throughput setting on Hopper without chunked MLA prefill,
    still fast but within 30% (it was +36% before MLA's attention was counted). m05-m06 (8 and 32 in flight) are
    slow by 13-29%: the MoE layers' fixed time, fitted between vLLM's AWQ runs (m02, 30% fast) and these, is kept."""
    assert abs(accuracy["m07"]["error"]) < 10
    assert 0 < accuracy["m08"]["error"] < 30
    assert accuracy["m06"]["error"] > -20 and accuracy["m05"]["error"] > -35


def test_mla_decode_attention_is_counted_absorbed() -> None:
    arch = from_record(open_catalog().data().model("deepseek-v3"))
    per_token_layer = mla_decode_attention_flops(arch, 1) / arch.layers
    assert per_token_layer == 2 * 128 * (2 * 512 + 64)  # 278,528: 4.25x a multi-head layer's 4 x 128 x 128
    dense = from_record(open_catalog().data().model("llama-3.1-70b"))
    assert mla_decode_attention_flops(dense, 4096) == 0.0


def test_mla_attention_slows_large_batches_not_small_ones(data) -> None:  # type: ignore[no-untyped-def]
    """At 1,024 sequences of ~2k context the absorbed attention outlasts its cache reads by ~6 ms of an 8x H200 step
    (it used to hide under the weight reads); at 8 sequences it is about as long as they are."""
    from engine.throughput import moe_layer_seconds

    arch = from_record(data.model("deepseek-v3"))
    gpu = data.gpu("h200-sxm")

    def beyond_reads(b: int) -> float:
        w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=b, input_tokens=1024,
                     output_tokens=2048, seq_len=3072)
        step, mem_s, _comp_s, comm_s = decode_step_seconds_for(w, arch, gpu, 8, 1, b, "fast")
        return step - mem_s - comm_s - moe_layer_seconds(arch)

    assert beyond_reads(1024) > 0.004
    assert beyond_reads(8) < 0.0005


def test_published_shapes_at_200_in_flight_read_20_plus_on_8_h200(data) -> None:  # type: ignore[no-untyped-def]
    """Between SGLang's 28.9 at 64 and TensorRT-LLM's 11.35 at 1,024, 200 in flight sits near 20 tokens/s per user for
    1:1 and 1:2 prompt/reply shapes; the model gives 20+ there, and less for the default chat turn of 4 prompt tokens
    per reply token, whose prefills take a larger share."""
    arch = from_record(data.model("deepseek-v3"))
    gpu = data.gpu("h200-sxm")

    def per_user(inp: int, out: int) -> float:
        w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=200, input_tokens=inp,
                     output_tokens=out, seq_len=inp + out)
        step = decode_step_seconds_for(w, arch, gpu, 8, 1, 200, "fast")[0]
        return 1 / loaded_step(step, 200, prefill_seconds_for(w, arch, gpu, 8, inp, kind="fast"), out)

    assert per_user(1024, 1024) >= 20 and per_user(1024, 2048) >= 20
    assert per_user(1024, 256) < per_user(1024, 1024)


def test_a_tensor_parallel_group_is_charged_its_prefill_latency(data) -> None:  # type: ignore[no-untyped-def]
    arch = from_record(data.model("deepseek-v3"))
    gpu = data.gpu("h200-sxm")
    w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=200, seq_len=4096)
    assert prefill_load_seconds(w, arch, gpu, 8, 1024, kind="fast") == prefill_seconds_for(w, arch, gpu, 8, 1024,
                                                                                            kind="fast")


def test_an_expert_parallel_replica_prefills_one_prompt_per_attention_group(data) -> None:  # type: ignore[no-untyped-def]
    """EP72 on a GB200 NVL72 (18 attention groups of 4): a prompt takes the replica about 1/18 of its latency, and
    the 2,000 users' turns leave most of the replica to decoding (it was 86% prefill)."""
    arch = from_record(data.model("deepseek-v3"))
    gpu = data.gpu("gb200")
    w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=2000, seq_len=4096)
    latency = prefill_seconds_for(w, arch, gpu, 4, 1024, ep=72, fabric_gb_s=900.0)
    load = prefill_load_seconds(w, arch, gpu, 4, 1024, ep=72, fabric_gb_s=900.0)
    assert latency / 30 < load < latency / 10
    step = decode_step_seconds_for(w, arch, gpu, 4, 1, 2000, "fast", ep=72, fabric_gb_s=900.0)[0]
    assert step / loaded_step(step, 2000, load, 256) > 0.6  # decoding keeps most of the replica
    assert step / loaded_step(step, 2000, latency, 256) < 0.2  # as it was charged


def test_gb200_nvl72_needs_no_more_gpus_than_hgx_b200_for_2000_users(data) -> None:  # type: ignore[no-untyped-def]
    """Was 80 GB200 against 64 HGX B200 (and 1.9x the GPU-hour): the rack's NVLink-wide expert parallelism now pays,
    and 2,000 users at 20+ tokens/s fit on half the HGX B200 count."""
    arch = from_record(data.model("deepseek-v3"))
    w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=2000, seq_len=4096,
                 think_time_s=0.0)  # back to back, as pinned
    gb_plan, _m, gb = plan_offer(w, arch, data.gpu("gb200"), data.offer("coreweave:gb200-nvl72:us"))
    hgx = next(o for o in data.offers if o.id == "coreweave:hgx-b200:us")
    b_plan, _m, b = plan_offer(w, arch, data.gpu("b200"), hgx)
    for t in (gb, b):
        assert t.decode_tokens_per_s_per_sequence is not None
        assert t.decode_tokens_per_s_per_sequence.value >= 20 * 0.999
    assert gb_plan.gpus <= 32 and gb_plan.gpus * 2 <= b_plan.gpus
