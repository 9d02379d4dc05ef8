"""Reading listing pages for the feed tools: one page's items or a draft config (scrape_url,
capture_config), and a config's pages followed through their pagination (apply_config) — each page
fetched under the policy (or rendered in the browser, as the strategy says) and read in a reader
process.

``auto`` reads over plain HTTP and renders only when the page gives no items where some are
expected: a single-page app's listing is an empty mount point until its scripts run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from netglean.browser.pool import read_by_strategy
from netglean.core.errors import InvalidArguments, ToolError
from netglean.feeds import config as feed_config
from netglean.feeds import jobs as feed_jobs
from netglean.feeds.auto import Scraper
from netglean.feeds.config_yaml import parse_yaml
from netglean.feeds.output import count_items, json_feed, rss, unique, within_output_cap
from netglean.net.strategy import page_strategy

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers

DEFAULT_PAGES = 3
"""Pages a config with pagination reads when it says no max_pages."""


@dataclass(frozen=True, slots=True)
class Enclosure:
    url: str
    type: str
    length: int | None = None


@dataclass(frozen=True, slots=True)
class ListedItem:
    """One item of a listing page, as scrape_url shows it (catalog/schemas/FeedItem.yaml)."""

    id: str
    title: str | None = None
    url: str | None = None
    description: str | None = None
    published_at: str | None = None
    updated: str | None = None
    author: str | None = None
    image: str | None = None
    categories: list[str] | None = None
    enclosure: Enclosure | None = None


_ITEM_KEYS = frozenset(ListedItem.__dataclass_fields__)


def listed_item(item: Mapping[str, Any]) -> ListedItem:
    """An item as the feed jobs hold it (a dict, as the feed writers take it), typed; a key that is
    no item field is the engine's mistake, and fails here."""
    if unknown := item.keys() - _ITEM_KEYS:
        raise ValueError(f"a listed item holds keys no item has: {sorted(unknown)}")
    enclosure = item.get("enclosure")
    return ListedItem(
        id=item["id"],
        title=item.get("title"),
        url=item.get("url"),
        description=item.get("description"),
        published_at=item.get("published_at"),
        updated=item.get("updated"),
        author=item.get("author"),
        image=item.get("image"),
        categories=item.get("categories"),
        enclosure=Enclosure(enclosure["url"], enclosure["type"], enclosure.get("length"))
        if enclosure is not None
        else None,
    )


@dataclass(frozen=True, slots=True)
class Listing:
    url: str
    """Where the page was found, after redirects."""
    title: str | None
    items: list[ListedItem]
    drops: feed_jobs.Drops
    """Candidate items left out, by why (catalog/schemas/AdmissionDrops.yaml names them)."""
    strategy: str = "http"
    """How the page was read: over plain HTTP, or rendered in the browser."""
    scrapers: tuple[Scraper, ...] = ()
    """The detectors that found candidate items, when the items were detected (not found by a
    selector)."""


async def listing(
    fetcher: Fetcher,
    readers: Readers,
    url: str,
    items_selector: str | None,
    *,
    strategy: str = "auto",
    browser: BrowserPool | None = None,
) -> Listing:
    """A listing page's items, found by ``items_selector`` or by detection; ``auto`` renders a page
    without any."""

    async def read(page: Page) -> Listing:
        return await page_listing(readers, page, items_selector)

    found, served = await read_by_strategy(
        page_strategy(strategy), fetcher, browser, url, read, lacking=lambda found: not found.items
    )
    return dataclasses.replace(found, strategy=served)


async def page_listing(readers: Readers, page: Page, items_selector: str | None = None) -> Listing:
    """The items of a page already fetched, as scrape_url finds them (inspect_url counts them)."""
    found = await readers.run(
        feed_jobs.listing_items,
        document=page.document,
        items_selector=items_selector,
        deadline=anyio.current_effective_deadline(),
    )
    items = [listed_item(item) for item in found.items]
    return Listing(page.url, found.title, items, found.drops, scrapers=found.scrapers)


