"""The baseline for the latency ratio: a bare slack-bolt app that echoes a mention in its thread.

Run: `python -m benchmarks.echo_app --port 0` with SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and
SLACK_API_URL set, exactly like `gpu-advisor serve`; it prints the same "listening on ..." line.

Why it is served by `bot.http_server.SlackHTTPServer` and not Bolt's `app.start()`: Bolt's
development server is a single-threaded `http.server.HTTPServer` that cannot bind port 0 and
report it, and a different front end would put its own cost into the ratio. With the same
threaded adapter, the same signature checks and the same `process_before_response=False`, the
ratio measures what gpu-advisor adds on top of Bolt: thread state in SQLite, parse, engine, render.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from slack_bolt import App, Say
from slack_sdk import WebClient

from bot.http_server import SlackHTTPServer


def build_echo_app(token: str, signing_secret: str, api_url: str) -> App:
    """An App with the defaults a Bolt tutorial would use, pointed at `api_url`."""
    app = App(client=WebClient(token=token, base_url=api_url), signing_secret=signing_secret,
              token_verification_enabled=False, logger=logging.getLogger("echo.bolt"))

    @app.event("app_mention")
    def echo(event: dict[str, Any], say: Say) -> None:
        say(text=event.get("text", ""), thread_ts=event.get("thread_ts") or event["ts"])

    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="echo_app", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3001)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    api_url = os.environ.get("SLACK_API_URL", "https://slack.com/api/")
    app = build_echo_app(os.environ["SLACK_BOT_TOKEN"], os.environ["SLACK_SIGNING_SECRET"],
                         api_url if api_url.endswith("/") else api_url + "/")
    server = SlackHTTPServer(app, args.host, args.port)

    def stop_on_sigterm(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_on_sigterm)
    sys.stderr.write(f"echo_app: listening on {server.url}/slack/events\n")
    sys.stderr.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
