"""batch_scrape over stdio against the reference fetch server (mcp-server-fetch), and against in-process extraction.

netglean reads N generated pages from a 127.0.0.1 site with batch_scrape (100 URLs a call,
politeness lifted by operator settings); mcp-server-fetch (run with uvx, --ignore-robots-txt
--allow-private-ips) fetches the same pages one call each; the floor is netglean's own
extraction called in-process on the same pages, with no network and no MCP.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.http import _free_port, _start
from bench.site import article

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


async def _netglean(urls: list[str]) -> float:
    server = StdioServerParameters(command=sys.executable, args=["-m", "netglean", "mcp", *LIFTED], cwd=str(ROOT))
    async with Client(server, mode="legacy", read_timeout_seconds=600) as client:
        started = time.perf_counter()
        for chunk in range(0, len(urls), 100):
            result = await client.call_tool("batch_scrape", {"urls": urls[chunk : chunk + 100], "max_chars": 50000})
            payload = (result.structured_content or {}).get("payload", {})
            if result.is_error or payload.get("failed"):
                raise RuntimeError(f"batch_scrape failed: {str(result.structured_content)[:300]}")
        return time.perf_counter() - started


async def _reference(urls: list[str]) -> float:
    # The machine's environment (proxy, certificates) is passed on: uvx installs the server from the registry.
    # Its per-request log lines go to /dev/null, not into the benchmark report.
    command = "exec uvx mcp-server-fetch --ignore-robots-txt --allow-private-ips 2>/dev/null"
    server = StdioServerParameters(command="sh", args=["-c", command], env=dict(os.environ))
    async with Client(server, mode="legacy", read_timeout_seconds=600) as client:
        started = time.perf_counter()
        for url in urls:
            result = await client.call_tool("fetch", {"url": url, "max_length": 50000})
            if result.is_error:
                raise RuntimeError(f"mcp-server-fetch failed on {url}: {result.content[0]}")
        return time.perf_counter() - started


def _in_process(pages: int) -> float:
    from netglean.extract import extract, render
    from netglean.fetch import decode
    from netglean.html_tree import parse_html

    bodies = [article(n) for n in range(pages)]
    started = time.perf_counter()
    for n, body in enumerate(bodies):
        render(extract(parse_html(decode(body, "utf-8")), f"http://127.0.0.1/p/{n}"), "markdown")
    return time.perf_counter() - started


def run(pages: int = 1000, repeats: int = 3, reference_pages: int = 200) -> dict[str, Any]:
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    urls = [f"http://127.0.0.1:{port}/p/{n}" for n in range(pages)]
    try:
        anyio.run(_netglean, urls)  # warm-up: the site builds and caches every page once
        netglean = statistics.median(anyio.run(_netglean, urls) for _ in range(repeats))
        floor = statistics.median(_in_process(pages) for _ in range(repeats))
        reference = statistics.median(anyio.run(_reference, urls[:reference_pages]) for _ in range(repeats))
    finally:
        site.terminate()
        site.wait(10)
    return {
        "pages": pages,
        "netglean_pages_per_s": pages / netglean,
        "reference_pages": reference_pages,
        "reference_pages_per_s": reference_pages / reference,
        "speedup": (pages / netglean) / (reference_pages / reference),
        "in_process_pages_per_s": pages / floor,
        "overhead_ratio": netglean / floor,
    }


if __name__ == "__main__":
    print(run(pages=int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
