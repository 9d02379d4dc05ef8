"""The browser (netglean.browser) in Debian's Chromium, for real: pages that need JavaScript are read, the network
policy holds for every byte the browser asks for, and the pool survives a dead browser and a page that never ends.

The page engine (netglean.sites.pages.read_page) is driven directly, with the tests' DNS (evil.test resolves to a
private address the policy refuses) and a dial that sends the one allowed name to the browser site; a second real
server on 127.0.0.1 counts every connection it gets, so anything that went around the proxy would be counted.
"""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from netglean.browser.pool import BrowserPool
from netglean.core.errors import BlockedAddress, FetchTimeout, RobotsDisallowed, ToolError
from netglean.core.settings import Settings
from netglean.feeds.pages import listing
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.politeness import SessionBudget
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.sites.batch import read_pages
from netglean.sites.pages import PageRead, Reading, read_page
from netglean.workers.pool import Readers
from tests.support import browser_site
from tests.support.browser_site import ConnectionCounter
from tests.support.fixture_site import serve

Site = tuple[int, ConnectionCounter]
"""The browser site's port, and the server that counts connections nothing should make."""
NAMES = {"browser.test": [PUBLIC], "evil.test": ["10.0.0.1"]}


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    counter = browser_site.ConnectionCounter()
    browser_site.APP.state.forbidden = f"127.0.0.1:{counter.port}"
    with serve(app=browser_site.APP) as port:
        yield port, counter
    counter.socket.close()


def _engine(site_port: int, **policy: Any) -> tuple[Fetcher, LoopbackBackend, FakeDNS]:
    overrides = {"host_interval": 0.0, "fetch_total_timeout": 15.0, "fetch_only_hosts": "browser.test,evil.test"}
    settings = Settings.load({**overrides, **policy})
    backend, dns = LoopbackBackend(site_port), FakeDNS(dict(NAMES))
    return Fetcher(FetchPolicy.from_settings(settings), resolver=dns, dial=backend), backend, dns


def _with_pool(site_port: int, work: Callable[[Fetcher, BrowserPool, Readers], Awaitable[Any]], **policy: Any) -> Any:
    fetcher, _, _ = _engine(site_port, **policy)

    async def run() -> Any:
        pool, readers = BrowserPool(fetcher), Readers(0)
        try:
            return await work(fetcher, pool, readers)
        finally:
            await pool.aclose()
            readers.close()
            await fetcher.aclose()

    return anyio.run(run)


def _read(fetcher: Fetcher, pool: BrowserPool, readers: Readers, path: str, strategy: str) -> Awaitable[PageRead]:
    how = Reading("markdown", True, 20_000, False, strategy=strategy)
    return read_page(fetcher, readers, f"http://browser.test{path}", 0, how, browser=pool)


def test_a_page_built_by_javascript_is_read_by_auto_and_browser_and_not_by_http(
    site: Site,
) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> dict[str, PageRead]:
        return {
            strategy: await _read(fetcher, pool, readers, "/spa", strategy) for strategy in ("http", "auto", "browser")
        }

    reads = _with_pool(site[0], work)
    assert "harbour wall" not in reads["http"].content and reads["http"].strategy == "http"
    for strategy in ("auto", "browser"):
        read = reads[strategy]
        assert read.strategy == "browser" and "# The harbour wall" in read.content and "1953" in read.content
        assert read.final_url == "http://browser.test/spa" and read.status == 200


