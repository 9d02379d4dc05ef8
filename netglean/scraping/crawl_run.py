"""A crawl as a background run, shared by the crawl tools and crawl projects: its plan from the
call's arguments, its journal in the run store, and the crawl itself under the call's fetcher."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from netglean.net.strategy import page_strategy
from netglean.net.urls import parse_url
from netglean.scraping.crawl import Crawl, CrawlPlan, Recorded, Report, Visit, crawl, globs
from netglean.scraping.fleet import LEASE, Joined, join_crawl
from netglean.scraping.operator_limits import concurrency, robots_fetcher
from netglean.scraping.pages import Reading, with_links
from netglean.store.base import Checkpoint, Found, Kept, Queued, Visited

if TYPE_CHECKING:
    import anyio

    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.store.base import RunStore
    from netglean.workers.pool import Readers


class CrawlArguments(Protocol):
    """What a crawl's arguments say of its bounds and its reading (crawl's and batch_crawl's)."""

    @property
    def max_depth(self) -> int: ...
    @property
    def max_pages(self) -> int: ...
    @property
    def stay_on_domain(self) -> bool: ...
    @property
    def include_patterns(self) -> Sequence[str] | None: ...
    @property
    def exclude_patterns(self) -> Sequence[str] | None: ...
    @property
    def format(self) -> str: ...
    @property
    def main_content(self) -> bool: ...
    @property
    def max_chars(self) -> int: ...
    @property
    def strategy(self) -> str: ...
    @property
    def links(self) -> str: ...


class SiteCrawlArguments(CrawlArguments, Protocol):
    """A crawl from one start URL (crawl's arguments)."""

    @property
    def url(self) -> str: ...
    @property
    def respect_robots_txt(self) -> bool | None: ...


class RunHandle(Protocol):
    """The run a crawl works as: its id, the store that keeps its journal, what it did last."""

    id: str
    store: RunStore
    current: str | None


VisitBody = Callable[[Visit, bool], dict[str, Any]]
"""A visit as its run keeps it (the visit the crawl's answer shows), given whether pages carry
links."""
JournalFor = Callable[[RunHandle, int, bool], "RunJournal"]
"""The journal of a run's part (a seed's index), given whether pages carry links."""


def crawl_plan(args: CrawlArguments, width: int = 1) -> CrawlPlan:
    """The crawl's bounds; ``width`` pages are read at once."""
    return CrawlPlan(
        max_depth=args.max_depth,
        max_pages=args.max_pages,
        stay_on_domain=args.stay_on_domain,
        include=globs(args.include_patterns or []),
        exclude=globs(args.exclude_patterns or []),
        reading=Reading(
            args.format,
            args.main_content,
            args.max_chars,
            with_links(args.format, include_links=False),
            strategy=page_strategy(args.strategy),
            link_style=args.links,
        ),
        width=width,
    )


class RunJournal:
    """A crawl's journal in its run's store: each visit kept as ``body`` writes it (part ``part``),
    with the links it queued; a failed page is a line of the run's log too."""

    def __init__(self, run: RunHandle, part: int, links: bool, body: VisitBody) -> None:
        self._run, self._part, self._links, self._body = run, part, links, body

    async def start(self, seed: str) -> Checkpoint:
        await self._run.store.seed(self._run.id, self._part, seed)
        return await self._run.store.checkpoint(self._run.id, self._part)

    async def queued_after(self, seq: int, limit: int) -> list[Queued]:
        return await self._run.store.queued_after(self._run.id, self._part, seq, limit)

    async def known_urls(self, urls: Sequence[str]) -> set[str]:
        return await self._run.store.known_urls(self._run.id, self._part, urls)

    async def read_at(self, canonical: str) -> str | None:
        return await self._run.store.read_at(self._run.id, self._part, canonical)

    async def record_visits(self, visits: Sequence[Recorded]) -> None:
        await self.keep([self._as_visited(recorded) for recorded in visits])
        self._run.current = visits[-1].visit.url

    async def keep(self, visits: list[Visited]) -> None:
        """Write the visits (in one transaction)."""
        await self._run.store.record_visits(self._run.id, self._part, visits)

    def shared(self, worker: str, max_pages: int) -> SharedRunJournal:
        """This journal as ``worker``'s in a crawl shared by several processes."""
        return SharedRunJournal(self, worker, max_pages)

    def _as_visited(self, recorded: Recorded) -> Visited:
        visit, page = recorded.visit, recorded.visit.page
        if visit.error is not None:
            line = ("warning", f"failed {visit.url}: {visit.error.code}")
        elif visit.duplicate_of is not None:
            line = (
                "debug",
                f"{visit.url} has the canonical URL of {visit.duplicate_of}, read already",
            )
        else:
            line = ("debug", f"read {visit.url}")
        return Visited(
            recorded.seq,
            self._body(visit, self._links),
            read=page is not None,
            failed=visit.error is not None,
            canonical=recorded.canonical,
            url=visit.url,
            links=recorded.links,
            log=line,
            dropped=visit.links_dropped,
        )


