"""The docs' example site: a small harbour newspaper, ``http://harbour.test``, that the catalog's
recorded examples run against (tests/support/recorded.py). Every tool has something real to do here:
articles to read, a news listing with bylines, tags and pictures to turn into a feed, a sitemap to
map, a CSV to download, a tide API a page fills itself from, a form to fill in, and a live page that
answers slowly the first time, so that a run can be cancelled while it waits and resumed after.

The names resolve (by the tests' DNS) to a public-looking address that the loopback dial sends here,
so the recorded URLs carry no port and the recordings do not change from one run to the next.
"""

from __future__ import annotations

import json
import threading
from html import escape

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

HOST = "harbour.test"
ORIGIN = f"http://{HOST}"

STORIES = {
    "new-pontoon-opens": {
        "title": "New visitor pontoon opens on the east quay",
        "author": "Mara Quinn",
        "date": "2026-11-28T09:30:00+00:00",
        "tags": ["Harbour", "Sailing"],
        "summary": "Forty new berths for visiting yachts open on Saturday, with water and power "
        "at every finger.",
        "body": [
            "The harbour trust opened its new visitor pontoon on the east quay on Saturday "
            "morning, adding forty berths for yachts of up to fourteen metres.",
            "Every finger pontoon has fresh water and shore power, and the showers in the old "
            "fish market have been rebuilt. Berths can be booked on VHF channel 80 or at the "
            "harbour office.",
            "Harbour master Ines Okafor said the pontoon would stay in the water all winter, the "
            "first time visitors have been able to stay after October.",
        ],
    },
    "ferry-timetable-changes": {
        "title": "Winter ferry timetable starts on Monday",
        "author": "Tom Reyes",
        "date": "2026-11-26T16:00:00+00:00",
        "tags": ["Ferries"],
        "summary": "Four crossings a day instead of six from Monday, with the last boat leaving "
        "the island at 17:40.",
        "body": [
            "The island ferry moves to its winter timetable on Monday, with four crossings a day "
            "instead of six.",
            "The first boat leaves the mainland at 07:15 and the last leaves the island at "
            "17:40. Bicycles still travel free; cars must be booked a day ahead.",
        ],
    },
    "lifeboat-open-day": {
        "title": "Lifeboat station opens its doors for the day",
        "author": "Mara Quinn",
        "date": "2026-11-21T08:00:00+00:00",
        "tags": ["Lifeboat", "Events"],
        "summary": "The crew show the new all-weather boat and rescue drills on the slipway from "
        "ten until four.",
        "body": [
            "The lifeboat station opens to visitors on Sunday from ten until four.",
            "The crew will launch the new all-weather boat at noon and run a rescue drill off "
            "the slipway at two. Children can try on the kit and steer the station's simulator.",
        ],
    },
}
PAGES = ["/", "/news/", *(f"/news/{slug}" for slug in STORIES), "/about", "/tides"]
TIDES = [
    {"time": "2026-12-01T04:12:00Z", "kind": "high", "height_m": 4.6},
    {"time": "2026-12-01T10:31:00Z", "kind": "low", "height_m": 0.9},
    {"time": "2026-12-01T16:40:00Z", "kind": "high", "height_m": 4.4},
    {"time": "2026-12-01T22:58:00Z", "kind": "low", "height_m": 1.1},
]
LIVE_PATH = "/live"
_LIVE_DELAY = 20.0
"""How long the live page takes the first time it is asked: long enough to cancel the run reading
it."""
LIVE_ASKED = threading.Event()
"""Set once the live page's first request has arrived: a run reading it is waiting now, ready to be
cancelled."""


def reset() -> None:
    """The site as new: the live page slow again."""
    APP.state.live_answered = False
    LIVE_ASKED.clear()


def _page(title: str, main: str, head: str = "") -> HTMLResponse:
    nav = "".join(
        f'<a href="{href}">{label}</a> '
        for href, label in (("/", "Home"), ("/news/", "News"), ("/about", "About"))
    )
    return HTMLResponse(
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)} | "
        "Harbour Gazette</title>"
        "<meta name='description' content='The Harbour Gazette: news from the quay, the "
        "ferries and the lifeboat.'>"
        f"{head}</head><body><header><nav>{nav}</nav></header><main>{main}</main>"
        "<footer><p>Harbour Gazette, The Old Fish Market, East Quay.</p></footer></body></html>"
    )


async def home(request: Request) -> Response:
    items = "".join(
        f'<li><a href="/news/{slug}">{escape(s["title"])}</a></li>' for slug, s in STORIES.items()
    )
    return _page(
        "Home",
        "<h1>Harbour Gazette</h1><p>News from the quay, the ferries and the lifeboat station, "
        "every week since "
        f"1911.</p><h2>This week</h2><ul>{items}</ul><p><a href='/tides'>Today's tides</a></p>",
        '<link rel="alternate" type="application/rss+xml" title="News" href="/news/feed.xml">',
    )


