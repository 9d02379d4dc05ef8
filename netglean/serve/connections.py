"""uvicorn, fitted to the front: what a connection may do before it has sent a request, and shutting
down.

ASGI middleware sees a request only once its headers are parsed, and uvicorn's h11 protocol waits
for them without end: a client sending a header byte a second holds a connection open for good
(slowloris), and one address can open as many as it likes. Two rules apply here instead:

- Headers have a deadline: ``header_timeout`` seconds from when a connection opens, or from the
  end of its last response, until the next request's headers are in. A connection that began a
  request then gets a 408; one that sent nothing is just closed. Once a request is being served,
  the Guard's deadlines (``request_timeout`` for the body) apply instead.
- One peer address holds at most ``max_client_connections`` connections open; a further one
  gets a 429 and is closed at once.

Both answers are written straight to the socket, before any request has been read, and say
nothing of what the client sent.

On shutdown uvicorn waits its grace for requests to finish, then cancels them: a plain-text 500
and a traceback. DrainingServer runs netglean's drain alongside (the tool calls end as
``unavailable`` envelopes at the grace, the standalone streams are closed), so uvicorn's own
deadline, set later, is only a backstop for what the drain cannot end.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

import anyio
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from netglean.core.errors import ConfigurationError
from netglean.core.settings import Settings

log = logging.getLogger("netglean.http")


def _response(status: str, code: str, message: str, *headers: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = [
        f"HTTP/1.1 {status}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        *headers,
    ]
    return ("\r\n".join([*head, "connection: close"]) + "\r\n\r\n").encode() + body


HEADERS_TOO_SLOW = _response(
    "408 Request Timeout", "request_timeout", "The request headers did not arrive in time."
)


def _too_many_connections(most: int) -> bytes:
    return _response(
        "429 Too Many Requests",
        "too_many_requests",
        f"Too many connections open from this address: it holds {most}, its cap "
        f"(max_client_connections = {most}); close one or retry shortly.",
        "retry-after: 1",
    )


class FrontProtocol(H11Protocol):
    """uvicorn's h11 protocol with the header deadline and the per-address cap (see the module
    docstring)."""

    header_timeout: ClassVar[float]
    max_per_peer: ClassVar[int]
    too_many: ClassVar[bytes]
    """The answer to a connection past ``max_per_peer``, naming the cap and its setting."""
    open_by_peer: ClassVar[Counter[str]]
    """This server's open connections by peer address (each server gets its own subclass:
    front_protocol)."""

    _peer = ""
    _counted = False
    _headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._peer = self.client[0] if self.client else "?"
        if self.open_by_peer[self._peer] >= self.max_per_peer:
            log.info("refused a connection from %s: %d open already", self._peer, self.max_per_peer)
            transport.write(self.too_many)
            transport.close()
            return
        self.open_by_peer[self._peer] += 1
        self._counted = True
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None
        if self._counted:
            self._counted = False
            self.open_by_peer[self._peer] -= 1
            if not self.open_by_peer[self._peer]:
                del self.open_by_peer[self._peer]
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_headers()

    def _await_headers(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
        self._headers_due = self.loop.call_later(self.header_timeout, self._headers_overdue)

    def _headers_overdue(self) -> None:
        self._headers_due = None
        serving = self.cycle is not None and not self.cycle.response_complete
        if serving or self.transport.is_closing():
            return  # its headers came: the Guard's deadlines hold from here
        began = bool(self.conn.trailing_data[0])
        log.info(
            "closed a connection from %s: no request headers within %g s",
            self._peer,
            self.header_timeout,
        )
        if began:
            self.transport.write(HEADERS_TOO_SLOW)
        self.transport.close()


def front_protocol(settings: Settings) -> type[FrontProtocol]:
    """The protocol class for one server: its settings, and its own count of open connections."""

    class Protocol(FrontProtocol):
        header_timeout = settings.header_timeout
        max_per_peer = settings.max_client_connections
        too_many = _too_many_connections(settings.max_client_connections)
        open_by_peer: ClassVar[Counter[str]] = Counter()

    return Protocol


class DrainingServer(uvicorn.Server):
    """uvicorn's server, whose shutdown runs ``drain`` alongside its own (see the module
    docstring)."""

    def __init__(
        self, config: uvicorn.Config, drain: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        super().__init__(config)
        self._drain = drain

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        async with anyio.create_task_group() as tasks:
            # it runs before any request is read again: no call slips past it
            tasks.start_soon(self._drain)
            await super().shutdown(sockets)
            # uvicorn's backstop came first: what the drain still awaits is gone
            tasks.cancel_scope.cancel()


def check_listenable(host: str, port: int) -> None:
    """Refuse to start, in one line, when ``host``:``port`` cannot be listened on (a port in use, an
    address this machine does not have): uvicorn would log it and exit with a traceback of its
    own."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # as uvicorn binds: a TIME_WAIT port is free
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigurationError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server on that "
                "port? --port picks another; 0 takes a free one)"
            ) from None
