"""Transformer shapes: the real layer/head/FFN/expert dimensions behind a parameter count.

Memory and throughput depend on more than "70B": KV cache on kv_heads x head_dim, activations on
hidden and FFN width, LoRA adapters on each projection's in/out widths, MoE decode on how many
experts a token touches. `architecture_for` turns a catalog `ModelRecord` into that shape, or,
when only a size is known, builds a generic Llama-like shape of that size and says so
(`generic=True`) so every figure built on it can carry the caveat.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from catalog.records import UNLISTED_MOE_FAMILY, ModelRecord

LINEAR_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_ALIASES: dict[str, tuple[str, ...]] = {
    "q": ("q_proj",), "k": ("k_proj",), "v": ("v_proj",), "o": ("o_proj",),
    "query": ("q_proj",), "key": ("k_proj",), "value": ("v_proj",), "output_proj": ("o_proj",),
    "gate": ("gate_proj",), "up": ("up_proj",), "down": ("down_proj",),
    "attn": ("q_proj", "k_proj", "v_proj", "o_proj"), "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "mlp": ("gate_proj", "up_proj", "down_proj"), "ffn": ("gate_proj", "up_proj", "down_proj"),
    "all": LINEAR_MODULES, "all-linear": LINEAR_MODULES, "all_linear": LINEAR_MODULES,
}


class Architecture(BaseModel):
    """One transformer's shape. Parameter counts are exact integers computed from the shape."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # dense FFN width (first_dense_layers of an MoE, or every layer of a dense model)
    vocab: int
    gated_mlp: bool = True
    tied_embeddings: bool = False
    experts: int | None = None  # routed experts per MoE layer
    active_experts: int | None = None  # routed experts each token uses
    shared_experts: int = 0
    moe_ffn: int | None = None  # per-expert FFN width
    first_dense_layers: int = 0
    kv_lora_rank: int | None = None  # MLA latent width (DeepSeek)
    q_lora_rank: int | None = None
    rope_dim: int | None = None  # MLA decoupled RoPE key width
    sliding_window: int | None = None  # tokens a local-attention layer sees (and caches)
    local_layers: int = 0  # layers with local attention (Gemma 2/3, gpt-oss, Llama 4 chunks); the rest are global
    total_params: int
    active_params: int
    generic: bool = False
    notes: tuple[str, ...] = ()
    vision_params: int = 0  # a VLM's vision encoder and projector (not in total_params): held when serving images

    @property
    def is_moe(self) -> bool:
        return bool(self.experts and self.experts > 1)

    @property
    def is_mla(self) -> bool:
        return bool(self.kv_lora_rank)

    @property
    def moe_layers(self) -> int:
        return max(0, self.layers - self.first_dense_layers) if self.is_moe else 0

    @property
    def routed_params(self) -> float:
        """Parameters of the routed experts, all layers: what expert parallelism spreads over its GPUs (attention,
        shared experts, dense layers and embeddings are the rest). 0 for a dense model."""
        if not self.is_moe or not self.experts:
            return 0.0
        k = self.active_experts or 1
        return (self.total_params - self.active_params) * self.experts / max(1, self.experts - k)

    @property
    def kv_values_per_token_per_layer(self) -> int:
        """Cached elements per token per layer: K and V for each KV head, or MLA's latent + RoPE key."""
        if self.is_mla:
            return int(self.kv_lora_rank or 0) + int(self.rope_dim or 0)
        return 2 * self.kv_heads * self.head_dim

    def attended_tokens(self, seq_len: int) -> int:
        """Tokens held in cache summed over layers, per sequence of `seq_len`: global layers keep every
        token, local layers at most their window. Equals layers x seq_len for full-attention models."""
        local = min(self.local_layers, self.layers) if self.sliding_window else 0
        seq = max(0, int(seq_len))
        return (self.layers - local) * seq + local * min(seq, int(self.sliding_window or 0))

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    @property
    def head_params(self) -> int:
        """Output projection (lm_head); zero when tied to the embedding."""
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    @property
    def linear_params(self) -> int:
        """Parameters in the per-layer linear projections (what NF4/GPTQ quantise)."""
        return self.total_params - self.embedding_params - self.head_params - _norm_params(self)