async def news(request: Request) -> Response:
    stories = "".join(
        f'<article class="story"><h2><a href="/news/{slug}">{escape(s["title"])}</a></h2>'
        f'<p class="byline">By <span class="author">{escape(s["author"])}</span>, '
        f'<time datetime="{s["date"]}">{s["date"][:10]}</time></p>'
        f'<img src="/images/{slug}.jpg" alt="">'
        f'<p class="summary">{escape(s["summary"])}</p>'
        f'<ul class="tags">{"".join(f"<li>{escape(tag)}</li>" for tag in s["tags"])}</ul></article>'
        for slug, s in STORIES.items()
    )
    return _page("News", f"<h1>News</h1>{stories}")


async def story(request: Request) -> Response:
    slug = request.path_params["slug"]
    if slug not in STORIES:
        return await missing(request)
    s = STORIES[slug]
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": s["title"],
        "author": {"@type": "Person", "name": s["author"]},
        "datePublished": s["date"],
        "image": f"{ORIGIN}/images/{slug}.jpg",
    }
    paragraphs = "".join(f"<p>{escape(text)}</p>" for text in s["body"])
    return _page(
        str(s["title"]),
        f"<article><h1>{escape(str(s['title']))}</h1><p "
        f"class='byline'>By {escape(str(s['author']))}, "
        f"<time datetime='{s['date']}'>{str(s['date'])[:10]}</time></p>{paragraphs}</article>",
        f"<script type='application/ld+json'>{json.dumps(data)}</script>"
        f"<link rel='canonical' href='{ORIGIN}/news/{slug}'>",
    )


async def about(request: Request) -> Response:
    return _page(
        "About",
        "<h1>About the Gazette</h1><p>The Harbour Gazette is written by two reporters and a "
        "harbour full of "
        "readers. Send news to <a href='mailto:desk@harbour.test'>desk@harbour.test</a>.</p>"
        "<form action='/about' method='get'><label>Your name <input id='name' name='name'>"
        "</label>"
        "<button id='send' type='submit'>Send</button></form>"
        "<p id='thanks'></p><script>const n=new URLSearchParams(location.search).get('name');"
        "if(n){document.getElementById('thanks').textContent='Thank you, '+n+'.'}</script>",
    )


async def tides(request: Request) -> Response:
    """A page that fills its table from the tide API with a script: what the browser tools are
    for."""
    return _page(
        "Tides",
        "<h1>Today's tides</h1><table id='tides'><tr><th>Time</th><th>Tide</th><th>Height</th>"
        "</tr></table>"
        "<script>fetch('/api/tides?day=2026-12-01').then(r=>r.json()).then(d=>{const "
        "t=document.getElementById"
        "('tides');for(const x of d.tides){const r=t.insertRow();"
        "r.insertCell().textContent=x.time.slice(11,16);"
        "r.insertCell().textContent=x.kind;r.insertCell().textContent=x.height_m+' "
        "m'}})</script>",
    )


async def tides_api(request: Request) -> Response:
    day = request.query_params.get("day", "2026-12-01")
    return JSONResponse(
        {"day": day, "port": "East Quay", "tides": TIDES, "next": f"/api/tides?day={day}&page=2"},
        headers={"x-total-count": str(len(TIDES))},
    )


async def tide_table(request: Request) -> Response:
    rows = "".join(f"{t['time']},{t['kind']},{t['height_m']}\n" for t in TIDES)
    return Response(
        "time,kind,height_m\n" + rows,
        media_type="text/csv",
        headers={"content-disposition": 'attachment; filename="tides-2026-12-01.csv"'},
    )


async def image(request: Request) -> Response:
    return Response(b"\xff\xd8\xff\xe0" + b"\0" * 60 + b"\xff\xd9", media_type="image/jpeg")


async def live(request: Request) -> Response:
    """Slow the first time it is asked (a run reading it can be cancelled meanwhile), at once after
    that."""
    state = request.app.state
    if not getattr(state, "live_answered", False):
        state.live_answered = True
        LIVE_ASKED.set()
        await anyio.sleep(_LIVE_DELAY)
    return _page(
        "Live", "<h1>Live from the quay</h1><p>The ferry is alongside; the tide is making.</p>"
    )


async def robots(request: Request) -> Response:
    return PlainTextResponse(f"User-agent: *\nAllow: /\n\nSitemap: {ORIGIN}/sitemap.xml\n")


async def sitemap(request: Request) -> Response:
    urls = "".join(f"<url><loc>{ORIGIN}{path}</loc></url>" for path in PAGES)
    body = (
        '<?xml version="1.0" encoding="UTF-8"?><urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    return Response(body, media_type="application/xml")


async def missing(request: Request) -> Response:
    return HTMLResponse("<h1>Not found</h1>", status_code=404)


APP = Starlette(
    routes=[
        Route("/", home),
        Route("/news/", news),
        Route("/news/feed.xml", missing),
        Route("/news/{slug}", story),
        Route("/about", about),
        Route("/tides", tides),
        Route("/api/tides", tides_api),
        Route("/files/tides.csv", tide_table),
        Route("/images/{name}", image),
        Route(LIVE_PATH, live),
        Route("/robots.txt", robots),
        Route("/sitemap.xml", sitemap),
    ]
)
