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
LIBRARIES_LABEL = "libraries alone (pydantic + 1 model, lark, jinja2)"
LIBRARIES_CODE = ("import jinja2, lark, pydantic\n"
                  "class M(pydantic.BaseModel):\n    x: int\n"
                  "M(x=1)")


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
        # as a user's machine runs it: Python caches compiled bytecode after the first run (a sandbox that
        # sets PYTHONDONTWRITEBYTECODE would otherwise recompile every module of every run, ~130 ms)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            # the floor under any answer in this stack: pydantic with one model validated, lark and jinja2 imported
            LIBRARIES_LABEL: [sys.executable, "-c", LIBRARIES_CODE],
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


# Modules whose import a cold `gpu-advisor ask` pays, in the order a reader looks for them
TRACKED_IMPORTS = ("bot.cli", "pydantic", "catalog.records", "engine", "catalog.query", "sqlite_utils", "parser",
                   "lark", "bot.service", "bot.terminal", "jinja2", "slack_sdk", "PIL")


def import_times(runs: int = 3) -> tuple[dict[str, float | None], float]:
    """Cumulative import time (ms, median of `runs`) of each of TRACKED_IMPORTS in `gpu-advisor ask`,
    from `python -X importtime` (None: not imported at all), and the sum over top-level imports."""
    with tempfile.TemporaryDirectory() as tmp:
        env = tool_env({"GPU_ADVISOR_DB": str(Path(tmp) / "threads.db"),
                        "GPU_ADVISOR_CATALOG_DIR": str(Path(tmp) / "catalog-extra")})
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as in cold_start
        samples: list[dict[str, float]] = []
        totals: list[float] = []
        command = [sys.executable, "-X", "importtime", "-m", "bot", "ask", QUESTION]
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)  # warm caches
        for _ in range(max(1, runs)):
            done = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
            found: dict[str, float] = {}
            total = 0.0
            for line in done.stderr.splitlines():
                if not line.startswith("import time:") or "|" not in line:
                    continue
                _, cumulative, name = line.split("|", 2)
                if not cumulative.strip().isdigit():
                    continue
                if not name.startswith("  ") and name.strip() not in ("site", "encodings"):
                    total += int(cumulative) / 1e3  # a top-level import of the command itself
                found.setdefault(name.strip(), int(cumulative) / 1e3)
            samples.append(found)
            totals.append(total)
    out: dict[str, float | None] = {}
    for name in TRACKED_IMPORTS:
        values = [s[name] for s in samples if name in s]
        out[name] = statistics.median(values) if values else None
    return out, statistics.median(totals)
