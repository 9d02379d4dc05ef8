"""What is the PostgreSQL store's own (netglean.store.postgresql): its schema, step for step the
SQLite one's; a store from a newer netglean refused; runs left by a dead process (told by its
advisory lock); and each server it cannot use refused by name, never with its password: one that
is not there, a wrong password, a database or schema that does not exist, a server that goes away
while the store is open (calls fail as unavailable, then go on once it is back). What every
backend does is tested on each: test_runs, test_scans, test_projects, test_filters.

The server is NETGLEAN_TEST_POSTGRESQL's (tests/support/stores.py); a server that goes away is a
relay in front of it, closed and opened again."""

from __future__ import annotations

import contextlib
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import anyio
import pytest

from netglean.core.errors import ConfigurationError, Unavailable
from netglean.core.settings import SETTINGS, Settings
from netglean.store import postgresql
from netglean.store.base import Project, Queued
from netglean.store.migrations import MIGRATIONS, POSTGRESQL_MIGRATIONS
from netglean.store.open import open_store
from netglean.store.sqlite import FILE_NAME, SqliteStore
from tests.support.paths import PROJECT
from tests.support.stores import RUN, postgresql_server, postgresql_url, visit

psycopg = pytest.importorskip("psycopg")
T = TypeVar("T")


def run(work: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(work)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return postgresql_url(tmp_path, fresh=True)


@pytest.fixture
def store(url: str) -> Iterator[postgresql.PostgresStore]:
    opened = postgresql.PostgresStore.open(url)
    yield opened
    opened.close()


def test_each_step_of_the_schema_builds_the_same_tables_on_both_backends(
    store: postgresql.PostgresStore, url: str, tmp_path: Path
) -> None:
    assert len(POSTGRESQL_MIGRATIONS) == len(MIGRATIONS)
    SqliteStore.open(tmp_path).close()
    lite = sqlite3.connect(tmp_path / FILE_NAME)
    names = [row[0] for row in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    on_sqlite = {n: [c[1] for c in lite.execute(f"PRAGMA table_info({n})")] for n in names}
    lite.close()
    with psycopg.connect(url) as pg:
        found = pg.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ).fetchall()
        version = pg.execute("SELECT version FROM store_version").fetchone()
    on_postgresql: dict[str, list[str]] = {}
    for table, column in found:
        on_postgresql.setdefault(table, []).append(column)
    assert on_postgresql.pop("store_version") == ["version"]
    assert on_postgresql == on_sqlite
    assert version == (len(MIGRATIONS),)


def test_a_store_from_a_newer_netglean_is_refused_naming_it(url: str) -> None:
    postgresql.PostgresStore.open(url).close()
    with psycopg.connect(url) as pg:
        pg.execute("UPDATE store_version SET version = 99")
    with pytest.raises(ConfigurationError) as refused:
        postgresql.PostgresStore.open(url)
    assert "newer netglean (schema 99" in str(refused.value)
    assert "upgrade netglean" in str(refused.value)


_OWNER = """
import sys
import anyio
from netglean.store.postgresql import PostgresStore

async def main() -> None:
    store = PostgresStore.open(sys.argv[1])
    await store.create("c" * 32, "crawl", {}, None, "")
    await store.claim("c" * 32)
    print(store.owner, flush=True)
    sys.stdin.read()

anyio.run(main)
"""


def test_runs_of_a_dead_process_are_interrupted_and_those_of_a_live_one_are_not(
    store: postgresql.PostgresStore, url: str
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_OWNER), url],
        cwd=PROJECT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        owner = child.stdout.readline().strip()

        async def while_alive() -> None:
            await store.create(RUN, "crawl", {}, None, "")
            await store.claim(RUN)
            assert await store.interrupt_orphans() == 0
            theirs = await store.get("c" * 32)
            assert theirs is not None and theirs.status == "running" and theirs.owner == owner

        run(while_alive)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)

    async def once_dead() -> None:
        for _ in range(100):  # the server lets go of a dead client's lock once it sees it gone
            if await store.interrupt_orphans():
                break
            await anyio.sleep(0.1)
        left = await store.get("c" * 32)
        assert left is not None and left.status == "interrupted" and left.finished_at is not None
        ours = await store.get(RUN)
        assert ours is not None and ours.status == "running"  # this process's own run goes on

    run(once_dead)


