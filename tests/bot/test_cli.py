"""The scripting interface (docs/json.md) from the outside: commands, exit codes, stdout."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_WORKLOAD = {"mode", "model", "params_b", "precision", "dataset_gb", "dataset_tokens", "epochs",
                     "runs_per_month", "data_location", "gpu", "gpu_count", "seq_len", "batch_size", "concurrency",
                     "hourly_rate", "optimizer", "gradient_checkpointing", "lora_rank", "zero_stage", "mfu"}


def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ, **(env or {}))
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        if env is None or name not in env:
            full_env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True, env=full_env, timeout=60)


def _subparsers(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{prefix}{name}", helps.get(name), sub
                yield from _subparsers(sub, f"{prefix}{name} ")


def test_every_command_has_help_text() -> None:
    commands = list(_subparsers(build_parser()))
    assert {"ask", "estimate", "chat", "serve", "vram", "catalog", "catalog build", "catalog gpus",
            "catalog offers", "catalog models", "catalog import-model", "catalog import-skypilot"} <= {c[0] for c in commands}
    for name, help_text, sub in commands:
        assert help_text, f"`gpu-advisor {name}` has no help text"
        assert sub.description, f"`gpu-advisor {name}` has no description"
        for action in sub._actions:
            if not isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                assert action.help, f"`gpu-advisor {name}` option {action.dest} has no help"


def test_ask_json_prints_only_the_contract_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "QLoRA 70B, 500GB corpus in S3, 20 runs"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"workload", "missing", "questions", "assumptions", "report"}
    assert set(data["workload"]) >= CONTRACT_WORKLOAD
    assert data["workload"]["mode"] == "qlora"


def test_ask_gibberish_is_an_answer_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "purple monkey dishwasher"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["questions"] and data["report"]["memory"] is None


def test_ask_renders_for_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "QLoRA", "70B,", "500GB", "corpus", "in", "S3,", "20", "runs"]) == 0
    out = capsys.readouterr().out
    assert "Plan:" in out and "Cost:" in out and "Compared" in out and "<" not in out
    assert "Memory per GPU" not in out and len(out.splitlines()) <= 25  # the summary; the rest is --details


def test_ask_details_adds_the_breakdowns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--details", "QLoRA 70B, 500GB corpus in S3, 20 runs"]) == 0
    out = capsys.readouterr().out
    for part in ("Plan:", "Memory per GPU", "Every assumption", "All options", "compute", "How these numbers"):
        assert part in out, part


def test_vram_is_the_terminal_twin_of_slash_vram(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vram", "70B", "qlora"]) == 0
    assert "GB" in capsys.readouterr().out


def estimate(payload: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["estimate", "--json"], stdin=io.StringIO(payload))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_estimate_resolves_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = estimate(json.dumps({"mode": "qlora", "model": "llama 3 70b", "gpu": "A100 80GB",
                                        "dataset_tokens": 1_000_000_000}), capsys)
    assert code == 0
    workload = json.loads(out)["workload"]
    assert workload["model"] == "llama-3-70b" and workload["gpu"] == "a100-sxm-80gb"


def test_estimate_unknown_model_with_params_is_generic(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = estimate(json.dumps({"mode": "inference", "model": "my-private-model", "params_b": 13}), capsys)
    assert code == 0
    data = json.loads(out)
    assert data["workload"]["params_b"] == 13 and data["report"]["memory"] is not None


@pytest.mark.parametrize(("payload", "message"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    (json.dumps({"mode": "qlora", "params_b": "seventy"}), "params_b"),
    (json.dumps({"mode": "sing"}), "mode"),
    (json.dumps({"mode": "qlora", "colour": "blue"}), "colour"),
    (json.dumps({"mode": "qlora", "model": "no-such-model-xyz"}), "model"),
])
def test_estimate_invalid_input_is_a_clear_usage_error(payload: str, message: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = estimate(payload, capsys)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_chat_over_piped_stdin() -> None:
    """Questions, a bare answer, refinements and undo, as a user would type them."""
    script = "QLoRA 70B, 500GB corpus in S3, 20 runs\n1B\nwhat about 40 runs?\ntry A100s\nundo\nquit\n"
    result = run("chat", stdin=script)
    assert result.returncode == 0, result.stderr
    turns = result.stdout.split("\n> ")
    assert len(turns) == 5
    first, bare, runs, a100, undo = turns
    assert "Still open" in first and "tokens" in first  # the follow-up question
    assert "What changed" in bare and "dataset tokens" in bare  # "1B" answered the tokens question
    assert "runs per month 20 -> 40" in runs
    assert "A100" in a100.splitlines()[1]
    assert "GPU A100 SXM4 80GB -> any" in undo and "A100" not in undo.splitlines()[1]  # names, as the answer says them


@pytest.mark.parametrize(("env", "variable"), [
    ({}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xapp-wrong-kind"}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-not-app"}, "SLACK_APP_TOKEN"),
])
def test_serve_with_a_missing_or_wrong_token_is_one_line(env: dict[str, str], variable: str) -> None:
    result = run("serve", "--port", "0", env=env)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0] and "Traceback" not in result.stderr


def test_serve_with_a_rejected_token_is_one_line(fake_slack) -> None:
    result = run("serve", "--port", "0", env={"SLACK_BOT_TOKEN": "xoxb-bad", "SLACK_SIGNING_SECRET": "s",
                                              "SLACK_API_URL": fake_slack.api_url})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "SLACK_BOT_TOKEN" in lines[0] and "invalid_auth" in lines[0]
    assert "xoxb-bad" not in result.stderr


def test_catalog_listings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "gpus", "--json"]) == 0
    gpus = json.loads(capsys.readouterr().out)
    assert any(g["id"] == "h100-sxm" for g in gpus)
    assert main(["catalog", "models"]) == 0
    assert "llama-3-70b" in capsys.readouterr().out


def test_catalog_import_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GPU_ADVISOR_CATALOG_DIR", str(tmp_path / "catalog"))
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert main(["catalog", "import-model", str(tmp_path / "config.json"), "--name", "My Llama 7B"]) == 0
    assert "my-llama-7b" in capsys.readouterr().out
    assert main(["catalog", "models", "--json"]) == 0
    assert any(m["id"] == "my-llama-7b" for m in json.loads(capsys.readouterr().out))


def test_catalog_import_model_bad_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "import-model", str(tmp_path / "missing.json"), "--name", "X"]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["ask", "--json", "QLoRA 70B"], ["ask", "--details", "serve", "8B"], ["estimate", "--json"], ["chat"],
    ["vram", "70B", "qlora"], ["serve", "--port", "0", "--workers", "2"], ["catalog", "gpus", "--json"],
    ["catalog", "refresh", "--provider", "aws", "--timeout", "5"], ["catalog", "lookup", "Qwen/Qwen3-32B"],
])
def test_a_parser_built_for_one_command_reads_it_as_the_whole_parser_does(argv: list[str]) -> None:
    def read(parser: argparse.ArgumentParser) -> dict[str, object]:
        args = vars(parser.parse_args(argv))
        run = args.pop("run")  # a listing's function is made per parser: compare what it is made of
        return {**args, "run": (run.__qualname__, [c.cell_contents for c in run.__closure__ or ()])}

    assert read(build_parser(argv[0])) == read(build_parser())


@pytest.mark.parametrize("argv", [["ask", "--help"], ["ask"], ["vram"], ["catalog", "--help"], ["serve", "--port", "x"]])
def test_help_and_usage_errors_of_a_command_read_the_same_from_its_own_parser(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    said = []
    for parser in (build_parser(argv[0]), build_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        said.append(capsys.readouterr())
    assert said[0] == said[1]
    assert said[0].out or said[0].err


def test_an_unknown_command_lists_every_command() -> None:
    done = run("frobnicate")
    assert done.returncode == 2
    assert "invalid choice: 'frobnicate'" in done.stderr
    assert all(name in done.stderr for name in ("ask", "estimate", "chat", "vram", "serve", "catalog"))
