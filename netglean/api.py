"""netglean's engines in a Python program, without a server: the same tools, network policy and
typed results as MCP, REST and the command line, through the one call path they share.

    import netglean

    page = await netglean.scrape("https://example.org/")
    print(page.title, page.content)

    async with netglean.Client(netglean.Settings.load({"host_interval": 0.5})) as client:
        site = await client.crawl("https://example.org/", max_pages=50)
        feed = await client.apply_config({"channel": {...}, "selectors": {...}})

A client holds what a server holds for its calls (the fetcher's politeness and robots.txt cache,
the reader processes, the store): open one for many calls; the module functions open one per call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from netglean.app import build_runner
from netglean.calls.registry import load_registry
from netglean.core.errors import CODES, NetgleanError
from netglean.core.settings import Settings
from netglean.generated.models import (
    ApplyConfigOutput,
    BatchScrapeOutput,
    MapOutput,
    ScanUrlOutput,
    ScrapedPage,
    SiteCrawl,
)

if TYPE_CHECKING:
    from netglean.calls.runner import ToolRunner

Result = TypeVar("Result", bound=BaseModel)


class CallFailed(NetgleanError):
    """A call that ended in an error result: its code, message, whether trying again may help, and
    the detail, as an MCP client reads them in ``payload.error``."""

    def __init__(self, tool: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{tool}: {error['code']}: {error['message']}")
        self.tool = tool
        self.code: str = error["code"]
        self.message: str = error["message"]
        self.retryable: bool = bool(error.get("retryable"))
        self.detail: dict[str, Any] = dict(error.get("detail") or {})


class Client:
    """The tools of one netglean, called in-process. ``settings`` are the operator's (default:
    ``Settings.load()``, which reads the ``NETGLEAN_*`` environment): no argument of a call can
    loosen them."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.load()
        self._runner: ToolRunner | None = None

    async def __aenter__(self) -> Client:
        runner = build_runner(load_registry(self.settings.registry), self.settings)
        runner.services.runs.prepare()  # a store it cannot open is an error here, not in a call
        self._runner = runner
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.services.aclose()

    async def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """Any catalog tool by its name: its payload as JSON data; a failure raises CallFailed. A
        background tool (crawl, batch_crawl, run_project) is waited for, within the operator's
        call_timeout."""
        if self._runner is None:
            raise RuntimeError("a netglean.Client is used inside `async with`")
        envelope, _ = await self._runner.call(tool, arguments)
        if not envelope.ok:
            raise CallFailed(tool, envelope.payload["error"])
        payload: dict[str, Any] = envelope.payload
        if self._runner.spec(tool).execution == "async" and set(payload) == {"run"}:
            run = payload["run"]
            error = {
                "code": "timeout",
                "message": f"run {run['run_id']} did not finish within call_timeout "
                f"({run['status']})",
                "retryable": CODES["timeout"].retryable,
                "detail": {"run": run},
            }
            raise CallFailed(tool, error)
        return payload

    async def _typed(self, model: type[Result], tool: str, arguments: dict[str, Any]) -> Result:
        return model.model_validate(await self.call(tool, **arguments))

    async def scrape(self, url: str, **arguments: Any) -> ScrapedPage:
        """One page as markdown (or text, html, json blocks): scrape's arguments by keyword."""
        return await self._typed(ScrapedPage, "scrape", {"url": url, **arguments})

    async def batch_scrape(self, urls: Sequence[str], **arguments: Any) -> BatchScrapeOutput:
        """Many pages at once, each its own result (a failed one does not fail the others)."""
        return await self._typed(
            BatchScrapeOutput, "batch_scrape", {"urls": list(urls), **arguments}
        )

    async def crawl(self, url: str, **arguments: Any) -> SiteCrawl:
        """A site from ``url``, waited for: its pages."""
        return await self._typed(SiteCrawl, "crawl", {"url": url, **arguments})

    async def map(self, url: str, **arguments: Any) -> MapOutput:
        """A site's URLs, from its links and sitemaps, without reading every page."""
        return await self._typed(MapOutput, "map", {"url": url, **arguments})

    async def scan_url(self, url: str, **arguments: Any) -> ScanUrlOutput:
        """How readable a page is to agents: the Agent Readability Score and its fixes."""
        return await self._typed(ScanUrlOutput, "scan_url", {"url": url, **arguments})

    async def apply_config(self, config: Mapping[str, Any], **arguments: Any) -> ApplyConfigOutput:
        """A feed config run on its listing page: the RSS or JSON Feed."""
        return await self._typed(
            ApplyConfigOutput, "apply_config", {"config": dict(config), **arguments}
        )


async def scrape(url: str, *, settings: Settings | None = None, **arguments: Any) -> ScrapedPage:
    """``Client.scrape`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.scrape(url, **arguments)


async def batch_scrape(
    urls: Sequence[str], *, settings: Settings | None = None, **arguments: Any
) -> BatchScrapeOutput:
    """``Client.batch_scrape`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.batch_scrape(urls, **arguments)


async def crawl(url: str, *, settings: Settings | None = None, **arguments: Any) -> SiteCrawl:
    """``Client.crawl`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.crawl(url, **arguments)


async def map(url: str, *, settings: Settings | None = None, **arguments: Any) -> MapOutput:
    """``Client.map`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.map(url, **arguments)


async def scan_url(
    url: str, *, settings: Settings | None = None, **arguments: Any
) -> ScanUrlOutput:
    """``Client.scan_url`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.scan_url(url, **arguments)


async def apply_config(
    config: Mapping[str, Any], *, settings: Settings | None = None, **arguments: Any
) -> ApplyConfigOutput:
    """``Client.apply_config`` in a client opened for this one call."""
    async with Client(settings) as client:
        return await client.apply_config(config, **arguments)
