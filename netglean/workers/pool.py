"""Where third-party bytes are read (the reader jobs of netglean.read.jobs, netglean.feeds.jobs):
worker processes when the operator allows some.

Reading a page is CPU work that mostly holds the GIL, so in one process a batch reads no
faster than one CPU allows, and the fetching, framing and reading take turns. Worker
processes let a batch use the machine's other CPUs while the server process fetches. They
are also where hostile input can be stopped: a selector, a parser or a pattern working on a
page runs in C and cannot be interrupted in a thread, but a process can be killed. A job
whose caller stops waiting (its call's deadline passed, or the client cancelled) ends with
the worker reading it, which is replaced; a call's timeout ends its work, not just its answer.

The event loop drives the workers itself: each is a child process (netglean.workers.child)
spoken to over its stdin and stdout, and the loop writes jobs and reads answers with no
helper threads. Each worker holds two jobs, the page it reads and the next one already in its
pipe, so it never waits for the server process to hand it work. (A thread-based executor's
hand-offs, each waiting for the GIL in a busy server, left its workers idle a third of a batch.)

The workers start ahead of the first job (``start``, from the runner's warm-up) or with it; a
job waits for one to be ready. A worker that dies (a page that crashes the parser) costs the job it
was reading; the job queued behind it goes to another worker, and a new worker is started. Only
when no worker can run at all (an event loop that cannot watch pipes, processes that cannot start,
or ``read_workers`` 0) do jobs run in threads, where nothing can stop them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ParamSpec, TypeVar

import anyio
from anyio.lowlevel import RunVar

from netglean.core.errors import UnsupportedContent
from netglean.workers import child as read_worker

log = logging.getLogger("netglean.workers.pool")

_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("netglean_reader_threads")

P = ParamSpec("P")
T = TypeVar("T")

DEPTH = 2
"""Jobs a worker holds at once: the one it is reading and the next one, waiting in its pipe."""


def worker_count(setting: int) -> int:
    """The operator's ``read_workers``; -1 means one per CPU.

    One per CPU, not one fewer: the server process spends much of a batch waiting on the
    network and on its client, and measured on two CPUs two workers beat one (bench.fetch).
    On one CPU still one: a process is where a hostile page's reading can be stopped.
    """
    return (os.cpu_count() or 1) if setting < 0 else setting


@dataclass(slots=True)
class _Job:
    work: Callable[..., Any]
    arguments: dict[str, Any]
    future: asyncio.Future[Any]

    @property
    def reference(self) -> str:
        """How a reader process finds the job: its module and name (read_worker.job)."""
        return f"{self.work.__module__}:{self.work.__name__}"


@dataclass(eq=False)
class _Worker(asyncio.Protocol):
    """One reader process and the jobs it has been sent, oldest (the one being read) first."""

    pool: Readers
    process: subprocess.Popen[bytes]
    jobs: deque[_Job] = field(default_factory=deque)
    ready: bool = False
    killed: bool = False
    """Killed on purpose (its job was abandoned): it takes no more jobs while its pipes close."""
    writer: asyncio.WriteTransport | None = None
    reader: asyncio.ReadTransport | None = None
    buffer: bytearray = field(default_factory=bytearray)

    def send(self, job: _Job, data: bytes) -> None:
        assert self.writer is not None
        self.jobs.append(job)
        self.writer.write(data)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        header = read_worker.HEADER
        while len(self.buffer) >= header.size:
            (size,) = header.unpack_from(self.buffer)
            end = header.size + size
            if len(self.buffer) < end:
                return
            try:
                message = pickle.loads(self.buffer[header.size : end])
            # an exception class that cannot be rebuilt here: its message still is
            except Exception as exc:
                message = (False, RuntimeError(f"the reader's answer could not be read: {exc}"))
            del self.buffer[:end]
            self.pool._on_reply(self, message)

    def connection_lost(self, exc: Exception | None) -> None:
        self.pool._on_worker_lost(self)

    def stop(self) -> None:
        """End the process; each pipe is closed by its transport, or here when it never got one."""
        for transport, pipe in (
            (self.writer, self.process.stdin),
            (self.reader, self.process.stdout),
        ):
            try:
                if transport is not None:
                    transport.close()
                elif pipe is not None:
                    pipe.close()
            except RuntimeError:  # the transport's event loop has ended: close the pipe itself
                if pipe is not None:
                    pipe.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class Readers:
    def __init__(self, processes: int) -> None:
        self._processes = processes
        self._workers: list[_Worker] = []
        self._waiting: deque[_Job] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broken = False
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def warm(self) -> bool:
        """Whether jobs now go to worker processes."""
        return any(worker.ready and not worker.killed for worker in self._workers)

    @property
    def in_threads(self) -> bool:
        """Whether jobs run in threads, where nothing stops them: no worker processes allowed, or
        none can run."""
        return self._processes < 1 or self._broken

    def start(self) -> None:
        """Start the worker processes on this event loop, if they are not running on it already."""
        loop = asyncio.get_running_loop()
        if self.in_threads or self._loop is loop:
            return
        self.close()
        self._loop = loop
        for _ in range(self._processes):
            self._start()

    async def run(self, job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``job`` (a reader job: one named in the ``__all__`` of a module of
        read_worker.JOB_MODULES) on ``kwargs``, in a worker process; what it returns or raises. If
        the caller stops waiting, the worker reading the job is replaced, so the work ends with the
        wait."""
        if args:
            raise TypeError("reader jobs take keyword arguments only")
        # a function no reader process would run is refused here
        read_worker.job(f"{job.__module__}:{job.__name__}")
        self.start()
        if self.in_threads:
            threaded: T = await _in_thread(job, kwargs)
            return threaded
        assert self._loop is not None
        queued = _Job(job, kwargs, self._loop.create_future())
        self._waiting.append(queued)
        self._dispatch()
        try:
            result: T = await queued.future
            return result
        finally:
            # the caller stopped waiting: so does the reading, if it started
            if queued.future.cancelled():
                self._end_abandoned()

    def _start(self) -> None:
        assert self._loop is not None
        process = subprocess.Popen(
            [sys.executable, "-m", "netglean.workers.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        worker = _Worker(self, process)
        self._workers.append(worker)
        task = self._loop.create_task(self._connect(worker, self._loop))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _connect(self, worker: _Worker, loop: asyncio.AbstractEventLoop) -> None:
        stdin, stdout = worker.process.stdin, worker.process.stdout
        assert stdin is not None and stdout is not None
        if worker not in self._workers:
            return  # stopped before its pipes were watched
        try:
            worker.writer, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, stdin)
            worker.reader, _ = await loop.connect_read_pipe(lambda: worker, stdout)
        except (OSError, ValueError, NotImplementedError) as exc:
            if worker not in self._workers:
                return  # stopped while its pipes were being connected: they are closed already
            log.error("reader processes cannot be reached (%s); reading in threads", exc)
            self._fall_back_to_threads()
            return
        if worker not in self._workers:  # stopped while its pipes were being connected
            worker.stop()

    def _dispatch(self) -> None:
        ready = [worker for worker in self._workers if worker.ready and not worker.killed]
        while self._waiting and ready:
            worker = min(ready, key=lambda candidate: len(candidate.jobs))
            if len(worker.jobs) >= DEPTH:
                return
            job = self._waiting.popleft()
            if job.future.done():  # a caller that stopped waiting (a timeout) costs no reading
                continue
            try:
                data = read_worker.frame((job.reference, job.arguments))
            except Exception as exc:  # arguments that do not pickle fail their own call, no other
                job.future.set_exception(exc)
                continue
            worker.send(job, data)

    def _on_reply(self, worker: _Worker, message: Any) -> None:
        if message == read_worker.READY:
            worker.ready = True
        else:
            ok, value = message
            future = worker.jobs.popleft().future
            if not future.done():
                future.set_result(value) if ok else future.set_exception(value)
            self._end_abandoned()
        self._dispatch()

    def _end_abandoned(self) -> None:
        """Replace every worker reading a job nobody waits for any more: it must not go on working
        for nobody."""
        for worker in list(self._workers):
            if worker.jobs and worker.jobs[0].future.cancelled() and not worker.killed:
                log.info("a reader process was on a job its caller gave up; replacing it")
                worker.killed = True
                # its pipe closes: _lost sends the jobs queued behind elsewhere, starts another
                worker.process.kill()

    def _on_worker_lost(self, worker: _Worker) -> None:
        """A worker's output ended: it died. Its page fails, the page queued behind it goes
        elsewhere."""
        if worker not in self._workers:
            return  # stopped on purpose
        self._workers.remove(worker)
        worker.stop()
        abandoned = False
        if worker.jobs:
            reading = worker.jobs.popleft()
            abandoned = reading.future.cancelled()
            if not reading.future.done():
                url = str(getattr(reading.arguments.get("document"), "url", None) or "a document")
                reading.future.set_exception(
                    UnsupportedContent(
                        f"reading {url} stopped a reader process; it cannot be read",
                        detail={"url": url},
                    )
                )
            self._waiting.extendleft(reversed(worker.jobs))
        if worker.ready:
            if not abandoned:
                log.error("a reader process died; starting another")
            self._start()
        # none ever started: this machine cannot run them, so threads read from now on
        elif not self._workers:
            log.error(
                "reader processes cannot start (exit status %s); reading in threads",
                worker.process.returncode,
            )
            self._fall_back_to_threads()
        self._dispatch()

    def _fall_back_to_threads(self) -> None:
        """No worker can run here: every job waiting, or already sent to a worker, is read in a
        thread, and so is every later one."""
        self._broken = True
        workers, self._workers = self._workers, []
        jobs = [job for worker in workers for job in worker.jobs] + list(self._waiting)
        self._waiting.clear()
        for worker in workers:
            worker.stop()
        for job in jobs:
            if not job.future.done():
                self._read_in_thread(job)

    def _read_in_thread(self, job: _Job) -> None:
        async def run() -> None:
            try:
                job.future.set_result(await _in_thread(job.work, job.arguments))
            except Exception as exc:
                if not job.future.done():
                    job.future.set_exception(exc)

        assert self._loop is not None
        task = self._loop.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()
            for job in worker.jobs:
                job.future.cancel()
        for job in self._waiting:
            job.future.cancel()
        self._waiting.clear()
        self._loop = None


async def _in_thread(work: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    return await anyio.to_thread.run_sync(
        partial(work, **arguments), abandon_on_cancel=True, limiter=_thread_limiter()
    )


def _thread_limiter() -> anyio.CapacityLimiter:
    """Threads reading at once, per event loop: parsing releases the GIL and the rest holds it, so
    one per CPU is the most that helps (more only take turns, and each page finishes later for
    it)."""
    try:
        return _THREADS.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(os.cpu_count() or 1)
        _THREADS.set(limiter)
        return limiter
