"""Pages that need a browser, served on 127.0.0.1 for tests/test_browser.py,
tests/test_browser_tools.py and tests/test_browser_strategies.py: a single-page app that builds its
article from a fetch, a React-like listing built from static files and a JSON API, an
infinite-scroll listing, a form, a static article, a page that tries every way out of the network
policy, a page that registers a service worker (served over TLS: the API exists in secure contexts
only) whose own requests try to leave, a wall that clears once JavaScript runs, and a page that
never finishes loading.

Every "forbidden" address here is one the tests' policy refuses: ``evil.test`` resolves (by the
tests' DNS) to a private address, and ``FORBIDDEN`` is filled in with a real 127.0.0.1 server that
counts the connections it gets, so a request that slipped past the proxy would show as a count, not
just as a missing log line.
"""

from __future__ import annotations

import socket
import threading

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route


class ConnectionCounter:
    """A TCP server on 127.0.0.1 that counts the connections it accepts and answers none: a request
    that went around the browser's proxy shows here as a count."""

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


PARAGRAPH = (
    "The harbour wall was built in 1820, rebuilt after the storm of 1953, and raised again in "
    "2004. "
)
SPA = """<!doctype html><html><head><title>Harbour app</title></head><body><div id="root"></div>
<script>
fetch('/api/story').then(r => r.json()).then(story => {
  document.getElementById('root').innerHTML = '<article><h1>' + story.title + '</h1>' +
    story.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>';
});
</script></body></html>"""
STATIC = (
    "<!doctype html><html><head><title>Static</title><script>var analytics = "
    "1;</script></head><body><article><h1>The wall</h1>"
    + f"<p>{PARAGRAPH * 3}</p>" * 4
    + "</article></body></html>"
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
  "try { new WebSocket('ws://FORBIDDEN/ws'); } catch (e) {} " +
  "fetch('http://FORBIDDEN/worker').catch(() => {});";
new Worker(URL.createObjectURL(new Blob([code], {type: 'text/javascript'})));
try { new WebSocket('ws://FORBIDDEN/page-ws'); } catch (e) {}
try {
  new RTCPeerConnection({iceServers: [{urls: 'stun:FORBIDDEN'}]}).createDataChannel('x');
} catch (e) {}
location.hash = 'ran';
</script></body></html>"""
)
SERVICE_WORKER_PAGE = """<!doctype html><html><head><title>Offline harbour</title></head><body>
<article><h1>Offline harbour</h1><p>The harbour guide, kept for reading offline.</p></article>
<script>
navigator.serviceWorker.register('/sw.js').then(
  registration => { location.hash = registration ? 'registered' : 'not-registered'; },
  () => { location.hash = 'failed'; });
</script></body></html>"""
SERVICE_WORKER = """self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', event => event.waitUntil(Promise.all([
  fetch('https://evil.test/sw').catch(() => {}),
  fetch('https://FORBIDDEN/sw').catch(() => {}),
  new Promise(done => {
    const socket = new WebSocket('wss://FORBIDDEN/sw');
    socket.onerror = socket.onclose = done;
  }),
  fetch('/sw-reached').catch(() => {}),
]).then(() => self.clients.claim())));"""
"""Once active, before it takes the page over: a fetch towards the refused address and the loopback
counter, a socket to the counter, and a fetch of its own site (the proof it ran and its requests go
out)."""
WALL = (
    """<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge">Checking your browser before accessing the site.
Enable JavaScript and cookies to continue.</div>
<script>
document.title = 'The harbour';
document.body.innerHTML = '<article><h1>Past the check</h1>' + '<p>"""
    + PARAGRAPH * 3
    + """</p>'.repeat(4) +
  '</article>';
</script></body></html>"""
)


STORIES = [f"Harbour story {n}" for n in range(1, 31)]
"""What the listing API holds: 30 stories, 10 to a page."""
LISTING = """<!doctype html><html><head><title>Harbour news</title></head>
<body><div id="root"></div>
<script src="/static/vendor.js"></script><script src="/static/app.js"></script></body></html>"""
VENDOR_JS = """window.h = function (tag, props, children) {
  const node = document.createElement(tag);
  Object.entries(props || {}).forEach(([k, v]) => node.setAttribute(k, v));
  (children || []).forEach(c =>
    node.append(typeof c === 'string' ? document.createTextNode(c) : c));
  return node;
};"""
APP_JS = """fetch('/api/items?page=1&token=s3cret').then(r => r.json()).then(data => {
  const list = h('ul', {class: 'stories'}, data.items.map(item =>
    h('li', {class: 'story'}, [h('h2', {}, [h('a', {href: item.url}, [item.title])]),
                               h('p', {}, [item.summary])])));
  document.getElementById('root').append(h('main', {}, [h('h1', {}, ['Harbour news']), list]));
});"""
INFINITE = """<!doctype html><html><head><title>Endless harbour</title>
<style>li.story { height: 120px; }</style></head>
<body><main><h1>Endless harbour</h1><ul class="stories"></ul></main>
<script>
let page = 0, loading = false;
function more() {
  if (loading || page >= 3) return;
  loading = true;
  fetch('/api/items?page=' + (page + 1)).then(r => r.json()).then(data => {
    page += 1;
    const list = document.querySelector('ul.stories');
    data.items.forEach(item => {
      const li = document.createElement('li'); li.className = 'story';
      li.innerHTML = '<h2><a href="' + item.url + '">' + item.title + '</a></h2>';
      list.append(li);
    });
    loading = false;
  });
}
window.addEventListener('scroll', () => {
  if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 200) more();
});
more();
</script></body></html>"""
FORM = """<!doctype html><html><head><title>Harbour permits</title></head>
<body><main><h1>Apply for a mooring</h1>
<form id="permit" action="/permit" method="post">
<label for="name">Your name</label><input id="name" name="name" type="text" required>
<label for="email">Email</label><input id="email" name="email" type="email" required>
<label for="berth">Berth</label>
<select id="berth" name="berth"><option value="north">North quay</option>
<option value="south">South quay</option></select>
<textarea name="notes"></textarea>
<button id="send" type="submit">Apply</button>
</form>
<table><caption>Fees</caption><thead><tr><th>Berth</th><th>Fee</th></tr></thead>
<tbody><tr><td>North quay</td><td>120</td></tr>
<tr><td>South quay</td><td>95</td></tr></tbody></table>
<div id="result"></div></main>
<script>
document.getElementById('permit').addEventListener('submit', event => {
  event.preventDefault();
  const data = new FormData(event.target);
  document.getElementById('result').innerHTML = '<p class="done">Thanks, ' + data.get('name') +
    ': a ' + data.get('berth') + ' berth permit is on its way.</p>';
});
</script></body></html>"""