def _refused(url: str) -> str:
    with pytest.raises(ConfigurationError) as refused:
        postgresql.PostgresStore.open(url)
    return str(refused.value)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_server_that_is_not_there_is_refused_naming_it() -> None:
    postgresql_server()
    port = _free_port()
    message = _refused(f"postgresql://netglean:s3cret-pw@127.0.0.1:{port}/netglean")
    assert f"cannot open the PostgreSQL run store postgresql://netglean@127.0.0.1:{port}" in message
    assert "start the server" in message and "s3cret-pw" not in message


def test_a_wrong_password_a_missing_database_or_schema_are_each_refused_naming_it() -> None:
    info = psycopg.conninfo.conninfo_to_dict(postgresql_server())
    where = f"{info.get('host', 'localhost')}:{info.get('port', 5432)}"
    user = info.get("user", "netglean")
    wrong = _refused(f"postgresql://{user}:wrong-pw-123@{where}/{info.get('dbname', '')}")
    assert "password authentication failed" in wrong and "wrong-pw-123" not in wrong
    assert "give the right user and password" in wrong
    if "password" in info:
        pw = info["password"]
        missing = _refused(f"postgresql://{user}:{pw}@{where}/no_such_database")
        assert 'database "no_such_database" does not exist' in missing and "createdb" in missing
        assert f":{pw}@" not in missing
        no_schema = f"postgresql://{user}:{pw}@{where}/{info.get('dbname', '')}"
        schemaless = _refused(no_schema + "?options=-csearch_path%3Dno_such_schema")
        assert "schema" in schemaless and f":{pw}@" not in schemaless


