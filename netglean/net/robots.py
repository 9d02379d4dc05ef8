"""robots.txt as netglean obeys it: parsed (protego), and cached per origin, bounded and expiring."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from netglean.net.policy import ROBOTS_AGENT


class Robots:
    """A parsed robots.txt, or a verdict for every path when it was missing or unreadable."""

    def __init__(self, parser: Any | None, everything: bool | None, reason: str = "") -> None:
        self.parser = parser
        self.everything = everything
        self.reason = reason

    def allows(self, url: str) -> bool:
        if self.parser is None:
            return bool(self.everything)
        return bool(self.parser.can_fetch(url, ROBOTS_AGENT))

    def sitemaps(self) -> list[str]:
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self) -> float:
        delay = self.parser.crawl_delay(ROBOTS_AGENT) if self.parser is not None else None
        return float(delay or 0.0)


class RobotsCache:
    """robots.txt per origin, bounded and expiring.

    RFC 9309 asks crawlers not to trust a cached robots.txt for more than a day; an
    unreadable one (5xx, timeout) is asked again sooner, so a passing outage does not
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
        self._items[origin] = (self._clock() + (self._unreadable_ttl if unreadable else self._ttl), robots)
        self._items.move_to_end(origin)
        while len(self._items) > self._size:
            self._items.popitem(last=False)
