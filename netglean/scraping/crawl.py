"""Crawling a site breadth-first from a start URL: depth and page bounds, glob include/exclude,
canonical URLs read once, each page's failure kept as that page's.

A crawl writes each visit to its journal as it goes (the run store, for a crawl run as a background
run): the visit and the links it queued together, so a crawl stopped at any point — cancelled, or
its process killed — resumes from its journal without reading a page twice or losing one, and pages
never pile up in memory."""

from __future__ import annotations

import fnmatch
import re
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import anyio

from netglean.core.errors import Blocked, ToolError
from netglean.read.links import LinkFilter, normal, normalize_url
from netglean.scraping.pages import PageRead, Reading, read_page
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

    def links(self, seed: str) -> LinkFilter:
        """The links a crawl from ``seed`` follows (taken in the reader process that reads each
        page)."""
        home = urlsplit(seed).hostname or ""
        return LinkFilter(
            home, stay_on_domain=self.stay_on_domain, include=self.include, exclude=self.exclude
        )


def globs(patterns: Sequence[str]) -> tuple[re.Pattern[str], ...]:
    """Glob patterns (* and ?) matched against the whole URL; never a model's own regular
    expression."""
    return tuple(re.compile(fnmatch.translate(pattern)) for pattern in patterns)


@dataclass(frozen=True, slots=True)
class Visit:
    """One URL visited: read, found to be a duplicate of a page read already, or failed."""

    url: str
    depth: int
    page: PageRead | None = None
    duplicate_of: str | None = None
    error: ToolError | None = None
    links_dropped: int = 0
    """Links of the page the crawl wanted but did not queue (LINKS_PER_PAGE passed, or max_pages
    queued)."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """A visit as the journal gets it: the visit, its place in breadth order, the canonical URL of
    the page it read (when it read one), and the links it queued."""

    visit: Visit
    seq: int
    links: Sequence[Queued]
    canonical: str | None = None


class Journal(Protocol):
    """Where a crawl keeps what it has done, and what it has still to do: the crawl holds a bounded
    part of that in memory and asks its journal for the rest."""

    async def start(self, seed: str) -> Checkpoint:
        """The crawl's state so far (nothing visited and the seed queued, for a new crawl)."""
        ...

    async def queued_after(self, seq: int, limit: int) -> list[Queued]:
        """The URLs queued after ``seq`` and not visited yet, in order; at most ``limit`` of
        them."""
        ...

    async def known_urls(self, urls: Sequence[str]) -> set[str]:
        """Which of ``urls`` the crawl has queued (visited or not)."""
        ...

    async def read_at(self, canonical: str) -> str | None:
        """The URL at which the crawl read a page of this canonical URL, if it read one."""
        ...

    async def record_visits(self, visits: Sequence[Recorded]) -> None:
        """Keep these visits (the next ones in order), each with the links it queued, together."""
        ...


class MemoryJournal:
    """A journal in memory: the visits of one crawl in order, for a crawl that no run store
    holds."""

    def __init__(self) -> None:
        self.visits: list[Visit] = []
        self._frontier: list[Queued] = []
        self._urls: set[str] = set()
        self._done: dict[int, Visit] = {}
        self._read: dict[str, str] = {}

    async def start(self, seed: str) -> Checkpoint:
        if not self._frontier:
            self._frontier.append(Queued(0, seed, 0))
            self._urls.add(seed)
        done = self._done.values()
        return Checkpoint(
            queued=len(self._frontier),
            waiting=len(self._frontier) - len(self._done),
            visited=len(self._done),
            read=sum(1 for visit in done if visit.page is not None),
            failed=sum(1 for visit in done if visit.error is not None),
            dropped=sum(visit.links_dropped for visit in done),
        )

    async def queued_after(self, seq: int, limit: int) -> list[Queued]:
        waiting = (entry for entry in self._frontier[seq + 1 :] if entry.seq not in self._done)
        return [entry for entry, _ in zip(waiting, range(limit), strict=False)]

    async def known_urls(self, urls: Sequence[str]) -> set[str]:
        return self._urls.intersection(urls)

    async def read_at(self, canonical: str) -> str | None:
        return self._read.get(canonical)

    async def record_visits(self, visits: Sequence[Recorded]) -> None:
        for recorded in visits:
            self.visits.append(recorded.visit)
            self._done[recorded.seq] = recorded.visit
            self._frontier.extend(recorded.links)
            self._urls.update(link.url for link in recorded.links)
            if recorded.canonical is not None:
                self._read.setdefault(recorded.canonical, recorded.visit.url)


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
    """URLs queued but left unvisited."""
    links_dropped: int = 0
    """Links wanted but never queued, each time a page gave one: past LINKS_PER_PAGE of one page, or
    once the crawl had queued max_pages URLs (it never visits more)."""
    stopped: str | None = None
    """Why links were left: max_pages, links_per_page, or cancelled (the run was cancelled, or its
    server stopped)."""

    @property
    def truncated(self) -> bool:
        return self.unvisited > 0 or self.links_dropped > 0


