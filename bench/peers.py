"""netglean's engine cost against peers on the same loopback site and settings: CPU seconds a page.

Peers: Crawlberg (its Rust engine, as the Python package), crawl4ai and bare Playwright, driven by
bench/peers_worker.py in the benchmark's own environment (bench/.peers-venv, made with uv on first
use from the package registry), and Scrapy (bench/scrapy_crawl.py in bench/.scrapy-venv, as
bench.crawl runs it).

Rows (``--rows``, all by default):

- crawl: 2,000 lean pages breadth-first at concurrency 16 (netglean's crawl, Crawlberg's crawl,
  Scrapy's spider);
- batch: 500 news pages to markdown (netglean's batch_scrape, 100 URLs a call, main content;
  Crawlberg's batch_scrape, the whole page);
- map: a site's 5,000-URL sitemap (netglean's map, limit 5,000; Crawlberg's map_urls, map_limit
  5,000), ten maps a run;
- render: a single-page app's page, rendered warm (netglean's scrape with strategy browser;
  crawl4ai; a bare Playwright page), every answer holding the story the script fetched;
- first: the first browser call of a fresh server or process (netglean: 1 s after initialize, as an
  agent thinks; the peers: the call includes their import and launch).

Each row's sides run ``--runs`` times (5), the order alternating run by run, after one untimed warm-
up (except first). CPU is read from /proc for each side's whole process tree (the netglean server
with its reader processes and browser; the worker with its threads, driver and browser) around each
call; Scrapy reports its process's CPU from engine start to close (its whole process's in brackets).
Medians; ratio = netglean's CPU a page over the peer's. The site (a bare asyncio server in its own
process: headers and body in one write, no Nagle delay) adds no latency. ``--growth`` also crawls
200, 2,000 and 20,000 pages: time a page and the server tree's peak memory.

``uv run python -m bench.peers [--rows crawl,map] [--runs 5] [--growth]``; results to
bench/results/peers.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench/results/peers.json"
PEERS_VENV = ROOT / "bench/.peers-venv"
PEERS = ("crawlberg==1.12.0", "crawl4ai==0.9.5")
"""What the benchmark installs into its own environment."""
WORKER = ROOT / "bench/peers_worker.py"
WIDTH = 16
MAX_DEPTH = 10
MAX_CHARS = 3000
CRAWL_PAGES = 2000
BATCH_PAGES = 500
MAP_URLS = 5000
MAP_CALLS = 10
"""Maps a run (one takes a few tens of milliseconds, CPU time is counted in 10 ms ticks)."""
RENDER_PAGES = 10
_TICK = os.sysconf("SC_CLK_TCK")
_REQUEST = re.compile(rb"GET /(?:api/)?([\w.]*)/?(\d*)[ ?]")


# The site -----------------------------------------------------------------------------------------


def _body(path: bytes, number: bytes, size: int, port: int) -> bytes | None:
    from bench.site import lean_page, news_page, spa_page

    n = int(number) if number else -1
    if path == b"lean" and n >= 0:
        return lean_page(n, size)
    if path == b"news" and n >= 0:
        return news_page(n, size)
    if path == b"spa" and n >= 0:
        return spa_page(n)
    if path == b"story" and n >= 0:
        return lean_page(n, size)
    if path == b"robots.txt":
        return f"User-agent: *\nAllow: /\nSitemap: http://127.0.0.1:{port}/sitemap.xml\n".encode()
    if path == b"sitemap.xml":
        return _sitemap(port)
    return None


def _sitemap(port: int) -> bytes:
    urls = "".join(
        f"<url><loc>http://127.0.0.1:{port}/lean/{n}</loc></url>" for n in range(MAP_URLS)
    )
    spec = "http://www.sitemaps.org/schemas/sitemap/0.9"
    return f'<?xml version="1.0"?><urlset xmlns="{spec}">{urls}</urlset>'.encode()


async def _answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, size: int, port: int
) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    cache: dict[bytes, bytes] = {}
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            found = _REQUEST.match(head)
            key = found[0] if found else b""
            body = cache.get(key) or (_body(found[1], found[2], size, port) if found else None)
            if body is None:
                status, kind, body = b"404 Not Found", b"text/plain", b"not found"
            else:
                cache[key] = body
                status = b"200 OK"
                kind = (
                    b"application/xml"
                    if key.startswith(b"GET /sitemap")
                    else b"text/html; charset=utf-8"
                )
                kind = b"text/plain" if key.startswith(b"GET /robots") else kind
            writer.write(
                b"HTTP/1.1 " + status + b"\r\ncontent-type: " + kind
                + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )  # fmt: skip
            await writer.drain()
            if b"\nconnection: close" in head.lower():  # as the browser's policy proxy asks
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def serve(port: int, size: int) -> None:
    """The site, pages 0 to ``size``-1 of each family built before the port opens."""
    from bench.site import lean_page, news_page

    for n in range(size):
        lean_page(n, size)
    for n in range(BATCH_PAGES):
        news_page(n, size)

    async def main() -> None:
        server = await asyncio.start_server(
            lambda r, w: _answer(r, w, size, port), "127.0.0.1", port
        )
        await server.serve_forever()

    asyncio.run(main())


@contextmanager
def _site(size: int) -> Iterator[str]:
    from bench.http import _free_port

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.peers", "--serve", str(port), str(size)], cwd=ROOT
    )
    deadline = time.monotonic() + 120
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the bench site did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


# Measuring ----------------------------------------------------------------------------------------


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants (the living, and the ones they have reaped)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(value) for value in fields[11:15]) / _TICK
    tree, grown = {pid}, True
    while grown:
        grown = False
        for child, parent in parents.items():
            if parent in tree and child not in tree:
                tree.add(child)
                grown = True
    return sum(times.get(member, 0.0) for member in tree)


def tree_peak_mib(pid: int) -> float:
    """Peak resident memory of ``pid`` plus each living descendant's, in MiB (a bound)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        member = int(entry.name)
        while member > 1 and member != pid:
            try:
                member = int(Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                break
        if member == pid and "VmHWM" in fields:
            total += int(fields["VmHWM"].split()[0])
    return total / 1024


@dataclass(frozen=True, slots=True)
class Measured:
    items: int
    """Pages read (or URLs found, for map)."""
    cpu_s: float
    wall_s: float
    whole_cpu_s: float | None = None
    """Scrapy's whole process, start-up included."""


def _measure(pid: int, work: Callable[[], int]) -> Measured:
    cpu, started = tree_cpu(pid), time.perf_counter()
    items = work()
    wall = time.perf_counter() - started
    return Measured(items, tree_cpu(pid) - cpu, wall)


# The sides ----------------------------------------------------------------------------------------


def _with_bytecode() -> dict[str, str]:
    """This environment, less PYTHONDONTWRITEBYTECODE: a server keeps its compiled modules between
    starts, as an installed one does and as the peers' workers (run with -I) do; without them each
    fresh server compiles every module it imports, seconds of its first calls."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


class Netglean:
    """A netglean stdio server, politeness lifted as in bench.fetch, its own run store."""

    def __init__(self) -> None:
        from bench.fetch import LIFTED
        from bench.stdio import LineClient

        self._data = tempfile.TemporaryDirectory(prefix="netglean-bench-peers-")
        command = [sys.executable, "-m", "netglean", "mcp", *LIFTED, "--data-dir", self._data.name]
        self.client = LineClient(command, env=_with_bytecode())
        self.pid = self.client.pid

    def close(self) -> None:
        self.client.close()
        self._data.cleanup()

    def crawl(self, start: str, pages: int) -> Measured:
        def work() -> int:
            arguments = {
                "url": start,
                "max_pages": pages,
                "max_depth": MAX_DEPTH,
                "max_chars": MAX_CHARS,
            }
            payload = self.client.call("crawl", arguments)["structuredContent"]["payload"]
            return int(payload["read"])

        return _measure(self.pid, work)

    def batch(self, urls: list[str]) -> Measured:
        def work() -> int:
            read = 0
            for chunk in range(0, len(urls), 100):
                arguments = {"urls": urls[chunk : chunk + 100], "max_chars": 50000}
                payload = self.client.call("batch_scrape", arguments)["structuredContent"][
                    "payload"
                ]
                read += sum(
                    1 for entry in payload["results"] if entry["ok"] and entry["page"]["content"]
                )
            return read

        return _measure(self.pid, work)

    def map(self, url: str, calls: int) -> Measured:
        def work() -> int:
            arguments = {"url": url, "limit": MAP_URLS, "format": "json"}
            return sum(
                len(self.client.call("map", arguments)["structuredContent"]["payload"]["urls"])
                for _ in range(calls)
            )

        return _measure(self.pid, work)

    def render(self, urls: list[str], checks: list[str]) -> Measured:
        def work() -> int:
            found = 0
            for url, check in zip(urls, checks, strict=True):
                payload = self.client.call("scrape", {"url": url, "strategy": "browser"})[
                    "structuredContent"
                ]
                found += check in payload["payload"]["content"]
            return found

        return _measure(self.pid, work)


class Worker:
    """bench/peers_worker.py in the peers' environment: Crawlberg, crawl4ai, bare Playwright."""

    def __init__(self, python: Path) -> None:
        from netglean.browser.pool import find_browser

        command = [str(python), "-I", str(WORKER), find_browser("") or "chromium"]
        self._process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.pid = self._process.pid

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        answer: dict[str, Any] = json.loads(
            self._process.stdout.readline() or '{"error": "the worker died"}'
        )
        if "error" in answer:
            raise RuntimeError(f"{command['op']}: {answer['error']}")
        return answer

    def measured(self, key: str, **command: Any) -> Measured:
        return _measure(self.pid, lambda: int(self.ask(**command)[key]))

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def peers_python() -> Path:
    """The peers' environment's python: made with uv when missing, the pinned peers installed
    into it when they are not there."""
    python = PEERS_VENV / "bin/python"
    uv = shutil.which("uv")
    if uv is None:
        raise RuntimeError(f"the peers comparison needs uv to make {PEERS_VENV}")
    if not python.exists():
        subprocess.run(
            [uv, "venv", "--quiet", "--python", sys.executable, str(PEERS_VENV)], check=True
        )
    names = "('crawlberg', 'crawl4ai')"
    probe = f"import importlib.metadata as m; print(*(p + '==' + m.version(p) for p in {names}))"
    found = subprocess.run(
        [str(python), "-I", "-c", probe], capture_output=True, text=True, check=False
    )
    if found.stdout.split() != list(PEERS):
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", str(python), *PEERS], check=True
        )
    return python


