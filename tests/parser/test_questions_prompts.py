"""A long stated context for concurrent users asks the prompt length: the default turn (1,024 new prompt
tokens) can be several times off for documents or retrieval, and those prefills decide the hardware."""

from __future__ import annotations

from engine.models import Workload
from parser import questions_for


def _fields(**kw) -> list[str]:
    return [q.field for q in questions_for(Workload(mode="inference", params_b=70, **kw))]


def test_concurrent_users_at_a_long_context_are_asked_their_prompt_length() -> None:
    assert "input_tokens" in _fields(concurrency=64, seq_len=32_768)
    # 100 users of a 70B model at 8k: 8k prompts take 4.6x the GPUs of 1k turns (8 B200 at $32,120 vs 4 MI300X at
    # $6,979): asked, the answer kept at the default turn meanwhile
    assert "input_tokens" in _fields(concurrency=100, seq_len=8192)


def test_no_prompt_question_where_the_default_turn_is_a_fair_guess_or_the_length_was_said() -> None:
    assert "input_tokens" not in _fields(concurrency=100, seq_len=4096)  # a chat window: prefix-cached turns
    assert "input_tokens" not in _fields(concurrency=64, seq_len=32_768, input_tokens=20_000, output_tokens=500)
    assert "input_tokens" not in _fields(concurrency=1, seq_len=131_072)  # one stream: no one else's prefills
    assert "input_tokens" not in _fields(requests_per_s=10.0, seq_len=32_768)  # a rate asks its own question


def test_the_example_prompt_fits_the_context_said() -> None:
    """"e.g. 20k-token prompts" under a 16k context asked for a prompt longer than the window."""
    def example(seq_len: int) -> str:
        [q] = [q for q in questions_for(Workload(mode="inference", params_b=70, concurrency=64, seq_len=seq_len))
               if q.field == "input_tokens"]
        return q.text.split("(e.g. “", 1)[1].split("-token prompts")[0]

    assert [example(s) for s in (16_384, 32_768, 131_072)] == ["10k", "20k", "78k"]


def test_a_rate_with_its_prompt_length_asks_only_for_the_reply_length() -> None:
    """"100 requests/s, 8k-token prompts": the question said the rate "is sized at 1,024 prompt + 256 output tokens",
    beside an Assumes line of 8,000-token prompts. It now asks only what is missing, with the prompts said."""
    from engine.models import Workload
    from parser.questions import questions_for

    given = Workload(mode="inference", model="llama-3.1-8b", requests_per_s=100, input_tokens=8000)
    [question] = [q for q in questions_for(given) if q.field == "output_tokens"]
    assert question.text.startswith("How many tokens does a response generate? 100 requests/s is sized at 8,000-token "
                                    "prompts with 256 output tokens each"), question.text
    bare = Workload(mode="inference", model="llama-3.1-8b", requests_per_s=100)
    [question] = [q for q in questions_for(bare) if q.field == "output_tokens"]
    assert "and how long are the prompts? 100 requests/s is sized at 1,024 prompt + 256 output" in question.text


def test_a_question_already_asked_is_not_asked_again_beside_a_rate() -> None:
    """The rate question's wording was kept in a variable named like the asked-fields parameter, so the final filter
    checked fields against that sentence: a question the thread had already asked came back."""
    from engine.models import Workload
    from parser.questions import questions_for

    w = Workload(mode="inference", model="llama-3.1-8b", requests_per_s=5, input_tokens=8000)
    assert "output_tokens" in [q.field for q in questions_for(w)]
    assert "output_tokens" not in [q.field for q in questions_for(w, asked={"output_tokens"})]