@dataclass(frozen=True, slots=True)
class Drafted:
    url: str
    """Where the page was found, after redirects."""
    draft: feed_jobs.Draft
    strategy: str
    """How the page was read (http or browser); a draft from a rendered page names a browser
    strategy itself."""


async def draft(
    fetcher: Fetcher,
    readers: Readers,
    url: str,
    items_selector: str | None,
    *,
    strategy: str = "auto",
    browser: BrowserPool | None = None,
) -> Drafted:
    """A draft config for the page (by ``items_selector`` when given) with its counts; ``auto``
    renders a page whose draft finds no items, and a draft written from a rendered page says
    ``strategy: browserless``, so apply_config renders it too."""

    async def read(page: Page) -> tuple[str, feed_jobs.Draft]:
        drafted = await readers.run(
            feed_jobs.draft_feed,
            document=page.document,
            items_selector=items_selector,
            deadline=anyio.current_effective_deadline(),
        )
        return page.url, drafted

    (found_at, drafted), served = await read_by_strategy(
        page_strategy(strategy),
        fetcher,
        browser,
        url,
        read,
        lacking=lambda found: not found[1].articles_count,
    )
    if served == "browser":
        config = {**drafted.config, "strategy": "browserless"}
        drafted = dataclasses.replace(drafted, config=config)
    return Drafted(found_at, drafted, served)


async def load(
    config: Any, text: str | None, parameters: dict[str, Any] | None, url: str | None = None
) -> feed_config.Loaded:
    """A config (an object, or YAML) parsed and checked, in a worker thread: YAML, schemas and
    patterns are CPU work, bounded but not for the event loop. ``url`` stands in for a missing
    channel.url."""
    if (config is None) == (text is None):
        raise InvalidArguments("give exactly one of config (an object) or yaml (its text)")

    def checked() -> feed_config.Loaded:
        return feed_config.load(
            parse_yaml(text) if text is not None else config, parameters, url=url
        )

    return await anyio.to_thread.run_sync(checked, abandon_on_cancel=True)


@dataclass(frozen=True, slots=True)
class PaginationStop:
    """A later page of a feed that could not be read, so its pagination stopped there."""

    page: int
    """Its number (the config's own page is 1)."""
    url: str
    code: str
    """The error code of why it could not be read (timeout: the call's deadline came first)."""
    message: str


@dataclass(slots=True)
class FeedRun:
    """What a config read: its channel (titled from the first page when it names no title), the
    items of every page in order, how many pages, and where the pagination stopped early, if it
    did."""

    url: str
    """Where the first page was found, after redirects."""
    channel: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 1
    stopped: PaginationStop | None = None
    """The page that could not be read, when one could not."""
    matched: int = 0
    """Elements the items selector found on every page read, whether or not they gave an item."""
    strategy: str = "http"
    """How the pages were read (the first page's strategy serves the rest)."""


