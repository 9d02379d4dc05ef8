"""crawl over stdio on the generated site: pages read at once (the operator's global concurrency)
against one at a time, against batch_scrape of the same pages, and against Scrapy.

Each server runs with politeness lifted (bench.fetch.LIFTED) and ``--global-concurrency`` set to the
width measured; at width 1 the engine reads as it did before it read ahead. A crawl starts at
/FAMILY/k (k the pass: every pass reads other pages first) and visits ``pages`` URLs breadth-first
(a few are duplicates by canonical URL, a few answer 404); batch_scrape reads the pages that crawl
read, so both read the same bytes.

Against Scrapy: a minimal spider (bench/scrapy_crawl.py, in the benchmark's own environment
bench/.scrapy-venv, made with uv the first time) crawls the same site from the same start URL,
breadth-first, with the same depth, page count and width (WIDTH requests at once), robots.txt and
delays off, keeping each page's title and body text. Runs alternate pair by pair (netglean first,
then Scrapy first: the machine is noisy); each pair's start URL is crawled once untimed before it,
so the site has built its pages and the server is warm. Both sides count the pages they read (404s
are neither's); Scrapy is timed inside its process, engine_started to spider_closed, and its whole
process (interpreter and Scrapy start-up) is reported beside that. ratio = netglean pages/s over
Scrapy's. The long crawl (``long_pages``, one pair on a site of LONG_SITE times as many pages) runs
Scrapy when netglean's crawl has read most of the pages. netglean's crawl is a background run
persisted in the server's own run store (``--data-dir``, a temporary folder per server); the call
waits for it, and the visits an answer leaves out (past its 400,000 characters) are read back
through get_run_result after the clock stops.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.fetch import LIFTED
from bench.http import _free_port, _start
from bench.scrapy_crawl import SCRAPY, SCRAPY_VERSION
from bench.site import SIZE
from bench.stdio import LineClient

ROOT = Path(__file__).resolve().parent.parent
SCRAPY_VENV = ROOT / "bench/.scrapy-venv"
SPIDER = ROOT / "bench/scrapy_crawl.py"
WIDTH = 16
"""Pages read at once on both sides of the Scrapy comparison (netglean's global concurrency,
Scrapy's CONCURRENT_REQUESTS and CONCURRENT_REQUESTS_PER_DOMAIN)."""
MAX_DEPTH = 10
MAX_CHARS = 3000
FAMILIES = ("news", "lean")
LONG_SITE = 1.25
"""The long crawl's site has this many times its page count, so breadth-first order reaches that
many pages."""


@dataclass(frozen=True, slots=True)
class Crawled:
    seconds: float
    urls: list[str]
    """The pages read, in visit order."""
    stopped: str | None


@contextmanager
def _server(width: int) -> Iterator[LineClient]:
    lifted = list(LIFTED)
    lifted[lifted.index("--global-concurrency") + 1] = str(width)
    # each server its own run store: a crawl is a persisted run
    with tempfile.TemporaryDirectory() as data:
        client = LineClient([sys.executable, "-m", "netglean", "mcp", *lifted, "--data-dir", data])
        try:
            yield client
        finally:
            client.close()


def _crawl(client: LineClient, start: str, pages: int) -> Crawled:
    started = time.perf_counter()
    arguments = {"url": start, "max_pages": pages, "max_depth": MAX_DEPTH, "max_chars": MAX_CHARS}
    result = client.call("crawl", arguments)
    elapsed = time.perf_counter() - started
    payload = result["structuredContent"]["payload"]
    visits = payload["pages"]
    # the answer holds the first 400,000 characters of visits; the run holds all
    if payload.get("unreturned"):
        visits = []
        for page in range(1, 10**6):
            got = client.call(
                "get_run_result", {"run_id": payload["run_id"], "page": page, "per_page": 200}
            )
            found = got["structuredContent"]["payload"]
            visits += [item["item"] for item in found["items"]]
            if not found["has_more"]:
                break
    return Crawled(
        elapsed, [visit["url"] for visit in visits if visit.get("page")], payload.get("stopped")
    )


def _full(crawled: Crawled, pages: int) -> Crawled:
    """``crawled``, which must have read most of ``pages`` (a few visits are duplicates or 404s)."""
    if len(crawled.urls) < pages // 2:
        raise RuntimeError(
            f"the crawl read {len(crawled.urls)} of {pages} pages: {crawled.stopped}"
        )
    return crawled


def _batch(client: LineClient, urls: list[str]) -> float:
    started = time.perf_counter()
    for chunk in range(0, len(urls), 100):
        client.call("batch_scrape", {"urls": urls[chunk : chunk + 100], "max_chars": MAX_CHARS})
    return time.perf_counter() - started


def scrapy_python() -> Path:
    """The Scrapy environment's python, with the pinned Scrapy: the environment is made with uv when
    missing, and Scrapy installed into it (from the package registry) when it is not the pinned
    version."""
    python = SCRAPY_VENV / "bin/python"
    uv = shutil.which("uv")
    if not python.exists():
        if uv is None:
            raise RuntimeError(f"the Scrapy comparison needs uv to make {SCRAPY_VENV}")
        subprocess.run(
            [uv, "venv", "--quiet", "--python", sys.executable, str(SCRAPY_VENV)], check=True
        )
    probe = "import importlib.metadata as m; print('scrapy==' + m.version('scrapy'))"
    found = subprocess.run(
        [str(python), "-I", "-c", probe], capture_output=True, text=True, check=False
    )
    if found.stdout.strip() != SCRAPY:
        if uv is None:
            raise RuntimeError(
                f"the Scrapy comparison needs uv to install {SCRAPY} into {SCRAPY_VENV}"
            )
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", str(python), SCRAPY], check=True
        )
    return python


