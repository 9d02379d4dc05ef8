"""Sites to scan for agent readability, one per host name (FakeDNS sends each to this one server on
127.0.0.1): a plain shop, a news story, a documentation page, the shop behind robots.txt that blocks
only training crawlers (and the same open), and one site per outcome a scan can have besides a
grade."""

from __future__ import annotations

import json
import uuid

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

KETTLE = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Stovetop Kettle 1.7 L",
    "description": "A stainless steel stovetop kettle that boils 1.7 litres in six minutes on gas.",
    "sku": "KT-17",
    "brand": {"@type": "Brand", "name": "Hearth"},
    "image": "https://shop.test/img/kettle.jpg",
    "offers": {
        "@type": "Offer",
        "price": "39.00",
        "priceCurrency": "EUR",
        "availability": "https://schema.org/InStock",
    },
}
KETTLE_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Stovetop Kettle 1.7 L | "
    "Hearth</title><meta name='description' content='A stainless steel stovetop kettle, 1.7 "
    f"litres, EUR 39.'><script type='application/ld+json'>{json.dumps(KETTLE)}</script><script "
    "src='/app.js'></script><style>body{font-family:serif}</style></head><body><nav>"
    + "".join(f"<a href='/c/{n}'>Category {n}</a>" for n in range(40))
    + "</nav><main><h1>Stovetop Kettle 1.7 L</h1><p class='price'>EUR 39.00</p><p>In "
    "stock.</p><p>The Stovetop Kettle is a stainless steel kettle for gas, electric and "
    "induction hobs. It holds 1.7 litres and boils a full load in six minutes on gas, two "
    "minutes faster than the 1.2 L model.</p><table><tr><th>Capacity</th><td>1.7 "
    "L</td></tr><tr><th>Weight</th><td>1.1 kg</td></tr></table></main><footer>"
    + "<p>Terms and conditions apply to every order placed in the shop. </p>"
    * 30
    + "</footer>"
    "</body></html>"
)
KETTLE_MARKDOWN = (
    "# Stovetop Kettle 1.7 L\n\n![Stovetop Kettle](https://shop.test/img/kettle.jpg)\n\nPrice: "
    "EUR 39.00. In stock. Brand: Hearth. SKU: KT-17.\n\nA stainless steel stovetop kettle that "
    "boils 1.7 litres in six minutes on gas.\n\nThe Stovetop Kettle is a stainless steel kettle "
    "for gas, electric and induction hobs. It holds 1.7 litres and boils a full load in six "
    "minutes on gas, two minutes faster than the 1.2 L model.\n\n| Capacity | Weight "
    "|\n|---|---|\n| 1.7 L | 1.1 kg |\n"
)
NEWS = {
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    "headline": "New pontoon opens on the east quay",
    "author": {"@type": "Person", "name": "Tom Reyes"},
    "datePublished": "2026-11-28T09:30:00+00:00",
}
NEWS_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>New pontoon opens on the "
    "east quay | Harbour Gazette</title><meta name='author' content='Tom Reyes'><meta "
    "property='article:published_time' content='2026-11-28T09:30:00+00:00'><link "
    "rel='canonical' href='http://news.test/news/pontoon'><script "
    f"type='application/ld+json'>{json.dumps(NEWS)}</script></head><body><main><article><h1>New "
    "pontoon opens on the east quay</h1><p class='byline'>By Tom Reyes, <time "
    "datetime='2026-11-28'>28 November 2026</time></p><p>The harbour trust opened forty new "
    "berths for visiting yachts on Saturday. Each berth takes boats up to 14 m and has water "
    "and power.</p></article></main></body></html>"
)
"""A news story: typed, with its byline and date in markup; served as HTML only."""
DOCS = {
    "@context": "https://schema.org",
    "@type": "WebPage",
    "description": "How to install the Tide client.",
    "dateModified": "2026-10-01",
    "publisher": {"@type": "Organization", "name": "Tide"},
}
DOCS_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Install | Tide Docs</title>"
    "<meta property='og:title' content='Install'>"
    "<meta name='description' content='How to install the Tide client.'>"
    "<meta property='article:modified_time' content='2026-10-01'>"
    "<link rel='canonical' href='http://docs.test/docs/install'>"
    "<link rel='service-desc' type='application/openapi+json' href='/openapi.json'>"
    f"<script type='application/ld+json'>{json.dumps(DOCS)}</script></head><body><main>"
    "<h1>Install</h1><p>Tide runs anywhere Python does.</p>"
    "<ul><li>Requires: Python 3.11</li><li>Disk: 50 MB</li></ul>"
    "<pre><code>pip install tide</code></pre>"
    "<table><tr><th>Version</th><th>Python</th></tr><tr><td>2.1</td><td>3.11</td></tr>"
    "<tr><td>2.0</td><td>3.10</td></tr><tr><td>1.9</td><td>3.9</td></tr></table>"
    "<p><a href='/download'>Download</a> the archive.</p></main></body></html>"
)
"""A documentation page (its URL's path says docs), with an llms.txt and an API description."""
TRAINING_ONLY = "".join(
    f"User-agent: {bot}\nDisallow: /\n\n" for bot in ("GPTBot", "ClaudeBot", "Google-Extended")
)
ROBOTS = {
    "shop.test": "User-agent: *\nAllow: /\nSitemap: http://shop.test/sitemap.xml\n",
    "optout.test": "User-agent: ChatGPT-User\nUser-agent: Claude-User\nDisallow: "
    "/\n\nUser-agent: *\nAllow: /\n",
    "noscanner.test": "User-agent: netglean\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
    "news.test": "User-agent: *\nAllow: /\nSitemap: http://news.test/sitemap.xml\n",
    "docs.test": "User-agent: *\nAllow: /\n",
    "trainingonly.test": TRAINING_ONLY + "User-agent: *\nAllow: /\n",
    "open.test": "User-agent: *\nAllow: /\n",
}
TIDE_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids "
    b"[3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> "
    b"endobj\n4 0 obj << /Length 96 >> stream\nBT (Tide 2.0: a 50 MB download, 12% faster, 3 "
    b"days of support, released 2026-11-02.) Tj ET\nendstream endobj\ntrailer << /Root 1 0 R "
    b">>\n%%EOF\n"
)
"""A PDF whose text is not compressed: what an agent that asks for /docs/tide.pdf receives."""
LLMS = {
    "docs.test": "# Tide docs\n\n> The Tide client.\n\n- [Install](http://docs.test/docs/install)\n"
}


