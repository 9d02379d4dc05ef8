"""One long-lived Chromium per server, reached only through the policy proxy, lending isolated
contexts to calls.

Playwright (imported here and nowhere else, on first use) drives Debian's Chromium
(``--browser-path``). Chromium starts with the proxy as its only route out, its own DNS failing (so
nothing bypasses the proxy), the loopback bypass removed, background networking, component updates,
sync, pings and sign-in off, and WebRTC limited to proxied UDP, which the proxy does not carry. Each
call gets a fresh context (no cookies or storage shared), service workers blocked and downloads
refused, and a router that admits every request the page makes under the call's own fetcher:
robots.txt, politeness and the session's budget count browser requests as they count any other. A
crashed browser is replaced at the next call.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import importlib.util
import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import anyio

from netglean.core.errors import (
    FetchTimeout,
    HttpStatus,
    NotAvailable,
    ResponseTooLarge,
    ToolError,
    TooManyRedirects,
    Unavailable,
)
from netglean.net.page import Page
from netglean.net.urls import allowed_headers, parse_url

if TYPE_CHECKING:
    from netglean.browser.capture import Captured
    from netglean.browser.proxy import PolicyProxy
    from netglean.net.fetcher import Fetcher

T = TypeVar("T")

FLAGS = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-bypass-list=<-loopback>",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--no-pings",
    "--no-first-run",
    "--no-default-browser-check",
    "--dns-prefetch-disable",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater,SigninInterception,NetworkPrediction,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
    "--metrics-recording-only",
)
"""What Chromium starts with besides the proxy: nothing it would call out to on its own, no DNS of
its own."""
SETTLE = 3.0
"""The most seconds a render waits after the load event for the page's network to go quiet."""
VIEWPORT = {"width": 1280, "height": 800}
"""Every page's viewport (what a screenshot of it shows)."""
QUIET = 0.15
"""Seconds without a request in flight that count as quiet: a single-page app fetches its content
after the load event, and asks nothing more once it has it."""
MAX_HTML = 5 * 1024 * 1024
"""The most characters of rendered HTML a call takes (a page's DOM can grow without bound as scripts
run)."""
CLOSE_TIMEOUT = 5.0
"""Seconds a context is given to close, and a page's answer to be read back, past the call's own
time."""
ASK_TIMEOUT = 2.0
"""Seconds netglean waits for one answer from a page (its HTML, its height): a page whose script
never yields answers nothing, and is read as empty."""
TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "text/xml", "text/plain", "application/feed+json"}
)
"""Non-HTML answers whose bodies are read as they came (the browser wraps them in a viewer page)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A page as the browser left it: where it ended up, its status, its HTML (cut at MAX_HTML), and
    the XHR and fetch requests it made while loading (when asked for)."""

    url: str
    final_url: str
    status: int
    html: str
    requests: tuple[Captured, ...] = field(default=())
    grew_on_scroll: bool | None = None
    """Whether scrolling to the bottom made the page longer (an infinite list), when that was
    tried."""
    media_type: str = "text/html"
    """The answer's own media type: an HTML page's DOM is ``html``, any other answer its body as
    text."""

    def as_page(self) -> Page:
        """The rendered page as a fetched one, for the engines that read pages (feeds, probes,
        maps)."""
        headers = {"content-type": f"{self.media_type}; charset=utf-8"}
        return Page(self.url, self.final_url, self.status, headers, self.html.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class EndpointResponse:
    """An endpoint's answer as the browser got it: its body when it is JSON or text (None
    otherwise)."""

    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes | None


def find_browser(path: str) -> str | None:
    """The Chromium to drive: ``path`` when it names an executable, else one on PATH."""
    if path:
        return shutil.which(path)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def driver_installed() -> bool:
    """Whether Playwright, the driver of netglean's browser extra, is installed (without importing
    it)."""
    return importlib.util.find_spec("playwright") is not None


NO_DRIVER = (
    "rendering needs netglean's browser extra, which this install lacks: the operator installs "
    "it (pip install 'netglean[browser]', or uv sync --extra browser in a checkout)"
)


@dataclass(eq=False)
class _Launch:
    """One start of the browser (proxy, Playwright's driver, Chromium), in a task of the pool's."""

    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    browser: Any = None
    failure: Exception | None = None


class BrowserPool:
    """The server's browser, started on first use, with at most ``contexts`` calls inside it at
    once."""

    def __init__(self, fetcher: Fetcher, *, path: str = "", contexts: int = 2) -> None:
        self._fetcher = fetcher
        self._path = path
        self._slots = anyio.Semaphore(max(1, contexts))
        self._launching: _Launch | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._proxy: PolicyProxy | None = None
        self._proxy_scope: anyio.CancelScope | None = None
        self._proxy_done: anyio.Event | None = None
        self._installed: bool | None = None
        self.launches = 0
        """How many times a browser was started (a test reads it: auto on a static page launches
        none)."""

    @property
    def proxy(self) -> PolicyProxy | None:
        return self._proxy

    @property
    def installed(self) -> bool:
        """Whether there is a Chromium to drive, and Playwright to drive it (looked for once)."""
        if self._installed is None:
            self._installed = driver_installed() and find_browser(self._path) is not None
        return self._installed

    async def _ensure(self) -> Any:
        """The browser, launched when there is none. A launch is the pool's, not the call's: a call
        whose deadline passes stops waiting, the launch goes on, and the next call finds the browser
        (or waits for the same launch). A call that gave up never leaves a Chromium behind, nor a
        second one starting beside the next call's."""
        launch = self._start_launch()
        if launch is None:
            return self._browser
        await launch.done.wait()
        if launch.failure is not None:
            raise copy.copy(launch.failure)  # each waiter raises its own: tracebacks are per raise
        return launch.browser

    def _start_launch(self) -> _Launch | None:
        """The launch under way, started now when there is no browser; None if the browser runs."""
        if self._browser is not None and self._browser.is_connected():
            return None
        if self._launching is None:
            if not driver_installed():
                raise NotAvailable(NO_DRIVER, detail={"argument": "strategy"})
            executable = find_browser(self._path)
            if executable is None:
                raise NotAvailable(
                    "no Chromium to render with: the operator installs one (apt-get install "
                    "chromium) or names it with --browser-path",
                    detail={"argument": "strategy"},
                )
            self._launching = _Launch()
            _spawn(partial(self._launch, executable, self._launching))
        return self._launching

    async def _launch(self, executable: str, launch: _Launch) -> None:
        try:
            with launch.scope:
                if self._proxy is None:
                    await self._start_proxy()
                playwright = self._playwright
                if playwright is None:
                    # In a worker thread: on the event loop, the import would hold every deadline.
                    await anyio.to_thread.run_sync(
                        importlib.import_module, "playwright.async_api", abandon_on_cancel=True
                    )
                    from playwright.async_api import async_playwright

                    # Started whole (shielded): a driver half started could not be stopped, a whole
                    # one can, and its Chromium ends with it. One the pool no longer wants (it
                    # closed meanwhile) is stopped here, as the pool does not wait for ever.
                    with anyio.CancelScope(shield=True):
                        playwright = await async_playwright().start()
                        if launch.scope.cancel_called:
                            with anyio.move_on_after(CLOSE_TIMEOUT), contextlib.suppress(Exception):
                                await playwright.stop()
                            return
                    self._playwright = playwright
                assert self._proxy is not None
                self._browser = launch.browser = await playwright.chromium.launch(
                    executable_path=executable,
                    args=[f"--proxy-server=http://127.0.0.1:{self._proxy.port}", *FLAGS],
                )
                self.launches += 1
        except Exception as exc:  # every call waiting for this launch fails as it would have
            launch.failure = exc
        finally:
            if launch.browser is None and launch.failure is None:
                launch.failure = Unavailable("the server closed its browser before it had started")
            self._launching = None
            launch.done.set()

    async def _start_proxy(self) -> None:
        from netglean.browser.proxy import PolicyProxy  # with the browser's first launch

        proxy = PolicyProxy(self._fetcher)
        started = anyio.Event()
        done = anyio.Event()
        scope = anyio.CancelScope()

        async def run() -> None:
            with scope:
                await proxy.serve(_Started(started))
            done.set()

        # The proxy lives as long as the pool: a task of its own, outside any one call's task group.
        _spawn(run)
        self._proxy_scope, self._proxy_done = scope, done  # closing the pool meanwhile stops it too
        await started.wait()
        self._proxy = proxy

    @contextlib.asynccontextmanager
    async def page(
        self,
        fetcher: Fetcher,
        refused: list[ToolError] | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        origin: str = "",
    ) -> AsyncIterator[Any]:
        """A page in a fresh context whose every request is admitted under ``fetcher`` (the call's
        view); why a navigation of its main frame was refused is appended to ``refused``.
        ``headers`` (a feed config's, less those netglean decides) go with the requests to
        ``origin`` only, never to a third party the page names."""
        # the browser starts while the fetch layer that admits its requests loads
        self._start_launch()
        await fetcher.ready()
        async with self._slots:
            browser = await self._ensure()
            try:
                context = await _context(browser, fetcher.policy.user_agent)
            except Exception:  # the browser died between calls: start another
                self._browser = None
                context = await _context(await self._ensure(), fetcher.policy.user_agent)
            try:
                assert self._proxy is not None
                extra = (allowed_headers(headers), origin) if headers else None
                await context.route(
                    "**/*", _router(fetcher, self._proxy, [] if refused is None else refused, extra)
                )
                page = await context.new_page()
                yield page
            finally:
                # Shielded: a call cancelled at its deadline still gives its context (and its
                # renderer) back.
                with (
                    anyio.move_on_after(CLOSE_TIMEOUT, shield=True),
                    contextlib.suppress(Exception),
                ):
                    await context.close()

    async def render(
        self,
        fetcher: Fetcher,
        url: str,
        *,
        timeout: float,
        settle: float = SETTLE,
        headers: Mapping[str, str] | None = None,
        capture: bool = False,
        scroll: bool = False,
        max_redirects: int | None = None,
    ) -> Rendered:
        """``url`` loaded in a fresh context until its load event, then until its network has been
        quiet for QUIET seconds (what scripts fetch after the load builds a single-page app),
        ``settle`` seconds at most; its HTML as scripts left it. ``headers`` (a feed config's) go
        with every request, less those netglean decides; ``capture`` keeps the XHR and fetch
        requests made meanwhile; ``scroll`` then scrolls to the bottom once to see whether the page
        grows (an infinite list loads its next items). The fetch's limits hold: its redirects
        (``max_redirects`` may only lower the operator's) and its bytes."""
        # imported with the first render, as Playwright is
        from netglean.browser.capture import Capture
        from netglean.read.document import HTML_TYPES

        policy = fetcher.policy
        hops = (
            policy.max_redirects
            if max_redirects is None
            else min(max_redirects, policy.max_redirects)
        )
        refused: list[ToolError] = []
        try:
            # the fetch's time in all: a page that never lets go ends too
            with anyio.fail_after(timeout):
                async with self.page(
                    fetcher, refused, headers=headers, origin=_origin(url)
                ) as page:
                    captured = Capture(page) if capture else None
                    pending = in_flight(page)
                    response = await self._goto(
                        page, url, timeout=timeout, refused=refused, until="load"
                    )
                    _within_redirects(url, response, hops)
                    await quiet(pending, settle)
                    grew = await _grows_on_scroll(page, pending, settle) if scroll else None
                    status, media = _status(response)
                    if media in HTML_TYPES:
                        # the page as sent is held to the fetch's cap
                        await _bytes(response, policy.max_bytes)
                        html = ((await content(page)) or "")[:MAX_HTML]
                    # a JSON or XML answer: its own body, not the viewer Chromium wraps around it
                    else:
                        html = await _body(response, policy.max_bytes)
                    requests = await captured.finished() if captured is not None else ()
                    # Where the server answered from, not where a script then moved the address bar.
                    answered = response.url if response is not None else page.url
                    return Rendered(url, answered, status, html, requests, grew, media)
        except TimeoutError:
            raise FetchTimeout(
                f"rendering {url} took longer than allowed", detail={"url": url}
            ) from None

    async def load(self, page: Any, url: str, *, timeout: float, refused: list[ToolError]) -> int:
        """``page`` navigated to ``url`` until its load event; its status. A navigation the policy
        refused raises the policy's own words for it; one that failed or took longer than
        ``timeout`` seconds says so."""
        response = await self._goto(page, url, timeout=timeout, refused=refused, until="load")
        return _status(response)[0]

    async def _goto(
        self, page: Any, url: str, *, timeout: float, refused: list[ToolError], until: str
    ) -> Any:
        parse_url(url)
        mark = self._proxy.log.refusals if self._proxy is not None else 0
        try:
            return await page.goto(url, wait_until=until, timeout=timeout * 1000)
        except Exception as exc:
            if refused:  # the policy's own words for the page it refused
                raise refused[0] from None
            raise self._refused_at_proxy(url, mark) or _navigation_error(url, exc) from None

    async def answer(self, fetcher: Fetcher, url: str, *, timeout: float) -> EndpointResponse:
        """``url`` requested as the browser's own navigation (an API endpoint, its cookies and
        headers as a page would send them): its status, headers and, for a JSON or text answer, its
        body (at most the fetcher's byte cap); an answer Chromium shows in a viewer (a PDF) is
        described by its headers alone."""
        refused: list[ToolError] = []
        try:
            # the fetch's time in all: a body that trickles out ends with it
            with anyio.fail_after(timeout):
                async with self.page(fetcher, refused) as page:
                    response = await self._goto(
                        page, url, timeout=timeout, refused=refused, until="commit"
                    )
                    if response is None:
                        raise _navigation_error(url, RuntimeError("no response"))
                    headers = {
                        name.lower(): value
                        for name, value in (await response.all_headers()).items()
                    }
                    media = headers.get("content-type", "").split(";")[0].strip().lower()
                    readable = (
                        media in TEXT_TYPES
                        or media.startswith("text/")
                        or media.endswith(("+json", "+xml"))
                    )
                    body = await _bytes(response, fetcher.policy.max_bytes) if readable else None
                    return EndpointResponse(response.url, response.status, headers, body)
        except TimeoutError:
            raise FetchTimeout(
                f"{url} took longer than allowed to answer", detail={"url": url}
            ) from None

    def _refused_at_proxy(self, url: str, mark: int) -> ToolError | None:
        """Why the proxy refused a connection since refusal ``mark`` (a redirect to a refused
        address, or to a page robots.txt disallows): ``url``'s host's refusal first, else the newest
        one the policy worded."""
        if self._proxy is None:
            return None
        log = self._proxy.log
        since = [
            r
            for r in log.refused[len(log.refused) - min(log.refusals - mark, len(log.refused)) :]
            if r.error
        ]
        host = (urlsplit(url).hostname or "").lower()
        for refusal in reversed(since):
            if refusal.host.strip("[]").lower() == host:
                return refusal.error
        # Else where the navigation was sent (a redirect no router sees), never Chromium's own calls
        # home.
        led = [r for r in since if not r.unasked or not _HOME.search(r.host)]
        return led[-1].error if led else None

    async def aclose(self) -> None:
        launch = self._launching
        if launch is not None:  # no call waits for it any more: what it started is closed below
            launch.scope.cancel()
            with anyio.move_on_after(CLOSE_TIMEOUT):  # past it, the launch stops its driver itself
                await launch.done.wait()
        with contextlib.suppress(Exception):
            if self._browser is not None:
                await self._browser.close()
        with contextlib.suppress(Exception):
            if self._playwright is not None:
                await self._playwright.stop()
        if self._proxy_scope is not None and self._proxy_done is not None:
            self._proxy_scope.cancel()
            await self._proxy_done.wait()
        self._browser = self._playwright = self._proxy = None


async def read_by_strategy(
    strategy: str,
    fetcher: Fetcher,
    browser: BrowserPool | None,
    url: str,
    read: Callable[[Page], Awaitable[T]],
    *,
    lacking: Callable[[T], bool] = lambda _: False,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_redirects: int | None = None,
) -> tuple[T, str]:
    """``read`` of ``url`` as ``strategy`` says, and which strategy served it (http or browser):
    ``http`` fetches, ``browser`` renders, ``auto`` fetches and renders only an HTML page with
    scripts (one without renders to itself) when what ``read`` made of it is ``lacking`` (no items
    where a feed expects some) and the server has a browser installed."""
    from netglean.read.document import HTML_TYPES  # the readers' modules: not loaded with the pool
    from netglean.read.page_signals import has_scripts

    deadline = min(fetcher.policy.total_timeout, timeout or fetcher.policy.total_timeout)

    async def rendered() -> T:
        if browser is None:
            raise NotAvailable(
                "this server has no browser to render with", detail={"argument": "strategy"}
            )
        page = await browser.render(
            fetcher, url, timeout=deadline, headers=headers, max_redirects=max_redirects
        )
        if page.status >= 400:  # an error page is never a listing, rendered or not
            raise HttpStatus(
                f"{page.final_url} answered HTTP {page.status}",
                status=page.status,
                detail={"url": url},
            )
        return await read(page.as_page())

    if strategy == "browser":
        return await rendered(), "browser"
    page = await fetcher.fetch(url, headers=headers, timeout=timeout, max_redirects=max_redirects)
    found = await read(page)
    renders = strategy == "auto" and browser is not None and browser.installed
    if renders and page.media_type in HTML_TYPES and has_scripts(page.body) and lacking(found):
        return await rendered(), "browser"
    return found, "http"


_HEIGHT = "document.documentElement.scrollHeight"
GROWTH = 100
"""Pixels a page must grow by, scrolled to its bottom, to count as an infinite list."""


async def _grows_on_scroll(page: Any, pending: set[Any], settle: float) -> bool:
    before = await height(page)
    with anyio.move_on_after(ASK_TIMEOUT), contextlib.suppress(Exception):
        await page.evaluate("window.scrollTo(0, 1e9)")
    await quiet(pending, settle)
    after = await height(page)
    return before is not None and after is not None and after > before + GROWTH


async def height(page: Any) -> int | None:
    """The page's height in pixels, None when it does not say (a script that never yields, or one
    that made the height something else than a number)."""
    with anyio.move_on_after(ASK_TIMEOUT), contextlib.suppress(Exception):
        value = await page.evaluate(_HEIGHT)
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 10**9:
            return int(value)
    return None


_HOME = re.compile(
    r"(?:^|\.)(?:google|googleapis|gstatic|gvt1|gvt2|googleusercontent|chromium)\.(?:com|org)$"
)
"""The hosts Chromium calls by itself (updates, sign-in, safe browsing): refused, never a page's
cause."""


def _status(response: Any) -> tuple[int, str]:
    """A navigation's status and media type (a navigation with no answer of its own: 200, HTML)."""
    if response is None:
        return 200, "text/html"
    media = (response.headers.get("content-type") or "text/html").split(";")[0].strip().lower()
    return response.status, media


async def _bytes(response: Any, cap: int) -> bytes:
    declared = response.headers.get("content-length") or ""
    if declared.isdigit() and int(declared) > cap:
        raise ResponseTooLarge(
            f"the answer is {declared} bytes; the limit is {cap}", detail={"limit": cap}
        )
    try:
        body: bytes = await response.body()
    except Exception as exc:
        raise _navigation_error(response.url, exc) from None
    if len(body) > cap:
        raise ResponseTooLarge(f"the answer is over {cap} bytes", detail={"limit": cap})
    return body


def _within_redirects(url: str, response: Any, most: int) -> None:
    hops, request = 0, response.request if response is not None else None
    while request is not None and request.redirected_from is not None:
        hops, request = hops + 1, request.redirected_from
    if hops > most:
        raise TooManyRedirects(
            f"{url} redirected more than {most} times", detail={"url": url, "limit": most}
        )


async def _body(response: Any, cap: int) -> str:
    """A non-HTML navigation's own body as text (a JSON listing, an XML feed), cut at MAX_HTML."""
    if response is None:
        return ""
    return (await _bytes(response, cap)).decode("utf-8", "replace")[:MAX_HTML]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def content(page: Any, within: float = ASK_TIMEOUT) -> str | None:
    """The page's HTML now; a page in the middle of a navigation is given a moment to land (a few
    tries), one that never does reads as empty, and one that does not answer ``within`` seconds (a
    script that never yields holds its renderer) is None."""
    with anyio.move_on_after(within):
        for _ in range(5):
            try:
                return str(await page.content())
            except Exception:  # "the page is navigating and changing the content"
                with contextlib.suppress(Exception):
                    await page.wait_for_load_state("domcontentloaded", timeout=500)
        return ""
    return None


def in_flight(page: Any) -> set[Any]:
    """The page's requests in flight, kept current by its events (Playwright takes functions, not
    builtins)."""
    pending: set[Any] = set()

    def started(request: Any) -> None:
        pending.add(request)

    def ended(request: Any) -> None:
        pending.discard(request)

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    return pending


async def quiet(pending: set[Any], settle: float) -> None:
    """Wait until no request has been in flight for QUIET seconds, ``settle`` seconds at most."""
    step, quiet_for, waited = 0.025, 0.0, 0.0
    while waited < settle and quiet_for < QUIET:
        await anyio.sleep(step)
        waited += step
        quiet_for = quiet_for + step if not pending else 0.0


async def _context(browser: Any, user_agent: str) -> Any:
    """A fresh context: nothing shared with another call, no service workers, no downloads, and the
    fetches' user agent (netglean's own honest one unless the operator set another; never a
    browser's default, which would say HeadlessChrome)."""
    return await browser.new_context(
        service_workers="block",
        accept_downloads=False,
        java_script_enabled=True,
        user_agent=user_agent,
        viewport=VIEWPORT,
    )


def _router(
    fetcher: Fetcher,
    proxy: PolicyProxy,
    refused: list[ToolError],
    extra: tuple[dict[str, str], str] | None,
) -> Any:
    """Every request a page makes, admitted as a fetch is: the address policy, robots.txt, the
    session's budget and the politeness spacing; anything else (file:, chrome:, a refused host) is
    aborted. A host admitted here is one the proxy may connect to: it refuses hosts no page asked
    for (the browser's own calls home)."""

    async def route(request_route: Any) -> None:
        request = request_route.request
        url = request.url
        try:
            parsed = parse_url(url)
            await fetcher.admit(parsed)
            fetcher.budget.spend()
            document = request.resource_type == "document"
            for scheme, host, port in _siblings(parsed) if document else [_endpoint(parsed)]:
                proxy.expect(scheme, host, port, fetcher)
            # A page's loads are spaced as fetches are (Crawl-delay included); its assets load as a
            # browser loads them, each admitted and counted all the same.
            async with fetcher.limiter.slot(
                parsed.host, fetcher.interval(parsed) if document else 0.0
            ):
                if extra is not None and _origin(url) == extra[1]:
                    await request_route.continue_(headers={**request.headers, **extra[0]})
                else:
                    await request_route.continue_()
        except ToolError as refusal:
            request = request_route.request
            with contextlib.suppress(Exception):  # a popup's request has no frame to ask
                if request.is_navigation_request() and request.frame.parent_frame is None:
                    refused.append(refusal)
            with contextlib.suppress(Exception):
                await request_route.abort("blockedbyclient")

    return route


def _endpoint(url: Any) -> tuple[str, str, int]:
    return url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80)