def _scrapy(start: str, pages: int) -> Measured:
    from bench.crawl import SPIDER, scrapy_python

    with tempfile.TemporaryDirectory(prefix="bench-scrapy-") as folder:
        config = {
            "start": start,
            "host": "127.0.0.1",
            "pages": pages,
            "max_depth": MAX_DEPTH,
            "width": WIDTH,
            "max_chars": MAX_CHARS,
            "feed": (Path(folder) / "pages.jsonl").as_uri(),
        }
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [str(scrapy_python()), "-I", str(SPIDER), json.dumps(config)],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"the Scrapy crawl failed ({done.returncode}): {done.stderr[-600:]}")
    run = json.loads(done.stdout.splitlines()[-1])
    whole = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Measured(int(run["pages"]), float(run["engine_cpu_s"]), float(run["engine_s"]), whole)


# The rows -----------------------------------------------------------------------------------------


def _alternating(
    runs: int, sides: dict[str, Callable[[int], Measured]]
) -> dict[str, list[Measured]]:
    measured: dict[str, list[Measured]] = {name: [] for name in sides}
    for k in range(runs):
        order = list(sides) if k % 2 == 0 else list(reversed(sides))
        for name in order:
            measured[name].append(sides[name](k))
    return measured


def _row(measured: dict[str, list[Measured]], unit: str) -> dict[str, Any]:
    sides: dict[str, Any] = {}
    for name, runs in measured.items():
        if any(run.items == 0 for run in runs):
            raise RuntimeError(f"{name} read nothing in a run: {runs}")
        sides[name] = {
            "items": statistics.median(run.items for run in runs),
            "cpu_ms_per_" + unit: statistics.median(run.cpu_s / run.items for run in runs) * 1000,
            "wall_s": statistics.median(run.wall_s for run in runs),
            "cpu_s": statistics.median(run.cpu_s for run in runs),
        }
        if runs[0].whole_cpu_s is not None:
            sides[name]["whole_process_cpu_s"] = statistics.median(
                run.whole_cpu_s or 0.0 for run in runs
            )
    ours = sides["netglean"]["cpu_ms_per_" + unit]
    for name, side in sides.items():
        if name != "netglean":
            side["netglean_cpu_ratio"] = ours / side["cpu_ms_per_" + unit]
            side["netglean_wall_ratio"] = sides["netglean"]["wall_s"] / side["wall_s"]
    return {"unit": unit, "sides": sides}


