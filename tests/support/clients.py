"""The official MCP client made callable from plain (and hypothesis) tests: a session in a
background loop."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client import session as client_session

from netglean.calls.runner import ToolRunner

client_session.DISCOVER_TIMEOUT_SECONDS = 120.0
"""The client's first request (server/discover) waits for a spawned server's start-up, slow on a
busy machine: generous, as every wait for a start-up here (the SDK's 10 s timed out under load and
took its fallback path). A server that exits ends the wait at once: its stdio closes."""


@dataclass
class SyncClient:
    """An MCP client session living in a background event loop, callable from plain (hypothesis)
    tests."""

    portal: BlockingPortal
    client: Client

    def call(self, name: str, arguments: Any) -> Any:
        return self.portal.call(self.client.call_tool, name, arguments)

    def run(self, method: str, *args: Any) -> Any:
        return self.portal.call(getattr(self.client, method), *args)


def open_client(
    server: Any, runner: ToolRunner | None = None
) -> AbstractContextManager[SyncClient]:
    """A client session; an in-process server's ``runner`` hosts its runs in the session's own loop,
    as a transport does, and is closed there at the end."""

    @contextmanager
    def session() -> Iterator[SyncClient]:
        with start_blocking_portal() as portal:
            client = server if isinstance(server, Client) else Client(server)
            hosting = (
                portal.wrap_async_context_manager(runner.services.runs.hosting())
                if runner
                else nullcontext()
            )
            try:
                with hosting, portal.wrap_async_context_manager(client):
                    yield SyncClient(portal, client)
            finally:
                if runner is not None:
                    portal.call(runner.services.aclose)

    return session()
