"""A generated website for the fetch benchmarks: N article pages with realistic boilerplate, on
127.0.0.1.

Run as `python -m bench.site PORT [SIZE] [--prebuild]`; page n of a family is at /FAMILY/n (see
PAGES), and its links point to pages of its own family (0 to SIZE-1, SIZE 1000 unless given), so a
crawl from any page finds the rest. Each page is built on its first request unless --prebuild builds
them all before the port opens.
"""

from __future__ import annotations

import argparse
import functools
import json
import random

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

WORDS = (
    "tide moon ocean current harbour vessel coast storm wave reef salt depth chart signal beacon "
    "keel anchor island channel delta estuary lagoon pier jetty buoy compass latitude meridian "
    "voyage crew cargo"
).split()
SIZE = 1000
"""Pages a family's links point to unless the site is started with another size (a crawl longer than
that)."""


@functools.cache
def lean_page(n: int, size: int = SIZE) -> bytes:
    """A 5 KB article with little around it: the least extraction work a page can ask for."""
    rng = random.Random(n)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."

    paragraphs = "".join(
        f"<p>{' '.join(sentence() for _ in range(rng.randint(3, 6)))}</p>" for _ in range(8)
    )
    nav = "".join(f'<a href="/lean/{rng.randint(0, size - 1)}">Section {i}</a> ' for i in range(12))
    related = "".join(
        f'<li><a href="/lean/{rng.randint(0, size - 1)}">Related story {i}</a></li>'
        for i in range(8)
    )
    return (
        f"<!doctype html><html lang='en'><head><title>Article {n}</title>"
        f"<meta name='description' content='{sentence()}'><script>var tracking = {n};</script>"
        f"<style>body{{font-family:serif}}</style></head><body><header><nav>{nav}</nav></header>"
        f"<div class='cookie-banner'>We use cookies to improve your experience.</div>"
        f"<main><article><h1>Article {n}: {sentence()}</h1>{paragraphs}</article>"
        f"<aside class='related'><ul>{related}</ul></aside></main>"
        f"<section class='comments'><p>{sentence()}</p><p>{sentence()}</p></section>"
        f"<footer><p>Copyright. All rights reserved. {sentence()}</p></footer></body></html>"
    ).encode()


