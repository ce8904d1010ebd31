"""The compiled-regex file that spares a cold `gpu-advisor ask` its ~185 compiles: kept patterns
come back identical in behaviour, a damaged or foreign file is ignored, and the file is rewritten
only when a run compiled something it lacked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parser.parsing  # noqa: F401 - save() keeps patterns only once the parser has been imported
from bot import regex_cache

PATTERNS = [
    (r"(?P<n>\d+(?:\.\d+)?)\s*(?:b|billion)\b", re.I),
    (r"^(?:qlora|lora)[ -]?(\d+)?$", 0),
    (r"(?<![a-z])h100(?:\s*sxm)?", re.I | re.M),
]
SAMPLES = ["70B", "70.5 billion", "qlora", "lora-16", "an H100 SXM", "h1000", "", "LoRA 8"]


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an empty `re` cache and nothing loaded."""
    re.purge()
    monkeypatch.setattr(regex_cache, "_loaded", set())


def _compile_all() -> list[re.Pattern[str]]:
    return [re.compile(p, f) for p, f in PATTERNS]


def test_round_trip_gives_patterns_that_match_the_same(tmp_path: Path, fresh: None) -> None:
    path = tmp_path / "regexes.cache"
    originals = _compile_all()
    assert regex_cache.save(path)
    re.purge()
    assert regex_cache.preload(path) >= len(PATTERNS)
    kept = _compile_all()
    for original, again in zip(originals, kept, strict=True):
        assert again is not original  # read back from the file, not left over in the process
        assert (again.pattern, again.flags, again.groupindex) == (original.pattern, original.flags, original.groupindex)
        for text in SAMPLES:
            a, b = original.search(text), again.search(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))


def test_nothing_new_is_not_written_again(tmp_path: Path, fresh: None) -> None:
    path = tmp_path / "regexes.cache"
    _compile_all()
    assert regex_cache.save(path)
    re.purge()
    regex_cache.preload(path)
    _compile_all()
    assert not regex_cache.save(path)  # every pattern came from the file
    re.compile(r"a pattern the file lacks \d+")
    assert regex_cache.save(path)


@pytest.mark.parametrize("damage", ["body", "header", "digest", "truncated", "missing"])
def test_a_damaged_or_foreign_file_is_ignored(tmp_path: Path, fresh: None, damage: str) -> None:
    path = tmp_path / "regexes.cache"
    _compile_all()
    assert regex_cache.save(path)
    raw = path.read_bytes()
    header, digest, body = raw.split(b"\n", 2)
    if damage == "body":
        path.write_bytes(header + b"\n" + digest + b"\n" + body[:-5] + bytes(5))
    elif damage == "header":
        path.write_bytes(header.replace(b"regexes 2", b"regexes 0") + b"\n" + digest + b"\n" + body)
    elif damage == "digest":
        path.write_bytes(header + b"\n" + b"0" * 64 + b"\n" + body)
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    else:
        path.unlink()
    re.purge()
    assert regex_cache.preload(path) == 0
    assert [p.search("70B") is not None for p in _compile_all()] == [True, False, False]


def test_engine_code_that_fails_its_check_is_refused(tmp_path: Path, fresh: None) -> None:
    """A file whose checksum matches but whose engine code is wrong (written by another build, say)
    is refused by the engine's own check, and nothing is loaded."""
    import hashlib
    import pickle

    key = (str, "abc", 0)
    body = pickle.dumps(([(key, ("abc", 32, [0, 1, 2], 0, {}, (None,)))], []))
    path = tmp_path / "regexes.cache"
    path.write_bytes(regex_cache._header() + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    assert regex_cache.preload(path) == 0
    assert re.compile("abc").match("abc")


def test_no_path_or_no_parser_writes_nothing(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _compile_all()
    assert not regex_cache.save(None)
    assert regex_cache.preload(None) == 0
    import sys

    monkeypatch.delitem(sys.modules, "parser.parsing")
    assert not regex_cache.save(tmp_path / "regexes.cache")
    assert not (tmp_path / "regexes.cache").exists()


def test_more_patterns_than_kept_do_not_rewrite_the_file_every_run(tmp_path: Path, fresh: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A run compiling more patterns than the file keeps wrote the file again on every start (the ones left out were
    new each time), ~100 ms of a cold start: the file names the ones it leaves out."""
    monkeypatch.setattr(regex_cache, "_MAX_KEPT", 2)
    path = tmp_path / "regexes.cache"
    _compile_all()  # three patterns, two kept
    assert regex_cache.save(path)
    re.purge()
    monkeypatch.setattr(regex_cache, "_loaded", set())
    assert regex_cache.preload(path) == 2
    _compile_all()  # the third is compiled as usual
    assert not regex_cache.save(path)