@dataclass(slots=True)
class _Slot:
    """A page being read ahead of its turn: its outcome waits here until the crawl reaches it in
    breadth order."""

    entry: Queued
    done: anyio.Event = field(default_factory=anyio.Event)
    read: PageRead | None = None
    error: ToolError | None = None


async def _read(
    fetcher: Fetcher, readers: Readers, slot: _Slot, reading: Reading, browser: BrowserPool | None
) -> None:
    try:
        slot.read = await read_page(fetcher, readers, slot.entry.url, 0, reading, browser=browser)
    except ToolError as error:
        slot.error = error
    finally:
        slot.done.set()


JOURNAL_BACKLOG = 16
"""Visits a crawl may be ahead of its journal (and the most one write keeps): reading goes on while
the writer keeps them. What a crash or a forced stop can make a resume read again: these twice over,
and the pages in flight."""
IN_MEMORY = 10_000
"""The most URLs a crawl holds in memory of those it has still to visit, and of those it has queued
or read: past it, its journal holds them and is asked, so a crawl's memory stays the same however
many pages it reads."""


@dataclass(slots=True)
class _Writer:
    """The crawl's journal writer: it takes what the crawl has visited, in order, as many at a time
    as are there."""

    journal: Journal
    report: Report
    most: int
    kept: int
    """Visits in the journal: the progress reported is theirs (what a resume would not read
    again)."""
    done: anyio.Event = field(default_factory=anyio.Event)
    error: ToolError | None = None
    _wrote: anyio.Event | None = None

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
                    await self.journal.record_visits(batch)
                    self.kept += len(batch)
                    if self._wrote is not None:
                        self._wrote.set()
                        self._wrote = None
                    await self.report(self.kept, self.most, batch[-1].visit.url)
        except ToolError as error:  # the crawl stops at its next visit, and fails with this
            self.error = error
        finally:
            self.done.set()
            if self._wrote is not None:
                self._wrote.set()

    async def caught_up(self, visits: int) -> None:
        """Wait until the journal keeps ``visits`` visits (or the writer has stopped)."""
        while self.kept < visits and not self.done.is_set():
            if self._wrote is None:
                self._wrote = anyio.Event()
            await self._wrote.wait()


