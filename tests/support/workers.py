"""`netglean worker` child processes and the `netglean serve` that hands them runs, on one
PostgreSQL store, for the worker tests and bench/workers.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from tests.support.httpserver import HttpServer
from tests.support.paths import PROJECT

READY = "netglean worker ready"
START_BOUND = 120.0
"""Seconds a worker may take to start on a busy machine (it says so the moment it is ready)."""
QUIET = ("--read-workers", "1", "--log-level", "info")
"""Flags that keep a test's processes light on a two-core machine."""


class WorkerProcess:
    """``netglean worker`` with ``args``, once it has said it is ready."""

    def __init__(self, *args: str, env: Mapping[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "netglean", "worker", *QUIET, *args],
            cwd=PROJECT,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._stderr: list[str] = []
        self._ready = threading.Event()
        self._pump = threading.Thread(target=self._read, daemon=True)
        self._pump.start()
        if not self._ready.wait(START_BOUND) or self.process.poll() is not None:
            self.process.kill()
            raise AssertionError("netglean worker did not start:\n" + self.stderr)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)
            if READY in line:
                self._ready.set()
        self._ready.set()

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    def kill(self) -> None:
        """-9: no stop of any kind; its owner lock and its procrastinate heartbeat go with it."""
        self.process.kill()
        self.process.wait(30)

    def stop(self, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self._pump.join(5)
        return code

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


def fleet_env(store: str) -> dict[str, str]:
    """The environment of a server that hands runs to workers, and of the workers."""
    return {"NETGLEAN_STORE": store, "NETGLEAN_RUN_WORKERS": "1"}


def dispatching_server(store: str, *flags: str) -> HttpServer:
    return HttpServer(*QUIET, *flags, env=fleet_env(store))


def call(server: HttpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.post(
        f"{server.base}/v1/tools/{tool}", json=arguments, timeout=120
    ).json()
    return answer


def start(server: HttpServer, tool: str, arguments: dict[str, Any]) -> str:
    answer = call(server, tool, {**arguments, "wait": False})
    assert answer["ok"], answer
    run_id: str = answer["payload"]["run"]["run_id"]
    return run_id


def run_of(server: HttpServer, run_id: str) -> dict[str, Any]:
    answer = call(server, "get_run_status", {"run_id": run_id})
    assert answer["ok"], answer
    run: dict[str, Any] = answer["payload"]["run"]
    return run


def items(server: HttpServer, run_id: str) -> list[dict[str, Any]]:
    """Every stored item of a run, paged through get_run_result."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = call(server, "get_run_result", {"run_id": run_id, "page": page, "per_page": 200})
        assert answer["ok"], answer
        found += [item["item"] for item in answer["payload"]["items"]]
        if not answer["payload"]["has_more"]:
            return found
        page += 1


def query(store: str, sql: str, values: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Rows of the store's tables, read below the interface (what a test counts)."""
    import psycopg

    with psycopg.connect(store) as connection:
        return connection.execute(sql, values).fetchall()  # type: ignore[arg-type]
