"""The cluster search sizes layouts with plain arithmetic (`per_gpu_bytes`) and states the chosen one
with Figures (`estimate_memory`). If the two ever drifted apart, the search would pick a layout by one
number and show another: these properties hold them exactly equal (same float, not approximately)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.architecture import architecture_for
from engine.memory import MemoryOptions, _components, per_gpu_bytes, resolve_layout
from tests.engine.fixtures_physics import MODELS, workload

TRAINING = st.fixed_dictionaries({
    "mode": st.sampled_from(["full", "pretrain", "lora", "qlora"]),
    "precision": st.sampled_from(["bf16", "fp32", "fp8", "int8", "nf4", None]),
    "optimizer": st.sampled_from(["adamw", "adamw_8bit", "sgd", None]),
    "seq_len": st.sampled_from([512, 2048, 8192, 32768]),
    "batch_size": st.integers(1, 16),
    "gradient_checkpointing": st.booleans(),
    "flash_attention": st.sampled_from([True, False, None]),
    "lora_rank": st.sampled_from([8, 64]),
    "adapter_overhead_gb": st.sampled_from([None, None, None, 3.5]),
    "objective": st.sampled_from([None, "sft", "dpo", "dpo", "orpo"]),
})
OPTIONS = st.builds(
    MemoryOptions,
    recipe=st.sampled_from(["amp_fp32_grads", "amp_bf16_grads", "pure_bf16"]),
    include_activations=st.booleans(), include_buffers=st.booleans(), optimizer_in_backward=st.booleans(),
    activation_offload=st.booleans(), state_offload=st.booleans(), overhead_gb=st.sampled_from([None, 0.0, 2.5]), double_quant=st.booleans(),
    loss_chunks=st.sampled_from([1, 8]),
)


@settings(max_examples=300, deadline=None)
@given(kw=TRAINING, model=st.sampled_from(MODELS), gpus=st.sampled_from([1, 2, 8, 16, 24, 64, 512]),
       tp=st.sampled_from([1, 2, 4, 8]), pp=st.sampled_from([1, 2, 4, 16]), zero=st.integers(0, 3), opts=OPTIONS)
def test_training_fast_path_equals_the_stated_parts(kw, model, gpus, tp, pp, zero, opts) -> None:
    w = workload(**kw)
    arch = architecture_for(model, None)
    lay = resolve_layout(w, gpus, tp, pp, zero)
    stated = sum(c[0] for c in _components(w, arch, lay, opts).values())
    assert per_gpu_bytes(w, arch, lay, opts) == stated
