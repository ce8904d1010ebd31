"""Slack's side of the OAuth install, added to the fake Web API in its own class so the fake's core
stays as it is: `oauth.v2.access` exchanges a code for a workspace's bot token (one workspace per
code, as `approve(code, team_id)` set it up), and `auth.test` answers for the tokens it issued.
Requests with a token it never issued (or revoked) get `invalid_auth`, as Slack answers them."""

from __future__ import annotations

import base64
from typing import Any

from tests.bot.fake_slack import FakeSlack

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "oauth-client-secret-value"


class FakeSlackOAuth(FakeSlack):
    def __init__(self) -> None:
        self.codes: dict[str, str] = {}  # code -> team id it installs into
        self.tokens: dict[str, str] = {}  # issued bot token -> team id
        super().__init__()

    def approve(self, code: str, team_id: str) -> str:
        """The user clicks "Allow" in `team_id`: Slack redirects back with `code`. Returns the bot
        token `oauth.v2.access` will hand out for it."""
        self.codes[code] = team_id
        return f"xoxb-{team_id}-4444-oauthtoken"

    def revoke(self, team_id: str) -> None:
        self.tokens = {t: team for t, team in self.tokens.items() if team != team_id}

    def _answer(self, method: str, params: dict[str, Any], token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        if method == "oauth.v2.access":  # the client authenticates with HTTP Basic (or form fields)
            basic = base64.b64decode(token.removeprefix("Basic ")).decode() if token.startswith("Basic ") else ""
            given = basic.split(":", 1) if basic else [params.get("client_id"), params.get("client_secret")]
            if given != [CLIENT_ID, CLIENT_SECRET]:
                return 200, {"ok": False, "error": "invalid_client_id"}, {}
            team_id = self.codes.pop(str(params.get("code")), None)
            if team_id is None:
                return 200, {"ok": False, "error": "invalid_code"}, {}
            bot_token = f"xoxb-{team_id}-4444-oauthtoken"
            self.tokens[bot_token] = team_id
            return 200, {"ok": True, "app_id": "A1", "access_token": bot_token, "token_type": "bot",
                         "scope": "app_mentions:read,chat:write", "bot_user_id": "UBOT",
                         "team": {"id": team_id, "name": f"Team {team_id}"}, "enterprise": None,
                         "is_enterprise_install": False, "authed_user": {"id": "U1"}}, {}
        if token.startswith("xoxb-") and token not in self.tokens and token not in ("",):
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if method == "auth.test" and token in self.tokens:
            team_id = self.tokens[token]
            return 200, {"ok": True, "url": f"https://{team_id.lower()}.slack.com/", "team": f"Team {team_id}",
                         "user": "gpu-advisor", "team_id": team_id, "user_id": "UBOT", "bot_id": "BBOT",
                         "is_enterprise_install": False}, {}
        return super()._answer(method, params, token)
