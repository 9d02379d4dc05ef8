"""The peers' side of bench.peers: Crawlberg, crawl4ai and bare Playwright, driven in the bench's
own environment (bench/.peers-venv), never in netglean's: ``python -I bench/peers_worker.py
CHROMIUM``.

It reads one JSON command a line on stdin and answers each with one JSON line on stdout: what it
read (pages, characters, whether each page holds its check text) and its wall seconds. bench.peers
reads the CPU seconds of this process and its children (Crawlberg's threads, Playwright's driver,
Chromium) around each command. Engines and browsers are kept between commands, so a command after
the first of its kind is the peer warm; a command's ``fresh`` pieces (a first browser call) start
their own.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

CHROMIUM = sys.argv[1] if len(sys.argv) > 1 else "chromium"
_engines: dict[str, Any] = {}
_loop = asyncio.new_event_loop()
_browsers: dict[str, Any] = {}


def _run(awaitable: Any) -> Any:
    """Crawlberg's calls are coroutines (its Rust runtime does the work): run one on our loop."""
    return _loop.run_until_complete(awaitable)


def _use_chromium() -> None:
    """Playwright's launches use the machine's Chromium: crawl4ai has no setting for it, and
    Playwright's own build is not installed (its download is not reachable here)."""
    from playwright.async_api import BrowserType

    if getattr(BrowserType.launch, "_bench", False):
        return
    launch = BrowserType.launch

    async def launched(self: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", CHROMIUM)
        return await launch(self, *args, **kwargs)

    launched._bench = True  # type: ignore[attr-defined]
    BrowserType.launch = launched  # type: ignore[method-assign]


def _engine(key: str, **config: Any) -> Any:
    import crawlberg

    if key not in _engines:
        # Politeness lifted as netglean's side lifts it: loopback allowed, no spacing between
        # requests (Crawlberg spaces a host's requests by 200 ms over HTTP unless told).
        ssrf = crawlberg.SsrfPolicy(deny_private=False)
        config = {"rate_limit_ms": 0, **config}
        _engines[key] = crawlberg.create_engine(crawlberg.CrawlConfig(ssrf=ssrf, **config))
    return _engines[key]


def crawlberg_crawl(start: str, pages: int, width: int, max_depth: int) -> dict[str, Any]:
    import crawlberg

    engine = _engine(
        f"crawl-{pages}-{width}", max_pages=pages, max_concurrent=width, max_depth=max_depth
    )
    result = _run(crawlberg.crawl(engine, start))
    read = [page for page in result.pages if page.status_code == 200]
    return {
        "pages": len(read),
        "chars": sum(len(page.markdown.content if page.markdown else "") for page in read),
    }


def crawlberg_batch(urls: list[str], width: int, check: str) -> dict[str, Any]:
    import crawlberg

    engine = _engine(f"batch-{width}", max_concurrent=width)
    results = _run(crawlberg.batch_scrape(engine, urls)).results
    texts = [r.result.markdown.content if r.result and r.result.markdown else "" for r in results]
    return {"pages": sum(check in text for text in texts), "chars": sum(map(len, texts))}


def crawlberg_map(url: str, limit: int, calls: int) -> dict[str, Any]:
    import crawlberg

    engine = _engine(f"map-{limit}", map_limit=limit)
    return {"urls": sum(len(_run(crawlberg.map_urls(engine, url)).urls) for _ in range(calls))}


def crawlberg_render(url: str, check: str) -> dict[str, Any]:
    import crawlberg

    browser = crawlberg.BrowserConfig(mode="always", chrome_path=CHROMIUM)
    engine = _engine("browser", browser=browser)
    page = _run(crawlberg.scrape(engine, url))
    text = page.markdown.content if page.markdown else ""
    return {"pages": int(check in text), "chars": len(text)}


async def _crawl4ai(url: str, check: str) -> dict[str, Any]:
    from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig

    _use_chromium()
    if "crawl4ai" not in _browsers:
        crawler = AsyncWebCrawler(config=BrowserConfig(headless=True, verbose=False))
        await crawler.start()
        _browsers["crawl4ai"] = crawler
    result = await _browsers["crawl4ai"].arun(
        url, config=CrawlerRunConfig(cache_mode=CacheMode.BYPASS, verbose=False)
    )
    text = str(result.markdown or "")
    return {"pages": int(check in text), "chars": len(text)}


async def _playwright(url: str, check: str) -> dict[str, Any]:
    """A bare Playwright page: a fresh context, load, the page's HTML (no policy, no extraction)."""
    if "playwright" not in _browsers:
        from playwright.async_api import async_playwright

        _use_chromium()
        playwright = await async_playwright().start()
        _browsers["playwright"] = await playwright.chromium.launch(headless=True)
    context = await _browsers["playwright"].new_context()
    try:
        page = await context.new_page()
        await page.goto(url, wait_until="networkidle")
        html = await page.content()
    finally:
        await context.close()
    return {"pages": int(check in html), "chars": len(html)}


def handle(command: dict[str, Any]) -> dict[str, Any]:
    op = command.pop("op")
    if op == "crawlberg_crawl":
        return crawlberg_crawl(**command)
    if op == "crawlberg_batch":
        return crawlberg_batch(**command)
    if op == "crawlberg_map":
        return crawlberg_map(**command)
    if op == "crawlberg_render":
        return crawlberg_render(**command)
    if op == "crawl4ai_render":
        return _loop.run_until_complete(_crawl4ai(**command))
    if op == "playwright_render":
        return _loop.run_until_complete(_playwright(**command))
    raise ValueError(f"unknown command {op!r}")


def main() -> None:
    for line in sys.stdin:
        started = time.perf_counter()
        try:
            answer = handle(json.loads(line))
        except Exception as failure:  # the harness reports it and stops
            answer = {"error": f"{type(failure).__name__}: {failure}"[:600]}
        answer["wall_s"] = time.perf_counter() - started
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
