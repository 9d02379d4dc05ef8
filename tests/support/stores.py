"""The store's backends as its test suite opens them (tests/unit/store): a second backend is one
more name in BACKENDS and a branch in each function here; the tests themselves stay as they are."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from netglean.store.base import Queued, RunStore, ScanRecord, Visited

BACKENDS = ["sqlite"]
RUN = "a" * 32
OTHER = "b" * 32


def open_store(backend: str, folder: Path) -> RunStore:
    """A new, empty store of ``backend`` kept in ``folder``."""
    if backend == "sqlite":
        from netglean.store.sqlite import SqliteStore

        return SqliteStore.open(folder)
    raise ValueError(f"no store backend {backend!r}")


def rows_in(backend: str, folder: Path, table: str, run_id: str | None = None) -> int:
    """How many rows a table of the store in ``folder`` holds (of ``run_id`` only, when given): what
    a test of retention counts, below the interface (the tables are every backend's)."""
    if backend == "sqlite":
        from netglean.store.sqlite import FILE_NAME

        db = sqlite3.connect(folder / FILE_NAME)
        try:
            where, values = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
            count: int = db.execute(f"SELECT count(*) FROM {table} {where}", values).fetchone()[0]
        finally:
            db.close()
        return count
    raise ValueError(f"no store backend {backend!r}")


def visit(
    seq: int,
    text: str = "page",
    *,
    failed: bool = False,
    links: tuple[Queued, ...] = (),
) -> Visited:
    """A crawl's visit of http://site.test/<seq>: read (its canonical URL its own), or failed."""
    url = f"http://site.test/{seq}"
    body = {"url": url, "ok": not failed, "text": text}
    canonical = None if failed else url
    read = not failed
    return Visited(seq, body, read=read, failed=failed, canonical=canonical, url=url, links=links)


def scan_record(
    scan_id: str,
    at: float,
    domain: str = "shop.test",
    run_id: str | None = None,
) -> ScanRecord:
    """A scored scan of a page of ``domain`` at ``at``."""
    result = {"outcome": "scored", "grade": "B", "score": 80, "page_kind": "product"}
    url = f"http://{domain}/p"
    return ScanRecord(scan_id, domain, url, at, "scored", None, "B", 80, "sha256:0", result, run_id)
