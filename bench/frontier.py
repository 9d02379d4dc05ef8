"""What the links pages give cost a crawl and a map: the server's memory, its store, and the event
loop's latency.

1. hostile: a crawl (as a run on ``netglean serve``) of pages that each link 60,000 new URLs, and a
   map of one such page; while each works, get_version is called again and again over REST and its
   latency kept (median, max): a trivial call waits for whatever holds the event loop. The server's
   peak resident memory (its own process, the reader processes apart) and the run store's size are
   read at the end.
2. flat: a crawl of ``--pages`` lean pages (100,000 unless told) of a site whose pages each link 20
   further ones, as one run: the server's resident memory sampled as the run goes, reported at each
   tenth of the way, to show that it stays flat however long the crawl.

The site is served by a bare asyncio server in this process's thread (headers and body in one write,
no Nagle delay), so it adds no latency of its own. Run alone: ``python -m bench.frontier [--pages
N]``; results go to ``bench/results/frontier.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.fetch import LIFTED
from bench.http import _free_port, _start

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench/results/frontier.json"
HOSTILE_LINKS = 60_000
"""Links a page of the hostile site gives, each new (unless the site is started with another
count)."""
FLAT_WIDTH = 20
"""Links a page of the flat site gives: pages n*20+1 to n*20+20, a tree as wide as any crawl asks
for."""
_PAGE = re.compile(rb"GET /(\w+)/(\d+) ")


def _hostile(n: int, links: int) -> bytes:
    anchors = "".join(f'<a href="/h/{n * links + i + 1}">{i}</a>' for i in range(links))
    return (
        f"<!doctype html><title>Page {n}</title><body><p>Many links.</p>{anchors}</body>".encode()
    )


def _lean(n: int) -> bytes:
    links = "".join(
        f'<a href="/f/{n * FLAT_WIDTH + i + 1}">Story {i}</a> ' for i in range(FLAT_WIDTH)
    )
    text = (
        f"Article {n} of the flat site: the tide turned at the harbour mouth and the pilots went "
        "out. " * 6
    )
    return (
        f"<!doctype html><html><head><title>Article {n}</title></head><body><nav>{links}</nav>"
        f"<main><article><h1>Article {n}</h1><p>{text}</p></article></main></body></html>"
    ).encode()


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, links: int) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while head := await reader.readuntil(b"\r\n\r\n"):
            found = _PAGE.match(head)
            if found is None:
                body, status = b"not found", b"404 Not Found"
            else:
                n = int(found[2])
                body, status = (_hostile(n, links) if found[1] == b"h" else _lean(n)), b"200 OK"
            writer.write(
                b"HTTP/1.1 "
                + status
                + b"\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


@contextmanager
def _site(links: int = HOSTILE_LINKS) -> Iterator[int]:
    """The site on a free port of 127.0.0.1, served from a thread of this process while the with
    block lasts."""
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(
        asyncio.start_server(lambda r, w: _answer(r, w, links), "127.0.0.1", 0)
    )
    port = int(server.sockets[0].getsockname()[1])
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def _memory(pid: int) -> tuple[int, int]:
    """The process's resident and peak resident memory, in KiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


