"""Reading pages off the event loop: worker processes read what threads read; a dying worker costs one page."""

from __future__ import annotations

import os

import anyio
import pytest

from netglean.errors import ToolError
from netglean.readers import Readers, worker_count
from netglean.reading import read_html

PAGE = (
    "<html lang='en'><head><title>Tides</title><meta name='description' content='About tides'></head><body>"
    "<nav><a href='/a'>Home</a></nav><article><h1>Tides</h1><p>The moon pulls the "
    "<a href='/sea'>sea</a>.</p><p>Twice a day.</p></article><footer>Copyright</footer></body></html>"
)


async def _read_when_warm(readers: Readers) -> object:
    """Read once to start the pool, wait until it is warm, then read through it."""
    await readers.read(PAGE, "http://site.test/t", fmt="markdown", main_content=True, frontier=True)
    with anyio.fail_after(60):
        while readers._ready_pool() is None:
            await anyio.sleep(0.05)
    return await readers.read(PAGE, "http://site.test/t", fmt="markdown", main_content=True, frontier=True)


def test_worker_processes_read_what_the_server_process_reads() -> None:
    readers = Readers(1)
    try:
        pooled = anyio.run(_read_when_warm, readers)
    finally:
        readers.close()
    assert pooled == read_html(PAGE, "http://site.test/t", fmt="markdown", main_content=True, frontier=True)
    assert "The moon pulls the [sea](http://site.test/sea)." in pooled.content  # type: ignore[attr-defined]


def test_a_dying_worker_costs_one_page_and_the_pool_is_replaced() -> None:
    readers = Readers(1)

    async def run() -> tuple[ToolError, object]:
        await _read_when_warm(readers)
        pool = readers._ready_pool()
        assert pool is not None
        pool.submit(os._exit, 1)  # a worker dies the way a parser crash would kill it
        with pytest.raises(ToolError) as caught:
            with anyio.fail_after(60):
                while True:  # the pool notices the death when it next looks; reads before that may succeed
                    await readers.read(PAGE, "http://site.test/t", fmt="text", main_content=True, frontier=False)
                    await anyio.sleep(0.05)
        again = await _read_when_warm(readers)
        return caught.value, again

    try:
        error, again = anyio.run(run)
    finally:
        readers.close()
    assert error.code == "unsupported_content" and "stopped a reader process" in error.message
    assert "The moon pulls the" in again.content  # type: ignore[attr-defined]


def test_worker_count_follows_the_setting() -> None:
    assert worker_count(0) == 0 and worker_count(3) == 3
    cpus = os.cpu_count() or 1
    assert worker_count(-1) == (cpus if cpus > 1 else 0)
