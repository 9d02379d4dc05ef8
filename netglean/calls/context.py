"""What a handler may use besides its arguments: the server's services, seen from one call.

The composition root (netglean.app) builds the services once per server; every call gets a Context
over them, with its session's budget (its fetcher spends it) and its own progress channel.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from netglean.calls.registry import Registry
from netglean.core.settings import Settings

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.calls.runs import Runs, RunScope
    from netglean.net.fetcher import Fetcher
    from netglean.net.politeness import SessionBudgets
    from netglean.workers.pool import Readers

Progress = Callable[[float, float | None, str | None], Awaitable[None]]

RESPONSE_RESERVE = 0.2
"""Share of the time a call has left that a tool returning partial results keeps for answering (at
least a second, at most half)."""


@dataclass(frozen=True, slots=True)
class Services:
    """What one server holds for every call: the fetcher (pins, robots.txt, politeness and memory
    are shared), the reader processes, and a request budget per session."""

    settings: Settings
    registry: Registry
    fetcher: Fetcher
    readers: Readers
    browser: BrowserPool
    budgets: SessionBudgets
    runs: Runs
    protocol_versions: Callable[[], tuple[str, ...]] = tuple
    """The MCP protocol versions the server speaks, as its transport (netglean.serve) knows them."""

    async def aclose(self) -> None:
        self.readers.close()
        await self.browser.aclose()
        await self.fetcher.aclose()
        self.runs.close()


class Context:
    """One call's view of the services: its session's fetcher, the readers, the runs, and its
    progress channel; ``run`` is the background run the call works as, when it is one."""

    __slots__ = (
        "_progress",
        "browser",
        "fetcher",
        "protocol_versions",
        "readers",
        "registry",
        "run",
        "runs",
        "session",
        "settings",
    )

    def __init__(
        self,
        services: Services,
        *,
        session: str = "",
        progress: Progress | None = None,
        run: RunScope | None = None,
    ) -> None:
        self.settings = services.settings
        self.registry = services.registry
        self.session = session
        self.fetcher = services.fetcher.spending(services.budgets.for_session(session))
        self.readers = services.readers
        self.browser = services.browser
        self.runs = services.runs
        self.run = run
        self.protocol_versions = services.protocol_versions
        self._progress = progress

    def work_until(self) -> float:
        """When a tool that can answer with what it has (a batch, a crawl, a paged feed) must stop
        working so the answer still beats the call's deadline; anyio time, inf when the call has no
        deadline. Call it from the handler itself: the deadline is its task's."""
        deadline = anyio.current_effective_deadline()
        if deadline == math.inf:
            return deadline
        left = max(deadline - anyio.current_time(), 0.0)
        return deadline - min(max(1.0, RESPONSE_RESERVE * left), left / 2)

    async def report(
        self, done: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far a long call has got; nothing happens when it did not ask."""
        if self._progress is not None:
            await self._progress(done, total, message)
