"""The browser's cost (netglean.browser): rendered pages/s on a single-page app with a warm pool
against a cold launch per page, rendering against reading a static page over plain HTTP, and the
policy proxy's overhead against the same Chromium with no proxy. Medians of repeated passes, in one
run.

``uv run python -m bench.browser`` runs it alone (``--quick``: fewer pages).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from bench.http import _free_port, _start


def _fetcher() -> Any:
    from netglean.core.settings import Settings
    from netglean.net.fetcher import Fetcher
    from netglean.net.policy import FetchPolicy

    settings = Settings.load(
        {
            "allow_private_hosts": True,
            "host_interval": 0.0,
            "ignore_robots": True,
            "fetch_only_hosts": "",
        },
        environ={},
    )
    return Fetcher(FetchPolicy.from_settings(settings))


async def _per_page(urls: list[str], read: Callable[[str], Awaitable[str]], check: str) -> float:
    """Seconds a page, reading ``urls`` one after another (every read must hold ``check``)."""
    started = time.perf_counter()
    for url in urls:
        text = await read(url)
        if check not in text:
            raise AssertionError(f"{url} was read without its content")
    return (time.perf_counter() - started) / len(urls)


async def _passes(origin: str, pages: int, repeats: int) -> dict[str, list[float]]:
    from netglean.browser.pool import FLAGS, BrowserPool, find_browser
    from netglean.read.reading import read_html

    fetcher = _fetcher()
    spa = [f"{origin}/spa/{n}" for n in range(pages)]
    static = [f"{origin}/lean/{n}" for n in range(pages)]
    check = "<p>"
    times: dict[str, list[float]] = {"warm": [], "cold": [], "http": [], "no_proxy": []}
    pool = BrowserPool(fetcher)

    async def warm(url: str) -> str:
        return (await pool.render(fetcher, url, timeout=30)).html

    async def cold(url: str) -> str:
        fresh = BrowserPool(fetcher)
        try:
            return (await fresh.render(fetcher, url, timeout=30)).html
        finally:
            await fresh.aclose()

    async def http(url: str) -> str:
        page = await fetcher.fetch(url)
        return (
            "<p>"
            if read_html(page.document.text(), url, fmt="markdown", main_content=True).content
            else ""
        )

    from playwright.async_api import async_playwright

    playwright = await async_playwright().start()
    bare = await playwright.chromium.launch(
        executable_path=find_browser(""),
        args=[f for f in FLAGS if not f.startswith("--host-resolver-rules")],
    )

    async def no_proxy(url: str) -> str:
        from netglean.browser.pool import in_flight, quiet

        context = await bare.new_context(service_workers="block", accept_downloads=False)
        try:
            page = await context.new_page()
            pending = in_flight(page)
            await page.goto(url, wait_until="load")
            await quiet(pending, 3.0)
            return str(await page.content())
        finally:
            await context.close()

    try:
        await warm(spa[0])  # the pool's launch, not timed: that is what cold pays per page
        await no_proxy(spa[0])
        for _ in range(repeats):
            times["warm"].append(await _per_page(spa, warm, check))
            times["no_proxy"].append(await _per_page(spa, no_proxy, check))
            times["cold"].append(await _per_page(spa[: max(3, pages // 5)], cold, check))
            times["http"].append(await _per_page(static, http, check))
    finally:
        await bare.close()
        await playwright.stop()
        await pool.aclose()
        await fetcher.aclose()
    return times


def run(pages: int = 30, repeats: int = 3) -> dict[str, Any]:
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    try:
        times = anyio.run(_passes, f"http://127.0.0.1:{port}", pages, repeats)
    finally:
        site.terminate()
        site.wait()
    median = {name: statistics.median(values) for name, values in times.items()}
    return {
        "pages": pages,
        "repeats": repeats,
        "ms_per_page": {name: value * 1000 for name, value in median.items()},
        "rendered_pages_per_s_warm": 1 / median["warm"],
        "rendered_pages_per_s_cold": 1 / median["cold"],
        "warm_vs_cold": median["cold"] / median["warm"],
        "render_vs_http": median["warm"] / median["http"],
        "proxy_overhead": median["warm"] / median["no_proxy"],
    }


def show(figures: dict[str, Any]) -> None:
    ms = figures["ms_per_page"]
    print(f"\nbrowser ({figures['pages']} pages, medians of {figures['repeats']} passes)")
    print(
        f"  rendered SPA, warm pool {ms['warm']:.0f} ms/page "
        f"({figures['rendered_pages_per_s_warm']:.1f} pages/s); cold launch {ms['cold']:.0f} "
        f"ms/page: warm is {figures['warm_vs_cold']:.1f}x faster"
    )
    print(
        f"  static page over plain HTTP {ms['http']:.1f} ms/page: rendering costs "
        f"{figures['render_vs_http']:.0f}x"
    )
    overhead, bare = figures["proxy_overhead"], ms["no_proxy"]
    print(
        f"  through the policy proxy and router vs neither: {overhead:.2f}x (neither: {bare:.0f} "
        "ms/page)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer pages, one pass")
    args = parser.parse_args()
    show(run(pages=10 if args.quick else 30, repeats=1 if args.quick else 3))
