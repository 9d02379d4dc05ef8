"""How often and how much netglean asks of the sites it reads: the limiter that spaces and caps
requests, and the budget a session spends. Both are Protocols, so a distributed worker can keep them
in a shared backend; these are the in-process ones.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import anyio

from netglean.core.errors import BudgetExhausted

TRACKED = 4096
"""Hosts (and sessions) whose state is kept; beyond that the least recently used go."""


class Limiter(Protocol):
    """Spaces and caps the requests to one host, and to all hosts together."""

    def slot(self, host: str, interval: float) -> AbstractAsyncContextManager[None]:
        """Held for one request to ``host``, which starts at least ``interval`` seconds after the
        one before."""
        ...


class Budget(Protocol):
    """The requests one session (an MCP session, a REST client, later a run) may still make."""

    def spend(self) -> None:
        """Count one request, or raise BudgetExhausted when there are none left."""
        ...


@dataclass
class _Host:
    limit: anyio.Semaphore
    last_start: float = float("-inf")
    """When the latest request to the host started (or is to start, once its wait is over)."""
    last_interval: float = 0.0


class HostLimiter:
    """At most ``per_host`` requests in flight to one host, ``overall`` to all, and each host's
    requests spaced: a request starts ``interval`` seconds after the one before at least,
    ``interval`` being the one known when it asks (robots.txt's Crawl-delay, read by the request
    before, spaces the next one too)."""

    def __init__(self, per_host: int, overall: int) -> None:
        self._per_host = per_host
        self._overall = anyio.Semaphore(overall)
        self._hosts: OrderedDict[str, _Host] = OrderedDict()

    @asynccontextmanager
    async def slot(self, host: str, interval: float) -> AsyncIterator[None]:
        state = self._hosts.get(host)
        if state is None:
            state = self._hosts[host] = _Host(anyio.Semaphore(self._per_host))
            self._forget_idle()
        self._hosts.move_to_end(host)
        await _take(self._overall)
        try:
            await _take(state.limit)
            try:
                # No await between reading and setting the host's last start: on the event loop,
                # each request reads the one set by the request before it.
                start = max(time.monotonic(), state.last_start + interval)
                state.last_start, state.last_interval = start, interval
                wait = start - time.monotonic()
                if wait > 0:
                    await anyio.sleep(wait)
                yield
            finally:
                state.limit.release()
        finally:
            self._overall.release()

    def _forget_idle(self) -> None:
        """Keep state for at most TRACKED hosts, dropping only idle ones (oldest first)."""
        now = time.monotonic()
        for host in list(self._hosts)[: max(0, len(self._hosts) - TRACKED)]:
            state = self._hosts[host]
            idle = state.limit.value == self._per_host
            if idle and state.last_start + state.last_interval <= now:
                del self._hosts[host]

    def __len__(self) -> int:
        return len(self._hosts)


async def _take(semaphore: anyio.Semaphore) -> None:
    """A free place taken at once; else one waited for, in turn. A crawl takes two places a request:
    a wait (and a round of the event loop) for each free one would cost more than the request."""
    try:
        semaphore.acquire_nowait()
    except anyio.WouldBlock:
        await semaphore.acquire()


class SessionBudget:
    """``limit`` requests, spent one at a time: one session's (``--session-budget``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self) -> None:
        if self.spent >= self.limit:
            raise BudgetExhausted(f"this session has made its {self.limit} requests")
        self.spent += 1


class CountedBudget:
    """A budget, counting what one piece of work (a comparison, a scan) spends of it: that work's
    cost."""

    def __init__(self, budget: Budget) -> None:
        self._budget = budget
        self.spent = 0

    def spend(self) -> None:
        self._budget.spend()
        self.spent += 1


class SessionBudgets:
    """A budget per session, made on its first request: one client's requests never spend another's.
    Bounded like every per-key table here: a session not heard of in TRACKED others starts afresh if
    it comes back."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._budgets: OrderedDict[str, SessionBudget] = OrderedDict()

    def for_session(self, session: str) -> SessionBudget:
        budget = self._budgets.get(session)
        if budget is None:
            budget = self._budgets[session] = SessionBudget(self._limit)
            while len(self._budgets) > TRACKED:
                self._budgets.popitem(last=False)
        self._budgets.move_to_end(session)
        return budget
