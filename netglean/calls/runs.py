"""Background runs: a tool whose catalog entry says ``execution: async`` works as a run, kept in the
run store, that outlives the call that started it, its client and (as an interrupted, resumable run)
its server process.

The transport that serves (stdio, HTTP, a command-line call) hosts the runs (``Runs.hosting``):
their tasks live in its task group, not in any call's. A call starts a run and waits for it as long
as it asks (``wait``, ``timeout_ms``), within the call's own deadline; a wait that ends first leaves
the run going. Another process's run (several servers may share one store) is seen, waited for and
cancelled through the store.

With ``run_workers`` on, a run is the fleet's: starting (or resuming) one writes it queued to the
store and defers a job naming it (netglean.queue); a `netglean worker` takes the job and works the
run here (``Runs.take``), through the same Execute a server's own runs go through. A crash between
the two writes loses nothing: the fleet's tend (``Runs.tend``) defers a job for every run left
queued without one, and for every run interrupted (its worker killed, or the database gone) that has
attempts left, which its job then resumes from its checkpoint.
"""

from __future__ import annotations

import json
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, overload

import anyio
from anyio.abc import TaskGroup

from netglean.calls.context import RESPONSE_RESERVE
from netglean.calls.registry import resolve
from netglean.core.envelope import Envelope
from netglean.core.errors import RunNotFound, ToolError, Unavailable
from netglean.core.settings import Settings
from netglean.store.base import RESUMABLE, Run

if TYPE_CHECKING:
    from netglean.calls.context import Services
    from netglean.queue.jobs import JobQueue
    from netglean.store.base import RunStore

log = logging.getLogger("netglean.calls.runs")

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
Execute = Callable[[Run, "RunScope", Progress], Awaitable[tuple[Envelope, str | None]]]
"""Runs one run's tool (the runner's call path, without a call's deadline): its envelope and
source."""

CANCEL_GRACE = 5.0
"""Seconds a graceful cancel waits for a run to stop at a page boundary before it is forced."""
POLL = 0.25
"""Seconds between looks at the store, for a run another process works on."""
PROGRESS_EVERY = 0.5
"""Least seconds between two progress writes of one run (the last one is always written)."""
QUEUED_PER_SLOT = 25
"""Runs one server holds (working and queued) per run slot (max_runs); past that, a new run is
refused as unavailable (retryable) rather than queued without end."""
SWEEP_EVERY = 3600.0
"""Seconds between two prunings of the runs past the operator's retention."""
LOST_SWEEP_EVERY = 10.0
"""Seconds between two looks for this process's runs whose end could not be written (a write
each)."""
ATTEMPTS_BY_THE_FLEET = 10
"""Attempts after which the fleet no longer resumes an interrupted run by itself (a run that kills
its workers): resume_run still does."""
QUEUED_WITHOUT_JOB = 30.0
"""Seconds a run may stay queued before the fleet's tend defers a job for it (one already waiting
makes that a no-op): longer than a start takes between its two writes."""
TEND_PAGE = 500

Join = Callable[[Run, "RunScope", "Services"], Awaitable[None]]
"""A tool's way for one more process to help a running run of it (a crawl reading its shared
frontier): it returns when there is nothing left for it to do."""
JOINS: dict[str, Join | str] = {}
"""The join function of each tool that has one (none unless registered: ``register_join``), or its
``module:function`` reference, imported when a worker first joins a run of that tool."""


def register_join(tool: str, join: Join | str) -> None:
    """Let workers join running runs of ``tool`` (``Runs.ask_help``) through ``join``."""
    JOINS[tool] = join


_CALLS_RUNS: ContextVar[set[str] | None] = ContextVar("netglean_calls_runs", default=None)
"""The runs started (or resumed) by the call that hosts runs for itself (Runs.hosted_here): they end
with it."""
_NOTED_RUNS: ContextVar[list[str] | None] = ContextVar("netglean_noted_runs", default=None)
"""The runs started (or resumed) in a block of ``Runs.noting``, for a transport that names them
afterwards."""


