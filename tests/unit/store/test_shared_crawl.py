"""A crawl shared by several workers, in the store, on every backend: its waiting URLs claimed in
host slices under leases (renewed, given up, taken back once expired), each URL queued once and
each page recorded once whoever races for it, max_pages counted for the whole fleet; the hosts'
turns that space and cap requests across processes; and several processes claiming at once, none
given a page another holds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import anyio
import pytest

from netglean.store.base import Found, Kept, RunStore
from tests.support.paths import PROJECT
from tests.support.stores import RUN, postgresql_url, rows_in, visit

T = TypeVar("T")
HOUR = 3600.0


def run(work: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(work)


def found(seq: int, *urls: str, depth: int = 1, failed: bool = False) -> Found:
    """The visit of http://site.test/<seq>, which found ``urls``."""
    return Found(visit(seq, failed=failed), urls, depth)


async def _shared(store: RunStore, *urls: str) -> None:
    """A shared crawl from http://site.test/0 whose first page found ``urls``."""
    await store.create(RUN, "crawl", {}, None, "")
    await store.share(RUN, 0, "http://site.test/0")
    assert [q.seq for q in await store.claim_pages(RUN, 0, "w0", 10, HOUR)] == [0]
    assert await store.record_claimed(RUN, 0, [found(0, *urls)], max_pages=10_000) == [
        Kept(True, len(urls))
    ]


def test_workers_claim_a_host_slice_each_and_never_a_url_another_holds(store: RunStore) -> None:
    async def work() -> None:
        a = [f"http://a.test/{n}" for n in range(4)]
        b = [f"http://b.test/{n}" for n in range(2)]
        await _shared(store, a[0], b[0], a[1], a[2], b[1], a[3])
        first = await store.claim_pages(RUN, 0, "w1", 3, HOUR)
        assert [q.url for q in first] == a[:3]  # one host's, in order
        # the next worker takes the host nobody holds
        assert [q.url for q in await store.claim_pages(RUN, 0, "w2", 3, HOUR)] == b
        # then what is left, of the host another holds
        assert [q.url for q in await store.claim_pages(RUN, 0, "w2", 3, HOUR)] == [a[3]]
        assert await store.claim_pages(RUN, 0, "w3", 3, HOUR) == []
        assert await store.waiting(RUN, 0) == 6

    run(work)


def test_a_dead_workers_claims_expire_and_another_takes_them_back(store: RunStore) -> None:
    async def work() -> None:
        await _shared(store, "http://a.test/1", "http://a.test/2")
        assert len(await store.claim_pages(RUN, 0, "dead", 5, 0.0)) == 2  # its lease is over
        taken = await store.claim_pages(RUN, 0, "alive", 5, HOUR)
        assert [q.url for q in taken] == ["http://a.test/1", "http://a.test/2"]
        assert await store.renew_claims(RUN, 0, "alive", HOUR) == 2
        assert await store.renew_claims(RUN, 0, "dead", HOUR) == 0  # they are not its now
        assert await store.claim_pages(RUN, 0, "third", 5, HOUR) == []
        # given up: free at once
        assert await store.release_claims(RUN, 0, "alive") == 2
        assert len(await store.claim_pages(RUN, 0, "third", 5, HOUR)) == 2

    run(work)


def test_a_page_is_recorded_once_when_two_workers_race_for_it(store: RunStore) -> None:
    async def work() -> None:
        await _shared(store, "http://a.test/1")
        # one worker's lease ran out; another took the page back; both read it
        await store.claim_pages(RUN, 0, "slow", 5, 0.0)
        await store.claim_pages(RUN, 0, "fast", 5, HOUR)
        won = await store.record_claimed(
            RUN, 0, [found(1, "http://a.test/2", depth=2)], max_pages=100
        )
        lost = await store.record_claimed(
            RUN, 0, [found(1, "http://a.test/3", depth=2)], max_pages=100
        )
        assert (won, lost) == ([Kept(True, 1)], [Kept(False)])
        items, total = await store.items(RUN, offset=0, limit=10)
        assert total == 2 and [item.seq for item in items] == [0, 1]
        # the losing visit's links are not queued
        assert await store.known_urls(RUN, 0, ["http://a.test/2", "http://a.test/3"]) == {
            "http://a.test/2"
        }
        assert await store.waiting(RUN, 0) == 1

    run(work)


def test_a_url_found_by_two_workers_is_queued_once(store: RunStore) -> None:
    async def work() -> None:
        await _shared(store, "http://a.test/1", "http://b.test/1")
        await store.claim_pages(RUN, 0, "w1", 1, HOUR)
        await store.claim_pages(RUN, 0, "w2", 1, HOUR)
        same = "http://c.test/shared"
        kept = await store.record_claimed(
            RUN, 0, [found(1, same, "http://c.test/1", same), found(2, same)], max_pages=100
        )
        assert kept == [Kept(True, 2), Kept(True, 0)]
        point = await store.checkpoint(RUN, 0)
        assert (point.queued, point.visited, point.waiting) == (5, 3, 2)

    run(work)


def test_max_pages_is_counted_in_the_store_for_every_worker(store: RunStore) -> None:
    async def work() -> None:
        await _shared(store, "http://a.test/1", "http://b.test/1")
        await store.claim_pages(RUN, 0, "w1", 1, HOUR)
        await store.claim_pages(RUN, 0, "w2", 1, HOUR)
        one = await store.record_claimed(
            RUN, 0, [found(1, "http://a.test/2", "http://a.test/3")], max_pages=4
        )
        other = await store.record_claimed(
            RUN, 0, [found(2, "http://b.test/2", "http://b.test/3")], max_pages=4
        )
        assert (one, other) == ([Kept(True, 1, 1)], [Kept(True, 0, 2)])
        point = await store.checkpoint(RUN, 0)
        assert (point.queued, point.dropped) == (4, 3)

    run(work)


