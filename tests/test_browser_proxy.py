"""The browser's boundary (netglean.browser.proxy and pool), in Debian's Chromium, for real.

The address policy holds at the proxy for every connection tried here (loopback in every spelling,
the proxy's own port, a name that rebinds to a private address, UDP from WebTransport and WebRTC).
Requests Playwright never routes (a redirect's next hop, a WebSocket, an ``<a download>``) pass the
same robots.txt check as those it routes (they reached a host the proxy already expected without it,
so a robots-disallowed page was read); and one malformed request head does not kill the proxy for
every later call.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from netglean.browser.pool import BrowserPool
from netglean.browser.proxy import PolicyProxy
from netglean.core.errors import RobotsDisallowed
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from tests.support.browser_site import ConnectionCounter
from tests.support.fixture_site import serve

# every test here drives Chromium (-m 'not browser' leaves them out)
pytestmark = pytest.mark.browser

HITS: list[str] = []
"""Every path and query this module's site was asked for."""


class UdpCounter:
    """A UDP socket on 127.0.0.1 that counts the datagrams it gets (QUIC, STUN, TURN)."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = int(self.socket.getsockname()[1])
        self.count = 0
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                self.socket.recvfrom(65536)
            except OSError:
                return
            self.count += 1


TCP, UDP = ConnectionCounter(), UdpCounter()

WORKER = """<!doctype html><html><body><p>worker</p><script>
const code = "const s = new WebSocket('ws://browser.test/private?worker'); " +
  "s.onerror = s.onclose = () => postMessage('done');";
const w = new Worker(URL.createObjectURL(new Blob([code], {type: 'text/javascript'})));
w.onmessage = () => { location.hash = 'ran'; };
</script></body></html>"""
DOWNLOAD = """<!doctype html><html><body><a id="d" href="/private?download" download>d</a><script>
document.getElementById('d').click(); setTimeout(() => { location.hash = 'ran'; }, 500);
</script></body></html>"""
LOOPBACK = """<!doctype html><html><head>
<style>body { background: url(http://[::ffff:127.0.0.1]:TCP/bg) }</style></head>
<body><p>loopback</p>
<object data="http://127.0.0.1:TCP/object"></object>
<iframe srcdoc="<img src='http://127.0.0.1:TCP/srcdoc'>
<script>fetch('http://2130706433:TCP/dec')</script>"></iframe>
<script>
const T = 'TCP', U = 'UDP', P = 'PROXY';
for (const url of ['http://127.0.0.1:' + P + '/', 'http://0x7f.1:' + T + '/hex',
                   'http://[::1]:' + T + '/v6', 'http://rebind.test/rebind',
                   'http://mixed.test/mixed'])
  fetch(url, {keepalive: true}).catch(() => {});
for (const url of ['ws://127.0.0.1:' + P + '/', 'ws://127.0.0.1:' + T + '/', 'ws://rebind.test/ws'])
  try { new WebSocket(url); } catch (e) {}
navigator.sendBeacon('http://127.0.0.1:' + T + '/beacon', 'x');
try { new EventSource('http://127.0.0.1:' + T + '/es'); } catch (e) {}
try { new WebTransport('https://127.0.0.1:' + U + '/wt').ready.catch(() => {}); } catch (e) {}
try {
  const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:' + U},
    {urls: 'turn:127.0.0.1:' + U + '?transport=udp', username: 'a', credential: 'b'},
    {urls: 'turn:127.0.0.1:' + T + '?transport=tcp', username: 'a', credential: 'b'}]});
  pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o));
} catch (e) {}
const code = "try { new WebSocket('ws://127.0.0.1:" + T + "/w'); } catch (e) {} " +
  "fetch('http://127.0.0.1:" + T + "/w').catch(() => {});";
