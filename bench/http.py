"""HTTP benchmark: get_version over /mcp and /v1 at 1, 10 and 50 concurrent clients.

netglean serve (operator caps lifted so 50 clients from one address are not throttled; also with
--resumable) against a minimal one-tool server on the same SDK's streamable HTTP app. Each client
keeps one connection (and, for /mcp, one session) and calls in a loop for a fixed time.

And a session flood (``session_flood``): one address opens thousands of MCP sessions and never
closes them, against netglean serve at its default caps: how fast, the server's resident memory
before and after, and what a second address then gets when it opens one.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
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
_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_version", "arguments": {}},
}
_MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{command} did not start")


async def _mcp_client(base: str, until: float, latencies: list[float], errors: list[str]) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
        init = await client.post("/mcp", json=_INIT)
        headers = {
            "mcp-session-id": init.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await client.post(
            "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        # at least one call each, even when opening 50 sessions takes the whole of a short run
        while True:
            started = time.perf_counter()
            response = await client.post("/mcp", json=_CALL, headers=headers)
            latencies.append(time.perf_counter() - started)
            if (
                response.status_code != 200
                or '"result"' not in response.text
                or '"isError":true' in response.text
            ):
                errors.append(f"{response.status_code} {response.text[:80]}")
            if time.perf_counter() >= until:
                return


async def _open_sessions(base: str, sessions: int, width: int) -> int:
    """Open ``sessions`` sessions, ``width`` at a time; the 429s (calls in flight) it retried."""
    left = iter(range(sessions))
    retries = 0

    async def opener(client: httpx.AsyncClient) -> None:
        nonlocal retries
        for _ in left:
            while (answer := await client.post("/mcp", json=_INIT)).status_code == 429:
                retries += 1
                await asyncio.sleep(0.01)
            if answer.status_code != 200:
                raise RuntimeError(f"initialize got {answer.status_code}: {answer.text[:200]}")

    async with httpx.AsyncClient(base_url=base, headers=_MCP_HEADERS, timeout=60) as client:
        await asyncio.gather(*(opener(client) for _ in range(width)))
    return retries


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/{pid}/status has no VmRSS")


def session_flood(
    sessions: int = 10_000,
    width: int = 8,
    flags: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One address (127.0.0.1) opens ``sessions`` MCP sessions and keeps them; then another
    (127.0.0.2) opens one. ``flags`` go to netglean serve."""
    port = _free_port()
    process = _start([sys.executable, "-m", "netglean", "serve", "--port", str(port), *flags], port)
    base = f"http://127.0.0.1:{port}"
    try:
        httpx.get(f"{base}/healthz", timeout=30)
        before = _resident_mb(process.pid)
        started = time.perf_counter()
        retries = asyncio.run(_open_sessions(base, sessions, width))
        seconds = time.perf_counter() - started
        after = _resident_mb(process.pid)
        elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=elsewhere, timeout=30) as second:
            answer = second.post(f"{base}/mcp", json=_INIT, headers=_MCP_HEADERS)
    finally:
        process.terminate()
        process.wait(10)
    return {
        "sessions": sessions,
        "seconds": seconds,
        "sessions_per_s": sessions / seconds,
        "retries_429": retries,
        "rss_before_mb": before,
        "rss_after_mb": after,
        "second_address_status": answer.status_code,
    }


async def _rest_client(base: str, until: float, latencies: list[float], errors: list[str]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        while True:
            started = time.perf_counter()
            response = await client.post("/v1/tools/get_version", json={})
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200 or not response.json().get("ok"):
                errors.append(f"{response.status_code} {response.text[:80]}")
            if time.perf_counter() >= until:
                return


async def _load(base: str, path: str, clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    worker = _mcp_client if path == "/mcp" else _rest_client
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    await asyncio.gather(*(worker(base, until, latencies, errors) for _ in range(clients)))
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "throughput": len(latencies) / elapsed,
        "p50_ms": ordered[len(ordered) // 2] * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "errors": len(errors),
    }


def run(
    concurrency: tuple[int, ...] = (1, 10, 50), seconds: float = 3.0, repeats: int = 3
) -> dict[str, Any]:
    names = ("netglean", "netglean-resumable", "sdk-minimal")
    ports = {name: _free_port() for name in names}
    lifted = ["--max-client-calls", "1000", "--max-concurrent-calls", "64"]
    serve = [sys.executable, "-m", "netglean", "serve", *lifted, "--port"]
    commands = {
        "netglean": [*serve, str(ports["netglean"])],
        "netglean-resumable": [*serve, str(ports["netglean-resumable"]), "--resumable"],
        "sdk-minimal": [
            sys.executable,
            str(ROOT / "bench/peers/lowlevel_http.py"),
            str(ports["sdk-minimal"]),
        ],
    }
    targets = [
        ("netglean", "/mcp"),
        ("netglean-resumable", "/mcp"),
        ("netglean", "/v1"),
        ("sdk-minimal", "/mcp"),
    ]
    processes = [_start(commands[name], ports[name]) for name in commands]
    rows: dict[str, dict[int, list[dict[str, Any]]]] = {
        f"{n} {d}": {c: [] for c in concurrency} for n, d in targets
    }
    try:
        for name, path in targets:  # warm-up, untimed
            asyncio.run(_load(f"http://127.0.0.1:{ports[name]}", path, 2, 0.5))
        for _ in range(repeats):
            for clients in concurrency:
                for name, path in targets:
                    base = f"http://127.0.0.1:{ports[name]}"
                    result = asyncio.run(_load(base, path, clients, seconds))
                    rows[f"{name} {path}"][clients].append(result)
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)
    summary: dict[str, Any] = {"seconds": seconds, "repeats": repeats, "targets": {}}
    for target, by_clients in rows.items():
        summary["targets"][target] = {
            str(clients): {
                "throughput": statistics.median(r["throughput"] for r in runs),
                "p50_ms": statistics.median(r["p50_ms"] for r in runs),
                "p99_ms": statistics.median(r["p99_ms"] for r in runs),
                "errors": sum(r["errors"] for r in runs),
            }
            for clients, runs in by_clients.items()
        }
    base = summary["targets"]["sdk-minimal /mcp"]
    for entry in summary["targets"].values():
        for clients, row in entry.items():
            row["throughput_ratio"] = row["throughput"] / base[clients]["throughput"]
    return summary
