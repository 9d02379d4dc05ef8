"""What is the SQLite store's own (netglean.store.sqlite): its schema from empty, on reopening and
from earlier steps, the files and folders it refuses (each named, with what to do), a full disk (a
write fails as store_error, nothing committed is lost), runs left by a dead process (told by its
owner lock). What every backend does is tested on each: test_runs, test_scans, test_projects,
test_filters.

A full disk is simulated with ``PRAGMA max_page_count`` on the store's writer connection: SQLite
then answers a write that needs one more page with SQLITE_FULL, as when the file system has no room
for it (a really full disk, where SQLite cannot even grow its -shm file to read, is
tests/test_full_disk.py's). A folder the store cannot write is tried in a child process, as uid
65534 when the tests run as root (for whom permissions do not stop writes)."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import anyio
import pytest

from netglean.core.errors import ConfigurationError, StoreFailure
from netglean.store.base import Queued, Run
from netglean.store.migrations import MIGRATIONS
from netglean.store.sqlite import FILE_NAME, SqliteStore
from tests.support.paths import PROJECT
from tests.support.stores import OTHER, RUN, scan_record, visit

T = TypeVar("T")


def run(work: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(work)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore.open(tmp_path)
    yield opened
    opened.close()


def _raw(folder: Path) -> sqlite3.Connection:
    return sqlite3.connect(folder / FILE_NAME, isolation_level=None)


# Schema -------------------------------------------------------------------------------------------


def test_a_new_store_is_built_from_empty_and_reopens_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "not" / "yet"
    first = SqliteStore.open(folder)

    async def write() -> Run:
        made = await first.create(
            RUN, "crawl", {"url": "http://site.test/", "max_pages": 5}, "mine", "session-1"
        )
        await first.log(RUN, "info", "started")
        await first.seed(RUN, 0, "http://site.test/")
        await first.record_visits(RUN, 0, [visit(0, links=(Queued(1, "http://site.test/1", 1),))])
        return made

    made = run(write)
    first.close()
    assert made.status == "queued" and made.arguments == {
        "url": "http://site.test/",
        "max_pages": 5,
    }
    with _raw(folder) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    assert tables == {
        "runs",
        "run_log",
        "run_frontier",
        "run_items",
        "projects",
        "dataset_rows",
        "project_runs",
        "project_feeds",
        "scans",
        "crawl_waiting",
        "host_turns",
        "host_slots",
    }

    again = SqliteStore.open(folder)
    try:

        async def read() -> None:
            kept = await again.get(RUN)
            assert kept is not None and kept.label == "mine" and kept.session == "session-1"
            assert kept.arguments == made.arguments and kept.created_at == made.created_at
            assert (await again.log_lines(RUN, levels=["info"], tail_chars=100))[0][
                0
            ].message == "started"
            items, total = await again.items(RUN, offset=0, limit=10)
            assert total == 1 and items[0].body["url"] == "http://site.test/0"
            point = await again.checkpoint(RUN, 0)
            assert (point.queued, point.waiting, point.visited, point.read) == (2, 1, 1, 1)
            assert [q.url for q in await again.queued_after(RUN, 0, -1, 10)] == [
                "http://site.test/1"
            ]
            seen = await again.known_urls(
                RUN, 0, ["http://site.test/", "http://site.test/1", "http://site.test/2"]
            )
            assert seen == {"http://site.test/", "http://site.test/1"}

        run(read)
    finally:
        again.close()
    with _raw(folder) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_store_from_a_newer_netglean_is_refused_naming_it_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    SqliteStore.open(tmp_path).close()
    with _raw(tmp_path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(ConfigurationError) as refused:
        SqliteStore.open(tmp_path)
    message = str(refused.value)
    assert (
        str(tmp_path / FILE_NAME) in message
        and "newer netglean" in message
        and "schema 99" in message
    )
    assert "upgrade netglean" in message and "--data-dir" in message
    with _raw(tmp_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 99
    assert list((tmp_path / "owners").iterdir()) == []  # the refused store holds no owner lock


def _corrupt(folder: Path) -> None:
    store = SqliteStore.open(folder)

    async def fill() -> None:
        for n in range(40):
            await store.create(f"{n:032x}", "crawl", {"text": "x" * 2000}, None, "")

    run(fill)
    store.close()
    raw = bytearray((folder / FILE_NAME).read_bytes())
    raw[100:] = b"Z" * (len(raw) - 100)  # the header survives; every page is garbage
    (folder / FILE_NAME).write_bytes(bytes(raw))


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (
            lambda folder: (folder / FILE_NAME).write_bytes(b"not a database at all " * 500),
            "move it aside",
        ),
        (_corrupt, "move it aside"),
        (lambda folder: (folder / FILE_NAME).mkdir(), "cannot write the run store"),
    ],
    ids=["garbage", "damaged pages", "a folder in its place"],
)
def test_a_file_that_is_no_store_is_refused_naming_its_path(
    tmp_path: Path, damage: Callable[[Path], None], said: str
) -> None:
    damage(tmp_path)
    path = tmp_path / FILE_NAME
    before = path.read_bytes() if path.is_file() else None
    # refused every time, the file as it was (to move aside), no owner lock left behind
    for _ in range(2):
        with pytest.raises(ConfigurationError) as refused:
            SqliteStore.open(tmp_path)
        message = str(refused.value)
        assert str(path) in message and said in message and "--data-dir" in message
    assert (path.read_bytes() if path.is_file() else None) == before
    assert list((tmp_path / "owners").iterdir()) == []


def test_a_data_directory_that_is_a_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file")
    with pytest.raises(ConfigurationError, match="--data-dir") as refused:
        SqliteStore.open(tmp_path / "data")
    assert str(tmp_path / "data") in str(refused.value)


_AS_ANOTHER_USER = """
import json, os, sys
from pathlib import Path
from netglean.core.errors import ConfigurationError
from netglean.store.sqlite import SqliteStore
if os.geteuid() == 0:  # root writes anywhere: drop to nobody, whom the folder's permissions do stop
    os.setgid(65534)
    os.setuid(65534)