@contextmanager
def _server(data_dir: str) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "netglean",
        "serve",
        *LIFTED,
        "--port",
        str(port),
        "--data-dir",
        data_dir,
    ]
    process = _start(command, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
            yield process, client
    finally:
        process.terminate()
        process.wait(30)


def _call(client: httpx.Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.post(f"/v1/tools/{tool}", json=arguments).json()
    return envelope


def _probed(client: httpx.Client, work: Callable[[], Any]) -> tuple[Any, list[float]]:
    """``work``'s answer, and the latency of each get_version called from another thread while it
    worked."""
    latencies: list[float] = []
    done = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=client.base_url, timeout=600) as own:
            while not done.is_set():
                started = time.perf_counter()
                own.post("/v1/tools/get_version", json={})
                latencies.append(time.perf_counter() - started)
                time.sleep(0.02)

    thread = threading.Thread(target=probe)
    thread.start()
    try:
        return work(), latencies
    finally:
        done.set()
        thread.join()


def _finished(
    client: httpx.Client, run_id: str, each: Callable[[dict[str, Any]], None] = lambda _: None
) -> Any:
    while True:
        run = _call(client, "get_run_status", {"run_id": run_id})["payload"]["run"]
        each(run)
        if run["status"] not in ("queued", "running"):
            return run
        time.sleep(0.25)


def _latency(latencies: list[float]) -> dict[str, float]:
    return {
        "calls": len(latencies),
        "median_ms": round(statistics.median(latencies) * 1000, 1) if latencies else 0.0,
        "max_ms": round(max(latencies, default=0.0) * 1000, 1),
    }


def hostile(pages: int = 10, links: int = HOSTILE_LINKS) -> dict[str, Any]:
    """A crawl of ``pages`` pages of ``links`` new links each, and a map of one such page."""
    with (
        _site(links) as port,
        tempfile.TemporaryDirectory(prefix="netglean-bench-frontier-") as data_dir,
    ):
        with _server(data_dir) as (process, client):
            rss_before, _ = _memory(process.pid)
            arguments = {"url": f"http://127.0.0.1:{port}/h/0", "max_pages": pages, "max_depth": 5}

            def crawled() -> Any:
                started = _call(client, "crawl", {**arguments, "wait": False})
                return _finished(client, started["payload"]["run"]["run_id"])

            run, crawl_latencies = _probed(client, crawled)
            result = _call(client, "get_run_result", {"run_id": run["run_id"]})["payload"]
            _, crawl_peak = _memory(process.pid)
            store = sum(f.stat().st_size for f in Path(data_dir).glob("runs.sqlite3*"))
            mapped, map_latencies = _probed(
                client,
                lambda: _call(
                    client, "map", {"url": f"http://127.0.0.1:{port}/h/1", "format": "json"}
                ),
            )
        crawl_result = result.get("result", result)
        return {
            "links_a_page": links,
            "crawl": {
                "pages": pages,
                "status": run["status"],
                "read": crawl_result.get("read"),
                "unvisited": crawl_result.get("unvisited"),
                "links_dropped": crawl_result.get("links_dropped"),
                "server_rss_start_mib": round(rss_before / 1024, 1),
                "server_peak_mib": round(crawl_peak / 1024, 1),
                "store_mib": round(store / 2**20, 2),
                "get_version": _latency(crawl_latencies),
            },
            "map": {
                "ok": mapped["ok"],
                "count": mapped["payload"].get("count"),
                "get_version": _latency(map_latencies),
            },
        }


def flat(pages: int) -> dict[str, Any]:
    """A crawl of ``pages`` lean pages as one run: the server's resident memory at each tenth of the
    way."""
    samples: list[tuple[int, int]] = []
    with (
        _site() as port,
        tempfile.TemporaryDirectory(prefix="netglean-bench-frontier-") as data_dir,
        _server(data_dir) as (process, client),
    ):
        arguments = {
            "url": f"http://127.0.0.1:{port}/f/0",
            "max_pages": pages,
            "max_depth": 100,
            "max_chars": 100,
        }
        started = time.perf_counter()
        begun = _call(client, "crawl", {**arguments, "wait": False})

        def sample(run: dict[str, Any]) -> None:
            samples.append((run["done"], _memory(process.pid)[0]))

        run = _finished(client, begun["payload"]["run"]["run_id"], sample)
        seconds = time.perf_counter() - started
    marks = {}
    for tenth in range(1, 11):
        reached = [rss for done, rss in samples if done >= pages * tenth // 10]
        if reached:
            marks[f"{pages * tenth // 10}"] = round(reached[0] / 1024, 1)
    return {
        "pages": pages,
        "status": run["status"],
        "visited": run["done"],
        "seconds": round(seconds),
        "rss_mib_at": marks,
    }


def run(
    hostile_pages: int = 10, links: int = HOSTILE_LINKS, flat_pages: int = 100_000
) -> dict[str, Any]:
    return {"hostile": hostile(hostile_pages, links), "flat": flat(flat_pages)}


def show(figures: dict[str, Any]) -> None:
    hostile, flat = figures["hostile"], figures["flat"]
    crawl, mapped = hostile["crawl"], hostile["map"]
    print(f"\nfrontier: {crawl['pages']} pages of {hostile['links_a_page']:,} new links each")
    print(
        f"  crawl: server {crawl['server_rss_start_mib']} -> peak {crawl['server_peak_mib']} "
        f"MiB, store {crawl['store_mib']} MiB, {crawl['links_dropped'] or 0:,} links dropped; "
        f"get_version meanwhile median {crawl['get_version']['median_ms']} ms, max "
        f"{crawl['get_version']['max_ms']} ms"
    )
    print(
        f"  map of one page: get_version median {mapped['get_version']['median_ms']} ms, max "
        f"{mapped['get_version']['max_ms']} ms"
    )
    marks = ", ".join(f"{int(at):,}: {mib}" for at, mib in flat["rss_mib_at"].items())
    print(f"  a {flat['pages']:,}-page crawl ({flat['seconds']} s): server MiB at pages {marks}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--pages", type=int, default=100_000, help="pages of the flat crawl (100,000)"
    )
    parser.add_argument("--only", choices=["hostile", "flat"], help="run one part")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    if args.only in (None, "hostile"):
        results["hostile"] = hostile()
        print(json.dumps(results["hostile"], indent=2), flush=True)
    if args.only in (None, "flat"):
        results["flat"] = flat(args.pages)
        print(json.dumps(results["flat"], indent=2), flush=True)
    if len(results) == 2:
        show(results)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
