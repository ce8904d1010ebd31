"""The Web API client: kept-alive connections (reused, replaced when the server closed them) and retries
that never re-send a chat.postMessage whose first attempt Slack may have posted."""

from __future__ import annotations

import socket
from http.client import RemoteDisconnected
from pathlib import Path

import pytest
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.state import RetryState

from bot import webapi
from bot.app import web_client
from tests.bot.conftest import make_config
from tests.bot.fake_slack import FakeSlack


def request(method: str) -> HttpRequest:
    return HttpRequest(method="POST", url=f"https://slack.com/api/{method}", headers={})


def pooled_sockets() -> list[socket.socket]:
    return [conn.sock for conn, _ in getattr(webapi._local, "pool", {}).values()]


def test_calls_from_one_thread_share_one_connection(fake_slack: FakeSlack, tmp_path: Path) -> None:
    webapi.close_connections()
    client = web_client(make_config(fake_slack, tmp_path / "s.db"))
    client.auth_test()
    [first] = pooled_sockets()
    client.chat_postMessage(channel="C1", text="one")
    client.auth_test()
    assert pooled_sockets() == [first]  # the same socket, still open, for three calls
    webapi.close_connections()


def test_a_connection_the_server_closed_is_replaced_before_use(fake_slack: FakeSlack, tmp_path: Path) -> None:
    webapi.close_connections()
    client = web_client(make_config(fake_slack, tmp_path / "s.db"))
    client.auth_test()
    [first] = pooled_sockets()
    first.shutdown(socket.SHUT_RD)  # reads EOF from now on, as after the server's FIN on an idle connection
    client.chat_postMessage(channel="C1", text="after the close")  # not sent into the dead connection
    assert first not in pooled_sockets() and len(pooled_sockets()) == 1
    assert [c.ok for c in fake_slack.of("chat.postMessage")] == [True]
    webapi.close_connections()


def test_an_idle_pooled_connection_is_not_reported_dropped() -> None:
    a, b = socket.socketpair()
    conn = type("Conn", (), {"sock": a})()
    try:
        assert not webapi._dropped(conn)  # type: ignore[arg-type]
        b.close()  # the peer closed it: readable (EOF)
        assert webapi._dropped(conn)  # type: ignore[arg-type]
    finally:
        a.close()


@pytest.mark.parametrize("error, retried", [
    (webapi.NotSent(ConnectionRefusedError()), True),  # never left this process: safe
    (ConnectionResetError(), False),  # after the request was written: Slack may have it
    (RemoteDisconnected(), False),
    (TimeoutError(), False),
])
def test_a_post_is_retried_by_the_client_only_when_nothing_was_sent(error: Exception, retried: bool) -> None:
    handler = webapi.SafeRetryOnConnectionError(max_retry_count=2)
    assert handler.can_retry(state=RetryState(), request=request("chat.postMessage"), error=error) is retried


def test_other_methods_keep_slack_sdks_connection_retries() -> None:
    handler = webapi.SafeRetryOnConnectionError(max_retry_count=2)
    assert handler.can_retry(state=RetryState(), request=request("conversations.replies"), error=ConnectionResetError())


def test_a_refused_connection_is_not_sent_and_surfaces_as_a_url_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = web_client(make_config(type("F", (), {"api_url": f"http://127.0.0.1:{port}/api/"})(),  # type: ignore[arg-type]
                                    tmp_path / "s.db", retry_backoff_s=0.0))
    client.retry_handlers = [webapi.SafeRetryOnConnectionError(max_retry_count=0)]
    with pytest.raises(webapi.NotSent):
        client.chat_postMessage(channel="C1", text="x")
