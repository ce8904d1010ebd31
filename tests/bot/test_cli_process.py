"""`gpu-advisor` as its own process: a one-shot command leaves without the interpreter's teardown
(`bot.cli._leave`), so everything it wrote must be flushed first and its exit code kept; and the
stand-in for pydantic's plugin loader must change nothing but the start-up time."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "QLoRA 70B, 500GB corpus in S3, 20 runs"


def _env(tmp_path: Path) -> dict[str, str]:
    # PYTHONUNBUFFERED (set on some CI machines) would write through and hide a missing flush
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PYDANTIC_", "PYTHONUNBUFFERED"))}
    env.update(GPU_ADVISOR_DB=str(tmp_path / "threads.db"), GPU_ADVISOR_CATALOG_DIR=str(tmp_path / "extra"),
               GPU_ADVISOR_HUB="0", XDG_CACHE_HOME=str(tmp_path / "cache"))
    return env


def _process(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
                          env=_env(tmp_path), timeout=120)


@pytest.mark.parametrize("args", [
    ("vram", "70B", "qlora"),  # a few hundred bytes: they sit in Python's buffer until flushed
    ("ask", "--details", QUESTION),  # every layer of an answer, over the buffer's size
])
def test_the_whole_answer_reaches_a_pipe_before_the_process_leaves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  args: tuple[str, ...]) -> None:
    """Written to a pipe, not a terminal: the process must print exactly what `main` prints in process."""
    done = _process(tmp_path, *args)
    for name, value in _env(tmp_path).items():
        if name.startswith(("GPU_ADVISOR_", "XDG_")):
            monkeypatch.setenv(name, value)
    assert done.returncode == 0, done.stderr
    in_process = io.StringIO()
    assert main(list(args), stdout=in_process) == 0
    assert done.stdout == in_process.getvalue()
    assert len(done.stdout) > 100


def test_json_output_is_complete_and_parses(tmp_path: Path) -> None:
    done = _process(tmp_path, "ask", "--json", QUESTION)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["workload"]["mode"] == "qlora"


@pytest.mark.parametrize(("args", "stdin", "code", "said"), [
    (("estimate",), "not json", 2, "gpu-advisor estimate: stdin is not valid JSON"),
    (("ask",), "", 2, "the following arguments are required: text"),
])
def test_exit_codes_and_error_lines_survive_the_early_exit(tmp_path: Path, args: tuple[str, ...], stdin: str,
                                                          code: int, said: str) -> None:
    done = _process(tmp_path, *args, stdin=stdin)
    assert done.returncode == code
    assert said in done.stderr
    assert done.stdout == ""


PLUGIN_PROBE = (
    "import sys, bot.cli, pydantic\n"
    "class M(pydantic.BaseModel):\n    x: int\n"
    "assert M(x='3').x == 3\n"
    "loader = sys.modules['pydantic.plugin._loader']\n"
    "print(hasattr(loader, 'entry_points'), 'importlib.metadata' in sys.modules, list(loader.get_plugins()))\n"
)


@pytest.mark.parametrize(("setting", "expected"), [
    (None, "False False []"),  # the CLI disables every plugin: the stand-in loader, importlib.metadata never imported
    ("__all__", "False False []"),
    ("some-plugin", "True True []"),  # a caller who disables only some plugins gets pydantic's own loader
])
def test_pydantic_plugin_loader_stand_in(tmp_path: Path, setting: str | None, expected: str) -> None:
    env = _env(tmp_path)
    if setting is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = setting
    done = subprocess.run([sys.executable, "-c", PLUGIN_PROBE], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_a_second_start_reads_its_regexes_back_and_answers_the_same(tmp_path: Path) -> None:
    """The first `ask` keeps its compiled regular expressions beside the catalog cache
    (`bot.regex_cache`); the second puts them back before importing and prints the same answer, and,
    having compiled nothing new, leaves the file as it was."""
    first = _process(tmp_path, "ask", QUESTION)
    kept = tmp_path / "cache" / "gpu-advisor" / "regexes.cache"
    assert first.returncode == 0, first.stderr
    assert kept.is_file()
    second = _process(tmp_path, "ask", QUESTION)
    third = _process(tmp_path, "ask", QUESTION)
    assert second.returncode == 0, second.stderr
    assert first.stdout == second.stdout == third.stdout
    written = kept.stat().st_mtime_ns
    assert _process(tmp_path, "ask", QUESTION).stdout == first.stdout
    assert kept.stat().st_mtime_ns == written
