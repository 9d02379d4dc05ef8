"""The run store in a PostgreSQL database (``--store postgresql://…``), for servers on several
machines sharing one store.

psycopg 3's synchronous pool, used from worker threads as the SQLite store uses its connections
(each call one transaction on a pooled connection), so a store opened once serves any event loop.
Which processes are alive is told by session advisory locks, as the SQLite store tells it by file
locks: each store holds its owner's lock on a connection of its own, and the server lets go of it
when the process dies or loses its connection.
"""

from __future__ import annotations

import json
import logging
import select
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any, TypeVar

import anyio
import psycopg
import psycopg_pool
from psycopg.abc import Buffer
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.string import StrDumperUnknown

from netglean.core.errors import ConfigurationError, NameTaken, StoreFailure, Unavailable
from netglean.store.base import (
    ACTIVE,
    FINISHED,
    LOG_LINES_STORED,
    RESUMABLE,
    TRIM_EVERY,
    Checkpoint,
    Found,
    Item,
    Kept,
    LogLine,
    Project,
    ProjectFeed,
    Queued,
    Row,
    Run,
    ScanRecord,
    Visited,
    Written,
    host_of,
)
from netglean.store.filters import Condition, Sort
from netglean.store.migrations import POSTGRESQL_MIGRATIONS
from netglean.store.postgresql_filters import PROJECTS, ROWS, condition_sql, order_sql

log = logging.getLogger("netglean.store")

T = TypeVar("T")
Cursor = psycopg.Cursor[tuple[Any, ...]]

WAIT = 10.0
"""Seconds a call waits for a connection (the server restarting, the pool busy) before it fails as
unavailable; and for the server's first answer when the store opens."""
POOL_SIZE = 4
_ANALYZE_FIRST = 1_000
_ANALYZED = {
    "journal": "ANALYZE run_frontier, run_items",
    "rows": "ANALYZE dataset_rows",
}
_WINDOW = 500
"""Frontier URLs ``queued_after`` reads at a time, to leave out the visited ones."""
_OWNERS = 0x6E67
"""The first key of every owner's advisory lock (the second is the owner's): netglean's locks."""
_UNVISITED = """NOT EXISTS (SELECT 1 FROM run_items i WHERE i.run_id = f.run_id AND i.part =
    f.part AND i.seq = f.seq)"""
_HELD = """(run_id, part, seq) IN (SELECT run_id, part, seq FROM crawl_waiting WHERE run_id = %s
    AND part = %s AND claimed_by = %s FOR UPDATE SKIP LOCKED)"""
"""A worker's claims, but those a visit being recorded holds: they are going (renewing or releasing
them would wait for that write, which may be waiting for another of them: a deadlock)."""
_RUN_COLUMNS = (
    "id, tool, arguments, label, session, status, owner, done, total, current, created_at,"
    " started_at, updated_at, finished_at, error_code, error_message, attempts, cancel,"
    " result IS NOT NULL"
)
_PROJECT_COLUMNS = "id, name, kind, definition, variables, schedule, secret, created_at, updated_at"


def _run(row: tuple[Any, ...]) -> Run:
    """A run as the table holds it: its arguments are JSON; the last column, whether it has a
    result."""
    (
        run_id,
        tool,
        arguments,
        label,
        session,
        status,
        owner,
        done,
        total,
        current,
        created,
        started,
        updated,
        finished,
        error_code,
        error_message,
        attempts,
        cancel,
        has_result,
    ) = row
    return Run(
        run_id, tool, json.loads(arguments), label, session, status, owner, done, total, current,
        created, started, updated, finished, error_code, error_message, attempts, cancel,
        bool(has_result),
    )  # fmt: skip


def _project(row: tuple[Any, ...]) -> Project:
    pid, name, kind, definition, variables, schedule, secret, created, updated = row
    return Project(
        pid, name, kind, json.loads(definition), json.loads(variables), schedule, secret, created,
        updated,
    )  # fmt: skip


def _data(text: str) -> dict[str, Any]:
    """A row's data as kept: JSONB orders keys its own way; the store gives them sorted, as
    SQLite's does."""
    data: dict[str, Any] = json.loads(text, object_pairs_hook=lambda pairs: dict(sorted(pairs)))
    return data


_NUL, _REPLACEMENT = "\x00", "\ufffd"


class _TextDumper(StrDumperUnknown):
    """Text as PostgreSQL keeps it: its text holds no NUL, so a NUL (a page's, say) is kept as
    U+FFFD, where SQLite keeps it as it is; the rest of the text is the same."""

    def dump(self, obj: str) -> Buffer | None:
        return super().dump(obj.replace(_NUL, _REPLACEMENT) if _NUL in obj else obj)


def _configured(connection: psycopg.Connection) -> None:
    connection.adapters.register_dumper(str, _TextDumper)


def _json_text(data: Any) -> str:
    """``data`` as JSONB takes it: no NUL in its strings (JSONB refuses ``\\u0000``)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    if "\\u0000" not in text:
        return text
    return json.dumps(_without_nul(data), ensure_ascii=False, sort_keys=True)


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(_NUL, _REPLACEMENT)
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    return value


def _owner_key(owner: str | None) -> int | None:
    """The second key of an owner's advisory lock (32 bits of its id); None for no owner id."""
    try:
        return int(owner[:8], 16) - 2**31 if owner else None
    except ValueError:  # not an owner id of this store: a damaged row
        return None


def redacted(url: str) -> str:
    """The store's URL without its password, for messages."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://…"
    params.pop("password", None)
    host, port, db = (
        params.get("host", "localhost"),
        params.get("port", "5432"),
        params.get("dbname"),
    )
    user = f"{params['user']}@" if params.get("user") else ""
    return f"postgresql://{user}{host}:{port}/{db or ''}"


def _why(exc: psycopg.Error) -> str:
    """What libpq says went wrong (never the password), without the server's address (the
    message names it) or libpq's hints on further lines."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    why = first.rsplit("FATAL:", 1)[-1] if "FATAL:" in first else first.rsplit(" failed: ", 1)[-1]
    return why.removeprefix("connection failed: ").strip()


