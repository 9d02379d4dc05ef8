"""/mcp's sessions, capped per client address and in all: when full, idle ones go, not new clients.

The SDK keeps every session it opens until its client deletes it or it sits idle for
``session_idle_timeout``, and its one cap (10,000 by default) refuses every new session once met:
one client opening sessions in a loop held all of them within about a minute (some 400 MiB), and
every other client got 503 until they expired, up to 30 minutes later. The gate in front of the
SDK's app keeps a ledger of its own instead (the SDK's cap is off):

- A session belongs to the peer address whose request opened it (netglean.serve.guard says why
  the address is the client), and is *idle* when none of its requests is being served: no call,
  no open GET stream (the SDK's idle timeout reads "idle" the same way). A session waiting on its
  stream for the server's notifications is in use and never closed under its client; the caps
  count it all the same, so a table full of busy sessions refuses the next one.
- A request that may open a session (a POST without ``Mcp-Session-Id`` on a 2025 protocol) holds
  a place while it is served. When its peer already holds ``max_client_sessions``, that peer's
  least recently used idle session is closed for it; with none idle it gets 429. When the server
  holds ``max_sessions``, the least recently used idle session of any peer is closed; with none
  idle, 503. Each refusal is a JSON-RPC error naming the cap and its setting, with Retry-After.
- A session is closed as its client's DELETE would close it, through the SDK (its streams and
  its task end, its table forgets it): its id then answers 404, and its client opens a new one.

Sessions the SDK ended on its own (idle timeout) stay in the ledger until their id answers 404 or
a cap needs room: they are idle, so they are the first closed, and closing one costs a 404.
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict
from dataclasses import dataclass

import anyio
import mcp_types as types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from netglean.core.settings import Settings
from netglean.serve.guard import peer_address

log = logging.getLogger("netglean.http")

SESSION_HEADER = b"mcp-session-id"
PEER_RETRY_AFTER = "1"
"""A peer's own sessions free up as its own calls end."""
SERVER_RETRY_AFTER = "5"
"""The server's free up as other clients' calls end, or they go."""


@dataclass(slots=True)
class _Session:
    peer: str
    in_flight: int = 0


