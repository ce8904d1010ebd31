"""The GPU-hours a model's makers published for its pre-training, beside the engine's estimate for the same run.

Why: "pretrain Llama 3 8B on 15T tokens on 512 H100" is answered with 621.5k GPU-hours, and the reader checks that
against Meta's model card, which says 1.3M. Both are right about different things: the card counts the whole run
(restarts and failures across thousands of GPUs, evaluation, for Llama 3.1 a long-context stage), where the engine
prices a well-tuned run's steady state at the MFU it states. An answer that shows only its own figure reads as off by
2x to anyone who knows the card; one that shows both, and says why they differ, can be signed.

The runs (every figure from its maker's card or report, cited per row):
- Llama 3 8B 1.3M and 70B 6.4M H100-80GB hours, "over 15 trillion tokens" at 8k context (github.com/meta-llama/llama3
  MODEL_CARD.md, "Carbon Footprint"; huggingface.co/meta-llama/Meta-Llama-3-8B): pre-training only, no long-context
  stage (the models are 8k).
- Llama 3.1 8B 1.46M, 70B 7.0M, 405B 30.84M H100-80GB hours, 39.3M in all, "~15 trillion tokens"
  (github.com/meta-llama/llama-models models/llama3_1/MODEL_CARD.md, "Training Energy Use";
  huggingface.co/meta-llama/Llama-3.1-8B); the 405B's 15.6T tokens on up to 16,384 H100s is The Llama 3 Herd of Models
  (arXiv 2407.21783). The card counts "the total GPU time required for training each model", the 128k-context stage
  included.
- DeepSeek-V3: 2.664M H800 hours to pre-train on 14.8T tokens, then 119K for context extension and 5K for
  post-training, 2.788M in all (github.com/deepseek-ai/DeepSeek-V3 README.md; arXiv 2412.19437, Table 1), with FP8
  matmuls at 4k sequences on 2,048 H800s (the H100's compute, its NVLink cut to 400 GB/s).
- Qwen2.5 (18T tokens, arXiv 2412.15115) publishes no GPU-hours: nothing is shown for it beyond its size class.

Is the engine's 41% MFU for an 8B at 512 H100s too high, given that Meta's 8B card implies about 18-20% of peak? The
measured steady state says no: torchtitan's Llama 3.1 8B runs (FSDP, BF16, torch.compile, 8k sequences) keep 6,667
tokens/s per H100 on 8 GPUs and 6,514 on 128 (2% lost to 16x the GPUs), on 500 W HBM2e H100s slower than an SXM5 at
700 W (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md); the engine gives 6.6k at 512. MosaicML's
MPT-7B reached 46% MFU on 8 H100s (calibration d10). The gap to Meta's figure is the whole run, not the step, and the
spread stated with a pre-training budget (engine.throughput.whole_run_range) already reaches it from 1,024 GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import GpuRecord
from engine.architecture import Architecture
from engine.models import ClusterPlan, ThroughputEstimate, Workload

PUBLISHED_RUN_NOTE = "published: "  # the note's prefix: bot.summary shows it on its own line, under the speed
SAME_CLASS = 0.10  # a dense model within 10% of a published run's size is in its size class ("a 70B model")
SAME_PEAK = 0.05  # GPU-hours compare hour for hour on GPUs whose dense BF16 peak is within 5% (H100 SXM5, H800, H200)
# a run of under 1T tokens (continued pre-training, a small model's run) is not set beside a 15T whole run scaled down
# hundreds of times: the card's losses across thousands of GPUs are not that run's, and its budget is not checked
# against a from-scratch card
FROM_TOKENS = 1e12
SAID_BELOW = 0.05  # "about 20% of peak over the whole run" is said when it is this far under the MFU the answer assumes


@dataclass(frozen=True)
class PublishedRun:
    """One pre-training run as its maker published it. `flops_per_token` is counted as the engine counts it (6N plus
    attention at the run's sequence length, PaLM convention), so `implied_mfu` compares with the MFU an answer states."""

    name: str  # "Llama 3 8B"
    models: tuple[str, ...]  # catalog ids this run is the pre-training of
    params_b: float  # total parameters
    active_b: float  # per token (a mixture of experts' active share)
    layers: int
    attention_width: int  # heads x head_dim
    seq_len: int  # the run's main pre-training sequence length
    gpu_hours: float
    hours_said: str  # as the source says it: "7.0M", "30.84M"
    gpu: str  # "H100", "H800"
    peak_tflops: float  # that GPU's dense BF16 peak
    tokens: float
    tokens_said: str  # as the source says it: "15T+", "~15T"
    covers: str  # what the hours hold beyond a steady-state run, in plain words
    source: str
    moe: bool = False
    setup: str = ""  # how the run itself differed from a plain BF16 one ("FP8 matmuls, 4k sequences")
    steady_state: str = ""  # a measured steady-state throughput for this size, where one is published
    steady_tokens_per_s_per_gpu: float = 0.0

    @property
    def flops_per_token(self) -> float:
        return 6 * self.active_b * 1e9 + 12 * self.layers * self.attention_width * self.seq_len

    @property
    def implied_mfu(self) -> float:
        """Model FLOPs over the run's whole GPU time at the GPU's dense BF16 peak."""
        return self.flops_per_token * self.tokens / (self.gpu_hours * 3600 * self.peak_tflops * 1e12)


_META_WHOLE_RUN = "restarts and failures across thousands of GPUs, evaluation"
_TORCHTITAN_8B = "torchtitan measures 6.5k per H100 for Llama 3.1 8B on 128 GPUs (FSDP, BF16, compiled; 6.7k on 8)"
_LLAMA3 = "Meta's model card, github.com/meta-llama/llama3 MODEL_CARD.md"
_LLAMA31 = "Meta's model card, github.com/meta-llama/llama-models models/llama3_1/MODEL_CARD.md"

RUNS: tuple[PublishedRun, ...] = (
    PublishedRun("Llama 3 8B", ("llama-3-8b",), 8.03, 8.03, 32, 4096, 8192, 1.3e6, "1.3M", "H100", 989.0, 15e12, "15T+",
                 f"the whole run ({_META_WHOLE_RUN})", _LLAMA3,
                 steady_state=_TORCHTITAN_8B, steady_tokens_per_s_per_gpu=6514.0),
    PublishedRun("Llama 3.1 8B", ("llama-3.1-8b",), 8.03, 8.03, 32, 4096, 8192, 1.46e6, "1.46M", "H100", 989.0, 15e12, "~15T",
                 f"the whole run ({_META_WHOLE_RUN}) and its 128k-context stage", _LLAMA31,
                 steady_state=_TORCHTITAN_8B, steady_tokens_per_s_per_gpu=6514.0),
    PublishedRun("Llama 3 70B", ("llama-3-70b",), 70.55, 70.55, 80, 8192, 8192, 6.4e6, "6.4M", "H100", 989.0, 15e12, "15T+",
                 f"the whole run ({_META_WHOLE_RUN})", _LLAMA3),
    PublishedRun("Llama 3.1 70B", ("llama-3.1-70b",), 70.55, 70.55, 80, 8192, 8192, 7.0e6, "7.0M", "H100", 989.0, 15e12, "~15T",
                 f"the whole run ({_META_WHOLE_RUN}) and its 128k-context stage", _LLAMA31),
    PublishedRun("Llama 3.1 405B", ("llama-3.1-405b",), 405.85, 405.85, 126, 16384, 8192, 30.84e6, "30.84M", "H100", 989.0,
                 15.6e12, "15.6T", f"the whole run on up to 16,384 GPUs ({_META_WHOLE_RUN}: 466 interruptions in 54 "
                 "days) and its 128k-context stage", f"{_LLAMA31}; arXiv 2407.21783"),
    PublishedRun("DeepSeek-V3", ("deepseek-v3",), 671.0, 37.0, 61, 16384, 4096, 2.664e6, "2.664M", "H800", 989.0, 14.8e12,
                 "14.8T", "pre-training only (context extension took 119K more, post-training 5K: 2.788M in all)",
                 "github.com/deepseek-ai/DeepSeek-V3 README.md; arXiv 2412.19437", moe=True,
                 setup="FP8 matmuls, 4k sequences, 2,048 GPUs"),
)


def _same_class(run: PublishedRun, params_b: float, active_b: float, moe: bool) -> bool:
    """A dense model within SAME_CLASS of a dense run's size; a mixture of experts only by name (two MoEs of one total
    size can differ several-fold in active parameters)."""
    return not moe and not run.moe and params_b > 0 and abs(params_b / run.params_b - 1) <= SAME_CLASS


def published_runs(model: str | None, params_b: float, active_b: float, moe: bool) -> list[PublishedRun]:
    """The model's own published run first, then the other published runs of its size class (Llama 3 8B beside
    Llama 3.1 8B), at most two; an unnamed or unpublished model gets its size class's ("a 70B model": Meta's 70Bs)."""
    own = [r for r in RUNS if model and model in r.models]
    anchor = own[0] if own else None
    size, active = (anchor.params_b, anchor.active_b) if anchor else (params_b, active_b)
    kin = [r for r in RUNS if r not in own and _same_class(r, size, active, anchor.moe if anchor else moe)]
    # newest first in a size class: Llama 3.1's card is the one people quote
    return (own + sorted(kin, key=lambda r: ("3.1" not in r.name, r.name)))[:2]


def _hours(value: float) -> str:
    return f"{value / 1e6:.3g}M" if value >= 1e6 else f"{value / 1e3:.3g}k"


def _tokens(value: float) -> str:
    return f"{value / 1e12:.3g}T" if value >= 1e12 else f"{value / 1e9:.3g}B"


def published_run_note(w: Workload, arch: Architecture, gpu: GpuRecord | None, cluster: ClusterPlan | None,
                       throughput: ThroughputEstimate | None) -> list[str]:
    """A pre-training answer for a model (or size class) with published GPU-hours: theirs beside ours, scaled to the
    tokens asked, and why they differ, in one note (PUBLISHED_RUN_NOTE). Empty for other modes, for a run with no
    GPU-hours, and for a model of no published size."""
    if w.mode != "pretrain" or throughput is None or throughput.gpu_hours is None or cluster is None:
        return []
    runs = published_runs(w.model, arch.total_params / 1e9, arch.active_params / 1e9, arch.is_moe)
    said_tokens = throughput.gpu_hours.inputs.get("tokens") or w.dataset_tokens or 0
    tokens = float(said_tokens) * float(throughput.gpu_hours.inputs.get("epochs") or 1.0)
    ours = throughput.gpu_hours.value
    if not runs or ours <= 0 or tokens < FROM_TOKENS:
        return []
    comparable = gpu is not None and abs((gpu.bf16_dense_tflops or 0.0) / runs[0].peak_tflops - 1) <= SAME_PEAK
    said = []
    for i, run in enumerate(runs):
        at_ours = run.gpu_hours * tokens / run.tokens
        scaled = f", {_hours(at_ours)} at your {_tokens(tokens)}" if abs(tokens / run.tokens - 1) > 0.05 else ""
        ratio = f", {at_ours / ours:.1f}x ours" if comparable else ""
        if i == 0:
            said.append(f"{run.name} took {run.hours_said} {run.gpu}-hours for {run.tokens_said} tokens"
                        f"{scaled}{ratio} ({run.source})")
        else:
            said.append(f"{run.name} {run.hours_said} for {run.tokens_said}{scaled}{ratio}")
    first = runs[0]
    inputs = throughput.training_tokens_per_s.inputs if throughput.training_tokens_per_s is not None else {}
    mfu = inputs.get("mfu")
    theirs = f"theirs counts {first.covers}"
    if isinstance(mfu, int | float) and not first.moe and first.implied_mfu < float(mfu) - SAID_BELOW:
        small = " (a small model's per-GPU steps are small across thousands of GPUs)" if first.params_b < 30 else ""
        theirs += (f", at about {first.implied_mfu:.0%} of peak over it{small}; Meta's 405B reached "
                   f"{RUNS[4].implied_mfu:.0%}")
    why = [theirs] + ([f"their run used {first.setup}"] if first.setup else [])
    ours_said = f"ours is a well-tuned run's steady state at {float(mfu):.0%} MFU" if isinstance(mfu, int | float) \
        else "ours is a well-tuned run's steady state"
    per_gpu = throughput.training_tokens_per_s.value / max(cluster.gpus, 1) \
        if throughput.training_tokens_per_s is not None else 0.0
    if first.steady_state and comparable and w.precision in (None, "bf16"):
        ours_said += f": {per_gpu / 1e3:.1f}k tokens/s per GPU, where {first.steady_state}"
    return [f"{PUBLISHED_RUN_NOTE}{'; '.join(said)}. Why they differ: {'; '.join(why)}; {ours_said}"]


__all__ = ["PUBLISHED_RUN_NOTE", "RUNS", "PublishedRun", "published_run_note", "published_runs"]
