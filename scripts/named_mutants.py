"""Apply each named mutant (a wrong figure a user would act on) to a copy of the repository and check
that the test named for it fails. Exit status 0 only when every mutant is killed.

    python scripts/named_mutants.py            # all
    python scripts/named_mutants.py fp16 nf4   # some, by name

Why a separate script: mutmut 3 mutates code inside functions only, so the module-level tables
(bytes per element, quantisation constants) are never mutated by `scripts/mutation.sh`. These are
the survivors of the original spot check (numeric literals x 1.5 in engine/*.py) plus the tables.
When a module is rewritten and a pattern no longer matches, the script says so: update the pattern
and keep the mutant.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPY = ("engine", "catalog", "parser", "bot", "tests", "pyproject.toml", "manifest.yml", "README.md", "CHANGELOG.md", "docs")
P = "tests/engine/test_pinned_precision.py::"
T = "tests/engine/test_pinned_training.py::"
S = "tests/engine/test_pinned_serving.py::"
C = "tests/engine/test_pinned_costs.py::"


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    before: str
    after: str
    killer: str  # the pytest node id that must fail


MUTANTS = (
    Mutant("nf4-bytes", "engine/units.py", '"nf4": 0.5,', '"nf4": 0.75,',
           P + "test_quantised_inference_weights"),
    Mutant("qlora-nf4-bytes", "engine/memory.py", "base = linear * 0.5 +", "base = linear * 0.75 +",
           P + "test_qlora_base_weights_are_nf4_half_a_byte_per_linear_param"),
    Mutant("fp16-bytes", "engine/units.py", '"fp16": 2.0,', '"fp16": 3.0,',
           P + "test_unquantised_inference_weights_are_params_times_element_size"),
    Mutant("fp8-kv-memory", "engine/memory.py", 'kv_bpe = 1.0 if prec == "fp8" else 2.0', 'kv_bpe = 2.0 if prec == "fp8" else 2.0',
           P + "test_inference_kv_cache_bytes_per_precision"),
    Mutant("fp8-kv-precision-table", "engine/quantization.py", '1.0 if p == "fp8" else 2.0', '2.0 if p == "fp8" else 2.0',
           P + "test_precision_table_rows_llama2_7b"),
    Mutant("fp8-kv-decode", "engine/throughput.py", 'kv_read = kv_cache_bytes(arch, ctx, b, 1.0 if prec == "fp8" else 2.0)',
           'kv_read = kv_cache_bytes(arch, ctx, b, 2.0 if prec == "fp8" else 2.0)',
           P + "test_decode_reads_fp8_kv_cache_at_one_byte"),
    Mutant("recompute-3n", "engine/throughput.py", "executed += 2 * arch.active_params", "executed += 3 * arch.active_params",
           T + "test_gradient_checkpointing_adds_one_forward_pass_2n"),
    Mutant("attention-flops-10", "engine/throughput.py", "attn = 12 * arch.layers", "attn = 10 * arch.layers",
           T + "test_attention_flops_per_token_are_12_layers_width_seq"),
    Mutant("moe-touched-ignores-batch", "engine/throughput.py", "** max(1, batch)", "** 1",
           S + "test_moe_decode_reads_only_the_experts_the_batch_touches"),
    Mutant("moe-touched-all-experts", "engine/throughput.py", "linear -= routed * (1 - touched)", "linear -= routed * 0",
           S + "test_moe_touched_fractions_by_hand"),
    Mutant("nodes-round", "engine/cluster.py", "    nodes = math.ceil(n / gpn)\n    inference", "    nodes = round(n / gpn)\n    inference",
           C + "test_nodes_for_a_fixed_gpu_count_on_8_gpu_nodes"),
    Mutant("hours-per-month", "engine/units.py", "HOURS_PER_YEAR / 12", "HOURS_PER_YEAR / 12.5",
           C + "test_time_and_size_units"),
)


def run(mutant: Mutant | None, killers: tuple[str, ...] = ()) -> str:
    """Copy the repository, apply `mutant` (None: the unmutated control run), run its killer test."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name if mutant else 'control'}-") as tmp:
        for name in COPY:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, Path(tmp) / name, ignore=shutil.ignore_patterns("__pycache__"))
            elif src.exists():
                shutil.copy2(src, Path(tmp) / name)
        if mutant is not None:
            target = Path(tmp) / mutant.path
            text = target.read_text()
            if text.count(mutant.before) != 1:
                return f"PATTERN NOT FOUND ONCE in {mutant.path}: {mutant.before!r} (update the mutant)"
            target.write_text(text.replace(mutant.before, mutant.after))
            killers = (mutant.killer,)
        env = {**os.environ, "PYTHONPATH": tmp, "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", "/tmp/cache-mutation")}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *killers],
                              cwd=tmp, env=env, capture_output=True, text=True)
        if proc.returncode == 1:
            return "killed"
        if proc.returncode == 0:
            return "SURVIVED"
        return f"ERROR (pytest exit {proc.returncode}): {proc.stdout[-400:]}{proc.stderr[-400:]}"


def main(names: list[str]) -> int:
    chosen = [m for m in MUTANTS if not names or any(n in m.name for n in names)]
    control = run(None, tuple(m.killer for m in chosen))
    if control != "SURVIVED":  # the unmutated code must pass every killer test
        print(f"control run (no mutation) did not pass: {control}")
        return 1
    failed = 0
    for mutant in chosen:
        verdict = run(mutant)
        failed += verdict != "killed"
        print(f"{mutant.name:28} {mutant.path:24} {verdict:10} by {mutant.killer.split('::')[-1]}")
    print(f"{len(chosen) - failed}/{len(chosen)} named mutants killed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
