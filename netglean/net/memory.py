"""One server-wide budget of decoded response bytes held at once, and the lease each body holds in
it."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass, field

import anyio

from netglean.core.errors import Unavailable


class MemoryBudget:
    """Response bytes (decompressed) the server holds at once, across every fetch: one per fetcher.

    A body reserves the most it can decode to (its Content-Length when it is sent as is, else the
    cap) before its first byte is read, all at once, and gives back what it did not use when the
    read ends; the rest stays reserved until its page is let go (``Lease``). A read never waits
    while holding part of its body, so half-read bodies cannot wait on one another: one that is
    reading needs nothing more to finish. A reservation that finds no room waits, in turn (a large
    one is not passed by small ones), at most ``wait`` seconds, then fails as ``Unavailable``.

    Bytes may come back from any thread (a page let go in a worker thread, or by the garbage
    collector in the middle of other code), so they are queued and counted on the event loop.
    """

    def __init__(self, size: int, wait: float) -> None:
        self.size = size
        self.wait = wait
        self._held = 0
        self._returned: deque[int] = deque()
        self._waiting: deque[_Waiter] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def held(self) -> int:
        """Bytes reserved now (bodies being read, and pages not yet let go)."""
        return self._held - sum(list(self._returned))

    async def reserve(self, amount: int, url: str) -> Lease:
        self._loop = asyncio.get_running_loop()
        self._settle()
        if not self._waiting and self._held + amount <= self.size:
            self._held += amount
            return Lease(self, amount)
        waiter = _Waiter(amount)
        self._waiting.append(waiter)
        # bytes given back since _settle, while nobody was waiting, woke nobody: count them now
        self._grant()
        try:
            with anyio.move_on_after(self.wait):
                await waiter.granted.wait()
        # cancelled (the fetch's deadline, or its caller): withdraw, granted or not
        except BaseException:
            self._withdraw(waiter)
            raise
        if not waiter.granted.is_set():
            self._withdraw(waiter)
            raise Unavailable(
                f"no room for the response of {url} within {self.wait:g} s: the pages this "
                f"server holds and reads fill its memory budget ({self.size} bytes); try again "
                "shortly",
                detail={"url": url, "memory_budget": self.size},
            )
        return Lease(self, amount)

    def _withdraw(self, waiter: _Waiter) -> None:
        if waiter.granted.is_set():
            self._give_back(waiter.amount)
        else:
            self._waiting.remove(waiter)
            self._grant()  # those behind it may fit now

    def _give_back(self, amount: int) -> None:
        """Return bytes from any thread: queued, then counted (and waiters served) on the event
        loop. The loop is woken only for a waiter: waking it for every page let go cost two system
        calls a page (its self-pipe)."""
        self._returned.append(amount)
        if self._waiting and self._loop is not None:
            # a closed loop: the next reservation counts what came back
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._grant)

    def _settle(self) -> None:
        while self._returned:
            self._held -= self._returned.popleft()

    def _grant(self) -> None:
        self._settle()
        while self._waiting and self._held + self._waiting[0].amount <= self.size:
            waiter = self._waiting.popleft()
            self._held += waiter.amount
            waiter.granted.set()


@dataclass(eq=False, slots=True)
class _Waiter:
    amount: int
    granted: anyio.Event = field(default_factory=anyio.Event)


class Lease:
    """The bytes one body holds in the ``MemoryBudget``: given back when shrunk, released, or
    dropped with its page."""

    __slots__ = ("_budget", "amount")

    def __init__(self, budget: MemoryBudget, amount: int) -> None:
        self._budget = budget
        self.amount = amount

    def shrink(self, amount: int) -> None:
        if amount < self.amount:
            self._budget._give_back(self.amount - amount)
            self.amount = amount

    def release(self) -> None:
        self.shrink(0)

    def __del__(self) -> None:
        self.release()