class SharedRunJournal:
    """A crawl's journal in its run's store, for one of the workers sharing it
    (netglean.scraping.fleet.SharedJournal): its claims named ``worker``, max_pages counted in the
    store."""

    def __init__(self, journal: RunJournal, worker: str, max_pages: int) -> None:
        self._journal, self.worker, self._max_pages = journal, worker, max_pages
        self._run, self._part = journal._run, journal._part

    async def share(self, seed: str) -> None:
        await self._run.store.share(self._run.id, self._part, seed)

    async def claim(self, most: int, lease: float) -> list[Queued]:
        return await self._run.store.claim_pages(self._run.id, self._part, self.worker, most, lease)

    async def renew(self, lease: float) -> int:
        return await self._run.store.renew_claims(self._run.id, self._part, self.worker, lease)

    async def release(self) -> int:
        return await self._run.store.release_claims(self._run.id, self._part, self.worker)

    async def record(self, visits: Sequence[tuple[Recorded, Sequence[str]]]) -> list[Kept]:
        found = [
            Found(self._journal._as_visited(recorded), links, recorded.visit.depth + 1)
            for recorded, links in visits
        ]
        kept = await self._run.store.record_claimed(
            self._run.id, self._part, found, max_pages=self._max_pages
        )
        self._run.current = visits[-1][0].visit.url
        return kept

    async def waiting(self) -> int:
        return await self._run.store.waiting(self._run.id, self._part)

    async def read_at(self, canonical: str) -> str | None:
        return await self._journal.read_at(canonical)

    async def checkpoint(self) -> Checkpoint:
        return await self._run.store.checkpoint(self._run.id, self._part)


def _start(fetcher: Fetcher, args: SiteCrawlArguments) -> tuple[Fetcher, CrawlPlan]:
    """The fetcher (robots.txt as ``args`` asks) and plan of a crawl run from ``args.url``."""
    # a start URL that can never be fetched is the call's error, not a failed page
    parse_url(args.url)
    robots = robots_fetcher(fetcher, args.respect_robots_txt)
    return robots, crawl_plan(args, width=concurrency(None, fetcher, most=args.max_pages))


async def crawl_as_run(
    fetcher: Fetcher,
    readers: Readers,
    args: SiteCrawlArguments,
    run: RunHandle,
    journal: JournalFor,
    *,
    report: Report,
    stop: anyio.Event,
    browser: BrowserPool | None = None,
    shared: bool = False,
) -> Crawl:
    """A crawl from ``args.url`` as the run ``run``, its visits kept by ``journal`` (part 0). With
    ``shared`` its frontier is the store's, for other workers to join (join_as_run): this process
    works it as the first of them."""
    if shared:
        joined = await join_as_run(
            fetcher, readers, args, run, journal, report=report, stop=stop, browser=browser
        )
        return joined.crawl
    robots, plan = _start(fetcher, args)
    kept = journal(run, 0, plan.reading.include_links)
    return await crawl(
        robots, readers, args.url, plan, journal=kept, report=report, stop=stop, browser=browser
    )


async def join_as_run(
    fetcher: Fetcher,
    readers: Readers,
    args: SiteCrawlArguments,
    run: RunHandle,
    journal: JournalFor,
    *,
    report: Report,
    stop: anyio.Event,
    browser: BrowserPool | None = None,
    worker: str | None = None,
    lease: float = LEASE,
) -> Joined:
    """Join the crawl run ``run`` from ``args.url`` as one of the processes sharing it (its
    frontier, seen set and max_pages in ``run.store``), and work it until nothing waits, the budget
    is reached or ``stop`` is set (netglean.scraping.fleet.join_crawl); its visits kept by
    ``journal`` (part 0) as crawl_as_run keeps them. ``worker`` names this process's claims (a new
    name unless given); ``lease`` is how long they outlive it, should it die."""
    robots, plan = _start(fetcher, args)
    kept = journal(run, 0, plan.reading.include_links).shared(
        worker or uuid.uuid4().hex, plan.max_pages
    )
    return await join_crawl(
        robots,
        readers,
        args.url,
        plan,
        journal=kept,
        report=report,
        stop=stop,
        browser=browser,
        lease=lease,
    )
