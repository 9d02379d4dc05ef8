"""The browser (netglean.browser) in Debian's Chromium, for real: pages that need JavaScript are
read, the network policy holds for every byte the browser asks for, and the pool survives a dead
browser and a page that never ends.

The page engine (netglean.scraping.pages.read_page) is driven directly, with the tests' DNS
(evil.test resolves to a private address the policy refuses) and a dial that sends the one allowed
name to the browser site; a second real server on 127.0.0.1 counts every connection it gets, so
anything that went around the proxy would be counted.

The site is served over TLS too, as browser.test with a test certificate Chromium is told to trust
(that one key: a flag the tests add to the pool's), for what browsers allow secure pages only:
service workers.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from netglean.browser import pool as browser_pool
from netglean.browser.pool import BrowserPool
from netglean.core.errors import BlockedAddress, FetchTimeout, RobotsDisallowed, ToolError
from netglean.core.settings import Settings
from netglean.feeds.pages import listing
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.politeness import SessionBudget
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.scraping.batch import read_pages
from netglean.scraping.pages import PageRead, Reading, read_page
from netglean.workers.pool import Readers
from tests.support import browser_site, tls_fixture
from tests.support.browser_site import ConnectionCounter
from tests.support.fixture_site import serve

# every test here drives Chromium (-m 'not browser' leaves them out)
pytestmark = pytest.mark.browser

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


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tls_fixture.TestTLS:
    return tls_fixture.make_tls(tmp_path_factory.mktemp("tls"), "browser.test")


@pytest.fixture(scope="module")
def secure_port(site: Site, tls: tls_fixture.TestTLS) -> Iterator[int]:
    """The browser site over TLS, where connections to browser.test:443 go."""
    with serve((tls.cert_file, tls.key_file), app=browser_site.APP) as port:
        yield port


@pytest.fixture
def trusting(tls: tls_fixture.TestTLS, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium started by the pool trusts the test certificate's key (and only it)."""
    flag = f"--ignore-certificate-errors-spki-list={tls.spki_sha256()}"
    monkeypatch.setattr(browser_pool, "FLAGS", (*browser_pool.FLAGS, flag))


def _engine(
    site_port: int, secure: tuple[int, tls_fixture.TestTLS] | None = None, **policy: Any
) -> tuple[Fetcher, LoopbackBackend, FakeDNS]:
    overrides = {
        "host_interval": 0.0,
        "fetch_total_timeout": 15.0,
        "fetch_only_hosts": "browser.test,evil.test",
    }
    settings = Settings.load({**overrides, **policy})
    backend = LoopbackBackend(site_port, tls_port=secure[0] if secure else None)
    dns = FakeDNS(dict(NAMES))
    context = secure[1].client_context() if secure else None
    policy = FetchPolicy.from_settings(settings)
    fetcher = Fetcher(policy, resolver=dns, dial=backend, ssl_context=context)
    return fetcher, backend, dns


def _with_pool(
    site_port: int, work: Callable[[Fetcher, BrowserPool, Readers], Awaitable[Any]], **policy: Any
) -> Any:
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


def _read(
    fetcher: Fetcher, pool: BrowserPool, readers: Readers, path: str, strategy: str
) -> Awaitable[PageRead]:
    how = Reading("markdown", True, 20_000, False, strategy=strategy)
    return read_page(fetcher, readers, f"http://browser.test{path}", 0, how, browser=pool)


def test_a_page_built_by_javascript_is_read_by_auto_and_browser_and_not_by_http(
    site: Site,
) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> dict[str, PageRead]:
        return {
            strategy: await _read(fetcher, pool, readers, "/spa", strategy)
            for strategy in ("http", "auto", "browser")
        }

    reads = _with_pool(site[0], work)
    assert "harbour wall" not in reads["http"].content and reads["http"].strategy == "http"
    for strategy in ("auto", "browser"):
        read = reads[strategy]
        assert (
            read.strategy == "browser"
            and "# The harbour wall" in read.content
            and "1953" in read.content
        )
        assert read.final_url == "http://browser.test/spa" and read.status == 200


