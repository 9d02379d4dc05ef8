"""What a handler may use besides its arguments: settings, registry, the shared fetcher, and progress reporting."""

from __future__ import annotations

import copy
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio

from netglean.calls.registry import Registry
from netglean.core.settings import Settings

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

Progress = Callable[[float, float | None, str | None], Awaitable[None]]

ANSWER_RESERVE = 0.2
"""Share of the time a call has left that a tool returning partial results keeps for answering (at least a
second, at most half)."""


class Context:
    """One per server, shared by every call; ``for_call`` adds a call's own progress channel.

    The fetcher and the readers are built on first use (listing tools never pays for them) and
    shared by every per-call copy, so politeness limits and the session budget hold across calls.
    """

    def __init__(self, settings: Settings, registry: Registry, fetcher: Fetcher | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self._fetcher_box: list[Fetcher] = [fetcher] if fetcher is not None else []
        self._readers_box: list[Readers] = []
        self._progress: Progress | None = None

    @property
    def fetcher(self) -> Fetcher:
        if not self._fetcher_box:
            from netglean.net.fetcher import Fetcher
            from netglean.net.policy import FetchPolicy

            self._fetcher_box.append(Fetcher(FetchPolicy.from_settings(self.settings)))
        return self._fetcher_box[0]

    @property
    def readers(self) -> Readers:
        """Where pages are parsed and extracted (worker processes or threads), shared like the fetcher."""
        if not self._readers_box:
            from netglean.workers.pool import Readers, worker_count

            self._readers_box.append(Readers(worker_count(self.settings.read_workers)))
        return self._readers_box[0]

    def for_call(self, progress: Progress | None) -> Context:
        call = copy.copy(self)  # shares the fetcher and readers boxes
        call._progress = progress
        return call

    def work_until(self) -> float:
        """When a tool that can answer with what it has (a batch, a crawl, a paged feed) must stop working so the
        answer still beats the call's deadline; anyio time, inf when the call has no deadline. Call it from the
        handler itself: the deadline is its task's."""
        deadline = anyio.current_effective_deadline()
        if deadline == math.inf:
            return deadline
        left = max(deadline - anyio.current_time(), 0.0)
        return deadline - min(max(1.0, ANSWER_RESERVE * left), left / 2)

    async def report(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far a long call has got; nothing happens when it did not ask."""
        if self._progress is not None:
            await self._progress(done, total, message)

    async def aclose(self) -> None:
        if self._readers_box:
            self._readers_box[0].close()
        if self._fetcher_box:
            await self._fetcher_box[0].aclose()
