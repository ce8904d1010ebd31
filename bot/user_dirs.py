"""Where the app keeps per-user files when no setting names a path: thread state under the user's
data directory, derived caches (the catalog database, compiled templates and grammar) under the
user's cache directory.

Why not platformdirs: it was the one dependency for these two paths, and importing it (it pulls in
`tempfile`, `shutil`, `random`, `bz2` and `lzma`) cost ~5 ms of every `gpu-advisor` start. These are
the same paths platformdirs gives for an app name with no author: the XDG Base Directory variables
on Linux and other Unixes, `~/Library` on macOS, `%LOCALAPPDATA%` on Windows.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "gpu-advisor"


def _xdg(variable: str, fallback: str) -> Path:
    """An XDG base directory: the variable when it holds an absolute path (the specification says
    a relative one is invalid and must be ignored), else the default under the home directory."""
    value = os.environ.get(variable, "").strip()
    return Path(value) if value and os.path.isabs(value) else Path.home() / fallback


def _windows_local_app_data() -> Path:
    value = os.environ.get("LOCALAPPDATA", "").strip()
    return Path(value) if value else Path.home() / "AppData" / "Local"


def user_data_dir(app: str = APP) -> Path:
    """Files the user would miss if deleted (thread state)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / app
    if sys.platform == "win32":
        return _windows_local_app_data() / app
    return _xdg("XDG_DATA_HOME", ".local/share") / app


def user_cache_dir(app: str = APP) -> Path:
    """Files rebuilt from the package when missing (derived data)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / app
    if sys.platform == "win32":
        return _windows_local_app_data() / app / "Cache"
    return _xdg("XDG_CACHE_HOME", ".cache") / app