@dataclass(slots=True)
class RunScope:
    """What a handler working as a run may use besides its Context: the run's id, the store it
    writes its checkpoint and items to, its log, and the event a graceful cancel sets (stop at the
    next page)."""

    id: str
    store: RunStore
    stop: anyio.Event = field(default_factory=anyio.Event)
    current: str | None = None
    """What the run did last (a crawl's last URL): written with its next progress, shown inside the
    frame."""

    async def log(self, level: str, message: str) -> None:
        await self.store.log(self.id, level, message)


@dataclass(slots=True)
class _Active:
    """A run this process is working on."""

    scope: RunScope
    cancel: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    forced: bool = False
    listeners: set[Progress] = field(default_factory=set)
    written: float = 0.0
    asked_at: float = 0.0
    """When a graceful cancel another process asked was begun here (it is forced CANCEL_GRACE
    later)."""
    reported: tuple[int, int | None] | None = None
    """The run's last progress (done, total), written to the store at most every PROGRESS_EVERY and
    at its end."""
    stored: tuple[int, int | None] | None = None


class Runs:
    """The runs one server hosts, and every run of its store."""

    def __init__(
        self,
        settings: Settings,
        open_store: Callable[[], RunStore],
        open_queue: Callable[[], JobQueue] | None = None,
    ) -> None:
        self._settings = settings
        self._open_store = open_store
        self._store: RunStore | None = None
        self._open_queue = open_queue
        self._queue: JobQueue | None = None
        self._lost: set[str] = set()
        """Runs this process worked whose end could not be written (the store was gone): marked
        interrupted once it answers (with run_workers on; else the lost-track sweep does it)."""
        self._tasks: TaskGroup | None = None
        self._active: dict[str, _Active] = {}
        self._slots: anyio.Semaphore | None = None
        self._execute: Execute | None = None
        self._calls = 0
        """Calls in hosted_here's block that host runs for themselves (no transport does): the
        hosting is theirs."""
        self._call_ended: anyio.Event | None = None
        self._resuming = anyio.Lock()
        """Resumes here go one at a time, each seeing the run as the one before left it: two that
        both read it before either requeued it would swap their tasks in _active, and the task that
        found another's there would give way to none (the run left queued for good)."""

    def bind(self, execute: Execute) -> None:
        self._execute = execute

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def store(self) -> RunStore:
        """The store, opened (and migrated) on first use; ConfigurationError when it cannot be."""
        if self._store is None:
            self._store = self._open_store()
        return self._store

    def prepare(self) -> None:
        """Open the store now: a transport that does so before it serves makes a bad store a
        start-up error."""
        _ = self.store

    @property
    def hosted(self) -> bool:
        return self._tasks is not None

    @property
    def dispatching(self) -> bool:
        """Whether runs go to `netglean worker` processes (run_workers), not to this process."""
        return self._open_queue is not None

    @property
    def queue(self) -> JobQueue:
        if self._queue is None:
            raise Unavailable(
                "this server is not hosting background runs (it is starting or stopping)"
            )
        return self._queue

    @asynccontextmanager
    async def hosting(self) -> AsyncIterator[None]:
        """Work runs while the transport serves; at its end, the runs still going stop,
        ``interrupted`` (resumable)."""
        store = self.store
        await self._sweep(store.interrupt_orphans, "left by a stopped process")
        self._slots = anyio.Semaphore(self._settings.max_runs)
        if self._open_queue is not None:
            queue = self._open_queue()
            await queue.open()
            self._queue = queue
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                tasks.start_soon(self._keep)
                try:
                    yield
                finally:
                    self._tasks = None
                    tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if self._queue is None:
                    await self._sweep(
                        store.interrupt_own,
                        "interrupted by the server's stop (resume_run continues them)",
                    )
                else:  # the runs it made are the fleet's: only those it worked stop
                    await self._end_lost()
                    queue, self._queue = self._queue, None
                    await queue.close()

    @asynccontextmanager
    async def hosted_here(self) -> AsyncIterator[bool]:
        """Runs hosted for as long as the block lasts, when no transport hosts them (an embedding's
        own call, the command line's resume_run): True then, and a run started in the block ends
        with it (interrupted) unless waited for. Such calls at once share the first one's hosting,
        which lasts until the last of them ends."""
        if self.hosted and not self._calls:  # a transport's: runs outlive the call
            yield False
            return
        ours: set[str] = set()
        token = _CALLS_RUNS.set(ours)
        self._calls += 1
        try:
            async with self._shared():
                try:
                    yield True
                finally:
                    await self._end_calls_runs(ours)
        finally:
            self._calls -= 1
            _CALLS_RUNS.reset(token)
            if self._call_ended is not None:
                self._call_ended.set()
                self._call_ended = None

    @asynccontextmanager
    async def _shared(self) -> AsyncIterator[None]:
        """hosting() for the first of the calls that host runs for themselves, until the last of
        them has ended."""
        if self.hosted:
            yield
            return
        async with self.hosting():
            try:
                yield
            finally:
                while self._calls > 1:  # the others' runs end with their own calls
                    self._call_ended = self._call_ended or anyio.Event()
                    await self._call_ended.wait()

    async def _end_calls_runs(self, ours: set[str]) -> None:
        """The runs of a call that hosted them, still going at its end, stop as at a server's stop:
        interrupted."""
        going = {run_id for run_id in ours if run_id in self._active}
        if not going:
            return
        for run_id in going:
            self._active[run_id].cancel.cancel()  # not forced: the run writes no end of its own
        others = tuple(run_id for run_id in self._active if run_id not in going)
        with anyio.CancelScope(shield=True):
            await self._sweep(
                lambda: self.store.interrupt_own(keep=others),
                "ended with the call that hosted them",
            )

    async def _sweep(self, sweep: Callable[[], Awaitable[int]], what: str) -> int:
        """One of the store's sweeps, whose failure (a busy or full store) is logged: a later round
        tries again."""
        try:
            swept = await sweep()
        except ToolError as exc:
            log.warning("the run store could not mark runs %s: %s", what, exc.message)
            return 0
        except OSError as exc:  # an owner's lock file that cannot be opened (permissions)
            log.warning("the run store's owner locks could not be read: %s", exc)
            return 0
        if swept:
            log.info("%d run(s) %s", swept, what)
        return swept

    async def _keep(self) -> None:
        """Carry out cancels other processes asked of this one's runs (forcing a graceful one after
        CANCEL_GRACE), mark interrupted this process's runs it lost track of (their end could not be
        written), and prune what retention lets go; a store that fails here is logged and tried
        again, never the end of hosting."""
        pruned_at = swept_at = -math.inf
        while True:
            try:
                for run_id, active in list(self._active.items()):
                    run = await self.store.get(run_id)
                    if run is not None and run.cancel and not active.forced:
                        await self._carry_out(active, run)
                days = self._settings.run_retention_days
                if days and time.monotonic() - pruned_at > SWEEP_EVERY:
                    pruned_at = time.monotonic()
                    pruned = await self.store.prune(time.time() - days * 86_400)
                    if pruned:
                        log.info("pruned %d run(s) finished more than %g day(s) ago", pruned, days)
            # a busy or full store: the next round tries again; the server goes on
            except ToolError as exc:
                log.warning("the run store could not be read or pruned: %s", exc.message)
            # an owner's lock file that cannot be opened (permissions): the same
            except OSError as exc:
                log.warning("the run store's owner locks could not be read: %s", exc)
            if time.monotonic() - swept_at > LOST_SWEEP_EVERY:
                swept_at = time.monotonic()
                if self.dispatching:
                    await self._end_lost()
                else:
                    await self._sweep(
                        lambda: self.store.interrupt_own(keep=tuple(self._active)), "lost track of"
                    )
            await anyio.sleep(POLL * 2)

    async def _carry_out(self, active: _Active, run: Run) -> None:
        """A cancel another process asked of this one's run, as cancel() does it here."""
        if run.status == "queued":
            await self._cancel_queued(active)
        elif run.cancel == "force" or (
            active.asked_at and time.monotonic() - active.asked_at > CANCEL_GRACE
        ):
            self._tasks_cancel(active, force=True)
        elif not active.scope.stop.is_set():
            active.asked_at = time.monotonic()
            self._tasks_cancel(active, force=False)

    async def start(
        self, tool: str, arguments: dict[str, Any], *, session: str, label: str | None
    ) -> Run:
        if self.dispatching:
            queue = self.queue  # not hosting: refused before anything is written
            run = await self.store.create(uuid.uuid4().hex, tool, arguments, label, session)
            await self._hand_over(queue, run.id)
            self._of_call(run.id)
            return run
        most = self._settings.max_runs * QUEUED_PER_SLOT
        if len(self._active) >= most:
            raise Unavailable(
                f"this server holds {most} runs already (working or queued); start this one later"
            )
        run_id = uuid.uuid4().hex
        # before the row: the lost-track sweep never takes a run being made
        active = self._held(run_id)
        try:
            run = await self.store.create(run_id, tool, arguments, label, session)
        except BaseException:
            self._active.pop(run_id, None)
            raise
        self._launch(active)
        self._of_call(run_id)
        return run

    @staticmethod
    def _of_call(run_id: str) -> None:
        ours = _CALLS_RUNS.get()
        if ours is not None:
            ours.add(run_id)
        noted = _NOTED_RUNS.get()
        if noted is not None:
            noted.append(run_id)

    @staticmethod
    @contextmanager
    def noting() -> Iterator[list[str]]:
        """The ids of the runs started or resumed in the block, in order: the command line names a
        run Ctrl-C interrupted, and how to resume it."""
        noted: list[str] = []
        token = _NOTED_RUNS.set(noted)
        try:
            yield noted
        finally:
            _NOTED_RUNS.reset(token)

    def _hosting_now(self) -> tuple[TaskGroup, anyio.Semaphore, Execute]:
        if self._tasks is None or self._slots is None or self._execute is None:
            raise Unavailable(
                "this server is not hosting background runs (it is starting or stopping)"
            )
        return self._tasks, self._slots, self._execute

    def _held(self, run_id: str) -> _Active:
        self._hosting_now()
        active = self._active[run_id] = _Active(RunScope(run_id, self.store))
        return active

    def _give_back(self, run_id: str, before: _Active | None) -> None:
        if before is None:
            self._active.pop(run_id, None)
        else:
            self._active[run_id] = before

    def _launch(self, active: _Active) -> None:
        try:
            # hosting may have ended while the run's row was written
            tasks, slots, execute = self._hosting_now()
        except Unavailable:
            self._active.pop(active.scope.id, None)
            raise
        tasks.start_soon(self._work, active, slots, execute)

    async def _work(self, active: _Active, slots: anyio.Semaphore, execute: Execute) -> None:
        scope, store = active.scope, self.store
        try:
            async with slots:
                # cancelled while queued and resumed: resume_run's task
                if self._active.get(scope.id) is not active:
                    return
                run = await store.claim(scope.id)
                if run is None:  # cancelled while it waited its turn
                    return
                await scope.log("info", f"{run.tool} started (attempt {run.attempts})")
                envelope: Envelope | None = None
                with active.cancel:
                    envelope, source = await execute(run, scope, self._reporter(active))
                if envelope is not None or active.forced:
                    await self._write_progress(active)
                if envelope is None:
                    if active.forced:
                        await store.finish(
                            scope.id, "cancelled", error=("cancelled", "the run was cancelled")
                        )
                        await scope.log("info", "cancelled (forced)")
                    return  # the server is stopping: hosting() marks the run interrupted
                error = envelope.payload.get("error", {}) if not envelope.ok else {}
                status = (
                    "cancelled" if scope.stop.is_set() else "succeeded" if envelope.ok else "failed"
                )
                await store.finish(
                    scope.id,
                    status,
                    result=_envelope_json(envelope),
                    source=source,
                    error=(error.get("code", "tool_error"), error.get("message", ""))
                    if error
                    else None,
                )
                await scope.log("info" if envelope.ok else "error", f"{run.tool} {status}")
        # the store failed under the run: interrupted (resumable), now or by the sweep
        except ToolError as exc:
            log.error("run %s: %s", scope.id, exc.message)
            await self._ended(scope.id, "interrupted", None)
        # never the server's end: the run fails, now or (marked interrupted) by the sweep
        except Exception:
            log.exception("run %s failed outside its tool", scope.id)
            await self._ended(
                scope.id, "failed", ("internal_error", "the run failed inside the server")
            )
        finally:
            active.done.set()
            if self._active.get(scope.id) is active:
                del self._active[scope.id]

    async def _ended(self, run_id: str, status: str, error: tuple[str, str] | None) -> None:
        try:
            await self.store.finish(run_id, status, error=error)
        except ToolError:  # the store still fails: _keep's sweep marks it interrupted once it can
            log.warning(
                "run %s could not be marked %s; it will be marked interrupted", run_id, status
            )
            if self.dispatching:
                self._lost.add(run_id)

    def _reporter(self, active: _Active) -> Progress:
        async def report(done: float, total: float | None, message: str | None) -> None:
            now = time.monotonic()
            active.reported = (int(done), None if total is None else int(total))
            final = total is not None and done >= total
            if final or now - active.written >= PROGRESS_EVERY:
                active.written = now
                await self._write_progress(active)
            for listener in list(active.listeners):
                try:
                    await listener(done, total, message)
                except Exception:  # a caller that went away stops listening; the run goes on
                    active.listeners.discard(listener)

        return report

    async def _write_progress(self, active: _Active) -> None:
        """The last progress reported, unless written already: ``stored`` only once the write is
        made, so a write that a forced stop cancels (waiting for a busy store) is made at the run's
        end."""
        reported = active.reported
        if reported is not None and reported != active.stored:
            await self.store.progress(active.scope.id, *reported, active.scope.current)
            active.stored = reported

    async def get(self, run_id: str) -> Run:
        run = await self.store.get(run_id)
        if run is None:
            raise RunNotFound(
                f"no run {run_id} in this server's run store (an id from another store, or pruned)"
            )
        return run

    async def wait_for_call(
        self, run_id: str, timeout_ms: int | None, progress: Progress | None
    ) -> Run:
        """wait() as a call does: at most ``timeout_ms``, never past the call's deadline less the
        share kept for answering."""
        most = self._settings.call_timeout * (1 - RESPONSE_RESERVE)
        return await self.wait(
            run_id, most if timeout_ms is None else min(timeout_ms / 1000, most), progress
        )

    async def wait(self, run_id: str, seconds: float, progress: Progress | None = None) -> Run:
        """The run once it has finished, or as it stands after ``seconds``; ``progress`` hears its
        progress."""
        active = self._active.get(run_id)
        with anyio.move_on_after(seconds):
            if active is not None:
                if progress is not None:
                    active.listeners.add(progress)
                try:
                    await active.done.wait()
                finally:
                    if progress is not None:
                        active.listeners.discard(progress)
            else:
                while not (await self.get(run_id)).finished:
                    await anyio.sleep(POLL)
        return await self.get(run_id)

    async def cancel(self, run_id: str, *, force: bool) -> Run:
        """Stop a run: gracefully (at its next page, its result so far kept) unless ``force``; the
        final status within CANCEL_GRACE seconds when the run is this process's, else as soon as its
        process sees the ask."""
        run = await self.get(run_id)
        if run.finished:
            return run
        active = self._active.get(run_id)
        if active is None:
            # its process carries it out
            await self.store.ask_cancel(run_id, "force" if force else "graceful")
            if run.status == "queued" and self.dispatching:  # no process holds it: the queue does
                # a worker that claims it meanwhile sees the ask, and stops it at once
                await self.store.finish(
                    run_id,
                    "cancelled",
                    error=("cancelled", "the run was cancelled before it began"),
                )
            return await self.wait(run_id, CANCEL_GRACE)
        if run.status == "queued":
            await self._cancel_queued(active)
            return await self.get(run_id)
        self._tasks_cancel(active, force=force)
        with anyio.move_on_after(CANCEL_GRACE):
            await active.done.wait()
        if not active.done.is_set():
            self._tasks_cancel(active, force=True)
            with anyio.move_on_after(CANCEL_GRACE):
                await active.done.wait()
        return await self.get(run_id)

    async def _cancel_queued(self, active: _Active) -> None:
        run_id = active.scope.id
        await self.store.finish(
            run_id, "cancelled", error=("cancelled", "the run was cancelled before it began")
        )
        # its task may have claimed it since: it stops at once
        self._tasks_cancel(active, force=True)

    @staticmethod
    def _tasks_cancel(active: _Active, *, force: bool) -> None:
        active.scope.stop.set()
        if force:
            active.forced = True
            active.cancel.cancel()

    async def resume(self, run_id: str, *, retry_failed: bool, session: str) -> tuple[Run, bool]:
        """Continue a run from its checkpoint (an interrupted, cancelled or failed one; a succeeded
        one only to retry what failed), as the same run, spending ``session``'s budget; and whether
        it was continued (a run still working, or succeeded with nothing to retry, is left as it is:
        asking twice is harmless)."""
        if self.dispatching:
            return await self._resume_by_the_fleet(
                run_id, retry_failed=retry_failed, session=session
            )
        # other processes' resumes are kept apart by the store's one step
        async with self._resuming:
            run = await self.get(run_id)
            if run_id in self._active and not run.finished:  # still this process's, working
                return run, False
            # a task cancelled while queued, still waiting its turn: it gives way
            before = self._active.get(run_id)
            active = self._held(run_id)  # not hosting: refused before anything is written
            try:
                resumed = await self._requeue(run_id, session=session, retry_failed=retry_failed)
            except BaseException:
                self._give_back(run_id, before)
                raise
            if resumed is None:
                self._give_back(run_id, before)
                return await self.get(run_id), False
            self._launch(active)
            self._of_call(run_id)
            return resumed, True

    async def _resume_by_the_fleet(
        self, run_id: str, *, retry_failed: bool, session: str
    ) -> tuple[Run, bool]:
        queue = self.queue
        resumed = await self._requeue(run_id, session=session, retry_failed=retry_failed)
        if resumed is None:
            return await self.get(run_id), False
        await self._hand_over(queue, run_id)
        self._of_call(run_id)
        return resumed, True

    async def _requeue(self, run_id: str, *, session: str, retry_failed: bool) -> Run | None:
        """The run queued again from its checkpoint (None when it is not to be continued), its log
        saying how many failed visits will be read again."""
        resumed, forgotten = await self.store.requeue(
            run_id, session=session, retry_failed=retry_failed
        )
        if resumed is not None and forgotten:
            await self.store.log(run_id, "info", f"{forgotten} failed visit(s) will be read again")
        return resumed

    async def _hand_over(self, queue: JobQueue, run_id: str) -> None:
        """A job for the run, just written queued. A queue that fails here is logged, not the
        call's failure: the run waits in the store, and the fleet's tend defers its job."""
        try:
            await queue.defer_run(run_id)
        except ToolError as exc:
            log.warning("run %s: its job could not be queued yet: %s", run_id, exc.message)

    async def take(self, run_id: str) -> None:
        """Work a run the queue handed this worker (netglean.work_run): a queued one; an
        interrupted one, with attempts left, resumed from its checkpoint (its worker was killed, or
        the database went away under it); any other left alone (another worker has it, or it has
        ended). A stop (the worker's, or its database gone) leaves it interrupted, its job queued
        again for another worker."""
        _, slots, execute = self._hosting_now()
        run = await self.store.get(run_id)  # a dead worker's running run comes back interrupted
        if run is not None and run.status == "interrupted":
            if run.attempts >= ATTEMPTS_BY_THE_FLEET:
                await self.store.log(
                    run_id, "warning", f"interrupted {run.attempts} times: resume_run continues it"
                )
                return
            run, _ = await self.store.requeue(run_id, session=run.session, retry_failed=False)
            if run is not None:
                await self.store.log(run_id, "info", "interrupted; resumed by a worker")
        if run is None or run.status != "queued" or run_id in self._active:
            return
        active = self._held(run_id)
        try:
            await self._work(active, slots, execute)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._ended(run_id, "interrupted", None)
                if run_id not in self._lost and self._queue is not None:
                    await self._hand_over(self._queue, run_id)
            raise

    async def _end_lost(self) -> None:
        """The runs whose end could not be written, marked interrupted now if the store answers
        (the fleet's tend then defers their jobs)."""
        for run_id in list(self._lost):
            try:
                await self.store.finish(run_id, "interrupted")
            except ToolError:
                return  # still gone: the next round
            self._lost.discard(run_id)

    async def tend(self) -> int:
        """The fleet's look (once across it per tick): the jobs of workers gone are dropped, the
        runs of processes gone interrupted, and every run that should be worked and may have no job
        gets one (a queueing lock per run makes a second a no-op); how many were deferred."""
        queue = self.queue
        dropped = await queue.drop_stalled()
        if dropped:
            log.info("dropped %d job(s) of workers gone; their runs are deferred again", dropped)
        await self.store.interrupt_orphans()
        waiting = await queue.waiting()
        deferred = 0
        now = time.time()
        for status in ("interrupted", "queued"):
            seen = 0
            while True:
                runs, total = await self.store.list_runs(
                    statuses=(status,), tools=(), offset=seen, limit=TEND_PAGE
                )
                for run in runs:
                    young = status == "queued" and now - run.updated_at < QUEUED_WITHOUT_JOB
                    if young or run.id in waiting or run.attempts >= ATTEMPTS_BY_THE_FLEET:
                        continue
                    deferred += await queue.defer_run(run.id)
                seen += len(runs)
                if not runs or seen >= total:
                    break
        if deferred:
            log.info("the fleet's tend deferred %d run(s) that had no job", deferred)
        return deferred

    async def ask_help(self, run_id: str, workers: int) -> int:
        """Ask ``workers`` more workers to join a running run (netglean.join_run); how many jobs
        were deferred (none unless runs go to workers)."""
        if not self.dispatching or workers < 1:
            return 0
        return await self.queue.defer_joins(run_id, workers)

    async def join(self, run_id: str, services: Services) -> None:
        """Help a running run along through its tool's join function (netglean.join_run); a run
        that has ended, or whose tool has none, is left alone."""
        run = await self.store.get(run_id)
        join = JOINS.get(run.tool) if run is not None else None
        if run is None or run.status != "running" or join is None:
            return
        if isinstance(join, str):
            join = JOINS[run.tool] = resolve(join)
        await join(run, RunScope(run_id, self.store), services)


