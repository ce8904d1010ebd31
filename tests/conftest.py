"""Suite-wide settings. Hypothesis runs derandomized (the same examples on every run and machine),
so CI failures reproduce and a green run means the same thing twice; `HYPOTHESIS_PROFILE=explore`
draws fresh random examples for a local bug hunt."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Tests never reach the real Hugging Face Hub: lookups are off unless a test points HF_ENDPOINT at its
# fake Hub on loopback and turns them on (tests/catalog/test_hub_answers.py).
os.environ["GPU_ADVISOR_HUB"] = "0"

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
