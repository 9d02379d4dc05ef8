"""Where pages are read (netglean.reading): worker processes when the operator allows some, else threads.

Reading a page is CPU work that mostly holds the GIL, so in one process a batch reads no
faster than one CPU allows, and the fetching, framing and reading take turns. Worker
processes let a batch use the machine's other CPUs while the server process fetches.

The event loop drives the workers itself: each is a child process (netglean.read_worker)
spoken to over its stdin and stdout, and the loop writes jobs and reads answers with no
helper threads. Each worker holds two jobs, the page it reads and the next one already in its
pipe, so it never waits for the server process to hand it work. (A thread-based executor's
hand-offs, each waiting for the GIL in a busy server, left its workers idle a third of a batch.)

The workers start on the first read; until one is ready, pages are read in threads, so no
call waits for them. A worker that dies (a page that crashes the parser) costs the page it was
reading; the page queued behind it goes to another worker, and a new worker is started. A worker
still on a page STUCK_SECONDS after its caller gave up is replaced the same way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from anyio.lowlevel import RunVar

from netglean import read_worker
from netglean.errors import UnsupportedContent
from netglean.reading import HtmlReading, read_html

log = logging.getLogger("netglean.readers")

_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("netglean_reader_threads")

DEPTH = 2
"""Jobs a worker holds at once: the page it is reading and the next one, waiting in its pipe."""
STUCK_SECONDS = 5.0
"""How long a worker may go on reading a page after its caller gave up (timed out) before it is replaced:
a page that holds the parser that long would hold it for every later page too."""


def worker_count(setting: int) -> int:
    """The operator's ``read_workers``; -1 means one per CPU, or none on a single CPU.

    One per CPU, not one fewer: the server process spends much of a batch waiting on the
    network and on its client, and measured on two CPUs two workers beat one (bench.fetch).
    """
    cpus = os.cpu_count() or 1
    return (cpus if cpus > 1 else 0) if setting < 0 else setting


@dataclass(slots=True)
class _Job:
    arguments: dict[str, Any]
    future: asyncio.Future[HtmlReading]


@dataclass(eq=False)
class _Worker(asyncio.Protocol):
    """One reader process and the jobs it has been sent, oldest (the one being read) first."""

    pool: Readers
    process: subprocess.Popen[bytes]
    jobs: deque[_Job] = field(default_factory=deque)
    ready: bool = False
    watched: bool = False
    """A timer is running on the page it reads, whose caller has stopped waiting."""
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
            except Exception as exc:  # an exception class that cannot be rebuilt here: its message still is
                message = (False, RuntimeError(f"the reader's answer could not be read: {exc}"))
            del self.buffer[:end]
            self.pool._answered(self, message)

    def connection_lost(self, exc: Exception | None) -> None:
        self.pool._lost(self)

    def stop(self) -> None:
        """End the process; each pipe is closed by its transport, or here when it never got one."""
        for transport, pipe in ((self.writer, self.process.stdin), (self.reader, self.process.stdout)):
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
        """Whether pages now go to worker processes."""
        return any(worker.ready for worker in self._workers)

    async def read(self, html: str, url: str, *, fmt: str, main_content: bool, frontier: bool) -> HtmlReading:
        arguments = {"html": html, "url": url, "fmt": fmt, "main_content": main_content, "frontier": frontier}
        if not self._started():
            return await _in_thread(arguments)
        assert self._loop is not None
        job = _Job(arguments, self._loop.create_future())
        self._waiting.append(job)
        self._dispatch()
        try:
            return await job.future
        finally:
            if job.future.cancelled():  # the caller gave up (a timeout): is a worker still on this page?
                self._watch_head_jobs()

    def _started(self) -> bool:
        """True when a worker is ready; the first call (on each event loop) starts the workers."""
        if self._processes < 1 or self._broken:
            return False
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self.close()
            self._loop = loop
            for _ in range(self._processes):
                self._start()
            return False
        return self.warm

    def _start(self) -> None:
        assert self._loop is not None
        process = subprocess.Popen(
            [sys.executable, "-m", "netglean.read_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_worker_environment(),
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
            # An event loop that cannot watch pipes: threads read, as on one CPU.
            log.error("reader processes cannot be reached (%s); reading in threads", exc)
            self._broken = True
            self.close()
            return
        if worker not in self._workers:  # stopped while its pipes were being connected
            worker.stop()

    def _dispatch(self) -> None:
        ready = [worker for worker in self._workers if worker.ready]
        while self._waiting and ready:
            worker = min(ready, key=lambda candidate: len(candidate.jobs))
            if len(worker.jobs) >= DEPTH:
                return
            job = self._waiting.popleft()
            if job.future.done():  # a caller that stopped waiting (a timeout) costs no reading
                continue
            try:
                data = read_worker.frame(job.arguments)
            except Exception as exc:  # arguments that do not pickle fail their own call, no other
                job.future.set_exception(exc)
                continue
            worker.send(job, data)

    def _answered(self, worker: _Worker, message: Any) -> None:
        if message == read_worker.READY:
            worker.ready = True
        else:
            ok, value = message
            future = worker.jobs.popleft().future
            if not future.done():
                future.set_result(value) if ok else future.set_exception(value)
            self._watch_head_jobs()
        self._dispatch()

    def _watch_head_jobs(self) -> None:
        """Give each worker reading a page nobody waits for any more STUCK_SECONDS to finish it."""
        if self._loop is None:  # closed: no worker is left to watch
            return
        for worker in self._workers:
            if worker.jobs and worker.jobs[0].future.cancelled() and not worker.watched:
                worker.watched = True
                self._loop.call_later(STUCK_SECONDS, self._unstick, worker, worker.jobs[0])

    def _unstick(self, worker: _Worker, job: _Job) -> None:
        worker.watched = False
        if worker in self._workers and worker.jobs and worker.jobs[0] is job:
            log.error(
                "a reader process is still on %s, %g s after its caller gave up; replacing it",
                job.arguments["url"],
                STUCK_SECONDS,
            )
            worker.process.kill()  # its pipe closes: _lost retries the pages queued behind, a new worker starts
        else:
            self._watch_head_jobs()

    def _lost(self, worker: _Worker) -> None:
        """A worker's output ended: it died. Its page fails, the page queued behind it goes elsewhere."""
        if worker not in self._workers:
            return  # stopped on purpose
        self._workers.remove(worker)
        worker.stop()
        if worker.jobs:
            reading = worker.jobs.popleft()
            if not reading.future.done():
                url = reading.arguments["url"]
                reading.future.set_exception(
                    UnsupportedContent(
                        f"reading {url} stopped a reader process; the page cannot be read", detail={"url": url}
                    )
                )
            self._waiting.extendleft(reversed(worker.jobs))
        if worker.ready:
            log.error("a reader process died; starting another")
            self._start()
        elif not self._workers:  # none ever started: this machine cannot run them, so threads read from now on
            log.error("reader processes cannot start (exit status %s); reading in threads", worker.process.returncode)
            self._broken = True
            while self._waiting:
                self._read_in_thread(self._waiting.popleft())
        self._dispatch()

    def _read_in_thread(self, job: _Job) -> None:
        async def run() -> None:
            try:
                job.future.set_result(await _in_thread(job.arguments))
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


async def _in_thread(arguments: dict[str, Any]) -> HtmlReading:
    return await anyio.to_thread.run_sync(
        partial(read_html, **arguments), abandon_on_cancel=True, limiter=_thread_limiter()
    )


def _worker_environment() -> dict[str, str]:
    """The server's environment, with netglean importable however the server itself was started."""
    environment = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [root, environment.get("PYTHONPATH")]))
    return environment


def _thread_limiter() -> anyio.CapacityLimiter:
    """Threads reading at once, per event loop: parsing releases the GIL and the rest holds it, so one
    per CPU is the most that helps (more only take turns, and each page finishes later for it)."""
    try:
        return _THREADS.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(os.cpu_count() or 1)
        _THREADS.set(limiter)
        return limiter
