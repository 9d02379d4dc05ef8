"""The embedded run store: one SQLite database in WAL mode under the operator's data directory.

WAL lets readers go on while a writer writes, and several processes (a stdio server per client, plus
`serve`) share one file: writes take SQLite's lock in turn (``BEGIN IMMEDIATE``, waiting up to
``BUSY_WAIT``). Each connection is used by one thread at a time (its own limiter), so the event loop
never waits on the disk. ``synchronous=NORMAL``: a process killed at any point loses nothing
committed; a power cut may lose the last commits, never the database.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import anyio

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
from netglean.store.migrations import MIGRATIONS
from netglean.store.owners import Owners
from netglean.store.sqlite_filters import PROJECTS, ROWS, condition_sql, order_sql

log = logging.getLogger("netglean.store")

T = TypeVar("T")

FILE_NAME = "runs.sqlite3"
BUSY_WAIT = 10.0
"""Seconds a write waits for another process's write to end before the call fails as unavailable."""

_RUN_COLUMNS = (
    "id, tool, arguments, label, session, status, owner, done, total, current, created_at, "
    "started_at, updated_at, finished_at, error_code, error_message, attempts, cancel, result IS "
    "NOT NULL"
)


def _run(row: tuple[Any, ...]) -> Run:
    return Run(
        id=row[0],
        tool=row[1],
        arguments=json.loads(row[2]),
        label=row[3],
        session=row[4],
        status=row[5],
        owner=row[6],
        done=row[7],
        total=row[8],
        current=row[9],
        created_at=row[10],
        started_at=row[11],
        updated_at=row[12],
        finished_at=row[13],
        error_code=row[14],
        error_message=row[15],
        attempts=row[16],
        cancel=row[17],
        has_result=bool(row[18]),
    )


_PROJECT_COLUMNS = "id, name, kind, definition, variables, schedule, secret, created_at, updated_at"
_ROWS = (
    "(SELECT project_id, dataset, key, run_id, data, created_at AS created, updated_at AS "
    "updated FROM dataset_rows)"
)
"""The rows as a filter sees them: run_id, created and updated by those names, and data (their
JSON)."""


def _project(row: tuple[Any, ...]) -> Project:
    pid, name, kind, definition, variables, schedule, secret, created, updated = row
    return Project(
        pid,
        name,
        kind,
        json.loads(definition),
        json.loads(variables),
        schedule,
        secret,
        created,
        updated,
    )


def _marks(count: int) -> str:
    return ",".join("?" * count)


_MARKS_AT_ONCE = 500
"""Values one IN (...) list takes: SQLite builds before 3.32 take at most 999 parameters a
statement."""
_UNVISITED = (
    "NOT EXISTS (SELECT 1 FROM run_items i WHERE i.run_id = f.run_id AND i.part = f.part AND "
    "i.seq = f.seq)"
)
"""A frontier row (as f) that no visit has taken."""


def _connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """A connection to the store; a read-only one keeps SQLite's shared-memory index (the -shm file)
    read-only too, so it needs no room on the disk: SQLite reads the write-ahead log into its own
    memory instead (the ``readonly_shm`` URI parameter; SQLite's walro2 tests;
    SQLITE_READONLY_CANTINIT)."""
    target = f"{path.resolve().as_uri()}?mode=ro&readonly_shm=1" if read_only else str(path)
    db = sqlite3.connect(
        target,
        timeout=BUSY_WAIT,
        isolation_level=None,
        check_same_thread=False,
        uri=read_only,
    )
    try:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error:
        db.close()
        raise
    return db


