"""A small CatalogData built in code, so engine tests never depend on the real catalog files.

Figures are vendor / price-list values (sources named per row). Two rows exist only here, never in
the shipped catalog: the worked QLoRA-70B example's hypothetical bare-metal H100 provider at
$2.80/GPU-hour (id "seed-baremetal", kept for the engine tests that name it) and a SageMaker
p5 at +30% over it. A user prices such a provider with their own quote (`hourly_rate`).
"""

from __future__ import annotations

from catalog.records import CatalogData, EgressTier, GpuRecord, ModelRecord, OfferRecord, ProviderRecord

OBSERVED = "2026-01-01"

AWS_TIERS = (
    EgressTier(up_to_gb=100, usd_per_gb=0.0),
    EgressTier(up_to_gb=10_240, usd_per_gb=0.09),
    EgressTier(up_to_gb=51_200, usd_per_gb=0.085),
    EgressTier(up_to_gb=153_600, usd_per_gb=0.07),
    EgressTier(up_to_gb=None, usd_per_gb=0.05),
)
FREE_EGRESS = (EgressTier(up_to_gb=None, usd_per_gb=0.0),)


def gpus() -> tuple[GpuRecord, ...]:
    common = {"observed_on": OBSERVED}
    return (
        GpuRecord(
            id="h100-sxm", name="H100 SXM5 80GB", vendor="NVIDIA", architecture="Hopper",
            memory_gb=80, memory_type="HBM3", memory_bandwidth_tb_s=3.35,
            bf16_dense_tflops=989.4, fp16_dense_tflops=989.4, fp8_dense_tflops=1978.9,
            int8_dense_tops=1978.9, fp32_tflops=66.9, tdp_w=700, scaleup_link="NVLink 4",
            scaleup_bandwidth_gb_s=900, pcie_gen=5, compute_capability="9.0", form_factor="SXM5",
            tier="datacenter", release_year=2022, purchase_price_usd=None,
            source="NVIDIA H100 datasheet", **common,
        ),
        GpuRecord(
            id="a100-sxm-80gb", name="A100 SXM4 80GB", vendor="NVIDIA", architecture="Ampere",
            memory_gb=80, memory_type="HBM2e", memory_bandwidth_tb_s=2.039,
            bf16_dense_tflops=312, fp16_dense_tflops=312, fp8_dense_tflops=None,
            int8_dense_tops=624, fp32_tflops=19.5, tdp_w=400, scaleup_link="NVLink 3",
            scaleup_bandwidth_gb_s=600, pcie_gen=4, compute_capability="8.0", form_factor="SXM4",
            tier="datacenter", release_year=2020, purchase_price_usd=None,
            source="NVIDIA A100 datasheet", **common,
        ),
        GpuRecord(
            id="rtx-4090", name="GeForce RTX 4090", vendor="NVIDIA", architecture="Ada Lovelace",
            memory_gb=24, memory_type="GDDR6X", memory_bandwidth_tb_s=1.008,
            bf16_dense_tflops=165.2, fp16_dense_tflops=165.2, fp8_dense_tflops=330.3,
            int8_dense_tops=660.6, fp32_tflops=82.6, tdp_w=450, scaleup_link="PCIe only",
            scaleup_bandwidth_gb_s=None, pcie_gen=4, compute_capability="8.9", form_factor="PCIe",
            tier="consumer", release_year=2022, purchase_price_usd=1599,
            source="NVIDIA Ada architecture whitepaper", **common,
        ),
    )


def models() -> tuple[ModelRecord, ...]:
    common = {"observed_on": OBSERVED}
    return (
        ModelRecord(
            id="llama-3-70b", name="Llama 3 70B", family="llama", hf_repo="meta-llama/Meta-Llama-3-70B",
            num_layers=80, hidden_size=8192, num_attention_heads=64, num_kv_heads=8, head_dim=128,
            intermediate_size=28672, vocab_size=128256, max_context=8192,
            total_params_b=70.55, active_params_b=70.55, source="config.json", **common,
        ),
        ModelRecord(
            id="llama-3.1-8b", name="Llama 3.1 8B", family="llama", hf_repo="meta-llama/Llama-3.1-8B",
            num_layers=32, hidden_size=4096, num_attention_heads=32, num_kv_heads=8, head_dim=128,
            intermediate_size=14336, vocab_size=128256, max_context=131072,
            total_params_b=8.03, active_params_b=8.03, source="config.json", **common,
        ),
    )


