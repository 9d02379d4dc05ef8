"""Crawling a site breadth-first from a start URL: depth and page bounds, glob include/exclude, canonical URLs
read once, each page's failure kept as that page's.

A crawl writes each visit to its journal as it goes (the run store, for a crawl run as a background run): the
visit and the links it queued together, so a crawl stopped at any point — cancelled, or its process killed —
resumes from its journal without reading a page twice or losing one, and pages never pile up in memory."""

from __future__ import annotations

import fnmatch
import re
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import anyio

from netglean.core.errors import Blocked, ToolError
from netglean.sites.pages import PageRead, Reading, read_page
from netglean.sites.urls import normal, same_site
from netglean.store.base import Checkpoint, Queued

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream

    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

Report = Callable[[int, int, str], Awaitable[None]]
"""Told how many URLs have been visited so far, the most there may be, and the URL just visited."""


@dataclass(frozen=True, slots=True)
class CrawlPlan:
    max_depth: int
    max_pages: int
    stay_on_domain: bool
    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    reading: Reading
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


@dataclass(frozen=True, slots=True)
class Recorded:
    """A visit as the journal gets it: the visit, its place in breadth order, and the links it queued."""

    visit: Visit
    seq: int
    links: Sequence[Queued]


class Journal(Protocol):
    """Where a crawl keeps what it has done: its checkpoint when it starts, its visits in order as they are made."""

    async def start(self, seed: str) -> Checkpoint:
        """The crawl's state so far (nothing visited and the seed queued, for a new crawl)."""
        ...

    async def visited(self, visits: Sequence[Recorded]) -> None:
        """Keep these visits (the next ones in order), each with the links it queued, together."""
        ...


class MemoryJournal:
    """A journal in memory: the visits of one crawl in order, for a crawl that no run store holds."""

    def __init__(self) -> None:
        self.visits: list[Visit] = []
        self._frontier: list[Queued] = []
        self._done: dict[int, Visit] = {}

    async def start(self, seed: str) -> Checkpoint:
        if not self._frontier:
            self._frontier.append(Queued(0, seed, 0))
        read = [visit for visit in self._done.values() if visit.page is not None]
        return Checkpoint(
            queued=[entry for entry in self._frontier if entry.seq not in self._done],
            seen={entry.url for entry in self._frontier},
            canonical={normal(v.page.canonical or v.page.final_url): v.url for v in read if v.page is not None},
            visited=len(self._done),
            read=len(read),
            failed=sum(1 for visit in self._done.values() if visit.error is not None),
            next_seq=len(self._frontier),
        )

    async def visited(self, visits: Sequence[Recorded]) -> None:
        for recorded in visits:
            self.visits.append(recorded.visit)
            self._done[recorded.seq] = recorded.visit
            self._frontier.extend(recorded.links)


@dataclass(slots=True)
class Crawl:
    """What a crawl did, in counts (its visits are in its journal)."""

    url: str
    visited: int = 0
    read: int = 0
    failed: int = 0
    blocked: int = 0
    """Failures that were bot walls or challenge pages."""
    unvisited: int = 0
    """Links found and wanted but left unvisited."""
    stopped: str | None = None
    """Why links were left: max_pages, or cancelled (the run was cancelled, or its server stopped)."""

    @property
    def truncated(self) -> bool:
        return self.unvisited > 0


@dataclass(slots=True)
class _Slot:
    """A page being read ahead of its turn: its outcome waits here until the crawl reaches it in breadth order."""

    entry: Queued
    done: anyio.Event = field(default_factory=anyio.Event)
    read: PageRead | None = None
    error: ToolError | None = None


async def _read(fetcher: Fetcher, readers: Readers, slot: _Slot, reading: Reading, browser: BrowserPool | None) -> None:
    try:
        slot.read = await read_page(fetcher, readers, slot.entry.url, 0, reading, browser=browser)
    except ToolError as error:
        slot.error = error
    finally:
        slot.done.set()


JOURNAL_BACKLOG = 16
"""Visits a crawl may be ahead of its journal (and the most one write keeps): reading goes on while the writer
keeps them. What a crash or a forced stop can make a resume read again: these twice over, and the pages in flight."""