class _Connection:
    """One SQLite connection and the limiter that keeps it to one thread at a time."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.db = _connect(path, read_only=read_only)
        self.limiter = anyio.CapacityLimiter(1)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            # SQLite rolls some failures (a full disk among them) back itself
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")


_DISK_FULL = (
    "the run store's disk is full; nothing it had committed is lost (the operator must free space)"
)


def _no_room(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed for want of room: a write to the database or its log (SQLITE_FULL), or
    growing the shared-memory index beside them (-shm), which even a read may need."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR_SHMSIZE)


def _failure(exc: sqlite3.Error, path: Path) -> Exception:
    """What a database error means to a caller, in words that hold no path (the operator's log has
    it)."""
    code = getattr(exc, "sqlite_errorcode", None)
    log.error("run store %s: %s", path, exc)
    if _no_room(exc):
        return StoreFailure(_DISK_FULL)
    if code == sqlite3.SQLITE_BUSY:
        return Unavailable(f"the run store stayed locked by another process for {BUSY_WAIT:g} s")
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
        return StoreFailure("the run store became read-only; nothing it had committed is lost")
    return StoreFailure(f"the run store failed: {type(exc).__name__}")


class SqliteStore:
    """The RunStore protocol over one SQLite file (see the module's docstring)."""

    kind = "sqlite"

    def __init__(self, folder: Path, *, read_only: bool = False) -> None:
        self._path = folder / FILE_NAME
        self._read_only = read_only
        """Opened on a disk too full to write: it serves reads; each write first tries to reopen."""
        self._owners = Owners(folder / "owners")
        with ExitStack() as undo:  # a store that does not open leaves no lock or connection behind
            undo.callback(self._owners.close)
            self._writer = _Connection(self._path, read_only=read_only)
            undo.callback(self._writer.db.close)
            self._reader = _Connection(self._path, read_only=read_only)
            undo.pop_all()

    @classmethod
    def open(cls, folder: Path) -> SqliteStore:
        """The store in ``folder``, created and brought to the current schema; refuses, naming the
        path and what to do, a folder it cannot write, a file that is no store, and a store from a
        newer netglean. On a full disk a current store opens read-only: SQLite cannot even read it
        for writing when its -shm cannot grow."""
        path = folder / FILE_NAME
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return cls._open_migrated(folder)
        except OSError as exc:
            raise ConfigurationError(
                f"cannot write the run store folder {folder} ({exc.strerror}): give netglean "
                "write access to it, or choose another with --data-dir (NETGLEAN_DATA_DIR)"
            ) from None
        except sqlite3.Error as exc:
            if not _no_room(exc):
                raise ConfigurationError(_unusable(path, exc)) from None
        return cls._read_only_on_a_full_disk(folder)

    @classmethod
    def _open_migrated(cls, folder: Path) -> SqliteStore:
        """The store opened for writing and brought to the current schema, or closed again (an error
        raised)."""
        store = cls(folder)
        try:
            store._migrate()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _read_only_on_a_full_disk(cls, folder: Path) -> SqliteStore:
        """The store opened read-only, its disk too full to open it for writing; refused, naming the
        full disk, when its schema is not current (bringing it there needs room)."""
        path = folder / FILE_NAME
        full = _full_disk(path)
        try:
            store = cls(folder, read_only=True)
        except (OSError, sqlite3.Error):
            raise ConfigurationError(full) from None
        try:
            if store._version(store._reader.db) < len(MIGRATIONS):
                raise ConfigurationError(full)
            store._reader.db.execute("SELECT count(*) FROM runs").fetchone()
        except sqlite3.Error as exc:
            store.close()
            raise ConfigurationError(_unusable(path, exc)) from None
        except ConfigurationError:
            store.close()
            raise
        log.warning(
            "the run store %s: its disk is full; it serves reads, writes fail until there is room",
            path,
        )
        return store

    def _version(self, db: sqlite3.Connection) -> int:
        """The store's schema version; refused, naming what to do, when a newer netglean made it."""
        version: int = db.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise ConfigurationError(
                f"the run store {self._path} was made by a newer netglean (schema {version}; "
                f"this one knows up to {len(MIGRATIONS)}): upgrade netglean, or choose another "
                "folder with --data-dir"
            )
        return version

    def _migrate(self) -> None:
        db = self._writer.db
        db.execute("PRAGMA journal_mode = WAL")
        with self._writer.transaction():
            version = self._version(db)
            for step in MIGRATIONS[version:]:
                for statement in step:
                    db.execute(statement)
            # a current store is not written to at all: it opens on a full disk
            if version < len(MIGRATIONS):
                db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        db.execute("SELECT count(*) FROM runs").fetchone()  # a damaged file fails here, at start-up

    @property
    def location(self) -> str:
        return str(self._path)

    @property
    def owner(self) -> str:
        return self._owners.id

    async def _do(
        self, connection: _Connection, work: Callable[[sqlite3.Connection], T], *, write: bool
    ) -> T:
        def run() -> T:
            try:
                if write:
                    with connection.transaction() as db:
                        return work(db)
                return work(connection.db)
            except sqlite3.Error as exc:
                raise _failure(exc, self._path) from None

        return await anyio.to_thread.run_sync(run, limiter=connection.limiter)

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._read_only:
            await self._writable_again()
        return await self._do(self._writer, work, write=True)

    async def _writable_again(self) -> None:
        """A store opened read-only (its disk full) reopened for writing once there is room; a full
        disk still."""
        async with self._writer.limiter, self._reader.limiter:  # neither connection is in use
            if self._read_only:
                try:
                    await anyio.to_thread.run_sync(self._reopen)
                except sqlite3.Error as exc:  # not even reopened read-only: the reads fail too
                    raise _failure(exc, self._path) from None
        if self._read_only:
            raise StoreFailure(_DISK_FULL)

    def _reopen(self) -> None:
        # The read-only connections close first: SQLite maps one -shm per file in a process, so a
        # connection opened beside them would share their read-only index and could not write.
        for connection in (self._writer, self._reader):
            connection.db.close()
        try:
            writer = _connect(self._path, read_only=False)
            try:
                writer.execute("PRAGMA journal_mode = WAL")  # grows the -shm: fails on a full disk
                reader = _connect(self._path, read_only=False)
            except sqlite3.Error:
                writer.close()
                raise
        except sqlite3.Error:
            for connection in (self._writer, self._reader):
                connection.db = _connect(self._path, read_only=True)
            return
        self._writer.db, self._reader.db = writer, reader
        self._read_only = False
        log.info("the run store %s has room again: it takes writes", self._path)

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await self._do(self._reader, work, write=False)

    @staticmethod
    def _one(db: sqlite3.Connection, run_id: str) -> Run | None:
        row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if row else None

    async def create(
        self, run_id: str, tool: str, arguments: dict[str, Any], label: str | None, session: str
    ) -> Run:
        now = time.time()

        def work(db: sqlite3.Connection) -> Run:
            db.execute(
                "INSERT INTO runs (id, tool, arguments, label, session, status, owner, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                (
                    run_id,
                    tool,
                    json.dumps(arguments, ensure_ascii=False),
                    label,
                    session,
                    self.owner,
                    now,
                    now,
                ),
            )
            return self._one(db, run_id)  # type: ignore[return-value]  # just written

        return await self._write(work)

    async def get(self, run_id: str) -> Run | None:
        run = await self._read(lambda db: self._one(db, run_id))
        if run is not None and run.status in ACTIVE and not self._owners.alive(run.owner):
            await self._mark_orphans()
            run = await self._read(lambda db: self._one(db, run_id))
        return run

    async def _mark_orphans(self) -> None:
        """The dead processes' runs marked interrupted before a read shows them; on a full disk the
        read is served all the same, those runs as last written (a read once there is room marks
        them)."""
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
        where, values = ([f"tool IN ({_marks(len(tools))})"], list(tools)) if tools else ([], [])
        if session is not None:
            where, values = [*where, "session = ?"], [*values, session]
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
        """A page of the runs that meet every condition of ``where`` (and have one of ``statuses``,
        when given), newest first, the dead processes' runs first marked interrupted; and how
        many."""
        await self._mark_orphans()
        if statuses:
            where, values = [*where, f"status IN ({_marks(len(statuses))})"], [*values, *statuses]
        clause = " AND ".join(where) or "1"

        def work(db: sqlite3.Connection) -> tuple[list[Run], int]:
            total = db.execute(f"SELECT count(*) FROM runs WHERE {clause}", values).fetchone()[0]
            rows = db.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE {clause} ORDER BY created_at DESC, id "
                "LIMIT ? OFFSET ?",
                [*values, limit, offset],
            ).fetchall()
            return [_run(row) for row in rows], total

        return await self._read(work)

    async def claim(self, run_id: str) -> Run | None:
        now = time.time()

        def work(db: sqlite3.Connection) -> Run | None:
            claimed = db.execute(
                "UPDATE runs SET status = 'running', owner = ?, started_at = ?, updated_at = ?,"
                " attempts = attempts + 1 WHERE id = ? AND status = 'queued'",
                (self.owner, now, now, run_id),
            ).rowcount
            return self._one(db, run_id) if claimed else None

        return await self._write(work)

    async def requeue(
        self, run_id: str, *, session: str, retry_failed: bool
    ) -> tuple[Run | None, int]:
        now = time.time()

        def work(db: sqlite3.Connection) -> tuple[Run | None, int]:
            found = db.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
            status = found[0] if found else None
            if status not in RESUMABLE and not (retry_failed and status == "succeeded"):
                return None, 0
            forgotten = 0
            if retry_failed:
                forgotten = db.execute(
                    "DELETE FROM run_items WHERE run_id = ? AND kind = 'failed'", (run_id,)
                ).rowcount
                if not forgotten and status == "succeeded":  # nothing to retry: left as it is
                    return None, 0
            db.execute(
                "UPDATE runs SET status = 'queued', owner = ?, session = ?, updated_at = ?, "
                "finished_at = NULL, error_code = NULL, error_message = NULL, cancel = NULL, "
                "result = NULL, source = NULL WHERE id = ?",
                (self.owner, session, now, run_id),
            )
            return self._one(db, run_id), forgotten

        return await self._write(work)

    async def progress(
        self, run_id: str, done: int, total: int | None, current: str | None
    ) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                "UPDATE runs SET done = ?, total = ?, current = ?, updated_at = ? WHERE id = ?",
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

        def work(db: sqlite3.Connection) -> Run | None:
            db.execute(
                "UPDATE runs SET status = ?, finished_at = ?, updated_at = ?, result = ?, "
                "source = ?, error_code = ?, error_message = ?, cancel = NULL WHERE id = ? AND "
                f"status IN ({_marks(len(ACTIVE))})",
                (status, now, now, result, source, code, message, run_id, *ACTIVE),
            )
            return self._one(db, run_id)

        return await self._write(work)

    async def result(self, run_id: str) -> tuple[str, str | None] | None:
        row = await self._read(
            lambda db: db.execute(
                "SELECT result, source FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
        )
        return (row[0], row[1]) if row and row[0] is not None else None

    async def ask_cancel(self, run_id: str, mode: str) -> Run | None:
        def work(db: sqlite3.Connection) -> Run | None:
            db.execute(
                f"UPDATE runs SET cancel = ? WHERE id = ? AND status IN ({_marks(len(ACTIVE))})",
                (mode, run_id, *ACTIVE),
            )
            return self._one(db, run_id)

        return await self._write(work)

    async def log(self, run_id: str, level: str, message: str) -> None:
        now = time.time()
        await self._write(lambda db: _log_line(db, run_id, level, message, now))

    async def log_lines(
        self, run_id: str, *, levels: Sequence[str], tail_chars: int
    ) -> tuple[list[LogLine], int]:
        def work(db: sqlite3.Connection) -> tuple[list[LogLine], int]:
            rows = db.execute(
                "SELECT seq, at, level, message FROM run_log WHERE run_id = ? AND level IN "
                f"({_marks(len(levels))}) ORDER BY seq DESC",
                (run_id, *levels),
            )
            kept: list[LogLine] = []
            used = left = 0
            for seq, at, level, message in rows:
                # the latest line alone: its end, cut
                if not kept and not left and len(message) > tail_chars:
                    kept.append(
                        LogLine(seq, at, level, "…" + message[len(message) - tail_chars + 1 :])
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
        def work(db: sqlite3.Connection) -> Checkpoint:
            queued = db.execute(
                "SELECT coalesce(max(seq) + 1, 0), count(*) FROM run_frontier WHERE run_id = ? "
                "AND part = ?",
                (run_id, part),
            ).fetchone()
            visited, read, failed, dropped = db.execute(
                "SELECT count(*), coalesce(sum(kind = 'read'), 0), coalesce(sum(kind = "
                "'failed'), 0), coalesce(sum(dropped), 0) FROM run_items WHERE run_id = ? AND "
                "part = ?",
                (run_id, part),
            ).fetchone()
            waiting = db.execute(
                "SELECT count(*) FROM run_frontier f WHERE run_id = ? AND part = ? AND "
                f"{_UNVISITED}",
                (run_id, part),
            ).fetchone()[0]
            return Checkpoint(queued[0], waiting, visited, read, failed, dropped)

        return await self._read(work)

    async def seed(self, run_id: str, part: int, url: str) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT OR IGNORE INTO run_frontier VALUES (?, ?, 0, ?, 0)", (run_id, part, url)
            )
        )

    async def queued_after(self, run_id: str, part: int, seq: int, limit: int) -> list[Queued]:
        def work(db: sqlite3.Connection) -> list[Queued]:
            rows = db.execute(
                "SELECT seq, url, depth FROM run_frontier f WHERE run_id = ? AND part = ? AND "
                f"seq > ? AND {_UNVISITED} ORDER BY seq LIMIT ?",
                (run_id, part, seq, limit),
            )
            return [Queued(*row) for row in rows]

        return await self._read(work)

    async def known_urls(self, run_id: str, part: int, urls: Sequence[str]) -> set[str]:
        def work(db: sqlite3.Connection) -> set[str]:
            known: set[str] = set()
            for start in range(0, len(urls), _MARKS_AT_ONCE):
                chunk = urls[start : start + _MARKS_AT_ONCE]
                known.update(
                    row[0]
                    for row in db.execute(
                        "SELECT url FROM run_frontier WHERE run_id = ? AND part = ? AND url IN "
                        f"({_marks(len(chunk))})",
                        (run_id, part, *chunk),
                    )
                )
            return known

        return await self._read(work)

    async def read_at(self, run_id: str, part: int, canonical: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT url FROM run_items WHERE run_id = ? AND part = ? AND canonical = ? AND "
                "kind = 'read' ORDER BY seq LIMIT 1",
                (run_id, part, canonical),
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._read(work)

    async def record_visits(self, run_id: str, part: int, visits: Sequence[Visited]) -> None:
        await self._write(_visits_writer(run_id, part, visits))

    async def share(self, run_id: str, part: int, url: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            added = db.execute(
                "INSERT OR IGNORE INTO run_frontier VALUES (?, ?, 0, ?, 0)", (run_id, part, url)
            ).rowcount
            if added:
                db.execute(
                    "INSERT INTO crawl_waiting VALUES (?, ?, 0, ?, 0, ?, NULL, NULL)",
                    (run_id, part, url, host_of(url)),
                )

        await self._write(work)

    async def claim_pages(
        self, run_id: str, part: int, worker: str, most: int, lease: float
    ) -> list[Queued]:
        # One writer at a time (BEGIN IMMEDIATE): a claim reads and takes its URLs before any other
        # claim can read them, as SKIP LOCKED lets PostgreSQL's claims pass each other.
        def work(db: sqlite3.Connection) -> list[Queued]:
            now = time.time()
            free = "run_id = ? AND part = ? AND (lease_until IS NULL OR lease_until <= ?)"
            busy = (
                "SELECT host FROM crawl_waiting WHERE run_id = ? AND part = ? AND lease_until > ?"
            )
            first = (
                db.execute(
                    f"SELECT host FROM crawl_waiting WHERE {free} AND host NOT IN ({busy})"
                    " ORDER BY seq LIMIT 1",
                    (run_id, part, now, run_id, part, now),
                ).fetchone()
                or db.execute(
                    f"SELECT host FROM crawl_waiting WHERE {free} ORDER BY seq LIMIT 1",
                    (run_id, part, now),
                ).fetchone()
            )
            if first is None:
                return []
            rows = db.execute(
                f"SELECT seq, url, depth FROM crawl_waiting WHERE {free} AND host = ?"
                " ORDER BY seq LIMIT ?",
                (run_id, part, now, first[0], most),
            ).fetchall()
            db.executemany(
                "UPDATE crawl_waiting SET claimed_by = ?, lease_until = ?"
                " WHERE run_id = ? AND part = ? AND seq = ?",
                [(worker, now + lease, run_id, part, row[0]) for row in rows],
            )
            return [Queued(*row) for row in rows]

        return await self._write(work)

    async def renew_claims(self, run_id: str, part: int, worker: str, lease: float) -> int:
        return await self._write(
            lambda db: (
                db.execute(
                    "UPDATE crawl_waiting SET lease_until = ? WHERE run_id = ? AND part = ?"
                    " AND claimed_by = ?",
                    (time.time() + lease, run_id, part, worker),
                ).rowcount
            )
        )

    async def release_claims(self, run_id: str, part: int, worker: str) -> int:
        return await self._write(
            lambda db: (
                db.execute(
                    "UPDATE crawl_waiting SET claimed_by = NULL, lease_until = NULL"
                    " WHERE run_id = ? AND part = ? AND claimed_by = ?",
                    (run_id, part, worker),
                ).rowcount
            )
        )

    async def record_claimed(
        self, run_id: str, part: int, visits: Sequence[Found], *, max_pages: int
    ) -> list[Kept]:
        now = time.time()

        def work(db: sqlite3.Connection) -> list[Kept]:
            kept: list[Kept] = []
            for found in visits:
                v = found.visit
                kind = "read" if v.read else "failed" if v.failed else "duplicate"
                body = json.dumps(v.body, ensure_ascii=False)
                recorded = db.execute(
                    "INSERT OR IGNORE INTO run_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, part, v.seq, kind, v.url, v.canonical, body, v.dropped),
                ).rowcount
                db.execute(
                    "DELETE FROM crawl_waiting WHERE run_id = ? AND part = ? AND seq = ?",
                    (run_id, part, v.seq),
                )
                if not recorded:
                    kept.append(Kept(False))
                    continue
                kept.append(_queue_found(db, run_id, part, found, max_pages))
                if v.log is not None:
                    _log_line(db, run_id, *v.log, now)
            return kept

        return await self._write(work)

    async def waiting(self, run_id: str, part: int) -> int:
        count: int = await self._read(
            lambda db: db.execute(
                "SELECT count(*) FROM crawl_waiting WHERE run_id = ? AND part = ?",
                (run_id, part),
            ).fetchone()[0]
        )
        return count

    async def take_turn(
        self, host: str, holder: str, *, interval: float, per_host: int, lease: float
    ) -> float | None:
        def work(db: sqlite3.Connection) -> float | None:
            now = time.time()
            row = db.execute("SELECT last_start FROM host_turns WHERE host = ?", (host,)).fetchone()
            db.execute("DELETE FROM host_slots WHERE host = ? AND lease_until <= ?", (host, now))
            flying = db.execute("SELECT count(*) FROM host_slots WHERE host = ?", (host,))
            if flying.fetchone()[0] >= per_host:
                return None
            start = now if row is None else max(now, row[0] + interval)
            db.execute("INSERT INTO host_slots VALUES (?, ?, ?)", (host, holder, start + lease))
            db.execute("INSERT OR REPLACE INTO host_turns VALUES (?, ?)", (host, start))
            return start - now

        return await self._write(work)

    async def renew_turn(self, host: str, holder: str, lease: float) -> None:
        await self._write(
            lambda db: db.execute(
                "UPDATE host_slots SET lease_until = ? WHERE host = ? AND holder = ?",
                (time.time() + lease, host, holder),
            )
        )

    async def end_turn(self, host: str, holder: str) -> None:
        await self._write(
            lambda db: db.execute(
                "DELETE FROM host_slots WHERE host = ? AND holder = ?", (host, holder)
            )
        )

    async def items(
        self, run_id: str, *, offset: int, limit: int, part: int | None = None
    ) -> tuple[list[Item], int]:
        where, values = (
            ("run_id = ?", (run_id,))
            if part is None
            else ("run_id = ? AND part = ?", (run_id, part))
        )

        def work(db: sqlite3.Connection) -> tuple[list[Item], int]:
            total = db.execute(f"SELECT count(*) FROM run_items WHERE {where}", values).fetchone()[
                0
            ]
            rows = db.execute(
                f"SELECT part, seq, body FROM run_items WHERE {where} ORDER BY part, seq LIMIT ? "
                "OFFSET ?",
                (*values, limit, offset),
            ).fetchall()
            return [Item(part, seq, json.loads(body), len(body)) for part, seq, body in rows], total

        return await self._read(work)

    async def interrupt_orphans(self) -> int:
        owners = await self._read(
            lambda db: [
                row[0]
                for row in db.execute(
                    f"SELECT DISTINCT owner FROM runs WHERE status IN ({_marks(len(ACTIVE))})",
                    ACTIVE,
                )
            ]
        )
        dead = [owner for owner in owners if not self._owners.alive(owner)]
        return sum([await self._interrupt(owner) for owner in dead])

    async def interrupt_own(self, keep: Sequence[str] = ()) -> int:
        return await self._interrupt(self.owner, keep)

    async def _interrupt(self, owner: str | None, keep: Sequence[str] = ()) -> int:
        now = time.time()
        kept = f" AND id NOT IN ({_marks(len(keep))})" if keep else ""

        def work(db: sqlite3.Connection) -> int:
            return db.execute(
                "UPDATE runs SET status = 'interrupted', finished_at = ?, updated_at = ?, "
                f"cancel = NULL WHERE owner IS ? AND status IN ({_marks(len(ACTIVE))}){kept}",
                (now, now, owner, *ACTIVE, *keep),
            ).rowcount

        return await self._write(work)

    async def prune(self, older_than: float) -> int:
        def work(db: sqlite3.Connection) -> int:
            # A scan's evidence goes with its retention; its index entry (grade, score) stays, for
            # the history.
            db.execute(
                "UPDATE scans SET evidence = X'' WHERE scanned_at < ? AND evidence != X''",
                (older_than,),
            )
            # a host not asked of since: its next turn is due whenever it comes
            db.execute("DELETE FROM host_turns WHERE last_start < ?", (older_than,))
            return int(
                db.execute(
                    f"DELETE FROM runs WHERE status IN ({_marks(len(FINISHED))}) AND finished_at "
                    "< ?",
                    (*FINISHED, older_than),
                ).rowcount
            )

        return await self._write(work)

    async def counts(self) -> dict[str, int]:
        rows = await self._read(
            lambda db: db.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall()
        )
        return dict(rows)

    async def save_project(self, project: Project) -> Project:
        def work(db: sqlite3.Connection) -> Project:
            taken = db.execute(
                "SELECT id FROM projects WHERE name = ? AND id != ?", (project.name, project.id)
            )
            if taken.fetchone() is not None:
                raise NameTaken(
                    f"name: another project is named {project.name[:80]!r}; names are unique in "
                    "a store",
                    detail={"argument": "name"},
                )
            db.execute(
                "INSERT INTO projects VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO "
                "UPDATE SET name = excluded.name, kind = excluded.kind, definition = "
                "excluded.definition, variables = excluded.variables, schedule = "
                "excluded.schedule, updated_at = excluded.updated_at",
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
            )
            return _project(
                db.execute(
                    f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE id = ?", (project.id,)
                ).fetchone()
            )

        return await self._write(work)

    async def project(self, project_id: str) -> Project | None:
        row = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE id = ?", (project_id,)
            ).fetchone()
        )
        return _project(row) if row else None

    async def projects_named(self, name: str) -> list[Project]:
        rows = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE name = ? ORDER BY created_at",
                (name,),
            ).fetchall()
        )
        return [_project(row) for row in rows]

    async def feed_projects(self, limit: int) -> tuple[list[Project], int]:
        def work(db: sqlite3.Connection) -> tuple[list[Project], int]:
            total = db.execute("SELECT count(*) FROM projects WHERE kind = 'feed'").fetchone()[0]
            rows = db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE kind = 'feed' ORDER BY name "
                "LIMIT ?",
                (limit,),
            ).fetchall()
            return [_project(row) for row in rows], int(total)

        return await self._read(work)

    async def projects_named_any_case(self, name: str, *, limit: int) -> list[Project]:
        rows = await self._read(
            lambda db: db.execute(
                f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE lower(name) = lower(?)"
                " ORDER BY updated_at DESC, id LIMIT ?",
                (name, limit),
            ).fetchall()
        )
        return [_project(row) for row in rows]

    async def list_projects(
        self, *, where: Condition | None, order: Sequence[Sort], offset: int, limit: int
    ) -> tuple[list[Project], int]:
        condition, ordering = condition_sql(where, PROJECTS), order_sql(order, PROJECTS)
        by = ", ".join(filter(None, [ordering.sql, "id"]))

        def work(db: sqlite3.Connection) -> tuple[list[Project], int]:
            matching = f"FROM projects WHERE {condition.sql}"
            total = db.execute(f"SELECT count(*) {matching}", condition.params).fetchone()[0]
            rows = db.execute(
                f"SELECT {_PROJECT_COLUMNS} {matching} ORDER BY {by} LIMIT ? OFFSET ?",
                [*condition.params, *ordering.params, limit, offset],
            ).fetchall()
            return [_project(row) for row in rows], total

        return await self._read(work)

    async def delete_project(self, project_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            db.execute("DELETE FROM dataset_rows WHERE project_id = ?", (project_id,))
            return db.execute("DELETE FROM projects WHERE id = ?", (project_id,)).rowcount > 0

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

        def work(db: sqlite3.Connection) -> dict[str, Written]:
            written = {
                dataset: _store_rows(db, project_id, dataset, run_id, kept, now=now)
                for dataset, kept in rows.items()
            }
            _visits_writer(run_id, part, visits(written))(db)
            return written

        return await self._write(work)

    async def link_run(self, project_id: str, run_id: str) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT OR IGNORE INTO project_runs VALUES (?, ?)", (project_id, run_id)
            )
        )

    async def project_runs(
        self, project_id: str, *, statuses: Sequence[str], offset: int, limit: int
    ) -> tuple[list[Run], int]:
        where = ["id IN (SELECT run_id FROM project_runs WHERE project_id = ?)"]
        return await self._runs(where, [project_id], statuses=statuses, offset=offset, limit=limit)

    async def adopt(self, run_id: str, earlier: str, *, failed: bool) -> int:
        kinds = "" if failed else " AND kind != 'failed'"

        def work(db: sqlite3.Connection) -> int:
            db.execute(
                "INSERT OR IGNORE INTO run_frontier SELECT ?, part, seq, url, depth FROM "
                "run_frontier WHERE run_id = ?",
                (run_id, earlier),
            )
            return db.execute(
                "INSERT OR IGNORE INTO run_items SELECT ?, part, seq, kind, url, canonical, "
                f"body, dropped FROM run_items WHERE run_id = ?{kinds}",
                (run_id, earlier),
            ).rowcount

        return await self._write(work)

    async def keep_feed(
        self, project_id: str, run_id: str, rss: str, json_feed: str, etag: str
    ) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO project_feeds VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)",
                (project_id, run_id, rss, json_feed, etag, now),
            )
        )

    async def feed_failed(self, project_id: str, message: str) -> None:
        now = time.time()
        await self._write(
            lambda db: db.execute(
                "INSERT INTO project_feeds (project_id, failed_at, failure) VALUES (?, ?, ?) ON "
                "CONFLICT (project_id) DO UPDATE SET failed_at = excluded.failed_at, failure = "
                "excluded.failure",
                (project_id, now, message),
            )
        )

    async def project_feed(self, project_id: str) -> ProjectFeed | None:
        row = await self._read(
            lambda db: db.execute(
                "SELECT run_id, rss, json, etag, built_at, failed_at, failure FROM project_feeds "
                "WHERE project_id = ?",
                (project_id,),
            ).fetchone()
        )
        return ProjectFeed(*row) if row else None

    async def run_logs(
        self, run_ids: Sequence[str], *, levels: Sequence[str], offset: int, limit: int
    ) -> tuple[list[tuple[str, LogLine]], int]:
        if not run_ids:
            return [], 0
        clause = f"run_id IN ({_marks(len(run_ids))})"
        values: list[Any] = list(run_ids)
        if levels:
            clause += f" AND level IN ({_marks(len(levels))})"
            values += list(levels)

        def work(db: sqlite3.Connection) -> tuple[list[tuple[str, LogLine]], int]:
            total = db.execute(f"SELECT count(*) FROM run_log WHERE {clause}", values).fetchone()[0]
            found = db.execute(
                f"SELECT run_id, seq, at, level, message FROM run_log WHERE {clause}"
                " ORDER BY at DESC, run_id, seq DESC LIMIT ? OFFSET ?",
                [*values, limit, offset],
            ).fetchall()
            return [
                (run, LogLine(seq, at, level, message)) for run, seq, at, level, message in found
            ], total

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
        scope = f"project_id = ? AND dataset = ? AND ({condition.sql})"
        values = [project_id, dataset, *condition.params]

        def work(db: sqlite3.Connection) -> tuple[list[Row], int]:
            found = db.execute(
                f"SELECT dataset, key, run_id, data, created, updated FROM {_ROWS} WHERE {scope}"
                f" ORDER BY {by} LIMIT ? OFFSET ?",
                [*values, *ordering.params, limit, offset],
            ).fetchall()
            # A page short of its limit holds the last match, so it says how many there are: the
            # count is a second pass over every row the filter reads (half the time of a filtered
            # page of a large dataset).
            if len(found) < limit and (found or not offset):
                total = offset + len(found)
            else:
                total = db.execute(
                    f"SELECT count(*) FROM {_ROWS} WHERE {scope}", values
                ).fetchone()[0]
            return [Row(d, k, r, json.loads(data), c, u) for d, k, r, data, c, u in found], total

        return await self._read(work)

    async def datasets(self, project_id: str) -> dict[str, int]:
        rows = await self._read(
            lambda db: db.execute(
                "SELECT dataset, count(*) FROM dataset_rows WHERE project_id = ? GROUP BY "
                "dataset ORDER BY dataset",
                (project_id,),
            ).fetchall()
        )
        return dict(rows)

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
        await self._write(
            lambda db: db.execute(f"INSERT INTO scans VALUES ({_marks(len(row))})", row)
        )

    async def scans(
        self,
        *,
        domain: str | None = None,
        run_id: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[ScanRecord], int]:
        clause, values = (
            ("domain = ?", [domain]) if domain is not None else ("run_id = ?", [run_id])
        )

        def work(db: sqlite3.Connection) -> tuple[list[ScanRecord], int]:
            total = db.execute(f"SELECT count(*) FROM scans WHERE {clause}", values).fetchone()[0]
            found = db.execute(
                "SELECT id, domain, url, scanned_at, outcome, reason, grade, score, "
                f"evidence_hash, result, run_id FROM scans WHERE {clause} ORDER BY scanned_at "
                "DESC, id LIMIT ? OFFSET ?",
                [*values, limit, offset],
            ).fetchall()
            return [_scan_record(row) for row in found], total

        return await self._read(work)

    async def scan_evidence(self, scan_id: str) -> bytes | None:
        row = await self._read(
            lambda db: db.execute("SELECT evidence FROM scans WHERE id = ?", (scan_id,)).fetchone()
        )
        return zlib.decompress(row[0]) if row and row[0] else None

    def close(self) -> None:
        self._writer.db.close()
        self._reader.db.close()
        self._owners.close()