def test_a_hosts_turns_are_spaced_and_capped_for_every_process(store: RunStore) -> None:
    async def work() -> None:
        turn = store.take_turn
        assert await turn("a.test", "r1", interval=30.0, per_host=2, lease=HOUR) == 0.0
        second = await turn("a.test", "r2", interval=30.0, per_host=2, lease=HOUR)
        assert second is not None and 29.0 < second <= 30.0  # its start: 30 s after the first's
        assert await turn("a.test", "r3", interval=30.0, per_host=2, lease=HOUR) is None  # full
        assert await turn("b.test", "r4", interval=30.0, per_host=2, lease=HOUR) == 0.0
        await store.end_turn("a.test", "r1")
        third = await turn("a.test", "r3", interval=30.0, per_host=2, lease=HOUR)
        assert third is not None and 59.0 < third <= 60.0
        # a holder that died: its place is free once its lease is over
        assert await turn("c.test", "dead", interval=0.0, per_host=1, lease=0.0) == 0.0
        assert await turn("c.test", "next", interval=0.0, per_host=1, lease=HOUR) is not None

    run(work)


def test_a_renewed_place_outlives_its_first_lease(store: RunStore) -> None:
    """A request still in flight renews its place (FleetLimiter, every third of its lease): the
    host stays full for the others until it ends."""

    async def work() -> None:
        assert await store.take_turn("d.test", "slow", interval=0.0, per_host=1, lease=0.0) == 0.0
        await store.renew_turn("d.test", "slow", HOUR)
        assert await store.take_turn("d.test", "next", interval=0.0, per_host=1, lease=HOUR) is None
        await store.end_turn("d.test", "slow")
        assert await store.take_turn("d.test", "next", interval=0.0, per_host=1, lease=HOUR) == 0.0

    run(work)


def test_prune_forgets_the_hosts_not_asked_of_since(
    store: RunStore, backend: str, tmp_path: Path
) -> None:
    async def work() -> None:
        for host in ("a.test", "b.test"):
            assert await store.take_turn(host, host, interval=0.0, per_host=1, lease=HOUR) == 0.0
            await store.end_turn(host, host)
        await store.prune(time.time() - HOUR)
        assert rows_in(backend, tmp_path, "host_turns") == 2  # asked of within the retention
        await store.prune(time.time() + HOUR)
        assert rows_in(backend, tmp_path, "host_turns") == 0

    run(work)


CLAIMER = textwrap.dedent(
    """
    import json, sys
    import anyio
    from netglean.store.open import open_store

    async def main(folder: str, url: str, worker: str) -> None:
        store = open_store(folder, url)
        print("ready", flush=True)
        sys.stdin.readline()  # every process starts claiming at once
        claimed = []
        while batch := await store.claim_pages({run!r}, 0, worker, 3, 3600.0):
            claimed += [q.seq for q in batch]
            await anyio.sleep(0.01)  # reading them, while the others claim
        store.close()
        print(json.dumps(claimed))

    anyio.run(main, *sys.argv[1:])
    """
)


def test_processes_claiming_at_once_are_never_given_the_same_page(
    store: RunStore, backend: str, tmp_path: Path
) -> None:
    pages = 600
    hosts = [f"http://h{n}.test" for n in range(5)]
    urls = [f"{hosts[n % len(hosts)]}/{n}" for n in range(1, pages)]

    async def setup() -> None:
        await _shared(store, *urls)

    run(setup)
    url = postgresql_url(tmp_path, fresh=False) if backend == "postgresql" else ""
    code = CLAIMER.format(run=RUN)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path), url, f"worker-{n}"],
            cwd=PROJECT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    claimed = [json.loads(child.communicate(timeout=120)[0]) for child in children]
    every = [seq for each in claimed for seq in each]
    assert sorted(every) == list(range(1, pages))  # each page claimed, none twice
    assert all(claimed), "every process took a share"


def test_a_renewal_passes_the_claims_a_visit_being_recorded_holds(
    store: RunStore, backend: str, tmp_path: Path
) -> None:
    """A worker renews its claims while it records visits of them: the renewal must not wait for
    that write (which may itself wait for a claim the renewal has locked: a deadlock)."""
    if backend != "postgresql":
        pytest.skip("SQLite has one writer: no two of its writes wait on each other")
    import psycopg

    async def setup() -> None:
        await _shared(store, "http://a.test/1", "http://a.test/2")
        assert len(await store.claim_pages(RUN, 0, "w", 5, HOUR)) == 2

    run(setup)
    with psycopg.connect(postgresql_url(tmp_path, fresh=False)) as recording:
        # a visit of /2 being recorded: its claim's row held until the write commits
        recording.execute("DELETE FROM crawl_waiting WHERE seq = 2")
        renewed: list[int] = []
        renewal = threading.Thread(
            target=lambda: renewed.append(run(lambda: store.renew_claims(RUN, 0, "w", HOUR)))
        )
        renewal.start()
        renewal.join(10)
        waited = renewal.is_alive()
        recording.rollback()
        renewal.join()
    assert not waited and renewed == [1]
