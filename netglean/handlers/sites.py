"""Sites: their URLs (map), and what breadth-first crawls from one or more start URLs read (crawl,
batch_crawl)."""

from __future__ import annotations

from typing import Any

import anyio

from netglean.calls.context import Context
from netglean.calls.runs import RunScope
from netglean.core.envelope import DONE, Guidance, Outcome, say, sources
from netglean.core.errors import HandlerContractError, StoreFailure, ToolError, Unavailable
from netglean.generated.models import (
    BatchCrawlInput,
    BatchCrawlOutput,
    CrawlInput,
    CrawlVisit,
    MapInput,
    MapOutput,
    SiteCrawl,
    Sources,
)
from netglean.handlers.pages import item_error, scrape_payload
from netglean.net.strategy import page_strategy
from netglean.net.urls import parse_url
from netglean.read.links import LINKS_PER_PAGE
from netglean.scraping.crawl import Crawl, Visit, crawl
from netglean.scraping.crawl_run import (
    RunHandle,
    RunJournal,
    crawl_as_run,
    crawl_plan,
)
from netglean.scraping.discovery import discover
from netglean.scraping.operator_limits import concurrency, robots_fetcher

RESPONSE_CHARS = 400_000
"""The most characters of visits (as JSON) one crawl's answer holds; a run keeps them all, and
get_run_result pages through them. The seeds of a batch_crawl share it."""
PAGE_BATCH = 200
"""Visits read back from the store at a time while an answer is put together."""


def crawl_visit(visit: Visit, links: bool) -> CrawlVisit:
    """One URL visited: the page read, else the page read already that it duplicates, else why it
    failed."""
    page = scrape_payload(visit.page, include_links=links) if visit.page is not None else None
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


def visit_body(visit: Visit, links: bool) -> dict[str, Any]:
    """A visit as a crawl's run keeps it: the CrawlVisit its answer shows."""
    return crawl_visit(visit, links).model_dump(mode="json", by_alias=True, exclude_none=True)


def run_journal(run: RunHandle, part: int, links: bool) -> RunJournal:
    """A crawl tool's journal: its visits kept as its answer shows them."""
    return RunJournal(run, part, links, visit_body)


def run_of(ctx: Context) -> RunScope:
    if ctx.run is None:
        raise HandlerContractError(
            "a crawl works as a background run (execution: async), and this call is none",
        )
    return ctx.run


async def _fit_visits(run: RunScope, part: int, budget: int) -> tuple[list[CrawlVisit], int]:
    """The first visits of ``part`` that fit ``budget`` characters (one at least), and how many are
    left out."""
    pages: list[CrawlVisit] = []
    used = offset = 0
    while True:
        items, total = await run.store.items(run.id, offset=offset, limit=PAGE_BATCH, part=part)
        for item in items:
            if pages and used + item.size > budget:
                return pages, total - len(pages)
            used += item.size
            # A crawl project's visit keeps what writing its row did too (not the answer's).
            kept = {k: v for k, v in item.body.items() if k != "datasets"}
            pages.append(CrawlVisit.model_validate(kept))
        offset += len(items)
        if not items or offset >= total:
            return pages, total - len(pages)


async def _crawl_report(result: Crawl, run: RunScope, part: int, budget: int) -> SiteCrawl:
    pages, unreturned = await _fit_visits(run, part, budget)
    return SiteCrawl(
        url=result.url,
        pages=pages,
        read=result.read,
        failed=result.failed,
        truncated=result.truncated,
        stopped=result.stopped,  # type: ignore[arg-type]  # one of the schema's words, typed str
        unvisited=result.unvisited or None,
        links_dropped=result.links_dropped or None,
        run_id=run.id,
        unreturned=unreturned or None,
    )


async def _crawled(args: CrawlInput, ctx: Context) -> tuple[Crawl, SiteCrawl]:
    """A crawl as the call's run, with the answer that shows its first pages."""
    run = run_of(ctx)

    async def report(visited: int, most: int, url: str) -> None:
        await ctx.report(visited, most, f"visited {visited} of at most {most} URLs")

    helpers = ctx.settings.crawl_workers - 1 if ctx.runs.dispatching else 0
    if helpers:  # spread over workers, who share the run's frontier in the store
        await ctx.runs.ask_help(run.id, helpers)
    result = await crawl_as_run(
        ctx.fetcher,
        ctx.readers,
        args,
        run,
        run_journal,
        report=report,
        stop=run.stop,
        browser=ctx.browser,
        shared=helpers > 0,
    )
    return result, await _crawl_report(result, run, 0, RESPONSE_CHARS)


async def map_site(args: MapInput, ctx: Context) -> Outcome:
    limit = args.limit
    found = await discover(
        robots_fetcher(ctx.fetcher, args.respect_robots_txt),
        ctx.readers,
        args.url,
        limit=limit,
        include_sitemaps=args.include_sitemaps,
        search=args.search or "",
        same_domain=args.same_domain,
        strategy=page_strategy(args.strategy),
        browser=ctx.browser,
    )
    listed = args.format == "markdown"
    payload = MapOutput(
        url=args.url,
        format=args.format,
        content="\n".join(f"- {url}" for url in found.urls) if listed else None,
        urls=None if listed else found.urls,
        count=len(found.urls),
        truncated=found.found > limit,
        sitemaps=found.sitemaps,
        sources=Sources(links=found.linked, sitemaps=found.listed),
        selected_strategy=found.strategy,  # type: ignore[arg-type]  # http or browser, as discover read the page
    )
    if found.found > limit:
        guidance = say(
            "{count} URL(s) found (more than {limit}; raise limit or search).",
            count=len(found.urls),
            limit=limit,
        )
    else:
        guidance = say("{count} URL(s) found.", count=len(found.urls))
    return Outcome(
        payload,
        next_step="batch_scrape" if found.urls else DONE,
        guidance=guidance,
        source=args.url,
    )


