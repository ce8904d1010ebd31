"""End to end over HTTP: the real app on loopback, requests signed as Slack signs them, replies
observed at a local fake of the Slack Web API."""

from __future__ import annotations

import json
import time

import pytest

from bot.limits import violations
from tests.bot.conftest import AppClient, blocks_of
from tests.bot.fake_slack import FakeSlack
from tests.bot.signing import SIGNING_SECRET, action_body, event_body, form_body, signed_headers

pytestmark = pytest.mark.slow
CHANNEL = "C123"


SCENARIO = "QLoRA 70B, 500GB corpus in S3, 20 runs"


def mention(text: str, *, ts: str = "1700000001.000100", event_id: str = "Ev1", thread_ts: str | None = None,
            team_id: str = "T1") -> str:
    event = {"type": "app_mention", "user": "U1", "text": f"<@UBOT> {text}", "ts": ts, "channel": CHANNEL,
             "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event_body(event, event_id=event_id, team_id=team_id)


def thread_reply(text: str, *, thread_ts: str, ts: str, event_id: str, team_id: str = "T1") -> str:
    event = {"type": "message", "channel_type": "channel", "user": "U1", "text": text, "ts": ts,
             "thread_ts": thread_ts, "channel": CHANNEL, "event_ts": ts}
    return event_body(event, event_id=event_id, team_id=team_id)


def header_of(call) -> str:
    return blocks_of(call)[0]["text"]["text"]


def test_health(client: AppClient) -> None:
    reply = client.get("/health")
    assert reply.status == 200 and json.loads(reply.body)["ok"] is True


def test_mention_is_answered_in_its_thread_with_valid_blocks(client: AppClient, fake_slack: FakeSlack) -> None:
    assert client.post(mention(SCENARIO)).status == 200
    [post] = fake_slack.wait_for("chat.postMessage")
    assert post.params["channel"] == CHANNEL
    assert post.params["thread_ts"] == "1700000001.000100"
    assert violations(blocks_of(post), text=post.params["text"]) == []
    assert "Fits" in header_of(post)
    assert post.params["text"].strip()


def test_thread_follow_up_refines_the_scenario(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply("what about 40 runs?", thread_ts="1700000001.000100", ts="1700000002.000100",
                             event_id="Ev2"))
    posts = fake_slack.wait_for("chat.postMessage", 2)
    assert posts[1].params["thread_ts"] == "1700000001.000100"
    text = json.dumps(blocks_of(posts[1]))
    assert "What changed" in text and "40" in text


def test_reply_in_a_thread_without_scenario_is_ignored(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(thread_reply("what about 40 runs?", thread_ts="1700000009.000100", ts="1700000010.000100",
                             event_id="Ev9"))
    time.sleep(0.3)
    assert fake_slack.of("chat.postMessage") == []


def test_retried_event_is_answered_once(client: AppClient, fake_slack: FakeSlack) -> None:
    body = mention(SCENARIO, event_id="EvRetry")
    assert client.post(body).status == 200
    assert client.post(body, retry_num=1).status == 200
    assert client.post(body, retry_num=2).status == 200
    fake_slack.wait_for("chat.postMessage")
    time.sleep(0.3)
    assert len(fake_slack.of("chat.postMessage")) == 1


def test_bad_signature_is_refused(client: AppClient, fake_slack: FakeSlack) -> None:
    body = mention("QLoRA 70B")
    headers = signed_headers(body, secret="not-the-secret")
    assert client.post(body, headers).status == 401
    assert client.post(body, {"Content-Type": "application/json"}).status == 401
    assert fake_slack.of("chat.postMessage") == []


def test_stale_timestamp_is_refused(client: AppClient, fake_slack: FakeSlack) -> None:
    body = mention("QLoRA 70B")
    assert client.post(body, timestamp=int(time.time()) - 600).status == 401
    assert fake_slack.of("chat.postMessage") == []


def test_vram_is_acked_within_3_seconds_and_answered_ephemerally(client: AppClient, fake_slack: FakeSlack) -> None:
    body = form_body({"command": "/vram", "text": "70B qlora", "team_id": "T1", "channel_id": CHANNEL,
                      "user_id": "U1", "response_url": fake_slack.response_url("vram1"), "trigger_id": "t1"})
    started = time.monotonic()
    reply = client.post(body, content_type="application/x-www-form-urlencoded")
    assert reply.status == 200
    assert time.monotonic() - started < 3
    [answer] = fake_slack.wait_for("response/vram1")
    assert answer.params["response_type"] == "ephemeral"
    blocks = answer.params["blocks"]
    assert violations(blocks, text=answer.params["text"]) == []
    assert any(e.get("action_id") == "vram_share" for b in blocks if b["type"] == "actions" for e in b["elements"])


def _click(client: AppClient, fake: FakeSlack, action: dict, *, thread_ts: str = "1700000001.000100") -> None:
    payload = {
        "type": "block_actions", "team": {"id": "T1"}, "user": {"id": "U1"}, "api_app_id": "A1",
        "channel": {"id": CHANNEL}, "container": {"type": "message", "channel_id": CHANNEL,
                                                  "message_ts": "1700000000.000009", "thread_ts": thread_ts},
        "message": {"ts": "1700000000.000009", "thread_ts": thread_ts, "text": "answer"},
        "response_url": fake.response_url("click"), "trigger_id": "t2", "actions": [action],
    }
    reply = client.post(action_body(payload), content_type="application/x-www-form-urlencoded")
    assert reply.status == 200


def test_button_click_updates_the_scenario(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO))
    [first] = fake_slack.wait_for("chat.postMessage")
    button = next(e for b in blocks_of(first) if b["type"] == "actions" for e in b["elements"]
                  if e["action_id"] == "refine_gpu")
    _click(client, fake_slack, {"action_id": "refine_gpu", "block_id": "refine", "type": "button",
                                "value": button["value"], "action_ts": "1"})
    posts = fake_slack.wait_for("chat.postMessage", 2)
    assert "a100" in header_of(posts[1]).lower()
    _click(client, fake_slack, {"action_id": "refine_runs", "block_id": "refine", "type": "static_select",
                                "selected_option": {"value": "40", "text": {"type": "plain_text", "text": "40"}},
                                "action_ts": "2"})
    posts = fake_slack.wait_for("chat.postMessage", 3)
    assert "40" in json.dumps(blocks_of(posts[2]))
    _click(client, fake_slack, {"action_id": "show_formulas", "block_id": "refine", "type": "button",
                                "value": "formulas", "action_ts": "3"})
    posts = fake_slack.wait_for("chat.postMessage", 4)
    assert "```" in json.dumps(blocks_of(posts[3]))


def test_gibberish_is_answered_helpfully(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention("purple monkey dishwasher"))
    [post] = fake_slack.wait_for("chat.postMessage")
    assert "couldn't find a workload" in post.params["text"]
    assert violations(blocks_of(post), text=post.params["text"]) == []


def test_failure_in_a_listener_is_answered_with_an_apology(stub_client: AppClient, fake_slack: FakeSlack) -> None:
    stub_client.post(mention("explode please"))
    [post] = fake_slack.wait_for("chat.postMessage")
    assert "Sorry" in post.params["text"]


def test_rate_limit_and_server_errors_are_retried(client: AppClient, fake_slack: FakeSlack) -> None:
    fake_slack.fail_next(1, status=429, retry_after=0)
    fake_slack.fail_next(1, status=500)
    client.post(mention(SCENARIO))
    posts = fake_slack.wait_for("chat.postMessage", 3, timeout=15)
    assert len(posts) == 3  # 429, 500, then the reply


def test_workspaces_do_not_share_threads(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO, team_id="T1"))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply("what about 40 runs?", thread_ts="1700000001.000100", ts="1700000002.000100",
                             event_id="EvOther", team_id="T2"))
    time.sleep(0.3)
    assert len(fake_slack.of("chat.postMessage")) == 1