def _scan_record(row: tuple[Any, ...]) -> ScanRecord:
    (
        scan_id,
        domain,
        url,
        scanned_at,
        outcome,
        reason,
        grade,
        score,
        evidence_hash,
        result,
        run_id,
    ) = row
    return ScanRecord(
        scan_id,
        domain,
        url,
        scanned_at,
        outcome,
        reason,
        grade,
        score,
        evidence_hash,
        json.loads(result),
        run_id,
    )


def _visits_writer(
    run_id: str, part: int, visits: Sequence[Visited]
) -> Callable[[sqlite3.Connection], None]:
    """What writing a run's visits does inside a transaction: each visit, the links it queued, its
    log line."""
    now = time.time()
    kinds = ["read" if v.read else "failed" if v.failed else "duplicate" for v in visits]
    rows = [
        (
            run_id,
            part,
            v.seq,
            kind,
            v.url,
            v.canonical,
            json.dumps(v.body, ensure_ascii=False),
            v.dropped,
        )
        for v, kind in zip(visits, kinds, strict=True)
    ]
    links = [(run_id, part, link.seq, link.url, link.depth) for v in visits for link in v.links]

    def work(db: sqlite3.Connection) -> None:
        db.executemany("INSERT OR REPLACE INTO run_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT OR IGNORE INTO run_frontier VALUES (?, ?, ?, ?, ?)", links)
        for visit in visits:
            if visit.log is not None:
                _log_line(db, run_id, *visit.log, now)

    return work