def crawl_row(python: Path, runs: int, pages: int = CRAWL_PAGES) -> dict[str, Any]:
    size = pages * 5 // 4  # breadth-first from any page reaches that many
    with _site(size) as origin:
        server, worker = Netglean(), Worker(python)
        try:
            server.crawl(f"{origin}/lean/{size - 1}", pages)
            worker.ask(
                op="crawlberg_crawl",
                start=f"{origin}/lean/{size - 1}",
                pages=pages,
                width=WIDTH,
                max_depth=10,
            )
            _scrapy(f"{origin}/lean/{size - 1}", 10)  # its first run compiles its bytecode

            def crawlberg(k: int) -> Measured:
                start = f"{origin}/lean/{k}"
                return worker.measured(
                    "pages",
                    op="crawlberg_crawl",
                    start=start,
                    pages=pages,
                    width=WIDTH,
                    max_depth=10,
                )

            measured = _alternating(
                runs,
                {
                    "netglean": lambda k: server.crawl(f"{origin}/lean/{k}", pages),
                    "crawlberg": crawlberg,
                    "scrapy": lambda k: _scrapy(f"{origin}/lean/{k}", pages),
                },
            )
        finally:
            server.close()
            worker.close()
    return {"pages": pages, "width": WIDTH} | _row(measured, "page")


