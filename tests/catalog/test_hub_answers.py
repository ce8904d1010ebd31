"""Hub lookups and refreshed prices in real answers: `gpu-advisor ask --json` / `catalog lookup` /
`catalog refresh` with HF_ENDPOINT and the catalog URL pointed at fake servers on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.hub_names import HubResolver
from bot.price_refresh import RefreshSchedule, price_age_line
from bot.service import Advisor
from catalog import open_catalog
from catalog.hub import HubCache, HubClient, HubSettings
from parser.normalize import normalize
from parser.repo_ids import repo_ids_in
from tests.catalog.fake_hub import FakeHub, FakeRepo, safetensors_header
from tests.catalog.test_refresh import CatalogServer, aws_changed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hub"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    fake = FakeHub()
    fake.add(FakeRepo("acme-ai/Acme-MoE-30B-A3B", json.loads((FIXTURES / "qwen3_30b_a3b_config.json").read_text()),
                      {"model.safetensors": safetensors_header({"w": ("BF16", [30_532_122_624])})}))
    fake.add(FakeRepo("openai/gpt-oss-20b", json.loads((FIXTURES / "gpt_oss_20b_config.json").read_text()),
                      {"model.safetensors": safetensors_header({"w": ("U8", [12_000_000_000])})}))
    # a gated repo the catalog has no row for (the catalog's own Llama 3.3 row answers its repo id offline)
    fake.add(FakeRepo("acme-research/Acme-Chat-70B",
                      json.loads((FIXTURES / "llama_3_3_70b_instruct_config.json").read_text()), gated=True))
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def env(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_ADVISOR_HUB", "1")
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("GPU_ADVISOR_CATALOG_DB", str(tmp_path / "catalog.db"))
    monkeypatch.setenv("GPU_ADVISOR_CATALOG_DIR", str(tmp_path / "imported"))
    monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "threads.db"))
    return tmp_path


def ask(capsys: pytest.CaptureFixture[str], text: str) -> dict:
    assert main(["ask", "--json", text]) == 0
    return json.loads(capsys.readouterr().out)


def test_repo_id_is_sized_from_the_hub_then_from_the_cache(env: Path, hub: FakeHub,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = ask(capsys, "LoRA acme-ai/Acme-MoE-30B-A3B on 100M tokens")
    assert data["workload"]["model"] == "acme-ai/acme-moe-30b-a3b"
    assert data["report"]["memory"] is not None
    assert any("acme-ai/Acme-MoE-30B-A3B read from the Hugging Face Hub" in n and "30.532B parameters" in n
               for n in data["notes"]), data["notes"]
    sent = len(hub.requests)
    again = ask(capsys, "serve acme-ai/acme-moe-30b-a3b")  # another process would read the same cache file
    assert again["workload"]["model"] == "acme-ai/acme-moe-30b-a3b"
    assert len(hub.requests) == sent


def test_pasted_slack_link_is_read_as_its_repo(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ask(capsys, "serve <https://huggingface.co/openai/gpt-oss-20b|openai/gpt-oss-20b> on a 4090")
    # the bundled catalog has this repo (its row's hf_repo): the link is read as the repo, and the row answers
    assert data["workload"]["model"] == "gpt-oss-20b"
    # served in its released 4-bit format, as the row says
    assert any(a["field"] == "precision" and a["value"] == "int4" for a in data["assumptions"])


def test_gated_repo_says_so_and_estimates_generically(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ask(capsys, "QLoRA acme-research/Acme-Chat-70B")
    assert any("gated model on the Hugging Face Hub" in n and "HF_TOKEN" in n for n in data["notes"]), data["notes"]
    assert data["workload"]["params_b"] == 70  # still answered, as a generic 70B
    assert data["report"]["memory"] is not None


def test_repo_id_of_a_catalog_model_needs_no_network(env: Path, hub: FakeHub, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = open_catalog()
    known = next(m for m in catalog.models() if m.hf_repo and "/" in m.hf_repo)
    data = ask(capsys, f"serve {known.hf_repo}")
    assert data["workload"]["model"] == known.id
    assert hub.requests == []


def test_offline_says_the_hub_could_not_be_reached(env: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = ask(capsys, "serve acme-ai/Acme-MoE-30B-A3B")  # a repo the bundled catalog does not have
    lines = [n for n in data["notes"] if "could not be reached" in n]
    assert len(lines) == 1 and lines[0].startswith("The Hugging Face Hub could not be reached")
    # then as today: a generic estimate of the size in the name
    assert data["workload"]["params_b"] == 30  # 30B in total: "A3B" is the active count, not the size
    assert data["report"]["memory"] is not None


def test_catalog_lookup_command(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "lookup", "acme-ai/Acme-MoE-30B-A3B"]) == 0
    out = capsys.readouterr().out
    assert "acme-ai/acme-moe-30b-a3b: 30.532B total, 3.352B active, 48 layers" in out
    assert main(["catalog", "lookup", "nobody/missing-7b"]) == 1
    assert "no model" in capsys.readouterr().out


def test_resolver_leaves_gpus_and_plain_words_alone(hub: FakeHub, tmp_path: Path) -> None:
    catalog = open_catalog()
    resolver = HubResolver(catalog, HubClient(HubSettings(endpoint=hub.url), HubCache(tmp_path / "c.db")))
    resolver.begin_turn("serve traffic on h100/a100 or an mi355x")
    for text in ("traffic", "h100", "mi355x", "rtx 5090", "h100/a100", "pipeline v2"):
        resolver.resolve_model(text)
    assert hub.requests == []


def test_repo_ids_keep_their_spelling_and_links_become_repo_ids() -> None:
    text = "compare <https://huggingface.co/Qwen/Qwen3-32B|Qwen/Qwen3-32B> and meta-llama/Llama-3.3-70B-Instruct at 1k tokens/s"
    assert repo_ids_in(text) == {"qwen/qwen3-32b": "Qwen/Qwen3-32B",
                                 "meta-llama/llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct"}
    assert normalize("see https://huggingface.co/openai/gpt-oss-20b/tree/main") == "see openai/gpt-oss-20b"
    assert normalize("data in https://huggingface.co/datasets/org/set-1") == "data in"


def test_refresh_command_reports_and_answers_use_new_prices(env: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    server = CatalogServer({"/v8/aws/vms.csv": aws_changed(), "/v8/lambda/vms.csv": "not,a,catalog\n"})
    try:
        monkeypatch.setenv("GPU_ADVISOR_CATALOG_URL", server.base)
        assert main(["catalog", "refresh", "--provider", "aws", "--provider", "lambda"]) == 0
        out = capsys.readouterr().out
        assert "aws:p5.48xlarge:us-east-1 on-demand down" in out and "→ $49.5/h" in out
        assert "lambda: refresh failed, previous prices kept" in out
        assert "1 of 2 providers refreshed" in out
        assert main(["catalog", "offers", "--json"]) == 0
        offers = {o["id"]: o for o in json.loads(capsys.readouterr().out)}
        assert offers["aws:p5.48xlarge:us-east-1"]["on_demand_usd_per_hour"] == 49.5
    finally:
        server.stop()


def test_scheduled_refresh_and_price_age_of_an_answer(tmp_path: Path) -> None:
    server = CatalogServer({"/v8/aws/vms.csv": aws_changed()})
    try:
        advisor = Advisor.open(tmp_path / "catalog.db")
        schedule = RefreshSchedule(advisor.catalog, 24, base_url=server.base)
        assert schedule.due()  # never refreshed: the first refresh runs at start
        results = schedule.refresh_now()
        assert not schedule.due() and schedule.due(today="2099-01-01")
        assert schedule.runs == 1 and any(r.ok and r.provider == "aws" for r in results)
        assert {o.id: o for o in advisor.catalog.data().offers}["aws:p5.48xlarge:us-east-1"].on_demand_usd_per_hour == 49.5
    finally:
        server.stop()
    response = advisor.respond(advisor.new_conversation(), "QLoRA 70B, 500GB corpus in S3, 20 runs")
    assert response.advice is not None and response.advice.options
    line = price_age_line(response.advice, advisor.catalog_data(), today="2026-12-01")
    assert line is not None and line.startswith("Prices observed ")
    assert price_age_line(response.advice.model_copy(update={"options": ()}), advisor.catalog_data()) is None


@pytest.mark.parametrize(("value", "hours"), [("6", 6.0), ("0.5", 0.5), ("0", None), ("soon", None), ("", None)])
def test_refresh_schedule_setting(value: str, hours: float | None) -> None:
    from bot.config import Config

    assert Config.from_env({"GPU_ADVISOR_REFRESH_HOURS": value}).refresh_hours == hours


def test_hub_settings_from_the_environment() -> None:
    from bot.config import Config

    config = Config.from_env({"HF_ENDPOINT": "http://127.0.0.1:9/", "HF_TOKEN": "hf_secret_value", "HF_HUB_OFFLINE": "1"})
    settings = config.hub_settings()
    assert (settings.endpoint, settings.token, settings.offline) == ("http://127.0.0.1:9", "hf_secret_value", True)
    assert "hf_secret_value" not in repr(config) and "hf_secret_value" in config.secrets()  # redacted from logs
    assert Config.from_env({"GPU_ADVISOR_HUB": "0"}).hub_settings() is None


def test_schedule_thread_refreshes_at_start_when_due_and_stops(tmp_path: Path) -> None:
    import time

    server = CatalogServer({"/v8/aws/vms.csv": aws_changed()})
    try:
        advisor = Advisor.open(tmp_path / "catalog.db")
        schedule = RefreshSchedule(advisor.catalog, 24, base_url=server.base).start()
        for _ in range(200):  # bounded wait for the background refresh (not a timing assertion)
            if schedule.runs:
                break
            time.sleep(0.05)
        schedule.stop()
        assert schedule.runs == 1 and any(p.endswith("/aws/vms.csv") for p in server.requests)
    finally:
        server.stop()
