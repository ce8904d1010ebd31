"""The collector settings: a one-shot command runs without cyclic collection and gives it back; a
server freezes what it built and collects young objects less often."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from bot import gc_settings


def test_one_shot_turns_collection_off_and_restores_it() -> None:
    assert gc.isenabled()
    with gc_settings.one_shot():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_settings.one_shot():
        raise RuntimeError("a failing command")
    assert gc.isenabled()


def test_serving_freezes_what_exists_and_raises_the_young_threshold() -> None:
    code = ("import gc; from bot import gc_settings; before = gc.get_freeze_count(); gc_settings.serving();"
            " print(gc.get_freeze_count() > before, gc.get_threshold())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"True {gc_settings.SERVING_THRESHOLDS}"


def test_one_shot_leaves_collection_off_when_the_process_ends_with_the_command() -> None:
    """Re-enabling would make the next allocation collect everything the command built, just before exit."""
    assert gc.isenabled()
    try:
        with gc_settings.one_shot(exiting=True):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
