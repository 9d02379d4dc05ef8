"""The fetcher's politeness (netglean.net.fetcher), on an in-memory site: the spacing each request
is held to."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import anyio
import pytest

from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS


@dataclasses.dataclass
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    async def chunks(self) -> AsyncIterator[bytes]:
        yield self.body


class _Site:
    """A transport whose robots.txt asks for ``crawl_delay`` seconds (none if None); every other
    page is a page."""

    def __init__(self, crawl_delay: float | None) -> None:
        self._robots = "User-agent: *\nAllow: /\n" + (
            f"Crawl-delay: {crawl_delay:g}\n" if crawl_delay else ""
        )

    @asynccontextmanager
    async def get(self, url: str, headers: Mapping[str, str]) -> AsyncIterator[_Answer]:
        if url.endswith("/robots.txt"):
            yield _Answer(200, {"content-type": "text/plain"}, self._robots.encode())
        else:
            yield _Answer(
                200, {"content-type": "text/html"}, b"<html><body><p>A page.</p></body></html>"
            )

    def prepare(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class _Slots:
    """A limiter that holds nobody and notes the interval each request was to be spaced by."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float]] = []

    @asynccontextmanager
    async def slot(self, host: str, interval: float) -> AsyncIterator[None]:
        self.asked.append((host, interval))
        yield


def _intervals(host_interval: float, crawl_delay: float | None, pages: int = 2) -> list[float]:
    """The interval asked for each request (robots.txt's first) when ``pages`` pages of one host are
    fetched."""
    policy = dataclasses.replace(
        FetchPolicy.from_settings(Settings.load(environ={})),
        host_interval=host_interval,
        only_hosts=frozenset(),
    )
    slots = _Slots()

    async def run() -> None:
        fetcher = Fetcher(
            policy,
            resolver=FakeDNS({"site.test": [PUBLIC]}),
            transport=_Site(crawl_delay),
            limiter=slots,
        )
        for n in range(pages):
            await fetcher.fetch(f"http://site.test/{n}")

    anyio.run(run)
    assert [host for host, _ in slots.asked] == ["site.test"] * (pages + 1)
    return [interval for _, interval in slots.asked]


@pytest.mark.parametrize(
    ("host_interval", "crawl_delay", "spacing"),
    [(0.0, 3.0, 3.0), (1.0, 3.0, 3.0), (5.0, 3.0, 5.0), (1.0, None, 1.0), (0.0, None, 0.0)],
)
def test_each_page_is_spaced_by_the_longer_of_the_operators_interval_and_crawl_delay(
    host_interval: float, crawl_delay: float | None, spacing: float
) -> None:
    robots, *rest = _intervals(host_interval, crawl_delay)
    assert robots == host_interval  # read before anything of robots.txt is known
    assert rest == [spacing, spacing]
