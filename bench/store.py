"""The run store's write and query rates on each backend, SQLite (embedded) and PostgreSQL, through
the store's interface (netglean.store.base), as netglean calls it:

1. a crawl's journal: VISITS visits written 16 a transaction (as a crawl writes them), each a page
   of about 2 KB with 5 new links queued; then read back as a crawl and its tools read it:
   ``queued_after`` slices of 100, ``known_urls`` of 50 URLs, ``checkpoint`` and ``items`` pages;
2. a project's rows: ROWS rows written 100 a write (as a run writes a page's rows), then a
   filtered, sorted page (``price>10 && category="books"``, ``-price``, 50 a page) read again and
   again.

One command: ``python -m bench.store`` (``--postgresql URL`` for a server of your own; without it a
throwaway cluster is started with dev/postgresql and stopped at the end). Each figure is the median
of ``--repeats`` runs (at least 5), each on a new, empty store; the backends take turns. To
``bench/results/store.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from bench.projects import CATEGORIES, FILTER, PER_PAGE, SORT, catalogue
from netglean.store.base import Project, Queued, RunStore, Visited

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
VISITS = 2_000
VISITS_A_WRITE = 16
LINKS_A_PAGE = 5
ROWS = 10_000
ROWS_A_WRITE = 100
QUERIES = 200
RUN = "c" * 32
PROJECT = "d" * 32


def _visits() -> list[list[Visited]]:
    """The crawl's visits in the batches it writes them: each page links LINKS_A_PAGE new URLs."""
    text = " ".join(CATEGORIES) * 40  # about 2 KB of page text
    made = []
    for seq in range(VISITS):
        url = f"https://site.example/{seq}"
        first = 1 + seq * LINKS_A_PAGE
        links = tuple(Queued(n, f"https://site.example/{n}", 1) for n in range(first, first + 5))
        body = {"url": url, "ok": True, "title": f"Page {seq}", "text": text}
        made.append(
            Visited(seq, body, read=True, failed=False, canonical=url, url=url, links=links),
        )
    return [made[at : at + VISITS_A_WRITE] for at in range(0, VISITS, VISITS_A_WRITE)]


async def _rate(count: int, work: Callable[[int], Awaitable[Any]]) -> float:
    """Calls a second: ``work(i)`` for i in range(count), one after another."""
    started = time.perf_counter()
    for i in range(count):
        await work(i)
    return count / (time.perf_counter() - started)


async def _journal(store: RunStore) -> dict[str, float]:
    await store.create(RUN, "crawl", {}, None, "")
    await store.seed(RUN, 0, "https://site.example/0")
    batches = _visits()
    started = time.perf_counter()
    for batch in batches:
        await store.record_visits(RUN, 0, batch)
    written = VISITS / (time.perf_counter() - started)
    urls = [f"https://site.example/{n}" for n in range(0, 10_000, 7)]
    return {
        "journal_visits_written_per_s": written,
        "queued_after_per_s": await _rate(
            QUERIES,
            lambda i: store.queued_after(RUN, 0, (i * 37) % VISITS, 100),
        ),
        "known_urls_per_s": await _rate(
            QUERIES,
            lambda i: store.known_urls(RUN, 0, urls[i % 20 * 50 : i % 20 * 50 + 50]),
        ),
        "checkpoint_per_s": await _rate(QUERIES // 4, lambda i: store.checkpoint(RUN, 0)),
        "items_page_per_s": await _rate(
            QUERIES,
            lambda i: store.items(RUN, offset=(i * 100) % VISITS, limit=100),
        ),
    }


async def _rows(store: RunStore) -> dict[str, float]:
    from netglean.store.filters import fields_of, parse_filter, parse_sort

    now = time.time()
    await store.save_project(Project(PROJECT, "shop", "extract", {}, {}, None, "0" * 32, now, now))
    rows = catalogue(ROWS)
    started = time.perf_counter()
    for first in range(0, ROWS, ROWS_A_WRITE):
        await store.write_rows(PROJECT, RUN, {"products": rows[first : first + ROWS_A_WRITE]})
    written = ROWS / (time.perf_counter() - started)
    fields = fields_of({"key": "key", "created": "created", "updated": "updated"}, properties=True)
    where, order = parse_filter(FILTER, fields), parse_sort(SORT, fields, "created")
    pages: list[int] = []

    async def page(i: int) -> None:
        _, total = await store.rows(
            PROJECT, "products", where=where, order=order, offset=(i % 5) * PER_PAGE, limit=PER_PAGE
        )
        pages.append(total)

    queried = await _rate(QUERIES // 4, page)
    assert len(set(pages)) == 1 and pages[0] > PER_PAGE, pages  # the same matches every time
    return {"rows_written_per_s": written, "rows_filtered_pages_per_s": queried}


@contextmanager
def _cluster(url: str) -> Iterator[str]:
    """``url``, or a throwaway cluster's (dev/postgresql) for the bench's length."""
    if url:
        yield url
        return
    folder = Path(tempfile.mkdtemp(prefix="netglean-bench-pg-"))
    script = str(ROOT / "dev" / "postgresql")
    started = subprocess.run(
        [script, "start", str(folder), "54339"],
        check=False,
        capture_output=True,
        text=True,
    )
    if started.returncode:
        raise SystemExit(f"bench.store: no PostgreSQL server: {started.stderr.strip()}")
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([script, "stop", str(folder)], check=False)
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def _opened(backend: str, server: str, number: int) -> RunStore:
    """A new, empty store of ``backend`` (PostgreSQL: a schema of its own)."""
    if backend == "sqlite":
        from netglean.store.sqlite import SqliteStore

        return SqliteStore.open(Path(tempfile.mkdtemp(prefix="netglean-bench-sqlite-")))
    import psycopg

    from netglean.store.postgresql import PostgresStore

    schema = f"bench_{number}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in server else "?"
    return PostgresStore.open(f"{server}{separator}options=-csearch_path%3D{schema}")


def _ratio(medians: dict[str, dict[str, float]], name: str) -> float:
    return medians["postgresql"][name] / medians["sqlite"][name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgresql",
        default="",
        help="a server's URL (default: a throwaway one)",
    )
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    repeats = max(5, arguments.repeats)
    runs: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgresql": []}
    with _cluster(arguments.postgresql) as server:
        for repeat in range(repeats):
            order = ("sqlite", "postgresql") if repeat % 2 == 0 else ("postgresql", "sqlite")
            for backend in order:
                store = _opened(backend, server, repeat)
                try:
                    figures = anyio.run(_journal, store) | anyio.run(_rows, store)
                finally:
                    store.close()
                runs[backend].append(figures)
                print(backend, {name: round(value) for name, value in figures.items()}, flush=True)
    medians = {
        backend: {name: statistics.median(run[name] for run in done) for name in done[0]}
        for backend, done in runs.items()
    }
    report = {
        "repeats": repeats,
        "visits": VISITS,
        "rows": ROWS,
        "median_per_s": medians,
        "postgresql_over_sqlite": {name: _ratio(medians, name) for name in medians["sqlite"]},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "store.json").write_text(json.dumps(report, indent=2) + "\n")
    width = max(len(name) for name in medians["sqlite"])
    print(f"\n{'median per second':{width}}  {'sqlite':>10}  {'postgresql':>10}  ratio")
    for name, value in medians["sqlite"].items():
        print(
            f"{name:{width}}  {value:10.0f}  {medians['postgresql'][name]:10.0f}  "
            f"{_ratio(medians, name):5.2f}",
        )


if __name__ == "__main__":
    main()
