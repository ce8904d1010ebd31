"""`parse(text, resolver) -> Reading`: normalize, run the LALR grammar, fold the phrases.

The grammar is built once per process, on first use, or read back ready-made from a cache file the
bot names (`use_grammar_cache`).
`parse` never raises: the grammar accepts any normalized text by construction, and if Lark
still objects (a grammar bug) the message is read as filler only, with a note saying so.
"""

from __future__ import annotations

import contextlib
import logging
import re
from pathlib import Path
from typing import Any

from lark import Lark
from lark.exceptions import LarkError

from .api_names import take_api, with_api
from .asides import take_asides
from .completion import with_completion_load
from .corrections import correction_note, take_correction
from .distill import distill_ask
from .fleet import with_fleet
from .latency_waiver import with_latency_waived
from .managed import take_managed, with_managed
from .names import glue_names
from .network import take_network, with_network
from .normalize import normalize
from .offline_jobs import with_offline
from .padding import with_padding
from .percentiles import with_ttft_percentile
from .providers_only import with_providers
from .reading import NameResolver, Reading
from .regions import take_regions
from .reserve import reserve_reading
from .residency import take_places, with_residency
from .rl_phrases import rl_reading
from .storage import mark_link_rates, name_destination
from .think_time import with_think_time
from .transformer import MessageTransformer
from .vendors import with_vendor

log = logging.getLogger(__name__)

_GRAMMAR: Lark | None = None
_CACHE_FILE: str | None = None
_OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": False}
_CACHE_FORMAT = "gpu-advisor ready parser 2"  # bump when what is pickled changes
_LOADED_FROM_CACHE = False  # whether the current parser was read back from the cache file (tests, benchmarks)


def use_grammar_cache(path: str | None) -> None:
    """Let the caller (the bot/CLI, which owns files) name a file that keeps the parser ready to use:
    the LALR tables and lexers as built, so a cold start reads them back (~5 ms) instead of building
    them (~80 ms) or loading Lark's own cache (~13 ms, spent rebuilding ~10,000 table entries one by
    one); the lexer's scanner comes back compiled, which saves the ~8 ms of compiling its regular
    expression on the first message (`pattern_parts`). The file is keyed on the grammar, the Lark
    and Python versions and the options, so any change rebuilds it. Without a call the parser touches no file."""
    global _CACHE_FILE, _GRAMMAR
    if path != _CACHE_FILE:
        _CACHE_FILE, _GRAMMAR = path, None


def grammar() -> Lark:
    """The compiled grammar, built on first use (read back from the cache file when one was configured)."""
    global _GRAMMAR, _LOADED_FROM_CACHE
    if _GRAMMAR is None:
        source = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")
        key = _cache_key(source)
        ready = _read_ready(_CACHE_FILE, key) if _CACHE_FILE else None
        _LOADED_FROM_CACHE = ready is not None
        if ready is None:
            ready = Lark(source, **_OPTIONS)
            _share_lexers(ready)
            if _CACHE_FILE:
                _build_scanners(ready)  # kept compiled in the file, not compiled again by each process
                _write_ready(_CACHE_FILE, key, ready)
        _GRAMMAR = ready
    return _GRAMMAR


def _cache_key(source: str) -> bytes:
    import hashlib
    import sys

    import lark

    text = "\n".join([_CACHE_FORMAT, lark.__version__, sys.version, repr(sorted(_OPTIONS.items())), source])
    return hashlib.sha256(text.encode()).hexdigest().encode()


def _read_ready(path: str, key: bytes) -> Lark | None:
    """The parser kept in `path` if it was written for this grammar and these versions, else None. An
    unreadable, stale or corrupt file is never an error: the parser is built again."""
    import pickle

    try:
        with open(path, "rb") as f:
            if f.readline().rstrip(b"\n") != key:
                return None
            ready = pickle.load(f)
    except Exception:  # noqa: BLE001 - a missing or damaged cache only costs the build
        return None
    return ready if isinstance(ready, Lark) else None


