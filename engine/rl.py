"""Online RL fine-tuning (GRPO, RLOO, DAPO, PPO): the rollouts sized beside the policy's training.

Why its own module: "GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts" planned as a plain fine-tune on
10M tokens leaves out what dominates the run. Each GRPO step (DeepSeekMath, Shao et al. 2024; TRL's GRPOTrainer;
verl; OpenRLHF) samples G completions per prompt with vLLM, scores them with a reward function or model, then trains
the policy on the prompts x G sequences. So a run is two phases, one after the other when vLLM shares the training
GPUs (TRL's `vllm_mode="colocate"`):
- generation: prompts x G completions at the GPUs' batched decode throughput: the engine's offline job
  (`engine.serving.choose`, as for "run 10M prompts") on the same GPUs, in the memory share vLLM is given;
- training: prompts x G x (prompt + completion) tokens at the engine's training throughput, plus the frozen
  reference model's forward when the KL coefficient beta > 0 (engine.throughput, engine.memory as for DPO).

Memory, colocated: TRL's vLLM takes `vllm_gpu_memory_utilization` of each GPU (0.3 by default) for its weights and
KV cache, so the training state must fit in the rest: sized as that much more headroom. Server mode (`trl vllm-serve`
on separate GPUs) leaves the training GPUs whole; it is said as the alternative.

Defaults follow TRL's GRPOConfig where a default fits a real run: num_generations 8; beta 0.0 (TRL's default since
v0.16: the reference is not loaded; DeepSeekMath used 0.04); max_completion_length is 256 in TRL but reasoning RL
runs 1-4k: 1,024 is assumed (DeepSeekMath's GRPO setting) and said, with the prompt at 256 tokens.

A run said in steps ("1000 steps, 512 prompts per step": verl's trainer.total_training_steps x data.train_batch_size,
OpenRLHF's rollout_batch_size) samples steps x prompts per step prompts, each G completions: 1,000 x 512 x 16
completions of 2,256 tokens is 18.5B tokens trained, not the 18.5M of one step (engine.models.steps_tokens, the same
arithmetic as SFT's steps x global batch x sequence length).

PPO (OpenRLHF, verl, TRL's PPOTrainer) trains a value model beside the policy: a second network, the policy's size
unless said, with its own gradients and optimizer state (engine.memory), run forward over every sequence for its
value estimates and trained forward and backward (engine.throughput). A reward model said ("an 8B reward model") is
held frozen and scores every completion: one forward over its prompt and completion. GRPO, RLOO and DAPO have no
critic, and a reward function (a verifier, unit tests) costs no GPU time.

PPO is sized as PPO, not as GRPO with a critic (TRL's PPOConfig, OpenRLHF's PPO defaults): one completion per prompt
(the value model is the baseline; G completions are GRPO's), a KL penalty of 0.05 against a frozen reference policy
(held and run forward), and "4 epochs" read as num_ppo_epochs: each rollout batch, generated once, is trained on 4
times (TRL's default). So the rollouts run once per prompt, the policy and value model train E passes over them, and
the forwards made once per rollout batch (the reference's and reward model's, the value model's values, the policy's
old log-probs) are spread over those E passes. The 50k-prompt PPO run sized with GRPO's 8 completions and beta 0 was
2.05B tokens and 25.6 h where the run is ~256M tokens.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from catalog.records import GpuRecord
from engine.architecture import Architecture
from engine.models import (
    DEFAULT_RL_COMPLETION_TOKENS,
    DEFAULT_RL_GENERATIONS,
    PPO_EPOCHS,
    PPO_GENERATIONS,
    PPO_KL_COEF,
    RL_OBJECTIVES,
    TRL_COMPLETION_TOKENS,
    Workload,
)

DEFAULT_GENERATIONS = DEFAULT_RL_GENERATIONS  # TRL GRPOConfig.num_generations
DEFAULT_COMPLETION_TOKENS = DEFAULT_RL_COMPLETION_TOKENS  # DeepSeekMath's GRPO max length; reasoning RL runs 1-4k
DEFAULT_RL_PROMPT_TOKENS = 256  # a task or math prompt with its template (TRL caps prompts at max_prompt_length 512)
DEFAULT_KL_BETA = 0.0  # TRL GRPOConfig.beta: 0.0, no reference model loaded
VLLM_COLOCATE_SHARE = 0.3  # TRL GRPOConfig.vllm_gpu_memory_utilization (colocate mode)
# vLLM's offline rate is sized on a nominal rate this small: the job is timed at the fleet's capacity, not at a deadline
_NOMINAL_RATE = 1e-6

NO_ROOM_GPU_HOURS = 1e6  # a plan whose vLLM share cannot hold the model: ranked after every plan that can generate
RL_NOTE = "online RL: "  # the engine note the first message reads (bot/caveats.py)
RL_SPLIT = "rollouts "  # "rollouts 2.1 h (78%) + training 0.6 h": the split, read by the first message


def is_rl(w: Workload) -> bool:
    """An online RL fine-tune (GRPO-style or PPO) on a training mode."""
    return w.objective in RL_OBJECTIVES and w.mode in ("full", "lora", "qlora", "pretrain")


def default_generations(w: Workload) -> int:
    """G when not said: PPO samples one completion per prompt, GRPO-style RL a group (TRL's num_generations)."""
    return PPO_GENERATIONS if w.objective == "ppo" else DEFAULT_GENERATIONS


def default_beta(w: Workload) -> float:
    """The KL coefficient when not said: PPO's penalty against its reference (TRL PPOConfig.kl_coef), GRPO's 0."""
    return PPO_KL_COEF if w.objective == "ppo" else DEFAULT_KL_BETA


def rl_shape(w: Workload) -> tuple[int, int, int, float]:
    """(G, prompt tokens, completion tokens, beta) as said, else the defaults."""
    return (int(w.rl_generations or default_generations(w)), int(w.rl_prompt_tokens or DEFAULT_RL_PROMPT_TOKENS),
            int(w.rl_completion_tokens or DEFAULT_COMPLETION_TOKENS),
            float(default_beta(w) if w.rl_kl_beta is None else w.rl_kl_beta))


def ppo_passes(w: Workload) -> bool:
    """PPO over a prompt set (not said in steps): its epochs are num_ppo_epochs, passes over each rollout batch, so
    the rollouts are generated once and the policy and value model train that many times on them."""
    return is_rl(w) and w.objective == "ppo" and not w.train_steps


def rollout_passes(w: Workload) -> float:
    """How many times the prompts are rolled out over a run: once for PPO (its epochs train on the same rollouts),
    the epochs for GRPO-style RL (each epoch samples afresh)."""
    return 1.0 if ppo_passes(w) else float(w.epochs or 1)


def per_rollout_share(w: Workload) -> float:
    """The share of a trained token's FLOPs taken by a forward made once per rollout batch (the reference's, the
    reward model's, the value model's values, PPO's old log-probs): 1 / num_ppo_epochs for PPO, which trains E passes
    over each batch; 1 otherwise (GRPO trains each rollout once)."""
    return 1.0 / max(1.0, float(w.epochs or 1)) if ppo_passes(w) else 1.0


def runs_reference(w: Workload) -> bool:
    """beta > 0: the KL term needs the frozen reference model's log-probs (a forward over every sequence)."""
    return is_rl(w) and rl_shape(w)[3] > 0


def critic_params_b(w: Workload) -> float:
    """PPO's value model in billions of parameters: as said, else the policy's size (OpenRLHF and verl initialise the
    critic from the reward model or the policy, usually the policy's size); 0 for critic-free RL."""
    if not is_rl(w) or w.objective != "ppo":
        return 0.0
    return float(w.rl_critic_params_b or w.params_b or 0.0)


def critic_ratio(w: Workload) -> float:
    """The value model's size over the policy's: what PPO adds to the policy's training state and FLOPs."""
    policy = float(w.params_b or 0.0)
    return critic_params_b(w) / policy if policy > 0 else 0.0


def reward_ratio(w: Workload) -> float:
    """A reward model said, over the policy's size: its forward per completion and its frozen weights."""
    policy = float(w.params_b or 0.0)
    return float(w.rl_reward_params_b or 0.0) / policy if is_rl(w) and policy > 0 else 0.0


def completions(w: Workload) -> int:
    """Completions generated per epoch: prompts x G, or the tokens said over one sequence's length."""
    g, prompt, completion, _beta = rl_shape(w)
    if w.dataset_examples:
        return int(w.dataset_examples) * g
    if w.dataset_tokens:
        return max(1, round(int(w.dataset_tokens) / (prompt + completion)))
    return 0


def _count(n: float) -> str:
    return f"{n / 1e9:,.3g}B" if n >= 1e9 else f"{n / 1e6:,.3g}M" if n >= 1e6 else f"{n:,.0f}"


def rl_defaults(w: Workload, mode: str | None, assume: Callable[[str, Any, str], None],
                params_b: float | None = None) -> Workload:
    """The RL knobs not said, assumed and stated (G, lengths, beta, PPO's critic), the training sequence as prompt +
    completion, the tokens trained as prompts x G x that, and the colocated vLLM's memory share as headroom. `w`
    unchanged for anything else. `mode`: the training mode planned (said or assumed); `params_b`: the policy's size
    (said or the catalog's), which PPO's critic copies unless said."""
    if w.objective not in RL_OBJECTIVES or mode not in ("full", "lora", "qlora", "pretrain"):
        return w
    policy_b = params_b or w.params_b
    ppo = w.objective == "ppo"
    if w.rl_generations is None and ppo:
        assume("rl_generations", PPO_GENERATIONS,
               "1 completion sampled per prompt (PPO: the value model is the baseline; a group of completions per "
               "prompt is GRPO's)")
    elif w.rl_generations is None:
        assume("rl_generations", DEFAULT_GENERATIONS,
               f"{DEFAULT_GENERATIONS} completions sampled per prompt (TRL's num_generations default; DeepSeekMath used "
               "64): say e.g. “16 generations per prompt”")
    if ppo and w.epochs is None and not w.train_steps:
        assume("epochs", PPO_EPOCHS,
               f"{PPO_EPOCHS} PPO epochs (TRL's num_ppo_epochs default): {PPO_EPOCHS} passes of the policy and value "
               "model over each rollout batch, which is generated once; say e.g. “2 epochs” to change")
    if w.rl_completion_tokens is None:
        assume("rl_completion_tokens", DEFAULT_COMPLETION_TOKENS,
               f"completions of up to {DEFAULT_COMPLETION_TOKENS:,} tokens (DeepSeekMath's GRPO setting): reasoning RL "
               f"runs 1-4k, TRL's max_completion_length default of {TRL_COMPLETION_TOKENS} cuts reasoning short; "
               "say e.g. “2k-token completions”")
    if w.rl_prompt_tokens is None:
        assume("rl_prompt_tokens", DEFAULT_RL_PROMPT_TOKENS,
               f"prompts of ~{DEFAULT_RL_PROMPT_TOKENS} tokens (a task and its template); say e.g. “1k-token prompts”")
    if w.objective == "ppo" and w.rl_critic_params_b is None and policy_b:
        assume("rl_critic_params_b", float(policy_b),
               f"PPO's value model the policy's size ({float(policy_b):g}B, as OpenRLHF and verl initialise it): its "
               "weights, gradients and Adam state beside the policy's, run forward for the value estimates and "
               "trained forward and backward on every sequence; say e.g. “a 1B critic” to change it")
    if w.rl_reward_params_b:
        assume("rl_reward_params_b", float(w.rl_reward_params_b),
               f"the {float(w.rl_reward_params_b):g}B reward model held frozen in BF16 and run forward once over every "
               "completion (prompt + completion tokens) to score it")
    if w.rl_kl_beta is None and ppo:
        assume("rl_kl_beta", PPO_KL_COEF,
               f"KL penalty {PPO_KL_COEF:g} (TRL's PPOConfig kl_coef default): the frozen reference policy is held and "
               "run forward over every rollout; say “kl coef 0.1” to change")
    elif w.rl_kl_beta is None:
        assume("rl_kl_beta", DEFAULT_KL_BETA,
               "KL coefficient beta 0 (TRL's GRPOConfig default: no reference model loaded or run); say “beta 0.04” "
               "(DeepSeekMath's) to count the frozen reference")
    update = {"rl_generations": w.rl_generations or default_generations(w),
              "rl_completion_tokens": w.rl_completion_tokens or DEFAULT_COMPLETION_TOKENS,
              "rl_prompt_tokens": w.rl_prompt_tokens or DEFAULT_RL_PROMPT_TOKENS,
              "rl_kl_beta": default_beta(w) if w.rl_kl_beta is None else w.rl_kl_beta}
    if ppo and w.epochs is None and not w.train_steps:
        update["epochs"] = float(PPO_EPOCHS)
    if w.objective == "ppo" and w.rl_critic_params_b is None and policy_b:
        update["rl_critic_params_b"] = float(policy_b)
    w = w.model_copy(update=update)
    g, prompt, completion, _beta = rl_shape(w)
    if w.seq_len is None:
        assume("seq_len", prompt + completion,
               f"prompt + completion ({prompt:,} + {completion:,} tokens): the longest sequence the policy trains on")
        update["seq_len"] = prompt + completion
    if w.dataset_tokens is None and w.dataset_examples:
        tokens = int(w.dataset_examples) * g * (prompt + completion)
        per = "per PPO epoch (one pass over the rollouts)" if ppo_passes(w) else "per epoch"
        assume("dataset_tokens", tokens,
               f"{int(w.dataset_examples):,} prompts x {g} completion{'s' if g != 1 else ''} x ({prompt:,} prompt + "
               f"{completion:,} completion tokens) ~ {_count(tokens)} tokens trained {per} (completions at full length: "
               "shorter ones train and generate less)")
        update["dataset_tokens"] = tokens
    if w.headroom is None:
        from engine.memory import DEFAULT_HEADROOM  # engine.memory reads engine.rl: imported when used
        share = DEFAULT_HEADROOM + VLLM_COLOCATE_SHARE
        assume("headroom", share,
               f"{VLLM_COLOCATE_SHARE:.0%} of each GPU held by the colocated vLLM (TRL's vllm_gpu_memory_utilization "
               f"default: its weights and the rollouts' KV cache) + {DEFAULT_HEADROOM:.0%} for allocator fragmentation: "
               "the training state fits in the rest")
        update["headroom"] = share
    return w.model_copy(update=update)


@dataclass(frozen=True)
class Rollouts:
    """Generation on one plan's GPUs: how many completions, how fast, how vLLM is laid out, how long."""

    completions: int  # per epoch
    tokens: int  # generated per epoch
    tokens_per_s: float  # generated tokens/s over all the GPUs
    hours: float  # wall clock of the generation phases over the run (all epochs)
    tp: int  # vLLM tensor parallel per replica
    replicas: int
    batch: int  # sequences one replica decodes at once


def _generation_workload(w: Workload, gpus: int) -> Workload:
    """The rollouts as an offline job: prompts x G requests of (prompt, completion) tokens on the plan's GPUs, in
    vLLM's share of their memory, weights in BF16 (TRL loads the policy, or the merged adapter, into vLLM)."""
    g, prompt, completion, _beta = rl_shape(w)
    return Workload(mode="inference", model=w.model, params_b=w.params_b, precision="bf16", gpu=w.gpu, gpu_count=gpus,
                    batch_items=float(max(1, completions(w))), offline=True, input_tokens=prompt,
                    output_tokens=completion, seq_len=prompt + completion, requests_per_s=_NOMINAL_RATE,
                    headroom=1 - VLLM_COLOCATE_SHARE, flash_attention=True)


@functools.lru_cache(maxsize=1024)
def rollouts(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int) -> Rollouts | None:
    """The generation phase of a run on `gpus` of `gpu`, colocated: the engine's offline job throughput in vLLM's
    memory share. None when not RL, with nothing to generate, or when vLLM's share cannot hold the model."""
    if not is_rl(w) or completions(w) < 1:
        return None
    from engine.serving import choose  # engine.serving -> engine.throughput -> engine.rl: imported when used
    from engine.throughput import link_kind

    gpus = max(1, int(gpus))
    job = _generation_workload(w, gpus)
    per_node = min(gpus, 8)
    kind = link_kind(gpu.scaleup_link)
    choice = choose(job, arch, gpu, per_node, kind, gpus > per_node)
    if choice is None or not choice.capacity_rps or choice.replicas < 1:
        return None
    rate = choice.capacity_rps * choice.replicas  # completions/s
    n = completions(w)
    _g, _prompt, completion, _beta = rl_shape(w)
    hours = n / rate / 3600 * rollout_passes(w)  # PPO's epochs train on the same rollouts
    return Rollouts(completions=n, tokens=n * completion, tokens_per_s=rate * completion, hours=hours, tp=choice.tp * choice.pp,
                    replicas=choice.replicas, batch=choice.batch if choice.batch > 1 else choice.capacity_sequences)


def rollout_gpu_hours(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int) -> float:
    """GPU-hours of the generation phases (every GPU of the plan generates while colocated); 0 when not RL. A plan
    whose vLLM share cannot hold the model cannot generate colocated: NO_ROOM_GPU_HOURS, so the search passes it over
    (a finite figure: the estimate's Figures keep no infinities)."""
    if not is_rl(w) or completions(w) < 1:
        return 0.0
    found = rollouts(w, arch, gpu, max(1, int(gpus)))
    return NO_ROOM_GPU_HOURS if found is None else found.hours * max(1, int(gpus))


def rl_note(w: Workload, arch: Architecture, gpu: GpuRecord | None, gpus: int, train_hours: float | None,
            usd_per_run: float | None = None) -> list[str]:
    """One note for an RL plan: the rollouts sized (count, throughput, time) beside the training, the split, what the
    memory holds (the vLLM share, the reference when beta > 0), PPO's value model, server mode, and what to say to
    change the assumptions. `train_hours`: the plan's wall clock with the rollouts in (engine.throughput)."""
    if not is_rl(w):
        return []
    g, prompt, completion, beta = rl_shape(w)
    name = "PPO" if w.objective == "ppo" else "GRPO"
    found = rollouts(w, arch, gpu, gpus) if gpu is not None else None
    kl = f"KL penalty {beta:g}" if w.objective == "ppo" else f"beta {beta:g}"
    ref = (f"{kl}: the frozen reference model runs forward over every sequence (+2N FLOPs per token"
           + (" once per rollout batch)" if ppo_passes(w) else ")")
           + (" and a copy of its weights is held beside the policy" if w.mode == "full" else
              " (the base with the adapter disabled: no copy)") if beta > 0 else
           f"{kl}{'' if w.objective == 'ppo' else ' (TRL' + chr(39) + 's default)'}: no reference model held or run")
    critic = _critic_words(w) + _reward_words(w)
    steps = int(w.train_steps or 0)
    if steps and w.global_batch and not w.dataset_examples:
        head = (f"{RL_NOTE}{name}: {completions(w):,} completions ({steps:,} steps x {int(w.global_batch):,} prompts x "
                f"{g}) of up to {completion:,} tokens after {prompt:,}-token prompts")
    elif w.dataset_examples and ppo_passes(w):
        passes = float(w.epochs or PPO_EPOCHS)
        head = (f"{RL_NOTE}{name}: {completions(w):,} completions ({int(w.dataset_examples):,} prompts x {g}, generated "
                f"once) of up to {completion:,} tokens after {prompt:,}-token prompts, trained {passes:g} PPO epochs "
                "(num_ppo_epochs: passes over each rollout batch)")
    elif w.dataset_examples:
        head = (f"{RL_NOTE}{name}: {completions(w):,} completions per epoch ({int(w.dataset_examples):,} prompts x {g}) "
                f"of up to {completion:,} tokens after {prompt:,}-token prompts")
    else:
        head = f"{RL_NOTE}{name}: {completions(w):,} completions per epoch ({g} per prompt) of up to {completion:,} tokens"
    if found is None and gpu is not None and train_hours is not None:
        return [f"{head}; vLLM's {VLLM_COLOCATE_SHARE:.0%} share of {gpus} GPUs cannot hold the model and its rollouts' "
                "KV cache: raise vllm_gpu_memory_utilization (less room to train), use more GPUs, or run server mode "
                f"(trl vllm-serve on separate GPUs); {ref}{critic}"]
    if found is None or train_hours is None:
        return [f"{head}; generation is sized at the GPUs' batched decode throughput (vLLM colocated in "
                f"{VLLM_COLOCATE_SHARE:.0%} of each GPU) and added to the training time; {ref}{critic}"]
    gen = found.hours
    total = max(train_hours, gen)  # the plan's compute hours, rollouts in (start-up is billed on top)
    training = max(0.0, total - gen)
    share = gen / total if total > 0 else 0.0
    cost = f", ~${usd_per_run:,.2f} a run" if usd_per_run is not None else ""
    return [f"{head}. {RL_SPLIT}{_hours(gen)} ({share:.0%}) + training {_hours(training)} per run on "
            f"{gpus} GPUs, phases one after the other{cost}: vLLM colocated in {VLLM_COLOCATE_SHARE:.0%} of each GPU "
            f"(TRL's vllm_gpu_memory_utilization; {found.replicas} replica{'s' if found.replicas != 1 else ''} of TP"
            f"{found.tp}, ~{found.batch:,} sequences each) generates {_count(found.tokens)} tokens "
            f"{'per run' if ppo_passes(w) else 'per epoch'} at "
            f"~{found.tokens_per_s:,.0f} tokens/s, vLLM's offline rate at full batch (smaller generation batches per "
            "step and the wait for the longest completion run slower); the policy trains on prompts x G x (prompt + completion) tokens; "
            f"{ref}{critic}. Server mode (trl vllm-serve on separate GPUs) leaves the training GPUs their whole "
            "memory and overlaps nothing by default. Say e.g. "
            + ("“2k-token completions”, “kl coef 0.1”, “2 epochs”" if w.objective == "ppo" else
               "“16 generations”, “2k-token completions”, “beta 0.04”, “2 epochs”") + " to change them"]


def _critic_words(w: Workload) -> str:
    """PPO's value model as sized: its memory and its FLOPs per token (engine.memory, engine.throughput)."""
    size = critic_params_b(w)
    if not size:
        return ""
    trains = "adapter and its Adam state on a frozen copy of its base" if w.mode in ("lora", "qlora") else (
        "weights, gradients and Adam state")
    return (f"; PPO's value model ({size:g}B{', the policy' + chr(39) + 's size' if w.rl_critic_params_b == w.params_b else ''}) "
            f"is sized beside the policy: its {trains} in memory, and a forward for the values plus a forward and "
            "backward per token in the training FLOPs")


def _reward_words(w: Workload) -> str:
    """A reward model said: its frozen weights held and one forward over every completion."""
    if not reward_ratio(w):
        return ""
    return (f"; the {float(w.rl_reward_params_b or 0):g}B reward model is held frozen (BF16) and runs one forward over "
            "every completion to score it (+2 FLOPs per parameter per token)")


def _hours(h: float) -> str:
    return f"{h * 60:,.0f} min" if h < 1 else f"{h:,.1f} h"


__all__ = ["DEFAULT_COMPLETION_TOKENS", "DEFAULT_GENERATIONS", "DEFAULT_KL_BETA", "RL_NOTE", "RL_SPLIT",
           "VLLM_COLOCATE_SHARE", "Rollouts", "completions", "critic_params_b", "critic_ratio", "default_beta",
           "default_generations", "is_rl", "per_rollout_share", "ppo_passes", "reward_ratio", "rl_defaults", "rl_note",
           "rl_shape", "rollout_gpu_hours", "rollout_passes", "rollouts", "runs_reference"]
