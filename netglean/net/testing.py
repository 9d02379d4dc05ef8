"""A test double for the fetch layer, shipped as httpx ships MockTransport: DNS answers a real
server cannot give, and connects that stay on 127.0.0.1. Pass them to ``Fetcher(resolver=...,
dial=...)``.

``FakeDNS`` answers names with any addresses a test wants (a public name that resolves
to 127.0.0.1, answers that mix public and private). ``LoopbackBackend`` sits under the
fetcher's pinned connections: a connection to a fake *public* address goes to the fixture
site on 127.0.0.1 (and so does one to an address a test lists as ``reachable``: a private
address the operator's policy lets through), anything else fails the test. Every connect
attempt is recorded, to a resolved name or an IP literal alike, so a test can prove a
refused host was never contacted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

PUBLIC = "93.184.216.34"  # looks public to the policy; the backend routes it to the fixture site


class FakeDNS:
    def __init__(self, answers: dict[str, Sequence[str] | list[Sequence[str]]]) -> None:
        self._answers = answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        answer = self._answers.get(host)
        if answer is None:
            from netglean.core.errors import Unreachable

            raise Unreachable(f"could not resolve {host}: unknown test name")
        if answer and isinstance(answer[0], list | tuple):  # a sequence of answers, one per lookup
            sequence: list[Any] = list(answer)
            current = sequence.pop(0) if len(sequence) > 1 else sequence[0]
            self._answers[host] = sequence
            return list(current)
        return list(answer)  # type: ignore[arg-type]


class LoopbackBackend:
    """The fetcher's ``dial``: a connection to a checked address goes to the fixture site
    instead."""

    def __init__(
        self, fixture_port: int, tls_port: int | None = None, reachable: Collection[str] = ()
    ) -> None:
        self._port = fixture_port
        self._tls_port = tls_port  # where connections to port 443 go, when a TLS fixture runs too
        self._reachable = {PUBLIC, "127.0.0.1", *reachable}
        self.connects: list[tuple[str, int]] = []

    def __call__(self, address: str, port: int) -> tuple[str, int]:
        self.connects.append((address, port))
        if address not in self._reachable:
            raise AssertionError(
                f"a test tried to connect to {address}:{port}; only the fixture site is allowed"
            )
        return "127.0.0.1", self._tls_port if port == 443 and self._tls_port else self._port
