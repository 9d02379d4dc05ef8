"""Sites to scan for agent readability, one per host name (FakeDNS sends each to this one server on 127.0.0.1):
a plain shop, and one site per outcome a scan can have besides a grade."""

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
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Stovetop Kettle 1.7 L | Hearth</title>"
    "<meta name='description' content='A stainless steel stovetop kettle, 1.7 litres, EUR 39.'>"
    f"<script type='application/ld+json'>{json.dumps(KETTLE)}</script>"
    "<script src='/app.js'></script><style>body{font-family:serif}</style></head><body>"
    "<nav>" + "".join(f"<a href='/c/{n}'>Category {n}</a>" for n in range(40)) + "</nav>"
    "<main><h1>Stovetop Kettle 1.7 L</h1><p class='price'>EUR 39.00</p><p>In stock.</p>"
    "<p>The Stovetop Kettle is a stainless steel kettle for gas, electric and induction hobs. It holds 1.7 litres"
    " and boils a full load in six minutes on gas, two minutes faster than the 1.2 L model.</p>"
    "<table><tr><th>Capacity</th><td>1.7 L</td></tr><tr><th>Weight</th><td>1.1 kg</td></tr></table>"
    "</main><footer>" + "<p>Terms and conditions apply to every order placed in the shop. </p>" * 30 + "</footer>"
    "</body></html>"
)
KETTLE_MARKDOWN = (
    "# Stovetop Kettle 1.7 L\n\n![Stovetop Kettle](https://shop.test/img/kettle.jpg)\n\n"
    "Price: EUR 39.00. In stock. Brand: Hearth. SKU: KT-17.\n\n"
    "A stainless steel stovetop kettle that boils 1.7 litres in six minutes on gas.\n\n"
    "The Stovetop Kettle is a stainless steel kettle for gas, electric and induction hobs. It holds 1.7 litres and"
    " boils a full load in six minutes on gas, two minutes faster than the 1.2 L model.\n\n"
    "| Capacity | Weight |\n|---|---|\n| 1.7 L | 1.1 kg |\n"
)
ROBOTS = {
    "shop.test": "User-agent: *\nAllow: /\nSitemap: http://shop.test/sitemap.xml\n",
    "optout.test": "User-agent: *\nDisallow: /\n\nUser-agent: netglean\nAllow: /\n",
    "noscanner.test": "User-agent: netglean\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
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
        body = b"<html><head><title>Just a moment...</title></head><body><div id='cf-chl-widget'></div></body></html>"
        return Response(body, 403, {"server": "cloudflare", "cf-mitigated": "challenge"}, media_type="text/html")
    if host == "gone.test":
        return Response("<html><body><h1>Not found</h1></body></html>", 404, media_type="text/html")
    if host == "loop.test":
        return RedirectResponse(request.url.path + "x", status_code=302)
    if host == "badalt.test":  # a markdown alternate the policy cannot follow: no host, then a refused address
        head = '<link rel="alternate" type="text/markdown" href="https:///x">'
        return Response(KETTLE_HTML.replace("<head>", f"<head>{head}"), media_type="text/html", headers=_volatile())
    if host == "big.test":
        return Response(KETTLE_HTML + "<p>padding</p>" * 40_000, media_type="text/html")
    return Response(KETTLE_HTML, media_type="text/html", headers=_volatile())


async def sitemap(request: Request) -> Response:
    urls = "".join(f"<url><loc>http://shop.test/products/{name}</loc></url>" for name in ("kettle", "pot", "pan"))
    body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    return Response(body, media_type="application/xml")


APP = Starlette(
    routes=[
        Route("/robots.txt", robots),
        Route("/sitemap.xml", sitemap),
        Route("/llms.txt", lambda request: PlainTextResponse("not here", status_code=404)),
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
)