async def crawl_site(args: CrawlInput, ctx: Context) -> Outcome:
    result, answer = await _crawled(args, ctx)
    next_step = "get_run_result" if answer.unreturned else DONE
    if result.stopped == "cancelled":
        guidance = say(
            "Read {count} page(s) before the run was cancelled; {left} link(s) were left "
            "unvisited: resume_run continues it.",
            count=result.read,
            left=result.unvisited,
        )
    elif result.stopped == "max_pages":
        guidance = say(
            "Read {count} page(s); pages gave {left} more link(s) once max_pages URLs were "
            "queued: raise max_pages or narrow include_patterns.",
            count=result.read,
            left=result.links_dropped,
        )
    elif result.stopped == "links_per_page":
        guidance = say(
            "Read {count} page(s); {left} link(s) were left because a page held more than {most} "
            "the crawl wanted: narrow include_patterns, or crawl from those pages' sections.",
            count=result.read,
            left=result.links_dropped,
            most=LINKS_PER_PAGE,
        )
    elif not result.read and result.blocked:
        guidance = say(
            "The start page answered with a bot wall or challenge page (blocked): inspect_url "
            "says more."
        )
        next_step = "inspect_url"
    else:
        guidance = say("Read {count} page(s).", count=result.read)
    if answer.unreturned:
        more = say(
            "This answer holds the first {shown} visit(s); get_run_result with payload.run_id "
            "pages through all {total}.",
            shown=len(answer.pages),
            total=len(answer.pages) + answer.unreturned,
        )
        guidance = Guidance(f"{guidance} {more}")
    return Outcome(answer, next_step=next_step, guidance=guidance, source=args.url)


async def batch_crawl(args: BatchCrawlInput, ctx: Context) -> Outcome:
    seeds = args.urls
    run = run_of(ctx)
    pages_at_once = concurrency(args.concurrency, ctx.fetcher, most=args.max_pages * len(seeds))
    width = min(pages_at_once, len(seeds))  # seeds crawled at once; they share the pages in flight
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)
    plan = crawl_plan(args, width=max(1, pages_at_once // width))
    crawls: list[SiteCrawl | None] = [None] * len(seeds)
    results: list[Crawl] = []
    visited = [0] * len(seeds)
    room = anyio.CapacityLimiter(width)

    async def one(index: int, seed: str) -> None:
        async def report(count: int, most: int, url: str) -> None:
            visited[index] = count
            await ctx.report(
                sum(visited),
                most * len(seeds),
                f"visited {sum(visited)} URLs from {len(seeds)} seeds",
            )

        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            async with room:
                journal = run_journal(run, index, plan.reading.include_links)
                result = await crawl(
                    fetcher,
                    ctx.readers,
                    seed,
                    plan,
                    journal=journal,
                    report=report,
                    stop=run.stop,
                    browser=ctx.browser,
                )
        # the run's, not the seed's: it fails, resumable
        except (StoreFailure, Unavailable) as error:
            unkept.append(error)
            return
        except ToolError as error:
            crawls[index] = SiteCrawl(
                url=seed, pages=[], read=0, failed=1, truncated=False, error=item_error(error)
            )
            return
        crawls[index] = await _crawl_report(result, run, index, RESPONSE_CHARS // len(seeds))
        results.append(result)

    unkept: list[ToolError] = []
    # output in seed order; politeness per host is the fetcher's
    async with anyio.create_task_group() as tasks:
        for index, seed in enumerate(seeds):
            tasks.start_soon(one, index, seed)
    if unkept:
        raise unkept[0]
    answered = [c for c in crawls if c is not None]
    read, walls = sum(result.read for result in results), sum(result.blocked for result in results)
    unreturned = sum(c.unreturned or 0 for c in answered)
    next_step = "get_run_result" if unreturned else "inspect_url" if walls and not read else DONE
    return Outcome(
        BatchCrawlOutput(crawls=answered),
        next_step=next_step,
        guidance=_batch_guidance(results, len(seeds), read, walls, unreturned),
        source=sources(seeds),
    )


def _batch_guidance(
    results: list[Crawl], seeds: int, total: int, walls: int, unreturned: int
) -> Guidance:
    cancelled = sum(1 for result in results if result.stopped == "cancelled")
    if cancelled:
        told = say(
            "Read {count} page(s) from {seeds} seed(s) before the run was cancelled: resume_run "
            "continues it.",
            count=total,
            seeds=seeds,
        )
    elif walls:
        told = say(
            "Read {count} page(s) from {seeds} seed(s); {walls} page(s) answered with a bot wall "
            "or challenge page (blocked): inspect_url says more about one.",
            count=total,
            seeds=seeds,
            walls=walls,
        )
    else:
        told = say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=seeds)
    if not unreturned:
        return told
    more = say(
        "{left} visit(s) are left out of this answer: get_run_result with a crawl's run_id pages "
        "through them all.",
        left=unreturned,
    )
    return Guidance(f"{told} {more}")
