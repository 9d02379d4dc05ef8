"""A seed's client's view of netglean: `netglean mcp --compat SEED` started as the seed's own
clients start their server, over stdio (a spawned process, the official client on its pipes) or over
streamable HTTP (`netglean mcp --compat SEED --transport http`), for the per-seed suites in
tests/seeds/SEED/."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import httpx2
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.httpserver import HttpServer
from tests.support.paths import PROJECT

TRANSPORTS = ("stdio", "http")
"""What every seed suite's client fixture is parametrized over: its seed's documented calls run over
both."""
LOCAL_SITE = {
    **TEST_ENVIRONMENT,
    "NETGLEAN_ALLOW_PRIVATE_HOSTS": "1",
    "NETGLEAN_HOST_INTERVAL": "0",
    "NETGLEAN_READ_WORKERS": "0",
}
"""The operator settings of a server a suite points at its fixture site on 127.0.0.1 (loopback
allowed, nothing but 127.0.0.1, no spacing; reading in the server's own threads, to spare the shared
machine's cores)."""


@contextmanager
def seed_client(
    seed: str,
    transport: str,
    *flags: str,
    env: Mapping[str, str] | None = None,
    http_command: tuple[str, ...] = ("mcp", "--transport", "http"),
) -> Iterator[SyncClient]:
    """The official MCP client connected to `netglean mcp --compat SEED` over ``transport`` (stdio
    or http), started with ``flags`` and the environment ``env`` adds to LOCAL_SITE; over http, the
    server is started with ``http_command`` (the seed's HTTP start command's equivalent: `mcp
    --transport http`, or `serve`)."""
    environment = {**os.environ, **LOCAL_SITE, **(env or {})}
    if transport == "stdio":
        command = ["-m", "netglean", "mcp", "--compat", seed, *flags]
        params = StdioServerParameters(
            command=sys.executable, args=command, cwd=str(PROJECT), env=environment
        )
        with open_client(params) as client:
            yield client
        return
    with HttpServer("--compat", seed, *flags, env=environment, command=http_command) as server:
        http = httpx2.AsyncClient(timeout=60)
        with open_client(streamable_http_client(f"{server.base}/mcp", http_client=http)) as client:
            yield client
