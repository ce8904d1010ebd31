"""manifest.yml is installable: valid against Slack's published manifest JSON Schema (a copy of
slackapi/manifest-schema in tests/fixtures/slack-manifest-schema/, MIT), every subscribed event has the
scope it needs, and it declares what the code listens to."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "tests" / "fixtures" / "slack-manifest-schema"
MANIFEST = yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))

# Bot events and the bot scope each one needs (api.slack.com/events); None: no scope needed.
EVENT_SCOPES = {
    "app_home_opened": None,
    "app_mention": "app_mentions:read",
    "message.channels": "channels:history",
    "message.groups": "groups:history",
    "message.im": "im:history",
    "message.mpim": "mpim:history",
}

# Scopes the bot's own calls need (not tied to an event), and which feature uses each.
FEATURE_SCOPES = {
    "chat:write": "answers: chat.postMessage in threads and DMs",
    "commands": "the /vram slash command",
    "files:write": "the TCO chart: files.getUploadURLExternal + files.completeUploadExternal",
}


@pytest.mark.parametrize("schema_file", ["manifest.schema.1.0.0.json", "manifest.schema.2.0.0.json"])
def test_manifest_matches_slack_schema(schema_file: str) -> None:
    path = SCHEMA_DIR / schema_file
    if not path.is_file():
        pytest.skip(f"{path} not available")
    schema = json.loads(path.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    errors = sorted(validator_class(schema).iter_errors(MANIFEST), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_every_event_has_its_scope() -> None:
    scopes = set(MANIFEST["oauth_config"]["scopes"]["bot"])
    for event in MANIFEST["settings"]["event_subscriptions"]["bot_events"]:
        assert event in EVENT_SCOPES, f"unknown event {event}: add its scope to EVENT_SCOPES"
        needed = EVENT_SCOPES[event]
        assert needed is None or needed in scopes, f"{event} needs the {needed} scope"


def test_scopes_are_minimal_and_sufficient() -> None:
    scopes = set(MANIFEST["oauth_config"]["scopes"]["bot"])
    events = set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
    needed = {EVENT_SCOPES[e] for e in events} - {None} | set(FEATURE_SCOPES)
    assert scopes == needed


def test_feature_scopes_match_the_code() -> None:
    """Each feature scope is used: /vram is declared, and the replier uploads with files_upload_v2."""
    import inspect

    from bot.outbox import Outbox
    from bot.replies import Replier

    assert MANIFEST["features"]["slash_commands"], FEATURE_SCOPES["commands"]
    source = inspect.getsource(Replier)
    assert "files_upload_v2" in source, FEATURE_SCOPES["files:write"]
    assert "chat_postMessage" in inspect.getsource(Outbox), FEATURE_SCOPES["chat:write"]  # replies go out here


def test_manifest_declares_what_the_code_listens_to() -> None:
    features = MANIFEST["features"]
    assert [c["command"] for c in features["slash_commands"]] == ["/vram"]
    assert features["app_home"]["home_tab_enabled"] is True
    assert MANIFEST["settings"]["interactivity"]["is_enabled"] is True
    assert MANIFEST["settings"]["socket_mode_enabled"] is True
    assert {"app_mention", "app_home_opened", "message.im"} <= set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
