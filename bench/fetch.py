"""batch_scrape over stdio against the reference fetch server (mcp-server-fetch), and against
in-process extraction.

netglean reads N generated pages from a 127.0.0.1 site with batch_scrape (100 URLs a call,
politeness lifted by operator settings); mcp-server-fetch (run with uvx, --ignore-robots-txt
--allow-private-ips) fetches the same pages one call each, both driven by the same raw line client
(bench.stdio.LineClient), so client-side costs stay out of the comparison; the floor is netglean's
own reading (netglean.read.reading) called in-process on the same pages, with no network and no MCP.

Each server is timed after its first pass (medians of repeated passes on one connection), as the
floor is after its first call; netglean's first pass on a fresh server is reported on its own.

Two page families (bench.site): "news", publisher-style pages of about 70 KB, and "lean",
5 KB pages with almost nothing around the article, where per-request costs weigh most.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.http import _free_port, _start
from bench.site import PAGES
from bench.stdio import LineClient

ROOT = Path(__file__).resolve().parent.parent
LIFTED = [
    "--allow-private-hosts",
    "--ignore-robots",
    "--host-interval",
    "0",
    "--host-concurrency",
    "16",
    "--global-concurrency",
    "16",
    "--session-budget",
    "1000000",
    "--call-timeout",
    "600",
]


def _netglean(urls: list[str], repeats: int) -> tuple[float, list[float]]:
    """Seconds for the first pass over ``urls`` on a fresh server, then for each of ``repeats``
    passes after it.

    The first pass carries the server's one-time work: its first call imports the fetch layer, and
    the reader processes start (pages are read in threads until they are up). The passes after it
    are the server as it runs all day, which is what pages per second means.
    """
    client = LineClient([sys.executable, "-m", "netglean", "mcp", *LIFTED])
    try:
        first = _pass(client, urls)
        return first, [_pass(client, urls) for _ in range(repeats)]
    finally:
        client.close()


def _first_page(urls: list[str], pause: float) -> tuple[float, float]:
    """Seconds for a fresh server's first scrape after ``pause`` seconds (an agent thinking after
    initialize), and for its next scrape of another page: what an agent waits for its first page,
    against the usual."""
    client = LineClient([sys.executable, "-m", "netglean", "mcp", *LIFTED])
    try:
        time.sleep(pause)
        timed = []
        for url in urls[:2]:
            started = time.perf_counter()
            client.call("scrape", {"url": url})
            timed.append(time.perf_counter() - started)
        return timed[0], timed[1]
    finally:
        client.close()


def _pass(client: LineClient, urls: list[str]) -> float:
    started = time.perf_counter()
    for chunk in range(0, len(urls), 100):
        result = client.call(
            "batch_scrape", {"urls": urls[chunk : chunk + 100], "max_chars": 50000}
        )
        if result["structuredContent"]["payload"]["failed"]:
            raise RuntimeError(f"batch_scrape failed: {json.dumps(result)[:300]}")
    return time.perf_counter() - started


def _reference(urls: list[str], repeats: int) -> list[float]:
    """Seconds per pass of mcp-server-fetch over ``urls``, one call each, after one warm-up call."""
    # The machine's environment (proxy, certificates) is passed on: uvx installs the server from the
    # registry. Its per-request log lines go to /dev/null, not into the benchmark report.
    command = "exec uvx mcp-server-fetch --ignore-robots-txt --allow-private-ips 2>/dev/null"
    client = LineClient(["sh", "-c", command], env=dict(os.environ))
    try:
        client.call("fetch", {"url": urls[0], "max_length": 50000})
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            for url in urls:
                client.call("fetch", {"url": url, "max_length": 50000})
            times.append(time.perf_counter() - started)
        return times
    finally:
        client.close()


def _in_process(family: str, pages: int) -> float:
    """What the server does with each page once it has the bytes (decode, parse, metadata, extract,
    render)."""
    from netglean.read.document import decode
    from netglean.read.reading import read_html

    bodies = [PAGES[family](n) for n in range(pages)]
    started = time.perf_counter()
    for n, body in enumerate(bodies):
        read_html(
            decode(body, "utf-8"),
            f"http://127.0.0.1/{family}/{n}",
            fmt="markdown",
            main_content=True,
        )
    return time.perf_counter() - started


def run(
    pages: int = 1000, repeats: int = 3, reference_pages: int = 200, spawns: int = 5
) -> dict[str, Any]:
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    figures: dict[str, Any] = {"pages": pages, "families": {}}
    try:
        for family in PAGES:
            urls = [f"http://127.0.0.1:{port}/{family}/{n}" for n in range(pages)]
            # the site builds and caches every page once, so no pass below pays for that
            _netglean(urls, 0)
            first, passes = _netglean(urls, repeats)
            served = statistics.median(passes)
            floor = statistics.median(_in_process(family, pages) for _ in range(repeats))
            figures["families"][family] = {
                "netglean_pages_per_s": pages / served,
                "in_process_pages_per_s": pages / floor,
                "overhead_ratio": served / floor,
                "first_pass_pages_per_s": pages / first,
                "first_pass_ratio": first / floor,
            }
        urls = [f"http://127.0.0.1:{port}/news/{n}" for n in range(reference_pages)]
        reference = statistics.median(_reference(urls, repeats))
        firsts = [_first_page(urls, pause=1.0) for _ in range(spawns)]
        figures["first_page"] = {
            "pause_s": 1.0,
            "spawns": spawns,
            "first_ms": statistics.median(first for first, _ in firsts) * 1000,
            "next_ms": statistics.median(after for _, after in firsts) * 1000,
        }
    finally:
        site.terminate()
        site.wait(10)
    news = figures["families"]["news"]
    figures.update(
        reference_pages=reference_pages,
        reference_pages_per_s=reference_pages / reference,
        speedup=news["netglean_pages_per_s"] / (reference_pages / reference),
    )
    return figures


if __name__ == "__main__":
    print(run(pages=int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
