"""Follow-ups that say a number relative to the thread: "how long on 16 of them?", "double the users", "half the
users". Each was answered with the previous answer again, no change and no word that nothing was applied."""

from __future__ import annotations

import pytest

from parser import Conversation
from parser.scaling import scale_said
from tests.parser.fake_resolver import FakeResolver


def _thread(*texts: str):  # noqa: ANN202 - the last Turn
    conversation = Conversation(FakeResolver())
    turn = None
    for text in texts:
        turn = conversation.turn(text)
    return turn


def test_n_of_them_is_a_gpu_count() -> None:
    turn = _thread("full fine-tune llama 3.1 8b on 1B tokens on 8 H100s", "how long on 16 of them?")
    assert turn.changed.get("gpu_count") == (8, 16)
    assert turn.intent == "refine"


@pytest.mark.parametrize(("text", "users"), [
    ("double the users", 200), ("twice as many users", 200), ("2x the users", 200), ("3 times as many users", 300),
    ("half the users", 50), ("halve the users", 50),
])
def test_a_multiple_of_the_users(text: str, users: int) -> None:
    turn = _thread("serve llama 3.1 70b for 100 users at 8k context", text)
    assert turn.changed.get("concurrency") == (100, users), turn.changed
    assert turn.intent == "refine"
    assert any("× the load" in n for n in turn.notes), turn.notes


def test_a_multiple_of_a_request_rate_is_the_rate() -> None:
    turn = _thread("serve llama 3.1 8b at 20 requests/s, 300 output tokens each", "double the traffic")
    assert turn.changed["requests_per_s"] == (20, 40)
    assert turn.workload.target_tokens_per_s == pytest.approx(12_000)  # 40 requests/s x 300 tokens
    assert turn.workload.concurrency is None


def test_a_multiple_with_nothing_to_multiply_says_so() -> None:
    turn = _thread("full fine-tune llama 3.1 8b on 1B tokens", "double the users")
    assert not turn.changed
    assert turn.intent == "gibberish"
    assert any("no users or request rate to multiply" in n for n in turn.notes), turn.notes


def test_a_number_no_question_takes_is_said_back_not_applied_silently() -> None:
    turn = _thread("full fine-tune llama 3.1 8b on 1B tokens on 8 H100s", "how about 7 then")
    assert not turn.changed
    assert turn.intent == "gibberish"  # the bot says it did not understand, never the previous answer as if applied
    assert any("“7”" in n for n in turn.notes), turn.notes


@pytest.mark.parametrize("text", ["double precision", "half the time", "twice a day", "halve the context"])
def test_no_multiple_of_the_load(text: str) -> None:
    assert scale_said(text) is None


def test_a_first_message_with_its_own_users_is_not_multiplied() -> None:
    turn = _thread("serve llama 3.1 8b for 100 users, expecting double the users next year")
    assert turn.workload.concurrency == 100
    assert not any("× the load" in n or "to multiply" in n for n in turn.notes), turn.notes


@pytest.mark.parametrize(("first", "text", "users"), [
    ("serve Llama 3.1 70B for 200 employees", "what if 50 of them are active at once?", 50),
    ("our 40 developers use a coding agent with Qwen2.5 Coder 32B", "only 8 of them at once", 8),
    ("serve llama 3.1 70b for 50 users on 8 H100s", "say 10 of them are online", 10),
    # the open question asked how many of the 200 are at once: "them" are the users
    ("serve Llama 3.1 70B for 200 employees", "what if 30 of them?", 30),
])
def test_n_of_them_at_once_is_users_not_gpus(first: str, text: str, users: int) -> None:
    turn = _thread(first, text)
    assert turn.changed.get("concurrency", (None, None))[1] == users, turn.changed
    assert "gpu_count" not in turn.changed
    assert any(f"{users} users at the same time" in n for n in turn.notes), turn.notes


def test_n_of_them_on_a_serving_plan_with_gpus_and_users_is_asked() -> None:
    turn = _thread("serve llama 3.1 70b for 50 users on 8 H100s", "what about 20 of them?")
    assert not turn.changed
    assert any("20 GPUs or 20 users at once?" in n for n in turn.notes), turn.notes


def test_on_n_of_them_in_a_serving_thread_is_gpus() -> None:
    turn = _thread("serve llama 3.1 70b for 50 users on 8 H100s", "how about on 16 of them?")
    assert turn.changed.get("gpu_count") == (8, 16)


@pytest.mark.parametrize(("text", "context"), [
    ("double the context", 16384), ("2x the context window", 16384), ("halve the context", 4096),
    ("twice the context length", 16384),
])
def test_a_multiple_of_the_context(text: str, context: int) -> None:
    """'double the context' returned the help menu."""
    turn = _thread("serve llama 3.1 70b for 100 users at 8k context", text)
    assert turn.changed.get("seq_len") == (8192, context), turn.changed
    assert turn.intent == "refine"
    assert any("× the context" in n for n in turn.notes), turn.notes


def test_a_multiple_of_the_context_grows_the_prompt() -> None:
    turn = _thread("serve llama 3.1 70b for 100 users, 2k-token prompts, 300 output tokens, 8k context", "double the context")
    assert turn.changed == {"seq_len": (8192, 16384), "input_tokens": (2000, 4000)}


def test_a_multiple_of_an_unsaid_context_is_the_prompt_or_the_default() -> None:
    prompts = _thread("serve llama 3.1 70b for 100 users, 2k-token prompts, 300 output tokens", "double the context")
    assert prompts.changed == {"input_tokens": (2000, 4000)}  # the engine sizes each sequence at prompt + reply
    default = _thread("serve llama 3.1 70b for 100 users", "double the context")
    assert default.changed == {"seq_len": (None, 8192)}
    assert any("4,096 (the default)" in n for n in default.notes), default.notes


def test_a_gpu_count_replaces_the_threads_node_count() -> None:
    """"on 4 nodes of 8 H100" then "how long on 64 of them?" kept 4 nodes: 16 GPUs a node, tensor parallel x16."""
    conversation = Conversation(resolver=FakeResolver())
    first = conversation.turn("full fine-tune Llama 3.1 70B on 2B tokens on 4 nodes of 8 H100")
    assert (first.workload.nodes, first.workload.gpu_count) == (4, 32)
    more = conversation.turn("how long on 64 of them?").workload
    assert (more.gpu_count, more.nodes) == (64, None)


def test_a_node_count_keeps_the_gpus_per_node() -> None:
    conversation = Conversation(resolver=FakeResolver())
    conversation.turn("full fine-tune Llama 3.1 70B on 2B tokens on 4 nodes of 8 H100")
    fewer = conversation.turn("what about 2 nodes?").workload
    assert (fewer.nodes, fewer.gpu_count) == (2, 16)
