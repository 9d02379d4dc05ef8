"""Sites: their URLs (map), and what breadth-first crawls from one or more start URLs read (crawl, batch_crawl)."""

from __future__ import annotations

import anyio

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Guidance, Outcome, say, sources
from netglean.core.errors import Blocked, ToolError
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
from netglean.handlers.pages import item_error, scraped, with_links
from netglean.net.urls import parse_url
from netglean.sites.asked import concurrency, robots_fetcher
from netglean.sites.crawl import Crawl, CrawlPlan, Visit, crawl, globs
from netglean.sites.discovery import discover
from netglean.sites.pages import Reading

CRAWL_CHARS = 400_000
"""The most content characters one crawl returns in all; each page gets its share."""
PAGE_SHARE_FLOOR = 1_000
"""The least share of CRAWL_CHARS a page gets however large max_pages is (max_chars permitting): a crawl that
asks for 100,000 pages reads pages, not four characters of each, and stops once the pages hold CRAWL_CHARS."""


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
    )
    if found.found > limit:
        guidance = say(
            "{count} URL(s) found (more than {limit}; raise limit or search).", count=len(found.urls), limit=limit
        )
    else:
        guidance = say("{count} URL(s) found.", count=len(found.urls))
    return Outcome(payload, next_step="batch_scrape" if found.urls else DONE, guidance=guidance, source=args.url)


def _plan(args: CrawlInput | BatchCrawlInput, seeds: int = 1, width: int = 1) -> CrawlPlan:
    """The crawl's bounds; the seeds of a batch_crawl share CRAWL_CHARS, so a batch answers no larger than a crawl.
    ``width`` pages are read at once."""
    most = CRAWL_CHARS // seeds
    share = min(args.max_chars, max(most // args.max_pages, PAGE_SHARE_FLOOR))
    return CrawlPlan(
        max_depth=args.max_depth,
        max_pages=args.max_pages,
        stay_on_domain=args.stay_on_domain,
        include=globs(args.include_patterns or []),
        exclude=globs(args.exclude_patterns or []),
        reading=Reading(
            args.format, args.main_content, share, with_links(args.format, include_links=False), frontier=True
        ),
        max_content=most,
        width=width,
    )


def _visit(visit: Visit, links: bool) -> CrawlVisit:
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
    )


def _report(result: Crawl, links: bool) -> SiteCrawl:
    return SiteCrawl(
        url=result.url,
        pages=[_visit(visit, links) for visit in result.visits],
        read=result.read,
        failed=result.failed,
        truncated=result.truncated,
        stopped=result.stopped,  # type: ignore[arg-type]  # one of the schema's words, typed str by the engine
        unvisited=result.unvisited or None,
    )


def _walls(result: Crawl) -> int:
    return sum(1 for visit in result.visits if isinstance(visit.error, Blocked))


async def crawl_site(args: CrawlInput, ctx: Context) -> Outcome:
    parse_url(args.url)  # a start URL that can never be fetched is the call's error, not a failed page
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)

    async def report(visited: int, most: int) -> None:
        await ctx.report(visited, most, f"read {visited} of at most {most} pages")

    plan = _plan(args, width=concurrency(None, ctx.fetcher, most=args.max_pages))
    result = await crawl(fetcher, ctx.readers, args.url, plan, stop_by=ctx.work_until(), report=report)
    next_step = DONE
    if result.stopped == "deadline":
        guidance = say(
            "Read {count} page(s) before the call's deadline; {left} link(s) were left unvisited (payload.stopped is"
            " deadline): crawl again from one of the pages not yet read, or narrow include_patterns.",
            count=result.read,
            left=result.unvisited,
        )
    elif result.stopped == "content_limit":
        guidance = say(
            "Read {count} page(s), which hold the {most} characters a crawl returns; {left} link(s) were left"
            " unvisited: lower max_chars or narrow include_patterns to read further.",
            count=result.read,
            most=CRAWL_CHARS,
            left=result.unvisited,
        )
    elif result.stopped == "max_pages":
        guidance = say(
            "Read {count} page(s); {left} more link(s) were left unvisited at max_pages: raise max_pages or narrow"
            " include_patterns.",
            count=result.read,
            left=result.unvisited,
        )
    elif not result.read and _walls(result):
        guidance = say("The start page answered with a bot wall or challenge page (blocked): inspect_url says more.")
        next_step = "inspect_url"
    else:
        guidance = say("Read {count} page(s).", count=result.read)
    return Outcome(_report(result, plan.reading.include_links), next_step=next_step, guidance=guidance, source=args.url)


async def batch_crawl(args: BatchCrawlInput, ctx: Context) -> Outcome:
    seeds = args.urls
    pages_at_once = concurrency(args.concurrency, ctx.fetcher, most=args.max_pages * len(seeds))
    width = min(pages_at_once, len(seeds))  # seeds crawled at once; they share the pages in flight
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)
    plan = _plan(args, seeds=len(seeds), width=max(1, pages_at_once // width))
    stop_by = ctx.work_until()
    crawls: list[SiteCrawl | None] = [None] * len(seeds)
    results: list[Crawl] = []
    visited = [0] * len(seeds)
    room = anyio.CapacityLimiter(width)

    async def one(index: int, seed: str) -> None:
        async def report(count: int, most: int) -> None:
            visited[index] = count
            await ctx.report(sum(visited), most * len(seeds), f"read {sum(visited)} pages from {len(seeds)} seeds")

        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            async with room:
                result = await crawl(fetcher, ctx.readers, seed, plan, stop_by=stop_by, report=report)
        except ToolError as error:
            crawls[index] = SiteCrawl(url=seed, pages=[], read=0, failed=1, truncated=False, error=item_error(error))
            return
        crawls[index] = _report(result, plan.reading.include_links)
        results.append(result)

    async with anyio.create_task_group() as tasks:  # output in seed order; politeness per host is the fetcher's
        for index, seed in enumerate(seeds):
            tasks.start_soon(one, index, seed)
    read, walls = sum(result.read for result in results), sum(map(_walls, results))
    return Outcome(
        BatchCrawlOutput(crawls=[c for c in crawls if c is not None]),
        next_step="inspect_url" if walls and not read else DONE,
        guidance=_batch_guidance(results, len(seeds), read, walls),
        source=sources(seeds),
    )


def _batch_guidance(results: list[Crawl], seeds: int, total: int, walls: int) -> Guidance:
    late = sum(1 for result in results if result.stopped == "deadline")
    if late:
        return say(
            "Read {count} page(s) from {seeds} seed(s); the call's deadline stopped {late} crawl(s) early (their"
            " stopped is deadline): crawl those again, or with fewer seeds at once.",
            count=total,
            seeds=seeds,
            late=late,
        )
    if walls:
        return say(
            "Read {count} page(s) from {seeds} seed(s); {walls} page(s) answered with a bot wall or challenge page"
            " (blocked): inspect_url says more about one.",
            count=total,
            seeds=seeds,
            walls=walls,
        )
    return say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=seeds)
