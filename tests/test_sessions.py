"""Each session spends its own request budget, sessions are capped per client and in all, and an
error code means one thing at every entry point.

The budget used to be one per server process, never reset: under `netglean serve` every client
together spent it until a restart, and one client could spend it for all. And a page over the fetch
cap shared the code ``too_large`` with arguments over the argument cap, so REST answered it 413
"send smaller arguments".

One client opening MCP sessions in a loop took every one the server would hold (10,000 in about
a minute, some 400 MiB), and every other client got 503 for up to 30 minutes: each client address
and the server now have caps, and at a cap an idle session is closed for the new one. An MCP
session idle for ``session_idle_timeout`` ends (the SDK's 30 minutes, now the operator's).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from tests.support.clients import open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.fixture_site import serve
from tests.support.httpserver import HttpServer
from tests.support.polling import until


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    with serve() as port:
        yield port


def _settings(**overrides: Any) -> Settings:
    values = {"allow_private_hosts": True, "host_interval": 0.0, "ignore_robots": True, **overrides}
    return Settings.load(values, environ=TEST_ENVIRONMENT)


def test_sessions_spend_budgets_of_their_own(registry: Registry, site: int) -> None:
    runner = build_runner(registry, _settings(session_budget=1))
    url = f"http://127.0.0.1:{site}/page"

    async def run() -> list[str]:
        try:
            codes = []
            for session in ("one", "one", "two", "two"):
                envelope, _ = await runner.call("scrape", {"url": url}, session=session)
                codes.append("ok" if envelope.ok else envelope.payload["error"]["code"])
            return codes
        finally:
            await runner.services.aclose()

    assert anyio.run(run) == ["ok", "budget_exhausted", "ok", "budget_exhausted"]


def _server(site: int, *flags: str) -> HttpServer:
    return HttpServer("--allow-private-hosts", "--host-interval", "0", "--ignore-robots", *flags)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_each_mcp_session_and_each_peer_has_its_own_budget(site: int) -> None:
    url = f"http://127.0.0.1:{site}/page"
    running = _server(site, "--session-budget", "1")

    def scrape(session: Any) -> str:
        result = session.call("scrape", {"url": url}).structured_content
        return "ok" if result["ok"] else str(result["payload"]["error"]["code"])

    try:
        codes = []
        # two MCP sessions (2025 clients), one after the other: each gets its request
        for _ in range(2):
            with open_client(Client(f"{running.base}/mcp", mode="legacy")) as session:
                codes += [scrape(session), scrape(session)]
        assert codes == ["ok", "budget_exhausted", "ok", "budget_exhausted"]
        # Without a session (REST, 2026 clients) the peer address is the client: its own budget,
        # shared by them.
        rest = httpx.post(f"{running.base}/v1/tools/scrape", json={"url": url}).json()
        assert rest["ok"] is True
        with open_client(Client(f"{running.base}/mcp")) as stateless:
            assert scrape(stateless) == "budget_exhausted"
    finally:
        running.stop()


def test_a_page_past_the_fetch_cap_is_a_fact_and_arguments_past_theirs_a_refusal(site: int) -> None:
    running = _server(site, "--fetch-max-bytes", "1000", "--max-argument-bytes", "200")
    try:
        huge = httpx.post(
            f"{running.base}/v1/tools/scrape", json={"url": f"http://127.0.0.1:{site}/huge"}
        )
        assert huge.status_code == 200 and huge.json()["payload"]["error"]["code"] == "too_large"
        assert "document" in huge.json()["guidance"]
        long = httpx.post(
            f"{running.base}/v1/tools/scrape", json={"url": f"http://127.0.0.1:{site}/" + "x" * 400}
        )
        assert (
            long.status_code == 413
            and long.json()["payload"]["error"]["code"] == "arguments_too_large"
        )
    finally:
        running.stop()


# Session caps ------------------------------------------------------------------------------------
# Each peer below is a loopback address of its own (the whole of 127/8 is this machine): the server
# tells clients apart by the socket's peer address, as its caps on connections and calls do.

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
_MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class _Peer:
    """Raw /mcp requests from one loopback address."""

    def __init__(self, server: HttpServer, address: str) -> None:
        self.base = server.base
        self.http = httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)

    def initialize(self) -> httpx.Response:
        return self.http.post(f"{self.base}/mcp", json=_INITIALIZE, headers=_MCP_HEADERS)

    def open(self) -> str:
        opened = self.initialize()
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        told = self.http.post(f"{self.base}/mcp", json=initialized, headers=self._in(session))
        assert told.status_code == 202
        return session

    def ping(self, session: str) -> int:
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        return self.http.post(f"{self.base}/mcp", json=ping, headers=self._in(session)).status_code

    def stream(self, session: str) -> contextlib.AbstractContextManager[httpx.Response]:
        """The session's standalone GET stream, open until the block ends: the session is in use."""
        headers = {"accept": "text/event-stream", **self._in(session)}
        return self.http.stream("GET", f"{self.base}/mcp", headers=headers)

    @staticmethod
    def _in(session: str) -> dict[str, str]:
        return {**_MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}


