"""Runs handed to `netglean worker` processes: enqueue → start latency, at rest and with 1,000 runs
queued at once. One command: `uv run python -m bench.workers` (a throwaway PostgreSQL cluster,
dev/postgresql, unless --postgresql names a server).

A `netglean serve --run-workers` and WORKERS workers (concurrency 4 each) share one store; each run
is a crawl of one page of a loopback site (tests/support/run_site.py), so what is measured is the
queue's and the store's part, not the page's.

1. at rest: a run is started (REST, ``wait`` false) with nothing else queued; latency is from the
   moment before the call to the run's ``started_at`` (the worker's claim), median of ``repeats``.
2. with 1,000 queued: 1,000 runs are started at once by 50 clients; each run's latency is from its
   ``created_at`` to its ``started_at`` (its wait behind the others: the queue drains at the
   workers' pace); median, 90th percentile and the most, with the drain's runs per second and the
   REST call's own median under the 50 clients.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.store import _cluster
from tests.support.polling import until
from tests.support.run_site import serve_run_site
from tests.support.workers import (
    WorkerProcess,
    dispatching_server,
    fleet_env,
    query,
    run_of,
    start,
)

RESULTS = Path(__file__).resolve().parent / "results"
WORKERS = 2
POLICY = ("--allow-private-hosts", "--host-interval", "0", "--session-budget", "100000000")
LIMITS = ("--max-client-calls", "100", "--max-concurrent-calls", "64")


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def _at_rest(server: Any, port: int, repeats: int) -> list[float]:
    latencies = []
    for n in range(repeats):
        asked = time.time()
        run_id = start(server, "crawl", {"url": f"http://127.0.0.1:{port}/tree/{n + 1}/0"})
        run = until(
            lambda run_id=run_id: (r := run_of(server, run_id)).get("started_at") and r,
            "the run to start",
            120,
        )
        latencies.append(_epoch(run["started_at"]) - asked)
        until(lambda run_id=run_id: run_of(server, run_id)["status"] == "succeeded", "its end", 120)
    return latencies


def _queued(server: Any, store: str, port: int, count: int, before: int) -> dict[str, float]:
    calls: list[float] = []

    def queue(n: int) -> str:
        asked = time.monotonic()
        run_id = start(server, "crawl", {"url": f"http://127.0.0.1:{port}/tree/{100_000 + n}/0"})
        calls.append(time.monotonic() - asked)
        return run_id

    began = time.monotonic()
    with ThreadPoolExecutor(50) as clients:
        list(clients.map(queue, range(count)))
    ended = "SELECT count(*) FROM runs WHERE tool = 'crawl' AND status = 'succeeded'"
    until(lambda: query(store, ended)[0][0] >= before + count, "the queue to drain", 1800)
    drained = time.monotonic() - began
    rows = query(
        store,
        "SELECT started_at - created_at FROM runs WHERE arguments::text LIKE %s",
        ('%/tree/1_____/0"%',),
    )
    waits = sorted(float(row[0]) for row in rows)
    return {
        "runs": len(waits),
        "median_s": statistics.median(waits),
        "p90_s": waits[int(len(waits) * 0.9)],
        "most_s": waits[-1],
        "drain_runs_per_s": count / drained,
        "rest_call_median_s": statistics.median(calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgresql", default="", help="a server's URL (default: a throwaway)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--queued", type=int, default=1000)
    arguments = parser.parse_args()
    with _cluster(arguments.postgresql) as url, serve_run_site() as (_, port), ExitStack() as stack:
        import psycopg

        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("DROP SCHEMA IF EXISTS bench_workers CASCADE")
            admin.execute("CREATE SCHEMA bench_workers")
        store = f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3Dbench_workers"
        server = stack.enter_context(dispatching_server(store, *POLICY, *LIMITS))
        for _ in range(WORKERS):
            stack.enter_context(WorkerProcess(*POLICY, "--concurrency", "4", env=fleet_env(store)))
        rest = _at_rest(server, port, arguments.repeats)
        # the queued runs are told apart from the first ones by their tree's size (100,000 on)
        queued = _queued(server, store, port, arguments.queued, arguments.repeats)
    report = {
        "workers": WORKERS,
        "concurrency_each": 4,
        "at_rest": {
            "repeats": arguments.repeats,
            "median_s": statistics.median(rest),
            "least_s": min(rest),
            "most_s": max(rest),
        },
        "with_queued": queued,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "workers.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