def _cannot_open(url: str, exc: psycopg.Error) -> ConfigurationError:
    where, why = redacted(url), _why(exc)
    if "password authentication failed" in why or "no password supplied" in why:
        hint = "give the right user and password in --store (NETGLEAN_STORE)"
    elif "does not exist" in why and "database" in why:
        hint = "create it (createdb), or name another database in --store"
    elif "schema" in why:
        hint = "create the schema, or name another in the URL's options=-csearch_path="
    elif "permission denied" in why:
        hint = "grant the user the right to create tables there, or name another database"
    else:
        hint = "start the server, or correct the host and port in --store (NETGLEAN_STORE)"
    return ConfigurationError(f"cannot open the PostgreSQL run store {where} ({why}): {hint}")


class PostgresStore:
    """The RunStore protocol over one PostgreSQL database (see the module's docstring)."""

    kind = "postgresql"

    def __init__(
        self,
        url: str,
        conninfo: str,
        pool: psycopg_pool.ConnectionPool,
        lock: psycopg.Connection,
    ) -> None:
        self._url = url
        self._conninfo = conninfo
        self._pool = pool
        self.owner = uuid.uuid4().hex
        self._lock = self._locked(lock)
        self._relocking = threading.Lock()
        self._written = {"journal": 0, "rows": 0}
        self._analyze_at = {"journal": _ANALYZE_FIRST, "rows": _ANALYZE_FIRST}
        self._counting = threading.Lock()

    def _grown(self, db: Cursor, tables: str, rows: int) -> None:
        """The planner's statistics of ``tables`` (the journal's or the datasets') brought up to
        date as this process's writes grow them: after _ANALYZE_FIRST rows, then each time twice
        as many. Before autovacuum's first look a new table counts as nearly empty, and the
        planner then reads a crawl's every visit once per URL (7.7 s for the checkpoint of a
        2,000-visit crawl)."""
        with self._counting:
            self._written[tables] += rows
            due = self._written[tables] >= self._analyze_at[tables]
            if due:
                self._analyze_at[tables] *= 2
        if due:
            db.execute(_ANALYZED[tables])

    def _locked(self, connection: psycopg.Connection) -> psycopg.Connection:
        """``connection``, holding this process's owner lock."""
        key = (_OWNERS, _owner_key(self.owner))
        connection.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
        return connection

    def _hold_lock(self) -> None:
        """This process's owner lock taken again when the server let go of it (it restarted, or
        the connection dropped: the lock connection then has something to read, or is broken);
        until then, another process would take this one's runs for a dead one's."""
        lock = self._lock
        if not lock.closed and not lock.broken and not select.select([lock.fileno()], [], [], 0)[0]:
            return
        with self._relocking:
            if self._lock is lock:
                lock.close()
                self._lock = self._locked(psycopg.connect(self._conninfo, autocommit=True))
                log.warning("run store %s: this process's lock was lost; held again", self.location)

    @classmethod
    def open(cls, url: str) -> PostgresStore:
        """The store in the database ``url`` names, brought to the current schema; refuses, naming
        the server (never the password) and what to do, one it cannot reach or sign in to, a
        database that does not exist, and a store from a newer netglean."""
        defaults = {"connect_timeout": str(int(WAIT)), "application_name": "netglean"}
        try:
            given = conninfo_to_dict(url)
            conninfo = make_conninfo(url, **{k: v for k, v in defaults.items() if k not in given})
        except psycopg.ProgrammingError as exc:
            raise ConfigurationError(
                f"the run store URL is not a PostgreSQL URL ({_why(exc)}): write it as"
                " postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
            ) from None
        try:
            lock = psycopg.connect(conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise _cannot_open(url, exc) from None
        try:
            _migrate(lock, url)
            pool = psycopg_pool.ConnectionPool(
                conninfo,
                configure=_configured,
                min_size=1,
                max_size=POOL_SIZE,
                timeout=WAIT,
                open=False,
                check=psycopg_pool.ConnectionPool.check_connection,
                name="netglean-store",
            )
            pool.open(wait=True, timeout=WAIT)
        except psycopg.Error as exc:
            lock.close()
            raise _cannot_open(url, exc) from None
        except (psycopg_pool.PoolTimeout, ConfigurationError):
            lock.close()
            raise
        return cls(url, conninfo, pool, lock)

    @property
    def location(self) -> str:
        return redacted(self._url)

    async def _do(self, work: Callable[[Cursor], T]) -> T:
        def run() -> T:
            try:
                self._hold_lock()
                with self._pool.connection() as connection, connection.cursor() as cursor:
                    return work(cursor)
            except psycopg_pool.PoolTimeout:
                log.error("run store %s: no connection in %g s", self.location, WAIT)
                raise Unavailable(
                    f"the run store's PostgreSQL server did not answer for {WAIT:g} s",
                ) from None
            except psycopg.OperationalError as exc:
                log.error("run store %s: %s", self.location, exc)
                raise Unavailable(
                    f"the run store's PostgreSQL server went away ({_why(exc)[:200]})",
                ) from None
            except psycopg.Error as exc:
                log.error("run store %s: %s", self.location, exc)
                raise StoreFailure(f"the run store failed: {type(exc).__name__}") from None

        return await anyio.to_thread.run_sync(run)

    _read = _write = _do

    @staticmethod
    def _one(db: Cursor, run_id: str) -> Run | None:
        row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = %s", (run_id,)).fetchone()
        return _run(row) if row else None

    async def create(
        self,
        run_id: str,
        tool: str,
        arguments: dict[str, Any],
        label: str | None,
        session: str,
    ) -> Run:
        now = time.time()
        text = json.dumps(arguments, ensure_ascii=False)

        def work(db: Cursor) -> Run:
            db.execute(
                "INSERT INTO runs (id, tool, arguments, label, session, status, owner, created_at,"
                " updated_at) VALUES (%s, %s, %s, %s, %s, 'queued', %s, %s, %s)",
                (run_id, tool, text, label, session, self.owner, now, now),
            )
            return self._one(db, run_id)  # type: ignore[return-value]  # just written

        return await self._write(work)

    async def get(self, run_id: str) -> Run | None:
        run = await self._read(lambda db: self._one(db, run_id))
        if run is not None and run.status in ACTIVE and not await self._alive(run.owner):
            await self._mark_orphans()
            run = await self._read(lambda db: self._one(db, run_id))
        return run

    async def _alive(self, owner: str | None) -> bool:
        """Whether ``owner``'s process holds its lock (so lives)."""
        if owner == self.owner:
            return True
        key = _owner_key(owner)
        if key is None:
            return False
        taken = await self._read(
            lambda db: db.execute(
                "SELECT pg_try_advisory_xact_lock(%s, %s)",
                (_OWNERS, key),
            ).fetchone(),
        )
        return not (taken and taken[0])

    async def _mark_orphans(self) -> None:
        with suppress(StoreFailure):
            await self.interrupt_orphans()

    async def list_runs(
        self,
        *,
        statuses: Sequence[str],
        tools: Sequence[str],
        offset: int,
        limit: int,
        session: str | None = None,
    ) -> tuple[list[Run], int]:
        where: list[str] = ["tool = ANY(%s)"] if tools else []
        values: list[Any] = [list(tools)] if tools else []
        if session is not None:
            where, values = [*where, "session = %s"], [*values, session]
        return await self._runs(where, values, statuses=statuses, offset=offset, limit=limit)

    async def _runs(
        self,
        where: list[str],
        values: list[Any],
        *,
        statuses: Sequence[str],
        offset: int,
        limit: int,
    ) -> tuple[list[Run], int]:
        await self._mark_orphans()
        if statuses:
            where, values = [*where, "status = ANY(%s)"], [*values, list(statuses)]
        clause = " AND ".join(where) or "TRUE"

        def work(db: Cursor) -> tuple[list[Run], int]:
            total = db.execute(f"SELECT count(*) FROM runs WHERE {clause}", values).fetchone()
            rows = db.execute(
                f"""SELECT {_RUN_COLUMNS} FROM runs WHERE {clause} ORDER BY created_at DESC, id
                    LIMIT %s OFFSET %s""",
                [*values, limit, offset],
            ).fetchall()
            return [_run(row) for row in rows], int(total[0]) if total else 0

        return await self._read(work)

    async def claim(self, run_id: str) -> Run | None:
        now = time.time()

        def work(db: Cursor) -> Run | None:
            claimed = db.execute(
                "UPDATE runs SET status = 'running', owner = %s, started_at = %s, updated_at = %s,"
                " attempts = attempts + 1 WHERE id = %s AND status = 'queued'",
                (self.owner, now, now, run_id),
            ).rowcount
            return self._one(db, run_id) if claimed else None

        return await self._write(work)

    async def requeue(
        self,
        run_id: str,
        *,
        session: str,
        retry_failed: bool,
    ) -> tuple[Run | None, int]:
        now = time.time()

        def work(db: Cursor) -> tuple[Run | None, int]:
            found = db.execute(
                "SELECT status FROM runs WHERE id = %s FOR UPDATE",
                (run_id,),
            ).fetchone()
            status = found[0] if found else None
            if status not in RESUMABLE and not (retry_failed and status == "succeeded"):
                return None, 0
            forgotten = 0
            if retry_failed:
                forgotten = db.execute(
                    "DELETE FROM run_items WHERE run_id = %s AND kind = 'failed'", (run_id,)
                ).rowcount
                if not forgotten and status == "succeeded":  # nothing to retry: left as it is
                    return None, 0
            db.execute(
                "UPDATE runs SET status = 'queued', owner = %s, session = %s, updated_at = %s,"
                " finished_at = NULL, error_code = NULL, error_message = NULL, cancel = NULL,"
                " result = NULL, source = NULL WHERE id = %s",
                (self.owner, session, now, run_id),
            )
            return self._one(db, run_id), forgotten

        return await self._write(work)

    async def progress(
        self,
        run_id: str,
        done: int,
        total: int | None,
        current: str | None,
    ) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                """UPDATE runs SET done = %s, total = %s, current = %s, updated_at = %s WHERE
                    id = %s""",
                (done, total, current, now, run_id),
            )
        )

    async def finish(
        self,
        run_id: str,
        status: str,
        *,
        result: str | None = None,
        source: str | None = None,
        error: tuple[str, str] | None = None,
    ) -> Run | None:
        now = time.time()
        code, message = error or (None, None)

        def work(db: Cursor) -> Run | None:
            db.execute(
                "UPDATE runs SET status = %s, finished_at = %s, updated_at = %s, result = %s,"
                " source = %s, error_code = %s, error_message = %s, cancel = NULL"
                " WHERE id = %s AND status = ANY(%s)",
                (status, now, now, result, source, code, message, run_id, list(ACTIVE)),
            )
            return self._one(db, run_id)

        return await self._write(work)

    async def result(self, run_id: str) -> tuple[str, str | None] | None:
        row = await self._read(
            lambda db: db.execute(
                "SELECT result, source FROM runs WHERE id = %s",
                (run_id,),
            ).fetchone(),
        )
        return (row[0], row[1]) if row and row[0] is not None else None

    async def ask_cancel(self, run_id: str, mode: str) -> Run | None:
        def work(db: Cursor) -> Run | None:
            db.execute(
                "UPDATE runs SET cancel = %s WHERE id = %s AND status = ANY(%s)",
                (mode, run_id, list(ACTIVE)),
            )
            return self._one(db, run_id)

        return await self._write(work)

    async def log(self, run_id: str, level: str, message: str) -> None:
        now = time.time()
        await self._write(lambda db: _log_line(db, run_id, level, message, now))

    async def log_lines(
        self,
        run_id: str,
        *,
        levels: Sequence[str],
        tail_chars: int,
    ) -> tuple[list[LogLine], int]:
        def work(db: Cursor) -> tuple[list[LogLine], int]:
            rows = db.execute(
                """SELECT seq, at, level, message FROM run_log WHERE run_id = %s AND level =
                    ANY(%s) ORDER BY seq DESC""",
                (run_id, list(levels)),
            )
            kept: list[LogLine] = []
            used = left = 0
            for seq, at, level, message in rows:
                if not kept and not left and len(message) > tail_chars:  # the latest alone, cut
                    kept.append(
                        LogLine(seq, at, level, "…" + message[len(message) - tail_chars + 1 :]),
                    )
                    used = tail_chars
                    continue
                if left or used + len(message) > tail_chars:
                    left += 1
                    continue
                used += len(message)
                kept.append(LogLine(seq, at, level, message))
            return kept[::-1], left

        return await self._read(work)

    async def checkpoint(self, run_id: str, part: int) -> Checkpoint:
        def work(db: Cursor) -> Checkpoint:
            queued = db.execute(
                """SELECT coalesce(max(seq) + 1, 0) FROM run_frontier WHERE run_id = %s AND
                    part = %s""",
                (run_id, part),
            ).fetchone()
            visited, read, failed, dropped = db.execute(
                "SELECT count(*), count(*) FILTER (WHERE kind = 'read'),"
                " count(*) FILTER (WHERE kind = 'failed'), coalesce(sum(dropped), 0)"
                " FROM run_items WHERE run_id = %s AND part = %s",
                (run_id, part),
            ).fetchone() or (0, 0, 0, 0)
            waiting = db.execute(
                f"""SELECT count(*) FROM run_frontier f WHERE run_id = %s AND part = %s AND
                    {_UNVISITED}""",
                (run_id, part),
            ).fetchone()
            return Checkpoint(
                int(queued[0]) if queued else 0,
                int(waiting[0]) if waiting else 0,
                visited,
                read,
                failed,
                int(dropped),
            )

        return await self._read(work)

    async def seed(self, run_id: str, part: int, url: str) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT INTO run_frontier VALUES (%s, %s, 0, %s, 0) ON CONFLICT DO NOTHING",
                (run_id, part, url),
            )
        )

    async def queued_after(self, run_id: str, part: int, seq: int, limit: int) -> list[Queued]:
        window = max(limit, _WINDOW)

        def work(db: Cursor) -> list[Queued]:
            # A window of the frontier and the visits within it, two range scans of their keys: an
            # anti-join leaves the plan to statistics a new crawl's tables do not have yet (the
            # planner then scanned every visit once per URL: 0.6 s for 100 URLs of 2,000 visits).
            found: list[Queued] = []
            after = seq
            while len(found) < limit:
                rows = db.execute(
                    "SELECT seq, url, depth FROM run_frontier WHERE run_id = %s AND part = %s"
                    " AND seq > %s ORDER BY seq LIMIT %s",
                    (run_id, part, after, window),
                ).fetchall()
                if not rows:
                    break
                visited = {
                    row[0]
                    for row in db.execute(
                        """SELECT seq FROM run_items
                        WHERE run_id = %s AND part = %s AND seq > %s AND seq <= %s""",
                        (run_id, part, after, rows[-1][0]),
                    )
                }
                found += [Queued(*row) for row in rows if row[0] not in visited]
                after = rows[-1][0]
            return found[:limit]

        return await self._read(work)

    async def known_urls(self, run_id: str, part: int, urls: Sequence[str]) -> set[str]:
        def work(db: Cursor) -> set[str]:
            rows = db.execute(
                "SELECT url FROM run_frontier WHERE run_id = %s AND part = %s AND url = ANY(%s)",
                (run_id, part, list(urls)),
            )
            return {row[0] for row in rows}

        return await self._read(work) if urls else set()

    async def read_at(self, run_id: str, part: int, canonical: str) -> str | None:
        def work(db: Cursor) -> str | None:
            row = db.execute(
                "SELECT url FROM run_items WHERE run_id = %s AND part = %s AND canonical = %s"
                " AND kind = 'read' ORDER BY seq LIMIT 1",
                (run_id, part, canonical),
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._read(work)

    async def record_visits(self, run_id: str, part: int, visits: Sequence[Visited]) -> None:
        write = _visits_writer(run_id, part, visits)
        links = sum(len(visit.links) for visit in visits)

        def work(db: Cursor) -> None:
            write(db)
            self._grown(db, "journal", len(visits) + links)

        await self._write(work)

    async def share(self, run_id: str, part: int, url: str) -> None:
        def work(db: Cursor) -> None:
            added = db.execute(
                "INSERT INTO run_frontier VALUES (%s, %s, 0, %s, 0) ON CONFLICT DO NOTHING",
                (run_id, part, url),
            ).rowcount
            if added:
                db.execute(
                    "INSERT INTO crawl_waiting VALUES (%s, %s, 0, %s, 0, %s, NULL, NULL)",
                    (run_id, part, url, host_of(url)),
                )

        await self._write(work)

    async def claim_pages(
        self, run_id: str, part: int, worker: str, most: int, lease: float
    ) -> list[Queued]:
        def work(db: Cursor) -> list[Queued]:
            now = _now(db)
            busy = [
                row[0]
                for row in db.execute(
                    "SELECT DISTINCT host FROM crawl_waiting WHERE run_id = %s AND part = %s AND"
                    " lease_until > %s",
                    (run_id, part, now),
                )
            ]
            free = "run_id = %s AND part = %s AND (lease_until IS NULL OR lease_until <= %s)"
            # a host no worker holds first; SKIP LOCKED passes what another claim is taking
            first = (
                db.execute(
                    f"SELECT host FROM crawl_waiting WHERE {free} AND NOT host = ANY(%s)"
                    " ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED",
                    (run_id, part, now, busy),
                ).fetchone()
                or db.execute(
                    f"SELECT host FROM crawl_waiting WHERE {free} ORDER BY seq LIMIT 1"
                    " FOR UPDATE SKIP LOCKED",
                    (run_id, part, now),
                ).fetchone()
            )
            if first is None:
                return []
            rows = db.execute(
                f"SELECT seq, url, depth FROM crawl_waiting WHERE {free} AND host = %s"
                " ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED",
                (run_id, part, now, first[0], most),
            ).fetchall()
            db.execute(
                "UPDATE crawl_waiting SET claimed_by = %s, lease_until = %s"
                " WHERE run_id = %s AND part = %s AND seq = ANY(%s)",
                (worker, now + lease, run_id, part, [row[0] for row in rows]),
            )
            return [Queued(*row) for row in rows]

        return await self._write(work)

    async def renew_claims(self, run_id: str, part: int, worker: str, lease: float) -> int:
        def work(db: Cursor) -> int:
            return db.execute(
                f"UPDATE crawl_waiting SET lease_until = %s WHERE {_HELD}",
                (_now(db) + lease, run_id, part, worker),
            ).rowcount

        return await self._write(work)

    async def release_claims(self, run_id: str, part: int, worker: str) -> int:
        return await self._write(
            lambda db: (
                db.execute(
                    f"UPDATE crawl_waiting SET claimed_by = NULL, lease_until = NULL WHERE {_HELD}",
                    (run_id, part, worker),
                ).rowcount
            )
        )

    async def record_claimed(
        self, run_id: str, part: int, visits: Sequence[Found], *, max_pages: int
    ) -> list[Kept]:
        now = time.time()

        def work(db: Cursor) -> list[Kept]:
            # the run's row held: the workers' visits take turns for the crawl's next seqs
            db.execute("SELECT 1 FROM runs WHERE id = %s FOR UPDATE", (run_id,))
            kept: list[Kept] = []
            for found in visits:
                v = found.visit
                kind = "read" if v.read else "failed" if v.failed else "duplicate"
                body = json.dumps(v.body, ensure_ascii=False)
                recorded = db.execute(
                    "INSERT INTO run_items VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (run_id, part, seq) DO NOTHING",
                    (run_id, part, v.seq, kind, v.url, v.canonical, body, v.dropped),
                ).rowcount
                db.execute(
                    "DELETE FROM crawl_waiting WHERE run_id = %s AND part = %s AND seq = %s",
                    (run_id, part, v.seq),
                )
                if not recorded:
                    kept.append(Kept(False))
                    continue
                kept.append(_queue_found(db, run_id, part, found, max_pages))
                if v.log is not None:
                    _log_line(db, run_id, *v.log, now)
            self._grown(db, "journal", len(visits) + sum(k.queued for k in kept))
            return kept

        return await self._write(work)

    async def waiting(self, run_id: str, part: int) -> int:
        row = await self._read(
            lambda db: db.execute(
                "SELECT count(*) FROM crawl_waiting WHERE run_id = %s AND part = %s",
                (run_id, part),
            ).fetchone()
        )
        return int(row[0]) if row else 0

    async def take_turn(
        self, host: str, holder: str, *, interval: float, per_host: int, lease: float
    ) -> float | None:
        def work(db: Cursor) -> float | None:
            db.execute(
                "INSERT INTO host_turns VALUES (%s, '-infinity') ON CONFLICT DO NOTHING", (host,)
            )
            row = db.execute(
                "SELECT last_start FROM host_turns WHERE host = %s FOR UPDATE", (host,)
            ).fetchone()
            now = _now(db)
            db.execute("DELETE FROM host_slots WHERE host = %s AND lease_until <= %s", (host, now))
            flying = db.execute("SELECT count(*) FROM host_slots WHERE host = %s", (host,))
            if int((flying.fetchone() or (0,))[0]) >= per_host:
                return None
            start = max(now, float(row[0]) + interval) if row else now
            db.execute("INSERT INTO host_slots VALUES (%s, %s, %s)", (host, holder, start + lease))
            db.execute("UPDATE host_turns SET last_start = %s WHERE host = %s", (start, host))
            return start - now

        return await self._write(work)

    async def renew_turn(self, host: str, holder: str, lease: float) -> None:
        def work(db: Cursor) -> None:
            db.execute(
                "UPDATE host_slots SET lease_until = %s WHERE host = %s AND holder = %s",
                (_now(db) + lease, host, holder),
            )

        await self._write(work)

    async def end_turn(self, host: str, holder: str) -> None:
        await self._write(
            lambda db: db.execute(
                "DELETE FROM host_slots WHERE host = %s AND holder = %s", (host, holder)
            )
        )

    async def items(
        self,
        run_id: str,
        *,
        offset: int,
        limit: int,
        part: int | None = None,
    ) -> tuple[list[Item], int]:
        where = "run_id = %s" if part is None else "run_id = %s AND part = %s"
        values: tuple[Any, ...] = (run_id,) if part is None else (run_id, part)

        def work(db: Cursor) -> tuple[list[Item], int]:
            total = db.execute(f"SELECT count(*) FROM run_items WHERE {where}", values).fetchone()
            rows = db.execute(
                f"""SELECT part, seq, body FROM run_items WHERE {where} ORDER BY part, seq
                    LIMIT %s OFFSET %s""",
                (*values, limit, offset),
            ).fetchall()
            items = [Item(part, seq, json.loads(body), len(body)) for part, seq, body in rows]
            return items, int(total[0]) if total else 0

        return await self._read(work)

    async def interrupt_orphans(self) -> int:
        owners = await self._read(
            lambda db: [
                row[0]
                for row in db.execute(
                    "SELECT DISTINCT owner FROM runs WHERE status = ANY(%s)",
                    (list(ACTIVE),),
                )
            ],
        )
        dead = [owner for owner in owners if not await self._alive(owner)]
        return sum([await self._interrupt(owner) for owner in dead])

    async def interrupt_own(self, keep: Sequence[str] = ()) -> int:
        return await self._interrupt(self.owner, keep)

    async def _interrupt(self, owner: str | None, keep: Sequence[str] = ()) -> int:
        now = time.time()

        def work(db: Cursor) -> int:
            return db.execute(
                "UPDATE runs SET status = 'interrupted', finished_at = %s, updated_at = %s,"
                " cancel = NULL WHERE owner IS NOT DISTINCT FROM %s AND status = ANY(%s)"
                " AND NOT (id = ANY(%s))",
                (now, now, owner, list(ACTIVE), list(keep)),
            ).rowcount

        return await self._write(work)

    async def prune(self, older_than: float) -> int:
        def work(db: Cursor) -> int:
            # A scan's evidence goes with its retention; its index entry (grade, score) stays.
            db.execute(
                "UPDATE scans SET evidence = '' WHERE scanned_at < %s AND evidence != ''",
                (older_than,),
            )
            # a host not asked of since: its next turn is due whenever it comes
            db.execute("DELETE FROM host_turns WHERE last_start < %s", (older_than,))
            return db.execute(
                "DELETE FROM runs WHERE status = ANY(%s) AND finished_at < %s",
                (list(FINISHED), older_than),
            ).rowcount

        return await self._write(work)

    async def counts(self) -> dict[str, int]:
        rows = await self._read(
            lambda db: db.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall(),
        )
        return {status: int(count) for status, count in rows}

    async def save_project(self, project: Project) -> Project:
        taken = NameTaken(
            f"name: another project is named {project.name[:80]!r}; names are unique in a store",
            detail={"argument": "name"},
        )

        def work(db: Cursor) -> Project:
            other = db.execute(
                "SELECT id FROM projects WHERE name = %s AND id != %s", (project.name, project.id)
            ).fetchone()
            if other is not None:
                raise taken
            row = db.execute(
                "INSERT INTO projects VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind,"
                " definition = excluded.definition, variables = excluded.variables,"
                f" schedule = excluded.schedule, updated_at = excluded.updated_at"
                f" RETURNING {_PROJECT_COLUMNS}",
                (
                    project.id,
                    project.name,
                    project.kind,
                    json.dumps(project.definition, ensure_ascii=False),
                    json.dumps(project.variables, ensure_ascii=False),
                    project.schedule,
                    project.secret,
                    project.created_at,
                    project.updated_at,
                ),
            ).fetchone()
            return _project(row)  # type: ignore[arg-type]  # RETURNING gives the row

        try:
            return await self._write(work)
        except StoreFailure:  # another process took the name between the look and the write
            if await self.projects_named(project.name):
                raise taken from None
            raise

    async def project(self, project_id: str) -> Project | None:
        row = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE id = %s",
                (project_id,),
            ).fetchone(),
        )
        return _project(row) if row else None

    async def projects_named(self, name: str) -> list[Project]:
        rows = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE name = %s ORDER BY created_at",
                (name,),
            ).fetchall()
        )
        return [_project(row) for row in rows]

    async def projects_named_any_case(self, name: str, *, limit: int) -> list[Project]:
        rows = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE lower(name) = lower(%s::text)"
                " ORDER BY updated_at DESC, id LIMIT %s",
                (name, limit),
            ).fetchall()
        )
        return [_project(row) for row in rows]

    async def list_projects(
        self, *, where: Condition | None, order: Sequence[Sort], offset: int, limit: int
    ) -> tuple[list[Project], int]:
        condition, ordering = condition_sql(where, PROJECTS), order_sql(order, PROJECTS)
        by = ", ".join(filter(None, [ordering.sql, "id"]))

        def work(db: Cursor) -> tuple[list[Project], int]:
            matching = f"FROM projects WHERE {condition.sql}"
            total = db.execute(f"SELECT count(*) {matching}", condition.params).fetchone()
            rows = db.execute(
                f"SELECT {_PROJECT_COLUMNS} {matching} ORDER BY {by} LIMIT %s OFFSET %s",
                [*condition.params, *ordering.params, limit, offset],
            ).fetchall()
            return [_project(row) for row in rows], int(total[0]) if total else 0

        return await self._read(work)

    async def delete_project(self, project_id: str) -> bool:
        def work(db: Cursor) -> bool:
            db.execute("DELETE FROM dataset_rows WHERE project_id = %s", (project_id,))
            return db.execute("DELETE FROM projects WHERE id = %s", (project_id,)).rowcount > 0

        return await self._write(work)

    async def write_rows(
        self,
        project_id: str,
        run_id: str,
        rows: Mapping[str, Sequence[tuple[str, dict[str, Any]]]],
        *,
        visits: Callable[[dict[str, Written]], Sequence[Visited]] = lambda _: (),
        part: int = 0,
    ) -> dict[str, Written]:
        now = time.time()

        def work(db: Cursor) -> dict[str, Written]:
            written: dict[str, Written] = {}
            for dataset, kept in rows.items():
                written[dataset] = _kept_rows(db, project_id, dataset, run_id, kept, now=now)
            _visits_writer(run_id, part, visits(written))(db)
            self._grown(db, "rows", sum(len(kept) for kept in rows.values()))
            return written

        return await self._write(work)

    async def link_run(self, project_id: str, run_id: str) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT INTO project_runs VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (project_id, run_id),
            )
        )

    async def project_runs(
        self, project_id: str, *, statuses: Sequence[str], offset: int, limit: int
    ) -> tuple[list[Run], int]:
        where = ["id IN (SELECT run_id FROM project_runs WHERE project_id = %s)"]
        return await self._runs(where, [project_id], statuses=statuses, offset=offset, limit=limit)

    async def adopt(self, run_id: str, earlier: str, *, failed: bool) -> int:
        kinds = "" if failed else " AND kind != 'failed'"

        def work(db: Cursor) -> int:
            db.execute(
                "INSERT INTO run_frontier SELECT %s, part, seq, url, depth FROM run_frontier"
                " WHERE run_id = %s ON CONFLICT DO NOTHING",
                (run_id, earlier),
            )
            return db.execute(
                "INSERT INTO run_items SELECT %s, part, seq, kind, url, canonical, body, dropped"
                f" FROM run_items WHERE run_id = %s{kinds} ON CONFLICT DO NOTHING",
                (run_id, earlier),
            ).rowcount

        return await self._write(work)

    async def feed_projects(self, limit: int) -> tuple[list[Project], int]:
        def work(db: Cursor) -> tuple[list[Project], int]:
            total = db.execute("SELECT count(*) FROM projects WHERE kind = 'feed'").fetchone()
            rows = db.execute(
                f"""SELECT {_PROJECT_COLUMNS} FROM projects WHERE kind = 'feed' ORDER BY name
                    LIMIT %s""",
                (limit,),
            ).fetchall()
            return [_project(row) for row in rows], int(total[0]) if total else 0

        return await self._read(work)

    async def keep_feed(
        self,
        project_id: str,
        run_id: str,
        rss: str,
        json_feed: str,
        etag: str,
    ) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                "INSERT INTO project_feeds VALUES (%s, %s, %s, %s, %s, %s, NULL, NULL)"
                " ON CONFLICT (project_id) DO UPDATE SET run_id = excluded.run_id,"
                " rss = excluded.rss, json = excluded.json, etag = excluded.etag,"
                " built_at = excluded.built_at, failed_at = NULL, failure = NULL",
                (project_id, run_id, rss, json_feed, etag, now),
            )
        )

    async def feed_failed(self, project_id: str, message: str) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                "INSERT INTO project_feeds (project_id, failed_at, failure) VALUES (%s, %s, %s)"
                " ON CONFLICT (project_id) DO UPDATE SET failed_at = excluded.failed_at,"
                " failure = excluded.failure",
                (project_id, now, message),
            )
        )

    async def project_feed(self, project_id: str) -> ProjectFeed | None:
        row = await self._read(
            lambda db: db.execute(
                """SELECT run_id, rss, json, etag, built_at, failed_at, failure FROM
                    project_feeds WHERE project_id = %s""",
                (project_id,),
            ).fetchone()
        )
        return ProjectFeed(*row) if row else None

    async def run_logs(
        self, run_ids: Sequence[str], *, levels: Sequence[str], offset: int, limit: int
    ) -> tuple[list[tuple[str, LogLine]], int]:
        if not run_ids:
            return [], 0
        clause = "run_id = ANY(%s)"
        values: list[Any] = [list(run_ids)]
        if levels:
            clause += " AND level = ANY(%s)"
            values.append(list(levels))

        def work(db: Cursor) -> tuple[list[tuple[str, LogLine]], int]:
            total = db.execute(f"SELECT count(*) FROM run_log WHERE {clause}", values).fetchone()
            found = db.execute(
                f"SELECT run_id, seq, at, level, message FROM run_log WHERE {clause}"
                " ORDER BY at DESC, run_id, seq DESC LIMIT %s OFFSET %s",
                [*values, limit, offset],
            ).fetchall()
            lines = [(run, LogLine(seq, at, level, text)) for run, seq, at, level, text in found]
            return lines, int(total[0]) if total else 0

        return await self._read(work)

    async def rows(
        self,
        project_id: str,
        dataset: str,
        *,
        where: Condition | None,
        order: Sequence[Sort],
        offset: int,
        limit: int,
    ) -> tuple[list[Row], int]:
        condition, ordering = condition_sql(where, ROWS), order_sql(order, ROWS)
        by = ", ".join(filter(None, [ordering.sql, "key"]))
        scope = f"project_id = %s AND dataset = %s AND ({condition.sql})"
        values = [project_id, dataset, *condition.params]

        def work(db: Cursor) -> tuple[list[Row], int]:
            found = db.execute(
                "SELECT dataset, key, run_id, data::text, created_at, updated_at FROM dataset_rows"
                f" WHERE {scope} ORDER BY {by} LIMIT %s OFFSET %s",
                [*values, *ordering.params, limit, offset],
            ).fetchall()
            # A page short of its limit holds the last match, so it says how many there are.
            if len(found) < limit and (found or not offset):
                total = offset + len(found)
            else:
                counted = db.execute(
                    f"SELECT count(*) FROM dataset_rows WHERE {scope}",
                    values,
                ).fetchone()
                total = int(counted[0]) if counted else 0
            return [Row(d, k, r, _data(data), c, u) for d, k, r, data, c, u in found], total

        return await self._read(work)

    async def datasets(self, project_id: str) -> dict[str, int]:
        rows = await self._read(
            lambda db: db.execute(
                """SELECT dataset, count(*) FROM dataset_rows WHERE project_id = %s GROUP BY
                    dataset ORDER BY dataset""",
                (project_id,),
            ).fetchall()
        )
        return {dataset: int(count) for dataset, count in rows}

    async def record_scan(self, scan: ScanRecord, evidence: bytes) -> None:
        row = (
            scan.id,
            scan.domain,
            scan.url,
            scan.scanned_at,
            scan.outcome,
            scan.reason,
            scan.grade,
            scan.score,
            scan.evidence_hash,
            json.dumps(scan.result, ensure_ascii=False, sort_keys=True),
            zlib.compress(evidence),
            scan.run_id,
        )
        marks = ", ".join(["%s"] * len(row))
        await self._write(lambda db: db.execute(f"INSERT INTO scans VALUES ({marks})", row))

    async def scans(
        self,
        *,
        domain: str | None = None,
        run_id: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[ScanRecord], int]:
        clause, value = ("domain = %s", domain) if domain is not None else ("run_id = %s", run_id)

        def work(db: Cursor) -> tuple[list[ScanRecord], int]:
            total = db.execute(f"SELECT count(*) FROM scans WHERE {clause}", (value,)).fetchone()
            found = db.execute(
                "SELECT id, domain, url, scanned_at, outcome, reason, grade, score, evidence_hash,"
                f" result, run_id FROM scans WHERE {clause}"
                " ORDER BY scanned_at DESC, id LIMIT %s OFFSET %s",
                (value, limit, offset),
            ).fetchall()
            return [_scan_record(row) for row in found], int(total[0]) if total else 0

        return await self._read(work)

    async def scan_evidence(self, scan_id: str) -> bytes | None:
        row = await self._read(
            lambda db: db.execute(
                "SELECT evidence FROM scans WHERE id = %s",
                (scan_id,),
            ).fetchone(),
        )
        return zlib.decompress(row[0]) if row and row[0] else None

    def close(self) -> None:
        self._pool.close()
        self._lock.close()


