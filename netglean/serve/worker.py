"""`netglean worker`: takes runs from the job queue in the PostgreSQL store and works them, through
the same ToolRunner (tools, network policy, fetcher) a server works its own runs with. The policy is
this process's settings: a job names a run and nothing else, and the run's arguments are checked
and bounded here as a server checks a call's.

SIGTERM or SIGINT stops it cleanly: no new job is taken, the runs it works stop at once,
interrupted, and their jobs are queued again, so another worker (or this one, started again) resumes
each from its checkpoint. A worker killed outright leaves the same to the fleet: its owner lock goes
with it, the fleet's next tend finds its runs interrupted and queues them again."""

from __future__ import annotations

import logging
import signal
import sys

import anyio

from netglean.calls.runner import ToolRunner
from netglean.calls.runs import register_join
from netglean.calls.scheduler import RUN_TOOL, Scheduler

log = logging.getLogger("netglean.serve.worker")

JOINS = {"crawl": "netglean.handlers._joins:join_crawl"}
"""The tools whose runs more workers can join (--crawl-workers), and how: imported on first use."""


class WorkerFleet:
    """What this worker does with each job it takes (netglean.queue.Fleet)."""

    def __init__(self, runner: ToolRunner) -> None:
        self._runner = runner
        self._runs = runner.services.runs

    async def work(self, run_id: str) -> None:
        await self._runs.take(run_id)

    async def join(self, run_id: str) -> None:
        await self._runs.join(run_id, self._runner.services)

    async def tend(self) -> None:
        await self._runs.tend()
        if RUN_TOOL in self._runner.registry.tools:
            await Scheduler(self._runner).look()


async def serve_worker(runner: ToolRunner) -> None:
    """Work runs until SIGTERM or SIGINT (see the module's docstring)."""
    runs, settings = runner.services.runs, runner.settings
    for tool, join in JOINS.items():
        register_join(tool, join)
    stopping = anyio.Event()
    # a line for each job and tick at info is procrastinate's debug: netglean's own lines say more
    if settings.log_level != "debug":
        logging.getLogger("procrastinate").setLevel(logging.WARNING)
    try:
        async with runs.hosting(), anyio.create_task_group() as background:
            background.start_soon(_stop_on_signal, stopping)
            background.start_soon(runner.warm_up)
            print(
                f"netglean worker ready: {settings.max_runs} run(s) at once from the store "
                f"{runs.store.location}",
                file=sys.stderr,
                flush=True,
            )
            await runs.queue.work(WorkerFleet(runner), settings.max_runs, stopping)
            background.cancel_scope.cancel()
    finally:
        await runner.services.aclose()
    log.info("netglean worker stopped")


async def _stop_on_signal(stopping: anyio.Event) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("netglean worker: %s, stopping", signal.Signals(signum).name)
            stopping.set()