def test_app_home_is_published(client: AppClient, fake_slack: FakeSlack) -> None:
    body = event_body({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home",
                       "event_ts": "1700000003.000100"}, event_id="EvHome")
    client.post(body)
    [call] = fake_slack.wait_for("views.publish")
    view = call.params["view"]
    assert view["type"] == "home"
    assert violations(view["blocks"], max_blocks=100) == []
    home = json.dumps(view["blocks"])
    assert "Prices in the catalog were read " in home and " 20" in home  # dated from the real catalog


def test_url_verification_challenge(client: AppClient) -> None:
    body = json.dumps({"type": "url_verification", "challenge": "abc123", "token": "x"})
    reply = client.post(body)
    assert reply.status == 200 and "abc123" in reply.body


def test_secrets_are_never_logged(client: AppClient, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from tests.bot.conftest import BOT_TOKEN

    caplog.set_level(logging.DEBUG)
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    assert "Authorization" in caplog.text  # slack_sdk did log its request headers
    assert BOT_TOKEN not in caplog.text
    assert SIGNING_SECRET not in caplog.text


def _uploads_in(fake: FakeSlack, count: int) -> list:
    return fake.wait_for("files.completeUploadExternal", count)


def _ask_for_chart(client: AppClient, fake: FakeSlack, action_ts: str = "9") -> None:
    _click(client, fake, {"action_id": "show_chart", "block_id": "refine", "type": "button", "value": "chart",
                          "action_ts": action_ts})


def test_the_chart_is_offered_then_uploaded_when_asked_for(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO))
    [post] = fake_slack.wait_for("chat.postMessage")
    assert any(e["action_id"] == "show_chart" for b in blocks_of(post) if b["type"] == "actions" for e in b["elements"])
    time.sleep(0.2)
    assert fake_slack.of("files.getUploadURLExternal") == []  # offered, not pushed
    _ask_for_chart(client, fake_slack)
    [done] = _uploads_in(fake_slack, 1)
    assert done.params["channel_id"] == CHANNEL and done.params["thread_ts"] == "1700000001.000100"
    [requested] = fake_slack.of("files.getUploadURLExternal")
    assert requested.params["filename"] == "tco.png"
    [png] = fake_slack.uploads.values()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and int(requested.params["length"]) == len(png)
    [file] = json.loads(done.params["files"])
    assert file["id"] in fake_slack.uploads and "Monthly cost" in file["title"]
    time.sleep(0.2)
    assert len(fake_slack.of("chat.postMessage")) == 1 and len(fake_slack.of("upload")) == 1


