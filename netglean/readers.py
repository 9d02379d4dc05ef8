"""Where pages are read (netglean.reading): worker processes when the operator allows some, else threads.

Reading a page is CPU work that mostly holds the GIL, so in one process a batch reads no
faster than one CPU allows, and the fetching, framing and reading take turns. Worker
processes let a batch use the machine's other CPUs while the server process fetches.

The pool is started on the first read and warmed in the background (a worker needs a
moment to import the reader); until it is ready, pages are read in threads, so no call
ever waits for it. A worker that dies (a page that crashes the parser) breaks only the
pool: it is replaced and the page is reported as unreadable, the server lives on.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial

import anyio
from anyio.lowlevel import RunVar

from netglean.errors import UnsupportedContent
from netglean.reading import HtmlReading, read_html

log = logging.getLogger("netglean.readers")

_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("netglean_reader_threads")


def worker_count(setting: int) -> int:
    """The operator's ``read_workers``; -1 means one per CPU, or none on a single CPU.

    One per CPU, not one fewer: the server process spends much of a batch waiting on the
    network and on its client, and measured on two CPUs two workers beat one (bench.fetch).
    """
    cpus = os.cpu_count() or 1
    return (cpus if cpus > 1 else 0) if setting < 0 else setting


def _ready() -> bool:
    """Run once in each worker when the pool starts: by then the reader is imported."""
    return True


class Readers:
    def __init__(self, processes: int) -> None:
        self._processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._warm: list[Future[bool]] = []

    async def read(self, html: str, url: str, *, fmt: str, main_content: bool, frontier: bool) -> HtmlReading:
        job = partial(read_html, html, url, fmt=fmt, main_content=main_content, frontier=frontier)
        pool = self._ready_pool()
        if pool is None:
            return await anyio.to_thread.run_sync(job, abandon_on_cancel=True, limiter=_thread_limiter())
        try:
            return await asyncio.wrap_future(pool.submit(job))
        except BrokenProcessPool:
            self._replace(pool)
            raise UnsupportedContent(
                f"reading {url} stopped a reader process; the page cannot be read", detail={"url": url}
            ) from None

    def _ready_pool(self) -> ProcessPoolExecutor | None:
        """The pool once every worker has started; the first call starts it."""
        if self._processes < 1:
            return None
        if self._pool is None:
            # spawn, never fork: the server process has threads and an event loop a fork would copy mid-flight.
            self._pool = ProcessPoolExecutor(self._processes, mp_context=multiprocessing.get_context("spawn"))
            self._warm = [self._pool.submit(_ready) for _ in range(self._processes)]
            return None
        if all(future.done() for future in self._warm):
            return self._pool
        return None

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        if self._pool is broken:
            log.error("a reader process died; starting a new pool")
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _thread_limiter() -> anyio.CapacityLimiter:
    """Threads reading at once, per event loop: parsing releases the GIL and the rest holds it, so one
    per CPU is the most that helps (more only take turns, and each page finishes later for it)."""
    try:
        return _THREADS.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(os.cpu_count() or 1)
        _THREADS.set(limiter)
        return limiter