@overload
def format_time(epoch: float) -> str: ...
@overload
def format_time(epoch: float | None) -> str | None: ...
def format_time(epoch: float | None) -> str | None:
    """An epoch time as the run tools show it: ISO 8601, UTC, milliseconds."""
    return (
        None
        if epoch is None
        else datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
    )


def describe_run(run: Run) -> dict[str, Any]:
    """A run as the RunStatus schema shows it."""
    shown: dict[str, Any] = {
        "run_id": run.id,
        "tool": run.tool,
        "label": run.label,
        "status": run.status,
        "done": run.done,
        "total": run.total,
        "current": run.current,
        "created_at": format_time(run.created_at),
        "started_at": format_time(run.started_at),
        "updated_at": format_time(run.updated_at),
        "finished_at": format_time(run.finished_at),
        "attempts": run.attempts,
        "cancel_requested": run.cancel,
        "has_result": run.has_result,
        "resumable": run.status in RESUMABLE,
    }
    if run.error_code:
        retryable = run.status in RESUMABLE
        shown["error"] = {
            "code": run.error_code,
            "message": run.error_message or "",
            "retryable": retryable,
        }
    return {key: value for key, value in shown.items() if value is not None}


def _envelope_json(envelope: Envelope) -> str:
    """The envelope as the store keeps it: the runner's own JSON of the payload, not written
    twice."""
    control = {"ok": envelope.ok, "next_step": envelope.next_step, "guidance": envelope.guidance}
    if envelope.notice:
        control["notice"] = envelope.notice
    payload = envelope.payload_json or json.dumps(envelope.payload, ensure_ascii=False)
    return json.dumps(control, ensure_ascii=False)[:-1] + ', "payload": ' + payload + "}"


def stored_envelope(text: str) -> Envelope:
    data = json.loads(text)
    return Envelope(
        data["ok"], data["next_step"], data["guidance"], data["payload"], data.get("notice", "")
    )