def _siblings(url: Any) -> list[tuple[str, str, int]]:
    """Where a page load may be redirected that no router sees (Playwright routes no redirect hop):
    its host over http and https, with and without www. The proxy still holds each to the policy and
    robots.txt; what it refuses is what no page could have led to (the browser's own calls home)."""
    host = url.host
    twin = host[4:] if host.startswith("www.") else f"www.{host}"
    found = [_endpoint(url)]
    for name in (host, twin) if "." in host and not host.replace(".", "").isdigit() else (host,):
        found += [("http", name, 80), ("https", name, 443)]
    return list(dict.fromkeys(found))


def _navigation_error(url: str, exc: Exception) -> ToolError:
    from netglean.core.errors import Unreachable, UnsupportedContent

    text = str(exc)
    if "Download is starting" in text:  # downloads are refused: the answer is a file, not a page
        return UnsupportedContent(
            f"{url} answers with a file to download, not a page the browser shows; download "
            "identifies it",
            detail={"url": url},
        )
    if "Timeout" in type(exc).__name__ or "Timeout" in text:
        return FetchTimeout(f"rendering {url} took longer than allowed", detail={"url": url})
    return Unreachable(f"the browser could not load {url}", detail={"url": url})


class _Started:
    """A task status that sets an event when the proxy listens (its port is read from the proxy)."""

    def __init__(self, event: anyio.Event) -> None:
        self._event = event

    def started(self, value: object = None) -> None:
        self._event.set()


def _spawn(run: Any) -> None:
    import asyncio

    task = asyncio.get_running_loop().create_task(run())
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


_TASKS: set[Any] = set()
"""The proxies' and the launches' tasks, held so the loop does not lose them."""