try:
    SqliteStore.open(Path(sys.argv[1])).close()
except ConfigurationError as refused:
    print(json.dumps({"refused": str(refused)}))
else:
    print(json.dumps({"opened": True}))
"""


def _open_as_another_user(folder: Path) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_AS_ANOTHER_USER), str(folder)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, str] = json.loads(done.stdout)
    return answer


@pytest.fixture
def readable_only() -> Iterator[Path]:
    """A folder every user can read and enter but none but its owner (root, or the test's user) can
    write; not under pytest's own temporary folders, which only their owner may enter."""
    folder = Path(tempfile.mkdtemp(prefix="netglean-readonly-"))
    try:
        yield folder
    finally:
        for inner in (folder, *folder.rglob("*")):
            inner.chmod(0o755) if inner.is_dir() else None
        shutil.rmtree(folder)


def test_a_folder_it_cannot_write_is_refused_naming_it(readable_only: Path) -> None:
    existing = readable_only / "existing"
    SqliteStore.open(existing).close()
    for inner in (readable_only, existing, existing / "owners"):
        inner.chmod(0o555)
    (existing / FILE_NAME).chmod(0o444)
    sub = _open_as_another_user(readable_only / "missing")  # a store folder it would have to make
    assert (
        "cannot write the run store folder" in sub["refused"]
        and str(readable_only / "missing") in sub["refused"]
    )
    # a store someone else made, in a folder it cannot write
    store = _open_as_another_user(existing)
    assert "cannot write the run store" in store["refused"] and str(existing) in store["refused"]
    assert "--data-dir" in store["refused"]


# A full disk --------------------------------------------------------------------------------------


def test_a_full_disk_fails_writes_as_store_error_and_loses_nothing_committed(
    store: SqliteStore,
) -> None:
    db = store._writer.db

    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        await store.log(RUN, "info", "before the disk filled")
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        # room for a few visits, then the disk is full
        db.execute(f"PRAGMA max_page_count = {pages + 8}")
        kept = 0
        with pytest.raises(StoreFailure) as full:
            for seq in range(10_000):
                link = Queued(seq + 1, f"u{seq}", 1)
                await store.record_visits(RUN, 0, [visit(seq, "x" * 3000, links=(link,))])
                kept += 1
        assert kept > 0
        failures = [full.value]
        for write in (
            lambda: store.log(RUN, "warning", "y" * 20_000),
            lambda: store.create(OTHER, "crawl", {"big": "z" * 20_000}, None, ""),
            lambda: store.record_visits(RUN, 0, [visit(20_000, "x" * 20_000)]),
        ):
            with pytest.raises(StoreFailure) as again:
                await write()
            failures.append(again.value)
        for failure in failures:
            assert failure.code == "store_error" and failure.retryable
            assert (
                "disk is full" in failure.message
                and "nothing it had committed is lost" in failure.message
            )

        async def as_before() -> None:
            items, total = await store.items(RUN, offset=0, limit=20_000)
            assert total == kept and [item.seq for item in items] == list(range(kept))
            lines, _ = await store.log_lines(RUN, levels=["info", "warning"], tail_chars=100_000)
            assert [line.message for line in lines] == ["before the disk filled"]
            assert await store.get(OTHER) is None
            point = await store.checkpoint(RUN, 0)
            assert point.visited == kept and point.waiting == 1
            assert [q.url for q in await store.queued_after(RUN, 0, -1, 10)] == [f"u{kept - 1}"]

        await as_before()
        db.execute("PRAGMA max_page_count = 1073741823")  # room again: the same store takes writes
        await store.log(RUN, "info", "after")
        assert (await store.log_lines(RUN, levels=["info"], tail_chars=100))[0][
            -1
        ].message == "after"

    run(work)


def test_opening_a_current_store_writes_nothing(tmp_path: Path) -> None:
    first = SqliteStore.open(tmp_path)
    run(lambda: first.create(RUN, "crawl", {}, None, ""))
    first.close()  # the last connection checkpoints the write-ahead log into the file
    before = (tmp_path / FILE_NAME).read_bytes()
    again = SqliteStore.open(tmp_path)
    try:
        wal = tmp_path / f"{FILE_NAME}-wal"
        # nothing written: nothing that needs room
        assert not wal.exists() or wal.stat().st_size == 0
        assert (tmp_path / FILE_NAME).read_bytes() == before
        assert run(lambda: again.get(RUN)) is not None
    finally:
        again.close()


# Runs left by a dead process ----------------------------------------------------------------------

_OWNER = """
import sys
from pathlib import Path
import anyio
from netglean.store.sqlite import SqliteStore

async def main() -> None:
    store = SqliteStore.open(Path(sys.argv[1]))
    await store.create("c" * 32, "crawl", {}, None, "")
    await store.claim("c" * 32)
    await store.create("d" * 32, "crawl", {}, None, "")
    print(store.owner, flush=True)
    sys.stdin.read()

anyio.run(main)
"""


def test_runs_of_a_dead_process_are_interrupted_and_those_of_a_live_one_are_not(
    store: SqliteStore, tmp_path: Path
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_OWNER), str(tmp_path)],
        cwd=PROJECT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        owner = child.stdout.readline().strip()
        assert owner and (tmp_path / "owners" / f"{owner}.lock").exists()

        async def while_alive() -> None:
            await store.create(RUN, "crawl", {}, None, "")
            await store.claim(RUN)
            assert await store.interrupt_orphans() == 0
            theirs = await store.get("c" * 32)
            assert theirs is not None and theirs.status == "running" and theirs.owner == owner
            _, total = await store.list_runs(
                statuses=["running", "queued"], tools=[], offset=0, limit=10
            )
            assert total == 3

        run(while_alive)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)

    async def once_dead() -> None:
        assert await store.interrupt_orphans() == 2
        for run_id in ("c" * 32, "d" * 32):
            left = await store.get(run_id)
            assert (
                left is not None and left.status == "interrupted" and left.finished_at is not None
            )
        ours = await store.get(RUN)
        assert ours is not None and ours.status == "running"  # this process's own run goes on
        assert await store.interrupt_orphans() == 0
        assert await store.interrupt_own() == 1
        assert (await store.get(RUN)).status == "interrupted"  # type: ignore[union-attr]

    run(once_dead)
    # a dead owner's lock is cleared away
    assert not (tmp_path / "owners" / f"{owner}.lock").exists()