def _store_rows(
    db: sqlite3.Connection,
    project_id: str,
    dataset: str,
    run_id: str,
    rows: Sequence[tuple[str, dict[str, Any]]],
    *,
    now: float,
) -> Written:
    """Rows written by key: new ones added, changed ones updated, the same ones left alone;
    counted."""
    each: list[int] = []
    for key, data in rows:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        kept = db.execute(
            "SELECT data FROM dataset_rows WHERE project_id = ? AND dataset = ? AND key = ?",
            (project_id, dataset, key),
        ).fetchone()
        if kept is None:
            db.execute(
                "INSERT INTO dataset_rows VALUES (?, ?, ?, ?, ?, ?, ?)",
                (project_id, dataset, key, run_id, text, now, now),
            )
            each.append(0)
        elif kept[0] != text:
            db.execute(
                "UPDATE dataset_rows SET data = ?, run_id = ?, updated_at = ?"
                " WHERE project_id = ? AND dataset = ? AND key = ?",
                (text, run_id, now, project_id, dataset, key),
            )
            each.append(1)
        else:
            each.append(2)
    return Written(each.count(0), each.count(1), each.count(2), tuple(each))


def _queue_found(
    db: sqlite3.Connection, run_id: str, part: int, found: Found, max_pages: int
) -> Kept:
    """The URLs a shared crawl's visit found that the crawl has not queued, queued (and waiting)
    while it has queued fewer than ``max_pages`` (the one writer's transaction: every worker's
    count)."""
    urls = list(dict.fromkeys(found.found))
    if not urls:
        return Kept(True)
    known: set[str] = set()
    for start in range(0, len(urls), _MARKS_AT_ONCE):
        chunk = urls[start : start + _MARKS_AT_ONCE]
        known.update(
            row[0]
            for row in db.execute(
                "SELECT url FROM run_frontier WHERE run_id = ? AND part = ? AND url IN "
                f"({_marks(len(chunk))})",
                (run_id, part, *chunk),
            )
        )
    new = [url for url in urls if url not in known]
    first: int = db.execute(
        "SELECT coalesce(max(seq) + 1, 0) FROM run_frontier WHERE run_id = ? AND part = ?",
        (run_id, part),
    ).fetchone()[0]
    taken = new[: max(0, max_pages - first)]
    seqs = range(first, first + len(taken))
    db.executemany(
        "INSERT INTO run_frontier VALUES (?, ?, ?, ?, ?)",
        [(run_id, part, seq, url, found.depth) for seq, url in zip(seqs, taken, strict=True)],
    )
    db.executemany(
        "INSERT INTO crawl_waiting VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)",
        [
            (run_id, part, seq, url, found.depth, host_of(url))
            for seq, url in zip(seqs, taken, strict=True)
        ],
    )
    dropped = len(new) - len(taken)
    if dropped:
        db.execute(
            "UPDATE run_items SET dropped = dropped + ? WHERE run_id = ? AND part = ? AND seq = ?",
            (dropped, run_id, part, found.visit.seq),
        )
    return Kept(True, len(taken), dropped)


