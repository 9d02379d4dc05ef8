"""Reading listing pages for the feed tools: one page's items or a draft config (scrape_url, capture_config), and a
config's pages followed through their pagination (apply_config) — each page fetched under the policy and read
in a reader process."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from netglean.core.errors import InvalidArguments, ToolError
from netglean.feeds import config as feed_config
from netglean.feeds import jobs as feed_jobs
from netglean.feeds.config_yaml import parse_yaml

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers

DEFAULT_PAGES = 3
"""Pages a config with pagination reads when it says no max_pages."""


@dataclass(frozen=True, slots=True)
class Listing:
    url: str
    """Where the page was found, after redirects."""
    title: str | None
    items: list[dict[str, Any]]
    drops: dict[str, int]
    """Candidate items left out, by why (catalog/schemas/AdmissionDrops.yaml names them)."""


async def listing(fetcher: Fetcher, readers: Readers, url: str, items_selector: str | None) -> Listing:
    """A listing page's items, found by ``items_selector`` or by detection."""
    return await page_listing(readers, await fetcher.fetch(url), items_selector)


async def page_listing(readers: Readers, page: Page, items_selector: str | None = None) -> Listing:
    """The items of a page already fetched, as scrape_url finds them (inspect_url counts them)."""
    found = await readers.run(
        feed_jobs.listing_items,
        document=page.document,
        items_selector=items_selector,
        deadline=anyio.current_effective_deadline(),
    )
    return Listing(page.url, found.title, found.items, found.drops)


async def draft(
    fetcher: Fetcher, readers: Readers, url: str, items_selector: str | None
) -> tuple[str, feed_jobs.Draft]:
    """Where the page was found, and a draft config for it (by ``items_selector`` when given) with its counts."""
    page = await fetcher.fetch(url)
    drafted = await readers.run(
        feed_jobs.draft_feed,
        document=page.document,
        items_selector=items_selector,
        deadline=anyio.current_effective_deadline(),
    )
    return page.url, drafted


async def load(
    config: Any, text: str | None, parameters: dict[str, Any] | None, url: str | None = None
) -> feed_config.Loaded:
    """A config (an object, or YAML) parsed and checked, in a worker thread: YAML, schemas and patterns are CPU
    work, bounded but not for the event loop. ``url`` stands in for a missing channel.url."""
    if (config is None) == (text is None):
        raise InvalidArguments("give exactly one of config (an object) or yaml (its text)")

    def checked() -> feed_config.Loaded:
        return feed_config.load(parse_yaml(text) if text is not None else config, parameters, url=url)

    return await anyio.to_thread.run_sync(checked, abandon_on_cancel=True)


@dataclass(slots=True)
class FeedRun:
    """What a config read: its channel (titled from the first page when it names no title), the items of every
    page in order, how many pages, and where the pagination stopped early, if it did."""

    url: str
    """Where the first page was found, after redirects."""
    channel: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 1
    stopped: dict[str, Any] | None = None
    """The page that could not be read: its number, URL, error code and message."""
    matched: int = 0
    """Elements the items selector found on every page read, whether or not they gave an item."""


async def read_feed(fetcher: Fetcher, readers: Readers, config: dict[str, Any], *, stop_by: float) -> FeedRun:
    """The config's pages, from its channel URL through its pagination. A later page that cannot be read (another
    scheme, a blocked address, a failure, or not before ``stop_by``) ends the pagination, not the feed."""
    channel = dict(config["channel"])
    selectors = config.get("selectors")
    pagination = (selectors or {}).get("items", {}).get("pagination") if selectors else None
    request = config.get("request") or {}  # the config's own limits: they may only lower the operator's
    allowed = (pagination.get("max_pages", DEFAULT_PAGES) if pagination is not None else 1) or 1
    allowed = min(allowed, request.get("max_requests", allowed))
    first_url, first = await _page(fetcher, readers, config, channel["url"], want_title=not channel.get("title"))
    if first.title:
        channel["title"] = first.title
    run = FeedRun(first_url, channel, list(first.items), matched=first.matched)
    url, seen = first.next_url, {channel["url"], first_url}
    while url and run.pages < allowed and url not in seen:
        seen.add(url)
        with anyio.CancelScope(deadline=stop_by) as waited:
            try:
                _, later = await _page(fetcher, readers, config, url, want_title=False)
            except ToolError as error:
                run.stopped = {"page": run.pages + 1, "url": url, "code": error.code, "message": error.message}
                break
        if waited.cancelled_caught:
            message = "the page could not be read before the call's deadline"
            run.stopped = {"page": run.pages + 1, "url": url, "code": "timeout", "message": message}
            break
        run.pages += 1
        run.items += later.items
        run.matched += later.matched
        url = later.next_url
    return run


async def _page(
    fetcher: Fetcher, readers: Readers, config: dict[str, Any], url: str, *, want_title: bool
) -> tuple[str, feed_jobs.FeedPage]:
    request = config.get("request") or {}
    page = await fetcher.fetch(
        url,
        headers=config.get("headers") or {},
        max_redirects=request.get("max_redirects"),
        timeout=request.get("timeout_seconds"),
    )
    read = await readers.run(
        feed_jobs.feed_page,
        document=page.document,
        config=config,
        want_title=want_title,
        deadline=anyio.current_effective_deadline(),
    )
    return page.url, read