def test_a_live_owner_in_this_process_is_not_taken_for_dead(tmp_path: Path) -> None:
    first, second = SqliteStore.open(tmp_path), SqliteStore.open(tmp_path)
    try:

        async def work() -> None:
            await first.create(RUN, "crawl", {}, None, "")
            await first.claim(RUN)
            assert await second.interrupt_orphans() == 0
            assert (await second.get(RUN)).status == "running"  # type: ignore[union-attr]
            first.close()
            # a store that closed without interrupt_own
            assert await second.interrupt_orphans() == 1

        run(work)
    finally:
        second.close()


# Retention ----------------------------------------------------------------------------------------


def test_an_earlier_store_keeps_a_url_queued_twice_once_and_gains_shared_crawls(
    tmp_path: Path,
) -> None:
    first = SqliteStore.open(tmp_path)
    run(lambda: first.create(RUN, "crawl", {"url": "http://site.test/"}, None, ""))
    run(lambda: first.seed(RUN, 0, "http://site.test/0"))
    first.close()
    # as a store of migration step 5 was: a URL could be queued twice
    with _raw(tmp_path) as db:
        for table in ("crawl_waiting", "host_turns", "host_slots"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP INDEX run_frontier_by_url")
        db.execute("CREATE INDEX run_frontier_by_url ON run_frontier (run_id, part, url)")
        for seq in (1, 2):
            db.execute(
                "INSERT INTO run_frontier VALUES (?, 0, ?, 'http://site.test/1', 1)", (RUN, seq)
            )
        db.execute("PRAGMA user_version = 5")
    again = SqliteStore.open(tmp_path)
    try:
        point = run(lambda: again.checkpoint(RUN, 0))
        assert (point.queued, point.waiting) == (2, 2)  # seqs 0 and 1: the first kept
        run(lambda: again.share(RUN, 1, "http://site.test/0"))
        assert run(lambda: again.waiting(RUN, 1)) == 1
    finally:
        again.close()


def test_an_earlier_store_gains_the_scan_index_and_frontier_lookups_and_keeps_what_it_held(
    tmp_path: Path,
) -> None:
    first = SqliteStore.open(tmp_path)
    run(lambda: first.create(RUN, "crawl", {"url": "http://site.test/"}, None, ""))
    run(lambda: first.seed(RUN, 0, "http://site.test/0"))
    run(
        lambda: first.record_visits(RUN, 0, [visit(0, links=(Queued(1, "http://site.test/1", 1),))])
    )
    first.close()
    # as a store of migration step 3 was: no scans table, no frontier lookups, no shared crawls
    with _raw(tmp_path) as db:
        for table in ("crawl_waiting", "host_turns", "host_slots", "scans"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP INDEX run_frontier_by_url")
        db.execute("DROP INDEX run_items_by_canonical")
        db.execute("ALTER TABLE run_items DROP COLUMN dropped")
        db.execute("PRAGMA user_version = 3")
    again = SqliteStore.open(tmp_path)
    try:
        assert run(lambda: again.get(RUN)) is not None
        run(lambda: again.record_scan(scan_record("d" * 32, 1.0), b"{}"))
        assert run(lambda: again.scans(domain="shop.test"))[1] == 1
        point = run(lambda: again.checkpoint(RUN, 0))
        assert (point.queued, point.waiting, point.visited, point.dropped) == (2, 1, 1, 0)
        assert run(lambda: again.known_urls(RUN, 0, ["http://site.test/1"])) == {
            "http://site.test/1"
        }
        assert run(lambda: again.read_at(RUN, 0, "http://site.test/0")) == "http://site.test/0"
    finally:
        again.close()
    with _raw(tmp_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT url FROM run_frontier WHERE run_id = ? AND part = ? AND "
            "url IN (?, ?)",
            (RUN, 0, "a", "b"),
        ).fetchall()
        assert "run_frontier_by_url" in str(plan)  # a crawl's questions are answered from an index
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT url FROM run_items WHERE run_id = ? AND part = ? AND "
            "canonical = ? AND kind = 'read' ORDER BY seq LIMIT 1",
            (RUN, 0, "a"),
        ).fetchall()
        assert "run_items_by_canonical" in str(plan)  # not a walk over every visit of the run


# The log ------------------------------------------------------------------------------------------


# Claims, cancels and checkpoints ------------------------------------------------------------------


def test_the_lock_of_a_store_that_closed_is_gone(tmp_path: Path) -> None:
    opened = SqliteStore.open(tmp_path)
    lock = tmp_path / "owners" / f"{opened.owner}.lock"
    assert lock.exists()
    opened.close()
    assert not lock.exists() and list((tmp_path / "owners").iterdir()) == []