def _migrate(db: psycopg.Connection, url: str) -> None:
    """Bring the database to the current schema, one process at a time (a transaction-level
    advisory lock); refused, naming what to do, when a newer netglean made it."""
    steps = len(POSTGRESQL_MIGRATIONS)
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_OWNERS,))
        db.execute("CREATE TABLE IF NOT EXISTS store_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM store_version").fetchone()
        version = row[0] if row else 0
        if version > steps:
            raise ConfigurationError(
                f"the run store {redacted(url)} was made by a newer netglean (schema {version};"
                f" this one knows up to {steps}): upgrade netglean, or name another database"
            )
        for step in POSTGRESQL_MIGRATIONS[version:]:
            for statement in step:
                db.execute(statement)
        if row is None:
            db.execute("INSERT INTO store_version VALUES (%s)", (steps,))
        elif version < steps:
            db.execute("UPDATE store_version SET version = %s", (steps,))


def _scan_record(row: tuple[Any, ...]) -> ScanRecord:
    """A scan as the index holds it: its result is JSON."""
    scan_id, domain, url, at, outcome, reason, grade, score, evidence_hash, result, run_id = row
    return ScanRecord(
        scan_id, domain, url, at, outcome, reason, grade, score, evidence_hash, json.loads(result),
        run_id,
    )  # fmt: skip