@dataclass(slots=True)
class _Writer:
    """The crawl's journal writer: it takes what the crawl has visited, in order, as many at a time as are there."""

    journal: Journal
    report: Report
    most: int
    kept: int
    """Visits in the journal: the progress reported is theirs (what a resume would not read again)."""
    done: anyio.Event = field(default_factory=anyio.Event)
    error: ToolError | None = None

    async def run(self, receive: MemoryObjectReceiveStream[Recorded]) -> None:
        try:
            async with receive:
                async for first in receive:
                    batch = [first]
                    while len(batch) < JOURNAL_BACKLOG:
                        try:
                            batch.append(receive.receive_nowait())
                        except (anyio.WouldBlock, anyio.EndOfStream):
                            break
                    await self.journal.visited(batch)
                    self.kept += len(batch)
                    await self.report(self.kept, self.most, batch[-1].visit.url)
        except ToolError as error:  # the crawl stops at its next visit, and fails with this
            self.error = error
        finally:
            self.done.set()


async def crawl(
    fetcher: Fetcher,
    readers: Readers,
    seed: str,
    plan: CrawlPlan,
    *,
    journal: Journal,
    report: Report,
    stop: anyio.Event | None = None,
    browser: BrowserPool | None = None,
) -> Crawl:
    """Breadth-first from ``seed`` (or from where ``journal`` says an earlier attempt stopped): each page read once
    (canonical URLs de-duplicated), failures kept per page, nothing started once ``stop`` is set (the pages being
    read then are waited for and kept: a graceful stop reads no page twice; a forced one cancels the crawl). Up to
    ``plan.width`` pages are read at once, ahead of their turn, and taken in queue order, so the visits, the depths
    and the bounds are those of reading one at a time; politeness per host is the fetcher's."""
    home = urlsplit(seed).hostname or ""
    state = await journal.start(normal(seed))
    queue = deque(state.queued)
    seen, canonical_seen, next_seq = set(state.seen), dict(state.canonical), state.next_seq
    result = Crawl(seed, visited=state.visited, read=state.read, failed=state.failed)
    window: deque[_Slot] = deque()
    halt = stop or anyio.Event()
    writer = _Writer(journal, report, plan.max_pages, result.visited)
    send, receive = anyio.create_memory_object_stream[Recorded](JOURNAL_BACKLOG)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(writer.run, receive)

        def fill() -> None:
            while queue and len(window) < plan.width and result.visited + len(window) < plan.max_pages:
                slot = _Slot(queue.popleft())
                window.append(slot)
                tasks.start_soon(_read, fetcher, readers, slot, plan.reading, browser)

        if not halt.is_set():
            fill()
        while window:  # once stopped, no page is begun; the pages being read are waited for and kept
            slot = window[0]
            await slot.done.wait()
            window.popleft()
            entry, links = slot.entry, []
            if slot.read is None:
                visit = Visit(entry.url, entry.depth, error=slot.error)
                result.failed += 1
                result.blocked += isinstance(slot.error, Blocked)
            else:
                canonical = normal(slot.read.canonical or slot.read.final_url)
                if canonical in canonical_seen:
                    visit = Visit(entry.url, entry.depth, duplicate_of=canonical_seen[canonical])
                else:
                    canonical_seen[canonical] = entry.url
                    visit = Visit(entry.url, entry.depth, page=slot.read)
                    result.read += 1
                    if entry.depth < plan.max_depth:
                        for link in slot.read.frontier:
                            target = normal(link)
                            if target not in seen and plan.wants(target, home):
                                seen.add(target)
                                links.append(Queued(next_seq, target, entry.depth + 1))
                                next_seq += 1
            queue.extend(links)
            result.visited += 1
            if not halt.is_set():
                fill()  # reading goes on while the visit is written
            try:
                await send.send(Recorded(visit, entry.seq, links))
            except anyio.BrokenResourceError:  # the writer failed: nothing more can be kept
                break
        send.close()
        await writer.done.wait()  # every visit made is in the journal before the crawl answers
        tasks.cancel_scope.cancel()  # pages read ahead of a stop are left: they are counted unvisited
    if writer.error is not None:
        raise writer.error
    queue.extendleft(slot.entry for slot in reversed(window))  # a failed write leaves pages read ahead unvisited
    if halt.is_set() and queue:
        result.stopped = "cancelled"
    elif queue:
        result.stopped = "max_pages"
    result.unvisited = len(queue)
    return result