new Worker(URL.createObjectURL(new Blob([code], {type: 'text/javascript'})));
setTimeout(() => { location.hash = 'ran'; }, 1500);
</script></body></html>"""


async def _html(request: Request) -> Response:
    HITS.append(request.url.path + ("?" + request.url.query if request.url.query else ""))
    page = {"/worker": WORKER, "/download": DOWNLOAD, "/loopback": LOOPBACK}.get(
        request.url.path, "<p>ok</p>"
    )
    page = page.replace("TCP", str(TCP.port)).replace("UDP", str(UDP.port))
    return Response(page.replace("PROXY", str(request.app.state.proxy)), media_type="text/html")


async def _private(request: Request) -> Response:
    HITS.append("/private?" + request.url.query)
    return PlainTextResponse("SECRET: robots.txt disallows this page")


async def _go(request: Request) -> Response:
    HITS.append("/go")
    return RedirectResponse("/private?redirected", status_code=302)


async def _robots(request: Request) -> Response:
    return PlainTextResponse("User-agent: *\nDisallow: /private\n")


APP = Starlette(
    routes=[
        Route("/robots.txt", _robots),
        Route("/private", _private),
        Route("/go", _go),
        Route("/{page}", _html),
    ]
)
APP.state.proxy = 0


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    with serve(app=APP) as port:
        yield port


def _engine(port: int) -> tuple[Fetcher, LoopbackBackend]:
    settings = Settings.load(
        {
            "host_interval": 0.0,
            "fetch_total_timeout": 15.0,
            "fetch_only_hosts": "browser.test,rebind.test,mixed.test",
        }
    )
    names: dict[str, Any] = {
        "browser.test": [PUBLIC],
        # public to the router, private when the proxy asks
        "rebind.test": [[PUBLIC], ["10.0.0.1"]],
        "mixed.test": [PUBLIC, "127.0.0.1"],
    }
    backend = LoopbackBackend(port)
    return Fetcher(
        FetchPolicy.from_settings(settings), resolver=FakeDNS(names), dial=backend
    ), backend


def _visit(port: int, path: str) -> tuple[BrowserPool, LoopbackBackend, Any]:
    """Load ``path`` in a page, wait for it to say it ran, and give its stragglers a second."""
    fetcher, backend = _engine(port)

    async def run() -> Any:
        pool = BrowserPool(fetcher)
        try:
            await pool._ensure()
            assert pool.proxy is not None
            APP.state.proxy = pool.proxy.port
            async with pool.page(fetcher) as page:
                await page.goto(f"http://browser.test{path}", wait_until="load")
                await page.wait_for_function("location.hash === '#ran'")
                await anyio.sleep(1.0)
            return pool.proxy.log
        finally:
            await pool.aclose()
            await fetcher.aclose()

    return anyio.run(run), backend, None


def test_a_redirect_in_the_browser_does_not_read_what_robots_txt_disallows(site: int) -> None:
    """Playwright routes no redirect hop: /go (allowed) redirects to /private (disallowed), the
    router never sees /private, the proxy already expects the host, and the agent is handed the
    disallowed page. The HTTP path (Fetcher._follow) checks robots.txt at every hop; the browser
    must too."""
    fetcher, _ = _engine(site)

    async def run() -> str:
        pool = BrowserPool(fetcher)
        try:
            try:
                rendered = await pool.render(fetcher, "http://browser.test/go", timeout=10.0)
            except RobotsDisallowed:
                return "refused"
            return rendered.html
        finally:
            await pool.aclose()
            await fetcher.aclose()

    HITS.clear()
    html = anyio.run(run)
    assert "SECRET" not in html
    assert "/private?redirected" not in HITS


def test_a_websocket_passes_the_router(site: int) -> None:
    """WebSockets are not routed (Playwright's context.route never sees them): one from a worker
    reaches a disallowed path on an expected host, unseen by robots.txt, the budget and
    politeness."""
    HITS.clear()
    _visit(site, "/worker")
    assert "/private?worker" not in HITS


def test_a_download_link_passes_the_router(site: int) -> None:
    """``<a download>`` becomes a download request Playwright does not route: it reaches a
    disallowed path."""
    HITS.clear()
    _visit(site, "/download")
    assert "/private?download" not in HITS


def test_loopback_in_any_spelling_the_proxy_port_rebinding_and_udp_are_never_reached(
    site: int,
) -> None:
    """Regression for what holds: loopback as ::ffff:127.0.0.1, 0x7f.1, 2130706433, [::1], by fetch,
    keepalive, beacon, EventSource, object, srcdoc, CSS, WebSockets from page and worker; the
    proxy's own port (not an open relay for the page); a name that rebinds to 10.0.0.1 between the
    router and the proxy; a name with a loopback answer among public ones; WebTransport and WebRTC
    over UDP. Nothing is connected to, nothing dialled but the public fixture address."""
    log, backend, _ = _visit(site, "/loopback")
    assert TCP.connections == 0 and UDP.count == 0
    assert {address for address, _ in backend.connects} == {PUBLIC}
    assert {host for host, _ in log.admitted} <= {"browser.test", "rebind.test"}
    # the second answer was checked
    assert any(refusal.host == "rebind.test" for refusal in log.refused)


def test_one_malformed_request_head_does_not_kill_the_proxy() -> None:
    """A port urlsplit cannot read raises ValueError out of PolicyProxy._handle; anyio's listener
    then ends and the pool's proxy is gone for every later call (the pool never restarts it). The
    proxy must answer 400 and go on serving."""
    fetcher, _ = _engine(1)
    proxy = PolicyProxy(fetcher)
    proxy.expect("http", "browser.test", 80)
    answers: list[bytes] = []

    async def ask(port: int, request: bytes) -> bytes:
        with anyio.fail_after(5):
            async with await anyio.connect_tcp("127.0.0.1", port) as client:
                await client.send(request)
                try:
                    return await client.receive()
                except anyio.EndOfStream:
                    return b""

    async def run() -> None:
        async with anyio.create_task_group() as group:
            port = await group.start(proxy.serve)
            answers.append(
                await ask(port, b"GET http://browser.test:99999/ HTTP/1.1\r\nHost: x\r\n\r\n")
            )
            answers.append(await ask(port, b"CONNECT browser.test:\xb2 HTTP/1.1\r\n\r\n"))
            answers.append(await ask(port, b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n"))
            group.cancel_scope.cancel()

    died = False
    try:
        anyio.run(run)
    except BaseException:  # the proxy's task group, ended by the handler's error
        died = True
    assert not died
    assert answers[-1].startswith(b"HTTP/1.1 403")
