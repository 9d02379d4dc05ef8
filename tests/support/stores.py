"""The store's backends as its test suite opens them (tests/unit/store): each test runs on every
backend in BACKENDS; the tests themselves stay as they are.

PostgreSQL is the server NETGLEAN_TEST_POSTGRESQL names (a URL; .ci/run starts one cluster for the
whole run), or without the variable a throwaway cluster this test process starts with dev/postgresql
(on a free loopback port, stopped when the process ends), as the tests start their other servers.
Either way each test process works in a database of its own on it (created on first use, dropped
when the process ends), so pytest-xdist's workers share one server without seeing each other's
tables, and each store in a schema of its own there."""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from netglean.store.base import Queued, RunStore, ScanRecord, Visited

BACKENDS = ["sqlite", "postgresql"]
POSTGRESQL = "NETGLEAN_TEST_POSTGRESQL"
RUN = "a" * 32
OTHER = "b" * 32


@functools.cache
def postgresql_server() -> str:
    """The URL of this test process's own database on the PostgreSQL server the tests use (the one
    named, or this process's throwaway cluster)."""
    import psycopg

    server = os.environ.get(POSTGRESQL, "") or _throwaway_cluster()
    database = f"netglean_test_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {database}")
    atexit.register(_drop_database, server, database)
    return urlsplit(server)._replace(path=f"/{database}").geturl()


def _drop_database(server: str, database: str) -> None:
    """Drops this process's database, with any connection a test left open to it."""
    import psycopg

    with contextlib.suppress(psycopg.Error), psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


@functools.cache
def _throwaway_cluster() -> str:
    script = Path(__file__).resolve().parents[2] / "dev" / "postgresql"
    folder = tempfile.mkdtemp(prefix="netglean-test-postgresql-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = subprocess.run(
        [str(script), "start", folder, str(port)], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(
            f"no PostgreSQL for the store's suite: {started.stderr.strip()} "
            f"(dev/setup --tests installs it; or name a server in {POSTGRESQL})"
        )
    atexit.register(_stop_cluster, script, folder)
    return started.stdout.strip()


def _stop_cluster(script: Path, folder: str) -> None:
    subprocess.run([str(script), "stop", folder], capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


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