def providers() -> tuple[ProviderRecord, ...]:
    common = {"observed_on": OBSERVED}
    return (
        ProviderRecord(
            id="seed-baremetal", name="Example bare-metal H100 provider (test fixture)", kind="bare_metal", cloud=None,
            egress_tiers=FREE_EGRESS, storage_usd_per_gb_month=0.023, storage_product="object storage",
            source="test fixture: hypothetical provider of the worked QLoRA-70B example", **common,
        ),
        ProviderRecord(
            id="aws", name="AWS", kind="hyperscaler", cloud="aws", egress_tiers=AWS_TIERS,
            storage_usd_per_gb_month=0.023, storage_product="S3 Standard",
            source="aws.amazon.com/ec2/pricing/on-demand (data transfer), aws.amazon.com/s3/pricing", **common,
        ),
        ProviderRecord(
            id="sagemaker", name="AWS SageMaker", kind="managed", cloud="aws", egress_tiers=AWS_TIERS,
            storage_usd_per_gb_month=0.023, storage_product="S3 Standard", managed_premium_fraction=0.30,
            source="test fixture: ~30% managed premium of the worked example", **common,
        ),
        ProviderRecord(
            id="lambda", name="Lambda", kind="gpu_cloud", cloud=None, egress_tiers=FREE_EGRESS,
            storage_usd_per_gb_month=0.20, storage_product="persistent filesystem",
            source="lambda.ai/pricing", **common,
        ),
        ProviderRecord(
            id="runpod", name="RunPod", kind="gpu_cloud", cloud=None, egress_tiers=FREE_EGRESS,
            storage_usd_per_gb_month=0.07, storage_product="network volume",
            source="runpod.io/pricing", **common,
        ),
    )


def offers() -> tuple[OfferRecord, ...]:
    common = {"observed_on": OBSERVED}
    return (
        OfferRecord(
            id="seed-baremetal:h100x1:any", provider="seed-baremetal", instance_type="h100x1", gpu="h100-sxm",
            gpus_per_node=1, intra_node_link="none (single GPU)", inter_node_fabric=None, inter_node_gbps=None,
            on_demand_usd_per_hour=2.80, region="any", source="test fixture: $2.80/GPU-hour worked example", **common,
        ),
        OfferRecord(
            id="seed-baremetal:h100x8:any", provider="seed-baremetal", instance_type="h100x8", gpu="h100-sxm",
            gpus_per_node=8, intra_node_link="NVLink 4 (900 GB/s)", inter_node_fabric="InfiniBand NDR 400 Gb/s x8",
            inter_node_gbps=3200, on_demand_usd_per_hour=22.40, region="any", source="test fixture: $2.80/GPU-hour worked example", **common,
        ),
        OfferRecord(
            id="sagemaker:ml.p5.48xlarge:us-east-1", provider="sagemaker", instance_type="ml.p5.48xlarge",
            gpu="h100-sxm", gpus_per_node=8, intra_node_link="NVLink 4 (900 GB/s)",
            inter_node_fabric="EFA 3200 Gbps", inter_node_gbps=3200, on_demand_usd_per_hour=29.12,
            region="us-east-1", managed=True, managed_premium_fraction=0.30,
            source="test fixture: bare-metal $2.80/GPU-hr + 30%, listed all-in (8 x 2.80 x 1.3)", **common,
        ),
        OfferRecord(
            id="lambda:gpu_8x_h100_sxm5:us-east-1", provider="lambda", instance_type="gpu_8x_h100_sxm5",
            gpu="h100-sxm", gpus_per_node=8, intra_node_link="NVLink 4 (900 GB/s)",
            inter_node_fabric=None, inter_node_gbps=None, on_demand_usd_per_hour=23.92,
            region="us-east-1", source="lambda.ai/pricing", **common,
        ),
        OfferRecord(
            id="lambda:gpu_8x_a100_80gb_sxm4:us-east-1", provider="lambda", instance_type="gpu_8x_a100_80gb_sxm4",
            gpu="a100-sxm-80gb", gpus_per_node=8, intra_node_link="NVLink 3 (600 GB/s)",
            inter_node_fabric=None, inter_node_gbps=None, on_demand_usd_per_hour=14.32,
            region="us-east-1", source="lambda.ai/pricing", **common,
        ),
        OfferRecord(
            id="aws:p5.48xlarge:us-east-1", provider="aws", instance_type="p5.48xlarge", gpu="h100-sxm",
            gpus_per_node=8, intra_node_link="NVLink 4 (900 GB/s)", inter_node_fabric="EFA 3200 Gbps",
            inter_node_gbps=3200, on_demand_usd_per_hour=55.04, spot_usd_per_hour=30.0,
            region="us-east-1", source="skypilot catalog v8 (aws)", **common,
        ),
        OfferRecord(
            id="runpod:1x_RTX4090:CA", provider="runpod", instance_type="1x_RTX4090", gpu="rtx-4090",
            gpus_per_node=1, intra_node_link="none (single GPU)", inter_node_fabric=None, inter_node_gbps=None,
            on_demand_usd_per_hour=0.69, region="CA", source="runpod.io/pricing", **common,
        ),
    )


def catalog_data() -> CatalogData:
    """The fixture bundle every engine test uses."""
    return CatalogData(gpus=gpus(), models=models(), offers=offers(), providers=providers())


def worked_example_catalog() -> CatalogData:
    """The worked example's world: its H100 at the example's rounded 989 TFLOPS (vendor: 989.4).

    Why: the example divides by 989; at 989.4 its compute comes to $990.49, which rounds to $990, not
    the example's $991. The golden test runs on the example's figure and says so.
    """
    data = catalog_data()
    h100 = data.gpu("h100-sxm")
    assert h100 is not None
    example_h100 = h100.model_copy(update={"bf16_dense_tflops": 989.0, "source": "test fixture: 989 TFLOPS, the worked example's rounding"})
    return data.model_copy(update={"gpus": tuple(example_h100 if g.id == "h100-sxm" else g for g in data.gpus)})
