"""The Python API: the tools in-process, with the operator's network policy and typed results."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import anyio
import pytest

import netglean
from netglean.generated.models import ScrapedPage, SiteCrawl
from tests.support.run_site import serve_run_site

API = ["CallFailed", "Client", "apply_config", "batch_scrape", "crawl", "map", "scan_url", "scrape"]
"""The API's surface: changing it is a deliberate act, as httpx pins its own."""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_run_site() as (_, port):
        yield f"http://127.0.0.1:{port}"


def _local() -> netglean.Settings:
    return netglean.Settings.load(
        {"allow_private_hosts": True, "host_interval": 0.0, "read_workers": 0}
    )


def test_the_api_surface_is_pinned_and_documented() -> None:
    exported = {name for name in netglean.__all__ if netglean._HOMES.get(name) == "netglean.api"}
    assert sorted(exported) == API
    for name in API:
        assert inspect.getdoc(getattr(netglean, name)), name
    for tool in ("scrape", "batch_scrape", "crawl", "map", "scan_url", "apply_config"):
        assert inspect.iscoroutinefunction(getattr(netglean, tool))
        assert inspect.iscoroutinefunction(getattr(netglean.Client, tool))


def test_scrape_answers_a_typed_page(site: str) -> None:
    page = anyio.run(lambda: netglean.scrape(f"{site}/tree/3/0", settings=_local(), format="text"))
    assert isinstance(page, ScrapedPage)
    assert (
        page.title == "Tree page 0" and page.content is not None and "Words enough" in page.content
    )


def test_one_client_serves_many_calls_and_waits_for_a_crawl(site: str) -> None:
    async def calls() -> tuple[SiteCrawl, list[str], list[str]]:
        async with netglean.Client(_local()) as client:
            crawled = await client.crawl(f"{site}/tree/7/0", max_pages=10)
            mapped = await client.map(f"{site}/tree/7/0", format="json")
            batch = await client.batch_scrape([f"{site}/tree/7/1", f"{site}/tree/7/2"])
            return crawled, mapped.urls or [], [entry.url for entry in batch.results]

    crawled, mapped, batch = anyio.run(calls)
    assert sorted(visit.url for visit in crawled.pages) == sorted(
        f"{site}/tree/7/{n}" for n in range(7)
    )
    assert f"{site}/tree/7/1" in mapped and batch == [f"{site}/tree/7/1", f"{site}/tree/7/2"]


def test_the_operators_policy_holds_and_a_failure_raises_call_failed(site: str) -> None:
    """Loopback is refused unless the settings allow it: no argument of a call can say otherwise."""
    strict = netglean.Settings.load({"allow_private_hosts": False})
    with pytest.raises(netglean.CallFailed) as failed:
        anyio.run(lambda: netglean.scrape(f"{site}/tree/3/0", settings=strict))
    assert failed.value.code == "blocked_address" and failed.value.tool == "scrape"
    with pytest.raises(netglean.CallFailed) as invalid:
        anyio.run(lambda: netglean.scrape(f"{site}/tree/3/0", settings=_local(), max_chars=-1))
    assert invalid.value.code == "invalid_arguments" and invalid.value.detail["errors"]


@pytest.mark.browser
def test_the_operators_user_agent_goes_with_every_fetch_and_the_browser() -> None:
    """--user-agent replaces netglean's own on plain fetches and in the browser; a call cannot
    change it."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from tests.support.fixture_site import serve

    def echo(request: Request) -> HTMLResponse:
        said = request.headers.get("user-agent", "")
        return HTMLResponse(
            f"<html><head><title>Agent</title></head><body><main><p>Sent by {said}.</p></main>"
        )

    agent = "HarbourBot/1.0 (+https://harbour.test/bot)"
    settings = netglean.Settings.load(
        {"allow_private_hosts": True, "host_interval": 0.0, "user_agent": agent}
    )

    async def both(url: str) -> tuple[str, str]:
        async with netglean.Client(settings) as client:
            plain = await client.scrape(url, format="text")
            rendered = await client.scrape(url, format="text", strategy="browser")
            return plain.content or "", rendered.content or ""

    with serve(app=Starlette(routes=[Route("/", echo)])) as port:
        plain, rendered = anyio.run(both, f"http://127.0.0.1:{port}/")
    assert f"Sent by {agent}." in plain and f"Sent by {agent}." in rendered
    with pytest.raises(netglean.ConfigurationError, match="printable ASCII"):
        netglean.Settings.load({"user_agent": "Bot/1.0\r\nX-Injected: 1"})
