"""Sites: their URLs (map), and what breadth-first crawls from one or more start URLs read (crawl, batch_crawl)."""

from __future__ import annotations

from typing import Any

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import ToolError
from netglean.generated.models import BatchCrawlInput, CrawlInput, MapInput
from netglean.handlers.pages import failure, page_payload
from netglean.net.urls import parse_url
from netglean.sites.crawl import Crawl, CrawlPlan, crawl, globs
from netglean.sites.discovery import discover
from netglean.sites.pages import Reading

CRAWL_CHARS = 400_000
"""The most content characters one crawl returns in all; each page gets its share."""


async def map_site(args: MapInput, ctx: Context) -> Outcome:
    limit = args.limit or 200
    found = await discover(
        ctx.fetcher,
        ctx.readers,
        args.url,
        limit=limit,
        include_sitemaps=args.include_sitemaps is not False,
        search=args.search or "",
        same_domain=args.same_domain is not False,
    )
    payload = {
        "url": args.url,
        "urls": found.urls,
        "count": len(found.urls),
        "truncated": found.found > limit,
        "sitemaps": found.sitemaps,
        "sources": {"links": found.linked, "sitemaps": found.listed},
    }
    if found.found > limit:
        guidance = say(
            "{count} URL(s) found (more than {limit}; raise limit or search).", count=len(found.urls), limit=limit
        )
    else:
        guidance = say("{count} URL(s) found.", count=len(found.urls))
    return Outcome(payload, next_step="batch_scrape" if found.urls else DONE, guidance=guidance, source=args.url)


def _plan(args: CrawlInput | BatchCrawlInput) -> CrawlPlan:
    pages = args.max_pages or 25
    chars = min(args.max_chars or 3000, CRAWL_CHARS // pages)
    return CrawlPlan(
        max_depth=2 if args.max_depth is None else args.max_depth,
        max_pages=pages,
        stay_on_domain=args.stay_on_domain is not False,
        include=globs([p.root for p in args.include_patterns or []]),
        exclude=globs([p.root for p in args.exclude_patterns or []]),
        reading=Reading(args.format or "markdown", args.main_content is not False, chars, False, frontier=True),
    )


def _crawl_payload(result: Crawl) -> dict[str, Any]:
    pages: list[dict[str, Any]] = []
    for visit in result.visits:
        entry: dict[str, Any] = {"url": visit.url, "depth": visit.depth, "ok": visit.error is None}
        if visit.page is not None:
            entry["page"] = page_payload(visit.page, include_links=False)
        elif visit.duplicate_of is not None:
            entry["duplicate_of"] = visit.duplicate_of
        elif visit.error is not None:
            entry["error"] = failure(visit.error)
        pages.append(entry)
    return {
        "url": result.url,
        "pages": pages,
        "read": result.read,
        "failed": result.failed,
        "truncated": result.truncated,
    }


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
    return Outcome(_crawl_payload(result), next_step=DONE, guidance=guidance, source=args.url)


async def batch_crawl(args: BatchCrawlInput, ctx: Context) -> Outcome:
    plan = _plan(args)
    seeds = [seed.root for seed in args.urls]
    crawls: list[dict[str, Any]] = []
    total = 0
    for seed in seeds:  # one seed after another: politeness is per host, and the output stays in seed order
        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            result = await _crawled(ctx, seed, plan)
        except ToolError as error:
            crawls.append(
                {"url": seed, "pages": [], "read": 0, "failed": 1, "truncated": False, "error": failure(error)}
            )
            continue
        crawls.append(_crawl_payload(result))
        total += result.read
    return Outcome(
        {"crawls": crawls},
        next_step=DONE,
        guidance=say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=len(seeds)),
        source=", ".join(seeds[:3]),
    )
