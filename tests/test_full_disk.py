"""A store on a really full disk: a fresh `netglean` process starts on it and serves what it holds
(runs, a run's items, projects, a project's rows), and a write fails as the clean store_error
envelope.

The disk is a small tmpfs filled to its last byte after the store was written, in three states:
closed cleanly (no -wal or -shm file), left by a process killed before it closed (both files, the
last commits only in the -wal), and held open by a live process. SQLite fails differently on a real
full disk than under ``PRAGMA max_page_count`` (the unit tests' stand-in): its shared-memory index
(-shm) cannot grow, so it cannot even read.

The tmpfs is mounted in a private mount namespace (``unshare``) that ends with the scenario: as root
(CI), or as another user through a user namespace. Where neither is allowed the tests fail, saying
so: a skipped test would pass a machine that never tried."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import PROJECT

DISK_SIZE = "2m"

_WRITER = """
import os, sys, time
from pathlib import Path
import anyio
from netglean.store.base import Project, Visited
from netglean.store.sqlite import SqliteStore

SITE = "http://site.test/"

async def main() -> None:
    store = SqliteStore.open(Path(sys.argv[1]))
    now = time.time()
    await store.create("a" * 32, "crawl", {"url": SITE}, "kept", "")
    await store.claim("a" * 32)
    pages = [{"url": f"{SITE}{seq}", "ok": True, "text": f"page {seq}"} for seq in range(3)]
    visits = [
        Visited(seq, page, read=True, failed=False, canonical=None, url=page["url"])
        for seq, page in enumerate(pages)
    ]
    await store.record_visits("a" * 32, 0, visits)
    await store.finish("a" * 32, "succeeded")
    project = Project("c" * 32, "tides", "crawl", {"url": SITE}, {}, None, "s" * 32, now, now)
    await store.save_project(project)
    await store.write_rows("c" * 32, "a" * 32, {"pages": [(page["url"], page) for page in pages]})
    await store.create("b" * 32, "crawl", {"url": SITE}, "going", "")
    await store.claim("b" * 32)  # running: its process's end decides what becomes of it
    if sys.argv[2] == "crash":
        os._exit(0)  # as kill -9: nothing closed, the last commits only in the -wal
    if sys.argv[2] == "hold":
        print("ready", flush=True)
        sys.stdin.read()
    store.close()

anyio.run(main)
"""

_ON_A_FULL_DISK = """
import errno, json, os, subprocess, sys
from pathlib import Path

disk, state, writer = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
data = disk / "data"
held = subprocess.Popen(
    [sys.executable, "-c", writer, str(data), state],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True,
)
if state == "hold":
    assert held.stdout.readline() == "ready\\n"
else:
    assert held.wait(timeout=60) == 0
files = sorted(path.name for path in data.iterdir())

with open(disk / "filler", "wb", buffering=0) as filler:
    for chunk in (1 << 20, 4096, 1):
        try:
            while True:
                filler.write(bytes(chunk))
        except OSError as full:
            assert full.errno == errno.ENOSPC, full
free = os.statvfs(disk).f_bavail

def call(tool, *flags):
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "call", tool, "--envelope", "--data-dir", str(data)]
        + list(flags),
        capture_output=True, text=True, timeout=120,
    )
    if done.stdout.startswith("{"):
        return json.loads(done.stdout)
    return {"exit": done.returncode, "said": done.stderr}

answers = {
    "list_runs": call("list_runs"),
    "get_run_result": call("get_run_result", "--run-id", "a" * 32),
    "list_projects": call("list_projects"),
    "get_project_data": call("get_project_data", "--project-id", "c" * 32, "--dataset", "pages"),
    "save_project": call("save_project", "--name", "more", "--definition", '{"url": "http://x/"}'),
}
if state == "hold":
    held.communicate("", timeout=60)

import anyio
from netglean.core.errors import StoreFailure
from netglean.store.base import Project
from netglean.store.filters import Column, Sort
from netglean.store.sqlite import SqliteStore

