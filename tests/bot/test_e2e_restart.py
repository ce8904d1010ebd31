"""The scenario survives a restart: `gpu-advisor serve` as a real process, stopped and started
again on the same GPU_ADVISOR_DB, then a thread reply refines the scenario from before."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bot.conftest import BOT_TOKEN, AppClient, blocks_of
from tests.bot.fake_slack import FakeSlack
from tests.bot.signing import SIGNING_SECRET
from tests.bot.test_e2e_http import SCENARIO, mention, thread_reply

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def serve(fake: FakeSlack, db: Path | str, *, workers: int = 1, **extra_env: str) -> tuple[subprocess.Popen[str], AppClient]:
    """`gpu-advisor serve` in a subprocess (one worker unless told: these tests are about the store;
    tests/bot/test_e2e_workers.py runs several)."""
    env = dict(os.environ, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET,
               SLACK_API_URL=fake.api_url, GPU_ADVISOR_DB=str(db), **extra_env)
    env.pop("SLACK_APP_TOKEN", None)
    process = subprocess.Popen([sys.executable, "-m", "bot", "serve", "--port", "0", "--workers", str(workers)], cwd=ROOT, env=env,
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 20
    assert process.stderr is not None
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if match := re.search(r"listening on (http://[\d.]+:\d+)/slack/events", line):
            return process, AppClient(match.group(1))
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"serve did not start: {process.stderr.read()}")


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()


def test_scenario_survives_a_restart(fake_slack: FakeSlack, store_target: Path | str) -> None:
    db = store_target
    process, client = serve(fake_slack, db)
    try:
        assert json.loads(client.get("/health").body)["ok"]
        client.post(mention(SCENARIO, event_id="EvBefore"))
        fake_slack.wait_for("chat.postMessage", timeout=20)
    finally:
        stop(process)

    process, client = serve(fake_slack, db)
    try:
        client.post(mention(SCENARIO, event_id="EvBefore"), retry_num=1)  # a late retry after the restart
        client.post(thread_reply("what about 40 runs?", thread_ts="1700000001.000100", ts="1700000002.000100",
                                 event_id="EvAfter"))
        posts = fake_slack.wait_for("chat.postMessage", 2, timeout=20)
        time.sleep(0.2)
        assert len(fake_slack.of("chat.postMessage")) == 2  # the retry was not answered again
        refined = json.dumps(blocks_of(posts[1]))
        assert "What changed" in refined and "40" in refined
    finally:
        stop(process)
