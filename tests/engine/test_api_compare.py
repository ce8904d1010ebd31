"""engine.api_compare: an API's bill is linear in its tokens, and the break-even is where it equals the self-hosted
plan's monthly cost; the review's figures for Llama 3.3 70B on 2 MI300X ($3,489 a month, ~1,250 output tokens/s) vs
gpt-4o-mini ($0.15/$0.60): ~$1.20 per 1M output tokens with 1,024-token prompts, ~$3.9k flat out, ~$1.2k at 30%."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog.records import ApiPriceRecord
from engine.api_compare import REALISTIC_LOAD, SECONDS_PER_MONTH, api_bill, api_only, compare
from engine.models import Workload

MINI = ApiPriceRecord(id="openai:gpt-4o-mini", vendor="openai", name="GPT-4o mini (OpenAI API)", api_model="gpt-4o-mini",
                      usd_per_1m_input=0.15, usd_per_1m_cached_input=0.075, usd_per_1m_output=0.60,
                      pricing_page="openai.com/api/pricing", confidence="high", source="test", observed_on="2026-11-25")
TOGETHER = MINI.model_copy(update={"id": "together:llama-3.3-70b", "vendor": "together", "open_model": "llama-3.3-70b",
                                   "name": "Llama 3.3 70B Instruct Turbo (Together AI API)",
                                   "usd_per_1m_input": 0.88, "usd_per_1m_cached_input": None, "usd_per_1m_output": 0.88})
SERVING = Workload(mode="inference", model="llama-3.3-70b", concurrency=50)


def test_the_reviews_figures_for_fifty_users() -> None:
    c = compare(MINI, SERVING, usd_per_month=3489.0, output_tokens_per_s=1250.0, option="RunPod 2x MI300X",
                model_name="Llama 3.3 70B")
    assert c.load == "full" and c.bill.usd_per_1m_output_with_prompts.value == pytest.approx(1.20)
    assert c.capacity_output_tokens_per_month.value == pytest.approx(1250 * 730 * 3600)
    assert c.bill.usd_per_month.value == pytest.approx(3942, abs=2)
    assert c.self_hosted_usd_per_1m_output_full.value == pytest.approx(1.062, abs=0.001)
    assert c.api_usd_per_month_realistic.value == pytest.approx(1183, abs=2)
    assert c.self_hosted_usd_per_1m_output_realistic.value == pytest.approx(1.062 / 0.3, abs=0.01)
    assert c.break_even_load.value == pytest.approx(0.885, abs=0.002) and c.cheaper == "self_hosted"
    assert any("different models" in x for x in c.caveats)


def test_the_same_open_weights_have_no_quality_caveat() -> None:
    c = compare(TOGETHER, SERVING, usd_per_month=3489.0, output_tokens_per_s=1250.0, option="x", model_name="Llama 3.3 70B")
    assert c.caveats == ()


def test_tokens_a_month_said_are_billed_as_said() -> None:
    w = Workload(mode="inference", load_tokens_per_s=1e9 / SECONDS_PER_MONTH, load_period="month")
    bill = api_only(MINI.model_copy(update={"usd_per_1m_input": 2.5, "usd_per_1m_output": 10.0}), w)
    assert bill is not None
    assert bill.input_tokens_per_month.value == pytest.approx(8e8) and bill.output_tokens_per_month.value == pytest.approx(2e8)
    assert bill.usd_per_month.value == pytest.approx(4000.0)
    assert api_only(MINI, Workload(mode="inference", concurrency=5)) is None  # users at once: no tokens a month said


@given(st.floats(0, 1e11), st.floats(1e4, 1e11), st.floats(0.01, 100))
def test_the_bill_is_linear_in_tokens(tokens_in: float, tokens_out: float, k: float) -> None:
    one = api_bill(MINI, tokens_in, tokens_out).usd_per_month.value
    scaled = api_bill(MINI, tokens_in * k, tokens_out * k).usd_per_month.value
    assert scaled == pytest.approx(one * k, rel=1e-5, abs=1e-4)  # figures keep 6 decimals


@given(st.floats(100, 1e6), st.floats(1, 1e5), st.integers(16, 32_000), st.integers(16, 8_000))
def test_break_even_is_where_both_bills_meet(usd: float, rate: float, prompt: int, reply: int) -> None:
    w = Workload(mode="inference", model="llama-3.3-70b", concurrency=8, input_tokens=prompt, output_tokens=reply)
    c = compare(MINI, w, usd_per_month=usd, output_tokens_per_s=rate, option="x", model_name="m")
    even = c.break_even_output_tokens_per_month.value
    at_even = api_bill(MINI, even * prompt / reply, even).usd_per_month.value
    assert at_even == pytest.approx(usd, rel=1e-4)
    assert c.break_even_load.value == pytest.approx(even / c.capacity_output_tokens_per_month.value, rel=1e-3, abs=1e-4)
    # the cheaper side at the load billed agrees with the break-even
    assert (c.cheaper == "api") == (c.bill.output_tokens_per_month.value < even * (1 - 1e-9)) or \
        c.bill.output_tokens_per_month.value == pytest.approx(even, rel=1e-3)
    assert c.realistic_load == REALISTIC_LOAD
