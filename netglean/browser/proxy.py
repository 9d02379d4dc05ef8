"""The browser's only way out: a forward proxy on 127.0.0.1 that admits each connection under the
address policy.

Route interception is not a boundary (a service worker's fetches and a worker's WebSockets never
reach it), so the browser is started with this proxy as its only route to the network and its own
DNS disabled (netglean.browser.pool). For each connection the browser asks for (``CONNECT
host:port`` for TLS and WebSockets, an absolute-form request for plain http), the proxy asks the
fetcher where it may go (``Fetcher.connect_target``: the host resolved, every address checked and
the connection pinned, the fetcher's one implementation of the policy), connects there, and only
then passes bytes; anything refused is answered 403 and logged nowhere a page could read it. Only
what a page's router asked for passes (scheme, host and port): a tunnel only to a TLS origin, and a
plain-http request only with robots.txt asked for its path (the hops of a redirect and a download
link, which no router sees). A plain-http connection carries one request: a browser that keeps it
open for another host must come back through the policy.
"""

from __future__ import annotations

import contextlib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import anyio
from anyio.abc import ByteStream, SocketStream

from netglean.core.errors import BlockedAddress, ToolError
from netglean.net.urls import parse_url

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher

HEAD_LIMIT = 64 * 1024
"""The most bytes of request head the proxy reads before it refuses: a browser's heads are a few
kilobytes."""
CHUNK = 64 * 1024
CONNECT_TIMEOUT = 10.0
HEAD_TIMEOUT = 10.0
"""Seconds a connection may take to say where it goes: a head sent a byte at a time holds nothing
for long."""
EXPECTED = 10_000
_HOP_HEADERS = frozenset(
    {b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive"}
)


@dataclass
class Refusal:
    """A connection the proxy refused: the host and port asked for, and why."""

    host: str
    port: int
    reason: str
    error: ToolError | None = None
    """The refusal as the policy worded it (a render whose page was refused reports it)."""
    unasked: bool = False
    """Refused because no page asked for the host: Chromium's own calls home, or a redirect no
    router saw."""


@dataclass
class ProxyLog:
    """What passed through: connections admitted (host, port) and refused, newest last, bounded."""

    admitted: list[tuple[str, int]] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    refusals: int = 0
    """Refusals ever logged (the list keeps the newest): a navigation asks for those made since it
    began."""
    limit: int = 1_000

    def admit(self, host: str, port: int) -> None:
        self.admitted.append((host, port))
        del self.admitted[: -self.limit]

    def refuse(self, refusal: Refusal) -> None:
        self.refusals += 1
        self.refused.append(refusal)
        del self.refused[: -self.limit]


class PolicyProxy:
    """A forward proxy that connects only where ``fetcher``'s address policy allows."""

    def __init__(self, fetcher: Fetcher) -> None:
        self._fetcher = fetcher
        self.log = ProxyLog()
        self.port = 0
        self._listener: Any = None
        self._expected: OrderedDict[tuple[str, str, int], Fetcher] = OrderedDict()

    def expect(self, scheme: str, host: str, port: int, fetcher: Fetcher | None = None) -> None:
        """Let connections to ``host``:``port`` through (still under the address policy) for
        ``scheme``: a page's router admitted a request there, under ``fetcher`` (the call's view:
        its robots.txt rule), which the proxy then asks too. Anything no page asked for (the browser
        calling home, a worker's socket to a host or port the page never named, a tunnel to a
        plain-http port) is refused. The newest EXPECTED are kept."""
        key = (scheme, host.strip("[]").lower(), port)
        self._expected[key] = fetcher or self._fetcher
        self._expected.move_to_end(key)
        while len(self._expected) > EXPECTED:
            self._expected.popitem(last=False)

    async def serve(
        self, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen on 127.0.0.1 (a free port, given to ``task_status``) until cancelled."""
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self._listener = listener
        self.port = int(listener.extra(anyio.abc.SocketAttribute.local_port))
        async with listener:
            task_status.started(self.port)
            await listener.serve(self._client)

    async def _client(self, client: SocketStream) -> None:
        async with client:
            try:
                with anyio.fail_after(HEAD_TIMEOUT):
                    head, rest = await _read_head(client)
            except (anyio.EndOfStream, anyio.BrokenResourceError, ValueError, TimeoutError):
                return
            try:
                await self._handle(client, head, rest)
            except (
                anyio.EndOfStream,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
                OSError,
            ):
                return
            except Exception:  # a head nobody could parse: refused, and the proxy serves on
                await _answer(client, 400, "Bad Request")

    async def _handle(self, client: SocketStream, head: bytes, rest: bytes) -> None:
        request_line, _, header_block = head.partition(b"\r\n")
        try:
            method, target, version = request_line.decode("latin-1").split(" ")
        except ValueError:
            await _answer(client, 400, "Bad Request")
            return
        if method.upper() == "CONNECT":
            host, port = _host_port(target, 443)
        else:
            parts = urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                await _answer(client, 400, "Bad Request")
                return
            host, port = parts.hostname, parts.port or 80
        tunnel = method.upper() == "CONNECT"
        asked = self._expected.get(("https" if tunnel else "http", host.strip("[]").lower(), port))
        unasked = asked is None
        fetcher = asked or self._fetcher
        try:
            # A tunnel only to a TLS origin a page asked for (a ws:// socket tunnelled to a
            # plain-http port is not); a plain-http request is checked whole, path and all, as a
            # fetch is: robots.txt holds for redirects and downloads, which no router sees.
            if unasked:
                raise BlockedAddress(
                    f"{host}:{port} was asked for by no page of this call", detail={"host": host}
                )
            if not tunnel:
                await fetcher.admit(parse_url(target))
            address, dial_port = await fetcher.connect_target(host, port)
        except ToolError as refused:
            refusal = Refusal(host, port, refused.message, refused, unasked=unasked)
            self.log.refuse(refusal)
            await _answer(client, 403, "Forbidden")
            return
        try:
            with anyio.fail_after(CONNECT_TIMEOUT):
                upstream = await anyio.connect_tcp(address, dial_port)
        except (OSError, TimeoutError):
            await _answer(client, 502, "Bad Gateway")
            return
        self.log.admit(host, port)
        async with upstream:
            if method.upper() == "CONNECT":
                await client.send(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                if rest:
                    await upstream.send(rest)
                await _splice(client, upstream)
                return
            parts = urlsplit(target)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            headers = [line for line in header_block.split(b"\r\n") if line]
            kept = [
                line
                for line in headers
                if line.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS
            ]
            forwarded = f"{method} {path} {version}\r\n".encode("latin-1") + b"".join(
                h + b"\r\n" for h in kept
            )
            await upstream.send(forwarded + b"Connection: close\r\n\r\n")
            body = _content_length(kept)
            await _forward_body(client, upstream, rest, body)
            # the one answer, then the connection ends
            await self._relay_response(upstream, client, target, fetcher)

    async def _relay_response(
        self, upstream: ByteStream, client: ByteStream, target: str, fetcher: Fetcher
    ) -> None:
        """The answer passed back whole; a redirect's Location is expected first, under the fetcher
        that asked for ``target`` (Playwright routes no redirect hop, so no router would): where a
        page may be led, the policy still decides when the browser goes there."""
        head = b""
        with contextlib.suppress(
            anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError
        ):
            while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
                head += await upstream.receive(CHUNK)
        location = _redirect_location(head)
        if location is not None:
            with contextlib.suppress(ValueError, ToolError):
                led = parse_url(urljoin(target, location))
                if led.scheme in {"http", "https"}:
                    self.expect(
                        led.scheme,
                        led.host,
                        led.port or (443 if led.scheme == "https" else 80),
                        fetcher,
                    )
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            if head:
                await client.send(head)
        await _pipe(upstream, client)

    async def aclose(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.aclose()


async def _read_head(stream: ByteStream) -> tuple[bytes, bytes]:
    """The request head (through the blank line) and whatever came after it."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > HEAD_LIMIT:
            raise ValueError("request head too long")
        buffer += await stream.receive(CHUNK)
    head, _, rest = buffer.partition(b"\r\n\r\n")
    return head, rest


def _host_port(target: str, default: int) -> tuple[str, int]:
    host, _, port = target.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        return target.strip("[]"), default
    return host.strip("[]"), int(port)


def _content_length(headers: list[bytes]) -> int:
    for line in headers:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            with contextlib.suppress(ValueError):
                return max(0, int(value.strip()))
    return 0


async def _forward_body(client: ByteStream, upstream: ByteStream, rest: bytes, length: int) -> None:
    """Exactly the request's declared body: bytes after it would be a second request, which is not
    passed on."""
    sent = rest[:length]
    if sent:
        await upstream.send(sent)
    left = length - len(sent)
    while left > 0:
        chunk = await client.receive(min(CHUNK, left))
        await upstream.send(chunk)
        left -= len(chunk)


_REDIRECT = re.compile(
    rb"HTTP/1\.[01] 30[12378]\b[^\r\n]*\r\n(?:[^\r\n]*\r\n)*?location:[ \t]*([^\r\n]+)", re.I
)


def _redirect_location(head: bytes) -> str | None:
    """A redirect's Location, from an answer's head (None for any other answer)."""
    end = head.find(b"\r\n\r\n")
    found = _REDIRECT.match(head[: end + 2] if end >= 0 else head)
    return found.group(1).strip().decode("latin-1") if found else None


async def _pipe(source: ByteStream, sink: ByteStream) -> None:
    with contextlib.suppress(
        anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError
    ):
        while True:
            await sink.send(await source.receive(CHUNK))


async def _splice(one: SocketStream, other: SocketStream) -> None:
    """Bytes both ways until either side closes."""
    async with anyio.create_task_group() as group:

        async def across(source: SocketStream, sink: SocketStream) -> None:
            await _pipe(source, sink)
            group.cancel_scope.cancel()

        group.start_soon(across, one, other)
        group.start_soon(across, other, one)


async def _answer(client: ByteStream, status: int, reason: str) -> None:
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await client.send(
            f"HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
