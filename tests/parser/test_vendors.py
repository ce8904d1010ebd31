"""A GPU vendor said as a constraint ("NVIDIA only", "no AMD", "we're a CUDA shop") narrows the plans to that vendor's
GPUs; it was not understood, and budget and serving answers picked MI300X for teams that cannot run ROCm."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize("text, vendor", [
    ("serve llama 3 70b for 50 users, NVIDIA only", "nvidia"), ("only nvidia please", "nvidia"),
    ("serve llama 3 70b, no AMD", "nvidia"), ("we're a CUDA shop, serve llama 3 8b", "nvidia"),
    ("serve llama 3 70b without MI300X", "nvidia"), ("serve llama 3 70b, AMD only", "amd"),
])
def test_said(text: str, vendor: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates["gpu_vendor"] == vendor
    assert any("GPUs only, as asked" in n for n in reading.notes)


@pytest.mark.parametrize("text", ["serve llama 3 70b on nvidia h100", "serve llama 3 70b for 50 users",
                                  "is amd or nvidia cheaper for llama 3 70b"])
def test_not_said(text: str) -> None:
    assert "gpu_vendor" not in parse(text, FakeResolver()).updates
