"""The crawl engine (netglean.sites.crawl) on an in-memory site: why a crawl stops, what it says it left, and how
it goes on from its journal."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager

import anyio
import pytest

from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS
from netglean.sites.crawl import Crawl, CrawlPlan, MemoryJournal, crawl
from netglean.sites.pages import Reading
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
    """A transport that answers from a dict: /n links to /n+1 and /n+2, up to /20; robots.txt is missing."""

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
        page = f"<html><body><article><h1>Page {n}</h1><p>{WORDS}</p>{links}</article></body></html>"
        yield _Answer(200, {"content-type": "text/html"}, page.encode())

    def prepare(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = dataclasses.replace(
        FetchPolicy.from_settings(Settings.load(environ={})), host_interval=0.0, only_hosts=frozenset()
    )
    yield Fetcher(policy, resolver=FakeDNS({"site.test": [PUBLIC]}), transport=Site())


def _plan(**changes: object) -> CrawlPlan:
    plan = CrawlPlan(
        max_depth=100,
        max_pages=100_000,
        stay_on_domain=True,
        include=(),
        exclude=(),
        reading=Reading("markdown", True, 1_000, False, frontier=True),
    )
    return dataclasses.replace(plan, **changes)  # type: ignore[arg-type]


async def _nothing(visited: int, most: int, url: str) -> None:
    return None


def _crawl(
    fetcher: Fetcher, plan: CrawlPlan, journal: MemoryJournal | None = None, stop_after: int | None = None
) -> tuple[Crawl, MemoryJournal]:
    """The crawl and its journal; ``stop_after`` visits, it is stopped (as a graceful cancel stops it)."""
    kept = journal or MemoryJournal()
    stop = anyio.Event()

    async def report(visited: int, most: int, url: str) -> None:
        if stop_after is not None and visited >= stop_after:
            stop.set()

    async def run() -> Crawl:
        return await crawl(fetcher, Readers(0), "http://site.test/", plan, journal=kept, report=report, stop=stop)

    return anyio.run(run), kept


def test_a_crawl_that_reads_everything_did_not_stop(fetcher: Fetcher) -> None:
    result, _ = _crawl(fetcher, _plan())
    assert result.read == 21 and result.stopped is None and result.unvisited == 0 and not result.truncated


def test_max_pages_stops_a_crawl_and_counts_the_links_left(fetcher: Fetcher) -> None:
    result, _ = _crawl(fetcher, _plan(max_pages=3))
    assert (result.read, result.stopped, result.truncated) == (3, "max_pages", True)
    assert result.unvisited == 2  # /3 and /4, found from /1 and /2


def test_a_stopped_crawl_goes_on_from_its_journal_reading_each_page_once(fetcher: Fetcher) -> None:
    whole, _ = _crawl(fetcher, _plan())
    site = Site()
    fetcher = _wide_fetcher(site)
    stopped, journal = _crawl(fetcher, _plan(), stop_after=5)
    # the page begun before the stop came (reading goes on while a visit is written) is waited for and kept
    assert (stopped.visited, stopped.stopped) == (6, "cancelled") and stopped.unvisited > 0
    resumed, _ = _crawl(fetcher, _plan(), journal=journal)
    assert (resumed.read, resumed.visited, resumed.stopped) == (whole.read, 21, None)
    pages = [url for url in site.asked if not url.endswith("/robots.txt")]
    assert sorted(pages) == sorted(set(pages)) and len(pages) == 21  # no page read twice, none lost
    assert [v.url for v in journal.visits] == [f"http://site.test/{n}" if n else "http://site.test/" for n in range(21)]


def test_a_resumed_crawl_keeps_its_bounds(fetcher: Fetcher) -> None:
    _, journal = _crawl(fetcher, _plan(max_pages=8), stop_after=3)
    resumed, _ = _crawl(fetcher, _plan(max_pages=8), journal=journal)
    assert (resumed.visited, resumed.stopped) == (8, "max_pages") and len(journal.visits) == 8


class _Held(Site):
    """Site, each answer held a moment so that reads started together are seen in flight together."""

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
    )
    return Fetcher(policy, resolver=FakeDNS({"site.test": [PUBLIC]}), transport=site)


def _visits(journal: MemoryJournal) -> list[tuple[str, int, bool]]:
    return [(visit.url, visit.depth, visit.page is not None) for visit in journal.visits]


@pytest.mark.parametrize("bounds", [{}, {"max_pages": 5}, {"max_depth": 2}])
def test_pages_read_at_once_are_taken_in_breadth_order(bounds: dict[str, int]) -> None:
    one, wide = _Held(), _Held()
    alone, alone_kept = _crawl(_wide_fetcher(one), _plan(width=1, **bounds))
    together, together_kept = _crawl(_wide_fetcher(wide), _plan(width=4, **bounds))
    assert _visits(together_kept) == _visits(alone_kept) and (together.stopped, together.unvisited) == (
        alone.stopped,
        alone.unvisited,
    )
    assert one.most == 1 and wide.most > 1  # the same crawl, read several pages at a time


def test_a_wide_crawl_stopped_keeps_the_pages_it_was_reading_and_begins_no_other() -> None:
    site = _Held()
    result, journal = _crawl(_wide_fetcher(site), _plan(width=4), stop_after=1)
    # the start page's two links were being read when the stop came: both are kept, their own links left
    assert (result.visited, result.stopped) == (3, "cancelled") and len(journal.visits) == 3
    assert result.unvisited == 2 and len(site.asked) == 4  # /3 and /4 left; robots.txt and the three pages asked