def _mla_dims(arch_head_dim: int, rope: int | None) -> tuple[int, int]:
    """(nope, v) head dims for MLA; catalogs give head_dim as either the nope part or nope+rope."""
    rope = rope or 0
    nope = arch_head_dim - rope if arch_head_dim > 128 and rope else arch_head_dim
    return nope, nope


def _attention_params(a: Architecture) -> int:
    h = a.hidden
    if a.is_mla:
        nope, v = _mla_dims(a.head_dim, a.rope_dim)
        rope = a.rope_dim or 0
        q_in = a.q_lora_rank or 0
        q = (h * q_in + q_in * a.heads * (nope + rope)) if q_in else h * a.heads * (nope + rope)
        kv = h * (int(a.kv_lora_rank or 0) + rope) + int(a.kv_lora_rank or 0) * a.heads * (nope + v)
        return q + kv + a.heads * v * h
    return h * a.heads * a.head_dim + 2 * h * a.kv_heads * a.head_dim + a.heads * a.head_dim * h


def _mlp_params(hidden: int, width: int, gated: bool) -> int:
    return (3 if gated else 2) * hidden * width


def _norm_params(a: Architecture) -> int:
    return 2 * a.hidden * a.layers + a.hidden


def param_count(a: Architecture) -> tuple[int, int]:
    """(total, active) parameters from the shape: embeddings + per-layer attention/MLP/experts + norms.

    Active counts the routed experts a token uses plus shared experts (the Mixtral/DeepSeek
    convention: embeddings and attention count as active).
    """
    attn = _attention_params(a) * a.layers
    dense_layers = a.layers - a.moe_layers
    dense = _mlp_params(a.hidden, a.ffn, a.gated_mlp) * dense_layers
    expert = _mlp_params(a.hidden, a.moe_ffn or a.ffn, a.gated_mlp)
    routed = (a.experts or 0) * expert * a.moe_layers
    shared = a.shared_experts * expert * a.moe_layers
    router = (a.experts or 0) * a.hidden * a.moe_layers
    fixed = a.embedding_params + a.head_params + _norm_params(a) + attn + dense + shared + router
    active_routed = (a.active_experts or a.experts or 0) * expert * a.moe_layers
    return fixed + routed, fixed + active_routed


def _with_counts(a: Architecture, target_total: int | None = None) -> Architecture:
    total, active = param_count(a)
    notes = list(a.notes)
    if target_total and abs(total - target_total) > 0.03 * target_total:
        # The shape does not reproduce the published size: trust the published number, scale active.
        notes.append(f"shape gives {total / 1e9:.2f}B parameters; using the published {target_total / 1e9:.2f}B")
        active = int(active * target_total / total) if total else target_total
        total = target_total
    return a.model_copy(update={"total_params": total, "active_params": active, "notes": tuple(notes)})


def from_record(m: ModelRecord) -> Architecture:
    shell = Architecture(
        name=m.name, layers=m.num_layers, hidden=m.hidden_size, heads=m.num_attention_heads,
        kv_heads=m.num_kv_heads, head_dim=m.head_dim, ffn=m.intermediate_size, vocab=m.vocab_size,
        gated_mlp=m.gated_mlp, tied_embeddings=m.tie_word_embeddings, experts=m.num_experts,
        active_experts=m.experts_per_token, shared_experts=m.shared_experts or 0,
        moe_ffn=m.moe_intermediate_size, first_dense_layers=m.first_dense_layers or 0,
        kv_lora_rank=m.kv_lora_rank, q_lora_rank=m.q_lora_rank, rope_dim=m.qk_rope_head_dim,
        sliding_window=m.sliding_window, local_layers=m.local_attention_layers or 0,
        total_params=0, active_params=0, generic=m.family == UNLISTED_MOE_FAMILY,
        vision_params=int(round((m.vision_params_b or 0.0) * 1e9)),
    )
    if shell.generic:  # an MoE the catalog lacks: its name's total and active sizes on a catalog MoE's layer shape
        return shell.model_copy(update={"total_params": int(round(m.total_params_b * 1e9)),
                                        "active_params": int(round(m.active_params_b * 1e9)), "notes": (m.notes,)})
    return _with_counts(shell, int(round(m.total_params_b * 1e9)))


