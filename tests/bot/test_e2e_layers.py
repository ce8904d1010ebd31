"""Details on demand, end to end: the first message is a summary with "Details", "All options" and
"Formulas" buttons; each (and the same word typed in the thread) posts that layer into the thread,
from the advice saved with the thread, so it works again after the app restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.limits import violations
from tests.bot.conftest import AppClient, blocks_of
from tests.bot.fake_slack import FakeSlack
from tests.bot.test_e2e_http import CHANNEL, SCENARIO, _click, mention, thread_reply
from tests.bot.test_e2e_restart import serve, stop

THREAD = "1700000001.000100"
# what each layer must show that the first message leaves out
LAYERS = {
    "show_details": ("details", ("Memory per GPU", "Every assumption", "Interconnect")),
    "show_options": ("options", ("compute", "storage", "egress", "managed")),
    "show_formulas": ("formulas", ("```",)),
}


def _buttons(post) -> dict[str, dict]:
    return {e["action_id"]: e for b in blocks_of(post) if b["type"] == "actions" for e in b["elements"]}


def _texts(post) -> str:
    return json.dumps(blocks_of(post), ensure_ascii=False)


def _check_layer(post, parts: tuple[str, ...]) -> None:
    assert post.params["thread_ts"] == THREAD and post.params["channel"] == CHANNEL
    assert violations(blocks_of(post), text=post.params["text"]) == []
    text = _texts(post)
    for part in parts:
        assert part in text, part


def test_first_message_is_a_summary_with_the_layers_as_buttons(client: AppClient, fake_slack: FakeSlack) -> None:
    client.post(mention(SCENARIO))
    [post] = fake_slack.wait_for("chat.postMessage")
    assert {"show_details", "show_options", "show_formulas"} <= set(_buttons(post))
    text = _texts(post)
    assert "Every assumption" not in text and "NCCL" not in text and "managed" not in text
    assert "reply to change" in text and len(blocks_of(post)) <= 8


@pytest.mark.parametrize("action_id", list(LAYERS))
def test_each_button_posts_its_layer_into_the_thread(client: AppClient, fake_slack: FakeSlack,
                                                      action_id: str) -> None:
    client.post(mention(SCENARIO))
    [post] = fake_slack.wait_for("chat.postMessage")
    button = _buttons(post)[action_id]
    _click(client, fake_slack, {"action_id": action_id, "block_id": "refine", "type": "button",
                                "value": button["value"], "action_ts": "5"})
    layer = fake_slack.wait_for("chat.postMessage", 2)[1]
    _check_layer(layer, LAYERS[action_id][1])


@pytest.mark.parametrize(("word", "action_id"), [("details", "show_details"), ("All options", "show_options"),
                                                 ("formulas", "show_formulas")])
def test_thread_words_work_like_the_buttons(client: AppClient, fake_slack: FakeSlack, word: str,
                                            action_id: str) -> None:
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply(word, thread_ts=THREAD, ts="1700000002.000100", event_id="Ev2"))
    layer = fake_slack.wait_for("chat.postMessage", 2)[1]
    assert "didn't understand" not in layer.params["text"]
    _check_layer(layer, LAYERS[action_id][1])


@pytest.mark.slow
def test_buttons_and_words_work_after_a_restart(fake_slack: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    process, client = serve(fake_slack, db)
    try:
        client.post(mention(SCENARIO, event_id="EvBefore"))
        [post] = fake_slack.wait_for("chat.postMessage", timeout=20)
    finally:
        stop(process)
    buttons = _buttons(post)
    process, client = serve(fake_slack, db)
    try:
        for n, action_id in enumerate(("show_details", "show_options"), start=2):
            _click(client, fake_slack, {"action_id": action_id, "block_id": "refine", "type": "button",
                                        "value": buttons[action_id]["value"], "action_ts": str(n)})
            _check_layer(fake_slack.wait_for("chat.postMessage", n, timeout=20)[n - 1], LAYERS[action_id][1])
        client.post(thread_reply("formulas", thread_ts=THREAD, ts="1700000003.000100", event_id="EvAfter"))
        _check_layer(fake_slack.wait_for("chat.postMessage", 4, timeout=20)[3], LAYERS["show_formulas"][1])
    finally:
        stop(process)


@pytest.mark.parametrize("word", ["cheaper?", "can we do it for less?", "anything cheaper"])
def test_cheaper_in_the_thread_answers_from_the_ranked_options(client: AppClient, fake_slack: FakeSlack,
                                                               word: str) -> None:
    """"cheaper?" was "I didn't understand that": it is one of the commonest follow-ups in Slack. It posts what costs
    less than the pick and what each gives up, and the levers not pulled, from the thread's saved answer; the
    scenario stays as it was."""
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply(word, thread_ts=THREAD, ts="1700000002.000100", event_id="Ev2"))
    layer = fake_slack.wait_for("chat.postMessage", 2)[1]
    assert "didn't understand" not in layer.params["text"]
    _check_layer(layer, ("Cheaper than ", "use spot"))
