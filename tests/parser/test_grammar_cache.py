"""The ready-made parser the bot keeps in its cache directory (`parser.use_grammar_cache`): read back in
another process, it must read every message exactly as a parser built from the grammar does; a stale,
foreign or damaged file, or one that cannot be written, must only cost the build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from parser import parsing
from tests.parser.fake_resolver import FakeResolver

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [entry["text"] for entry in yaml.safe_load((ROOT / "tests/parser/corpus.yaml").read_text())]
TEXTS += [line for line in (ROOT / "tests/data/panel_questions.txt").read_text().splitlines() if line.strip()]

# Readings printed in a form that does not depend on the process's string hashing (set order)
READ_ALL = """
import json, sys
from parser import parsing
from tests.parser.fake_resolver import FakeResolver
parsing.use_grammar_cache(sys.argv[1])
texts = json.load(sys.stdin)
canon = lambda o: sorted(o) if isinstance(o, (set, frozenset)) else str(o)
out = [json.dumps(parsing.parse(t, FakeResolver()).model_dump(), default=canon, sort_keys=True) for t in texts]
print(json.dumps({"from_cache": parsing._GRAMMAR is not None and parsing._LOADED_FROM_CACHE, "readings": out}))
"""


def _read_in_process(cache: Path, seed: int) -> dict[str, object]:
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    done = subprocess.run([sys.executable, "-c", READ_ALL, str(cache)], cwd=ROOT, input=json.dumps(TEXTS),
                          capture_output=True, text=True, env=env, timeout=120, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture
def fresh_grammar() -> Iterator[None]:
    """Each test starts with no parser built and no cache file named; the suite's state is restored after."""
    saved = parsing._GRAMMAR, parsing._CACHE_FILE
    parsing._GRAMMAR, parsing._CACHE_FILE = None, None
    yield
    parsing._GRAMMAR, parsing._CACHE_FILE = saved


def test_a_parser_read_back_in_other_processes_reads_every_message_as_a_fresh_build(tmp_path: Path) -> None:
    """Written under one string-hash seed and read under two others: rules and Lark's Shift/Reduce
    markers must come back as working objects, not as copies with stale hashes or new identities."""
    cache = tmp_path / "grammar.lark.cache"
    written = _read_in_process(cache, seed=1)
    assert written["from_cache"] is False and cache.is_file()
    first, second = _read_in_process(cache, seed=2), _read_in_process(cache, seed=3)
    assert first["from_cache"] is True and second["from_cache"] is True
    assert len(TEXTS) > 400
    assert first["readings"] == written["readings"] == second["readings"]


@pytest.mark.parametrize("content", [b"", b"not a key\nnot a pickle", b"garbage without a newline"])
def test_a_damaged_or_foreign_cache_file_is_rebuilt(tmp_path: Path, fresh_grammar: None, content: bytes) -> None:
    cache = tmp_path / "grammar.lark.cache"
    cache.write_bytes(content)
    parsing.use_grammar_cache(str(cache))
    assert parsing.parse("QLoRA 70B, 500GB corpus in S3, 20 runs", FakeResolver()).updates["mode"] == "qlora"
    assert parsing._LOADED_FROM_CACHE is False
    assert cache.read_bytes() != content  # replaced by a good one
    parsing.use_grammar_cache(None)
    parsing.use_grammar_cache(str(cache))
    parsing.grammar()
    assert parsing._LOADED_FROM_CACHE is True


def test_a_cache_written_for_another_grammar_is_not_used(tmp_path: Path, fresh_grammar: None) -> None:
    cache = tmp_path / "grammar.lark.cache"
    parsing.use_grammar_cache(str(cache))
    parsing.grammar()
    key, _, body = cache.read_bytes().partition(b"\n")
    cache.write_bytes(b"0" * len(key) + b"\n" + body)  # what an edited grammar.lark would leave behind
    parsing.use_grammar_cache(None)
    parsing.use_grammar_cache(str(cache))
    parsing.grammar()
    assert parsing._LOADED_FROM_CACHE is False
    assert cache.read_bytes().partition(b"\n")[0] == key


def test_an_unwritable_cache_directory_only_costs_the_build(tmp_path: Path, fresh_grammar: None) -> None:
    missing = tmp_path / "no such directory" / "grammar.lark.cache"
    parsing.use_grammar_cache(str(missing))
    assert parsing.parse("serve 8B for 16 users", FakeResolver()).updates["mode"] == "inference"
    assert not missing.exists()
    assert not any(p.name.startswith(".grammar-") for p in tmp_path.rglob("*"))


def test_the_scanner_comes_back_compiled_and_equal_to_a_fresh_compile(tmp_path: Path, fresh_grammar: None) -> None:
    """The lexer's one large regular expression is kept compiled in the file (~8 ms of the first message
    otherwise): read back, the scanner is there before any message, and its patterns are the ones Lark builds."""
    cache = tmp_path / "grammar.lark.cache"
    parsing.use_grammar_cache(str(cache))
    built = parsing.grammar().parser.lexer.root_lexer.scanner
    parsing.use_grammar_cache(None)
    parsing.use_grammar_cache(str(cache))
    lexer = parsing.grammar().parser.lexer.root_lexer
    assert parsing._LOADED_FROM_CACHE is True
    assert lexer._scanner is not None  # not compiled again on the first message
    read_back = lexer._scanner._mres
    assert [(p.pattern, p.flags, p.groupindex) for p in read_back] == [(p.pattern, p.flags, p.groupindex) for p in built._mres]
    text = "serve llama 3.1 8b in int8 for 32 concurrent users with 8k context"
    for pos in range(len(text)):
        a, b = read_back[0].match(text, pos), built._mres[0].match(text, pos)
        assert (a and (a.lastgroup, a.end())) == (b and (b.lastgroup, b.end()))


def test_a_kept_pattern_the_engine_cannot_take_is_compiled_from_its_text() -> None:
    """Another CPython's internals (a file copied between machines slips past the version key): the C engine
    refuses code it does not understand, and the pattern is compiled from its text as usual."""
    import re

    original = re.compile(r"(?P<A>\d+ ?gb)|(?P<B>qlora)", re.IGNORECASE)
    parts = parsing.pattern_parts(original)
    assert parts is not None
    kept = parsing.ready_pattern(*parts).match("QLoRA")
    assert kept is not None and kept.lastgroup == "B"
    pattern, flags, _code, *rest = parts
    fallback = parsing.ready_pattern(pattern, flags, [0, 1, 2], *rest)  # not valid engine code
    found = fallback.match("500 GB")
    assert fallback.pattern == original.pattern and found is not None and found.lastgroup == "A"
