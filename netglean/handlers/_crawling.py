"""The crawl machinery the crawl tools and crawl projects share: a crawl's plan from its arguments, its journal
in the run store, and the answer that shows its first pages."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from netglean.calls.context import Context
from netglean.calls.runs import RunScope
from netglean.core.errors import HandlerContractError
from netglean.generated.models import BatchCrawlInput, CrawlInput, CrawlVisit, SiteCrawl
from netglean.handlers.pages import item_error, scraped, with_links
from netglean.net.strategy import page_strategy
from netglean.net.urls import parse_url
from netglean.sites.asked import concurrency, robots_fetcher
from netglean.sites.crawl import Crawl, CrawlPlan, Recorded, Visit, crawl, globs
from netglean.sites.pages import Reading
from netglean.store.base import Checkpoint, Queued, Visited

ANSWER_CHARS = 400_000
"""The most characters of visits (as JSON) one crawl's answer holds; a run keeps them all, and get_run_result pages
through them. The seeds of a batch_crawl share it."""
PAGE_BATCH = 200
"""Visits read back from the store at a time while an answer is put together."""


def crawl_plan(args: CrawlInput | BatchCrawlInput, width: int = 1) -> CrawlPlan:
    """The crawl's bounds; ``width`` pages are read at once."""
    return CrawlPlan(
        max_depth=args.max_depth,
        max_pages=args.max_pages,
        stay_on_domain=args.stay_on_domain,
        include=globs(args.include_patterns or []),
        exclude=globs(args.exclude_patterns or []),
        reading=Reading(
            args.format,
            args.main_content,
            args.max_chars,
            with_links(args.format, include_links=False),
            strategy=page_strategy(args.strategy),
            link_style=args.links,
        ),
        width=width,
    )


def crawl_visit(visit: Visit, links: bool) -> CrawlVisit:
    """One URL visited: the page read, else the page read already that it duplicates, else why it failed."""
    page = scraped(visit.page, include_links=links) if visit.page is not None else None
    duplicate_of = visit.duplicate_of if page is None else None
    failed = visit.error if page is None and duplicate_of is None else None
    return CrawlVisit(
        url=visit.url,
        depth=visit.depth,
        ok=visit.error is None,
        page=page,
        duplicate_of=duplicate_of,
        error=item_error(failed) if failed is not None else None,
        links_dropped=visit.links_dropped or None,
    )


class Journal:
    """A crawl's journal in its run's store: each visit kept as the CrawlVisit the answer shows (part ``part``),
    with the links it queued; a failed page is a line of the run's log too."""

    def __init__(self, run: RunScope, part: int, links: bool) -> None:
        self._run, self._part, self._links = run, part, links

    async def start(self, seed: str) -> Checkpoint:
        await self._run.store.seed(self._run.id, self._part, seed)
        return await self._run.store.checkpoint(self._run.id, self._part)

    async def queued_after(self, seq: int, limit: int) -> list[Queued]:
        return await self._run.store.queued_after(self._run.id, self._part, seq, limit)

    async def known_urls(self, urls: Sequence[str]) -> set[str]:
        return await self._run.store.known_urls(self._run.id, self._part, urls)

    async def read_at(self, canonical: str) -> str | None:
        return await self._run.store.read_at(self._run.id, self._part, canonical)

    async def visited(self, visits: Sequence[Recorded]) -> None:
        await self.keep([self._kept(recorded) for recorded in visits])
        self._run.current = visits[-1].visit.url

    async def keep(self, visits: list[Visited]) -> None:
        """Write the visits (in one transaction)."""
        await self._run.store.visited(self._run.id, self._part, visits)

    def _kept(self, recorded: Recorded) -> Visited:
        visit, page = recorded.visit, recorded.visit.page
        if visit.error is not None:
            line = ("warning", f"failed {visit.url}: {visit.error.code}")
        elif visit.duplicate_of is not None:
            line = ("debug", f"{visit.url} has the canonical URL of {visit.duplicate_of}, read already")
        else:
            line = ("debug", f"read {visit.url}")
        return Visited(
            recorded.seq,
            crawl_visit(visit, self._links).model_dump(mode="json", by_alias=True, exclude_none=True),
            read=page is not None,
            failed=visit.error is not None,
            canonical=recorded.canonical,
            url=visit.url,
            links=recorded.links,
            log=line,
            dropped=visit.links_dropped,
        )


def run_of(ctx: Context) -> RunScope:
    if ctx.run is None:
        raise HandlerContractError("a crawl works as a background run (execution: async), and this call is none")
    return ctx.run


async def answered(run: RunScope, part: int, budget: int) -> tuple[list[CrawlVisit], int]:
    """The first visits of ``part`` that fit ``budget`` characters (one at least), and how many are left out."""
    pages: list[CrawlVisit] = []
    used = offset = 0
    while True:
        items, total = await run.store.items(run.id, offset=offset, limit=PAGE_BATCH, part=part)
        for item in items:
            if pages and used + item.size > budget:
                return pages, total - len(pages)
            used += item.size
            # A crawl project's visit keeps what writing its row did too (not the answer's).
            pages.append(CrawlVisit.model_validate({k: v for k, v in item.body.items() if k != "datasets"}))
        offset += len(items)
        if not items or offset >= total:
            return pages, total - len(pages)


async def crawl_report(result: Crawl, run: RunScope, part: int, budget: int) -> SiteCrawl:
    pages, unreturned = await answered(run, part, budget)
    return SiteCrawl(
        url=result.url,
        pages=pages,
        read=result.read,
        failed=result.failed,
        truncated=result.truncated,
        stopped=result.stopped,  # type: ignore[arg-type]  # one of the schema's words, typed str by the engine
        unvisited=result.unvisited or None,
        links_dropped=result.links_dropped or None,
        run_id=run.id,
        unreturned=unreturned or None,
    )


async def crawled(
    args: CrawlInput, ctx: Context, journal: Callable[[RunScope, int, bool], Journal]
) -> tuple[Crawl, SiteCrawl]:
    """A crawl as the call's run, its visits kept by ``journal`` (a project's keeps them as rows too); with the
    answer that shows its first pages."""
    parse_url(args.url)  # a start URL that can never be fetched is the call's error, not a failed page
    run = run_of(ctx)
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)

    async def report(visited: int, most: int, url: str) -> None:
        await ctx.report(visited, most, f"visited {visited} of at most {most} URLs")

    plan = crawl_plan(args, width=concurrency(None, ctx.fetcher, most=args.max_pages))
    kept = journal(run, 0, plan.reading.include_links)
    result = await crawl(
        fetcher, ctx.readers, args.url, plan, journal=kept, report=report, stop=run.stop, browser=ctx.browser
    )
    return result, await crawl_report(result, run, 0, ANSWER_CHARS)