def _log_line(db: sqlite3.Connection, run_id: str, level: str, message: str, now: float) -> None:
    """One more line of a run's log; every TRIM_EVERY lines, the lines past LOG_LINES_STORED go."""
    seq = db.execute(
        "SELECT coalesce(max(seq), 0) + 1 FROM run_log WHERE run_id = ?", (run_id,)
    ).fetchone()[0]
    db.execute("INSERT INTO run_log VALUES (?, ?, ?, ?, ?)", (run_id, seq, now, level, message))
    if seq > LOG_LINES_STORED and seq % TRIM_EVERY == 0:
        db.execute(
            "DELETE FROM run_log WHERE run_id = ? AND seq <= ?", (run_id, seq - LOG_LINES_STORED)
        )


def _unusable(path: Path, exc: sqlite3.Error) -> str:
    code = getattr(exc, "sqlite_errorcode", None)
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        return (
            f"{path} is not a usable run store ({exc}): move it aside (netglean then starts a "
            "new, empty store there) or choose another folder with --data-dir"
        )
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
        return (
            f"cannot write the run store {path} ({exc}): give netglean write access to its "
            "folder, or choose another with --data-dir (NETGLEAN_DATA_DIR)"
        )
    if _no_room(exc):
        return _full_disk(path)
    return f"cannot open the run store {path} ({exc}); choose another folder with --data-dir"


def _full_disk(path: Path) -> str:
    return (
        f"the disk of the run store {path} is full: free space, or choose another folder with "
        "--data-dir"
    )
