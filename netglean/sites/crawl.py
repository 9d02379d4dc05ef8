"""Crawling a site breadth-first from a start URL: depth and page bounds, glob include/exclude, canonical URLs
read once, each page's failure kept as that page's, and the work stopped in time for the call to answer (with
what was read, and why it stopped)."""

from __future__ import annotations

import fnmatch
import re
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import anyio

from netglean.core.errors import ToolError
from netglean.sites.pages import PageRead, Reading, read_page
from netglean.sites.urls import normal, same_site

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

Report = Callable[[int, int], Awaitable[None]]
"""Told how many pages have been visited so far, and the most there may be."""


@dataclass(frozen=True, slots=True)
class CrawlPlan:
    max_depth: int
    max_pages: int
    stay_on_domain: bool
    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    reading: Reading
    max_content: int
    """Characters of content the whole crawl may return; reading stops once its pages hold that many."""
    width: int = 1
    """Pages read at once (the operator's global concurrency, or the batch's share of it)."""

    def wants(self, url: str, home: str) -> bool:
        if self.stay_on_domain and not same_site(url, home):
            return False
        if self.include and not any(p.match(url) for p in self.include):
            return False
        return not any(p.match(url) for p in self.exclude)


def globs(patterns: Sequence[str]) -> tuple[re.Pattern[str], ...]:
    """Glob patterns (* and ?) matched against the whole URL; never a model's own regular expression."""
    return tuple(re.compile(fnmatch.translate(pattern)) for pattern in patterns)


@dataclass(frozen=True, slots=True)
class Visit:
    """One URL visited: read, found to be a duplicate of a page read already, or failed."""

    url: str
    depth: int
    page: PageRead | None = None
    duplicate_of: str | None = None
    error: ToolError | None = None


@dataclass(slots=True)
class Crawl:
    url: str
    visits: list[Visit] = field(default_factory=list)
    unvisited: int = 0
    """Links found and wanted but left unvisited."""
    stopped: str | None = None
    """Why links were left: max_pages, deadline (the time to answer in) or content_limit (max_content)."""

    @property
    def truncated(self) -> bool:
        return self.unvisited > 0

    @property
    def read(self) -> int:
        return sum(1 for visit in self.visits if visit.page is not None)

    @property
    def failed(self) -> int:
        return sum(1 for visit in self.visits if visit.error is not None)


@dataclass(slots=True)
class _Slot:
    """A page being read ahead of its turn: its outcome waits here until the crawl reaches it in breadth order."""

    url: str
    depth: int
    done: anyio.Event = field(default_factory=anyio.Event)
    read: PageRead | None = None
    error: ToolError | None = None
    late: bool = False


async def _read(fetcher: Fetcher, readers: Readers, slot: _Slot, reading: Reading, stop_by: float) -> None:
    try:
        with anyio.CancelScope(deadline=stop_by) as scope:
            slot.read = await read_page(fetcher, readers, slot.url, 0, reading)
        slot.late = scope.cancelled_caught  # out of time: the crawl ends at this page, which stays unvisited
    except ToolError as error:
        slot.error = error
    finally:
        slot.done.set()


async def crawl(
    fetcher: Fetcher, readers: Readers, seed: str, plan: CrawlPlan, *, stop_by: float, report: Report
) -> Crawl:
    """Breadth-first from ``seed``: each page read once (canonical URLs de-duplicated), failures kept per page,
    nothing started after ``stop_by`` (anyio time). Up to ``plan.width`` pages are read at once, ahead of their
    turn, and taken in queue order, so the visits, the depths and the bounds are those of reading one at a time;
    politeness per host is the fetcher's."""
    home = urlsplit(seed).hostname or ""
    queue = deque([(normal(seed), 0)])
    seen = {queue[0][0]}
    canonical_seen: dict[str, str] = {}
    result = Crawl(seed)
    content = 0
    window: deque[_Slot] = deque()
    async with anyio.create_task_group() as tasks:

        def fill() -> None:
            while queue and len(window) < plan.width and len(result.visits) + len(window) < plan.max_pages:
                slot = _Slot(*queue.popleft())
                window.append(slot)
                tasks.start_soon(_read, fetcher, readers, slot, plan.reading, stop_by)

        fill()
        while window:
            slot = window[0]
            await slot.done.wait()
            if slot.late or content >= plan.max_content:
                result.stopped = "deadline" if slot.late else "content_limit"
                break
            window.popleft()
            if slot.read is None:
                result.visits.append(Visit(slot.url, slot.depth, error=slot.error))
                fill()
                continue
            read = slot.read
            canonical = normal(read.canonical or read.final_url)
            if canonical in canonical_seen:
                result.visits.append(Visit(slot.url, slot.depth, duplicate_of=canonical_seen[canonical]))
                fill()
                continue
            canonical_seen[canonical] = slot.url
            result.visits.append(Visit(slot.url, slot.depth, page=read))
            content += len(read.content)
            await report(len(result.visits), plan.max_pages)
            if slot.depth < plan.max_depth:
                for link in read.frontier:
                    target = normal(link)
                    if target not in seen and plan.wants(target, home):
                        seen.add(target)
                        queue.append((target, slot.depth + 1))
            if content < plan.max_content:
                fill()
        tasks.cancel_scope.cancel()  # pages read ahead of a stop are left: they are counted unvisited
    queue.extendleft((slot.url, slot.depth) for slot in reversed(window))
    if queue and result.stopped is None:
        result.stopped = "max_pages" if len(result.visits) >= plan.max_pages else "content_limit"
    result.unvisited = len(queue)
    return result
