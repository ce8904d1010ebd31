"""Checkpoint sizes, storage and transfer bills, pinned to hand arithmetic on public numbers.

Llama 3.1 70B: 80 layers, hidden 8192, 64 heads of 128, 8 KV heads, SwiGLU FFN 28672, vocab 128256, untied
(huggingface.co/meta-llama/Llama-3.1-70B config.json): 70,553,706,496 parameters, 141.1 GB of BF16 safetensors.
Llama 3.1 8B: 8,030,261,248 parameters. Mixed-precision Adam saves 2 (BF16 weights) + 4 (FP32 master) + 4 + 4 (Adam
m, v) = 14 bytes per parameter (ZeRO paper, arXiv:1910.02054, section 3.1, less the 2 of gradients). S3 Standard
$0.023/GB-month, GCS Standard $0.020 (aws.amazon.com/s3/pricing, cloud.google.com/storage/pricing). AWS internet
egress: first 100 GB a month free, then $0.09/GB to 10 TB (aws.amazon.com/ec2/pricing/on-demand).
Quantised checkpoints keep the embeddings, LM head and norms in BF16 (RedHatAI's FP8 Llama repos, DeepSeek-V3's
config.json quantization_config): Llama 3.1 70B's are 2 x 128256 x 8192 + 161 x 8192 = 2,102,665,216 parameters.
DeepSeek-V3 is published in FP8 (huggingface.co/deepseek-ai/DeepSeek-V3), gpt-oss-120b in MXFP4 on the routed experts
(huggingface.co/openai/gpt-oss-120b: about 65 GB of safetensors).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.records import CatalogData, EgressTier, ProviderRecord
from engine.architecture import generic_architecture
from engine.checkpoints import (
    architecture_of,
    checkpoint_size,
    kept_window,
    resumable_equivalent,
    storage_cost,
    transfer_cost,
    transfer_time,
)

L70 = 70_553_706_496
L8 = 8_030_261_248
AWS = ProviderRecord(id="aws", name="AWS (EC2)", kind="hyperscaler", cloud="aws",
                     egress_tiers=(EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=10_240, usd_per_gb=0.09),
                                   EgressTier(up_to_gb=51_200, usd_per_gb=0.085), EgressTier(up_to_gb=None, usd_per_gb=0.05)),
                     storage_usd_per_gb_month=0.023, storage_product="S3 Standard", source="aws.amazon.com/s3/pricing",
                     observed_on="2026-11-21")
SAGEMAKER = AWS.model_copy(update={"id": "sagemaker", "name": "AWS SageMaker", "kind": "managed"})
GCS = AWS.model_copy(update={"id": "gcp", "name": "Google Cloud", "cloud": "gcp", "storage_usd_per_gb_month": 0.020,
                             "egress_tiers": (EgressTier(up_to_gb=1024, usd_per_gb=0.12),
                                              EgressTier(up_to_gb=None, usd_per_gb=0.11))})
LAMBDA = AWS.model_copy(update={"id": "lambda", "name": "Lambda", "kind": "gpu_cloud", "cloud": None,
                                "egress_tiers": (EgressTier(up_to_gb=None, usd_per_gb=0.0),)})


@pytest.fixture(scope="module")
def l70(data: CatalogData):
    return architecture_of(data.model("llama-3.1-70b"), None)


def test_weights_only_is_two_bytes_a_parameter_in_bf16_and_one_in_fp8(l70) -> None:
    assert l70.total_params == L70
    bf16 = checkpoint_size(l70, "weights")
    assert bf16.gb.value == pytest.approx(L70 * 2 / 1e9) == pytest.approx(141.107, abs=1e-3)
    fp8 = checkpoint_size(l70, "weights", precision="fp8")
    bf16_rest = 2 * 128_256 * 8192 + 161 * 8192  # embeddings, LM head and norms stay BF16
    assert fp8.gb.value == pytest.approx(((L70 - bf16_rest) * 1 + bf16_rest * 2) / 1e9) == pytest.approx(72.656, abs=1e-3)
    assert fp8.gb.value == pytest.approx(sum(fp8.parts.values()))


def test_the_fp8_resume_checkpoint_adds_up_to_its_parts(l70) -> None:
    # "in FP8" once printed 988 GB (the BF16 total) beside 70.6 GB of FP8 weights + 282 + 564 = 917
    fp8 = checkpoint_size(l70, "weights", precision="fp8")
    resumable = resumable_equivalent(fp8, l70)
    assert list(resumable.parts) == ["FP8 weights", "FP32 master copy", "Adam m and v (FP32)"]
    assert resumable.parts["FP8 weights"] == pytest.approx(fp8.gb.value)
    assert resumable.gb.value == pytest.approx(sum(resumable.parts.values())) == pytest.approx(72.656 + L70 * 12 / 1e9,
                                                                                                 abs=1e-3)
    assert resumable_equivalent(checkpoint_size(l70, "weights"), l70).gb.value == pytest.approx(L70 * 14 / 1e9)


def test_a_model_released_quantised_is_sized_in_its_release_format(data: CatalogData) -> None:
    deepseek = architecture_of(data.model("deepseek-v3"), None)
    fp8 = checkpoint_size(deepseek, "weights", precision="fp8")
    rest = deepseek.embedding_params + deepseek.head_params + (deepseek.total_params - deepseek.embedding_params
                                                               - deepseek.head_params - deepseek.linear_params)
    assert fp8.gb.value == pytest.approx(((deepseek.total_params - rest) + rest * 2) / 1e9)
    assert 660 < fp8.gb.value < 690  # the Hub's ~690 GB adds the 14B MTP module; BF16 would be 1.34 TB
    assert checkpoint_size(deepseek, "weights").gb.value == pytest.approx(deepseek.total_params * 2 / 1e9)
    oss = architecture_of(data.model("gpt-oss-120b"), None)
    mxfp4 = checkpoint_size(oss, "weights", precision="mxfp4")  # routed experts at 4.25 bits, the rest BF16
    assert mxfp4.gb.value == pytest.approx((oss.routed_params * (0.5 + 1 / 32) + (oss.total_params - oss.routed_params)
                                            * 2) / 1e9)
    assert mxfp4.gb.value == pytest.approx(65, abs=1.5)


def test_a_transfer_takes_bytes_times_eight_over_the_link() -> None:
    took = transfer_time(811.7, 1.0)  # Llama 3.1 405B's BF16 weights over 1 Gbps
    assert took.value == pytest.approx(811.7 * 8) and took.value / 3600 == pytest.approx(1.80, abs=0.01)
    assert transfer_time(811.7, 1.0, 0.7).value == pytest.approx(811.7 * 8 / 0.7)
    assert transfer_time(20_000, 10.0).value == pytest.approx(16_000)
    assert transfer_time(100, 0.0).value == 0.0


def test_a_resumable_checkpoint_is_fourteen_bytes_a_parameter_under_mixed_precision_adam(data: CatalogData) -> None:
    arch = architecture_of(data.model("llama-3.1-8b"), None)
    size = checkpoint_size(arch, "training")
    assert arch.total_params == L8 and size.bytes_per_param == 14
    assert size.gb.value == pytest.approx(L8 * 14 / 1e9) == pytest.approx(112.424, abs=1e-3)
    assert size.parts == pytest.approx({"BF16 weights": L8 * 2 / 1e9, "FP32 master copy": L8 * 4 / 1e9,
                                        "Adam m and v (FP32)": L8 * 8 / 1e9})
    assert size.weights_gb.value == pytest.approx(16.06, abs=0.01)
    assert checkpoint_size(arch, "training", optimizer="adamw_8bit").bytes_per_param == 2 + 4 + 2  # m, v at 1 byte
    assert checkpoint_size(arch, "training", precision="fp32").bytes_per_param == 4 + 8  # no master copy


def test_a_lora_adapter_is_rank_times_in_plus_out_on_every_projection(l70) -> None:
    # per layer: q 8192+8192, k 8192+1024, v 8192+1024, o 8192+8192, gate/up/down 8192+28672 each = 161,792
    adapter = 16 * 161_792 * 80
    size = checkpoint_size(l70, "adapter", lora_rank=16)
    assert size.params == adapter == 207_093_760
    assert size.weights_gb.value == pytest.approx(adapter * 4 / 1e9)  # FP32, as PEFT keeps trainable adapters
    assert size.gb.value == pytest.approx(adapter * 12 / 1e9) == pytest.approx(2.485, abs=1e-3)  # + Adam m, v
    qlora = checkpoint_size(l70, "adapter", lora_rank=16, quantized_base=True)  # paged 8-bit AdamW: 2 bytes of state
    assert qlora.gb.value == pytest.approx(adapter * 6 / 1e9)
    assert checkpoint_size(l70, "adapter", lora_rank=64).params == 4 * adapter


def test_a_bare_size_takes_the_closest_catalog_shape_with_the_size_said(data: CatalogData) -> None:
    arch = architecture_of(None, 70.0, data.models)
    assert arch.total_params == 70_000_000_000
    assert checkpoint_size(arch, "training").gb.value == pytest.approx(980.0)


def test_storage_is_size_times_count_times_months_at_the_catalog_rate() -> None:
    assert storage_cost(980, 10, 1, AWS).value == pytest.approx(225.40)  # 9,800 GB x $0.023
    assert storage_cost(5_000, 1, 6, GCS).value == pytest.approx(600.0)
    fig = storage_cost(980, 10, 1, AWS)
    assert fig.inputs["product"] == "S3 Standard" and fig.inputs["source"] == "aws.amazon.com/s3/pricing"
    assert storage_cost(float("nan"), 3, 1, AWS).value == 0.0


def test_keeping_the_last_three_resumable_and_weights_for_the_rest(data: CatalogData) -> None:
    size = checkpoint_size(architecture_of(None, 70.0, data.models), "training")
    window = kept_window(size, 10)
    assert window is not None and window.value == pytest.approx(3 * 980 + 7 * 140)
    assert kept_window(size, 3) is None
    assert kept_window(checkpoint_size(generic_architecture(7.0), "weights"), 10) is None


def test_egress_walks_the_source_tiers_and_is_free_inside_one_cloud() -> None:
    assert transfer_cost(2_000, AWS, LAMBDA).value == pytest.approx(1_900 * 0.09)  # $171
    assert transfer_cost(500, AWS, None).value == pytest.approx(400 * 0.09)  # $36 out to the internet
    assert transfer_cost(2_000, AWS, SAGEMAKER).value == 0.0  # both in AWS
    assert transfer_cost(3_000, GCS, AWS).value == pytest.approx(1024 * 0.12 + 1976 * 0.11)
    assert transfer_cost(800, LAMBDA, AWS).value == 0.0  # no egress fees


@settings(max_examples=60, deadline=None)
@given(params_b=st.floats(min_value=0.5, max_value=500), more=st.floats(min_value=0.01, max_value=100),
       count=st.integers(min_value=1, max_value=50), kind=st.sampled_from(["weights", "training", "adapter"]))
def test_size_and_bill_grow_with_parameters_and_count(params_b: float, more: float, count: int, kind: str) -> None:
    small, big = generic_architecture(params_b), generic_architecture(params_b + more)
    a = checkpoint_size(small, kind)  # type: ignore[arg-type]
    b = checkpoint_size(big, kind)  # type: ignore[arg-type]
    assert b.gb.value >= a.gb.value > 0
    assert storage_cost(a.gb.value, count + 1, 1, AWS).value > storage_cost(a.gb.value, count, 1, AWS).value
    assert a.gb.value == pytest.approx(sum(a.parts.values()) if kind != "weights" else a.weights_gb.value)