def _scrapy(python: Path, start: str, pages: int) -> dict[str, Any]:
    """One Scrapy crawl: pages exported, responses, close reason, engine seconds and whole-process
    seconds."""
    with tempfile.TemporaryDirectory(prefix="bench-scrapy-") as folder:
        feed = Path(folder) / "pages.jsonl"
        config = {
            "start": start,
            "host": "127.0.0.1",
            "pages": pages,
            "max_depth": MAX_DEPTH,
            "width": WIDTH,
            "max_chars": MAX_CHARS,
            "feed": feed.as_uri(),
        }
        started = time.perf_counter()
        done = subprocess.run(
            [str(python), "-I", str(SPIDER), json.dumps(config)],
            check=False,
            cwd=folder,
            capture_output=True,
            text=True,
        )
        process_s = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"the Scrapy crawl failed ({done.returncode}): {done.stderr[-600:]}")
        run: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
        exported = len(feed.read_text().splitlines())
    if exported != run["pages"] or run["pages"] < pages // 2:
        raise RuntimeError(
            f"Scrapy read {run['pages']} of {pages} pages and exported {exported}: {run['reason']}"
        )
    return {**run, "process_s": process_s}


def _pair(
    client: LineClient, python: Path, start: str, pages: int, *, netglean_first: bool
) -> tuple[Crawled, dict[str, Any]]:
    if netglean_first:
        ours = _crawl(client, start, pages)
        return ours, _scrapy(python, start, pages)
    theirs = _scrapy(python, start, pages)
    return _crawl(client, start, pages), theirs


def _compared(pairs: list[tuple[Crawled, dict[str, Any]]]) -> dict[str, Any]:
    ours = statistics.median(len(crawled.urls) / crawled.seconds for crawled, _ in pairs)
    theirs = statistics.median(run["pages"] / run["engine_s"] for _, run in pairs)
    return {
        "netglean_pages_per_s": ours,
        "scrapy_pages_per_s": theirs,
        "scrapy_process_pages_per_s": statistics.median(
            run["pages"] / run["process_s"] for _, run in pairs
        ),
        "netglean_pages": [len(crawled.urls) for crawled, _ in pairs],
        "scrapy_pages": [run["pages"] for _, run in pairs],
        "ratio": ours / theirs,
    }


