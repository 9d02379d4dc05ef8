"""Each session spends its own request budget, and an error code means one thing at every door.

The budget used to be one per server process, never reset: under `netglean serve` every client together
spent it until a restart, and one client could spend it for all. And a page over the fetch cap shared the
code ``too_large`` with arguments over the argument cap, so REST answered it 413 "send smaller arguments".

An MCP session idle for ``session_idle_timeout`` ends (the SDK's 30 minutes, now the operator's).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

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
        for _ in range(2):  # two MCP sessions (2025 clients), one after the other: each gets its request
            with open_client(Client(f"{running.base}/mcp", mode="legacy")) as session:
                codes += [scrape(session), scrape(session)]
        assert codes == ["ok", "budget_exhausted", "ok", "budget_exhausted"]
        # Without a session (REST, 2026 clients) the peer address is the client: its own budget, shared by them.
        rest = httpx.post(f"{running.base}/v1/tools/scrape", json={"url": url}).json()
        assert rest["ok"] is True
        with open_client(Client(f"{running.base}/mcp")) as stateless:
            assert scrape(stateless) == "budget_exhausted"
    finally:
        running.stop()


def test_a_page_past_the_fetch_cap_is_a_fact_and_arguments_past_theirs_a_refusal(site: int) -> None:
    running = _server(site, "--fetch-max-bytes", "1000", "--max-argument-bytes", "200")
    try:
        huge = httpx.post(f"{running.base}/v1/tools/scrape", json={"url": f"http://127.0.0.1:{site}/huge"})
        assert huge.status_code == 200 and huge.json()["payload"]["error"]["code"] == "too_large"
        assert "document" in huge.json()["guidance"]
        long = httpx.post(f"{running.base}/v1/tools/scrape", json={"url": f"http://127.0.0.1:{site}/" + "x" * 400})
        assert long.status_code == 413 and long.json()["payload"]["error"]["code"] == "arguments_too_large"
    finally:
        running.stop()


# Session lifetimes ------------------------------------------------------------------------------

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

    @staticmethod
    def _in(session: str) -> dict[str, str]:
        return {**_MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}


def test_an_idle_session_expires() -> None:
    with HttpServer("--session-idle-timeout", "0.2") as running:
        one = _Peer(running, "127.0.0.1")
        session = one.open()

        def expired() -> bool:
            threading.Event().wait(1)  # a second without a request (a ping keeps it alive)
            return one.ping(session) == 404

        until(expired, "the idle session to expire", bound=30)
