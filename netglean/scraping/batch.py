"""Reading many pages at once, as batch_scrape does: at most ``width`` at a time (the fetcher's
per-host and global limits apply too), each page's failure its own, and every page not read by the
time to answer in marked late."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio

from netglean.core.errors import FetchTimeout, HandlerCrashed, ToolError
from netglean.scraping.pages import PageRead, Reading, read_page

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.workers.pool import Readers

log = logging.getLogger("netglean.scraping")

LATE = "not read before the call's deadline: the pages already read are returned"


async def read_pages(
    fetcher: Fetcher,
    readers: Readers,
    urls: Sequence[str],
    how: Reading,
    *,
    stop_by: float,
    width: int,
    browser: BrowserPool | None = None,
) -> list[PageRead | ToolError]:
    """Each URL's page, or why it could not be read, in the order given, ``width`` at a time;
    nothing is started after ``stop_by``; ``browser`` renders the pages ``how.strategy`` asks it
    to."""
    results: list[PageRead | ToolError] = [FetchTimeout(LATE) for _ in urls]
    room = anyio.CapacityLimiter(width)

    async def one(index: int, url: str) -> None:
        try:
            with anyio.CancelScope(deadline=stop_by) as entry:
                async with room:
                    results[index] = await read_page(fetcher, readers, url, 0, how, browser=browser)
            if entry.cancelled_caught:
                results[index] = FetchTimeout(LATE, detail={"url": url})
        except ToolError as error:
            results[index] = error
        # one broken page must not sink the batch; the runner logs nothing for it otherwise
        except Exception:
            log.exception("reading %s for a batch failed", url)
            results[index] = HandlerCrashed("reading this URL failed inside the server")

    async with anyio.create_task_group() as tasks:
        for index, url in enumerate(urls):
            tasks.start_soon(one, index, url)
    return results
