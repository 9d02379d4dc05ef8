"""The seam between the fetcher's policy and whatever carries its requests (netglean.net.transport,
later a browser): a transport sends one request, with no redirects, to the address the fetcher
checked for its host. Nothing here imports an HTTP client, so a browser layer can keep the fetcher's
checks without aiohttp.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Protocol

Dial = Callable[[str, int], tuple[str, int]]
"""Where a connection to a checked (address, port) really goes: the identity, except in tests."""


def direct(address: str, port: int) -> tuple[str, int]:
    return address, port


class Response(Protocol):
    """One answer: its status, its headers (names in lower case, repeats joined), and its body as
    sent."""

    status: int
    headers: dict[str, str]

    def chunks(self) -> AsyncIterator[bytes]: ...


class Transport(Protocol):
    """Sends GET requests to hosts the fetcher has pinned (``pins``: host -> checked address),
    nothing else.

    A transport raises netglean's own errors (FetchTimeout, Unreachable, BlockedAddress for an
    unpinned host), never its library's."""

    def get(
        self, url: str, headers: Mapping[str, str]
    ) -> AbstractAsyncContextManager[Response]: ...

    def prepare(self) -> None:
        """Ahead of the first request (certificates, ~30 ms): blocking, so a worker thread's job."""
        ...

    async def aclose(self) -> None: ...
