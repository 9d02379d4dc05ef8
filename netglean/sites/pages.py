"""Reading one page, as scrape, batch_scrape and the crawls do: fetched under the policy, read in a reader process
(HTML into metadata, links and content in a format; other text sanitised), and sliced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from netglean.core.errors import UnsupportedContent
from netglean.read import jobs as read_jobs

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

HTML = read_jobs.HTML_TYPES
TEXT = frozenset({"text/plain", "text/markdown", "application/json", "text/csv"})


@dataclass(frozen=True, slots=True)
class Reading:
    """How a page is read: its format, whether only the main content, how much, and which links come with it."""

    fmt: str
    main_content: bool
    limit: int
    include_links: bool
    frontier: bool = False
    """Also return every link of the page (navigation included): what a crawl follows."""


@dataclass(frozen=True, slots=True)
class PageRead:
    """One page read: one slice of its formatted content, what the page says of itself, and what it links to."""

    url: str
    final_url: str
    status: int
    format: str
    content: str
    start_index: int
    total_chars: int
    bytes: int
    metadata: dict[str, Any]
    title: str | None = None
    links: list[dict[str, str]] = field(default_factory=list)
    """The content's links, each once (when asked for)."""
    frontier: list[str] = field(default_factory=list)
    """Every link of the page, navigation included: where a crawl may go next (when asked for)."""

    @property
    def next_start(self) -> int | None:
        """Where the next slice starts, when more content follows this one."""
        end = self.start_index + len(self.content)
        return end if end < self.total_chars else None

    @property
    def canonical(self) -> str | None:
        canonical = self.metadata.get("canonical")
        return canonical if isinstance(canonical, str) else None


async def read_page(fetcher: Fetcher, readers: Readers, url: str, start: int, how: Reading) -> PageRead:
    """Fetch one page and read it: ``how.limit`` characters of its content from ``start``, with its metadata."""
    page = await fetcher.fetch(url)
    metadata: dict[str, Any] = {}
    links: list[dict[str, str]] = []
    frontier: list[str] = []
    title = None
    if page.media_type in HTML:
        reading = await readers.run(
            read_jobs.read_page,
            document=page.document,
            fmt=how.fmt,
            main_content=how.main_content,
            frontier=how.frontier,
        )
        metadata, frontier, content, title, links = (
            reading.metadata,
            reading.frontier,
            reading.content,
            reading.title,
            reading.links,
        )
    elif page.media_type in TEXT or page.media_type.startswith("text/"):
        content = await readers.run(read_jobs.plain_text, document=page.document)
    else:
        raise UnsupportedContent(
            f"{page.url} is {page.media_type}, not a page to read; use download to identify it",
            detail={"media_type": page.media_type, "url": page.url},
        )
    return PageRead(
        url=url,
        final_url=page.url,
        status=page.status,
        format=how.fmt,
        content=content[start : start + how.limit],
        start_index=start,
        total_chars=len(content),
        bytes=len(page.body),
        metadata=metadata,
        title=title or None,
        links=list({link["url"]: link for link in links}.values()) if how.include_links else [],
        frontier=frontier,
    )
