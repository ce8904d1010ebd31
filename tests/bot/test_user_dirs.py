"""Default paths for thread state and caches: the XDG Base Directory rules on Linux, as platformdirs
gives them for an app with no author (the paths existing installs already use)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import user_dirs


@pytest.fixture
def linux(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(user_dirs.sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return tmp_path


def test_defaults_under_the_home_directory(linux: Path) -> None:
    assert user_dirs.user_data_dir() == linux / ".local" / "share" / "gpu-advisor"
    assert user_dirs.user_cache_dir() == linux / ".cache" / "gpu-advisor"


def test_xdg_variables_move_them(linux: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert user_dirs.user_data_dir() == tmp_path / "data" / "gpu-advisor"
    assert user_dirs.user_cache_dir() == tmp_path / "cache" / "gpu-advisor"


def test_a_relative_or_empty_xdg_path_is_ignored_as_the_specification_says(linux: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    monkeypatch.setenv("XDG_CACHE_HOME", "  ")
    assert user_dirs.user_data_dir() == linux / ".local" / "share" / "gpu-advisor"
    assert user_dirs.user_cache_dir() == linux / ".cache" / "gpu-advisor"


def test_macos_and_windows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(user_dirs.sys, "platform", "darwin")
    assert user_dirs.user_data_dir() == tmp_path / "Library" / "Application Support" / "gpu-advisor"
    assert user_dirs.user_cache_dir() == tmp_path / "Library" / "Caches" / "gpu-advisor"
    monkeypatch.setattr(user_dirs.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert user_dirs.user_data_dir() == tmp_path / "Local" / "gpu-advisor"
    assert user_dirs.user_cache_dir() == tmp_path / "Local" / "gpu-advisor" / "Cache"