def test_auto_on_a_static_page_never_starts_a_browser(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> tuple[PageRead, int]:
        read = await _read(fetcher, pool, readers, "/static", "auto")
        return read, pool.launches

    read, launches = _with_pool(site[0], work)
    assert read.strategy == "http" and "The wall" in read.content and launches == 0


def test_auto_renders_a_page_without_items_only_when_it_has_scripts(site: Site) -> None:
    """A listing without items renders under auto only if scripts could change it: a page with none
    would render to itself."""

    async def work(
        fetcher: Fetcher, pool: BrowserPool, readers: Readers
    ) -> tuple[str, int, str, int]:
        bare = await listing(
            fetcher, readers, "http://browser.test/plain", None, strategy="auto", browser=pool
        )
        launched = pool.launches
        scripted = await listing(
            fetcher, readers, "http://browser.test/listing", None, strategy="auto", browser=pool
        )
        return bare.strategy, launched, scripted.strategy, len(scripted.items)

    assert _with_pool(site[0], work) == ("http", 0, "browser", 10)


def test_a_wall_that_clears_once_javascript_runs_is_read_in_the_browser(site: Site) -> None:
    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> PageRead:
        return await _read(fetcher, pool, readers, "/wall", "auto")

    read = _with_pool(site[0], work)
    assert read.strategy == "browser" and "Past the check" in read.content


def test_no_request_the_browser_makes_reaches_what_the_policy_refuses(site: Site) -> None:
    """The page tries iframes, fetch, XHR, sendBeacon, a worker's WebSockets and fetch, CSS imports,
    a redirect, dns-prefetch and preconnect, WebRTC, towards a private address (evil.test, 10.0.0.5)
    and a loopback server that counts connections. None is connected to; the page itself is read;
    Chromium's own calls home are refused at the proxy without being looked up."""
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
    # only browser.test was ever dialled
    assert {address for address, _ in backend.connects} == {PUBLIC}
    assert set(dns.asked) <= {"browser.test", "evil.test"}  # nobody else was even looked up
    assert {host for host, _ in log.admitted} == {"browser.test"}
    assert not any(refusal.host == "browser.test" for refusal in log.refused)


class _AllowingServiceWorkers:
    """The pool's browser, but for its contexts' service workers, which they allow (the product
    blocks them)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    async def new_context(self, **options: Any) -> Any:
        return await self._browser.new_context(**{**options, "service_workers": "allow"})


def _allowing(
    context: Callable[[Any, str], Awaitable[Any]],
) -> Callable[[Any, str], Awaitable[Any]]:
    """The pool's context maker, its contexts allowing service workers and otherwise as the product
    makes them."""

    async def allowing(browser: Any, user_agent: str) -> Any:
        return await context(_AllowingServiceWorkers(browser), user_agent)

    return allowing


_SECURE_WITH_SERVICE_WORKERS = "window.isSecureContext && 'serviceWorker' in navigator"


def _service_worker_page(
    site: Site,
    secure: tuple[int, tls_fixture.TestTLS],
) -> tuple[dict[str, Any], Any, FakeDNS]:
    """https://browser.test/service-worker in the pool's browser, until its registration has settled
    (and, when it registered, until its worker has taken the page over): what the page and the site
    saw, the proxy's log, and who was looked up."""
    fetcher, _, dns = _engine(site[0], secure)
    browser_site.APP.state.served.clear()

    async def run() -> tuple[dict[str, Any], Any]:
        pool = BrowserPool(fetcher)
        try:
            async with pool.page(fetcher) as page:
                await page.goto("https://browser.test/service-worker", wait_until="load")
                await page.wait_for_function("location.hash !== ''")
                outcome = location = await page.evaluate("location.hash")
                if location == "#registered":
                    taken_over = "navigator.serviceWorker.controller !== null"
                    await page.wait_for_function(taken_over, timeout=15_000)
                    outcome = await page.evaluate("navigator.serviceWorker.controller.scriptURL")
                seen = {
                    "secure": await page.evaluate(_SECURE_WITH_SERVICE_WORKERS),
                    "outcome": outcome,
                    "registrations": await page.evaluate(
                        "navigator.serviceWorker.getRegistrations().then(found => found.length)"
                    ),
                    "served": list(browser_site.APP.state.served),
                }
            assert pool.proxy is not None
            return seen, pool.proxy.log
        finally:
            await pool.aclose()
            await fetcher.aclose()

    seen, log = anyio.run(run)
    return seen, log, dns


@pytest.mark.usefixtures("trusting")
def test_a_page_cannot_register_a_service_worker_even_where_browsers_allow_one(
    site: Site, secure_port: int, tls: tls_fixture.TestTLS
) -> None:
    """Over TLS, where the API exists (on http it does not, and a check there proves nothing), the
    page's registration does not happen: the site never serves the worker's script."""
    seen, _, _ = _service_worker_page(site, (secure_port, tls))
    assert seen["secure"] is True
    assert seen["outcome"] in {"#not-registered", "#failed"} and seen["registrations"] == 0
    assert seen["served"] == []


@pytest.mark.usefixtures("trusting")
def test_a_service_workers_own_requests_are_refused_at_the_proxy(
    site: Site, secure_port: int, tls: tls_fixture.TestTLS, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were a service worker to register after all, and its requests to go unseen by the page's
    router (as Playwright can be told, and as a worker's sockets always are), the proxy refuses what
    they ask for. The worker really runs: it takes the page over, and its own request to its site
    arrives there; its requests towards evil.test and the loopback counter are refused, unlooked-up,
    and nothing reaches the counter."""
    monkeypatch.setattr(browser_pool, "_context", _allowing(browser_pool._context))
    # The page's router does not see the worker's requests.
    monkeypatch.setenv("PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK", "1")
    _, counter = site
    seen, log, dns = _service_worker_page(site, (secure_port, tls))
    assert seen["outcome"] == "https://browser.test/sw.js" and seen["registrations"] == 1
    assert seen["served"] == ["/sw.js", "/sw-reached"]
    assert counter.connections == 0
    refused = {(refusal.host, refusal.port) for refusal in log.refused if refusal.unasked}
    assert {("evil.test", 443), ("127.0.0.1", counter.port)} <= refused
    assert {host for host, _ in log.admitted} == {"browser.test"}
    assert set(dns.asked) <= {"browser.test"}


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
    """batch_scrape (and the crawls, which read each page the same way) pass their strategy and the
    browser on."""

    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> list[Any]:
        how = Reading("markdown", True, 20_000, False, strategy="auto")
        urls = ["http://browser.test/spa", "http://browser.test/static", "http://evil.test/"]
        return await read_pages(
            fetcher, readers, urls, how, stop_by=math.inf, width=2, browser=pool
        )

    spa, static, refused = _with_pool(site[0], work)
    assert isinstance(spa, PageRead) and spa.strategy == "browser" and "harbour wall" in spa.content
    assert isinstance(static, PageRead) and static.strategy == "http"
    assert isinstance(refused, BlockedAddress)


def _browser_processes(pool: BrowserPool) -> list[int]:
    """The pids of the pool's Chromium (its main process: the one started with the proxy, not a
    renderer)."""
    assert pool.proxy is not None
    return _browsers_behind(pool.proxy.port)


def _browsers_behind(proxy_port: int) -> list[int]:
    """The pids of the Chromium main processes started with the proxy on ``proxy_port``."""
    mark = f"--proxy-server=http://127.0.0.1:{proxy_port}".encode()
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
    async def work(
        fetcher: Fetcher, pool: BrowserPool, readers: Readers
    ) -> tuple[type[Exception], int, str]:
        await _read(fetcher, pool, readers, "/static", "browser")
        (pid,) = _browser_processes(pool)
        failed: list[type[Exception]] = []

        async def long_call() -> None:
            try:
                await pool.render(fetcher, "http://browser.test/endless", timeout=120.0)
            except Exception as exc:
                failed.append(type(exc))

        with anyio.fail_after(60):  # the call ends with the browser, not at its own 120 s deadline
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
        await pool.render(fetcher, "http://browser.test/static", timeout=15.0)  # launched first
        try:
            await pool.render(fetcher, "http://browser.test/endless", timeout=1.5)
        except FetchTimeout:
            timed_out = True
        else:
            timed_out = False
        return timed_out, len(pool._browser.contexts)

    timed_out, contexts = _with_pool(site[0], work)
    assert timed_out and contexts == 0


def _held_launches(monkeypatch: pytest.MonkeyPatch) -> tuple[list[anyio.Event], list[int]]:
    """Chromium launches held, once Chromium has started, until the test sets the event it gives
    each in turn (made in the test's event loop): a launch as long as the test says. The list names
    every Chromium (main process) they started."""
    from playwright.async_api import BrowserType

    launch = BrowserType.launch
    gates: list[anyio.Event] = []
    started: list[int] = []
    launches = 0

    async def held(self: BrowserType, **options: Any) -> Any:
        nonlocal launches
        gate = gates[launches]
        launches += 1
        browser = await launch(self, **options)
        proxy = next(arg for arg in options["args"] if arg.startswith("--proxy-server="))
        proxy_port = int(proxy.rsplit(":", 1)[1])
        started.extend(pid for pid in _browsers_behind(proxy_port) if pid not in started)
        await gate.wait()
        return browser

    monkeypatch.setattr(BrowserType, "launch", held)
    return gates, started


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not: it has ended, and waits to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_render_that_stops_waiting_for_the_first_launch_leaves_it_to_the_next(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh server's first render waits for its Chromium to start: one that stops waiting first
    (its call's deadline passed) leaves the launch going on, and the next render uses that
    Chromium, never a second one."""
    gates, started = _held_launches(monkeypatch)

    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> str:
        gates.extend([anyio.Event(), anyio.Event()])  # the second: a launch there should not be
        with anyio.fail_after(60):
            async with anyio.create_task_group() as first_call:
                first_call.start_soon(_read, fetcher, pool, readers, "/static", "browser")
                while not started:
                    await anyio.sleep(0.05)
                # its deadline: Chromium has started, the launch is not over
                first_call.cancel_scope.cancel()
        for gate in gates:
            gate.set()
        return (await _read(fetcher, pool, readers, "/spa", "browser")).content

    assert "harbour wall" in _with_pool(site[0], work)
    assert len(started) == 1  # the Chromium the first render's launch started, used by the next


def test_a_pool_closed_while_its_browser_launches_leaves_no_chromium(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates, started = _held_launches(monkeypatch)

    async def work(fetcher: Fetcher, pool: BrowserPool, readers: Readers) -> None:
        gates.append(anyio.Event())  # never set: the launch is still going on when the pool closes
        with anyio.move_on_after(60):
            async with anyio.create_task_group() as renders:
                renders.start_soon(_read, fetcher, pool, readers, "/static", "browser")
                while not started:
                    await anyio.sleep(0.05)
                renders.cancel_scope.cancel()

    _with_pool(site[0], work)
    assert len(started) == 1
    for _ in range(100):  # the pool has closed: its Chromium ends with Playwright's driver
        if not _running(started[0]):
            break
        time.sleep(0.1)
    assert not _running(started[0])


def _drivers() -> set[int]:
    """The pids of the Playwright drivers this process started (its children running run-driver)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _running(int(entry.name)):
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if b"run-driver" in command and parent == os.getpid():
                found.add(int(entry.name))
    return found


def test_a_driver_that_starts_after_its_pool_closed_is_stopped(
    site: Site,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pool closing waits a bounded time for a launch (a driver starts whole, so that it can be
    stopped); a driver that starts after that is stopped by its launch, not left running."""
    from playwright.async_api import PlaywrightContextManager

    from netglean.browser import pool as pool_module

    start = PlaywrightContextManager.start
    gate: list[anyio.Event] = []
    starting = threading.Event()
    started: set[int] = set()

    async def held(self: PlaywrightContextManager) -> Any:
        starting.set()
        await gate[0].wait()
        playwright = await start(self)
        started.update(_drivers() - before)
        return playwright

    monkeypatch.setattr(PlaywrightContextManager, "start", held)
    monkeypatch.setattr(pool_module, "CLOSE_TIMEOUT", 0.2)
    before = _drivers()
    fetcher, _, _ = _engine(site[0])

    async def run() -> set[int]:
        gate.append(anyio.Event())
        pool = BrowserPool(fetcher)
        with anyio.fail_after(60):
            async with anyio.create_task_group() as first_call:
                render = partial(pool.render, fetcher, "http://browser.test/static", timeout=30)
                first_call.start_soon(render)
                while not starting.is_set():
                    await anyio.sleep(0.05)
                first_call.cancel_scope.cancel()
            await pool.aclose()  # gives up waiting for the held driver
            gate[0].set()
            while pool._launching is not None:  # the launch goes on: its driver starts, and stops
                await anyio.sleep(0.05)
        await fetcher.aclose()
        return _drivers() - before

    assert anyio.run(run) == set() and len(started) == 1  # a driver started, and was stopped
