"""procrastinate's side of the queue: the job kinds, deferring them, and the worker loop.

Job kinds (every one names a run; its truth is in the store):

- ``netglean.work_run`` (``run_id``): work a queued run. Its queueing lock is the run's, so a run
  has at most one job waiting: deferring again (a resume, the fleet's tend) is a no-op then.
- ``netglean.join_run`` (``run_id``): help a running run along; a run asks for N of them.
- ``netglean.tend`` (periodic, every TEND_SECONDS): once across the fleet per tick (procrastinate
  defers a periodic job once per tick, whichever worker's deferrer comes first, and an advisory
  lock keeps two from overlapping), the fleet's own look: runs without a job get one, projects whose
  schedule is due start.

A worker runs two procrastinate workers: one on RUNS (``concurrency`` jobs at once) and one on FLEET
(the tend job alone), so a fleet whose every slot works a long crawl still tends. procrastinate's
worker stops when the database goes away (a failed heartbeat or notification listener ends it);
``work`` starts it again once the database answers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import procrastinate
import psycopg
from procrastinate import exceptions, jobs, types
from procrastinate.worker import Worker

from netglean.core.errors import ConfigurationError, Unavailable
from netglean.queue import Fleet

log = logging.getLogger("netglean.queue")

WORK = "netglean.work_run"
JOIN = "netglean.join_run"
TEND = "netglean.tend"
RUNS = "netglean-runs"
FLEET = "netglean-fleet"
TEND_SECONDS = 5
"""Seconds between two ticks of the fleet's tend (a divisor of 60: a cron seconds field)."""
HEARTBEAT = 5.0
"""Seconds between two heartbeats of a worker."""
STALLED_AFTER = 20.0
"""Seconds without a heartbeat after which a worker counts as gone and its jobs as stalled."""
RESTART_AFTER = 2.0
"""Seconds a worker whose database went away waits before it starts again."""
POOL_SIZE = 4
SCHEMA_LOCK = 0x6E67_7170
"""The advisory lock that keeps two processes from applying procrastinate's schema at once."""
TEND_LOCK = 0x6E67_7474
"""The advisory lock one tend of the fleet holds at a time."""
_CONNECTION_FAILURES = (exceptions.ConnectorException, psycopg.Error, OSError)


