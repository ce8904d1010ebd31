"""Cold start: how long `gpu-advisor ask` takes as a fresh process, next to `python -c pass` (the
floor any Python CLI pays), with each run's peak memory from /usr/bin/time (`%M`, KiB), or
`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss` where GNU time is not installed (then the figure
is the largest child so far, which is still an upper bound for each command run after the floor).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.harness import ROOT, TIME_V, gpu_advisor_command, tool_env

QUESTION = "QLoRA 70B, 500GB corpus in S3, 20 runs"


@dataclass
class StartupResult:
    label: str
    command: str
    runs: int
    median_ms: float
    best_ms: float
    peak_rss_kib: int


def _one(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    if TIME_V.exists():
        with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
            started = time.perf_counter()
            subprocess.run([str(TIME_V), "-f", "%M", "-o", out.name, *command], cwd=ROOT, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            elapsed = time.perf_counter() - started
            return elapsed, int(Path(out.name).read_text().split()[-1])
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def cold_start(runs: int) -> list[StartupResult]:
    """Median wall time of each command over `runs` fresh processes (after one untimed run that
    warms the OS page cache, as on any machine that ran the tool before)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = tool_env({"GPU_ADVISOR_DB": str(Path(tmp) / "threads.db"),
                        "GPU_ADVISOR_CATALOG_DIR": str(Path(tmp) / "catalog-extra")})
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "gpu-advisor --help": [*gpu_advisor_command(), "--help"],
            "gpu-advisor ask": [*gpu_advisor_command(), "ask", QUESTION],
            "gpu-advisor ask --json": [*gpu_advisor_command(), "ask", "--json", QUESTION],
        }
        results = []
        for label, command in commands.items():
            _one(command, env)
            samples = [_one(command, env) for _ in range(runs)]
            times = [s[0] * 1e3 for s in samples]
            shown = " ".join(c if " " not in c else repr(c) for c in [Path(command[0]).name, *command[1:]])
            results.append(StartupResult(label, shown, runs, statistics.median(times), min(times),
                                         max(s[1] for s in samples)))
        return results
