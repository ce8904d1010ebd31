"""Hosted-API list prices (catalog/data/api_prices.csv): every row sourced and dated, built into the SQLite catalog,
and found by the names people write ("4o-mini", "gpt4o mini", "claude sonnet", "the together api")."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from catalog.api_prices import find_api, for_model, without_api
from catalog.files import read_data

CATALOG = open_catalog()
ROWS = CATALOG.data().api_prices


def test_every_row_has_a_pricing_page_a_date_and_a_confidence() -> None:
    raw = read_data()
    assert len(raw.api_prices) == len(ROWS) >= 25
    for row in ROWS:
        assert row.pricing_page and row.source and row.observed_on.startswith("20"), row.id
        assert row.confidence in ("high", "medium", "low")
        assert 0 < row.usd_per_1m_input <= row.usd_per_1m_output * 1.01 or row.usd_per_1m_input == row.usd_per_1m_output
        if row.usd_per_1m_cached_input is not None:
            assert row.usd_per_1m_cached_input < row.usd_per_1m_input, row.id
        assert row.alias_list(), row.id
    open_weights = {r.open_model for r in ROWS if r.open_model}
    assert open_weights <= {m.id for m in CATALOG.data().models}, "open_model must be a catalog model id"


def test_list_prices_as_the_vendors_publish_them() -> None:
    by_id = {r.id: r for r in ROWS}
    mini = by_id["openai:gpt-4o-mini"]
    assert (mini.usd_per_1m_input, mini.usd_per_1m_cached_input, mini.usd_per_1m_output) == (0.15, 0.075, 0.60)
    assert mini.pricing_page == "openai.com/api/pricing" and mini.confidence == "high"
    assert (by_id["anthropic:claude-haiku-3.5"].usd_per_1m_input, by_id["anthropic:claude-haiku-3.5"].usd_per_1m_output) \
        == (0.80, 4.00)
    assert by_id["together:llama-3.3-70b"].open_model == "llama-3.3-70b"
    assert by_id["openai:o3"].reasoning and not by_id["openai:gpt-4o"].reasoning


@pytest.mark.parametrize("text, api, said", [
    ("serving llama 3.3 70b at 50 users vs gpt-4o-mini api", "openai:gpt-4o-mini", "gpt-4o-mini"),
    ("is it cheaper than 4o-mini", "openai:gpt-4o-mini", "4o-mini"),
    ("vs gpt4o mini", "openai:gpt-4o-mini", "gpt4o mini"),
    ("how much would gpt-4o cost for 1b tokens a month", "openai:gpt-4o", "gpt-4o"),
    ("cheaper than claude haiku?", "anthropic:claude-haiku-4.5", "claude haiku"),
    ("or claude sonnet", "anthropic:claude-sonnet-4", "claude sonnet"),
    ("should we self-host llama 70b or use the together api", "together:llama-3.3-70b", "together api"),
    ("compared to gemini 2.5 flash", "google:gemini-2.5-flash", "gemini 2.5 flash"),
    ("gpt-4.1 nano for classification", "openai:gpt-4.1-nano", "gpt-4.1 nano"),
])
def test_names_people_write(text: str, api: str, said: str) -> None:
    found = CATALOG.find_api(text)
    assert found is not None and found.id == api and found.said.lower() == said, found


@pytest.mark.parametrize("text", ["serve llama 3.1 8b on h100", "put together a plan for 70b on 8 gpus",
                                  "qlora 70b, 500gb corpus in s3", "gpt-oss-120b on a single h100",
                                  "serve Mixtral 8x7B at 50 concurrent users, fp8"])
def test_no_api_in_ordinary_questions(text: str) -> None:
    assert find_api(text, ROWS) is None


def test_the_words_leading_to_the_api_go_with_it() -> None:
    text = "whats our cost per 1m tokens serving llama 3.3 70b at 50 users vs gpt-4o-mini api"
    found = CATALOG.find_api(text)
    assert found is not None and without_api(text, found).endswith("at 50 users")


def test_an_open_weight_vendor_serves_the_model_planned() -> None:
    together = next(r for r in ROWS if r.id == "together:llama-3.3-70b")
    assert for_model(ROWS, together, "llama-3.1-405b").id == "together:llama-3.1-405b"
    assert for_model(ROWS, together, "llama-3.3-70b").id == "together:llama-3.3-70b"
    assert for_model(ROWS, together, "mistral-7b").id == "together:llama-3.3-70b"  # not listed: the row named
