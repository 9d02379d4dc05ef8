"""The store's backends as its test suite opens them (tests/unit/store): each test runs on every
backend in BACKENDS; the tests themselves stay as they are.

PostgreSQL is the server NETGLEAN_TEST_POSTGRESQL names (a URL; dev/postgresql starts a
throwaway one and prints it), each store in a schema of its own. Without the variable its cases are
skipped, naming it, and fail in CI (CI set), which must run them."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from netglean.store.base import Queued, RunStore, ScanRecord, Visited

BACKENDS = ["sqlite", "postgresql"]
POSTGRESQL = "NETGLEAN_TEST_POSTGRESQL"
RUN = "a" * 32
OTHER = "b" * 32


def postgresql_server() -> str:
    """The URL of the PostgreSQL server the tests use; skipped (failed in CI) when none is named."""
    url = os.environ.get(POSTGRESQL, "")
    if not url:
        why = f"{POSTGRESQL} names no PostgreSQL server (dev/postgresql start prints one)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return url


def schema_of(folder: Path) -> str:
    """The PostgreSQL schema that stands for a test's folder."""
    return "t_" + hashlib.sha256(str(folder).encode()).hexdigest()[:20]


def postgresql_url(folder: Path, *, fresh: bool) -> str:
    """The URL of the store for ``folder``: its own schema (emptied, when ``fresh``)."""
    import psycopg

    url, schema = postgresql_server(), schema_of(folder)
    if fresh:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            admin.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{schema}"


def open_store(backend: str, folder: Path) -> RunStore:
    """A new, empty store of ``backend`` kept in ``folder`` (or in its schema)."""
    if backend == "sqlite":
        from netglean.store.sqlite import SqliteStore

        return SqliteStore.open(folder)
    if backend == "postgresql":
        from netglean.store.postgresql import PostgresStore

        return PostgresStore.open(postgresql_url(folder, fresh=True))
    raise ValueError(f"no store backend {backend!r}")


def rows_in(backend: str, folder: Path, table: str, run_id: str | None = None) -> int:
    """How many rows a table of the store in ``folder`` holds (of ``run_id`` only, when given): what
    a test of retention counts, below the interface (the tables are every backend's)."""
    where, values = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
    if backend == "sqlite":
        from netglean.store.sqlite import FILE_NAME

        db = sqlite3.connect(folder / FILE_NAME)
        try:
            count: int = db.execute(f"SELECT count(*) FROM {table} {where}", values).fetchone()[0]
        finally:
            db.close()
        return count
    if backend == "postgresql":
        import psycopg

        with psycopg.connect(postgresql_url(folder, fresh=False)) as pg:
            query = f"SELECT count(*) FROM {table} {where.replace('?', '%s')}"
            row = pg.execute(query, values).fetchone()  # type: ignore[arg-type]
        return int(row[0]) if row else 0
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