def _versus_scrapy(
    python: Path, port: int, family: str, pages: int, repeats: int
) -> dict[str, Any]:
    """Medians of ``repeats`` pairs of crawls of ``pages`` pages, one pair per start URL, the order
    alternating."""
    pairs = []
    with _server(WIDTH) as client:
        for k in range(repeats):
            start = f"http://127.0.0.1:{port}/{family}/{k}"
            # builds the pages this pair reads; the first warms the server
            _full(_crawl(client, start, pages), pages)
            ours, theirs = _pair(client, python, start, pages, netglean_first=k % 2 == 0)
            pairs.append((_full(ours, pages), theirs))
    return _compared(pairs)


def _long(python: Path, port: int, family: str, pages: int) -> dict[str, Any]:
    """One pair of crawls of ``pages`` pages, when netglean's crawl reads that many."""
    start = f"http://127.0.0.1:{port}/{family}/0"
    with _server(WIDTH) as client:
        warm = _crawl(client, start, pages)
        if len(warm.urls) < pages * 9 // 10:
            return {"netglean_read": len(warm.urls), "netglean_stopped": warm.stopped}
        return _compared([_pair(client, python, start, pages, netglean_first=True)])


def _by_width(
    port: int, family: str, pages: int, repeats: int, widths: tuple[int, ...]
) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for width in widths:
        with _server(width) as client:
            # the server's first call
            _crawl(client, f"http://127.0.0.1:{port}/{family}/999", pages)
            crawled = [
                _full(_crawl(client, f"http://127.0.0.1:{port}/{family}/{k}", pages), pages)
                for k in range(repeats)
            ]
            batched = [_batch(client, c.urls) for c in crawled]
        rows[str(width)] = {
            "crawl_pages_per_s": statistics.median(len(c.urls) / c.seconds for c in crawled),
            "batch_scrape_pages_per_s": statistics.median(
                len(c.urls) / t for c, t in zip(crawled, batched, strict=True)
            ),
        }
    base = rows[str(widths[0])]["crawl_pages_per_s"]
    for row in rows.values():
        row["speedup_over_width_1"] = row["crawl_pages_per_s"] / base
        row["crawl_to_batch_scrape"] = row["crawl_pages_per_s"] / row["batch_scrape_pages_per_s"]
    return rows


def run(
    pages: int = 200,
    repeats: int = 3,
    widths: tuple[int, ...] = (1, 16),
    long_pages: int | None = 2000,
) -> dict[str, Any]:
    python = scrapy_python()
    scrapy: dict[str, Any] = {
        "version": SCRAPY_VERSION,
        "width": WIDTH,
        "max_depth": MAX_DEPTH,
        "max_chars": MAX_CHARS,
        "families": {},
    }
    figures: dict[str, Any] = {"pages": pages, "repeats": repeats, "families": {}, "scrapy": scrapy}
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    try:
        # Scrapy's first run compiles its bytecode, untimed
        _scrapy(python, f"http://127.0.0.1:{port}/lean/0", 10)
        for family in FAMILIES:
            figures["families"][family] = _by_width(port, family, pages, repeats, widths)
            scrapy["families"][family] = _versus_scrapy(python, port, family, pages, repeats)
    finally:
        site.terminate()
    if long_pages:
        size = max(SIZE, int(long_pages * LONG_SITE))
        port = _free_port()
        site = _start([sys.executable, "-m", "bench.site", str(port), str(size)], port)
        try:
            scrapy["long"] = {
                "pages": long_pages,
                "site_pages": size,
                "families": {
                    family: _long(python, port, family, long_pages) for family in FAMILIES
                },
            }
        finally:
            site.terminate()
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