def _visits_writer(run_id: str, part: int, visits: Sequence[Visited]) -> Callable[[Cursor], None]:
    """What writing a run's visits does in a transaction: each visit, its links, its log line."""
    now = time.time()
    kinds = ["read" if v.read else "failed" if v.failed else "duplicate" for v in visits]
    rows = [
        (run_id, part, v.seq, kind, v.url, v.canonical, json.dumps(v.body, ensure_ascii=False),
         v.dropped)
        for v, kind in zip(visits, kinds, strict=True)
    ]  # fmt: skip
    links = [(run_id, part, link.seq, link.url, link.depth) for v in visits for link in v.links]

    def work(db: Cursor) -> None:
        if rows:
            db.executemany(
                "INSERT INTO run_items VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (run_id, part, seq) DO UPDATE SET kind = excluded.kind,"
                " url = excluded.url, canonical = excluded.canonical, body = excluded.body,"
                " dropped = excluded.dropped",
                rows,
            )
        if links:
            db.executemany(
                "INSERT INTO run_frontier VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                links,
            )
        for visit in visits:
            if visit.log is not None:
                _log_line(db, run_id, *visit.log, now)

    return work


def _kept_rows(
    db: Cursor,
    project_id: str,
    dataset: str,
    run_id: str,
    rows: Sequence[tuple[str, dict[str, Any]]],
    *,
    now: float,
) -> Written:
    """Rows written by key: new ones added, changed ones updated, the same ones left alone."""
    texts = [(_without_nul(key), _json_text(data)) for key, data in rows]
    found = db.execute(
        """SELECT key, data::text FROM dataset_rows WHERE project_id = %s AND dataset = %s AND
            key = ANY(%s)""",
        (project_id, dataset, [key for key, _ in texts]),
    )
    kept = {key: json.dumps(_data(text), ensure_ascii=False) for key, text in found}
    each: list[int] = []
    new: list[tuple[Any, ...]] = []
    changed: list[tuple[Any, ...]] = []
    for key, text in texts:
        if key not in kept:
            new.append((project_id, dataset, key, run_id, text, now, now))
            kept[key] = text  # a key twice in one write: the second is the first's update
            each.append(0)
        elif kept[key] != text:
            changed.append((text, run_id, now, project_id, dataset, key))
            kept[key] = text
            each.append(1)
        else:
            each.append(2)
    if new:
        db.executemany("INSERT INTO dataset_rows VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s)", new)
    if changed:
        db.executemany(
            "UPDATE dataset_rows SET data = %s::jsonb, run_id = %s, updated_at = %s"
            " WHERE project_id = %s AND dataset = %s AND key = %s",
            changed,
        )
    return Written(each.count(0), each.count(1), each.count(2), tuple(each))


