"""Sites for the background-run tests, on 127.0.0.1: trees of pages of any size (BFS from page 0
reaches them all), pages that wait at a gate the test opens, pages too long for one answer, a page
that fails once, and a count of every request, so a test can tell which pages a crawl read and how
often.

``/tree/{size}/{n}`` links to pages 2n+1 and 2n+2 below ``size``; ``/gated/{size}/{n}`` is the same
tree whose pages from 2 on wait at the gate; ``/big/{size}/{n}`` holds ~19,000 characters of text
per page; ``/flaky/{key}`` links to ``/flaky/{key}/page``, which fails (503) on its first request
and answers on the next, and to ``/flaky/{key}/steady``, which always answers; ``/long`` is one page
with a 50,000-character text and title. ``/p/{n}`` is the 2,000-page site the restart tests crawl
from another process.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.support.fixture_site import serve

WORDS = "Words enough to make this page's main content, and a few more of them besides. "
LONG_TEXT = 50_000
"""Characters of /long's text (and of its title): more than get_run_result's 20,000-character
cut."""
BIG_TEXT = 19_000
"""Characters of text on each /big page (max_chars is at most 20,000): 22 of them pass a crawl's
400,000."""
SITE_PAGES = 2_000
"""Pages of /p/{n}: page n links to 5n+1 .. 5n+5 (those below 2,000), and back to 0 and n-1."""


class Gate:
    """Where gated pages wait: shut until the test lets some through (``allow``) or opens it
    (``open``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._permits = 0
        self._open = False
        self.waiting = 0

    def allow(self, count: int = 1) -> None:
        with self._lock:
            self._permits += count

    def open(self) -> None:
        with self._lock:
            self._open = True

    def shut(self) -> None:
        with self._lock:
            self._open, self._permits = False, 0

    def _take(self) -> bool:
        with self._lock:
            if self._open:
                return True
            if self._permits:
                self._permits -= 1
                return True
            return False

    async def passing(self, request: Request) -> bool:
        """Wait to be let through (True), or until the client has gone (False): ``waiting`` counts
        live requests only, so a cancelled crawl's page is not taken for the next crawl's."""
        with self._lock:
            self.waiting += 1
        try:
            while not self._take():
                if await request.is_disconnected():
                    return False
                await asyncio.sleep(0.01)
            return True
        finally:
            with self._lock:
                self.waiting -= 1


def _page(title: str, text: str, links: list[str]) -> Response:
    anchors = "".join(f'<a href="{link}">{link}</a> ' for link in links)
    head = f"<html><head><title>{title}</title></head>"
    body = f"{head}<body><article><h1>{title}</h1><p>{text}</p>{anchors}"
    return HTMLResponse(body + "</article></body></html>")


def _tree_links(prefix: str, size: int, n: int) -> list[str]:
    return [f"{prefix}/{size}/{m}" for m in (2 * n + 1, 2 * n + 2) if m < size]


class RunSite:
    """The app, its gate and its request counts (by path)."""

    def __init__(self) -> None:
        self.gate = Gate()
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/tree/{size:int}/{n:int}", self.tree),
                Route("/gated/{size:int}/{n:int}", self.gated),
                Route("/big/{size:int}/{n:int}", self.big),
                Route("/flaky/{key}", self.flaky_home),
                Route("/flaky/{key}/page", self.flaky),
                Route("/flaky/{key}/steady", self.steady),
                Route("/long", self.long),
                Route("/p/{n:int}", self.site_page),
            ]
        )

    def _count(self, request: Request) -> int:
        with self._lock:
            self.requests[request.url.path] += 1
            return self.requests[request.url.path]

    def asked(self, prefix: str) -> Counter[str]:
        """The requests made for paths under ``prefix``."""
        with self._lock:
            return Counter(
                {path: count for path, count in self.requests.items() if path.startswith(prefix)}
            )

    async def tree(self, request: Request) -> Response:
        self._count(request)
        size, n = request.path_params["size"], request.path_params["n"]
        return _page(f"Tree page {n}", WORDS * 3, _tree_links("/tree", size, n))

    async def gated(self, request: Request) -> Response:
        self._count(request)
        size, n = request.path_params["size"], request.path_params["n"]
        if n >= 2 and not await self.gate.passing(request):
            return PlainTextResponse("gone", status_code=499)
        return _page(f"Gated page {n}", WORDS * 3, _tree_links("/gated", size, n))

    async def big(self, request: Request) -> Response:
        self._count(request)
        size, n = request.path_params["size"], request.path_params["n"]
        text = (WORDS * (BIG_TEXT // len(WORDS) + 1))[:BIG_TEXT]
        return _page(f"Big page {n}", text, _tree_links("/big", size, n))

    async def flaky_home(self, request: Request) -> Response:
        self._count(request)
        key = request.path_params["key"]
        return _page("Flaky home", WORDS * 3, [f"/flaky/{key}/page", f"/flaky/{key}/steady"])

    async def flaky(self, request: Request) -> Response:
        if self._count(request) == 1:
            return PlainTextResponse("not yet", status_code=503)
        return _page("Flaky page", WORDS * 3, [])

    async def steady(self, request: Request) -> Response:
        self._count(request)
        return _page("Steady page", WORDS * 3, [])

    async def long(self, request: Request) -> Response:
        self._count(request)
        text = ("Long " * (LONG_TEXT // 5 + 1))[:LONG_TEXT]
        return _page(text, text, [])

    async def site_page(self, request: Request) -> Response:
        self._count(request)
        n = request.path_params["n"]
        below = [m for m in range(5 * n + 1, 5 * n + 6) if m < SITE_PAGES]
        return _page(f"Page {n}", WORDS, [f"/p/{m}" for m in [*below, 0, max(n - 1, 0)]])


@contextmanager
def serve_run_site() -> Iterator[tuple[RunSite, int]]:
    """The site on a free 127.0.0.1 port; its gate is opened at the end, so no request is left
    waiting."""
    site = RunSite()
    with serve(app=site.app) as port:
        try:
            yield site, port
        finally:
            site.gate.open()
