"""Regular expressions kept compiled between runs of the CLI.

Why: a cold `gpu-advisor ask` compiles ~185 regular expressions (the parser's phrase tables, the
catalog's name normalisation, and those pydantic, Lark and jinja2 build as they import), about
19 ms of a ~185 ms start. CPython spends that time parsing each pattern and generating the code its
C engine runs; handing the engine code kept from an earlier run takes a few microseconds a pattern.

How: after a one-shot command, the patterns in `re`'s own cache are written next to the catalog
database, each as the arguments CPython's compiler hands `_sre.compile` (`parser.parsing.pattern_parts`,
which checks that the rebuilt pattern is the same). The next start puts them back in `re`'s cache
before anything is imported, so each module's `re.compile(...)` finds its pattern there. The file is
keyed on the exact Python build (the engine's code is CPython-internal) and a checksum of its body;
a pattern the file lacks (new code) is compiled as usual and the file rewritten. Anything unexpected
(another Python, a damaged file, an `re` without a dict cache) leaves `re` to compile normally.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path
from typing import Any

_FORMAT = b"gpu-advisor compiled regexes 2"
_MAX_KEPT = 480  # below re's own cache size (512), which drops its oldest entries past it
_loaded: set[tuple[Any, ...]] = set()


def _header() -> bytes:
    import _sre

    return b" ".join([_FORMAT, sys.version.encode(), str(getattr(_sre, "MAGIC", "")).encode()])


def default_path() -> Path | None:
    """Where `bot.config.Config` puts the catalog cache, read without importing it (so the start-up's first imports,
    argparse, json and logging among them, find their patterns too): beside GPU_ADVISOR_CATALOG_DB, else in the
    user cache directory."""
    try:
        from bot.user_dirs import user_cache_dir

        catalog = os.environ.get("GPU_ADVISOR_CATALOG_DB", "").strip()
        return (Path(catalog).expanduser() if catalog else user_cache_dir() / "catalog.db").with_name("regexes.cache")
    except Exception:  # noqa: BLE001 - no home directory: compiled as usual
        return None


def preload(path: Path | None) -> int:
    """Put the patterns kept in `path` into `re`'s cache; returns how many (0 when the file is
    missing, stale or unreadable). Call before the modules that compile them are imported."""
    cache = getattr(re, "_cache", None)
    if path is None or not isinstance(cache, dict):
        return 0
    try:
        import _sre
        import hashlib
        import pickle

        with open(path, "rb") as f:
            if f.readline().rstrip(b"\n") != _header():
                return 0
            digest = f.readline().rstrip(b"\n")
            body = f.read()
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return 0
        entries, left_out = pickle.loads(body)
        ready = {key: _sre.compile(*parts) for key, parts in entries}  # the engine checks the code it is given
    except Exception:  # noqa: BLE001 - a missing or damaged file only costs compiling as usual
        return 0
    for key, pattern in ready.items():
        cache.setdefault(key, pattern)
    # the patterns past _MAX_KEPT that the file names but does not hold: compiled as usual, and not a reason to
    # write the file again (every run would otherwise rewrite it, ~100 ms)
    _loaded.update(ready, left_out)
    return len(ready)


def save(path: Path | None) -> bool:
    """Write `re`'s cached patterns to `path` if this process compiled any the file lacked; True if
    written. Written to a temporary file and renamed, so a reader never sees half a file."""
    cache = getattr(re, "_cache", None)
    if path is None or not isinstance(cache, dict) or "parser.parsing" not in sys.modules:
        return False  # a command that read no message (`--help`, `catalog gpus`) compiles little worth keeping
    keys = [k for k in list(cache) if isinstance(k, tuple) and len(k) == 3 and k[0] is str
            and isinstance(k[2], int) and not k[2] & re.DEBUG]
    if not keys or set(keys) <= _loaded:
        return False
    try:
        import hashlib
        import pickle
        import tempfile

        from parser.parsing import pattern_parts

        entries = []
        for key in keys[-_MAX_KEPT:]:  # the newest: what this code compiles
            parts = pattern_parts(cache[key])
            if parts is not None:
                entries.append((key, parts))
        left_out = keys[:-_MAX_KEPT] if len(keys) > _MAX_KEPT else []
        body = pickle.dumps((entries, left_out), protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".regexes-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_header() + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # noqa: BLE001 - an unwritable cache only costs the next start its compiles
        return False
    _loaded.update(key for key, _ in entries)
    _loaded.update(left_out)
    return True
