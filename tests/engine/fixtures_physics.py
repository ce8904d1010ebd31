"""GPU and model records for the physics tests, copied from the vendor datasheets and config.json files cited in catalog/data/gpus.csv and
models.csv (vendor datasheets, Hugging Face config.json). Hard-coded so tests stay offline and do
not depend on the catalog, which is built concurrently."""

from __future__ import annotations

from catalog.records import GpuRecord, ModelRecord

_SRC = {"source": "vendor datasheets (see catalog/data/gpus.csv)", "observed_on": "2025-01-01"}
_MSRC = {"source": "huggingface.co config.json files (see catalog/data/models.csv)", "observed_on": "2025-01-01"}


def _gpu(id_, name, arch, mem, mtype, bw, bf16, fp8, fp32, tdp, link, link_bw, pcie, cc, form, tier, year, price=None) -> GpuRecord:
    return GpuRecord(id=id_, name=name, vendor="NVIDIA", architecture=arch, memory_gb=mem, memory_type=mtype,
                     memory_bandwidth_tb_s=bw, bf16_dense_tflops=bf16, fp16_dense_tflops=bf16, fp8_dense_tflops=fp8,
                     int8_dense_tops=None, fp32_tflops=fp32, tdp_w=tdp, scaleup_link=link, scaleup_bandwidth_gb_s=link_bw,
                     pcie_gen=pcie, compute_capability=cc, form_factor=form, tier=tier, release_year=year,
                     purchase_price_usd=price, **_SRC)


H100_SXM = _gpu("h100-sxm", "H100 SXM5 80GB", "Hopper", 80, "HBM3", 3.35, 989.4, 1978.9, 66.9, 700, "NVLink 4", 900, 5, "9.0", "SXM5", "datacenter", 2022, 30000)
A100_80 = _gpu("a100-sxm-80gb", "A100 SXM 80GB", "Ampere", 80, "HBM2e", 2.039, 312, None, 19.5, 400, "NVLink 3", 600, 4, "8.0", "SXM4", "datacenter", 2020, 12000)
A100_40 = _gpu("a100-sxm-40gb", "A100 SXM 40GB", "Ampere", 40, "HBM2", 1.555, 312, None, 19.5, 400, "NVLink 3", 600, 4, "8.0", "SXM4", "datacenter", 2020, 8000)
RTX_4090 = _gpu("rtx-4090", "RTX 4090", "Ada Lovelace", 24, "GDDR6X", 1.008, 165.2, 330.3, 82.6, 450, "PCIe only", None, 4, "8.9", "PCIe consumer", "consumer", 2022, 1600)
RTX_3090 = _gpu("rtx-3090", "RTX 3090", "Ampere", 24, "GDDR6X", 0.936, 71, None, 35.6, 350, "NVLink bridge (2-way)", 112.5, 4, "8.6", "PCIe consumer", "consumer", 2020, 700)
L40S = _gpu("l40s", "L40S", "Ada Lovelace", 48, "GDDR6 ECC", 0.864, 362.05, 733, 91.6, 350, "none", None, 4, "8.9", "PCIe dual-slot", "datacenter", 2023, 9000)
T4 = _gpu("t4", "T4", "Turing", 16, "GDDR6", 0.32, None, None, 8.1, 70, "none", None, 3, "7.5", "PCIe low-profile", "datacenter", 2018)
GPUS = (H100_SXM, A100_80, A100_40, RTX_4090, RTX_3090, L40S, T4)


def _model(id_, name, family, layers, hidden, heads, kv, hd, ffn, vocab, ctx, total, active, **kw) -> ModelRecord:
    return ModelRecord(id=id_, name=name, family=family, hf_repo=None, num_layers=layers, hidden_size=hidden,
                       num_attention_heads=heads, num_kv_heads=kv, head_dim=hd, intermediate_size=ffn, vocab_size=vocab,
                       max_context=ctx, total_params_b=total, active_params_b=active, **_MSRC, **kw)


LLAMA2_7B = _model("llama-2-7b", "Llama 2 7B", "llama", 32, 4096, 32, 32, 128, 11008, 32000, 4096, 6.74, 6.74)
LLAMA2_13B = _model("llama-2-13b", "Llama 2 13B", "llama", 40, 5120, 40, 40, 128, 13824, 32000, 4096, 13.02, 13.02)
LLAMA2_70B = _model("llama-2-70b", "Llama 2 70B", "llama", 80, 8192, 64, 8, 128, 28672, 32000, 4096, 68.98, 68.98)
LLAMA3_8B = _model("llama-3-8b", "Llama 3 8B", "llama", 32, 4096, 32, 8, 128, 14336, 128256, 8192, 8.03, 8.03)
LLAMA3_70B = _model("llama-3-70b", "Llama 3 70B", "llama", 80, 8192, 64, 8, 128, 28672, 128256, 8192, 70.55, 70.55)
MIXTRAL_8X7B = _model("mixtral-8x7b", "Mixtral 8x7B", "mixtral", 32, 4096, 32, 8, 128, 14336, 32000, 32768, 46.7, 12.88,
                      num_experts=8, experts_per_token=2)
DEEPSEEK_V3 = _model("deepseek-v3", "DeepSeek-V3", "deepseek_v3", 61, 7168, 128, 128, 128, 18432, 129280, 163840, 671.03, 37.55,
                     moe_intermediate_size=2048, num_experts=256, experts_per_token=8, shared_experts=1, first_dense_layers=3,
                     kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64)
MODELS = (LLAMA2_7B, LLAMA2_13B, LLAMA2_70B, LLAMA3_8B, LLAMA3_70B, MIXTRAL_8X7B, DEEPSEEK_V3)


def workload(**kw):
    """An effective workload (defaults already applied, as engine.defaults would)."""
    from engine.models import Workload

    base = dict(mode="full", precision="bf16", seq_len=2048, batch_size=1, concurrency=1, optimizer="adamw",
                gradient_checkpointing=False, lora_rank=8, lora_targets=("q_proj", "v_proj"), zero_stage=0,
                flash_attention=True, headroom=0.10)
    base.update(kw)
    return Workload(**base)