def _now(db: Cursor) -> float:
    """The server's clock (epoch seconds): every worker's leases and turns are on one clock."""
    row = db.execute("SELECT extract(epoch FROM clock_timestamp())::float8").fetchone()
    return float(row[0]) if row else time.time()


def _queue_found(db: Cursor, run_id: str, part: int, found: Found, max_pages: int) -> Kept:
    """The URLs a shared crawl's visit found that the crawl has not queued, queued (and waiting)
    while it has queued fewer than ``max_pages``; the run's row is held, so the count is every
    worker's."""
    urls = list(dict.fromkeys(found.found))
    if not urls:
        return Kept(True)
    known = {
        row[0]
        for row in db.execute(
            "SELECT url FROM run_frontier WHERE run_id = %s AND part = %s AND url = ANY(%s)",
            (run_id, part, urls),
        )
    }
    new = [url for url in urls if url not in known]
    row = db.execute(
        "SELECT coalesce(max(seq) + 1, 0) FROM run_frontier WHERE run_id = %s AND part = %s",
        (run_id, part),
    ).fetchone()
    first = int(row[0]) if row else 0
    taken = new[: max(0, max_pages - first)]
    seqs = list(range(first, first + len(taken)))
    if taken:
        db.executemany(
            "INSERT INTO run_frontier VALUES (%s, %s, %s, %s, %s)",
            [(run_id, part, seq, url, found.depth) for seq, url in zip(seqs, taken, strict=True)],
        )
        db.executemany(
            "INSERT INTO crawl_waiting VALUES (%s, %s, %s, %s, %s, %s, NULL, NULL)",
            [
                (run_id, part, seq, url, found.depth, host_of(url))
                for seq, url in zip(seqs, taken, strict=True)
            ],
        )
    dropped = len(new) - len(taken)
    if dropped:
        db.execute(
            "UPDATE run_items SET dropped = dropped + %s WHERE run_id = %s AND part = %s"
            " AND seq = %s",
            (dropped, run_id, part, found.visit.seq),
        )
    return Kept(True, len(taken), dropped)


def _log_line(db: Cursor, run_id: str, level: str, message: str, now: float) -> None:
    """One more line of a run's log (its run locked, so concurrent lines take turns for their
    number); every TRIM_EVERY lines, the lines past LOG_LINES_STORED go."""
    db.execute("SELECT 1 FROM runs WHERE id = %s FOR UPDATE", (run_id,))
    row = db.execute(
        "SELECT coalesce(max(seq), 0) + 1 FROM run_log WHERE run_id = %s",
        (run_id,),
    ).fetchone()
    seq = int(row[0]) if row else 1
    db.execute(
        "INSERT INTO run_log VALUES (%s, %s, %s, %s, %s)",
        (run_id, seq, now, level, message),
    )
    if seq > LOG_LINES_STORED and seq % TRIM_EVERY == 0:
        db.execute(
            "DELETE FROM run_log WHERE run_id = %s AND seq <= %s",
            (run_id, seq - LOG_LINES_STORED),
        )