def batch_row(python: Path, runs: int, pages: int = BATCH_PAGES) -> dict[str, Any]:
    with _site(1000) as origin:
        urls = [f"{origin}/news/{n}" for n in range(pages)]
        server, worker = Netglean(), Worker(python)
        try:
            server.batch(urls[:100])
            worker.ask(op="crawlberg_batch", urls=urls[:100], width=WIDTH, check="Article")
            measured = _alternating(
                runs,
                {
                    "netglean": lambda k: server.batch(urls),
                    "crawlberg": lambda k: worker.measured(
                        "pages", op="crawlberg_batch", urls=urls, width=WIDTH, check="Article"
                    ),
                },
            )
        finally:
            server.close()
            worker.close()
    return {"pages": pages} | _row(measured, "page")


def map_row(python: Path, runs: int) -> dict[str, Any]:
    with _site(1000) as origin:
        server, worker = Netglean(), Worker(python)
        try:
            server.map(f"{origin}/lean/0", 1)
            worker.ask(op="crawlberg_map", url=f"{origin}/lean/0", limit=MAP_URLS, calls=1)
            measured = _alternating(
                runs,
                {
                    "netglean": lambda k: server.map(f"{origin}/lean/{k}", MAP_CALLS),
                    "crawlberg": lambda k: worker.measured(
                        "urls",
                        op="crawlberg_map",
                        url=f"{origin}/lean/{k}",
                        limit=MAP_URLS,
                        calls=MAP_CALLS,
                    ),
                },
            )
        finally:
            server.close()
            worker.close()
    return {"sitemap_urls": MAP_URLS, "calls_a_run": MAP_CALLS} | _row(measured, "url")


def _story(n: int) -> str:
    return f"Article {n}:"


def render_row(python: Path, runs: int, pages: int = RENDER_PAGES) -> dict[str, Any]:
    with _site(1000) as origin:
        server, worker = Netglean(), Worker(python)

        def batch(k: int) -> tuple[list[str], list[str]]:
            numbers = range(k * pages + 1, (k + 1) * pages + 1)
            return [f"{origin}/spa/{n}" for n in numbers], [_story(n) for n in numbers]

        def peer(op: str) -> Callable[[int], Measured]:
            def side(k: int) -> Measured:
                def work() -> int:
                    found = 0
                    for url, check in zip(*batch(k), strict=True):
                        found += int(worker.ask(op=op, url=url, check=check)["pages"])
                    return found

                return _measure(worker.pid, work)

            return side

        try:
            server.render([f"{origin}/spa/0"], [_story(0)])
            for op in ("crawl4ai_render", "playwright_render"):
                worker.ask(op=op, url=f"{origin}/spa/0", check=_story(0))
            measured = _alternating(
                runs,
                {
                    "netglean": lambda k: server.render(*batch(k)),
                    "crawl4ai": peer("crawl4ai_render"),
                    "playwright": peer("playwright_render"),
                },
            )
        finally:
            server.close()
            worker.close()
    return {"pages": pages} | _row(measured, "page")


