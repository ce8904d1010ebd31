"""A hosted API named beside (or instead of) a model is a comparison, not an unknown model to size: "vs gpt-4o-mini
api" asked "I don't know “gpt-4o-mini”. Which model is it like…"; "the together api" set Together's GPU clusters as
the provider. The thread keeps the API, and "vs claude haiku?" switches it."""

from __future__ import annotations

from catalog import open_catalog
from parser import Conversation, parse
from parser.api_names import thread_api

CATALOG = open_catalog()


def test_the_api_is_no_unknown_model() -> None:
    reading = parse("whats our cost per 1M tokens serving llama 3.3 70b at 50 users vs gpt-4o-mini api", CATALOG)
    assert reading.api == "openai:gpt-4o-mini"
    assert reading.updates["model"] == "llama-3.3-70b" and reading.updates["concurrency"] == 50
    assert not any("gpt-4o-mini" in p.message for p in reading.unknown_names), reading.unknown_names


def test_an_api_vendor_is_no_gpu_provider() -> None:
    reading = parse("should we self-host llama 70b or use the together api", CATALOG)
    assert reading.api == "together:llama-3.3-70b"
    assert reading.updates.get("provider") is None


def test_an_api_alone_prices_it() -> None:
    reading = parse("how much would gpt-4o cost for 1B tokens a month", CATALOG)
    assert reading.api == "openai:gpt-4o" and not reading.unknown_names
    assert reading.updates.get("load_period") == "month"


def test_a_thread_switches_the_api_and_keeps_it() -> None:
    conversation = Conversation(resolver=CATALOG)
    conversation.turn("serve llama 3.3 70b for 50 users vs gpt-4o-mini api")
    assert thread_api(conversation.cues) == "openai:gpt-4o-mini"
    switched = conversation.turn("vs claude haiku?")
    assert switched.intent == "refine" and switched.workload.model == "llama-3.3-70b"
    assert thread_api(conversation.cues) == "anthropic:claude-haiku-4.5"
    conversation.turn("what about 100 users?")
    assert thread_api(conversation.cues) == "anthropic:claude-haiku-4.5"
    conversation.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")  # a new question ends the comparison
    assert thread_api(conversation.cues) is None
