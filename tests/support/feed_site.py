"""Listing pages for the feed tools, served on 127.0.0.1: news, blog, releases, jobs, a JSON API,
and pages whose items only detection finds (Next.js state, JSON-LD, a sitemap), a paged listing and
a bot-wall page."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tests.support import paths

FIXTURES = paths.FIXTURES / "feeds"
PAGES = {"news": "news.html", "blog": "blog.html", "releases": "releases.html", "jobs": "jobs.html",
         "state": "state.html", "jsonld": "jsonld.html", "bylines": "bylines.html",
         "markup-tags": "markup-tags.html"}  # fmt: skip


async def listing(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in PAGES:
        return HTMLResponse("<h1>Not found</h1>", status_code=404)
    return HTMLResponse((FIXTURES / PAGES[name]).read_text(encoding="utf-8"))


async def api(request: Request) -> Response:
    return Response((FIXTURES / "api.json").read_bytes(), media_type="application/json")


async def deep_api(request: Request) -> Response:
    """A JSON API answer nested past what netglean reads (and, at 20,000 levels, past what the stack
    holds)."""
    depth = int(request.query_params.get("depth", "20000"))
    return Response("[" * depth + "]" * depth, media_type="application/json")


async def paged(request: Request) -> Response:
    number = int(request.query_params.get("page", "1"))
    items = "".join(
        f'<li class="entry"><a href="/feeds/post/{number}-{i}">Post {i} of page {number}</a></li>'
        for i in range(3)
    )
    more = f'<a rel="next" href="/feeds/paged?page={number + 1}">Older</a>' if number < 3 else ""
    return HTMLResponse(f"<html><body><ul class='entries'>{items}</ul>{more}</body></html>")


async def sitemap(request: Request) -> Response:
    urls = "".join(
        f"<url><loc>http://127.0.0.1:{request.url.port}/guides/{slug}</loc><lastmod>2026-11-{day}</lastmod></url>"
        for slug, day in (
            ("reading-tide-tables", 20),
            ("spring-and-neap", 21),
            ("tidal-streams", 22),
        )
    )
    body = (
        '<?xml version="1.0" encoding="UTF-8"?><urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    return Response(body, media_type="application/xml")


async def headers(request: Request) -> Response:
    """Items naming the request headers the server saw: what a config's headers really send."""
    seen = "".join(
        f'<li class="header"><a href="/h/{name}">{name} says {value}</a></li>'
        for name, value in sorted(request.headers.items())
        if name in {"x-greeting", "user-agent", "accept-language"}
    )
    return HTMLResponse(f"<html><body><ul>{seen}</ul></body></html>")


async def empty(request: Request) -> Response:
    return HTMLResponse(
        "<html><head><title>Just a moment...</title></head><body><p>Checking your "
        "browser</p></body></html>"
    )


FEED_APP = Starlette(
    routes=[
        Route("/feeds/api.json", api),
        Route("/feeds/deep.json", deep_api),
        Route("/feeds/paged", paged),
        Route("/feeds/sitemap.xml", sitemap),
        Route("/feeds/headers", headers),
        Route("/feeds/empty", empty),
        Route("/feeds/{name}", listing),
    ]
)
