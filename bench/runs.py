"""Background runs (issue 14): what a crawl working as a run costs, against the call and the engine
it wraps.

1. handle: ``crawl`` with ``wait`` false answers with its run at once; ms from the call to that
   answer, against a plain synchronous call of the same server (get_version, and scrape of one lean
   page), over stdio.
2. throughput: a crawl of ``pages`` pages as a run over stdio (``wait`` false, then get_run_status
   until it has finished), against the same engine (netglean.scraping.crawl.crawl) called in-process
   with a MemoryJournal, a fetcher and readers built from the same settings and the plan the handler
   builds: no store, no MCP.
3. memory: the server's peak resident memory (VmHWM) after a small and a large crawl run, each on a
   fresh server, and its reader processes' apart: pages go to the store, so it should not grow with
   the crawl.
4. store: visit rows per second that SqliteStore.visited takes (a ~3 KB body and five links each,
   one after another as a crawl writes them), and the database's size per 1,000 visits.

Each server runs with politeness lifted (bench.fetch.LIFTED) and its own fresh ``--data-dir``. Both
sides of a comparison take turns pair by pair, the order swapped each pair, so the machine's noise
hits them alike.

The site is bench.site with twice as many pages a family as the largest crawl visits (``python -m
bench.site PORT SIZE --prebuild``), so every crawl finds as many pages as it asks for. Its pages are
built before its port opens, so no crawl pays for building one (a news page takes about 2 ms), and
each page's canonical URL is its own (/news/n; lean pages declare none), so no page a crawl reads is
set aside as another's duplicate.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import anyio

from bench.fetch import LIFTED
from bench.http import _free_port
from bench.site import WORDS
from bench.stdio import LineClient

ROOT = Path(__file__).resolve().parent.parent
POLL = 0.05
"""Seconds between two get_run_status calls while a run is followed."""


@contextmanager
def _site(size: int) -> Iterator[int]:
    """bench.site of ``size`` pages a family, every page built first, on a free port while the with
    block lasts."""
    port = _free_port()
    command = [sys.executable, "-m", "bench.site", str(port), str(size), "--prebuild"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300  # building 2 x size pages first, on a busy machine
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the benchmark site ({size} pages a family) did not start"
                    ) from None
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(10)


def _settings_of(flags: list[str]) -> dict[str, Any]:
    """The settings that command-line ``flags`` give (a boolean flag alone is true), for an
    in-process side."""
    from netglean.core.settings import SETTINGS

    by_flag = {setting.flag: setting for setting in SETTINGS}
    values: dict[str, Any] = {}
    words = iter(flags)
    for flag in words:
        setting = by_flag[flag]
        values[setting.name] = True if setting.kind is bool else setting.parse(next(words), flag)
    return values


class _Client(LineClient):
    @property
    def pid(self) -> int:
        """The server's process id, to read its memory from /proc."""
        return self._process.pid


@contextmanager
def _server() -> Iterator[_Client]:
    """A stdio server with politeness lifted and a fresh run store of its own."""
    with tempfile.TemporaryDirectory(prefix="netglean-bench-runs-") as data_dir:
        client = _Client([sys.executable, "-m", "netglean", "mcp", *LIFTED, "--data-dir", data_dir])
        try:
            yield client
        finally:
            client.close()


