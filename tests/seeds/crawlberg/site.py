"""The pages the Crawlberg suite's client points its tools at, served on 127.0.0.1: a small site (a
home page with its metadata, two levels of links and one off the site, robots.txt naming a sitemap),
a bot wall, a document, a page with a button for interact, and pages slower than a fetch or a call
may take."""

from __future__ import annotations

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

WORDS = " ".join(
    f"Sentence {n} says something plain about the tides and the harbour." for n in range(30)
)
LINKS = {
    "/": ["/tides", "/ferries", "http://elsewhere.invalid/"],
    "/tides": ["/tides/spring"],
    "/ferries": ["/"],
    "/tides/spring": [],
    "/archive/2025": [],
}
"""Each page of the small site and the links it gives (one off the site)."""
TITLES = {
    "/": "Harbour Guide",
    "/tides": "Tides",
    "/ferries": "Ferries",
    "/tides/spring": "Spring tides",
}
SITEMAP = ["/archive/2025", "/tides"]
WALL = (
    "<html><head><title>Just a moment...</title></head><body><div id='cf-chl-widget'></div>"
    "<p>Checking your browser before accessing the site.</p></body></html>"
)
BUTTON = (
    "<html><head><title>More stories</title></head><body><main><h1>Stories</h1><p>Story "
    "one.</p><div id='more'></div><button id='load-more' "
    "onclick=\"document.getElementById('more').innerHTML='<p>Story "
    "two.</p>'\">More</button></main></body></html>"
)
SLOW = {"/slow": 5, "/slower": 15}
"""Pages that answer after so many seconds: past a one-second fetch deadline, past a six-second
call."""
PDF = b"%PDF-1.7\n%crawlberg fixture\n1 0 obj <<>> endobj"


def _page(path: str) -> str:
    links = " ".join(f"<a href='{link}'>{link}</a>" for link in LINKS[path])
    head = (
        "<meta name='description' content='Tides, ferries and the harbour'><meta name='author' "
        "content='Ada Quay'>"
    )
    title = TITLES.get(path, f"Page {path}")
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>{head}</head><body>"
        f"<article><h1>{title}</h1>"
        f"<p>{WORDS}</p><p>Read on: {links}</p></article></body></html>"
    )


async def page(request: Request) -> Response:
    path = request.url.path
    origin = f"{request.url.scheme}://{request.url.netloc}"
    if path == "/robots.txt":
        return PlainTextResponse(f"User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n")
    if path == "/sitemap.xml":
        entries = "".join(f"<url><loc>{origin}{p}</loc></url>" for p in SITEMAP)
        body = (
            '<?xml version="1.0"?><urlset '
            f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
        )
        return Response(body, media_type="application/xml")
    if path == "/challenge":
        return HTMLResponse(
            WALL, status_code=403, headers={"server": "cloudflare", "cf-mitigated": "challenge"}
        )
    if path == "/report.pdf":
        disposition = {"content-disposition": 'attachment; filename="report.pdf"'}
        return Response(PDF, media_type="application/pdf", headers=disposition)
    if path == "/more":
        return HTMLResponse(BUTTON)
    if path in SLOW:
        await anyio.sleep(SLOW[path])
        return HTMLResponse(_page("/"))
    if path in LINKS:
        return HTMLResponse(_page(path))
    return HTMLResponse("<html><body><h1>Not found</h1></body></html>", status_code=404)


SITE = Starlette(routes=[Route("/{path:path}", page)])