def test_missing_files_scope_is_one_note_without_apology(client: AppClient, fake_slack: FakeSlack) -> None:
    fake_slack.refuse("files.getUploadURLExternal", "missing_scope")
    client.post(mention(SCENARIO))
    [post] = fake_slack.wait_for("chat.postMessage")
    _ask_for_chart(client, fake_slack)
    fake_slack.wait_for("files.getUploadURLExternal")
    answer, note = fake_slack.wait_for("chat.postMessage", 2)
    time.sleep(0.3)
    assert len(fake_slack.of("chat.postMessage")) == 2
    assert "Fits" in header_of(answer) and "Sorry" not in note.params["text"]
    assert "could not be posted" in note.params["text"]
    assert fake_slack.uploads == {} and fake_slack.of("files.completeUploadExternal") == []


def test_the_chart_word_after_a_refinement_draws_the_new_numbers(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply("chart", thread_ts="1700000001.000100", ts="1700000001.000200", event_id="Ev1b"))
    _uploads_in(fake_slack, 1)
    # (a GPU named in the thread re-plans, so the chart is drawn anew)
    client.post(thread_reply("try A100s", thread_ts="1700000001.000100", ts="1700000002.000100",
                             event_id="Ev2"))
    fake_slack.wait_for("chat.postMessage", 2)
    client.post(thread_reply("show the chart", thread_ts="1700000001.000100", ts="1700000002.000200",
                             event_id="Ev3"))
    first, second = _uploads_in(fake_slack, 2)
    assert second.params["thread_ts"] == "1700000001.000100"
    before, after = (fake_slack.uploads[json.loads(c.params["files"])[0]["id"]] for c in (first, second))
    assert before != after  # the chart follows the new numbers


def test_no_chart_for_gibberish_or_vram(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention("purple monkey dishwasher"))
    body = form_body({"command": "/vram", "text": "70B qlora", "team_id": "T1", "channel_id": CHANNEL,
                      "user_id": "U1", "response_url": fake_slack.response_url("vram2"), "trigger_id": "t3"})
    client.post(body, content_type="application/x-www-form-urlencoded")
    fake_slack.wait_for("chat.postMessage")
    fake_slack.wait_for("response/vram2")
    time.sleep(0.3)
    assert fake_slack.of("files.getUploadURLExternal") == []


def test_chart_upload_is_retried_after_a_rate_limit(client: AppClient, fake_slack: FakeSlack) -> None:
    fake_slack.fail_next(1, status=429, retry_after=0, method="files.getUploadURLExternal")
    fake_slack.fail_next(1, status=503, method="files.completeUploadExternal")
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    _ask_for_chart(client, fake_slack)
    fake_slack.wait_for("files.completeUploadExternal", 2)  # 503, then completed
    assert len(fake_slack.of("files.getUploadURLExternal")) == 2  # 429, then the URL
    time.sleep(0.2)
    assert len(fake_slack.of("chat.postMessage")) == 1 and len(fake_slack.uploads) == 1


MALFORMED = [
    ("not json at all", "application/json"),
    ("{\"type\": \"event_callback\"}", "application/json"),  # no event, no event_id
    (json.dumps({"type": "event_callback", "team_id": "T1", "event_id": "EvNoText",
                 "event": {"type": "app_mention", "channel": CHANNEL, "ts": "1700000009.000100"}}), "application/json"),
    (json.dumps({"type": "event_callback", "team_id": "T1", "event_id": "EvOdd",
                 "event": {"type": "message", "subtype": "file_share", "channel": CHANNEL, "ts": "1.2"}}), "application/json"),
    (json.dumps({"type": "something_new"}), "application/json"),
    ("payload=%7Bnot-json", "application/x-www-form-urlencoded"),
    ("command=%2Fvram&team_id=T1", "application/x-www-form-urlencoded"),  # no text, channel, user or response_url
]


@pytest.mark.parametrize(("body", "content_type"), MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_requests_never_break_the_app(client: AppClient, fake_slack: FakeSlack, body: str,
                                                content_type: str) -> None:
    """Signed but malformed or unexpected requests get an HTTP answer (never a hang or a 5xx), post
    nothing odd, and the app keeps answering real mentions afterwards."""
    reply = client.post(body, content_type=content_type)
    assert reply.status < 500, reply
    time.sleep(0.2)
    for call in fake_slack.of("chat.postMessage"):
        assert "Traceback" not in str(call.params)
    assert client.post(mention(SCENARIO, event_id="EvAfterMalformed")).status == 200
    fake_slack.wait_for("chat.postMessage")