def generic_architecture(params_b: float) -> Architecture:
    """A Llama-like dense shape of the requested size: hidden/layers = 128, SwiGLU FFN of 8/3 x hidden
    (rounded to 256), 128-dim heads, 8 KV heads (GQA, as Llama 3 / Mistral / Qwen 2.5), 32k vocab.

    The parameter count is the user's number exactly; the shape only feeds activation, KV-cache and
    adapter sizes, so those figures carry a 'generic shape' caveat.
    """
    target = max(1, int(round(params_b * 1e9)))
    best: Architecture | None = None
    best_err = float("inf")
    for hidden in range(256, 32768 + 1, 128):
        heads = max(1, hidden // 128)
        cand = Architecture(
            name=f"generic {params_b:g}B", layers=max(1, round(hidden / 128)), hidden=hidden, heads=heads,
            kv_heads=min(8, heads), head_dim=128, ffn=max(256, int(round(hidden * 8 / 3 / 256)) * 256),
            vocab=32000, total_params=0, active_params=0, generic=True,
        )
        total, _ = param_count(cand)
        err = abs(total - target)
        if err < best_err:
            best, best_err = cand, err
        if total > target:
            break
    assert best is not None
    note = (
        f"no catalog architecture: generic Llama-like shape ({best.layers} layers, hidden {best.hidden}, "
        f"{best.kv_heads} KV heads) scaled to {params_b:g}B; KV cache and activations are approximate"
    )
    return best.model_copy(update={"total_params": target, "active_params": target, "notes": (note,)})


REFERENCE_SHAPE_TOLERANCE = 0.15  # a catalog model within 15% of the asked size lends its shape


def reference_shape(params_b: float, models: tuple[ModelRecord, ...] | list[ModelRecord]) -> ModelRecord | None:
    """The dense catalog model closest in size to a bare "70B", if one is within 15%.

    Why: a bare size says nothing about layers, heads or KV heads, which set activations and the
    KV cache. A real architecture of about that size (most "70B" requests mean a Llama-70B-class
    model) is closer to the truth than a shape scaled by formula. Llama models win ties.
    """
    dense = [m for m in models if not m.num_experts and m.total_params_b > 0]
    if not dense or params_b <= 0:
        return None
    best = min(dense, key=lambda m: (abs(m.total_params_b - params_b) / params_b, m.family != "llama", m.id))
    return best if abs(best.total_params_b - params_b) / params_b <= REFERENCE_SHAPE_TOLERANCE else None


def architecture_like(reference: ModelRecord, params_b: float) -> Architecture:
    """`reference`'s shape carrying the user's parameter count (weights and FLOPs follow the size the
    user said; activations and KV cache follow the reference's layers and heads)."""
    arch = from_record(reference)
    n = int(round(params_b * 1e9))
    note = (f"no model named: assumed a {reference.name}-like architecture ({arch.layers} layers, hidden {arch.hidden}, "
            f"{arch.kv_heads} KV heads) at {params_b:g}B parameters; name the model for exact figures")
    return arch.model_copy(update={"name": f"{params_b:g}B ({reference.name}-like)", "total_params": n,
                                   "active_params": n, "generic": True, "notes": (note,)})


def architecture_for(model: ModelRecord | None, params_b: float | None) -> Architecture:
    """The catalog record's shape when there is one (even if the user rounded its size: "70B" for
    70.55B); otherwise a generic shape of `params_b`; otherwise a generic 7B, flagged as such."""
    if model is not None:
        arch = from_record(model)
        if params_b and abs(params_b * 1e9 - arch.total_params) > 0.1 * arch.total_params:
            note = f"user said {params_b:g}B; {model.name} has {arch.total_params / 1e9:.2f}B: using the catalog shape"
            arch = arch.model_copy(update={"notes": (*arch.notes, note)})
        return arch
    if params_b and params_b > 0:
        return generic_architecture(params_b)
    arch = generic_architecture(7.0)
    return arch.model_copy(update={"notes": (*arch.notes, "no model or size given: assumed 7B")})


def normalise_targets(targets: tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """Map user/framework spellings ("q,v", "attn", "all-linear", "q_proj") to module names."""
    out: list[str] = []
    for raw in targets or ("q_proj", "v_proj"):
        for t in str(raw).replace("+", ",").split(","):
            key = t.strip().lower()
            mods = _ALIASES.get(key) or ((key,) if key in LINEAR_MODULES or key == "lm_head" else ())
            out.extend(m for m in mods if m not in out)
    return tuple(out) or ("q_proj", "v_proj")


def _module_shapes(a: Architecture, module: str) -> list[tuple[int, int, int]]:
    """[(in, out, copies)] for one module name across all layers (experts multiply copies)."""
    h, hd = a.hidden, a.head_dim
    if module == "lm_head":
        return [(h, a.vocab, 1)]
    if module in ("q_proj", "k_proj", "v_proj", "o_proj"):
        if a.is_mla:  # adapters on the up-projections of MLA's low-rank factors (approximation)
            nope, v = _mla_dims(hd, a.rope_dim)
            width = {
                "q_proj": (a.q_lora_rank or h, a.heads * (nope + (a.rope_dim or 0))),
                "k_proj": (int(a.kv_lora_rank or h), a.heads * nope),
                "v_proj": (int(a.kv_lora_rank or h), a.heads * v),
                "o_proj": (a.heads * v, h),
            }[module]
            return [(width[0], width[1], a.layers)]
        width = {"q_proj": (h, a.heads * hd), "k_proj": (h, a.kv_heads * hd),
                 "v_proj": (h, a.kv_heads * hd), "o_proj": (a.heads * hd, h)}[module]
        return [(width[0], width[1], a.layers)]
    if module == "gate_proj" and not a.gated_mlp:
        return []
    dense_layers = a.layers - a.moe_layers
    shapes: list[tuple[int, int, int]] = []
    for ffn_width, copies in ((a.ffn, dense_layers), (a.moe_ffn or a.ffn, a.moe_layers * ((a.experts or 0) + a.shared_experts))):
        if copies:
            shapes.append((ffn_width, h, copies) if module == "down_proj" else (h, ffn_width, copies))
    return shapes


def lora_trainable_params(a: Architecture, rank: int | None, targets: tuple[str, ...] | list[str] | None) -> int:
    """Adapter parameters: rank x (in + out) for every targeted projection in every layer (and every
    expert of an MoE layer). Llama-2-7B r=8 on q,v gives 4,194,304, as litgpt reports."""
    key = tuple(targets) if targets is not None else None
    return _lora_params_cached(a, rank, key)


@lru_cache(maxsize=512)
def _lora_params_cached(a: Architecture, rank: int | None, targets: tuple[str, ...] | None) -> int:
    """Memoised: the ranking asks the same question thousands of times per answer (pure function
    of a frozen architecture, so caching cannot change a result)."""
    r = max(0, int(rank or 8))
    return sum(r * (i + o) * n for m in normalise_targets(targets) for i, o, n in _module_shapes(a, m))
