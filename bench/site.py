"""A generated website for the fetch benchmarks: N article pages with realistic boilerplate, on 127.0.0.1.

Run as `python -m bench.site PORT [PAGES]`; page n is at /p/n.
"""

from __future__ import annotations

import functools
import random
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

WORDS = (
    "tide moon ocean current harbour vessel coast storm wave reef salt depth chart signal beacon keel anchor "
    "island channel delta estuary lagoon pier jetty buoy compass latitude meridian voyage crew cargo"
).split()


@functools.cache
def article(n: int) -> bytes:
    """Page n, built once: the benchmark measures the reader, not this server's page generation."""
    rng = random.Random(n)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."

    paragraphs = "".join(f"<p>{' '.join(sentence() for _ in range(rng.randint(3, 6)))}</p>" for _ in range(8))
    nav = "".join(f'<a href="/p/{rng.randint(0, 999)}">Section {i}</a> ' for i in range(12))
    related = "".join(f'<li><a href="/p/{rng.randint(0, 999)}">Related story {i}</a></li>' for i in range(8))
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


async def page(request: Request) -> Response:
    return Response(article(int(request.path_params["n"])), media_type="text/html")


async def robots(request: Request) -> Response:
    return PlainTextResponse("User-agent: *\nAllow: /\n")


APP = Starlette(routes=[Route("/p/{n:int}", page), Route("/robots.txt", robots)])

if __name__ == "__main__":
    uvicorn.run(APP, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