async def room_again():
    store = SqliteStore.open(data)  # a server that started on the full disk
    project = Project("d" * 32, "more", "crawl", {"url": "http://x/"}, {}, None, "t" * 32, 0, 0)
    try:
        try:
            await store.save_project(project)
        except StoreFailure:
            pass
        else:
            return "written on a full disk"
        (disk / "filler").unlink()
        await store.save_project(project)
        listed, _ = await store.list_projects(
            where=None, order=(Sort(Column("name")),), offset=0, limit=10
        )
        return [found.name for found in listed]
    finally:
        store.close()

seen = {"files": files, "free": free, "answers": answers, "room_again": anyio.run(room_again)}
print(json.dumps(seen))
"""


def _private_tmpfs() -> list[str]:
    """The command that runs the rest of its line in a mount namespace of its own, where it may
    mount a tmpfs: root's, or another user's through a user namespace (as root there); the test
    fails where neither may be had."""
    private = ["unshare", "--mount"]
    if os.geteuid() != 0:  # a user namespace, where the user is root, may mount its own
        private = ["unshare", "--user", "--map-root-user", "--mount"]
    if shutil.which("unshare") is None:
        pytest.fail("this test needs util-linux's unshare, to mount a tmpfs of its own")
    with tempfile.TemporaryDirectory() as where:
        tried = subprocess.run(
            [*private, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", where],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    if tried.returncode != 0:
        pytest.fail(
            "could not mount a tmpfs in a mount namespace of the test's own (run the tests as "
            f"root, as CI does, or allow unprivileged user namespaces): {tried.stderr.strip()}"
        )
    return private


def _on_a_full_disk(disk: Path, state: str) -> dict[str, Any]:
    """The scenario in a mount namespace of its own, ``disk`` a tmpfs there; what it saw."""
    disk.mkdir()
    done = subprocess.run(
        [
            *_private_tmpfs(),
            "sh",
            "-c",
            f'mount -t tmpfs -o size={DISK_SIZE} tmpfs "$0" && exec "$@"',
            str(disk),
            sys.executable,
            "-c",
            textwrap.dedent(_ON_A_FULL_DISK),
            str(disk),
            state,
            textwrap.dedent(_WRITER),
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


STATES = {
    "closed": ["owners", "runs.sqlite3"],
    "crash": ["owners", "runs.sqlite3", "runs.sqlite3-shm", "runs.sqlite3-wal"],
    "hold": ["owners", "runs.sqlite3", "runs.sqlite3-shm", "runs.sqlite3-wal"],
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_a_fresh_process_serves_reads_from_a_store_on_a_full_disk_and_fails_writes_cleanly(
    tmp_path: Path, state: str
) -> None:
    """And a server that started there takes writes again once there is room."""
    seen = _on_a_full_disk(tmp_path / "disk", state)
    assert seen["files"] == STATES[state] and seen["free"] == 0
    answers = seen["answers"]
    for tool in ("list_runs", "get_run_result", "list_projects", "get_project_data"):
        assert answers[tool].get("ok") is True, (tool, answers[tool])
    runs = {run["run_id"]: run["status"] for run in answers["list_runs"]["payload"]["runs"]}
    # Its process gone but for "hold", the running run shows as last written (no room to mark it).
    assert runs == {"a" * 32: "succeeded", "b" * 32: "running"}
    items = answers["get_run_result"]["payload"]["items"]
    assert [item["item"]["text"] for item in items] == ["page 0", "page 1", "page 2"]
    projects = answers["list_projects"]["payload"]["projects"]
    assert [project["name"] for project in projects] == ["tides"]
    rows = answers["get_project_data"]["payload"]["rows"]
    assert sorted(row["data"]["text"] for row in rows) == ["page 0", "page 1", "page 2"]
    refused = answers["save_project"]
    assert refused.get("ok") is False, refused
    error = refused["payload"]["error"]
    assert error["code"] == "store_error" and error["retryable"] is True
    assert "disk is full" in error["message"]
    assert "nothing it had committed is lost" in error["message"]
    assert seen["room_again"] == ["more", "tides"]