class Relay:
    """A TCP relay on 127.0.0.1 to ``upstream``: the server as a client sees it, which ``stop``
    takes away (every connection cut) and ``start`` brings back on the same port."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = _free_port()
        self._sockets: list[socket.socket] = []
        self._listener: socket.socket | None = None

    def start(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self._sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            return
        finally:  # shut down first: a close alone sends nothing while another thread reads
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()

    def stop(self) -> None:
        ends = [*self._sockets, *([self._listener] if self._listener else [])]
        for end in ends:  # shut down first: a close alone does not wake a thread blocked on it
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
        self._sockets.clear()


def test_a_server_that_goes_away_fails_calls_as_unavailable_and_they_go_on_once_it_is_back(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgresql, "WAIT", 2.0)
    info = psycopg.conninfo.conninfo_to_dict(url)
    relay = Relay((str(info.get("host", "127.0.0.1")), int(info.get("port", 5432))))
    relay.start()
    through = psycopg.conninfo.make_conninfo(url, host="127.0.0.1", port=str(relay.port))
    store = postgresql.PostgresStore.open(through)
    key = postgresql._owner_key(store.owner) or 0

    lock = "locktype = 'advisory' AND granted AND classid = %s AND objid = %s"
    owns = (postgresql._OWNERS, key % 2**32)

    def held() -> bool:
        with psycopg.connect(url) as pg:
            found = pg.execute(f"SELECT count(*) FROM pg_locks WHERE {lock}", owns).fetchone()
        return bool(found and found[0])

    try:
        assert held()

        async def work() -> None:
            await store.create(RUN, "crawl", {}, None, "")
            await store.claim(RUN)
            relay.stop()
            with pytest.raises(Unavailable) as failed:
                await store.progress(RUN, 1, 10, "http://site.test/")
            assert "PostgreSQL server" in failed.value.message
            assert str(info.get("password", "\0")) not in failed.value.message
            relay.start()
            await store.progress(RUN, 2, 10, "http://site.test/")
            again = await store.get(RUN)
            assert again is not None and again.done == 2 and again.status == "running"
            # The server drops the connection holding its owner lock (as a restart does): the next
            # call takes the lock again, so no other process takes its runs for a dead one's.
            with psycopg.connect(url, autocommit=True) as pg:
                pg.execute(f"SELECT pg_terminate_backend(pid) FROM pg_locks WHERE {lock}", owns)
            for _ in range(100):
                if not held():
                    break
                await anyio.sleep(0.05)
            assert not held()
            await store.progress(RUN, 3, 10, "http://site.test/")
            assert held()

        run(work)
    finally:
        store.close()
        relay.stop()


def test_the_store_setting_chooses_postgresql_and_refuses_any_other_url(
    url: str,
    tmp_path: Path,
) -> None:
    chosen = open_store(str(tmp_path), url)
    try:
        assert chosen.kind == "postgresql" and ":netglean@" not in chosen.location
    finally:
        chosen.close()
    embedded = open_store(str(tmp_path))
    try:
        assert embedded.kind == "sqlite"
    finally:
        embedded.close()
    with pytest.raises(ConfigurationError) as refused:
        Settings.load({}, environ={"NETGLEAN_STORE": "mysql://root:pw@db/netglean"})
    assert "a postgresql:// URL" in str(refused.value) and "pw" not in str(refused.value)
    assert next(s for s in SETTINGS if s.name == "store").secret  # never shown: it holds a password


def test_the_frontier_after_a_long_visited_stretch_is_read_past_it(
    store: postgresql.PostgresStore,
) -> None:
    """queued_after reads the frontier a window at a time: a stretch of visits longer than a
    window is passed over, and a slice can end in the last window."""
    links = tuple(Queued(seq, f"http://site.test/{seq}", 1) for seq in range(1, 1_300))
    first = visit(0, links=links)

    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        await store.seed(RUN, 0, "http://site.test/0")
        await store.record_visits(RUN, 0, [first, *(visit(seq) for seq in range(1, 1_100))])
        waiting = await store.queued_after(RUN, 0, 0, 150)
        assert [q.seq for q in waiting] == list(range(1_100, 1_250))
        assert [q.seq for q in await store.queued_after(RUN, 0, 1_250, 150)] == list(
            range(1_251, 1_300),
        )

    run(work)


def test_a_nul_in_text_is_kept_as_a_replacement_character(store: postgresql.PostgresStore) -> None:
    """PostgreSQL's text and JSONB hold no NUL (SQLite's hold it): a page's NUL reaches the store
    in a URL, a log line or a row's data, and is kept as U+FFFD rather than failing the write."""

    async def work() -> None:
        await store.create(RUN, "crawl", {"url": "http://site.test/\x00"}, "a\x00b", "")
        await store.log(RUN, "info", "read \x00 here")
        lines, _ = await store.log_lines(RUN, levels=["info"], tail_chars=100)
        assert [line.message for line in lines] == ["read \ufffd here"]
        now = 1.0
        project = Project("p" * 32, "p", "extract", {}, {}, None, "secret", now, now)
        await store.save_project(project)
        data = {"title\x00": ["a\x00b", {"c": "\x00"}], "n": 1}
        written = await store.write_rows(project.id, RUN, {"d": [("k\x00", data)]})
        assert written["d"].new == 1
        rows, _ = await store.rows(project.id, "d", where=None, order=(), offset=0, limit=5)
        clean = {"n": 1, "title\ufffd": ["a\ufffdb", {"c": "\ufffd"}]}
        assert [(row.key, row.data) for row in rows] == [("k\ufffd", clean)]
        again = await store.write_rows(project.id, RUN, {"d": [("k\x00", data)]})
        assert again["d"].unchanged == 1  # the same data again: nothing to write

    run(work)