@dataclass(slots=True)
class _Frontier:
    """What a crawl has still to visit, and what it has queued and read: in memory up to IN_MEMORY
    URLs each, in the journal past that. Memory is let go only once the journal keeps every visit
    made (``writer`` caught up), so memory and journal together always hold all of it."""

    journal: Journal
    writer: _Writer
    room: int
    """URLs the crawl may still queue: it never visits more than max_pages, so it queues no more."""
    next_seq: int
    waiting: int
    """URLs queued and not yet taken to be visited (in memory or in the journal)."""
    queue: deque[Queued] = field(default_factory=deque)
    last: int = -1
    """The seq of the last URL taken into ``queue``."""
    whole_queue: bool = False
    """Every waiting URL is in ``queue``: none waits in the journal alone."""
    seen: set[str] = field(default_factory=set)
    canonical: dict[str, str] = field(default_factory=dict)
    whole_memory: bool = False
    """``seen`` and ``canonical`` hold every URL queued and read: the journal need not be asked."""

    @classmethod
    async def start(
        cls, journal: Journal, writer: _Writer, seed: str, max_pages: int
    ) -> tuple[_Frontier, Checkpoint]:
        state = await journal.start(seed)
        frontier = cls(
            journal, writer, max(0, max_pages - state.queued), state.queued, state.waiting
        )
        # a new crawl: memory holds everything there is
        if state.queued == 1 and state.visited == 0:
            frontier.seen.add(seed)
            frontier.whole_memory = True
        await frontier._load()
        return frontier, state

    async def _load(self) -> None:
        taken = await self.journal.queued_after(self.last, IN_MEMORY)
        self.queue.extend(taken)
        self.last = taken[-1].seq if taken else self.last
        self.whole_queue = len(taken) < IN_MEMORY

    def next(self) -> Queued | None:
        """The next URL to visit that memory holds, or None: memory holds none (``load`` may find
        more)."""
        if not self.queue:
            return None
        self.waiting -= 1
        return self.queue.popleft()

    async def load(self, visits: int) -> None:
        """The next URLs waiting in the journal taken into memory, once it keeps the ``visits`` made
        so far (those it has not been given yet queued links that memory does not hold)."""
        if not self.queue and not self.whole_queue:
            await self.writer.caught_up(visits)
            await self._load()

    async def forget(self, visits: int) -> None:
        """Let memory go once it holds more than IN_MEMORY URLs (the journal keeping them all
        first)."""
        if len(self.seen) + len(self.canonical) > IN_MEMORY:
            await self.writer.caught_up(visits)
            self.seen.clear()
            self.canonical.clear()
            self.whole_memory = False

    async def read_at(self, canonical: str) -> str | None:
        if canonical in self.canonical or self.whole_memory:
            return self.canonical.get(canonical)
        first = await self.journal.read_at(canonical)
        if first is not None:
            self.canonical[canonical] = first
        return first

    def read(self, canonical: str, url: str) -> None:
        self.canonical[canonical] = url

    async def add(self, links: Sequence[str], depth: int) -> tuple[list[Queued], int]:
        """The links not queued before, queued (in memory too, while every waiting URL is there)
        while there is room; and how many were new but found no room."""
        new = [link for link in links if link not in self.seen]
        if new and not self.whole_memory:
            known = await self.journal.known_urls(new)
            # a site's navigation, met again on the next page, is not asked for again
            self.seen.update(known)
            new = [link for link in new if link not in known]
        taken = new[: self.room]
        queued = [Queued(self.next_seq + index, url, depth) for index, url in enumerate(taken)]
        self.seen.update(taken)
        self.room -= len(queued)
        self.next_seq += len(queued)
        self.waiting += len(queued)
        if self.whole_queue and len(self.queue) + len(queued) <= IN_MEMORY:
            self.queue.extend(queued)
            self.last = queued[-1].seq if queued else self.last
        else:
            # these wait in the journal, taken from there once memory holds none
            self.whole_queue = False
        return queued, len(new) - len(taken)

    def put_back(self, entries: Sequence[Queued]) -> None:
        """Pages taken to be read but left unvisited (a stop, a failed write): waiting again."""
        self.queue.extendleft(reversed(entries))
        self.waiting += len(entries)


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
    """Breadth-first from ``seed`` (or from where ``journal`` says an earlier attempt stopped): each
    page read once (canonical URLs de-duplicated), failures kept per page, nothing started once
    ``stop`` is set (the pages being read then are waited for and kept: a graceful stop reads no
    page twice; a forced one cancels the crawl). Up to ``plan.width`` pages are read at once, ahead
    of their turn, and taken in queue order, so the visits, the depths and the bounds are those of
    reading one at a time; politeness per host is the fetcher's. What the crawl holds in memory is
    bounded (_Frontier), whatever the site."""
    reading = replace(plan.reading, frontier=plan.links(seed))
    window: deque[_Slot] = deque()
    halt = stop or anyio.Event()
    writer = _Writer(journal, report, plan.max_pages, 0)
    frontier, state = await _Frontier.start(journal, writer, normal(seed), plan.max_pages)
    writer.kept = state.visited
    result = Crawl(seed, state.visited, state.read, state.failed, links_dropped=state.dropped)
    sent = result.visited  # visits given to the writer
    send, receive = anyio.create_memory_object_stream[Recorded](JOURNAL_BACKLOG)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(writer.run, receive)

        async def fill() -> None:
            while len(window) < plan.width and result.visited + len(window) < plan.max_pages:
                # the journal has been given every visit: it can be asked for more
                if sent == result.visited:
                    await frontier.load(sent)
                entry = frontier.next()
                if entry is None:
                    return
                slot = _Slot(entry)
                window.append(slot)
                tasks.start_soon(_read, fetcher, readers, slot, reading, browser)

        if not halt.is_set():
            await fill()
        # once stopped, no page is begun; the pages being read are waited for and kept
        while window:
            slot = window[0]
            await slot.done.wait()
            window.popleft()
            await frontier.forget(sent)
            entry, canonical = slot.entry, None
            links: list[Queued] = []
            if slot.read is None:
                visit = Visit(entry.url, entry.depth, error=slot.error)
                result.failed += 1
                result.blocked += isinstance(slot.error, Blocked)
            else:
                canonical = normalize_url(slot.read.canonical or slot.read.final_url)
                first = await frontier.read_at(canonical)
                if first is not None:
                    visit, canonical = Visit(entry.url, entry.depth, duplicate_of=first), None
                else:
                    frontier.read(canonical, entry.url)
                    dropped = 0
                    if entry.depth < plan.max_depth:
                        links, dropped = await frontier.add(slot.read.frontier, entry.depth + 1)
                        dropped += slot.read.frontier_dropped
                    visit = Visit(entry.url, entry.depth, page=slot.read, links_dropped=dropped)
                    result.read += 1
                    result.links_dropped += dropped
            result.visited += 1
            if not halt.is_set():
                await fill()  # reading goes on while the visit is written
            try:
                await send.send(Recorded(visit, entry.seq, links, canonical))
            except anyio.BrokenResourceError:  # the writer failed: nothing more can be kept
                break
            sent += 1
            if not halt.is_set():
                await fill()  # what the journal alone holds can be taken now
        send.close()
        await writer.done.wait()  # every visit made is in the journal before the crawl answers
        # pages read ahead of a stop are left: they are counted unvisited
        tasks.cancel_scope.cancel()
    if writer.error is not None:
        raise writer.error
    # a failed write leaves pages read ahead unvisited
    frontier.put_back([slot.entry for slot in window])
    result.unvisited = frontier.waiting
    if halt.is_set() and frontier.waiting:
        result.stopped = "cancelled"
    elif frontier.waiting or (frontier.room == 0 and result.links_dropped):
        result.stopped = "max_pages"
    elif result.links_dropped:
        result.stopped = "links_per_page"
    return result