def test_auto_on_a_static_page_never_starts_a_browser(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[PageRead, int]:
        read = await _read(fetcher, pool, readers, "/static", "auto")
        return read, pool.launches

    read, launches = _with_pool(site[0], work)
    assert read.strategy == "http" and "The wall" in read.content and launches == 0


def test_auto_renders_a_page_without_items_only_when_it_has_scripts(site: Site) -> None:
    """A listing without items renders under auto only if scripts could change it: a page with none would render
    to itself."""

    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[str, int, str, int]:
        bare = await listing(fetcher, readers, "http://browser.test/plain", None, strategy="auto", browser=pool)
        launched = pool.launches
        scripted = await listing(fetcher, readers, "http://browser.test/listing", None, strategy="auto", browser=pool)
        return bare.strategy, launched, scripted.strategy, len(scripted.items)

    assert _with_pool(site[0], work) == ("http", 0, "browser", 10)


def test_a_wall_that_clears_once_javascript_runs_is_read_in_the_browser(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> PageRead:
        return await _read(fetcher, pool, readers, "/wall", "auto")

    read = _with_pool(site[0], work)
    assert read.strategy == "browser" and "Past the check" in read.content


def test_no_request_the_browser_makes_reaches_what_the_policy_refuses(site: Site) -> None:
    """The page tries iframes, fetch, XHR, sendBeacon, a worker's WebSockets and fetch, a service worker, CSS
    imports, a redirect, dns-prefetch and preconnect, WebRTC, towards a private address (evil.test, 10.0.0.5) and a
    loopback server that counts connections. None is connected to; the page itself is read; Chromium's own calls
    home are refused at the proxy without being looked up."""
    port, counter = site
    fetcher, backend, dns = _engine(port)

    async def run() -> tuple[PageRead, Any]:
        pool, readers = BrowserPool(fetcher), Readers(0)
        try:
            read = await _read(fetcher, pool, readers, "/tricks", "browser")
            async with pool.page(fetcher) as page:  # give the worker and the beacon time to try
                await page.goto("http://browser.test/tricks", wait_until="load")
                await page.wait_for_function("location.hash === '#ran'")
                await anyio.sleep(1.0)
            assert pool.proxy is not None
            return read, pool.proxy.log
        finally:
            await pool.aclose()
            readers.close()
            await fetcher.aclose()

    read, log = anyio.run(run)
    assert "Tricks" in read.content
    assert counter.connections == 0
    assert {address for address, _ in backend.connects} == {PUBLIC}  # only browser.test was ever dialled
    assert set(dns.asked) <= {"browser.test", "evil.test"}  # nobody else was even looked up
    assert {host for host, _ in log.admitted} == {"browser.test"}
    assert not any(refusal.host == "browser.test" for refusal in log.refused)


def test_browser_requests_count_against_the_session_budget_and_robots(site: Site) -> None:
    fetcher, _, _ = _engine(site[0])

    async def run() -> tuple[int, type[Exception] | None]:
        pool, readers = BrowserPool(fetcher), Readers(0)
        budget = SessionBudget(100)
        spending = fetcher.spending(budget)
        refused: type[Exception] | None = None
        try:
            await _read(spending, pool, readers, "/spa", "browser")
            try:
                await _read(spending, pool, readers, "/private", "browser")
            except RobotsDisallowed as exc:
                refused = type(exc)
            return budget.spent, refused
        finally:
            await pool.aclose()
            readers.close()
            await fetcher.aclose()

    spent, refused = anyio.run(run)
    assert spent >= 3  # robots.txt, the page, its /api/story fetch: each a request of the session's
    assert refused is RobotsDisallowed


def test_a_dead_browser_is_replaced_and_a_page_that_never_loads_ends_at_its_deadline(
    site: Site,
) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[int, bool, str]:
        await _read(fetcher, pool, readers, "/spa", "browser")
        await pool._browser.close()  # the browser is gone between calls
        again = await _read(fetcher, pool, readers, "/spa", "browser")
        timed_out = False
        try:
            await pool.render(fetcher, "http://browser.test/endless", timeout=2.0)
        except FetchTimeout:
            timed_out = True
        after = await _read(fetcher, pool, readers, "/static", "browser")
        return pool.launches, timed_out and "harbour wall" in again.content, after.content

    launches, ok, after = _with_pool(site[0], work)
    assert launches == 2 and ok and "The wall" in after


def test_a_refused_page_is_refused_in_the_browser_too(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> type[Exception]:
        how = Reading("markdown", True, 20_000, False, strategy="browser")
        try:
            await read_page(fetcher, readers, "http://evil.test/", 0, how, browser=pool)
        except BlockedAddress as exc:
            return type(exc)
        raise AssertionError("evil.test was read")

    assert _with_pool(site[0], work) is BlockedAddress


def test_a_batch_renders_the_pages_its_strategy_asks_for(site: Site) -> None:
    """batch_scrape (and the crawls, which read each page the same way) pass their strategy and the browser on."""

    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> list[Any]:
        how = Reading("markdown", True, 20_000, False, strategy="auto")
        urls = ["http://browser.test/spa", "http://browser.test/static", "http://evil.test/"]
        return await read_pages(fetcher, readers, urls, how, stop_by=math.inf, width=2, browser=pool)

    spa, static, refused = _with_pool(site[0], work)
    assert isinstance(spa, PageRead) and spa.strategy == "browser" and "harbour wall" in spa.content
    assert isinstance(static, PageRead) and static.strategy == "http"
    assert isinstance(refused, BlockedAddress)


def _browser_processes(pool: BrowserPool) -> list[int]:
    """The pids of the pool's Chromium (its main process: the one started with the proxy, not a renderer)."""
    assert pool.proxy is not None
    mark = f"--proxy-server=http://127.0.0.1:{pool.proxy.port}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if mark in command and not any(part.startswith(b"--type=") for part in command):
                found.append(int(entry.name))
    return found


def test_a_browser_killed_mid_call_fails_that_call_and_the_next_one_works(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[type[Exception], int, str]:
        await _read(fetcher, pool, readers, "/static", "browser")
        (pid,) = _browser_processes(pool)
        failed: list[type[Exception]] = []

        async def long_call() -> None:
            try:
                await pool.render(fetcher, "http://browser.test/endless", timeout=10.0)
            except Exception as exc:
                failed.append(type(exc))

        with anyio.fail_after(8):  # the call ends with the browser, not at its own 10 s deadline
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(long_call)
                await anyio.sleep(1.0)
                os.kill(pid, signal.SIGKILL)
        after = await _read(fetcher, pool, readers, "/spa", "browser")
        return failed[0], pool.launches, after.content

    failure, launches, after = _with_pool(site[0], work)
    assert issubclass(failure, ToolError) and launches == 2 and "harbour wall" in after


def test_a_page_that_never_loads_gives_its_context_back(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[bool, int]:
        try:
            await pool.render(fetcher, "http://browser.test/endless", timeout=1.5)
        except FetchTimeout:
            timed_out = True
        else:
            timed_out = False
        return timed_out, len(pool._browser.contexts)

    timed_out, contexts = _with_pool(site[0], work)
    assert timed_out and contexts == 0
