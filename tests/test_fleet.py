"""One crawl worked by several worker processes over a PostgreSQL store (tests/support/fleet.py):
one host's requests spaced and capped across the processes, as the fixture site saw them; and a
worker killed (SIGKILL) in the middle of the crawl, whose pages the other worker and a restarted
one finish, each page in the result once."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from netglean.app import build_services
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.net.politeness import HostLimiter
from netglean.scraping.fleet import FleetLimiter
from netglean.store.base import RunStore
from tests.support.fleet import FleetSite
from tests.support.paths import PROJECT
from tests.support.stores import RUN, open_store, postgresql_url

pytest.importorskip("psycopg")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store("postgresql", tmp_path)
    anyio.run(lambda: opened.create(RUN, "crawl", {}, None, ""))
    yield opened
    opened.close()


def _workers(
    url: str,
    site: FleetSite,
    pages: int,
    names: list[str],
    *,
    interval: str,
    per_host: str,
    width: str,
) -> list[subprocess.Popen[str]]:
    """Worker processes joining the crawl, begun together once each has the store; their claims
    held 2 s (a killed one's come back soon)."""
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.fleet", url, RUN, site.url(0), str(pages),
             interval, per_host, width, name, "2"],
            cwd=PROJECT,
            env={**os.environ, "NETGLEAN_FLEET_WAIT": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]  # fmt: skip
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == "joined\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.close()
        child.stdin = None  # communicate() has nothing more to send
    return children


KILL = {"interval": "0.01", "per_host": "2", "width": "16"}


def _result(child: subprocess.Popen[str]) -> dict[str, int]:
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err[-3000:]
    answer: dict[str, int] = json.loads(out.splitlines()[-1])
    return answer


def _recorded_urls(store: RunStore) -> list[str]:
    items, _ = anyio.run(lambda: store.items(RUN, offset=0, limit=100_000))
    return [item.body["url"] for item in items]


def test_a_server_on_a_shared_store_spaces_its_fetches_with_the_fleet(
    registry: Registry, settings: Settings, tmp_path: Path
) -> None:
    alone = build_services(registry, settings)
    shared = build_services(
        registry, dataclasses.replace(settings, store=postgresql_url(tmp_path, fresh=False))
    )
    assert isinstance(alone.fetcher.limiter, HostLimiter)
    assert isinstance(shared.fetcher.limiter, FleetLimiter)


def test_one_hosts_requests_are_spaced_and_capped_across_worker_processes(
    store: RunStore, tmp_path: Path
) -> None:
    url = postgresql_url(tmp_path, fresh=False)
    pages = 60
    site = FleetSite(pages=pages, hosts=1, hold=0.05)
    with site.serving():
        names = ["w0", "w1", "w2"]
        workers = _workers(url, site, pages, names, interval="0.1", per_host="2", width="2")
        results = [_result(child) for child in workers]
    assert sum(r["recorded"] for r in results) == pages
    # each process read some of the host's pages
    assert all(r["recorded"] for r in results), results
    asked = sorted(site.requests, key=lambda r: r.came)
    assert len(asked) == pages
    # never more than two in flight at once, from the three processes together
    for request in asked:
        overlapping = [r for r in asked if r.came <= request.came < r.answered]
        assert len(overlapping) <= 2
    # the starts are spaced 0.1 s apart for the three processes together (each process alone
    # would space only its own): request n came n - 1 intervals after the first at least (one
    # interval of slack: the first's own start may have come late)
    first = asked[0].came
    early = [(n, r.came - first) for n, r in enumerate(asked) if r.came - first < (n - 1) * 0.1]
    assert not early


def test_a_worker_killed_mid_crawl_leaves_its_pages_to_the_others_each_recorded_once(
    store: RunStore, tmp_path: Path
) -> None:
    url = postgresql_url(tmp_path, fresh=False)
    pages = 400
    site = FleetSite(pages=pages, hosts=3, hold=0.01)
    with site.serving():
        doomed, other = _workers(url, site, pages, ["doomed", "other"], **KILL)
        deadline = time.monotonic() + 120
        while len(_recorded_urls(store)) < pages // 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=30)
        (restarted,) = _workers(url, site, pages, ["restarted"], **KILL)
        results = [_result(other), _result(restarted)]
    urls = _recorded_urls(store)
    assert len(urls) == pages and len(set(urls)) == pages  # every page, once
    assert all(r["unvisited"] == 0 for r in results)
    assert anyio.run(lambda: store.waiting(RUN, 0)) == 0
    fetched = Counter(site.pages_asked())
    missing = {f"/p/{n}" for n in range(pages)} - set(fetched)
    assert not missing, sorted(missing)[:5]
    # a page fetched twice is one the killed worker held: read (or being read) but not recorded, or
    # claimed and not begun: at most its width (16) and a slice taken ahead (8)
    assert max(fetched.values()) <= 2 and sum(n > 1 for n in fetched.values()) <= 24
