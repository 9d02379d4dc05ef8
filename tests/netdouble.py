"""The fetch layer's test double: DNS answers a real server cannot give, and connects that stay on 127.0.0.1.

``FakeDNS`` answers names with any addresses a test wants (a public name that resolves
to 127.0.0.1, answers that mix public and private). ``LoopbackBackend`` sits under the
fetcher's pinned connections: a connection to a fake *public* address goes to the fixture
site on 127.0.0.1, anything else fails the test. Every connect attempt is recorded, so a
test can prove a refused host was never contacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import httpcore

PUBLIC = "93.184.216.34"  # looks public to the policy; the backend routes it to the fixture site


class FakeDNS:
    def __init__(self, answers: dict[str, Sequence[str] | list[Sequence[str]]]) -> None:
        self._answers = answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        answer = self._answers.get(host)
        if answer is None:
            from netglean.errors import Unreachable

            raise Unreachable(f"could not resolve {host}: unknown test name")
        if answer and isinstance(answer[0], list | tuple):  # a sequence of answers, one per lookup
            sequence: list[Any] = list(answer)
            current = sequence.pop(0) if len(sequence) > 1 else sequence[0]
            self._answers[host] = sequence
            return list(current)
        return list(answer)  # type: ignore[arg-type]


class LoopbackBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, fixture_port: int, tls_port: int | None = None) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._port = fixture_port
        self._tls_port = tls_port  # where connections to port 443 go, when a TLS fixture runs too
        self.connects: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        if host not in {PUBLIC, "127.0.0.1"}:
            raise AssertionError(f"a test tried to connect to {host}:{port}; only 127.0.0.1 is allowed")
        target = self._tls_port if port == 443 and self._tls_port else self._port
        return await self._inner.connect_tcp("127.0.0.1", target, timeout, local_address, socket_options)

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise AssertionError("no unix sockets in tests")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
