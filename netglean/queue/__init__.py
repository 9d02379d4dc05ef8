"""The job queue that hands runs to `netglean worker` processes: procrastinate, kept in the store's
PostgreSQL database (no broker of its own). A job names a run (or asks for more workers to join
one); the run itself, its progress, log and result, stays in the store, which is its truth: a job
is only the wake-up that brings a worker to it.

This package is procrastinate's one home (an import-linter contract holds it), and procrastinate is
imported only when a queue is opened: with ``run_workers`` on, or by `netglean worker`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from netglean.core.errors import ConfigurationError

if TYPE_CHECKING:
    from netglean.queue.jobs import JobQueue


class Fleet(Protocol):
    """What a worker does with the jobs it takes (the calls layer's, given to ``JobQueue.work``)."""

    async def work(self, run_id: str) -> None:
        """Work the run (claim it in the store, run its tool, write its end)."""
        ...

    async def join(self, run_id: str) -> None:
        """Help the running run along (its tool's join function), if its tool has one."""
        ...

    async def tend(self) -> None:
        """The fleet's periodic look, once across the fleet at each tick: runs that lost their
        job get one, due projects start."""
        ...


def open_queue(store: str) -> JobQueue:
    """The queue in the PostgreSQL database ``store`` names (not yet connected: ``JobQueue.open``
    connects, within the event loop that uses it)."""
    try:
        from netglean.queue.jobs import JobQueue
    except ImportError:
        raise ConfigurationError(
            "run_workers hands runs to `netglean worker` through procrastinate, which is not "
            "installed: pip install 'netglean[postgresql]'"
        ) from None
    return JobQueue(store)
