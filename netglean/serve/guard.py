"""The HTTP transport's gate: every request passes these checks before any route sees it.

In order: Host allow-list (DNS rebinding), Origin allow-list (a web page must not
drive the tools), bearer token on /mcp and /v1 (constant-time compare; a feed under
/feeds takes its project's secret instead, netglean.serve.feeds), a cap on one
client's requests in flight, and a cap and deadline on the request body. A
refusal is a small JSON body that says what was refused and never echoes the
request back; no header value, token or body is ever logged.

A client is its peer address: the one thing about a request it cannot choose. An
Mcp-Session-Id is the client's to invent, and forwarding headers are read only from the
operator's own proxies (trusted_proxies: uvicorn then puts the address X-Forwarded-For names
in the peer's place), so neither can buy more slots. The bearer token cannot tell clients
apart either: there is one per server, the same for all.

On shutdown, once the tool calls are drained, ``end_streams`` ends the standalone /mcp
streams (GET), which never end by themselves: each gets its closing chunk, where uvicorn
would otherwise wait out its grace and cancel them with a traceback.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from netglean.core.rest_status import refusal_body
from netglean.core.settings import Settings

log = logging.getLogger("netglean.http")

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
PROTECTED_PREFIXES = ("/mcp", "/v1/")


def is_loopback(host: str) -> bool:
    if host.strip("[]") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in {"0.0.0.0", "::", ""}


def _split_host(value: str) -> tuple[str, str]:
    """``host[:port]`` (IPv6 in brackets) -> (lower-case host without brackets, port or '')."""
    value = value.strip().lower()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, rest.removeprefix(":")
    host, _, port = value.rpartition(":") if value.count(":") == 1 else (value, "", "")
    return host, port


def _csv(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@dataclass(frozen=True, slots=True)
class Admission:
    """Which Host and Origin values this server answers to, derived once from the settings."""

    hostnames: frozenset[str]
    exact_hosts: frozenset[str]
    origins: frozenset[str]
    check_host: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> Admission:
        names = (
            set(LOOPBACK_NAMES)
            if is_loopback(settings.host) or is_wildcard(settings.host)
            else set()
        )
        if not is_wildcard(settings.host):
            names.add(_split_host(settings.host)[0])
        exact: set[str] = set()
        extra = _csv(settings.allowed_hosts)
        for entry in extra:
            name, port = _split_host(entry)
            if port:
                exact.add(entry.lower())
            else:
                names.add(name)
        origins = frozenset(origin.rstrip("/").lower() for origin in _csv(settings.allowed_origins))
        # Bound to every interface with no names given, the Host cannot be predicted; the token that
        # such a bind requires (a web page cannot know it) is then what stops a rebinding attack.
        check_host = not (is_wildcard(settings.host) and not extra)
        return cls(frozenset(names), frozenset(exact), origins, check_host)

    def host_allowed(self, header: str | None) -> bool:
        if not self.check_host:
            return True
        if not header:
            return False
        return (
            _split_host(header)[0] in self.hostnames or header.strip().lower() in self.exact_hosts
        )

    def origin_allowed(self, header: str | None) -> bool:
        if header is None:
            # not a browser, or a same-origin navigation: nothing to defend against here
            return True
        origin = header.strip().rstrip("/").lower()
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in {"http", "https"} and (parts.hostname or "") in self.hostnames


def peer_address(scope: Scope) -> str:
    """The address the connection came from (uvicorn reads it from the socket)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


class _Refused(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class Guard:
    """ASGI middleware wrapping the whole app; see the module docstring for the order of checks."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.admission = Admission.from_settings(settings)
        self._token = settings.token.encode()
        self._in_flight: Counter[str] = Counter()
        self._streams: set[anyio.CancelScope] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
        }
        path: str = scope.get("path", "")
        status = self._admit(headers, path)
        if status:
            log.info("refused %s %s: %d", scope.get("method"), path, status)
            await _refuse(send, status)
            return
        counted = scope.get("method") == "POST" and path.startswith(PROTECTED_PREFIXES)
        client = peer_address(scope)
        if counted:
            if self._in_flight[client] >= (most := self.settings.max_client_calls):
                log.info("refused %s %s: 429 (client at its cap)", scope.get("method"), path)
                reason = (
                    f"This address has {most} calls in flight, its cap (max_client_calls = {most}):"
                    " retry when one ends."
                )
                await _refuse(send, 429, {"retry-after": "1"}, reason)
                return
            self._in_flight[client] += 1
        try:
            if scope.get("method") == "GET" and path == "/mcp":
                await self._stream(scope, receive, send, headers)
            else:
                await self._forward(scope, receive, send, headers)
        finally:
            if counted:
                self._in_flight[client] -= 1
                if not self._in_flight[client]:
                    del self._in_flight[client]

    def _admit(self, headers: dict[str, str], path: str) -> int:
        if not self.admission.host_allowed(headers.get("host")):
            return 421
        if not self.admission.origin_allowed(headers.get("origin")):
            return 403
        if self._token and path.startswith(PROTECTED_PREFIXES):
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode(), self._token
            ):
                return 401
        length = headers.get("content-length")
        if length is not None and (
            not length.isdigit() or int(length) > self.settings.max_body_bytes
        ):
            return 413
        return 0

    def end_streams(self) -> None:
        """End every standalone /mcp stream (shutting down: they would never end by themselves)."""
        for stream in list(self._streams):
            stream.cancel()

    async def _stream(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]
    ) -> None:
        """Serve a standalone stream until its client goes or end_streams() ends it with its closing
        chunk."""
        body_open = False

        async def watched_send(message: Message) -> None:
            nonlocal body_open
            body_open = message["type"] == "http.response.start" or bool(message.get("more_body"))
            await send(message)

        with anyio.CancelScope() as stream:
            self._streams.add(stream)
            try:
                await self._forward(scope, receive, watched_send, headers)
            finally:
                self._streams.discard(stream)
        if stream.cancelled_caught and body_open:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]
    ) -> None:
        """Run the app with the body capped in size and time; answer 413/408 if it overruns."""
        limit = self.settings.max_body_bytes
        deadline = anyio.current_time() + self.settings.request_timeout
        received = 0
        body_done = False
        started = False
        refused: list[int] = []

        async def capped_receive() -> Message:
            nonlocal received, body_done
            if body_done or refused:
                return await receive()
            try:
                with anyio.fail_after(max(deadline - anyio.current_time(), 0)):
                    message = await receive()
            except TimeoutError:
                refused.append(408)
                return {"type": "http.disconnect"}
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused.append(413)
                    return {"type": "http.disconnect"}
                body_done = not message.get("more_body", False)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                if refused:
                    raise _Refused(refused[0])
                started = True
            await send(message)

        with contextlib.suppress(_Refused):  # the app tried to answer a body we had already refused
            await self.app(scope, capped_receive, tracked_send)
        if refused and not started:
            log.info("refused %s %s: %d", scope.get("method"), scope.get("path"), refused[0])
            await _refuse(send, refused[0])


async def _refuse(
    send: Send, status: int, extra_headers: dict[str, str] | None = None, reason: str = ""
) -> None:
    body = json.dumps(refusal_body(status, reason)).encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="netglean"'))
    headers += [(k.encode(), v.encode()) for k, v in (extra_headers or {}).items()]
    message: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(message)
    await send({"type": "http.response.body", "body": body})
