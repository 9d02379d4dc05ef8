"""One crawl, many workers: pages/s of a 5,000-page crawl with 1, 2 and 4 worker processes joining
it on PostgreSQL, against the same crawl embedded (one process, the SQLite default).

The site (tests/support/fleet.py's FleetSite) is on HOSTS loopback hosts (127.0.0.2 onwards, a bare
asyncio server in a thread of this process: TCP_NODELAY, headers and body in one write, so it adds
no latency of its own); page n links pages 10n+1 to 10n+10, spread over the hosts. Politeness is
small but real: each host's requests start INTERVAL apart, PER_HOST at once at most, for the whole
fleet (the FleetLimiter over the store) or for the one process (the embedded HostLimiter). Each
worker reads WIDTH pages at once, in threads of its own process (Readers(0)), and keeps each visit
as the crawl tool does (the page's markdown, in the run's items).

Each worker is a process (``python -m tests.support.fleet``); the clock starts once every worker
has opened the store and ends when the last has left (the frontier exhausted), so interpreter
start-up is left out. CPU seconds per page: the workers' own (their rusage) and the PostgreSQL
server's (its processes', the postmaster's reaped backends included). PostgreSQL is
NETGLEAN_TEST_POSTGRESQL's server, or a throwaway cluster (dev/postgresql). Medians of REPEATS runs
per configuration, each a new run (and a new schema or folder).

Run alone: ``uv run python -m bench.fleet [--pages N] [--repeats N]``; results go to
``bench/results/fleet.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from tests.support.fleet import FleetSite
from tests.support.stores import RUN, open_store, postgresql_url

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench/results/fleet.json"
HOSTS = 4
INTERVAL = 0.005
PER_HOST = 4
WIDTH = 16
WORKERS = (1, 2, 4)


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def _postgres_cpu(data_directory: str) -> float:
    """CPU seconds the PostgreSQL server has used: its live processes' and the backends it reaped
    (the postmaster's children time)."""
    postmaster = int((Path(data_directory) / "postmaster.pid").read_text().split()[0])
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / _ticks()


def _one(workers: int, pages: int, folder: Path, postgresql: bool) -> dict[str, Any]:
    store = open_store("postgresql" if postgresql else "sqlite", folder)
    anyio.run(lambda: store.create(RUN, "crawl", {}, None, ""))
    data_directory = ""
    if postgresql:
        import psycopg

        with psycopg.connect(postgresql_url(folder, fresh=False)) as db:
            row = db.execute("SHOW data_directory").fetchone()
            data_directory = str(row[0]) if row else ""
    store.close()
    target = postgresql_url(folder, fresh=False) if postgresql else str(folder)
    site = FleetSite(pages=pages, hosts=HOSTS)
    environment = {**os.environ, "NETGLEAN_FLEET_WAIT": "1"}
    with site.serving():
        command = [sys.executable, "-m", "tests.support.fleet", target, RUN, site.url(0)]
        limits = [str(pages), str(INTERVAL), str(PER_HOST), str(WIDTH)]
        children = [
            subprocess.Popen(
                [*command, *limits, f"w{n}", "60"],
                cwd=ROOT,
                env=environment,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(workers)
        ]
        for child in children:
            assert child.stdout is not None and child.stdout.readline() == "joined\n"
        server_before = _postgres_cpu(data_directory) if postgresql else 0.0
        started = time.perf_counter()
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.close()
        cpu = 0.0
        answers = []
        for child in children:
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            cpu += usage.ru_utime + usage.ru_stime
            assert child.stdout is not None
            answers.append(json.loads(child.stdout.read().splitlines()[-1]))
        seconds = time.perf_counter() - started
        server = (_postgres_cpu(data_directory) - server_before) if postgresql else 0.0
    recorded = sum(answer["recorded"] for answer in answers)
    asked = len(site.pages_asked())
    assert recorded == pages, f"{recorded} pages recorded of {pages}"
    return {
        "seconds": seconds,
        "pages_per_s": pages / seconds,
        "fetched": asked,
        "worker_cpu_ms_per_page": 1000 * cpu / pages,
        "server_cpu_ms_per_page": 1000 * server / pages,
    }


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def measure(pages: int, repeats: int) -> dict[str, Any]:
    """Every configuration ``repeats`` times on a site of ``pages`` pages; the medians, the
    scaling ratios and the embedded ratio."""
    results: dict[str, Any] = {
        "pages": pages,
        "hosts": HOSTS,
        "interval_s": INTERVAL,
        "per_host": PER_HOST,
        "width": WIDTH,
        "cpus": os.cpu_count(),
    }
    configurations = [("sqlite_embedded", 1, False)] + [
        (f"postgresql_{n}_workers", n, True) for n in WORKERS
    ]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in configurations}
    # repeat by round, so that the machine's noise falls on every configuration alike
    for _ in range(repeats):
        for name, workers, postgresql in configurations:
            with tempfile.TemporaryDirectory(prefix="netglean-fleet-") as folder:
                runs[name].append(_one(workers, pages, Path(folder), postgresql))
            print(name, json.dumps(runs[name][-1]), flush=True)
    medians = {name: _median(each) for name, each in runs.items()}
    one = medians["postgresql_1_workers"]["pages_per_s"]
    results["medians"] = medians
    results["scaling"] = {
        f"{n}_workers": medians[f"postgresql_{n}_workers"]["pages_per_s"] / one for n in WORKERS
    }
    results["postgresql_1_over_sqlite"] = one / medians["sqlite_embedded"]["pages_per_s"]
    results["politeness_ceiling_pages_per_s"] = HOSTS / INTERVAL
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    results = measure(args.pages, args.repeats)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