async def read_feed(
    fetcher: Fetcher,
    readers: Readers,
    config: dict[str, Any],
    *,
    stop_by: float,
    strategy: str | None = None,
    browser: BrowserPool | None = None,
) -> FeedRun:
    """The config's pages, from its channel URL through its pagination, read as ``strategy`` (else
    the config's own strategy) says; under ``auto`` a first page without items is rendered, and so
    are the pages after it. A later page that cannot be read (another scheme, a blocked address, a
    failure, or not before ``stop_by``) ends the pagination, not the feed."""
    how = page_strategy(strategy or config.get("strategy", feed_config.DEFAULT_STRATEGY))
    channel = dict(config["channel"])
    selectors = config.get("selectors")
    pagination = (selectors or {}).get("items", {}).get("pagination") if selectors else None
    # the config's own limits: they may only lower the operator's
    request = config.get("request") or {}
    allowed = (pagination.get("max_pages", DEFAULT_PAGES) if pagination is not None else 1) or 1
    allowed = min(allowed, request.get("max_requests", allowed))
    (first_url, first), served = await _page(
        fetcher,
        readers,
        config,
        channel["url"],
        want_title=not channel.get("title"),
        strategy=how,
        browser=browser,
    )
    if first.title:
        channel["title"] = first.title
    run = FeedRun(first_url, channel, list(first.items), matched=first.matched, strategy=served)
    url, seen = first.next_url, {channel["url"], first_url}
    while url and run.pages < allowed and url not in seen:
        seen.add(url)
        with anyio.CancelScope(deadline=stop_by) as waited:
            try:
                (_, later), _ = await _page(
                    fetcher,
                    readers,
                    config,
                    url,
                    want_title=False,
                    strategy=served,
                    browser=browser,
                )
            except ToolError as error:
                run.stopped = PaginationStop(run.pages + 1, url, error.code, error.message)
                break
        if waited.cancelled_caught:
            message = "the page could not be read before the call's deadline"
            run.stopped = PaginationStop(run.pages + 1, url, "timeout", message)
            break
        run.pages += 1
        run.items += later.items
        run.matched += later.matched
        url = later.next_url
    return run


@dataclass(slots=True)
class BuiltFeed:
    """A feed built from a config: what reading its pages did, every item found (each id once),
    and the feed written in the formats asked (RSS, JSON Feed), within the most text one feed may
    carry."""

    run: FeedRun
    items: list[Mapping[str, Any]]
    rss: str | None
    json: dict[str, Any] | None
    item_count: int
    """Items in the feed as written (the RSS document's, else the JSON Feed's)."""
    over_limit: int
    """Items found beyond the limit, left out."""
    cut: int
    """Items within the limit the output cap left out."""


async def build_feed(
    fetcher: Fetcher,
    readers: Readers,
    config: dict[str, Any],
    *,
    formats: Collection[str],
    stop_by: float,
    limit: int | None = None,
    strategy: str | None = None,
    browser: BrowserPool | None = None,
) -> BuiltFeed:
    """The config's feed (apply_config's, a feed project's): its pages read (read_feed), its items
    each id once, the first ``limit`` of them (every one without) written in ``formats`` ("rss",
    "json_feed")."""
    run = await read_feed(
        fetcher, readers, config, stop_by=stop_by, strategy=strategy, browser=browser
    )
    found = unique(run.items)
    over = len(found) - limit if limit and len(found) > limit else 0

    def written() -> tuple[str | None, dict[str, Any] | None, int, int]:
        """Up to 10 million characters written and escaped, so off the event loop."""
        items, cut = within_output_cap(found[:limit])
        document = (
            rss(run.channel, items, config.get("stylesheets") or ()) if "rss" in formats else None
        )
        feed = json_feed(run.channel, items) if "json_feed" in formats else None
        count = (
            count_items(document) if document is not None else len((feed or {}).get("items", ()))
        )
        return document, feed, count, cut

    document, feed, count, cut = await anyio.to_thread.run_sync(written)
    return BuiltFeed(run, found, document, feed, count, over, cut)


async def _page(
    fetcher: Fetcher,
    readers: Readers,
    config: dict[str, Any],
    url: str,
    *,
    want_title: bool,
    strategy: str,
    browser: BrowserPool | None,
) -> tuple[tuple[str, feed_jobs.FeedPage], str]:
    request = config.get("request") or {}

    async def read(page: Page) -> tuple[str, feed_jobs.FeedPage]:
        found = await readers.run(
            feed_jobs.feed_page,
            document=page.document,
            config=config,
            want_title=want_title,
            deadline=anyio.current_effective_deadline(),
        )
        return page.url, found

    return await read_by_strategy(
        strategy,
        fetcher,
        browser,
        url,
        read,
        lacking=lambda found: not found[1].items,
        headers=config.get("headers") or {},
        max_redirects=request.get("max_redirects"),
        timeout=request.get("timeout_seconds"),
    )