def _write_ready(path: str, key: bytes, ready: Lark) -> None:
    """Pickle the built parser next to its key (written to a temporary file and renamed, so a reader
    never sees half a file). Three kinds of object are pickled by what they are rather than field by
    field: modules (the lexer keeps `re`) by name; Lark's Shift and Reduce markers by reference, since
    the parser tells actions apart by identity (`action is Shift`); and grammar rules by their
    constructor, since a rule keeps its hash and string hashes differ from process to process."""
    import importlib
    import os
    import pickle
    import tempfile
    import types

    from lark.grammar import Rule
    from lark.parsers import lalr_analysis

    markers = {id(lalr_analysis.Shift): "Shift", id(lalr_analysis.Reduce): "Reduce"}

    class ReadyPickler(pickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, types.ModuleType):
                return importlib.import_module, (obj.__name__,)
            if isinstance(obj, re.Pattern):
                parts = pattern_parts(obj)
                return (ready_pattern, parts) if parts is not None else NotImplemented
            if id(obj) in markers:
                return getattr, (lalr_analysis, markers[id(obj)])
            if type(obj) is Rule:
                return Rule, (obj.origin, obj.expansion, obj.order, obj.alias, obj.options)
            return NotImplemented

    try:
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".grammar-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key + b"\n")
                ReadyPickler(f, protocol=pickle.HIGHEST_PROTOCOL).dump(ready)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception as exc:  # noqa: BLE001 - an unwritable cache only costs the next start its build
        log.debug("grammar cache %s not written: %s", path, exc)


def _build_scanners(lark: Lark) -> None:
    """Compile each lexer's scanner now, so the cache file keeps it compiled (Lark builds it on first use)."""
    contextual: Any = getattr(lark.parser, "lexer", None)
    lexers = getattr(contextual, "lexers", None)
    if not isinstance(lexers, dict):
        return
    for lexer in {id(lx): lx for lx in [*lexers.values(), getattr(contextual, "root_lexer", None)] if lx is not None}.values():
        with contextlib.suppress(Exception):  # a lexer Lark did not build this way is compiled on first use, as before
            lexer.scanner  # noqa: B018 - the property builds and keeps the scanner


def pattern_parts(pattern: re.Pattern[Any]) -> tuple[Any, ...] | None:
    """What CPython's regular-expression compiler hands its C engine for `pattern` (the steps of
    `re._compiler.compile`): the scanner's one large expression, kept in this form, is rebuilt in
    0.2 ms instead of parsed and compiled again in 8 ms. Internal to CPython, hence the cache key's
    Python version and the check that the rebuilt pattern is the same; None keeps the plain pickle."""
    try:
        import _sre
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern.pattern, pattern.flags)
        code = [int(op) for op in _compiler._code(parsed, pattern.flags)]
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        parts = (pattern.pattern, pattern.flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex,
                 tuple(indexgroup))
        rebuilt = _sre.compile(*parts)
    except Exception:  # noqa: BLE001 - another Python's internals: the pattern is pickled as usual
        return None
    same = (rebuilt.pattern, rebuilt.flags, rebuilt.groups, rebuilt.groupindex) == (
        pattern.pattern, pattern.flags, pattern.groups, pattern.groupindex)
    return parts if same else None


def ready_pattern(pattern: str, flags: int, *rest: Any) -> re.Pattern[Any]:
    """A pattern kept by `pattern_parts`, rebuilt without compiling; compiled from its text if that fails."""
    try:
        import _sre

        ready: re.Pattern[Any] = _sre.compile(pattern, flags, *rest)
        return ready
    except Exception:  # noqa: BLE001 - compiling is always possible, only slower
        return re.compile(pattern, flags)


def _share_lexers(lark: Lark) -> None:
    """Point the parser states whose lexers match the same terminals at one lexer. Lark keys a state's
    lexer on the parser's accepted terminals before the ignored ones are added, so states that lex
    identically still get separate lexers, each compiling its own scanner (one large regular
    expression, ~8 ms of a cold start) the first time it is used."""
    contextual: Any = getattr(lark.parser, "lexer", None)
    lexers = getattr(contextual, "lexers", None)
    if contextual is None or not isinstance(lexers, dict):
        return
    shared: dict[tuple[str, ...], Any] = {}
    for state, lexer in lexers.items():
        lexers[state] = shared.setdefault(tuple(t.name for t in lexer.terminals), lexer)
    root = getattr(contextual, "root_lexer", None)
    if root is not None:
        contextual.root_lexer = shared.get(tuple(t.name for t in root.terminals), root)

FALLBACK_NOTE = "I could not read that message as a whole; I only looked for a few keywords."


