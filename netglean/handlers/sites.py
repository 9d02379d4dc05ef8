"""Sites: their URLs (map), and what breadth-first crawls from one or more start URLs read (crawl, batch_crawl)."""

from __future__ import annotations

import anyio

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Guidance, Outcome, say, sources
from netglean.core.errors import StoreFailure, ToolError, Unavailable
from netglean.generated.models import (
    BatchCrawlInput,
    BatchCrawlOutput,
    CrawlInput,
    MapInput,
    MapOutput,
    SiteCrawl,
    Sources,
)
from netglean.handlers._crawling import (
    ANSWER_CHARS,
    Journal,
    crawl_plan,
    crawl_report,
    crawled,
    run_of,
)
from netglean.handlers.pages import item_error
from netglean.net.strategy import page_strategy
from netglean.net.urls import parse_url
from netglean.read.links import LINKS_PER_PAGE
from netglean.sites.asked import concurrency, robots_fetcher
from netglean.sites.crawl import Crawl, crawl
from netglean.sites.discovery import discover


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
            "{count} URL(s) found (more than {limit}; raise limit or search).", count=len(found.urls), limit=limit
        )
    else:
        guidance = say("{count} URL(s) found.", count=len(found.urls))
    return Outcome(payload, next_step="batch_scrape" if found.urls else DONE, guidance=guidance, source=args.url)


async def crawl_site(args: CrawlInput, ctx: Context) -> Outcome:
    result, answer = await crawled(args, ctx, Journal)
    next_step = "get_run_result" if answer.unreturned else DONE
    if result.stopped == "cancelled":
        guidance = say(
            "Read {count} page(s) before the run was cancelled; {left} link(s) were left unvisited: resume_run"
            " continues it.",
            count=result.read,
            left=result.unvisited,
        )
    elif result.stopped == "max_pages":
        guidance = say(
            "Read {count} page(s); pages gave {left} more link(s) once max_pages URLs were queued: raise max_pages"
            " or narrow include_patterns.",
            count=result.read,
            left=result.links_dropped,
        )
    elif result.stopped == "links_per_page":
        guidance = say(
            "Read {count} page(s); {left} link(s) were left because a page held more than {most} the crawl wanted:"
            " narrow include_patterns, or crawl from those pages' sections.",
            count=result.read,
            left=result.links_dropped,
            most=LINKS_PER_PAGE,
        )
    elif not result.read and result.blocked:
        guidance = say("The start page answered with a bot wall or challenge page (blocked): inspect_url says more.")
        next_step = "inspect_url"
    else:
        guidance = say("Read {count} page(s).", count=result.read)
    if answer.unreturned:
        more = say(
            "This answer holds the first {shown} visit(s); get_run_result with payload.run_id pages through all"
            " {total}.",
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
            await ctx.report(sum(visited), most * len(seeds), f"visited {sum(visited)} URLs from {len(seeds)} seeds")

        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            async with room:
                journal = Journal(run, index, plan.reading.include_links)
                result = await crawl(
                    fetcher, ctx.readers, seed, plan, journal=journal, report=report, stop=run.stop, browser=ctx.browser
                )
        except (StoreFailure, Unavailable) as error:  # the run's, not the seed's: it fails, resumable
            unkept.append(error)
            return
        except ToolError as error:
            crawls[index] = SiteCrawl(url=seed, pages=[], read=0, failed=1, truncated=False, error=item_error(error))
            return
        crawls[index] = await crawl_report(result, run, index, ANSWER_CHARS // len(seeds))
        results.append(result)

    unkept: list[ToolError] = []
    async with anyio.create_task_group() as tasks:  # output in seed order; politeness per host is the fetcher's
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


def _batch_guidance(results: list[Crawl], seeds: int, total: int, walls: int, unreturned: int) -> Guidance:
    cancelled = sum(1 for result in results if result.stopped == "cancelled")
    if cancelled:
        told = say(
            "Read {count} page(s) from {seeds} seed(s) before the run was cancelled: resume_run continues it.",
            count=total,
            seeds=seeds,
        )
    elif walls:
        told = say(
            "Read {count} page(s) from {seeds} seed(s); {walls} page(s) answered with a bot wall or challenge page"
            " (blocked): inspect_url says more about one.",
            count=total,
            seeds=seeds,
            walls=walls,
        )
    else:
        told = say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=seeds)
    if not unreturned:
        return told
    more = say(
        "{left} visit(s) are left out of this answer: get_run_result with a crawl's run_id pages through them all.",
        left=unreturned,
    )
    return Guidance(f"{told} {more}")