class JobQueue:
    """The queue in one PostgreSQL database (the store's): ``open`` it in the event loop that
    defers, ``work`` in a worker."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._app: procrastinate.App | None = None

    def _new_app(self) -> procrastinate.App:
        """An app on a pool of its own (procrastinate checks each connection it hands out, so a
        database restarted is reconnected to)."""
        connector = procrastinate.PsycopgConnector(
            conninfo=self._url,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"application_name": "netglean-queue"},
        )
        return procrastinate.App(connector=connector)

    async def open(self) -> None:
        """Connect, with procrastinate's schema applied (once, whoever comes first);
        ConfigurationError when the database refuses."""
        try:
            await self.apply_schema()
            app = self._new_app()
            await app.open_async()
        except _CONNECTION_FAILURES as exc:
            raise ConfigurationError(f"cannot open the job queue in the run store: {exc}") from None
        self._app = app

    async def close(self) -> None:
        if self._app is not None:
            app, self._app = self._app, None
            await app.close_async()

    async def apply_schema(self) -> None:
        """procrastinate's tables, created unless there: in one transaction under an advisory lock,
        so that processes starting at once create them once."""
        schema = procrastinate.App(connector=procrastinate.PsycopgConnector()).schema_manager
        connection = await psycopg.AsyncConnection.connect(self._url)
        async with connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            found = await connection.execute("SELECT to_regclass('procrastinate_jobs')")
            row = await found.fetchone()
            if row is None or row[0] is None:
                await connection.execute(schema.get_schema())
                log.info("procrastinate's schema applied to the run store")

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[bool]:
        """Whether this process holds the fleet's tend lock, for the block: a tend that outlasts
        its tick is not overlapped by the next one (two looks at once could start a due project
        twice). A session lock, on a connection of its own: a worker killed in a tend lets go of
        it with its connection (a procrastinate job lock would stay held by the stalled job)."""
        connection = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
        async with connection:
            found = await connection.execute("SELECT pg_try_advisory_lock(%s)", (TEND_LOCK,))
            row = await found.fetchone()
            yield bool(row and row[0])

    def _opened(self) -> procrastinate.App:
        if self._app is None:
            raise Unavailable("the job queue is not open (the server is starting or stopping)")
        return self._app

    async def defer_run(self, run_id: str) -> bool:
        """A job for the run; False when one waits for it already."""
        deferrer = self._opened().configure_task(WORK, queue=RUNS, queueing_lock=f"run:{run_id}")
        try:
            await deferrer.defer_async(run_id=run_id)
        except exceptions.AlreadyEnqueued:
            return False
        except _CONNECTION_FAILURES as exc:
            raise Unavailable(f"the job queue did not take the run's job ({exc})") from None
        return True

    async def waiting(self) -> set[str]:
        """The runs that have a job waiting to be taken (one query, however long the queue)."""
        jobs = await self._opened().job_manager.list_jobs_async(task=WORK, status="todo")
        return {str(job.task_kwargs.get("run_id")) for job in jobs}

    async def defer_joins(self, run_id: str, workers: int) -> int:
        """``workers`` jobs that join the run; how many were deferred."""
        deferrer = self._opened().configure_task(JOIN, queue=RUNS)
        try:
            each: dict[str, types.JSONValue] = {"run_id": run_id}
            ids = await deferrer.batch_defer_async(*(each for _ in range(workers)))
        except _CONNECTION_FAILURES as exc:
            raise Unavailable(f"the job queue did not take the join jobs ({exc})") from None
        return len(ids)

    async def drop_stalled(self) -> int:
        """Mark failed the jobs of workers gone without a word (killed, cut off): their runs are
        the store's to find (interrupted, owner gone) and defer again."""
        manager = self._opened().job_manager
        stalled = list(await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_AFTER))
        for job in stalled:
            await manager.finish_job(job, status=jobs.Status.FAILED, delete_job=True)
        return len(stalled)

    async def work(self, fleet: Fleet, concurrency: int, stopping: anyio.Event) -> None:
        """Take jobs for ``fleet`` until ``stopping`` is set: the jobs still going are then aborted
        (``fleet.work`` leaves their runs resumable). A database that goes away stops
        procrastinate's workers; they start again RESTART_AFTER seconds later, until it answers."""
        while not stopping.is_set():
            try:
                await self._work_once(fleet, concurrency, stopping)
            except _CONNECTION_FAILURES as exc:
                log.warning("the job queue failed (%s); the worker starts again", exc)
            if not stopping.is_set():
                with anyio.move_on_after(RESTART_AFTER):
                    await stopping.wait()

    async def _work_once(self, fleet: Fleet, concurrency: int, stopping: anyio.Event) -> None:
        await self.apply_schema()
        app = self._new_app()
        app.task(name=WORK, queue=RUNS, pass_context=False)(fleet.work)
        app.task(name=JOIN, queue=RUNS, pass_context=False)(fleet.join)

        async def tend(timestamp: int) -> None:
            async with self._alone() as first:
                if first:
                    await fleet.tend()

        task = app.task(name=TEND, queue=FLEET, queueing_lock="tend")(tend)
        # croniter reads a sixth field as the seconds (the first is the minutes)
        app.periodic(cron=f"* * * * * */{TEND_SECONDS}", periodic_id="tend")(task)
        async with app.open_async():
            workers = [
                self._worker(app, RUNS, concurrency),
                self._worker(app, FLEET, 1),
            ]
            failed: list[BaseException] = []

            async def run(worker: Worker) -> None:
                try:
                    await worker.run()  # type: ignore[no-untyped-call]  # untyped upstream
                except _CONNECTION_FAILURES as exc:
                    failed.append(exc)
                finally:  # one stopped (the database went away): the other stops too
                    for other in workers:
                        other.stop()  # type: ignore[no-untyped-call]

            async with anyio.create_task_group() as stopper:
                stopper.start_soon(_stop_on, stopping, workers)
                async with anyio.create_task_group() as running:
                    for worker in workers:
                        running.start_soon(run, worker)
                stopper.cancel_scope.cancel()  # both stopped: nothing left to stop
            if failed:
                raise failed[0]

    @staticmethod
    def _worker(app: procrastinate.App, queue: str, concurrency: int) -> Worker:
        options: dict[str, Any] = {
            "queues": [queue],
            "name": queue,
            "concurrency": concurrency,
            "install_signal_handlers": False,
            "shutdown_graceful_timeout": 0.0,
            "update_heartbeat_interval": HEARTBEAT,
            "stalled_worker_timeout": STALLED_AFTER,
            "delete_jobs": "always",
            "fetch_job_polling_interval": 1.0,
        }
        return Worker(app=app, **options)


async def _stop_on(stopping: anyio.Event, workers: list[Worker]) -> None:
    await stopping.wait()
    for worker in workers:
        worker.stop()  # type: ignore[no-untyped-call]