class SessionGate:
    """ASGI middleware around the SDK's /mcp app (stateful mode); see the module docstring."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.max_per_peer = settings.max_client_sessions
        self.max_total = settings.max_sessions
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        """Every session the SDK was seen to open, by id, the least recently used first."""
        self._by_peer: dict[str, OrderedDict[str, _Session]] = {}
        """The same sessions by peer, each peer's least recently used first."""
        self._opening: Counter[str] = Counter()
        """Requests being served that may open a session, by peer: each holds a place."""

    def _places(self, peer: str | None = None) -> int:
        """Places taken, on the server or by ``peer``: sessions, and requests that may open one."""
        if peer is None:
            return len(self._sessions) + self._opening.total()
        return len(self._by_peer.get(peer, ())) + self._opening[peer]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        session_id = headers.get(SESSION_HEADER, b"").decode("latin-1")
        if session_id:
            await self._serve_session(session_id, scope, receive, send)
            return
        version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        if scope["method"] == "POST" and (not version or version in HANDSHAKE_PROTOCOL_VERSIONS):
            await self._serve_opening(peer_address(scope), scope, receive, send)
            return
        await self.app(scope, receive, send)  # no session to open: a 2026 request, or one refused

    async def _serve_session(
        self,
        session_id: str,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            await self.app(scope, receive, send)  # the SDK answers an unknown id: 404
            return
        status = 0

        async def watched_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        session.in_flight += 1
        self._touch(session_id, session)
        try:
            await self.app(scope, receive, watched_send)
        finally:
            session.in_flight -= 1
            if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
                self._forget(session_id)  # ended by its client, or by the SDK (idle, crashed)
            elif session_id in self._sessions:
                self._touch(session_id, session)

    async def _serve_opening(self, peer: str, scope: Scope, receive: Receive, send: Send) -> None:
        refusal, evicted = self._make_room(peer)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        opened = ""

        async def watched_send(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                headers = dict(message.get("headers", []))
                opened = headers.get(SESSION_HEADER, b"").decode("latin-1")
                if opened:  # the place this request held is now the session's, in one step
                    self._release_opening(peer)
                    session = _Session(peer, in_flight=1)
                    self._sessions[opened] = session
                    self._by_peer.setdefault(peer, OrderedDict())[opened] = session
            await send(message)

        self._opening[peer] += 1
        try:
            with anyio.CancelScope(shield=True):  # out of the ledger: they must end, come what may
                for session_id in evicted:
                    await self._close(session_id)
            await self.app(scope, receive, watched_send)
        finally:
            session = self._sessions.get(opened) if opened else None
            if session is not None:
                session.in_flight -= 1
                self._touch(opened, session)
            elif not opened:
                self._release_opening(peer)

    def _make_room(self, peer: str) -> tuple[Response | None, list[str]]:
        """The refusal ``peer`` gets, or the sessions to close so that it may open one (the module
        docstring says which). Decided without an await: two requests cannot take one place."""
        if self._places(peer) >= self.max_per_peer:
            idle = self._least_recently_used_idle(self._by_peer.get(peer, OrderedDict()))
            if idle is None:
                return _refusal(429, "max_client_sessions", self.max_per_peer, PEER_RETRY_AFTER), []
            log.info("closing an idle MCP session of %s for its next (max_client_sessions)", peer)
            self._forget(idle)
            return None, [idle]  # one place fewer on the server too
        if self._places() >= self.max_total:
            idle = self._least_recently_used_idle(self._sessions)
            if idle is None:
                return _refusal(503, "max_sessions", self.max_total, SERVER_RETRY_AFTER), []
            owner = self._sessions[idle].peer
            log.info("closing an idle MCP session of %s for one of %s (max_sessions)", owner, peer)
            self._forget(idle)
            return None, [idle]
        return None, []

    @staticmethod
    def _least_recently_used_idle(sessions: OrderedDict[str, _Session]) -> str | None:
        return next((key for key, session in sessions.items() if not session.in_flight), None)

    def _touch(self, session_id: str, session: _Session) -> None:
        self._sessions.move_to_end(session_id)
        self._by_peer[session.peer].move_to_end(session_id)

    def _forget(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        mine = self._by_peer[session.peer]
        del mine[session_id]
        if not mine:
            del self._by_peer[session.peer]

    def _release_opening(self, peer: str) -> None:
        self._opening[peer] -= 1
        if not self._opening[peer]:
            del self._opening[peer]

    async def _close(self, session_id: str) -> None:
        """End a session as its client's DELETE would: the SDK's own teardown runs (its transport
        terminated, its streams and task ended, its table emptied); a 404 if it had ended."""
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "root_path": "",
            "headers": [(SESSION_HEADER, session_id.encode("latin-1"))],
            "client": None,
            "server": None,
        }
        asked = False

        async def receive() -> Message:
            nonlocal asked
            if asked:
                return {"type": "http.disconnect"}
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            pass

        await self.app(scope, receive, discard)


def _refusal(status: int, setting: str, limit: int, retry_after: str) -> Response:
    """A 429 or 503 whose JSON-RPC error (the SDK's shape for /mcp refusals, which its client shows)
    names the cap that was met and the setting that raises it."""
    holder, advice = (
        ("This address holds", f"finish or end one (DELETE /mcp), or retry in {retry_after} s")
        if status == 429
        else ("The server holds", f"retry in {retry_after} s")
    )
    message = (
        f"{holder} {limit} MCP sessions, its cap ({setting} = {limit}), each with a request in "
        f"flight or a stream open, so none could be closed for a new one: {advice}."
    )
    data = {"setting": setting, "limit": limit}
    error = types.ErrorData(code=types.INTERNAL_ERROR, message=message, data=data)
    answer = types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
    return Response(
        answer.model_dump_json(by_alias=True, exclude_unset=True),
        status_code=status,
        headers={"retry-after": retry_after},
        media_type="application/json",
    )
