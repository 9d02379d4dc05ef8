"""HTTP as aiohttp carries it: the one module that imports aiohttp (about ten times less work per
request than httpx on the same pages, measured in bench/).

Connections go to the address the fetcher checked for a host, through aiohttp's resolver hook
(literal IP hosts too), so DNS cannot answer differently a moment later, while the Host header and
TLS SNI stay the URL's. Decompression is left to the fetcher (bounded), cookies are never kept, and
neither proxies nor .netrc from the environment apply. aiohttp's errors become netglean's here and
nowhere else.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import httpx
import yarl
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.tracing import Trace

from netglean.core.errors import BlockedAddress, FetchTimeout, Unreachable
from netglean.net.policy import REDIRECTS, FetchPolicy
from netglean.net.urls import pin_key
from netglean.net.wire import Dial, direct


class _PinnedResolver(AbstractResolver):
    """aiohttp's resolver, answering only with the address the fetcher checked for the host: the
    pin."""

    def __init__(self, pins: Mapping[str, str], dial: Dial) -> None:
        self._pins = pins
        self._dial = dial

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[Any]:
        address = self._pins.get(pin_key(host))
        if address is None:
            raise BlockedAddress(f"refusing to connect to {host}: it was not checked")
        address, port = self._dial(address, port)
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    async def close(self) -> None:
        return None


class _PinnedConnector(aiohttp.TCPConnector):
    """aiohttp's connector, asking the pinned resolver for IP-literal hosts as well as names:
    aiohttp connects to a literal host without asking its resolver, and routed through it every
    connection goes where ``dial`` says, so an unchecked literal is refused like an unchecked
    name."""

    async def _resolve_host(
        self, host: str, port: int, traces: Sequence[Trace] | None = None
    ) -> list[ResolveResult]:
        return await self._resolver.resolve(host, port, family=self._family)


class _AiohttpResponse:
    """One aiohttp response as a wire.Response: its body's chunks, with aiohttp's errors
    translated."""

    def __init__(self, response: aiohttp.ClientResponse, url: str) -> None:
        self.status = response.status
        self.headers = {
            name.lower(): ", ".join(response.headers.getall(name)) for name in response.headers
        }
        self._response = response
        self._url = url

    async def chunks(self) -> AsyncIterator[bytes]:
        if self.status in REDIRECTS:
            return
        with _translated(self._url):
            async for chunk in self._response.content.iter_any():
                yield chunk


class AiohttpTransport:
    """A wire.Transport on one aiohttp session, made on the first request inside the running event
    loop."""

    def __init__(
        self,
        policy: FetchPolicy,
        pins: Mapping[str, str],
        *,
        dial: Dial = direct,
        ssl_context: ssl.SSLContext | None,
    ) -> None:
        self._policy = policy
        self._pins = pins
        self._dial = dial
        self._ssl = ssl_context
        self._session: aiohttp.ClientSession | None = None

    def prepare(self) -> None:
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = _PinnedConnector(
                resolver=_PinnedResolver(self._pins, self._dial),
                use_dns_cache=False,
                ssl=self._ssl or httpx.create_ssl_context(),  # prepare() may have loaded it already
                limit=self._policy.global_concurrency,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    sock_connect=self._policy.connect_timeout,
                    sock_read=self._policy.read_timeout,
                ),
                headers={"user-agent": self._policy.user_agent, "accept-encoding": "gzip, deflate"},
            )
        return self._session

    @asynccontextmanager
    async def get(self, url: str, headers: Mapping[str, str]) -> AsyncIterator[_AiohttpResponse]:
        with _translated(url):
            request = self._client().get(
                yarl.URL(url, encoded=True), headers=dict(headers), allow_redirects=False
            )
            async with request as response:
                yield _AiohttpResponse(response, url)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _translated:
    """aiohttp's connect and read timeouts and its connection errors, as netglean's (the total
    deadline is the fetcher's own)."""

    def __init__(self, url: str) -> None:
        self._url = url

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        if isinstance(error, TimeoutError):
            raise FetchTimeout(
                f"{self._url} did not answer in time ({type(error).__name__})",
                detail={"url": self._url},
            ) from error
        if isinstance(error, aiohttp.ClientError | OSError):
            raise Unreachable(
                f"could not read {self._url}: {_reason(error)}", detail={"url": self._url}
            ) from error


def _reason(exc: BaseException) -> str:
    """A short cause for a failed request, without aiohttp's connection-key noise."""
    cause = exc.__cause__ or exc
    detail = getattr(cause, "strerror", None) or str(cause)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