def parse(
    text: str,
    resolver: NameResolver | None = None,
    *,
    current: Any = None,
    them: str | None = None,
) -> Reading:
    """Read one message. `current` (a Workload, optional) lets "batch 16" mean concurrency when
    serving, and "50 qps" become tokens/s with the thread's response length. `them` says what "N of them" counts
    in the thread ("users", "unclear"; None: GPUs), see `hardware._count_of_them`."""
    current_mode = getattr(current, "mode", None)
    current_output_tokens = getattr(current, "output_tokens", None)
    normalized = ""
    api: str | None = None
    text, dropped = take_correction(text if isinstance(text, str) else str(text))  # "X... no, Y": Y
    try:
        normalized = normalize(text)
        normalized = mark_link_rates(normalized, text)  # "at 1 GB/s": a link's rate, not a 1 GB volume
        normalized, asides = take_asides(normalized)  # "1024x1024 images", "100 LoRA adapters": no GPU counts
        normalized, places, residency = take_places(normalized)  # "data can't leave germany", "GDPR": where it may be
        normalized, regions = take_regions(normalized)  # "in eu-west-1", "in Europe": where, not a name or "us"
        regions = tuple(dict.fromkeys((*places, *regions)))
        normalized, api = take_api(normalized, resolver)  # "vs gpt-4o-mini api": a hosted API, no model to size
        # "sagemaker vs ec2", "vertex ai", "bedrock custom model import for our fine-tuned …": a cloud's managed service
        normalized, managed = take_managed(normalized, getattr(resolver, "resolve_provider", None))
        normalized, found = glue_names(normalized, resolver)  # "mistral large 2" -> "mistral-large-2"
        networked, normalized = normalized, take_network(normalized)  # "8x400g ib": a network, not 8 GPUs
        tree = grammar().parse(normalized)
        reading = MessageTransformer(resolver, current_mode, current_output_tokens, them).transform(tree)
        reading = rl_reading(asides.apply(found.apply(reading.model_copy(update={"text": normalized})), current_mode), current)
        if reading.storage is not None and resolver is not None:  # "… from S3 to Lambda": the destination's name
            reading = reading.model_copy(update={"storage": name_destination(reading.storage, normalized,
                                                                             resolver.resolve_provider)})
        distilled = distill_ask(normalized, reading.updates, resolver, reading.conflicts)
        if distilled is not None:  # two stages: the student's name is not an unknown model, nor a second model
            said = distilled.student_said
            reading = reading.model_copy(update={
                "distill": distilled, "updates": {"model": distilled.teacher, **reading.updates},
                "conflicts": tuple(c for c in reading.conflicts if c.field != "model"),
                "unknown_names": tuple(p for p in reading.unknown_names if not (said and said in p.message))})
        reading = with_offline(reading, normalized, resolver)  # n samples + a reward pass, an eval suite, chinchilla
        reading = with_vendor(reading, normalized)
        if resolver is not None:  # "aws only", "an AWS shop", "only aws or gcp": where it may run
            reading = with_providers(reading, normalized, resolver.resolve_provider)
        reading = with_latency_waived(reading, normalized, current_mode)  # "no latency requirement": throughput
        reading = with_ttft_percentile(reading, normalized, current)  # "ttft < 1 s at p99", "make it p99"
        reading = with_fleet(reading, normalized, current_mode)  # "our slurm cluster", "500 A100s for 2 hours"
        reading = with_think_time(reading, normalized, current)  # "users pause 60 s between questions", "no pause"
        reading = with_padding(reading, normalized, current_mode)  # "we pad to 4096": examples x the padded length
        reading = with_network(reading, networked, current)  # "we only have 100GbE between nodes", "8x400G IB"
        reading = reserve_reading(reading, normalized)  # "reserve … or on-demand": a comparison, not a pricing
        reading = with_completion_load(reading, normalized, current_mode)  # "autocomplete for 40 devs": a rate
        reading = with_api(reading, api)
        reading = with_managed(reading, managed)
        if dropped:
            reading = reading.model_copy(update={"notes": (correction_note(dropped), *reading.notes)})
        return with_residency(reading, regions, residency)
    except LarkError as error:  # includes VisitError from a transformer method
        log.warning("parser fallback for %r: %s", normalized[:200], error)
        return Reading(text=normalized, intent="gibberish", notes=(FALLBACK_NOTE,), api=api)
