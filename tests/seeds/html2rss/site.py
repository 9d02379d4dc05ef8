"""The pages the html2rss suite's client points its tools at, served on 127.0.0.1: a news listing
(with a repeat and another site's story), a blog announcing its feeds, a page with no listing, a bot
wall, an error page, a PDF, a long listing, and a paged listing for configs."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

STORIES = [
    (
        "/news/storm-closes-the-port",
        "Storm closes the port for two days",
        "2026-11-29T07:30:00+01:00",
    ),
    (
        "/news/ferry-timetable-changes",
        "Ferry timetable changes for winter",
        "2026-11-28T09:00:00+01:00",
    ),
    ("/news/new-lighthouse-keeper", "A new lighthouse keeper starts", "2026-11-27T12:00:00+01:00"),
    ("/news/harbour-dredging-done", "Harbour dredging is finished", "2026-11-26T16:45:00+01:00"),
]
LONG = 150
"""Items on the long listing: more than netglean's old bound on scrape_url's limit."""


def _story(path: str, title: str, when: str) -> str:
    return (
        f'<li class="story"><h2><a href="{path}">{title}</a></h2><time '
        f'datetime="{when}">{when[:10]}</time>'
        f"<p>What happened at the harbour: {title.lower()}.</p></li>"
    )


LISTING = (
    '<!doctype html><html lang="en"><head><title>Harbour News</title><script>var tracking = '
    '1;</script></head><body><nav><ul><li><a href="/">Home</a></li><li><a '
    'href="/news">News</a></li></ul></nav><main><ul class="stories">'
    + "".join(_story(*story) for story in STORIES)
    + _story(*STORIES[0])
    + _story(
        "https://partner.example/story",
        "A partner's story on their own site",
        "2026-11-25T08:00:00+01:00",
    )
    + "</ul></main></body></html>"
)
FEEDS = (
    "<!doctype html><html><head><title>Harbour Blog</title>"
    '<link rel="alternate" type="application/rss+xml" title="Harbour Blog RSS" href="/feed/">'
    '<link rel="alternate" type="application/atom+xml" title="Harbour Blog Atom" '
    'href="/feed/atom/">'
    "</head><body><main><h1>Welcome aboard</h1><p>Posts are in the feeds.</p></main></body></html>"
)
WEAK = (
    "<!doctype html><html><head><title>About the harbour</title></head><body><main><h1>About "
    "us</h1>"
    '<p>We have run the ferries since 1921. <a href="/contact">Write to '
    "us</a>.</p></main></body></html>"
)
WALL = (
    "<!doctype html><html><head><title>Just a moment...</title></head><body><div "
    "id='cf-chl-widget'></div><p>Checking your browser before accessing the "
    "site.</p></body></html>"
)


async def page(request: Request) -> Response:
    path = request.url.path
    if path == "/report.pdf":
        return Response(b"%PDF-1.7\n%\xe2\xe3\n1 0 obj <<>> endobj", media_type="application/pdf")
    if path == "/challenge":
        headers = {"server": "cloudflare", "cf-mitigated": "challenge"}
        return HTMLResponse(WALL, status_code=403, headers=headers)
    if path == "/long":
        item = '<li class="post"><a href="/post/{n}">Post number {n} of the long list</a></li>'
        items = "".join(item.format(n=n) for n in range(LONG))
        return HTMLResponse(
            f"<html><head><title>Long</title></head><body><ul>{items}</ul></body></html>"
        )
    if path == "/paged":
        number = int(request.query_params.get("page", "1"))
        items = "".join(
            f'<li class="entry"><a href="/post/{number}-{i}">Post {i} of page {number}</a></li>'
            for i in range(3)
        )
        more = f'<a rel="next" href="/paged?page={number + 1}">Older</a>' if number < 2 else ""
        return HTMLResponse(
            f"<html><head><title>Posts</title></head><body><ul>{items}</ul>{more}</body></html>"
        )
    pages = {"/news": LISTING, "/blog": FEEDS, "/about": WEAK}
    if path in pages:
        return HTMLResponse(pages[path])
    return HTMLResponse("<html><body><h1>Not found</h1></body></html>", status_code=404)


SITE = Starlette(routes=[Route("/{path:path}", page)])