@functools.cache
def news_page(n: int, size: int = SIZE) -> bytes:
    """A news article page built the way publishers' pages are (about 100 KB, most of it not the
    article).

    A head with social and preload tags, critical CSS, JSON-LD and an app-state script that
    repeats the story; a mega-menu, cookie banner, breadcrumb; the article with byline,
    figure, subheads, quote and an in-article promo; share and tag lists, most-read,
    newsletter form, comments, a five-column footer and trailing ad scripts.
    """
    rng = random.Random(n)

    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    def sentence() -> str:
        return words(8, 22).capitalize() + "."

    def link(text: str) -> str:
        return (
            f'<a href="/news/{rng.randint(0, size - 1)}" class="c-link '
            f'c-link--{rng.randint(1, 9)}">{text}</a>'
        )

    title = f"Article {n}: {sentence()}"
    meta = "".join(
        f'<meta property="{name}" content="{words(4, 12)}">'
        for name in (
            "og:title",
            "og:description",
            "og:site_name",
            "twitter:title",
            "twitter:description",
        )
    ) + "".join(f'<meta name="x-tag-{i}" content="{words(1, 3)}">' for i in range(15))
    preload = "".join(
        f'<link rel="preload" href="/static/font-{i}.woff2" as="font" crossorigin>'
        for i in range(6)
    )
    css = "".join(
        f".c-{i}{{margin:{rng.randint(0, 40)}px {rng.randint(0, 40)}px;"
        f"color:#{rng.randint(0, 0xFFFFFF):06x};"
        f"font-size:{rng.randint(10, 30)}px;line-height:1.{rng.randint(1, 9)}}}"
        for i in range(220)
    )
    paragraphs = [
        " ".join(
            sentence() if rng.random() > 0.2 else f"{sentence()[:-1]} {link(words(2, 4))}."
            for _ in range(rng.randint(3, 7))
        )
        for _ in range(rng.randint(12, 20))
    ]
    state = {
        "page": {"id": n, "title": title, "body": [p for p in paragraphs], "section": "news"},
        "related": [
            {"id": rng.randint(0, 999), "title": sentence(), "teaser": sentence()}
            for _ in range(30)
        ],
        "config": {f"flag_{i}": rng.random() > 0.5 for i in range(120)},
    }
    published = f"2026-0{1 + n % 9}-1{n % 10}T08:00:00Z"
    ld = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": title,
        "datePublished": published,
        "author": {"@type": "Person", "name": f"Reporter {n % 17}"},
        "publisher": {"@type": "Organization", "name": "Tidewater Gazette"},
    }
    menu = "".join(
        f'<li class="menu__section"><button aria-expanded="false">Section {s}</button><ul '
        'class="menu__list">'
        + "".join(f"<li>{link(words(1, 3).title())}</li>" for _ in range(15))
        + "</ul></li>"
        for s in range(8)
    )
    body = "".join(f"<p>{p}</p>" for p in paragraphs[:6])
    body += f"<h2>{words(3, 7).capitalize()}</h2>" + "".join(
        f"<p>{p}</p>" for p in paragraphs[6:11]
    )
    promo = "".join(f"<li>{link(sentence())}</li>" for _ in range(3))
    body += f'<aside class="promo inline-promo"><h3>Read more</h3><ul>{promo}</ul></aside>'
    body += f"<blockquote><p>{sentence()}</p></blockquote>"
    body += f"<h2>{words(3, 7).capitalize()}</h2>" + "".join(f"<p>{p}</p>" for p in paragraphs[11:])
    figure = (
        f'<figure class="c-figure"><img src="/img/{n}.jpg" srcset="'
        + ", ".join(f"/img/{n}-{w}.jpg {w}w" for w in (320, 480, 640, 960, 1280, 1920))
        + f'" sizes="(max-width: 600px) 100vw, 60vw" alt="{words(4, 8)}" width="1280" height="720">'
        f"<figcaption>{sentence()} Photograph: Agency</figcaption></figure>"
    )
    share = "".join(
        f'<li><a href="https://share.example/{s}?u={n}" class="share share--{s}">Share on '
        f"{s}</a></li>"
        for s in ("x", "facebook", "linkedin", "email", "whatsapp")
    )
    tags = "".join(f"<li>{link(words(1, 2))}</li>" for _ in range(8))
    popular = "".join(
        f"<li><span class='rank'>{i + 1}</span>{link(sentence())}</li>" for i in range(10)
    )
    comments = "".join(
        f'<div class="comment"><div class="comment__author">reader{rng.randint(1, 9999)}</div>'
        f'<div class="comment__body"><p>{sentence()} {sentence()}</p></div>'
        f'<div class="comment__actions"><button>Reply</button><button>Report</button></div></div>'
        for _ in range(12)
    )
    footer = "".join(
        f'<div class="footer__col"><h4>{words(1, 2).title()}</h4><ul>'
        + "".join(f"<li>{link(words(1, 3).title())}</li>" for _ in range(12))
        + "</ul></div>"
        for _ in range(5)
    )
    icon = (
        '<svg class="icon" viewBox="0 0 24 24"><path d="'
        + " ".join(
            f"M{rng.randint(0, 24)} {rng.randint(0, 24)}L{rng.randint(0, 24)} {rng.randint(0, 24)}"
            for _ in range(60)
        )
        + '"/></svg>'
    )
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{title}</title>"
        f"<meta name='description' content='{sentence()}'>{meta}<link rel='canonical' "
        f"href='/news/{n}'>{preload}"
        f"<style>{css}</style><script type='application/ld+json'>{json.dumps(ld)}</script>"
        "<script>window.dataLayer=window.dataLayer||[];function "
        "gtag(){dataLayer.push(arguments)}"
        f"gtag('js',new Date());gtag('config','G-{n:08d}');</script></head>"
        f"<body class='c-{n % 220}'><a class='skip' href='#main'>Skip to content</a>"
        f"<header class='site-header'>{icon}<nav class='menu' aria-label='Sections'>"
        f"<ul>{menu}</ul></nav>"
        "<form class='search' action='/search'><input name='q' placeholder='Search'>"
        "<button>Go</button></form>"
        f"</header>"
        "<div class='cookie-banner' role='dialog'><p>We use cookies to improve your "
        f"experience. {sentence()}</p>"
        f"<button>Accept all</button><button>Manage</button></div>"
        "<nav class='breadcrumb'><ol><li><a href='/'>Home</a></li><li><a "
        "href='/news'>News</a></li></ol></nav>"
        f"<main id='main'><article class='story'><header><h1>{title}</h1><p "
        f"class='standfirst'>{sentence()}</p>"
        f"<p class='byline'>By <a rel='author' href='/by/{n % 17}'>Reporter {n % 17}</a> "
        f"<time datetime='{published}'>{published[:10]}</time></p></header>{figure}"
        f"<div class='story__body'>{body}</div><ul class='share'>{share}</ul><ul "
        f"class='tags'>{tags}</ul></article>"
        f"<aside class='most-read'><h2>Most read</h2><ol>{popular}</ol></aside>"
        "<aside class='newsletter'><h2>Newsletter</h2><form><input type='email'><button>Sign "
        "up</button></form>"
        f"</aside>"
        f"</main><section class='comments'><h2>Comments</h2>{comments}</section>"
        f"<footer class='site-footer'>{footer}<p class='legal'>Copyright. All rights "
        f"reserved. {sentence()}</p>"
        f"</footer>"
        f"<script id='__APP_STATE__' type='application/json'>{json.dumps(state)}</script>"
        "<script src='/static/app.js' defer></script>"
        "<script>(function(){var s=document.createElement('script');"
        f"s.src='https://ads.example/loader.js?site={n}';document.head.appendChild(s)}})();"
        "</script></body></html>"
    ).encode()


