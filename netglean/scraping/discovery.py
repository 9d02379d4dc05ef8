"""A site's URLs, as map finds them: the page's own links, then its sitemaps (robots.txt's Sitemap:
lines and /sitemap.xml, indexes followed, at most MAX_SITEMAPS read), filtered and capped. The
page's links are those of the page as the strategy reads it: ``auto`` renders a JavaScript shell
with no links, whose navigation its scripts build, and a bot wall a browser may pass."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from netglean.browser.pool import read_by_strategy
from netglean.core.errors import ToolError
from netglean.read import jobs as read_jobs
from netglean.read.links import LinkFilter, Taken
from netglean.read.page_signals import javascript_shell
from netglean.scraping.pages import HTML

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers

MAX_SITEMAPS = 25
SITEMAP_ACCEPT = "application/xml,text/xml;q=0.9,*/*;q=0.5"


@dataclass(frozen=True, slots=True)
class Discovery:
    urls: list[str]
    """Within the limit, page links first, then sitemap entries, each once."""
    found: int
    """How many passed the filters before the limit."""
    sitemaps: list[str]
    linked: int
    listed: int
    strategy: str = "http"
    """How the page was read: over plain HTTP, or rendered in the browser."""


@dataclass(frozen=True, slots=True)
class SitemapUrls:
    urls: list[str]
    """The locations taken, in the order listed."""
    read: list[str]
    """The sitemaps read."""
    listed: int
    """How many locations the sitemaps read list, taken or not."""


async def read_sitemaps(
    fetcher: Fetcher,
    readers: Readers,
    pending: list[str],
    most: int,
    wanted: LinkFilter | None = None,
) -> SitemapUrls:
    """The locations the sitemaps ``pending`` list (those ``wanted`` takes, when given; indexes
    followed, at most MAX_SITEMAPS read), until there are ``most``. A missing or broken sitemap is
    skipped: it fails nothing."""
    listed: list[str] = []
    read: list[str] = []
    count = 0
    pending = list(pending)
    while pending and len(read) < MAX_SITEMAPS and len(listed) < most:
        sitemap_url = pending.pop(0)
        if sitemap_url in read:
            continue
        read.append(sitemap_url)
        try:
            fetched = await fetcher.fetch(sitemap_url, accept=SITEMAP_ACCEPT)
            sitemap = await readers.run(
                read_jobs.sitemap,
                body=fetched.body,
                max_bytes=fetcher.policy.max_decoded_bytes,
                wanted=wanted,
            )
        except ToolError:
            read.pop()
            continue
        (pending if sitemap.is_index else listed).extend(sitemap.locations)
        count += 0 if sitemap.is_index else sitemap.listed
    return SitemapUrls(listed, read, count)


async def discover(
    fetcher: Fetcher,
    readers: Readers,
    url: str,
    *,
    limit: int,
    include_sitemaps: bool,
    search: str,
    same_domain: bool,
    strategy: str = "auto",
    browser: BrowserPool | None = None,
) -> Discovery:
    def wanted(page_url: str) -> LinkFilter:
        return LinkFilter(
            urlsplit(page_url).hostname or "",
            stay_on_domain=same_domain,
            search=search.lower(),
            most=limit,
        )

    async def links_of(page: Page) -> tuple[Page, Taken, bool]:
        if page.media_type not in HTML:
            return page, Taken([]), False
        linked = await readers.run(
            read_jobs.page_links, document=page.document, wanted=wanted(page.url)
        )
        walled = await readers.run(
            read_jobs.wall_signals,
            document=page.document,
            status=page.status,
            headers=dict(page.headers),
        )
        return page, linked, bool(walled)

    def lacking(found: tuple[Page, Taken, bool]) -> bool:
        """A JavaScript shell with no links, or a bot wall a browser may pass."""
        page, linked, walled = found
        return walled or (not linked.of and javascript_shell(page.body))

    (page, linked, _), served = await read_by_strategy(
        strategy, fetcher, browser, url, links_of, lacking=lacking
    )
    listed = SitemapUrls([], [], 0)
    if include_sitemaps:
        origin = f"{urlsplit(page.url).scheme}://{urlsplit(page.url).netloc}"
        pending = list(dict.fromkeys([*await fetcher.sitemaps(page.url), f"{origin}/sitemap.xml"]))
        listed = await read_sitemaps(
            fetcher, readers, pending, limit * 4, wanted=replace(wanted(page.url), most=limit * 4)
        )
    # Filtered in the reader processes: what is left here is bounded by limit, however many links
    # there were.
    keep = list(dict.fromkeys([*linked.links, *listed.urls]))
    return Discovery(
        keep[:limit], len(keep) + linked.dropped, listed.read, linked.of, listed.listed, served
    )
