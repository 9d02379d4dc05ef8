"""A crawl worked by several workers through the store (netglean.scraping.fleet), on every backend:
each page read and recorded once, the bounds held for all of them together, a stopped worker's
claims given back; and the fleet's limiter spacing and capping one host's requests across workers.
The processes apart: tests/test_fleet.py."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from netglean.scraping.crawl import CrawlPlan, Visit
from netglean.scraping.crawl_run import RunJournal
from netglean.scraping.fleet import FleetLimiter, Joined, join_crawl
from netglean.store.base import RunStore
from netglean.workers.pool import Readers
from tests.support.stores import BACKENDS, RUN, open_store
from tests.unit.scraping.test_crawl import Site, _Held, _plan, _wide_fetcher


@dataclasses.dataclass
class Handle:
    id: str
    store: RunStore
    current: str | None = None


def body(visit: Visit, links: bool) -> dict[str, Any]:
    return {"url": visit.url, "depth": visit.depth, "read": visit.page is not None}


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(request.param, tmp_path)
    anyio.run(lambda: opened.create(RUN, "crawl", {}, None, ""))
    yield opened
    opened.close()


async def _nothing(visited: int, most: int, url: str) -> None:
    return None


def _work(
    store: RunStore, site: Site, plan: CrawlPlan, workers: int, stop: anyio.Event | None = None
) -> list[Joined]:
    """``workers`` workers joining one crawl of ``site`` at once, each with its own fetcher."""
    joined: list[Joined] = []

    async def one(n: int) -> None:
        journal = RunJournal(Handle(RUN, store), 0, False, body).shared(f"w{n}", plan.max_pages)
        joined.append(
            await join_crawl(
                _wide_fetcher(site),
                Readers(0),
                "http://site.test/",
                plan,
                journal=journal,
                report=_nothing,
                stop=stop,
            )
        )

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            for n in range(workers):
                tasks.start_soon(one, n)

    anyio.run(main)
    return joined


def _urls(store: RunStore) -> list[str]:
    items, _ = anyio.run(lambda: store.items(RUN, offset=0, limit=1_000))
    return [item.body["url"] for item in items]


def test_workers_sharing_a_crawl_read_and_record_each_page_once(store: RunStore) -> None:
    site = _Held()
    joined = _work(store, site, _plan(width=4), workers=3)
    pages = [url for url in site.asked if not url.endswith("/robots.txt")]
    assert sorted(pages) == sorted(set(pages)) and len(pages) == 21
    urls = _urls(store)
    assert sorted(urls) == sorted(set(urls)) and len(urls) == 21
    assert sum(j.recorded for j in joined) == 21
    for each in joined:
        crawl = each.crawl
        assert (crawl.read, crawl.visited, crawl.unvisited, crawl.stopped) == (21, 21, 0, None)


@pytest.mark.parametrize(("bounds", "pages"), [({"max_pages": 7}, 7), ({"max_depth": 2}, 5)])
def test_a_shared_crawls_bounds_hold_for_all_its_workers(
    store: RunStore, bounds: dict[str, int], pages: int
) -> None:
    joined = _work(store, _Held(), _plan(width=4, **bounds), workers=3)
    assert len(_urls(store)) == pages
    depths = {
        item.body["depth"] for item in anyio.run(lambda: store.items(RUN, offset=0, limit=50))[0]
    }
    assert max(depths) <= bounds.get("max_depth", 100)
    if "max_pages" in bounds:
        assert {j.crawl.stopped for j in joined} == {"max_pages"}


def test_a_stopped_worker_gives_its_claims_back_and_another_finishes_the_crawl(
    store: RunStore,
) -> None:
    stop = anyio.Event()
    stop.set()  # stopped before it reads: it claims nothing, reads nothing
    (first,) = _work(store, _Held(), _plan(width=4), workers=1, stop=stop)
    assert (first.recorded, first.crawl.stopped, first.crawl.unvisited) == (0, "cancelled", 1)
    (second,) = _work(store, _Held(), _plan(width=4), workers=1)
    assert second.recorded == 21 and len(_urls(store)) == 21


def test_a_worker_stopped_mid_crawl_records_what_it_read_and_frees_the_rest(
    store: RunStore,
) -> None:
    stop = anyio.Event()

    async def report(visited: int, most: int, url: str) -> None:
        if visited >= 5:
            stop.set()

    async def main() -> Joined:
        journal = RunJournal(Handle(RUN, store), 0, False, body).shared("stopped", 100_000)
        return await join_crawl(
            _wide_fetcher(_Held()),
            Readers(0),
            "http://site.test/",
            _plan(width=4),
            journal=journal,
            report=report,
            stop=stop,
        )

    joined = anyio.run(main)
    crawl = joined.crawl
    assert crawl.stopped == "cancelled" and crawl.unvisited > 0
    assert joined.recorded == crawl.visited == len(_urls(store))  # what it read, it recorded
    # nothing it left is still claimed: another worker takes all of it at once
    free = anyio.run(lambda: store.claim_pages(RUN, 0, "next", 1_000, 60.0))
    waiting = anyio.run(lambda: store.waiting(RUN, 0))
    assert len(free) == waiting == crawl.unvisited


def test_the_fleets_limiter_spaces_and_caps_a_hosts_requests_across_workers(
    store: RunStore,
) -> None:
    """Two limiters (two processes' fetchers) over one store: one request at a time to the host,
    each starting after the one before plus the interval."""
    spans: list[tuple[float, float]] = []

    async def request(limiter: FleetLimiter) -> None:
        async with limiter.slot("site.test", 0.1):
            began = anyio.current_time()
            await anyio.sleep(0.01)
            spans.append((began, anyio.current_time()))

    async def main() -> None:
        limiters = [FleetLimiter(lambda: store, 1, 8, poll=0.005) for _ in range(2)]
        async with anyio.create_task_group() as tasks:
            for n in range(8):
                tasks.start_soon(request, limiters[n % 2])

    anyio.run(main)
    spans.sort()
    # never two at once; the k-th begun k intervals after the first (on the store's clock: a
    # request begins when its wait ends). Counted from the first, not pairwise: a request that a
    # busy machine wakes late would make the gap to the next one look short
    assert all(end <= after for (_, end), (after, _) in itertools.pairwise(spans))
    first = spans[0][0]
    assert all(began - first >= 0.1 * k - 0.05 for k, (began, _) in enumerate(spans))