def spa_page(n: int) -> bytes:
    """A single-page app: an empty root the script fills with lean page ``n``'s body, fetched after
    the load."""
    return (
        "<!doctype html><html><head><title>App</title></head><body><div "
        f"id=root></div><script>fetch('/api/story/{n}').then(r => r.text()).then(html => "
        "{document.getElementById('root').innerHTML = new DOMParser().parseFromString(html, "
        "'text/html').body.innerHTML;});</script></body></html>"
    ).encode()


PAGES = {"lean": lean_page, "news": news_page}
"""The page families: /lean/n and /news/n."""


def app(size: int = SIZE, *, prebuild: bool = False) -> Starlette:
    """The site, its families' links pointing to pages 0 to ``size``-1; with ``prebuild``, pages 0
    to ``size``-1 of every family are built first, so no timed crawl pays for building one (a news
    page takes about 2 ms)."""
    if prebuild:
        for build in PAGES.values():
            for n in range(size):
                build(n, size)

    async def page(request: Request) -> Response:
        build = PAGES.get(request.path_params["family"])
        if build is None:
            return PlainTextResponse("no such page family", status_code=404)
        return Response(build(int(request.path_params["n"]), size), media_type="text/html")

    async def robots(request: Request) -> Response:
        return PlainTextResponse("User-agent: *\nAllow: /\n")

    async def spa(request: Request) -> Response:
        return Response(spa_page(int(request.path_params["n"])), media_type="text/html")

    async def story(request: Request) -> Response:
        return Response(lean_page(int(request.path_params["n"]), size), media_type="text/html")

    return Starlette(
        routes=[
            Route("/spa/{n:int}", spa),
            Route("/api/story/{n:int}", story),
            Route("/{family}/{n:int}", page),
            Route("/robots.txt", robots),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.site", description="Serve the benchmark site on 127.0.0.1."
    )
    parser.add_argument("port", type=int)
    parser.add_argument(
        "size", type=int, nargs="?", default=SIZE, help=f"pages a family (default {SIZE})"
    )
    parser.add_argument(
        "--prebuild", action="store_true", help="build every page before the port opens"
    )
    args = parser.parse_args(argv)
    if args.size < 1:
        parser.error(f"size must be at least 1 page a family, not {args.size}")
    site = app(args.size, prebuild=args.prebuild)
    uvicorn.run(site, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