def _forbidden(request: Request, page: str) -> str:
    return page.replace("FORBIDDEN", request.app.state.forbidden)


async def spa(request: Request) -> Response:
    return Response(SPA, media_type="text/html")


async def story(request: Request) -> Response:
    return JSONResponse(
        {"title": "The harbour wall", "paragraphs": [PARAGRAPH * 3 for _ in range(4)]}
    )


async def static(request: Request) -> Response:
    return Response(STATIC, media_type="text/html")


async def tricks(request: Request) -> Response:
    return Response(_forbidden(request, TRICKS), media_type="text/html")


async def tricks_css(request: Request) -> Response:
    return Response(_forbidden(request, "@import url(http://evil.test/x.css); @import url(http://FORBIDDEN/y.css);"),
                    media_type="text/css")  # fmt: skip


async def redirect_to_evil(request: Request) -> Response:
    return RedirectResponse("http://evil.test/s.js", status_code=302)


async def service_worker_page(request: Request) -> Response:
    return Response(SERVICE_WORKER_PAGE, media_type="text/html")


async def service_worker(request: Request) -> Response:
    request.app.state.served.append(request.url.path)
    return Response(_forbidden(request, SERVICE_WORKER), media_type="text/javascript")


async def service_worker_reached(request: Request) -> Response:
    request.app.state.served.append(request.url.path)
    return Response(status_code=204)


async def wall(request: Request) -> Response:
    return Response(WALL, media_type="text/html")


async def endless(request: Request) -> Response:
    async def drip():  # type: ignore[no-untyped-def]
        yield b"<!doctype html><html><body><p>Loading"
        while True:
            await anyio.sleep(0.5)
            yield b"."

    return StreamingResponse(drip(), media_type="text/html")


async def attachment(request: Request) -> Response:
    return Response(
        b"%PDF-1.4", media_type="application/pdf", headers={"content-disposition": "attachment"}
    )


async def plain(request: Request) -> Response:
    return Response(
        STATIC.replace("<script>var analytics = 1;</script>", ""), media_type="text/html"
    )


async def listing(request: Request) -> Response:
    return Response(LISTING, media_type="text/html")


async def script(request: Request) -> Response:
    return Response(
        VENDOR_JS if request.path_params["name"] == "vendor" else APP_JS,
        media_type="text/javascript",
    )


async def items(request: Request) -> Response:
    page = int(request.query_params.get("page", "1"))
    chosen = STORIES[(page - 1) * 10 : page * 10]
    found = [
        {
            "title": title,
            "url": f"/stories/{(page - 1) * 10 + n + 1}",
            "summary": f"{title}: {PARAGRAPH}",
        }
        for n, title in enumerate(chosen)
    ]
    following = f"/api/items?page={page + 1}" if page * 10 < len(STORIES) else None
    return JSONResponse(
        {"items": found, "page": page, "total": len(STORIES), "next": following},
        headers={"x-total-count": str(len(STORIES)), "set-cookie": "session=secret-cookie"},
    )


async def infinite(request: Request) -> Response:
    return Response(INFINITE, media_type="text/html")


async def form(request: Request) -> Response:
    return Response(FORM, media_type="text/html")


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
        Route("/service-worker", service_worker_page),
        Route("/sw.js", service_worker),
        Route("/sw-reached", service_worker_reached),
        Route("/wall", wall),
        Route("/endless", endless),
        Route("/private", static),
        Route("/robots.txt", robots),
        Route("/listing", listing),
        Route("/plain", plain),
        Route("/file.pdf", attachment),
        Route("/static/{name}.js", script),
        Route("/api/items", items),
        Route("/infinite", infinite),
        Route("/form", form),
    ]
)
APP.state.served = []
"""The service worker's script and its own request, as the site served them (a test clears it
first)."""
