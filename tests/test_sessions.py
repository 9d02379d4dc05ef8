"""Each session spends its own request budget, and an error code means one thing at every door.

The budget used to be one per server process, never reset: under `netglean serve` every client together
spent it until a restart, and one client could spend it for all. And a page over the fetch cap shared the
code ``too_large`` with arguments over the argument cap, so REST answered it 413 "send smaller arguments".
"""

from __future__ import annotations

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