def _volatile() -> dict[str, str]:
    """Headers that change on every answer: a scan's evidence must not."""
    return {"set-cookie": f"session={uuid.uuid4().hex}", "x-request-id": uuid.uuid4().hex}


async def robots(request: Request) -> Response:
    host = request.url.hostname or ""
    if host in {"robots503.test", "busy.test"}:
        return PlainTextResponse("busy", status_code=503)
    if host in ROBOTS:
        return PlainTextResponse(ROBOTS[host], headers=_volatile())
    return PlainTextResponse("not here", status_code=404)


async def page(request: Request) -> Response:
    host = request.url.hostname or ""
    if host == "wall.test":
        body = (
            b"<html><head><title>Just a moment...</title></head><body><div "
            b"id='cf-chl-widget'></div></body></html>"
        )
        return Response(
            body, 403, {"server": "cloudflare", "cf-mitigated": "challenge"}, media_type="text/html"
        )
    if host == "gone.test":
        return Response("<html><body><h1>Not found</h1></body></html>", 404, media_type="text/html")
    if host == "loop.test":
        return RedirectResponse(request.url.path + "x", status_code=302)
    # a markdown alternate the policy cannot follow: no host, then a refused address
    if host == "badalt.test":
        head = '<link rel="alternate" type="text/markdown" href="https:///x">'
        return Response(
            KETTLE_HTML.replace("<head>", f"<head>{head}"),
            media_type="text/html",
            headers=_volatile(),
        )
    if host == "big.test":
        return Response(KETTLE_HTML + "<p>padding</p>" * 40_000, media_type="text/html")
    if host == "news.test":
        return Response(NEWS_HTML, media_type="text/html", headers=_volatile())
    if host == "docs.test" and request.url.path.endswith(".pdf"):
        return Response(TIDE_PDF, media_type="application/pdf")
    if host == "docs.test":
        return Response(DOCS_HTML, media_type="text/html", headers=_volatile())
    return Response(KETTLE_HTML, media_type="text/html", headers=_volatile())


async def llms_txt(request: Request) -> Response:
    host = request.url.hostname or ""
    if host in LLMS:
        return PlainTextResponse(LLMS[host])
    return PlainTextResponse("not here", status_code=404)


async def sitemap(request: Request) -> Response:
    urls = "".join(
        f"<url><loc>http://shop.test/products/{name}</loc></url>"
        for name in ("kettle", "pot", "pan")
    )
    body = (
        '<?xml version="1.0"?><urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    return Response(body, media_type="application/xml")


APP = Starlette(
    routes=[
        Route("/robots.txt", robots),
        Route("/sitemap.xml", sitemap),
        Route("/llms.txt", llms_txt),
        Route("/.well-known/ucp", lambda request: PlainTextResponse("not here", status_code=404)),
        Route("/{path:path}", page),
    ]
)
HOSTS = (
    "shop.test",
    "optout.test",
    "noscanner.test",
    "robots503.test",
    "wall.test",
    "gone.test",
    "loop.test",
    "big.test",
    "badalt.test",
    "busy.test",
    "news.test",
    "docs.test",
    "trainingonly.test",
    "open.test",
)
