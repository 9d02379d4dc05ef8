"""Reading one page, as scrape, batch_scrape and the crawls do: fetched under the policy, read in a
reader process (HTML into metadata, links and content in a format; other text sanitised) and sliced
there; a bot wall or WAF challenge answering instead of the page is an error (Blocked), never
content."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from netglean.core.errors import Blocked, HttpStatus, NotAvailable, UnsupportedContent
from netglean.read import jobs as read_jobs
from netglean.read.document import HTML_TYPES, Document
from netglean.read.links import ContentLink, LinkFilter
from netglean.read.page_meta import PageMeta
from netglean.read.page_signals import bot_wall, javascript_shell
from netglean.read.reading import WALL_STATUSES, HtmlReading

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers

HTML = HTML_TYPES
TEXT_BEYOND = frozenset({"application/json"})
"""Media types read as text besides every text/* one."""


@dataclass(frozen=True, slots=True)
class Reading:
    """How a page is read: its format, whether only the main content, how much, and which links come
    with it."""

    fmt: str
    main_content: bool
    limit: int
    include_links: bool
    frontier: LinkFilter | None = None
    """Also return the links of the page (navigation included) that this filter takes: what a crawl
    follows."""
    strategy: str = "http"
    """auto (HTTP, rendered when the page needs it), http or browser
    (netglean.net.strategy.page_strategy)."""
    link_style: str = "inline"
    """How markdown writes links (netglean.read.extract.LINK_STYLES)."""


def with_links(fmt: str, include_links: bool) -> bool:
    """Whether a page's links come with it: when asked, and always for json (the structured result
    has them)."""
    return include_links or fmt == "json"


@dataclass(frozen=True, slots=True)
class PageRead:
    """One page read: one slice of its formatted content, what the page says of itself, and what it
    links to."""

    url: str
    final_url: str
    status: int
    format: str
    content: str
    start_index: int
    total_chars: int
    bytes: int
    metadata: PageMeta
    title: str | None = None
    links: list[ContentLink] = field(default_factory=list)
    """The content's links, each once (when asked for)."""
    frontier: list[str] = field(default_factory=list)
    """The links of the page a crawl follows, navigation included: where it may go next (when asked
    for)."""
    frontier_dropped: int = 0
    """Links the crawl wanted past the most it takes from one page."""
    links_unlisted: int = 0
    """Links of the content past those ``links`` lists (when asked for)."""
    next_start: int | None = None
    """Where the next slice starts, when more content follows this one."""
    readerable: bool | None = None
    """Whether the page reads as an article (HTML read for its main content only)."""
    whole: bool = True
    """False when the main content could not be checked to hold the page's article
    (Extraction.whole)."""
    strategy: str = "http"
    """How the page was read: over plain HTTP, or rendered in the browser."""

    @property
    def canonical(self) -> str | None:
        return self.metadata.canonical


SHELL_CHARS = 200
"""Characters of content under which an HTML page that shows a framework's marks is taken for a
JavaScript shell, which ``auto`` renders."""


async def read_page(
    fetcher: Fetcher,
    readers: Readers,
    url: str,
    start: int,
    how: Reading,
    *,
    browser: BrowserPool | None = None,
) -> PageRead:
    """Read one page as ``how.strategy`` says: ``how.limit`` characters of its content from
    ``start``, with its metadata. ``auto`` reads over HTTP and renders in ``browser`` only when the
    page needs it (a JavaScript shell: little content and scripts; or a bot wall, which a browser
    may pass) and a browser is installed."""
    if how.strategy == "browser":
        if browser is None:
            raise NotAvailable(
                "this server has no browser to render with", detail={"argument": "strategy"}
            )
        return await _read_rendered(fetcher, readers, browser, url, start=start, how=how)
    renders = how.strategy == "auto" and browser is not None and browser.installed
    try:
        read, shell = await _read_over_http(fetcher, readers, url, start, how)
    except Blocked as wall:
        if not renders:
            raise
        assert browser is not None
        try:
            return await _read_rendered(fetcher, readers, browser, url, start=start, how=how)
        except Blocked:
            # the wall as plain HTTP met it: its status and headers say the most
            raise wall from None
    if renders and shell:
        assert browser is not None
        return await _read_rendered(fetcher, readers, browser, url, start=start, how=how)
    return read


async def _read_rendered(
    fetcher: Fetcher, readers: Readers, browser: BrowserPool, url: str, *, start: int, how: Reading
) -> PageRead:
    rendered = await browser.render(fetcher, url, timeout=fetcher.policy.total_timeout)
    body = rendered.html.encode("utf-8")
    reading = await _read_html(
        readers, Document(rendered.final_url, body, "utf-8"), how, start, rendered.status, {}
    )
    if reading.wall:
        raise Blocked(
            f"{rendered.final_url} answered with a bot wall or challenge page (HTTP "
            f"{rendered.status}) in a browser too, not the page; netglean does not get past it",
            detail={
                "url": rendered.final_url,
                "status": rendered.status,
                "signals": list(reading.wall),
            },
            next_step="inspect_url",
        )
    if rendered.status >= 400:
        raise HttpStatus(
            f"{rendered.final_url} answered HTTP {rendered.status}",
            status=rendered.status,
            detail={"url": rendered.final_url},
        )
    return _page_read(
        url,
        final_url=rendered.final_url,
        status=rendered.status,
        size=len(body),
        how=how,
        reading=reading,
        strategy="browser",
    )


async def _read_html(  # noqa: PLR0917
    readers: Readers,
    document: Document,
    how: Reading,
    start: int,
    status: int,
    headers: dict[str, str],
) -> HtmlReading:
    """An HTML page read in a reader process as ``how`` says, fetched or rendered alike."""
    return await readers.run(
        read_jobs.read_page,
        document=document,
        fmt=how.fmt,
        main_content=how.main_content,
        link_style=how.link_style,
        frontier=how.frontier,
        start=start,
        limit=how.limit,
        status=status,
        headers=headers,
    )


def _page_read(
    url: str,
    *,
    final_url: str,
    status: int,
    size: int,
    how: Reading,
    reading: HtmlReading,
    strategy: str,
) -> PageRead:
    return PageRead(
        url=url,
        final_url=final_url,
        status=status,
        format=how.fmt,
        content=reading.content,
        start_index=reading.start_index,
        total_chars=reading.total_chars,
        bytes=size,
        metadata=reading.metadata,
        title=reading.title or None,
        links=reading.links if how.include_links else [],
        links_unlisted=reading.links_unlisted if how.include_links else 0,
        frontier=reading.frontier,
        frontier_dropped=reading.frontier_dropped,
        next_start=reading.next_start,
        readerable=reading.readerable,
        whole=reading.whole,
        strategy=strategy,
    )


async def _read_over_http(
    fetcher: Fetcher, readers: Readers, url: str, start: int, how: Reading
) -> tuple[PageRead, bool]:
    """The page read over plain HTTP, and whether it looks like a JavaScript shell."""
    # a wall often answers 403: its markup says which it is
    page = await fetcher.fetch(url, error_pages=True)
    if page.status >= 400:
        await _refuse(readers, page)
    headers = dict(page.headers)
    if page.media_type in HTML:
        reading = await _read_html(readers, page.document, how, start, page.status, headers)
        if reading.wall:
            raise _blocked(page, list(reading.wall))
        shell = reading.total_chars < SHELL_CHARS and javascript_shell(page.body)
        read = _page_read(
            url,
            final_url=page.url,
            status=page.status,
            size=len(page.body),
            how=how,
            reading=reading,
            strategy="http",
        )
        return read, shell
    if page.media_type in TEXT_BEYOND or page.media_type.startswith("text/"):
        # a text body has no markup: only a vendor's header says so
        signals = bot_wall(page.status, headers, "")
        if signals:
            raise _blocked(page, signals)
        text = await readers.run(
            read_jobs.text_page, document=page.document, fmt=how.fmt, start=start, limit=how.limit
        )
        return PageRead(
            url=url,
            final_url=page.url,
            status=page.status,
            format=how.fmt,
            content=text.content,
            start_index=text.start_index,
            total_chars=text.total_chars,
            bytes=len(page.body),
            metadata=PageMeta(),
            next_start=text.next_start,
        ), False
    raise UnsupportedContent(
        f"{page.url} is {page.media_type}, not a page to read; use download to identify it",
        detail={"media_type": page.media_type, "url": page.url},
    )


async def _refuse(readers: Readers, page: Page) -> None:
    """An error page is never content: a wall's (its status and signs say so) is Blocked, any other
    HttpStatus."""
    if page.status in WALL_STATUSES:
        signals = await readers.run(
            read_jobs.wall_signals,
            document=page.document,
            status=page.status,
            headers=dict(page.headers),
        )
        if signals:
            raise _blocked(page, signals)
    if page.lease is not None:
        page.lease.release()  # now, not when the traceback that holds the page is let go
    raise HttpStatus(
        f"{page.url} answered HTTP {page.status}", status=page.status, detail={"url": page.url}
    )


def _blocked(page: Page, signals: list[str]) -> Blocked:
    if page.lease is not None:
        page.lease.release()
    return Blocked(
        f"{page.url} answered with a bot wall or challenge page (HTTP {page.status}), not the "
        "page; netglean does not get past it",
        detail={"url": page.url, "status": page.status, "signals": signals},
        next_step="inspect_url",
    )
