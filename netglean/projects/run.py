"""A project's run, whatever its kind: the earlier run it starts from (resume, retry_failed), then
its extract, crawl or feed read, counted over every page the run holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from netglean.core.errors import RunNotFound
from netglean.projects.crawl import Progress, run_crawl
from netglean.projects.definitions import parameters
from netglean.projects.extract import ProjectRun, run_extract
from netglean.projects.feed import refresh_feed
from netglean.store.base import FINISHED, RESUMABLE

if TYPE_CHECKING:
    import anyio

    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.scraping.crawl_run import SiteCrawlArguments, VisitBody
    from netglean.store.base import Project, RunStore
    from netglean.workers.pool import Readers


class ProjectRunHandle(Protocol):
    """The run a project works as: its id, its store, its log, the event a graceful cancel sets."""

    id: str
    store: RunStore
    current: str | None
    stop: anyio.Event

    async def log(self, level: str, message: str) -> None: ...


@dataclass(slots=True)
class Ran:
    """What a project's run did, and the earlier run it started from (if any)."""

    found: ProjectRun
    started_from: str | None


async def adopt_earlier_run(
    run: ProjectRunHandle, project: Project, resume: bool, retry_failed: bool
) -> str | None:
    """The earlier run of the project this one starts from, when asked and there is one: resume
    takes an interrupted, cancelled or failed run's checkpoint (its failed pages too, unless
    retry_failed), retry_failed alone the latest finished run's but its failed pages, so only those
    are read again. Only on a run's first attempt: a run resumed itself goes on from its own."""
    store = run.store
    await store.link_run(project.id, run.id)
    this = await store.get(run.id)
    if this is None:
        raise RunNotFound(f"no run {run.id} in this server's run store")
    if this.attempts > 1 or not (resume or retry_failed):
        return None
    statuses = RESUMABLE if resume else FINISHED
    earlier, _ = await store.project_runs(project.id, statuses=statuses, offset=0, limit=1)
    if not earlier:
        return None
    taken = await store.adopt(run.id, earlier[0].id, failed=not retry_failed)
    await run.log("info", f"started from run {earlier[0].id} ({taken} page(s) it read kept)")
    return earlier[0].id


async def run_project(
    fetcher: Fetcher,
    readers: Readers,
    project: Project,
    run: ProjectRunHandle,
    *,
    variables: dict[str, Any] | None,
    resume: bool,
    retry_failed: bool,
    crawl_arguments: Callable[[dict[str, Any]], SiteCrawlArguments],
    visit_body: VisitBody,
    report: Progress,
    browser: BrowserPool | None = None,
) -> Ran:
    """The project run as ``run``, the call's ``variables`` over the project's own: a crawl's
    definition read by ``crawl_arguments``, its visits kept as ``visit_body`` writes them."""
    values = parameters({**project.variables, **(variables or {})})
    earlier = await adopt_earlier_run(run, project, resume, retry_failed)

    async def read(done: int, total: int) -> None:
        await report(done, total, f"read {done} of {total} page(s)")

    if project.kind == "extract":
        found = await run_extract(
            fetcher,
            readers,
            run.store,
            project,
            values,
            run_id=run.id,
            browser=browser,
            report=read,
            stop=run.stop.is_set,
        )
    elif project.kind == "crawl":
        found = await run_crawl(
            fetcher,
            readers,
            project,
            values,
            run,
            arguments=crawl_arguments,
            visit_body=visit_body,
            stop=run.stop,
            report=report,
            browser=browser,
        )
    else:
        found = await refresh_feed(
            fetcher, readers, run.store, project, values, run_id=run.id, browser=browser
        )
    return Ran(found, earlier)
