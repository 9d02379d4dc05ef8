"""Sites: their URLs (map), and what breadth-first crawls from one or more start URLs read (crawl, batch_crawl)."""

from __future__ import annotations

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import ToolError
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
from netglean.handlers.pages import item_error, scraped
from netglean.net.urls import parse_url
from netglean.sites.crawl import Crawl, CrawlPlan, Visit, crawl, globs
from netglean.sites.discovery import discover
from netglean.sites.pages import Reading

CRAWL_CHARS = 400_000
"""The most content characters one crawl returns in all; each page gets its share."""


async def map_site(args: MapInput, ctx: Context) -> Outcome:
    limit = args.limit
    found = await discover(
        ctx.fetcher,
        ctx.readers,
        args.url,
        limit=limit,
        include_sitemaps=args.include_sitemaps,
        search=args.search or "",
        same_domain=args.same_domain,
    )
    payload = MapOutput(
        url=args.url,
        urls=found.urls,
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


def _plan(args: CrawlInput | BatchCrawlInput) -> CrawlPlan:
    return CrawlPlan(
        max_depth=args.max_depth,
        max_pages=args.max_pages,
        stay_on_domain=args.stay_on_domain,
        include=globs(args.include_patterns or []),
        exclude=globs(args.exclude_patterns or []),
        reading=Reading(
            args.format, args.main_content, min(args.max_chars, CRAWL_CHARS // args.max_pages), False, frontier=True
        ),
    )


def _visit(visit: Visit) -> CrawlVisit:
    """One URL visited: the page read, else the page read already that it duplicates, else why it failed."""
    page = scraped(visit.page, include_links=False) if visit.page is not None else None
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


def _report(result: Crawl) -> SiteCrawl:
    return SiteCrawl(
        url=result.url,
        pages=[_visit(visit) for visit in result.visits],
        read=result.read,
        failed=result.failed,
        truncated=result.truncated,
    )


async def _crawled(ctx: Context, seed: str, plan: CrawlPlan) -> Crawl:
    async def report(visited: int, most: int) -> None:
        await ctx.report(visited, most, f"read {visited} of at most {most} pages")

    return await crawl(ctx.fetcher, ctx.readers, seed, plan, stop_by=ctx.work_until(), report=report)


async def crawl_site(args: CrawlInput, ctx: Context) -> Outcome:
    parse_url(args.url)  # a start URL that can never be fetched is the call's error, not a failed page
    result = await _crawled(ctx, args.url, _plan(args))
    if result.truncated:
        guidance = say(
            "Read {count} page(s); more links were left unvisited (max_pages, or the call's deadline, was reached:"
            " raise max_pages or narrow include_patterns).",
            count=result.read,
        )
    else:
        guidance = say("Read {count} page(s).", count=result.read)
    return Outcome(_report(result), next_step=DONE, guidance=guidance, source=args.url)


async def batch_crawl(args: BatchCrawlInput, ctx: Context) -> Outcome:
    plan = _plan(args)
    seeds = args.urls
    crawls: list[SiteCrawl] = []
    total = 0
    for seed in seeds:  # one seed after another: politeness is per host, and the output stays in seed order
        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            result = await _crawled(ctx, seed, plan)
        except ToolError as error:
            crawls.append(SiteCrawl(url=seed, pages=[], read=0, failed=1, truncated=False, error=item_error(error)))
            continue
        crawls.append(_report(result))
        total += result.read
    return Outcome(
        BatchCrawlOutput(crawls=crawls),
        next_step=DONE,
        guidance=say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=len(seeds)),
        source=", ".join(seeds[:3]),
    )
