"""crawl over stdio on the generated site: pages read at once (the operator's global concurrency) against one at a
time, and against batch_scrape of the same pages.

Each server runs with politeness lifted (bench.fetch.LIFTED) and ``--global-concurrency`` set to the width measured;
at width 1 the engine reads as it did before it read ahead. A crawl starts at /FAMILY/k (k the pass: every pass
reads other pages first) and visits ``pages`` URLs breadth-first (a few are duplicates by canonical URL);
batch_scrape reads the pages that crawl read, so both read the same bytes.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench.fetch import LIFTED
from bench.http import _free_port, _start
from bench.stdio import LineClient


def _server(width: int) -> LineClient:
    lifted = list(LIFTED)
    lifted[lifted.index("--global-concurrency") + 1] = str(width)
    return LineClient([sys.executable, "-m", "netglean", "mcp", *lifted])


def _crawl(client: LineClient, start: str, pages: int) -> tuple[float, list[str]]:
    started = time.perf_counter()
    result = client.call("crawl", {"url": start, "max_pages": pages, "max_depth": 10, "max_chars": 3000})
    elapsed = time.perf_counter() - started
    payload = result["structuredContent"]["payload"]
    urls = [visit["url"] for visit in payload["pages"] if visit.get("page")]
    if len(urls) < pages // 2:  # a few visits are duplicates by canonical URL; most must be pages read
        raise RuntimeError(f"the crawl read {len(urls)} of {pages} pages: {payload.get('stopped')}")
    return elapsed, urls


def _batch(client: LineClient, urls: list[str]) -> float:
    started = time.perf_counter()
    for chunk in range(0, len(urls), 100):
        client.call("batch_scrape", {"urls": urls[chunk : chunk + 100], "max_chars": 3000})
    return time.perf_counter() - started


def run(pages: int = 200, repeats: int = 3, widths: tuple[int, ...] = (1, 16)) -> dict[str, Any]:
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    families: dict[str, Any] = {}
    try:
        for family in ("news", "lean"):
            rows: dict[str, Any] = {}
            for width in widths:
                client = _server(width)
                try:
                    _crawl(client, f"http://127.0.0.1:{port}/{family}/999", pages)  # the server's first call
                    crawled = [_crawl(client, f"http://127.0.0.1:{port}/{family}/{k}", pages) for k in range(repeats)]
                    batched = [_batch(client, urls) for _, urls in crawled]
                finally:
                    client.close()
                rows[str(width)] = {
                    "crawl_pages_per_s": statistics.median(len(urls) / t for t, urls in crawled),
                    "batch_scrape_pages_per_s": statistics.median(
                        len(urls) / t for (_, urls), t in zip(crawled, batched, strict=True)
                    ),
                }
            base = rows[str(widths[0])]["crawl_pages_per_s"]
            for row in rows.values():
                row["speedup_over_width_1"] = row["crawl_pages_per_s"] / base
                row["crawl_to_batch_scrape"] = row["crawl_pages_per_s"] / row["batch_scrape_pages_per_s"]
            families[family] = rows
    finally:
        site.terminate()
    return {"pages": pages, "repeats": repeats, "families": families}


if __name__ == "__main__":
    for family, rows in run()["families"].items():
        for width, row in rows.items():
            print(family, width, {k: round(v, 2) for k, v in row.items()})
