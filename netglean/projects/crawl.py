"""Running a crawl project: the saved crawl, its start URL's placeholders filled, each page read a
row of its dataset pages, written with the page's visit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from netglean.core.errors import InvalidProject
from netglean.projects.datasets import DATASETS, PAGES, page_row
from netglean.projects.extract import ProjectRun, start_urls, stored_pages
from netglean.scraping.crawl_run import (
    RunHandle,
    RunJournal,
    SiteCrawlArguments,
    VisitBody,
    crawl_as_run,
)
from netglean.store.base import Visited, Written

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.store.base import Project
    from netglean.workers.pool import Readers

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""Told how far a run has got: done, the most there may be, and what to say of it."""


class PagesJournal(RunJournal):
    """A crawl project's journal: each page read is a row of its dataset pages too, written with its
    visit, and what writing it did kept in the visit (``datasets``, as an extract project's visit
    keeps it), so a run that holds the visit (after a restart, or started from this run) counts it.
    """

    def __init__(
        self, run: RunHandle, part: int, links: bool, body: VisitBody, project_id: str
    ) -> None:
        super().__init__(run, part, links, body)
        self._project_id = project_id

    async def keep(self, visits: list[Visited]) -> None:
        read = [visit for visit in visits if visit.read]

        def counted(written: dict[str, Written]) -> list[Visited]:
            for visit, outcome in zip(read, written[PAGES].each, strict=True):
                visit.body[DATASETS] = {PAGES: [int(outcome == n) for n in range(3)]}
            return visits

        rows = [page_row(visit) for visit in read]
        await self._run.store.write_rows(
            self._project_id, self._run.id, {PAGES: rows}, visits=counted
        )


async def run_crawl(
    fetcher: Fetcher,
    readers: Readers,
    project: Project,
    variables: dict[str, Any],
    run: RunHandle,
    *,
    arguments: Callable[[dict[str, Any]], SiteCrawlArguments],
    visit_body: VisitBody,
    stop: anyio.Event,
    report: Progress,
    browser: BrowserPool | None = None,
) -> ProjectRun:
    """The saved crawl (``arguments`` reads the definition, its start URL filled, as crawl's
    arguments), each page read a row of the dataset pages; counted over every page the run holds."""
    definition = dict(project.definition)
    urls = await anyio.to_thread.run_sync(start_urls, [definition["url"]], variables)
    if len(urls) > 1:
        raise InvalidProject(
            f"variables: a crawl has one start URL, and these values give {len(urls)}",
            detail={"argument": "variables"},
        )
    definition["url"] = urls[0]

    async def visited(count: int, most: int, url: str) -> None:
        await report(count, most, f"visited {count} of at most {most} URLs")

    def journal(scope: RunHandle, part: int, links: bool) -> RunJournal:
        return PagesJournal(scope, part, links, visit_body, project.id)

    await crawl_as_run(
        fetcher,
        readers,
        arguments(definition),
        run,
        journal,
        report=visited,
        stop=stop,
        browser=browser,
    )
    done = ProjectRun(datasets={PAGES: [0, 0, 0]})
    async for item in stored_pages(run.store, run.id):
        body = item.body
        if body.get("page") is None:
            done.count(body)
        else:
            done.count({"url": body["url"], DATASETS: body.get(DATASETS)})
    return done
