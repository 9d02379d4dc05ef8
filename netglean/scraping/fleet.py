"""One crawl worked by many processes, and politeness held across them, through the shared store.

``join_crawl``: any process joins a crawl run's frontier (kept in the store: netglean.store.base's
SharedFrontier) and works it until nothing waits or the budget is reached. It claims the waiting
URLs a host slice at a time, under a lease it renews while it works; a worker that dies loses its
claims when their lease runs out, and another takes them back. Each URL is queued once and each
page recorded once, whoever found or read it, and max_pages is counted in the store, so the bounds
hold for the fleet. A page whose claim was taken back may be fetched twice (the dead or slow
worker's read, and the new one's); it is recorded once. Two URLs of one canonical page read at once
by two workers are both recorded as read (each worker asks the store before it records).

``FleetLimiter``: the fetcher's Limiter over the store's host turns (HostTurns), so each host's
requests are spaced and capped for every process sharing the store, not per process.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol

import anyio

from netglean.core.errors import ToolError, Unavailable
from netglean.net.politeness import HostLimiter
from netglean.read.links import normal, normalize_url
from netglean.scraping.crawl import Crawl, CrawlPlan, Recorded, Report, Visit
from netglean.scraping.pages import PageRead, read_page
from netglean.store.base import Checkpoint, HostTurns, Kept, Queued

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

LEASE = 60.0
"""Seconds a worker's claims hold unless renewed (every third of it while it works): how long the
pages of a worker that died wait before another takes them back."""
SLICE = 8
"""URLs of one host a worker claims at a time, at most (no more than it reads at once: a worker
holding a host's pages it cannot begin would keep them from the others)."""
POLL = 0.2
"""Seconds a worker waits, when every waiting URL is claimed by others, before it asks again (their
pages may queue more, or their claims run out)."""
RECORD_AT_ONCE = 16
"""Visits a worker records in one transaction, at most."""


class SharedJournal(Protocol):
    """A shared crawl's part of the store, as one worker sees it (netglean.scraping.crawl_run's
    SharedRunJournal over a run's store)."""

    async def share(self, seed: str) -> None: ...

    async def claim(self, most: int, lease: float) -> list[Queued]: ...

    async def renew(self, lease: float) -> int: ...

    async def release(self) -> int: ...

    async def record(self, visits: Sequence[tuple[Recorded, Sequence[str]]]) -> list[Kept]:
        """Keep the visits, each with the URLs its page gave to follow (at its depth + 1)."""
        ...

    async def waiting(self) -> int: ...

    async def read_at(self, canonical: str) -> str | None: ...

    async def checkpoint(self) -> Checkpoint: ...


@dataclass(frozen=True, slots=True)
class Joined:
    """What a worker's part in a shared crawl came to: the crawl as the store holds it when the
    worker left, and the visits this worker recorded."""

    crawl: Crawl
    recorded: int


@dataclass(slots=True)
class _Read:
    entry: Queued
    page: PageRead | None = None
    error: ToolError | None = None


async def _read(
    fetcher: Fetcher,
    readers: Readers,
    entry: Queued,
    plan: CrawlPlan,
    send: anyio.abc.ObjectSendStream[_Read],
    *,
    browser: BrowserPool | None,
) -> None:
    done = _Read(entry)
    try:
        done.page = await read_page(fetcher, readers, entry.url, 0, plan.reading, browser=browser)
    except ToolError as error:
        done.error = error
    await send.send(done)


async def _visit(
    journal: SharedJournal, done: _Read, plan: CrawlPlan
) -> tuple[Recorded, Sequence[str]]:
    """A page read (or failed) as its visit, with the links it gives to follow."""
    entry = done.entry
    if done.page is None:
        return Recorded(Visit(entry.url, entry.depth, error=done.error), entry.seq, ()), ()
    canonical = normalize_url(done.page.canonical or done.page.final_url)
    first = await journal.read_at(canonical)
    if first is not None:
        visit = Visit(entry.url, entry.depth, duplicate_of=first)
        return Recorded(visit, entry.seq, ()), ()
    found = done.page.frontier if entry.depth < plan.max_depth else []
    visit = Visit(entry.url, entry.depth, page=done.page, links_dropped=done.page.frontier_dropped)
    return Recorded(visit, entry.seq, (), canonical), found


async def join_crawl(
    fetcher: Fetcher,
    readers: Readers,
    seed: str,
    plan: CrawlPlan,
    *,
    journal: SharedJournal,
    report: Report,
    stop: anyio.Event | None = None,
    browser: BrowserPool | None = None,
    lease: float = LEASE,
) -> Joined:
    """Work the shared crawl from ``seed`` (queued by whichever worker comes first) until no URL
    waits, every URL queued (at most ``plan.max_pages``) recorded, or ``stop`` is set: up to
    ``plan.width`` pages read at once, from the host slices this worker claims; each visit recorded
    as its pages come (RECORD_AT_ONCE at a time). On a stop the pages being read are waited for and
    recorded, and the claims not begun are given back at once."""
    reading = replace(plan.reading, frontier=plan.links(seed))
    plan = replace(plan, reading=reading)
    halt = stop or anyio.Event()
    await journal.share(normal(seed))
    claimed: deque[Queued] = deque()
    recorded = reading_now = 0
    send, receive = anyio.create_memory_object_stream[_Read](plan.width)
    try:
        async with anyio.create_task_group() as tasks:

            async def renew() -> None:
                while True:
                    await anyio.sleep(lease / 3)
                    # a renewal the store missed is tried again; the claims outlive two of them
                    with suppress(Unavailable):
                        await journal.renew(lease)

            tasks.start_soon(renew)
            while True:
                while reading_now < plan.width and not halt.is_set():
                    if not claimed:
                        claimed.extend(await journal.claim(min(SLICE, plan.width), lease))
                        if not claimed:
                            break
                    entry = claimed.popleft()
                    tasks.start_soon(
                        partial(_read, fetcher, readers, entry, plan, send, browser=browser)
                    )
                    reading_now += 1
                if reading_now == 0:
                    if halt.is_set() or await journal.waiting() == 0:
                        break
                    # every waiting URL is another worker's: its pages may queue more
                    with anyio.move_on_after(POLL):
                        await halt.wait()
                    continue
                batch = [await receive.receive()]
                while len(batch) < RECORD_AT_ONCE:
                    try:
                        batch.append(receive.receive_nowait())
                    except anyio.WouldBlock:
                        break
                reading_now -= len(batch)
                visits = [await _visit(journal, done, plan) for done in batch]
                kept = await journal.record(visits)
                recorded += sum(k.recorded for k in kept)
                await report(recorded, plan.max_pages, batch[-1].entry.url)
            tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await journal.release()
    state = await journal.checkpoint()
    # the last word is the fleet's count: the run's progress is all its workers' pages
    await report(state.visited, plan.max_pages, seed)
    return Joined(_crawl(seed, state, plan, stopped=halt.is_set()), recorded)


def _crawl(seed: str, state: Checkpoint, plan: CrawlPlan, *, stopped: bool) -> Crawl:
    """The shared crawl as the store holds it, in the counts a crawl's answer gives."""
    result = Crawl(
        seed,
        visited=state.visited,
        read=state.read,
        failed=state.failed,
        unvisited=state.waiting,
        links_dropped=state.dropped,
    )
    if stopped and state.waiting:
        result.stopped = "cancelled"
    elif state.waiting or (state.queued >= plan.max_pages and state.dropped):
        result.stopped = "max_pages"
    elif state.dropped:
        result.stopped = "links_per_page"
    return result


class FleetLimiter:
    """The fetcher's Limiter (netglean.net.politeness) for processes sharing a store: at most
    ``per_host`` requests in flight to one host from all of them, each starting ``interval`` after
    the host's request before (robots.txt's Crawl-delay too), through the store's host turns;
    ``overall`` requests at once from this process, and ``per_host`` of them to one host (so only
    those ask the store for a turn). A request's place is held ``lease`` seconds and renewed every
    third of it while the request is in flight: a process that dies holding places keeps them from
    the fleet that long at most, well inside the others' fetch timeouts (their wait for a place is
    part of it). The store is asked for when first needed (``turns``), as it opens lazily."""

    def __init__(
        self,
        turns: Callable[[], HostTurns],
        per_host: int,
        overall: int,
        *,
        lease: float = 6.0,
        poll: float = 0.005,
    ) -> None:
        self._turns = turns
        self._per_host = per_host
        self._here = HostLimiter(per_host, overall)
        self._lease = lease
        self._poll = poll

    @asynccontextmanager
    async def slot(self, host: str, interval: float) -> AsyncIterator[None]:
        async with self._here.slot(host, 0.0):
            turns, holder, pause = self._turns(), uuid.uuid4().hex, self._poll
            while True:
                wait = await turns.take_turn(
                    host, holder, interval=interval, per_host=self._per_host, lease=self._lease
                )
                if wait is not None:
                    break
                # the host's places are all taken by other processes: asked again, less often
                await anyio.sleep(pause)
                pause = min(pause * 2, POLL / 2)
            failure: BaseException | None = None
            try:
                async with anyio.create_task_group() as renewing:
                    renewing.start_soon(self._renew, turns, host, holder)
                    try:
                        if wait > 0:
                            await anyio.sleep(wait)
                        yield
                    # the request's own error, raised below as it came (a task group would wrap it)
                    except BaseException as error:
                        failure = error
                    renewing.cancel_scope.cancel()
            finally:
                with anyio.CancelScope(shield=True):
                    await turns.end_turn(host, holder)
            if failure is not None:
                raise failure

    async def _renew(self, turns: HostTurns, host: str, holder: str) -> None:
        while True:
            await anyio.sleep(self._lease / 3)
            # a renewal the store missed is tried again; the place outlives two of them
            with suppress(Unavailable):
                await turns.renew_turn(host, holder, self._lease)