def _payload(result: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = result["structuredContent"]["payload"]
    return payload


def _finished(client: LineClient, run_id: str) -> dict[str, Any]:
    """The run's status once it has finished, looked at every POLL seconds."""
    while True:
        run: dict[str, Any] = _payload(client.call("get_run_status", {"run_id": run_id}))["run"]
        if run["status"] not in ("queued", "running"):
            return run
        time.sleep(POLL)


def _arguments(url: str, pages: int) -> dict[str, Any]:
    return {"url": url, "max_pages": pages, "max_depth": 10, "max_chars": 3000}


def _timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def handle(port: int, pairs: int) -> dict[str, Any]:
    """Milliseconds from a call to its answer: crawl with wait false (the run's handle),
    get_version, scrape."""
    page = f"http://127.0.0.1:{port}/lean/0"
    times: dict[str, list[float]] = {"crawl_handle": [], "get_version": [], "scrape": []}
    with _server() as client:
        started: list[str] = []

        def start_run() -> None:
            answer = _payload(client.call("crawl", {**_arguments(page, 1), "wait": False}))
            started.append(answer["run"]["run_id"])

        calls: dict[str, Callable[[], Any]] = {
            "crawl_handle": start_run,
            "get_version": lambda: client.call("get_version", {}),
            "scrape": lambda: client.call("scrape", {"url": page, "max_chars": 3000}),
        }
        for call in calls.values():  # each tool's first call builds it: untimed
            call()
        for pair in range(pairs):
            names = list(calls)
            names = names[pair % len(names) :] + names[: pair % len(names)]
            for name in names:
                times[name].append(_timed(calls[name]))
                # the run reads its page in the background: let it end before the next call
                if started:
                    _finished(client, started.pop())
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    return {
        "pairs": pairs,
        **{f"{name}_ms": value for name, value in medians.items()},
        "handle_to_get_version": medians["crawl_handle"] / medians["get_version"],
        "handle_to_scrape": medians["crawl_handle"] / medians["scrape"],
    }


def _crawl_run(client: LineClient, url: str, pages: int) -> tuple[float, int, int]:
    """Seconds from the call that starts a crawl run (wait false) until get_run_status sees it
    succeeded, the URLs it visited, and the pages it read."""
    started = time.perf_counter()
    answer = _payload(client.call("crawl", {**_arguments(url, pages), "wait": False}))
    run = _finished(client, answer["run"]["run_id"])
    elapsed = time.perf_counter() - started
    if run["status"] != "succeeded":
        raise RuntimeError(f"the crawl run ended {run['status']}: {json.dumps(run)[:300]}")
    read = client.call("get_run_result", {"run_id": run["run_id"], "per_page": 1})
    return elapsed, run["done"], _payload(read)["result"]["read"]


class _Engine:
    """The crawl engine as the handler calls it, in this process: the same settings, fetcher,
    readers and plan, with a MemoryJournal for the store."""

    def __init__(self) -> None:
        from netglean.core.settings import Settings
        from netglean.net.fetcher import Fetcher
        from netglean.net.policy import FetchPolicy
        from netglean.net.politeness import SessionBudgets
        from netglean.workers.pool import Readers, worker_count

        self.settings = Settings.load(_settings_of(LIFTED))
        self._base = Fetcher(FetchPolicy.from_settings(self.settings))
        self.fetcher = self._base.spending(
            SessionBudgets(self.settings.session_budget).for_session("bench")
        )
        self.readers = Readers(worker_count(self.settings.read_workers))

    async def crawl(self, url: str, pages: int) -> tuple[float, int, int]:
        """Seconds for the engine's crawl of ``pages`` from ``url``, the URLs it visited, and the
        pages it read."""
        from netglean.generated.models import CrawlInput
        from netglean.scraping.crawl import MemoryJournal, crawl
        from netglean.scraping.crawl_run import crawl_plan
        from netglean.scraping.operator_limits import concurrency, robots_fetcher

        async def report(visited: int, most: int, url: str) -> None:
            return None

        self.readers.start()
        started = time.perf_counter()
        args = CrawlInput.model_validate(_arguments(url, pages))
        fetcher = robots_fetcher(self.fetcher, args.respect_robots_txt)
        plan = crawl_plan(args, width=concurrency(None, self.fetcher, most=args.max_pages))
        result = await crawl(
            fetcher, self.readers, args.url, plan, journal=MemoryJournal(), report=report
        )
        return time.perf_counter() - started, result.visited, result.read

    async def aclose(self) -> None:
        self.readers.close()
        await self._base.aclose()


class _Pass(NamedTuple):
    seconds: float
    visited: int
    read: int
    cpu: float
    """CPU seconds of the process that crawled and its reader processes."""


def _cpu(pids: list[int]) -> float:
    """CPU seconds (user and system) the processes ``pids`` have used."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def _counted(
    pids: list[int],
    crawl: Callable[[str, int], Awaitable[tuple[float, int, int]]],
    url: str,
    pages: int,
) -> _Pass:
    before = _cpu(pids)
    seconds, visited, read = await crawl(url, pages)
    return _Pass(seconds, visited, read, _cpu(pids) - before)


def throughput(port: int, pages: int, repeats: int, families: tuple[str, ...]) -> dict[str, Any]:
    """pages/s of a crawl run over stdio and of the engine in-process, family by family (medians of
    ``repeats``, each pass from another start page, so each reads other pages first), and the CPU
    each spends a page (the server and its readers; this process and its readers): on a shared
    machine, the figure noise moves least."""

    async def measure(family: str) -> dict[str, Any]:
        others = set(_children(os.getpid()))  # the site
        engine = _Engine()
        runs: list[_Pass] = []
        engines: list[_Pass] = []
        try:
            with _server() as client:
                # each side's first crawl, untimed, from a page no timed pass starts at
                warm = f"http://127.0.0.1:{port}/{family}/{repeats}"
                await anyio.to_thread.run_sync(_crawl_run, client, warm, 200)
                await engine.crawl(warm, 200)  # its readers start here
                server = [client.pid, *_children(client.pid)]
                own = [
                    os.getpid(),
                    *(pid for pid in _children(os.getpid()) if pid not in {*others, client.pid}),
                ]

                async def on_server(url: str, pages: int) -> tuple[float, int, int]:
                    return await anyio.to_thread.run_sync(_crawl_run, client, url, pages)

                for k in range(repeats):
                    url = f"http://127.0.0.1:{port}/{family}/{k}"
                    for side in ("run", "engine") if k % 2 == 0 else ("engine", "run"):
                        if side == "run":
                            runs.append(await _counted(server, on_server, url, pages))
                        else:
                            engines.append(await _counted(own, engine.crawl, url, pages))
        finally:
            await engine.aclose()
        for label, passes in (("run", runs), ("engine", engines)):
            for one in passes:
                if one.visited < pages or one.read < pages * 0.9:
                    raise RuntimeError(
                        f"{family} {label} crawl visited {one.visited} URLs, read {one.read} of "
                        f"{pages}"
                    )
        run_rate = statistics.median(one.visited / one.seconds for one in runs)
        engine_rate = statistics.median(one.visited / one.seconds for one in engines)
        run_cpu = statistics.median(one.cpu / one.visited * 1000 for one in runs)
        engine_cpu = statistics.median(one.cpu / one.visited * 1000 for one in engines)
        return {
            "run_pages_per_s": run_rate,
            "engine_pages_per_s": engine_rate,
            "run_to_engine": run_rate / engine_rate,
            "run_cpu_ms_per_page": run_cpu,
            "engine_cpu_ms_per_page": engine_cpu,
            "cpu_engine_to_run": engine_cpu / run_cpu,
            "read": statistics.median(one.read for one in runs),
        }

    async def every() -> dict[str, Any]:
        return {family: await measure(family) for family in families}

    return {"pages": pages, "repeats": repeats, "families": anyio.run(every)}


def _kilobytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _peak(client: _Client, port: int, pages: int) -> dict[str, float]:
    """MB: the server's resident memory before its crawl and its peak (VmHWM) after it, and its
    reader processes' peaks summed (sampled while the run goes, as they may be replaced)."""
    pid = client.pid
    idle = _kilobytes(pid, "VmRSS")
    answer = _payload(
        client.call(
            "crawl", {**_arguments(f"http://127.0.0.1:{port}/news/0", pages), "wait": False}
        )
    )
    workers: dict[int, int] = {}
    while True:
        for child in _children(pid):
            try:
                workers[child] = max(workers.get(child, 0), _kilobytes(child, "VmHWM"))
            except FileNotFoundError:  # it ended between the listing and the read
                continue
        run = _payload(client.call("get_run_status", {"run_id": answer["run"]["run_id"]}))["run"]
        if run["status"] not in ("queued", "running"):
            break
        time.sleep(POLL)
    if run["status"] != "succeeded" or run["done"] < pages:
        raise RuntimeError(
            f"the {pages}-page crawl run ended {run['status']} after {run['done']} URLs"
        )
    return {
        "idle_mb": idle / 1024,
        "server_peak_mb": _kilobytes(pid, "VmHWM") / 1024,
        "workers": len(workers),
        "workers_peak_mb": sum(workers.values()) / 1024,
    }


def memory(port: int, sizes: tuple[int, int], repeats: int) -> dict[str, Any]:
    """Peak resident memory of a fresh server crawling ``sizes[0]`` and ``sizes[1]`` news pages as a
    run."""
    samples: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
    for k in range(repeats):
        for size in sizes if k % 2 == 0 else sizes[::-1]:
            with _server() as client:
                # the server builds its tools and starts its readers once it has been quiet
                time.sleep(3.0)
                samples[size].append(_peak(client, port, size))
    small, large = (
        {key: statistics.median(s[key] for s in samples[size]) for key in samples[size][0]}
        for size in sizes
    )
    return {
        "sizes": list(sizes),
        "repeats": repeats,
        "small": small,
        "large": large,
        "server_ratio": large["server_peak_mb"] / small["server_peak_mb"],
        "with_workers_ratio": (large["server_peak_mb"] + large["workers_peak_mb"])
        / (small["server_peak_mb"] + small["workers_peak_mb"]),
    }


def _visit_body(n: int) -> dict[str, Any]:
    """A stored visit as a crawl of max_chars 3000 keeps it: a CrawlVisit's JSON of about 3.7 KB
    (this site's are 3.5 KB for a lean page, 4.4 KB for a news page)."""
    words = " ".join(WORDS[(n + i) % len(WORDS)] for i in range(480))[:3000]
    url = f"http://127.0.0.1:8000/news/{n}"
    return {
        "url": url,
        "depth": 2,
        "ok": True,
        "page": {
            "url": url,
            "final_url": url,
            "status": 200,
            "format": "markdown",
            "content": words,
            "start_index": 0,
            "total_chars": 9120,
            "truncated": True,
            "bytes": 66210,
            "title": f"Article {n}: Tide moon ocean current harbour vessel coast storm",
            "metadata": {
                "title": f"Article {n}: Tide moon ocean current harbour vessel coast storm",
                "description": "Harbour vessel coast storm wave reef salt depth chart signal "
                "beacon keel anchor.",
                "language": "en",
                "canonical_url": url,
                "author": f"Reporter {n % 17}",
                "published": "2026-03-14T08:00:00Z",
                "site_name": "Tidewater Gazette",
            },
        },
    }


async def _store_pass(visits: int, batch: int) -> tuple[float, int, int]:
    """Seconds for ``visits`` visits written ``batch`` at a time (as a crawl's journal writer takes
    them: one when the store keeps up, up to JOURNAL_BACKLOG when it lags) to a fresh store, the
    database's bytes added by them, and the bytes of their bodies as JSON."""
    from netglean.store.base import Queued, Visited
    from netglean.store.sqlite import FILE_NAME, SqliteStore

    with tempfile.TemporaryDirectory(prefix="netglean-bench-store-") as folder:
        store = SqliteStore.open(Path(folder))
        await store.create(
            "0" * 32, "crawl", {"url": "http://127.0.0.1:8000/news/0"}, None, "bench"
        )
        store.close()  # the size of a store that holds one run and no visit, its WAL folded in
        empty = (Path(folder) / FILE_NAME).stat().st_size
        store = SqliteStore.open(Path(folder))
        bodies = [_visit_body(n) for n in range(visits)]
        kept = [
            Visited(
                n,
                body,
                read=True,
                failed=False,
                canonical=body["url"],
                url=body["url"],
                links=[
                    Queued(5 * n + k + 1, f"http://127.0.0.1:8000/news/{5 * n + k + 1}", 3)
                    for k in range(5)
                ],
            )
            for n, body in enumerate(bodies)
        ]
        started = time.perf_counter()
        for first in range(0, len(kept), batch):
            await store.record_visits("0" * 32, 0, kept[first : first + batch])
        elapsed = time.perf_counter() - started
        store.close()
        size = (Path(folder) / FILE_NAME).stat().st_size - empty
    return elapsed, size, sum(len(json.dumps(body, ensure_ascii=False)) for body in bodies)


def store(visits: int, repeats: int) -> dict[str, Any]:
    from netglean.scraping.crawl import JOURNAL_BACKLOG

    passes = [anyio.run(_store_pass, visits, 1) for _ in range(repeats)]
    batched = [anyio.run(_store_pass, visits, JOURNAL_BACKLOG)[0] for _ in range(repeats)]
    seconds, size, body = statistics.median(p[0] for p in passes), passes[0][1], passes[0][2]
    return {
        "visits": visits,
        "repeats": repeats,
        "rows_per_s": visits / seconds,
        "batch": JOURNAL_BACKLOG,
        "batched_rows_per_s": visits / statistics.median(batched),
        "ms_per_row": seconds / visits * 1000,
        "body_bytes": body / visits,
        "mb_per_1000_visits": size / visits * 1000 / 1e6,
        "size_to_body": size / body,
    }


def run(
    *,
    pages: int = 2000,
    repeats: int = 5,
    handle_pairs: int = 100,
    memory_sizes: tuple[int, int] = (200, 2000),
    memory_repeats: int = 3,
    store_visits: int = 5000,
    families: tuple[str, ...] = ("news", "lean"),
) -> dict[str, Any]:
    largest = max(pages, *memory_sizes)
    with _site(2 * largest) as port:
        figures = {
            "handle": handle(port, handle_pairs),
            "throughput": throughput(port, pages, repeats, families),
            "memory": memory(port, memory_sizes, memory_repeats),
        }
    figures["store"] = store(store_visits, repeats)
    return figures


def show(r: dict[str, Any]) -> None:
    """The figures of ``run`` as bench.run's table prints them."""
    h, t, m, s = r["handle"], r["throughput"], r["memory"], r["store"]
    print(f"\nbackground runs over stdio (medians of {h['pairs']} calls each)")
    print(
        f"  crawl wait:false -> run handle {h['crawl_handle_ms']:.1f} ms; get_version "
        f"{h['get_version_ms']:.1f} ms ({h['handle_to_get_version']:.2f}x); scrape of one page "
        f"{h['scrape_ms']:.1f} ms ({h['handle_to_scrape']:.2f}x)"
    )
    print(
        f"  crawl of {t['pages']} pages as a run against the engine in-process (medians of "
        f"{t['repeats']})"
    )
    for family, row in t["families"].items():
        print(
            f"    {family:<6} run {row['run_pages_per_s']:>6.0f} pages/s; engine "
            f"{row['engine_pages_per_s']:>6.0f} pages/s -> run/engine "
            f"{row['run_to_engine']:.2f}; CPU a page: run {row['run_cpu_ms_per_page']:.2f} ms, "
            f"engine {row['engine_cpu_ms_per_page']:.2f} ms -> engine/run "
            f"{row['cpu_engine_to_run']:.2f}"
        )
    small, large = m["small"], m["large"]
    print(
        f"  server memory, a fresh server per crawl run of news pages (medians of {m['repeats']})"
    )
    for size, row in zip(m["sizes"], (small, large), strict=True):
        print(
            f"    {size:>6} pages: server peak {row['server_peak_mb']:>6.1f} MB (idle "
            f"{row['idle_mb']:.1f} MB); {row['workers']:.0f} reader process(es) "
            f"{row['workers_peak_mb']:.1f} MB"
        )
    print(
        f"    large/small: server {m['server_ratio']:.2f}x; with its readers "
        f"{m['with_workers_ratio']:.2f}x"
    )
    print(
        f"  store: {s['rows_per_s']:.0f} visit rows/s one a write ({s['ms_per_row']:.2f} ms "
        f"each), {s['batched_rows_per_s']:.0f} rows/s {s['batch']} a write; "
        f"{s['body_bytes'] / 1024:.1f} KB bodies, {s['mb_per_1000_visits']:.2f} MB per 1,000 "
        f"visits ({s['size_to_body']:.2f}x the bodies)"
    )


if __name__ == "__main__":
    show(run())