def first_row(python: Path, runs: int) -> dict[str, Any]:
    with _site(1000) as origin:

        def netglean(k: int) -> Measured:
            server = Netglean()
            try:
                time.sleep(1.0)
                return server.render([f"{origin}/spa/{k}"], [_story(k)])
            finally:
                server.close()

        def peer(op: str) -> Callable[[int], Measured]:
            def side(k: int) -> Measured:
                worker = Worker(python)
                try:
                    time.sleep(1.0)
                    return worker.measured("pages", op=op, url=f"{origin}/spa/{k}", check=_story(k))
                finally:
                    worker.close()

            return side

        measured = _alternating(
            runs,
            {
                "netglean": netglean,
                "crawl4ai": peer("crawl4ai_render"),
                "playwright": peer("playwright_render"),
                "crawlberg": peer("crawlberg_render"),
            },
        )
    return _row(measured, "call")


def growth(sizes: tuple[int, ...] = (200, 2000, 20000)) -> dict[str, Any]:
    """netglean's crawl of each size of lean pages on a fresh server: time a page and the peak
    memory of its process tree."""
    rows: dict[str, Any] = {}
    for pages in sizes:
        with _site(pages * 5 // 4) as origin:
            server = Netglean()
            try:
                measured = server.crawl(f"{origin}/lean/0", pages)
                peak = tree_peak_mib(server.pid)
            finally:
                server.close()
        rows[str(pages)] = {
            "read": measured.items,
            "wall_ms_per_page": measured.wall_s / measured.items * 1000,
            "cpu_ms_per_page": measured.cpu_s / measured.items * 1000,
            "peak_mib": peak,
        }
    return rows


ROWS: dict[str, Callable[[Path, int], dict[str, Any]]] = {
    "crawl": crawl_row,
    "batch": batch_row,
    "map": map_row,
    "render": render_row,
    "first": first_row,
}


def show(figures: dict[str, Any]) -> None:
    print(
        f"\nnetglean against peers (medians of {figures['runs']} alternating runs; CPU of "
        "process trees)"
    )
    header = f"{'row':<8}{'side':<12}{'items':>7}{'CPU ms/item':>13}"
    print(header + f"{'wall s':>9}{'CPU ratio':>11}{'wall ratio':>12}")
    for row, found in figures["rows"].items():
        unit = found["unit"]
        for name, side in found["sides"].items():
            ratio = f"{side['netglean_cpu_ratio']:.2f}x" if "netglean_cpu_ratio" in side else ""
            wall = f"{side['netglean_wall_ratio']:.2f}x" if "netglean_wall_ratio" in side else ""
            whole = (
                f" ({side['whole_process_cpu_s']:.1f} s whole)"
                if "whole_process_cpu_s" in side
                else ""
            )
            print(
                f"{row:<8}{name:<12}{side['items']:>7.0f}{side['cpu_ms_per_' + unit]:>13.3f}"
                f"{side['wall_s']:>9.2f}{ratio:>11}{wall:>12}{whole}"
            )
    if "growth" in figures:
        print("\ngrowth: netglean crawl of lean pages, fresh server")
        for pages, row in figures["growth"].items():
            print(
                f"  {int(pages):>6} pages: {row['wall_ms_per_page']:.2f} ms/page wall, "
                f"{row['cpu_ms_per_page']:.2f} ms/page CPU, peak {row['peak_mib']:.0f} MiB (tree)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", default=",".join(ROWS), help="comma-separated rows (default: all)"
    )
    parser.add_argument("--runs", type=int, default=5, help="alternating runs a row (5)")
    parser.add_argument(
        "--growth", action="store_true", help="also the 200/2,000/20,000-page growth table"
    )
    parser.add_argument(
        "--serve", nargs=2, type=int, metavar=("PORT", "SIZE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return
    unknown = set(args.rows.split(",")) - set(ROWS)
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))} (known: {', '.join(ROWS)})")
    python = peers_python()
    figures: dict[str, Any] = {"runs": args.runs, "rows": {}}
    for row in args.rows.split(","):
        figures["rows"][row] = ROWS[row](python, args.runs)
        print(json.dumps({row: figures["rows"][row]}), flush=True)
    if args.growth:
        figures["growth"] = growth()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    show(figures)


if __name__ == "__main__":
    main()
