"""Stdio server benchmarks: netglean against minimal servers on the same SDK, side by side.

A raw line-level client (the same for every server) measures spawn -> initialize
answer, spawn -> tools/list answer, and N sequential tools/call round trips.
Servers take turns within each repetition so machine noise hits all of them alike.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
SERVERS: dict[str, list[str]] = {
    "netglean": [sys.executable, "-m", "netglean", "mcp"],
    "sdk-lowlevel": [sys.executable, str(ROOT / "bench/peers/lowlevel_server.py")],
    "sdk-mcpserver": [sys.executable, str(ROOT / "bench/peers/mcpserver_server.py")],
}
_INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message).encode() + b"\n")
    stream.flush()


def _answer(stream: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("server closed its output")
        message = json.loads(line)
        if message.get("id") == request_id:
            if "error" in message:
                raise RuntimeError(f"server answered with an error: {message['error']}")
            return message


def _spawn(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )


def startup(command: list[str]) -> tuple[float, float]:
    """Seconds from spawn to the initialize answer, and from spawn to the tools/list answer."""
    started = time.perf_counter()
    process = _spawn(command)
    assert process.stdin is not None and process.stdout is not None
    _send(process.stdin, _INIT)
    _answer(process.stdout, 0)
    initialized = time.perf_counter() - started
    _send(process.stdin, _INITIALIZED)
    _send(process.stdin, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    _answer(process.stdout, 1)
    listed = time.perf_counter() - started
    process.stdin.close()
    process.wait(timeout=10)
    return initialized, listed


class LineClient:
    """A raw JSON-RPC line client for one spawned stdio server: the same client for every server
    measured."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self._process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._in, self._out = self._process.stdin, self._process.stdout
        _send(self._in, _INIT)
        _answer(self._out, 0)
        _send(self._in, _INITIALIZED)
        self._next_id = 1

    @property
    def pid(self) -> int:
        """The server's process id (bench.peers reads its CPU)."""
        return self._process.pid

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tools/call result; a result flagged isError raises."""
        request_id, self._next_id = self._next_id, self._next_id + 1
        params = {"name": name, "arguments": arguments}
        _send(
            self._in, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        )
        result: dict[str, Any] = _answer(self._out, request_id)["result"]
        if result.get("isError"):
            raise RuntimeError(f"{name} failed: {json.dumps(result)[:300]}")
        return result

    def close(self) -> None:
        self._in.close()
        self._process.wait(timeout=30)


def sequential_calls(command: list[str], calls: int) -> float:
    """Seconds for ``calls`` sequential tools/call get_version round trips on one connection."""
    client = LineClient(command)
    started = time.perf_counter()
    for _ in range(calls):
        client.call("get_version", {})
    elapsed = time.perf_counter() - started
    client.close()
    return elapsed


def run(startup_repeats: int = 15, call_repeats: int = 5, calls: int = 1000) -> dict[str, Any]:
    for command in SERVERS.values():  # warm the bytecode caches once, untimed
        startup(command)
    spawn: dict[str, list[tuple[float, float]]] = {name: [] for name in SERVERS}
    for _ in range(startup_repeats):
        for name, command in SERVERS.items():
            spawn[name].append(startup(command))
    loops: dict[str, list[float]] = {name: [] for name in SERVERS}
    for _ in range(call_repeats):
        for name, command in SERVERS.items():
            loops[name].append(sequential_calls(command, calls))
    results: dict[str, Any] = {
        "calls": calls,
        "startup_repeats": startup_repeats,
        "call_repeats": call_repeats,
        "servers": {},
    }
    for name in SERVERS:
        results["servers"][name] = {
            "initialize_ms": statistics.median(t[0] for t in spawn[name]) * 1000,
            "tools_list_ms": statistics.median(t[1] for t in spawn[name]) * 1000,
            "calls_s": statistics.median(loops[name]),
        }
    base = results["servers"]["sdk-lowlevel"]
    for entry in results["servers"].values():
        entry["initialize_ratio"] = entry["initialize_ms"] / base["initialize_ms"]
        entry["tools_list_ratio"] = entry["tools_list_ms"] / base["tools_list_ms"]
        entry["calls_ratio"] = entry["calls_s"] / base["calls_s"]
    return results
