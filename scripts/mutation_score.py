"""Mutation score per module from mutmut's stored results (run from the repository root).

    python scripts/mutation_score.py engine/memory.py engine/units.py
    python scripts/mutation_score.py --survivors engine/memory.py   # also list the survivors

Score = killed / (killed + survived + timeout + suspicious) among checked mutants; "no tests"
mutants (functions no selected test calls) are counted separately: they are survivors too.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter


def results() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], capture_output=True, text=True).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


def main(argv: list[str]) -> int:
    show = "--survivors" in argv
    modules = [a.removesuffix(".py").replace("/", ".") for a in argv if not a.startswith("--")]
    all_results = results()
    print(f"{'module':26} {'mutants':>7} {'killed':>6} {'survived':>8} {'no tests':>8} {'other':>5} {'score':>6}")
    for module in modules:
        mine = {n: s for n, s in all_results.items() if n.startswith(module + ".")}
        c = Counter(mine.values())
        checked = c["killed"] + c["survived"] + c["no tests"] + c["timeout"] + c["suspicious"]
        other = sum(v for k, v in c.items() if k not in ("killed", "survived", "no tests"))
        score = f"{100 * c['killed'] / checked:.1f}%" if checked else "-"
        print(f"{module:26} {len(mine):7} {c['killed']:6} {c['survived']:8} {c['no tests']:8} {other:5} {score:>6}")
        if c["not checked"]:
            print(f"  ({c['not checked']} not checked yet)")
        if show:
            for name, status in sorted(mine.items()):
                if status in ("survived", "no tests", "timeout", "suspicious"):
                    print(f"  {status:9} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
