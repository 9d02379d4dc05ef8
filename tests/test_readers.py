"""Reading off the event loop: worker processes read what threads read; a dying worker costs one
job, and a job whose caller stops waiting ends with its worker."""

from __future__ import annotations

import asyncio
import os
import signal

import anyio
import pytest

from netglean.core.errors import ToolError
from netglean.read import jobs as read_jobs
from netglean.read.document import Document
from netglean.read.links import LinkFilter
from netglean.read.reading import HtmlReading, read_html
from netglean.workers.pool import Readers, worker_count

PAGE = (
    "<html lang='en'><head><title>Tides</title><meta name='description' content='About "
    "tides'></head><body><nav><a href='/a'>Home</a></nav><article><h1>Tides</h1><p>The moon "
    "pulls the <a href='/sea'>sea</a>.</p><p>Twice a "
    "day.</p></article><footer>Copyright</footer></body></html>"
)


async def _read(readers: Readers, url: str = "http://site.test/t") -> HtmlReading:
    document = Document(url, PAGE.encode(), "utf-8")
    return await readers.run(
        read_jobs.read_page,
        document=document,
        fmt="markdown",
        main_content=True,
        frontier=LinkFilter("site.test"),
    )


async def _warm(readers: Readers) -> None:
    """Start the workers, then wait until they take jobs."""
    readers.start()
    with anyio.fail_after(60):
        while not readers.warm:
            await anyio.sleep(0.02)


def test_worker_processes_read_what_the_server_process_reads() -> None:
    readers = Readers(2)

    async def run() -> list[HtmlReading]:
        await _warm(readers)
        results: list[HtmlReading] = []
        # more pages than workers hold: some wait their turn
        async with anyio.create_task_group() as tasks:
            for n in range(9):
                tasks.start_soon(lambda n=n: _collect(readers, n, results))
        return sorted(results, key=lambda reading: str(reading.metadata.canonical))

    try:
        pooled = anyio.run(run)
    finally:
        readers.close()
    expected = [
        read_html(
            PAGE,
            f"http://site.test/{n}",
            fmt="markdown",
            main_content=True,
            frontier=LinkFilter("site.test"),
        )
        for n in range(9)
    ]
    assert pooled == sorted(expected, key=lambda reading: str(reading.metadata.canonical))
    assert "The moon pulls the [sea](http://site.test/sea)." in pooled[0].content


async def _collect(readers: Readers, n: int, results: list[HtmlReading]) -> None:
    results.append(await _read(readers, f"http://site.test/{n}"))


def test_a_dying_worker_costs_the_page_it_was_reading_and_is_replaced() -> None:
    readers = Readers(1)

    async def run() -> tuple[BaseException | HtmlReading, BaseException | HtmlReading, HtmlReading]:
        await _warm(readers)
        [worker] = readers._workers
        os.kill(worker.process.pid, signal.SIGSTOP)  # it cannot take a page: both wait in its pipe
        outcomes: list[BaseException | HtmlReading] = [PAGE_MISSING, PAGE_MISSING]

        async def one(n: int) -> None:
            try:
                outcomes[n] = await _read(readers, f"http://site.test/{n}")
            except ToolError as error:
                outcomes[n] = error

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(one, 0)
            await anyio.sleep(0.05)
            tasks.start_soon(one, 1)
            await anyio.sleep(0.05)
            assert len(worker.jobs) == 2
            os.kill(worker.process.pid, signal.SIGKILL)  # dies the way a parser crash would kill it
        await _warm(readers)
        return outcomes[0], outcomes[1], await _read(readers)

    try:
        first, second, later = anyio.run(run)
    finally:
        readers.close()
    assert isinstance(first, ToolError) and first.code == "unsupported_content"
    assert "http://site.test/0 stopped a reader process" in first.message and first.detail[
        "url"
    ].endswith("/0")
    # read by the new worker
    assert isinstance(second, HtmlReading) and "The moon pulls the" in second.content
    assert "The moon pulls the" in later.content and readers._workers == []


PAGE_MISSING = RuntimeError("not read")


def test_worker_count_follows_the_setting() -> None:
    assert worker_count(0) == 0 and worker_count(3) == 3
    assert worker_count(-1) == (os.cpu_count() or 1)  # one per CPU, and one on a single CPU


def test_reading_errors_come_back_from_the_worker() -> None:
    readers = Readers(1)

    async def run() -> None:
        await _warm(readers)
        with pytest.raises(ToolError) as refused:  # raised in the worker, raised here whole
            await readers.run(read_jobs.sitemap, body=b"not a sitemap", max_bytes=100)
        assert (
            refused.value.code == "unsupported_content" and "not a sitemap" in refused.value.message
        )
        with pytest.raises(TypeError):
            await readers.run(read_jobs.sitemap, body=None, max_bytes=100)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not a reader job"):
            await readers.run(os.getcwd)  # only netglean.read.jobs run there
        assert "The moon pulls the" in (await _read(readers)).content  # the worker reads on

    try:
        anyio.run(run)
    finally:
        readers.close()


def test_reader_processes_that_cannot_be_reached_leave_reading_to_threads() -> None:
    readers = Readers(1)

    async def run() -> HtmlReading:
        loop = asyncio.get_running_loop()

        async def refuse(*_: object) -> None:
            raise OSError("pipes cannot be watched here")

        loop.connect_write_pipe = refuse  # type: ignore[method-assign,assignment]
        # starts the worker, whose pipes cannot be watched: read in a thread instead
        first = await _read(readers)
        assert readers.in_threads and not readers._workers
        assert first.content == (await _read(readers)).content
        return first

    try:
        reading = anyio.run(run)
    finally:
        readers.close()
    assert "The moon pulls the" in reading.content and not readers.warm


def test_closing_while_workers_start_leaves_no_process_and_no_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    readers = Readers(2)

    async def run() -> list[object]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read, readers)
            # the read has started the workers; their pipes are not watched yet
            await anyio.lowlevel.checkpoint()
            workers = list(readers._workers)
            readers.close()
        await anyio.sleep(0.1)
        return workers

    workers = anyio.run(run)
    assert len(workers) == 2 and all(worker.process.poll() is not None for worker in workers)  # type: ignore[attr-defined]
    assert not [record for record in caplog.records if record.levelname == "ERROR"]


def test_a_worker_on_a_job_its_caller_gave_up_on_is_replaced_at_once() -> None:
    readers = Readers(1)

    async def run() -> HtmlReading:
        await _warm(readers)
        [stuck] = readers._workers
        kill, killed = stuck.process.kill, []
        stuck.process.kill = lambda: (killed.append(True), kill())  # type: ignore[method-assign]
        # it never answers again: a page that holds the parser
        os.kill(stuck.process.pid, signal.SIGSTOP)
        with pytest.raises(TimeoutError), anyio.fail_after(0.2):  # the call's timeout
            await _read(readers)
        assert killed  # as the wait ended, not some seconds later
        with anyio.fail_after(10):
            while stuck.process.poll() is None:
                await anyio.sleep(0.02)
        await _warm(readers)
        assert readers._workers and readers._workers[0] is not stuck
        return await _read(readers)

    try:
        reading = anyio.run(run)
    finally:
        readers.close()
    assert "The moon pulls the" in reading.content
