"""Online RL said in steps, and PPO's critic (engine.rl, engine.models.steps_tokens, engine.memory, engine.throughput).

"GRPO Qwen2.5 72B, group size 16, 1000 steps, 512 prompts per step, 2k-token completions" was sized as 512 prompts in
all (18.5M tokens, $42): the step count was parsed and dropped. Steps x prompts per step x G x (prompt + completion)
is the run, 18.5B tokens, as verl's total_training_steps x data.train_batch_size samples it. PPO was "sized
critic-free" with a note; its value model (a policy-sized network with its own gradients and Adam state) and a stated
reward model are now in the memory and the FLOPs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.architecture import architecture_for
from engine.defaults import apply_defaults
from engine.memory import CRITIC_MEMORY_NOTE, _components, estimate_memory, per_gpu_bytes, resolve_layout
from engine.models import Workload, steps_tokens
from engine.rl import completions, critic_params_b, rl_note
from engine.throughput import flops_per_token
from tests.engine.fixtures_catalog import catalog_data
from tests.engine.fixtures_physics import H100_SXM, LLAMA3_8B, MODELS, workload

DATA = catalog_data()
ARCH = architecture_for(LLAMA3_8B, None)


def test_steps_times_prompts_per_step_is_the_run() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", objective="grpo", train_steps=1000, global_batch=512,
                 rl_generations=16, rl_completion_tokens=2000)
    effective, assumptions, _p = apply_defaults(w, DATA)
    assert effective.dataset_tokens == 1000 * 512 * 16 * (256 + 2000) == 18_481_152_000
    assert effective.epochs == 1
    assert completions(effective) == 1000 * 512 * 16
    [steps] = [a for a in assumptions if a.field == "train_steps"]
    assert steps.why.startswith("1,000 steps × 512 prompts × 16 completions × (256 + 2,000) tokens = 18.5B tokens")


def test_trl_wording_counts_completions_and_g_divides_them() -> None:
    """TRL: per_device_train_batch_size x gradient_accumulation x GPUs counts completions (num_generations divides it)."""
    w = Workload(mode="full", model="llama-3.1-8b", objective="grpo", train_steps=500, batch_size=8,
                 gradient_accumulation=4, gpu_count=8, rl_generations=16, rl_completion_tokens=1000)
    effective, assumptions, _p = apply_defaults(w, DATA)
    assert effective.dataset_tokens == 500 * (8 * 4 * 8) * (256 + 1000)
    [steps] = [a for a in assumptions if a.field == "train_steps"]
    assert "256 completions (8 per GPU × 4 accumulation × 8 GPUs, 16 prompts × 16)" in steps.why


def test_steps_over_a_prompt_set_are_its_passes() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", objective="grpo", dataset_examples=10_000, train_steps=200,
                 global_batch=256, rl_completion_tokens=2000)
    effective, assumptions, _p = apply_defaults(w, DATA)
    assert effective.dataset_tokens == 10_000 * 8 * 2256  # one pass over the prompts
    assert effective.epochs == pytest.approx(200 * 256 / 10_000)  # 5.12 passes
    [steps] = [a for a in assumptions if a.field == "train_steps"]
    assert "5.12 passes over the 10,000 prompts" in steps.why


def test_sft_global_batch_is_sequences_still() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", train_steps=1000, global_batch=256, seq_len=4096)
    assert steps_tokens(w, 4096) == (1000 * 256 * 4096, "1,000 steps × 256 sequences × 4,096 tokens = 1.05B tokens")


def _ppo(**kw) -> Workload:
    base = dict(objective="ppo", params_b=8.03, rl_critic_params_b=8.03, dataset_examples=20_000, rl_generations=8,
                rl_prompt_tokens=256, rl_completion_tokens=1024, rl_kl_beta=0.0, seq_len=1280, headroom=0.4,
                dataset_tokens=20_000 * 8 * 1280)
    base.update(kw)
    return workload(model="llama-3-8b", **base)


def test_ppo_assumes_a_policy_sized_critic() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", objective="ppo", dataset_examples=20_000)
    effective, assumptions, _p = apply_defaults(w, DATA)
    assert effective.rl_critic_params_b == effective.params_b and critic_params_b(effective) > 8
    assert any(a.field == "rl_critic_params_b" for a in assumptions)
    grpo, _a, _p = apply_defaults(w.model_copy(update={"objective": "grpo"}), DATA)
    assert grpo.rl_critic_params_b is None and critic_params_b(grpo) == 0.0


def test_ppo_memory_holds_the_critics_state() -> None:
    grpo = _ppo(objective="grpo", rl_critic_params_b=None)
    ppo = _ppo()
    a = estimate_memory(grpo, ARCH, 8, H100_SXM, zero_stage=1)
    b = estimate_memory(ppo, ARCH, 8, H100_SXM, zero_stage=1)
    state = sum(a.components[n].value for n in ("weights_gb", "gradients_gb", "optimizer_gb"))
    assert "critic_gb" not in a.components
    assert b.components["critic_gb"].value == pytest.approx(state, rel=1e-3)
    assert CRITIC_MEMORY_NOTE in b.components["critic_gb"].notes
    assert b.per_gpu_gb == pytest.approx(a.per_gpu_gb + state, abs=0.01)
    half = estimate_memory(_ppo(rl_critic_params_b=8.03 / 2), ARCH, 8, H100_SXM, zero_stage=1)
    assert half.components["critic_gb"].value == pytest.approx(state / 2, rel=1e-3)


def test_reward_model_weights_are_held() -> None:
    with_rm = estimate_memory(_ppo(rl_reward_params_b=8.03), ARCH, 8, H100_SXM, zero_stage=1)
    assert with_rm.components["reward_model_gb"].value == pytest.approx(8.03e9 * 2 / 1e9, rel=0.02)


def test_ppo_flops_add_the_critic_and_the_reward_forward() -> None:
    """Full PPO: the policy 6N, its forward for the old log-probs 2N, the critic's value forward 2N and training 6N; a
    reward model the policy's size 2N. The forwards made once per rollout batch (old log-probs, values, reward,
    reference) are spread over the PPO epochs trained on it (num_ppo_epochs)."""
    base = flops_per_token(_ppo(objective="grpo", rl_critic_params_b=None), ARCH)
    ppo = flops_per_token(_ppo(), ARCH)
    both = flops_per_token(_ppo(rl_reward_params_b=8.03), ARCH)
    assert base.inputs["factor"] == 6 and ppo.inputs["factor"] == pytest.approx(6 + 2 + 8)
    assert both.inputs["factor"] == pytest.approx(18)
    lora = flops_per_token(_ppo(mode="lora"), ARCH)
    assert lora.inputs["factor"] == pytest.approx(4 + 2 + 6)  # (Q)LoRA: 4N policy, 2N old log-probs, 2N + 4N critic
    assert any("PPO's value model" in n for n in ppo.notes)
    # 4 PPO epochs, KL 0.05: per pass 6N + 6N trained, once per batch (2N old log-probs + 2N values + 2N reference) / 4
    four = flops_per_token(_ppo(epochs=4, rl_kl_beta=0.05), ARCH)
    assert four.inputs["factor"] == pytest.approx(6 + 6 + (2 + 2 + 2) / 4)


def test_the_note_sizes_the_critic_instead_of_leaving_it_out() -> None:
    note = rl_note(_ppo(rl_reward_params_b=8.0), ARCH, None, 8, None)[0]
    assert "critic-free" not in note and "not counted" not in note
    assert "PPO's value model (8.03B, the policy's size) is sized beside the policy" in note
    assert "8B reward model is held frozen" in note


@settings(max_examples=150, deadline=None)
@given(mode=st.sampled_from(["full", "lora", "qlora"]), model=st.sampled_from(MODELS),
       gpus=st.sampled_from([1, 8, 16, 64]), tp=st.sampled_from([1, 2, 8]), zero=st.integers(0, 3),
       critic=st.sampled_from([None, 0.5, 8.0, 70.0]), reward=st.sampled_from([None, 1.0, 8.0]),
       objective=st.sampled_from(["ppo", "grpo"]))
def test_fast_path_equals_the_stated_parts_with_critic_and_reward(mode, model, gpus, tp, zero, critic, reward,
                                                                  objective) -> None:
    w = workload(mode=mode, precision="nf4" if mode == "qlora" else "bf16", objective=objective,
                 params_b=model.total_params_b, rl_critic_params_b=critic, rl_reward_params_b=reward)
    arch = architecture_for(model, None)
    lay = resolve_layout(w, gpus, tp, 1, zero)
    assert per_gpu_bytes(w, arch, lay) == sum(c[0] for c in _components(w, arch, lay, _opts()).values())


def _opts():
    from engine.memory import DEFAULT_OPTIONS

    return DEFAULT_OPTIONS
