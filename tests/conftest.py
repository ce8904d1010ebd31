"""Suite-wide settings and the distinct-test count.

Hypothesis runs derandomized (the same examples on every run and machine), so CI failures
reproduce and a green run means the same thing twice; `HYPOTHESIS_PROFILE=explore` draws fresh
random examples for a local bug hunt; `HYPOTHESIS_PROFILE=mutation` (set by scripts/mutation.sh)
draws 10 examples per property so each mutant runs in seconds.

A test that re-runs another test's cases (the parser corpus read with the fake resolver, then with
the real catalog) says so with `@pytest.mark.repeats("<file>::<test>")`; the summary then reports
how many of the tests run are distinct, so a count of 1,234 is not read as 1,234 different checks.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Tests never reach the real Hugging Face Hub: lookups are off unless a test points HF_ENDPOINT at its
# fake Hub on loopback and turns them on (tests/catalog/test_hub_answers.py).
os.environ["GPU_ADVISOR_HUB"] = "0"

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.register_profile(
    "mutation", derandomize=True, deadline=None, max_examples=10, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_CASES: dict[str, str] = {}  # nodeid -> the case it checks (itself, or the test case it repeats)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "repeats(nodeid): this test re-runs the cases of another parametrized test")


def case_key(item: Any) -> str:
    """The identity of the case an item checks: `repeats` items map onto the test they repeat."""
    marker = item.get_closest_marker("repeats")
    callspec = getattr(item, "callspec", None)
    if marker is None or callspec is None:
        return str(item.nodeid)
    return f"{marker.args[0]}[{callspec.id}]"


def pytest_collection_modifyitems(items: list[Any]) -> None:
    _CASES.clear()
    _CASES.update({item.nodeid: case_key(item) for item in items})


def pytest_terminal_summary(terminalreporter: Any) -> None:
    ran = {r.nodeid for key in ("passed", "failed", "error", "xfailed", "xpassed")
           for r in terminalreporter.stats.get(key, []) if getattr(r, "when", "call") in ("call", "setup")}
    if not ran:
        return
    distinct = {_CASES.get(nodeid, nodeid) for nodeid in ran}
    repeated = len(ran) - len(distinct)
    line = f"{len(ran)} tests ran, {len(distinct)} distinct"
    if repeated:
        line += f" ({repeated} re-run another test's cases with a different component: counted once)"
    terminalreporter.write_sep("-", line)
