"""robots.txt as netglean obeys it: parsed (protego), read once per origin however many fetches ask
at once, and cached per origin, bounded and expiring."""

from __future__ import annotations

import copy
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from netglean.core.errors import FetchError
from netglean.net.policy import ROBOTS_AGENT


@dataclass(frozen=True, slots=True)
class RobotsResponse:
    """What robots.txt's origin answered, kept as a scan's evidence (Fetcher.robots_answer)."""

    url: str
    """Where the answer came from, after redirects."""
    status: int | None
    headers: dict[str, str]
    text: str
    size: int
    failure: tuple[str, str] | None = None
    """(error code, message) when the read ended in an answer that was no robots.txt (too large, not
    text)."""


class Robots:
    """A parsed robots.txt, or a verdict for every path when it was missing or unreadable."""

    def __init__(
        self,
        parser: Any | None,
        everything: bool | None,
        reason: str = "",
        agents: tuple[str, ...] = (ROBOTS_AGENT,),
    ) -> None:
        self.parser = parser
        self.everything = everything
        self.reason = reason
        self.agents = agents
        """The groups obeyed: a path any of them disallows is refused."""

    def allows(self, url: str) -> bool:
        return self.disallowing_group(url) is None

    def disallowing_group(self, url: str) -> str | None:
        """The first obeyed group that disallows ``url`` (None when none does)."""
        if self.parser is None:
            return None if self.everything else self.agents[0]
        return next((agent for agent in self.agents if not self.parser.can_fetch(url, agent)), None)

    def sitemaps(self) -> list[str]:
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self) -> float:
        if self.parser is None:
            return 0.0
        return max(float(self.parser.crawl_delay(agent) or 0.0) for agent in self.agents)


@dataclass
class _Reading:
    """One robots.txt read in flight, which every fetch to its origin that comes meanwhile waits
    for."""

    done: anyio.Event = field(default_factory=anyio.Event)
    robots: Robots | None = None
    """What the read found; None when it ended without an answer."""
    failure: FetchError | None = None
    """Why the site gave no answer (the connection failed or timed out): the waiting fetches fail
    with it too."""


class RobotsCache:
    """robots.txt per origin, bounded and expiring, and read once per origin at a time.

    RFC 9309 asks crawlers not to trust a cached robots.txt for more than a day; an
    unreadable one (5xx, too large, not text) is asked again sooner, so a passing outage does not
    keep a site closed for a day. Past ``size`` origins the least recently used goes.
    """

    def __init__(
        self,
        size: int = 4096,
        ttl: float = 86_400.0,
        unreadable_ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._items: OrderedDict[str, tuple[float, Robots]] = OrderedDict()
        self._reading: dict[str, _Reading] = {}
        self._size, self._ttl, self._unreadable_ttl, self._clock = size, ttl, unreadable_ttl, clock

    def get(self, origin: str) -> Robots | None:
        item = self._items.get(origin)
        if item is None:
            return None
        expires, robots = item
        if self._clock() >= expires:
            del self._items[origin]
            return None
        self._items.move_to_end(origin)
        return robots

    def put(self, origin: str, robots: Robots) -> None:
        unreadable = robots.parser is None and robots.reason
        self._items[origin] = (
            self._clock() + (self._unreadable_ttl if unreadable else self._ttl),
            robots,
        )
        self._items.move_to_end(origin)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    async def read_once(self, origin: str, read: Callable[[], Awaitable[Robots]]) -> Robots:
        """The cached robots.txt of ``origin``, else the one ``read`` in flight for it, else
        ``read()`` (cached).

        A batch of URLs on one cold origin starts its fetches at once: each used to read robots.txt
        itself, so four URLs made four reads and spent four requests of the session's budget before
        the first page. Now the first fetch reads and the others wait for its answer. What an
        unreadable robots.txt (5xx) means is an answer, cached for ``unreadable_ttl``. A read the
        site gave no answer to (a FetchError: the connection failed or timed out) fails every fetch
        that waited for it and is not cached, so the next fetch asks again. A read that ended for
        its own caller's reasons (that session's budget was spent, its call was cancelled) is
        neither cached nor handed on: the waiting fetches read for themselves.
        """
        while True:
            robots = self.get(origin)
            if robots is not None:
                return robots
            reading = self._reading.get(origin)
            if reading is not None:
                await reading.done.wait()
                if reading.failure is not None:
                    # each waiter raises its own: tracebacks are per raise
                    raise copy.copy(reading.failure)
                if reading.robots is not None:
                    return reading.robots
                continue
            reading = self._reading[origin] = _Reading()
            try:
                reading.robots = await read()
            except FetchError as failure:
                reading.failure = failure
                raise
            finally:
                del self._reading[origin]
                reading.done.set()
            self.put(origin, reading.robots)
            return reading.robots
