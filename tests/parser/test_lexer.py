"""The grammar's lexer stays cheap to start: one scanner for every parser state (a cold `gpu-advisor
ask` compiles it once, ~8 ms each, instead of three near-identical ones), without changing what is read."""

from __future__ import annotations

from fake_resolver import FakeResolver

from parser import parse
from parser.parsing import grammar

RESOLVER = FakeResolver()


def test_every_parser_state_lexes_with_the_same_terminals() -> None:
    lexer = grammar().parser.lexer
    terminal_sets = {frozenset(t.name for t in state_lexer.terminals) for state_lexer in lexer.lexers.values()}
    # the one-terminal state is the grammar's own start; every state where text is read shares one set
    wide = [s for s in terminal_sets if len(s) > 1]
    assert len(wide) == 1, sorted(len(s) for s in terminal_sets)
    assert {"TOK_RATE", "REQ_RATE", "NAME", "WORD", "SYMBOL"} <= wide[0]


def test_states_that_lex_alike_share_one_lexer_and_compile_one_scanner() -> None:
    lexer = grammar().parser.lexer
    wide = {id(state_lexer) for state_lexer in lexer.lexers.values() if len(state_lexer.terminals) > 1}
    assert len(wide) == 1  # Lark gives each accepted-terminal set its own lexer; parser.parsing shares them
    assert id(lexer.root_lexer) in wide
    parse("QLoRA 70B, 500GB corpus in S3, 20 runs, serve it for 32 users at 8k context", RESOLVER)
    # a parser read back from the cache file comes with its scanners compiled, the start state's one-terminal one too
    built = {id(state_lexer) for state_lexer in lexer.lexers.values()
             if state_lexer._scanner is not None and len(state_lexer.terminals) > 1}
    assert built <= wide


def test_a_rate_keyword_without_a_number_is_filler() -> None:
    reading = parse("tokens/s matters most to us", RESOLVER)
    assert "target_tokens_per_s" not in reading.updates
    assert reading.intent != "gibberish" or not reading.updates


def test_training_as_a_modifier_of_a_rate_is_not_a_training_verb() -> None:
    # "training tokens per s" names a figure; "train" as a verb ("train a 7B model") says training
    assert "intent" not in parse("training tokens per s", RESOLVER).updates
    assert parse("train a 7b model on 1b tokens", RESOLVER).updates.get("intent") == "train"


def test_rates_after_a_number_still_read() -> None:
    assert parse("serve 8b at 3000 tokens/s", RESOLVER).updates["target_tokens_per_s"] == 3000
    assert parse("50 qps", RESOLVER).updates.get("requests_per_s") == 50
