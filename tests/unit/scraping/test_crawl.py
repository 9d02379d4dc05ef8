"""The crawl engine (netglean.scraping.crawl) on an in-memory site: why a crawl stops, what it says
it left, how it goes on from its journal, and that what it holds in memory is bounded whatever the
site."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager

import anyio
import pytest

from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS
from netglean.read.links import LINKS_PER_PAGE
from netglean.scraping import crawl as crawl_module
from netglean.scraping.crawl import Crawl, CrawlPlan, MemoryJournal, crawl
from netglean.scraping.pages import Reading
from netglean.store.base import Queued
from netglean.workers.pool import Readers

WORDS = "Words enough to be this page's main content, and then some more of them. " * 4


@dataclasses.dataclass
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    async def chunks(self) -> AsyncIterator[bytes]:
        yield self.body


class Site:
    """A transport that answers from a dict: /n links to /n+1 and /n+2, up to /20; robots.txt is
    missing."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    @asynccontextmanager
    async def get(self, url: str, headers: Mapping[str, str]) -> AsyncIterator[_Answer]:
        self.asked.append(url)
        path = url.split("site.test", 1)[1]
        if path == "/robots.txt":
            yield _Answer(404, {"content-type": "text/plain"}, b"none")
            return
        n = int(path.strip("/") or 0)
        links = "".join(f"<a href='/{m}'>{m}</a>" for m in (n + 1, n + 2) if m <= 20)
        page = (
            f"<html><body><article><h1>Page {n}</h1><p>{WORDS}</p>{links}</article></body></html>"
        )
        yield _Answer(200, {"content-type": "text/html"}, page.encode())

    def prepare(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = dataclasses.replace(
        FetchPolicy.from_settings(Settings.load(environ={})),
        host_interval=0.0,
        only_hosts=frozenset(),
    )
    yield Fetcher(policy, resolver=FakeDNS({"site.test": [PUBLIC]}), transport=Site())


def _plan(**changes: object) -> CrawlPlan:
    plan = CrawlPlan(
        max_depth=100,
        max_pages=100_000,
        stay_on_domain=True,
        include=(),
        exclude=(),
        reading=Reading("markdown", True, 1_000, False),
    )
    return dataclasses.replace(plan, **changes)  # type: ignore[arg-type]


async def _nothing(visited: int, most: int, url: str) -> None:
    return None


def _crawl(
    fetcher: Fetcher,
    plan: CrawlPlan,
    journal: MemoryJournal | None = None,
    stop_after: int | None = None,
) -> tuple[Crawl, MemoryJournal]:
    """The crawl and its journal; ``stop_after`` visits, it is stopped (as a graceful cancel stops
    it)."""
    kept = journal or MemoryJournal()
    stop = anyio.Event()

    async def report(visited: int, most: int, url: str) -> None:
        if stop_after is not None and visited >= stop_after:
            stop.set()

    async def run() -> Crawl:
        return await crawl(
            fetcher, Readers(0), "http://site.test/", plan, journal=kept, report=report, stop=stop
        )

    return anyio.run(run), kept


def test_a_crawl_that_reads_everything_did_not_stop(fetcher: Fetcher) -> None:
    result, _ = _crawl(fetcher, _plan())
    assert (
        result.read == 21
        and result.stopped is None
        and result.unvisited == 0
        and not result.truncated
    )


def test_a_crawl_queues_no_more_urls_than_max_pages_and_counts_the_links_it_left(
    fetcher: Fetcher,
) -> None:
    result, journal = _crawl(fetcher, _plan(max_pages=3))
    assert (result.read, result.stopped, result.truncated) == (3, "max_pages", True)
    # /3 and /4, found by /1 and /2 once three URLs were queued, are counted each time a page gives
    # one, never kept
    assert result.unvisited == 0 and result.links_dropped == 3
    assert [visit.links_dropped for visit in journal.visits] == [0, 1, 2]


def test_a_stopped_crawl_goes_on_from_its_journal_reading_each_page_once(fetcher: Fetcher) -> None:
    whole, _ = _crawl(fetcher, _plan())
    site = Site()
    fetcher = _wide_fetcher(site)
    stopped, journal = _crawl(fetcher, _plan(), stop_after=5)
    # the page begun before the stop came (reading goes on while a visit is written) is waited for
    # and kept
    assert (stopped.visited, stopped.stopped) == (6, "cancelled") and stopped.unvisited > 0
    resumed, _ = _crawl(fetcher, _plan(), journal=journal)
    assert (resumed.read, resumed.visited, resumed.stopped) == (whole.read, 21, None)
    pages = [url for url in site.asked if not url.endswith("/robots.txt")]
    assert sorted(pages) == sorted(set(pages)) and len(pages) == 21  # no page read twice, none lost
    assert [v.url for v in journal.visits] == [
        f"http://site.test/{n}" if n else "http://site.test/" for n in range(21)
    ]


def test_a_resumed_crawl_keeps_its_bounds(fetcher: Fetcher) -> None:
    _, journal = _crawl(fetcher, _plan(max_pages=8), stop_after=3)
    resumed, _ = _crawl(fetcher, _plan(max_pages=8), journal=journal)
    assert (resumed.visited, resumed.stopped) == (8, "max_pages") and len(journal.visits) == 8
    whole, _ = _crawl(fetcher, _plan(max_pages=8))
    # the attempt before the stop counted too
    assert resumed.links_dropped == whole.links_dropped > 0


class _Held(Site):
    """Site, each answer held a moment so that reads started together are seen in flight
    together."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.most = 0

    @asynccontextmanager
    async def get(self, url: str, headers: Mapping[str, str]) -> AsyncIterator[_Answer]:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await anyio.sleep(0.01)
            async with super().get(url, headers) as answer:
                yield answer
        finally:
            self.in_flight -= 1


def _wide_fetcher(site: Site) -> Fetcher:
    policy = dataclasses.replace(
        FetchPolicy.from_settings(Settings.load(environ={})),
        host_interval=0.0,
        host_concurrency=8,
        only_hosts=frozenset(),
        session_budget=10_000,
    )
    return Fetcher(policy, resolver=FakeDNS({"site.test": [PUBLIC]}), transport=site)


def _visits(journal: MemoryJournal) -> list[tuple[str, int, bool]]:
    return [(visit.url, visit.depth, visit.page is not None) for visit in journal.visits]


@pytest.mark.parametrize("bounds", [{}, {"max_pages": 5}, {"max_depth": 2}])
def test_pages_read_at_once_are_taken_in_breadth_order(bounds: dict[str, int]) -> None:
    one, wide = _Held(), _Held()
    alone, alone_kept = _crawl(_wide_fetcher(one), _plan(width=1, **bounds))
    together, together_kept = _crawl(_wide_fetcher(wide), _plan(width=4, **bounds))
    assert _visits(together_kept) == _visits(alone_kept) and (
        together.stopped,
        together.unvisited,
    ) == (
        alone.stopped,
        alone.unvisited,
    )
    assert one.most == 1 and wide.most > 1  # the same crawl, read several pages at a time


def test_a_wide_crawl_stopped_keeps_the_pages_it_was_reading_and_begins_no_other() -> None:
    site = _Held()
    result, journal = _crawl(_wide_fetcher(site), _plan(width=4), stop_after=1)
    # the start page's two links were being read when the stop came: both are kept, their own links
    # left
    assert (result.visited, result.stopped) == (3, "cancelled") and len(journal.visits) == 3
    # /3 and /4 left; robots.txt and the three pages asked
    assert result.unvisited == 2 and len(site.asked) == 4


class Linked(Site):
    """A site of pages given as path -> (links, canonical path or None); robots.txt is missing."""

    def __init__(self, pages: Mapping[str, tuple[list[str], str | None]]) -> None:
        super().__init__()
        self.pages = pages

    @asynccontextmanager
    async def get(self, url: str, headers: Mapping[str, str]) -> AsyncIterator[_Answer]:
        self.asked.append(url)
        path = url.split("site.test", 1)[1]
        if path not in self.pages:
            yield _Answer(404, {"content-type": "text/plain"}, b"none")
            return
        links, canonical = self.pages[path]
        anchors = "".join(f"<a href='{link}'>{link}</a>" for link in links)
        head = f"<link rel='canonical' href='http://site.test{canonical}'>" if canonical else ""
        article = f"<article><p>{WORDS}</p>{anchors}</article>"
        page = f"<html><head>{head}</head><body>{article}</body></html>"
        yield _Answer(200, {"content-type": "text/html"}, page.encode())


def test_a_page_adds_its_first_thousand_wanted_links_and_the_crawl_counts_the_rest() -> None:
    many = [f"/{n}" for n in range(1, 1_201)]
    pages: dict[str, tuple[list[str], str | None]] = {
        "/": (["http://elsewhere.test/", *many], None)
    }
    pages.update({link: ([], None) for link in many})
    result, journal = _crawl(_wide_fetcher(Linked(pages)), _plan(max_depth=1, width=8))
    assert LINKS_PER_PAGE == 1_000 and result.read == 1 + LINKS_PER_PAGE
    # the page's first 1,000 same-site links are read (the other site's was never wanted); the last
    # 200 are counted
    assert [visit.url for visit in journal.visits][-1] == "http://site.test/1000"
    assert (result.links_dropped, result.stopped, result.truncated) == (200, "links_per_page", True)
    assert journal.visits[0].links_dropped == 200


class Counting(MemoryJournal):
    """A MemoryJournal that counts how often the crawl asks it for what it no longer holds in
    memory."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = {"queued_after": 0, "known_urls": 0, "read_at": 0}

    async def queued_after(self, seq: int, limit: int) -> list[Queued]:
        self.asked["queued_after"] += 1
        return await super().queued_after(seq, limit)

    async def known_urls(self, urls: Sequence[str]) -> set[str]:
        self.asked["known_urls"] += 1
        return await super().known_urls(urls)

    async def read_at(self, canonical: str) -> str | None:
        self.asked["read_at"] += 1
        return await super().read_at(canonical)


def _tree(size: int) -> dict[str, tuple[list[str], str | None]]:
    """Page /n links /2n+1, /2n+2, the start page, and /n/copy, a page whose canonical URL is
    /n's."""
    pages: dict[str, tuple[list[str], str | None]] = {}
    for n in range(size):
        children = [f"/{m}" for m in (2 * n + 1, 2 * n + 2) if m < size]
        pages[f"/{n}" if n else "/"] = ([*children, "/", f"/{n}/copy"], None)
        pages[f"/{n}/copy"] = ([], f"/{n}" if n else "/")
    return pages


@pytest.mark.parametrize("width", [1, 4])
def test_a_crawl_past_what_it_holds_in_memory_asks_its_journal_and_visits_the_same_pages(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    site = _tree(60)
    whole, whole_journal = _crawl(_wide_fetcher(Linked(site)), _plan(width=width))
    monkeypatch.setattr(crawl_module, "IN_MEMORY", 4)
    bounded_journal = Counting()
    bounded, _ = _crawl(_wide_fetcher(Linked(site)), _plan(width=width), journal=bounded_journal)
    assert _visits(bounded_journal) == _visits(whole_journal) and len(whole_journal.visits) == 120
    duplicates = [(v.url, v.duplicate_of) for v in bounded_journal.visits if v.duplicate_of]
    assert duplicates == [(v.url, v.duplicate_of) for v in whole_journal.visits if v.duplicate_of]
    assert len(duplicates) == 60 and (bounded.read, bounded.stopped) == (whole.read, None) == (
        60,
        None,
    )
    # memory held four URLs at most: the queue came back from the journal, and it was asked what was
    # seen and read
    assert all(count > 1 for count in bounded_journal.asked.values()), bounded_journal.asked