def test_a_client_past_its_session_cap_loses_its_own_idle_sessions_first() -> None:
    with HttpServer("--max-client-sessions", "3") as running:
        one, two = _Peer(running, "127.0.0.1"), _Peer(running, "127.0.0.2")
        first, second, third = one.open(), one.open(), one.open()
        theirs = two.open()
        assert one.ping(first) == 200  # now the second is the least recently used
        fourth = one.open()
        assert one.ping(second) == 404  # closed for the fourth: its client must initialize anew
        assert [one.ping(session) for session in (first, third, fourth)] == [200, 200, 200]
        for _ in range(20):  # a client opening sessions in a loop only ever closes its own
            one.open()
        assert two.ping(theirs) == 200
        assert two.initialize().status_code == 200


def test_past_the_server_cap_the_least_recently_used_idle_session_of_any_client_closes() -> None:
    with HttpServer("--max-sessions", "3") as running:
        one, two, three, four = (_Peer(running, f"127.0.0.{n}") for n in (1, 2, 3, 4))
        first, second, third = one.open(), two.open(), three.open()
        assert one.ping(first) == 200
        fourth = four.open()
        assert two.ping(second) == 404
        assert [one.ping(first), three.ping(third), four.ping(fourth)] == [200, 200, 200]


def _refusal(answer: httpx.Response) -> tuple[int, str, Any, str]:
    error = answer.json()["error"]
    retry_after = answer.headers.get("retry-after", "")
    return answer.status_code, retry_after, error["data"], error["message"]


def test_sessions_in_use_stay_open_and_the_refusal_names_the_cap_that_was_met() -> None:
    with HttpServer("--max-client-sessions", "2", "--max-sessions", "3") as running:
        one, two, three = (_Peer(running, f"127.0.0.{n}") for n in (1, 2, 3))
        first, second = one.open(), one.open()
        with one.stream(first), one.stream(second):  # both in use: neither may go for a third
            status, retry, data, message = _refusal(one.initialize())
            assert (status, retry) == (429, "1")
            assert data == {"setting": "max_client_sessions", "limit": 2}
            assert "max_client_sessions = 2" in message
            official = Client(f"{running.base}/mcp", mode="legacy")
            with pytest.raises(BaseException) as refused, open_client(official):
                pass
            assert (  # the official client shows the refusal's own words
                refused.group_contains(MCPError, match="max_client_sessions")
                if isinstance(refused.value, BaseExceptionGroup)
                else refused.match("max_client_sessions")
            )
            theirs = two.open()
            with two.stream(theirs):
                status, retry, data, message = _refusal(three.initialize())
                assert (status, retry, data) == (503, "5", {"setting": "max_sessions", "limit": 3})
                assert "max_sessions = 3" in message
            # Once the server has seen their stream end, their session is idle: it goes for a new
            # one.
            until(lambda: three.initialize().status_code == 200, "their stream's end to be seen")
            assert two.ping(theirs) == 404
            assert [one.ping(first), one.ping(second)] == [200, 200]


def test_an_idle_session_expires() -> None:
    with HttpServer("--session-idle-timeout", "0.2") as running:
        one = _Peer(running, "127.0.0.1")
        session = one.open()

        def expired() -> bool:
            threading.Event().wait(1)  # a second without a request (a ping keeps it alive)
            return one.ping(session) == 404

        until(expired, "the idle session to expire", bound=30)
