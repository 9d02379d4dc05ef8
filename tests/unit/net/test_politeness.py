"""The politeness limiter (netglean.net.politeness): each host's requests spaced by the interval
known when each one asks, on a clock the test moves (no request, no sleeping)."""

from __future__ import annotations

import anyio
import pytest

from netglean.net import politeness
from netglean.net.politeness import HostLimiter


class Clock:
    """time.monotonic and anyio.sleep for the limiter: sleeping moves the clock, and each wait is
    kept."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(politeness.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(politeness.anyio, "sleep", fake.sleep)
    return fake


def _starts(clock: Clock, asked: list[tuple[str, float]], took: float = 0.0) -> list[float]:
    """When each request (host, interval), asked one after another, starts; each takes ``took``
    seconds."""
    limiter = HostLimiter(per_host=2, overall=4)
    starts: list[float] = []

    async def run() -> None:
        for host, interval in asked:
            async with limiter.slot(host, interval):
                starts.append(round(clock.now - 100.0, 6))
                clock.now += took

    anyio.run(run)
    return starts


def test_a_request_waits_the_interval_it_asks_with_after_the_one_before(clock: Clock) -> None:
    """robots.txt is read with the operator's spacing (none, under --dev); its Crawl-delay of 2 s
    then spaces the page after it from the robots.txt request itself, not only the pages after
    that."""
    assert _starts(clock, [("h.test", 0.0), ("h.test", 2.0), ("h.test", 2.0)]) == [0.0, 2.0, 4.0]


def test_time_a_request_took_counts_toward_the_next_ones_wait(clock: Clock) -> None:
    assert _starts(clock, [("h.test", 1.0), ("h.test", 1.0)], took=0.75) == [0.0, 1.0]
    assert clock.waits == [0.25]


def test_other_hosts_are_not_spaced_by_a_host_they_do_not_share(clock: Clock) -> None:
    assert _starts(clock, [("a.test", 5.0), ("b.test", 5.0), ("a.test", 5.0)]) == [0.0, 0.0, 5.0]


def test_a_free_slot_is_taken_without_a_round_of_the_event_loop() -> None:
    """A crawl asks for a slot each request: with places free, no other task runs before it has
    one."""
    limiter = HostLimiter(per_host=2, overall=4)
    ran: list[str] = []

    async def other() -> None:
        ran.append("other")

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(other)
            async with limiter.slot("h.test", 0.0):
                assert ran == []

    anyio.run(run)
    assert ran == ["other"]


def test_a_full_host_lets_its_waiting_requests_in_one_at_a_time_in_order() -> None:
    limiter = HostLimiter(per_host=1, overall=4)
    order: list[int] = []
    inside = most = 0

    async def request(n: int) -> None:
        nonlocal inside, most
        async with limiter.slot("h.test", 0.0):
            inside += 1
            most = max(most, inside)
            order.append(n)
            await anyio.sleep(0.01)
            inside -= 1

    async def run() -> None:
        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(request, n)
                await anyio.sleep(0)

    anyio.run(run)
    assert order == [0, 1, 2, 3] and most == 1
