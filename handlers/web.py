"""Tools that read the web through the runtime's fetcher (netglean.net.fetcher): the network policy always applies."""

from __future__ import annotations

import hashlib
import logging
import re
from collections import deque
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit, urlunsplit

import anyio

from generated.models import (
    BatchCrawlInput,
    BatchScrapeInput,
    CompareAgentViewInput,
    CrawlInput,
    DownloadInput,
    InspectUrlInput,
    MapInput,
    ScrapeInput,
)
from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import FetchTimeout, ToolError, UnsupportedContent
from netglean.core.untrusted import sanitize
from netglean.net.page import Page
from netglean.net.urls import parse_url
from netglean.read import jobs as read_jobs
from netglean.read.sitemaps import same_site

log = logging.getLogger("netglean.web")

_HTML = read_jobs.HTML_TYPES
_TEXT = {"text/plain", "text/markdown", "application/json", "text/csv"}


async def download(args: DownloadInput, ctx: Context) -> Outcome:
    page = await ctx.fetcher.fetch(args.url, accept="*/*", max_bytes=args.max_size)
    payload: dict[str, object] = {
        "url": args.url,
        "final_url": page.url,
        "status": page.status,
        "redirects": [hop.url for hop in page.redirects],
        "mime_type": page.media_type,
        "size": len(page.body),
        "sha256": hashlib.sha256(page.body).hexdigest(),
        "filename": _filename(page),
    }
    if page.media_type in _HTML:
        metadata = await ctx.readers.run(read_jobs.page_facts, document=page.document)
        if metadata:
            payload["page"] = metadata
    guidance = say("{size} bytes read; payload.mime_type and payload.filename say what it is.", size=len(page.body))
    return Outcome(payload, guidance=guidance, source=args.url)


def _filename(page: Page) -> str:
    """The server's suggested filename (RFC 6266, RFC 5987 first), else the URL's last path segment."""
    disposition = page.headers.get("content-disposition", "")
    extended = re.search(r"filename\*\s*=\s*[\w-]+'[\w-]*'([^;]+)", disposition, re.IGNORECASE)
    plain = re.search(r'filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)', disposition, re.IGNORECASE)
    if extended:
        name = unquote(extended.group(1).strip())
    elif plain:
        name = (plain.group(1) if plain.group(1) is not None else plain.group(2)).strip()
    else:
        name = unquote(PurePosixPath(urlsplit(page.url).path).name)
    # A name from a server is untrusted: no directories, no control or invisible characters.
    name = sanitize(name).replace("\\", "/").rsplit("/", 1)[-1].strip(" .")
    return name[:255] or "download"


@dataclass(frozen=True, slots=True)
class _Reading:
    """How a page is read: shared by scrape and batch_scrape."""

    fmt: str
    main_content: bool
    limit: int
    include_links: bool
    frontier: bool = False
    """Also return every link of the page (navigation included): what a crawl follows."""


@dataclass(frozen=True, slots=True)
class _Page:
    """One page read: the scrape payload, plus the facts callers act on, typed."""

    payload: dict[str, object]
    final_url: str
    total_chars: int
    truncated: bool
    canonical: str | None
    frontier: list[str]


async def _read(ctx: Context, url: str, start: int, how: _Reading) -> _Page:
    """Fetch one page: its scrape payload (one slice of the formatted content, with metadata) and its links."""
    fmt, main_content, limit, include_links = how.fmt, how.main_content, how.limit, how.include_links
    page = await ctx.fetcher.fetch(url)
    media_type = page.media_type
    metadata: dict[str, object] = {}
    links: list[dict[str, str]] = []
    frontier: list[str] = []  # every link of the page, navigation included: where a crawl may go next
    title = None
    if media_type in _HTML:
        reading = await ctx.readers.run(
            read_jobs.read_page,
            document=page.document,
            fmt=fmt,
            main_content=main_content,
            frontier=how.frontier,
        )
        metadata, frontier, content = reading.metadata, reading.frontier, reading.content
        title, links = reading.title, reading.links
    elif media_type in _TEXT or media_type.startswith("text/"):
        content = await ctx.readers.run(read_jobs.plain_text, document=page.document)
    else:
        raise UnsupportedContent(
            f"{page.url} is {media_type}, not a page to read; use download to identify it",
            detail={"media_type": media_type, "url": page.url},
        )
    piece = content[start : start + limit]
    payload: dict[str, object] = {
        "url": url,
        "final_url": page.url,
        "status": page.status,
        "format": fmt,
        "content": piece,
        "start_index": start,
        "total_chars": len(content),
        "metadata": metadata,
        "cost": {"bytes": len(page.body), "chars": len(piece), "approx_tokens": (len(piece) + 3) // 4},
    }
    if title:
        payload["title"] = title
    if include_links:
        payload["links"] = list({link["url"]: link for link in links}.values())
    if start + limit < len(content):
        payload["next_start_index"] = start + limit
    canonical = metadata.get("canonical")
    return _Page(
        payload,
        page.url,
        len(content),
        start + limit < len(content),
        canonical if isinstance(canonical, str) else None,
        frontier,
    )


async def scrape(args: ScrapeInput, ctx: Context) -> Outcome:
    start, limit = args.start_index or 0, args.max_chars or 20000
    how = _Reading(args.format or "markdown", args.main_content is not False, limit, bool(args.include_links))
    read = await _read(ctx, args.url, start, how)
    payload, total, source = read.payload, read.total_chars, args.url
    if read.truncated:
        guidance = say(
            "{more} more characters: call scrape again with start_index={next}.",
            more=total - start - limit,
            next=start + limit,
        )
        return Outcome(payload, next_step="scrape", guidance=guidance, source=source)
    if start >= total and total:
        guidance = say(
            "start_index {start} is past the end ({total} characters); nothing more to read.", start=start, total=total
        )
    else:
        guidance = say("The whole content has been returned.")
    return Outcome(payload, next_step=DONE, guidance=guidance, source=source)


async def batch_scrape(args: BatchScrapeInput, ctx: Context) -> Outcome:
    """Every URL read concurrently (the fetcher's per-host and global limits apply); failures stay per entry."""
    urls = [url.root for url in args.urls]  # constrained strings arrive as RootModel values
    results: list[dict[str, object]] = [{} for _ in urls]
    how = _Reading(
        args.format or "markdown", args.main_content is not False, args.max_chars or 5000, bool(args.include_links)
    )

    truncated: list[str] = []
    stop_by = ctx.work_until()  # one slow page must not cost the batch every page it has read

    async def one(index: int, url: str) -> None:
        try:
            with anyio.CancelScope(deadline=stop_by) as entry:
                read = await _read(ctx, url, 0, how)
            if entry.cancelled_caught:
                raise FetchTimeout(_LATE, detail={"url": url})
            results[index] = {"url": url, "ok": True, "page": read.payload}
            if read.truncated:
                truncated.append(url)
        except ToolError as error:
            results[index] = {
                "url": url,
                "ok": False,
                "error": {"code": error.code, "message": error.message, "retryable": error.retryable},
            }
        except Exception:  # one broken page must not sink the batch; the runner logs nothing for it otherwise
            log.exception("batch_scrape: %s failed", url)
            results[index] = {
                "url": url,
                "ok": False,
                "error": {
                    "code": "internal_error",
                    "message": "reading this URL failed inside the server",
                    "retryable": False,
                },
            }

    async with anyio.create_task_group() as tasks:
        for index, url in enumerate(urls):
            tasks.start_soon(one, index, url)
    failed = sum(1 for result in results if not result["ok"])
    guidance = say("{read} of {total} pages read.", read=len(results) - failed, total=len(results))
    if truncated:
        guidance = say(
            "{read} of {total} pages read. {long} were longer than max_chars: scrape them one by one with start_index"
            " to read on.",
            read=len(results) - failed,
            total=len(results),
            long=len(truncated),
        )
    return Outcome(
        {"results": results, "succeeded": len(results) - failed, "failed": failed},
        next_step="scrape" if truncated else DONE,
        guidance=guidance,
        source=", ".join(urls[:3]) + (" …" if len(urls) > 3 else ""),
    )


_LATE = "not read before the call's deadline: the pages already read are returned"
"""What a batch says of a page it ran out of time for."""

_MAX_SITEMAPS = 25


async def map_site(args: MapInput, ctx: Context) -> Outcome:
    """Links of the page, then sitemap entries (indexes followed, at most 25 sitemaps), filtered and capped."""
    limit = args.limit or 200
    page = await ctx.fetcher.fetch(args.url)
    home = urlsplit(page.url).hostname or ""
    linked: list[str] = []
    if page.media_type in _HTML:
        linked = await ctx.readers.run(read_jobs.page_links, document=page.document)
    listed: list[str] = []
    read: list[str] = []
    if args.include_sitemaps is not False:
        origin = f"{urlsplit(page.url).scheme}://{urlsplit(page.url).netloc}"
        pending = list(dict.fromkeys([*await ctx.fetcher.sitemaps(page.url), f"{origin}/sitemap.xml"]))
        while pending and len(read) < _MAX_SITEMAPS and len(listed) < limit * 4:
            sitemap_url = pending.pop(0)
            if sitemap_url in read:
                continue
            read.append(sitemap_url)
            try:
                fetched = await ctx.fetcher.fetch(sitemap_url, accept="application/xml,text/xml;q=0.9,*/*;q=0.5")
                sitemap = await ctx.readers.run(
                    read_jobs.sitemap, body=fetched.body, max_bytes=ctx.fetcher.policy.max_decoded_bytes
                )
            except ToolError:
                read.pop()  # a missing or broken sitemap is not a failure of the map
                continue
            (pending if sitemap.is_index else listed).extend(sitemap.locations)
    needle = (args.search or "").lower()
    same_domain = args.same_domain is not False
    keep = [
        url
        for url in dict.fromkeys([*linked, *listed])
        if (same_site(url, home) or not same_domain) and needle in url.lower()
    ]
    urls = keep[:limit]
    payload = {
        "url": args.url,
        "urls": urls,
        "count": len(urls),
        "truncated": len(keep) > limit,
        "sitemaps": read,
        "sources": {"links": len(linked), "sitemaps": len(listed)},
    }
    if len(keep) > limit:
        guidance = say("{count} URL(s) found (more than {limit}; raise limit or search).", count=len(urls), limit=limit)
    else:
        guidance = say("{count} URL(s) found.", count=len(urls))
    return Outcome(payload, next_step="batch_scrape" if urls else DONE, guidance=guidance, source=args.url)


AGENT_ACCEPT = "text/markdown, text/plain;q=0.9, text/html;q=0.5, */*;q=0.1"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@dataclass(frozen=True, slots=True)
class _Seen:
    """One side of a comparison: what the tool reports, and the typed facts it compares."""

    view: dict[str, object]
    page: Page | None
    error: ToolError | None
    tokens: int = 0


async def _view(ctx: Context, url: str, accept: str, excerpt_chars: int) -> _Seen:
    try:
        page = await ctx.fetcher.fetch(url, accept=accept)
    except ToolError as error:
        return _Seen({"accept": accept, "error": {"code": error.code, "message": error.message}}, None, error)
    text = await ctx.readers.run(read_jobs.plain_text, document=page.document)
    tokens = (len(text) + 3) // 4
    view: dict[str, object] = {
        "accept": accept,
        "status": page.status,
        "final_url": page.url,
        "content_type": page.media_type,
        "bytes": len(page.body),
        "approx_tokens": tokens,
        "excerpt": text[:excerpt_chars],
    }
    return _Seen(view, page, None, tokens)


async def compare_agent_view(args: CompareAgentViewInput, ctx: Context) -> Outcome:
    limit = 800 if args.excerpt_chars is None else args.excerpt_chars
    agent = await _view(ctx, args.url, AGENT_ACCEPT, limit)
    browser = await _view(ctx, args.url, BROWSER_ACCEPT, limit)
    agent_page, browser_page = agent.page, browser.page
    if agent.error is not None and browser_page is None:
        raise agent.error  # nothing to compare: the call fails as the fetch did
    differences: list[str] = []
    payload: dict[str, object] = {"url": args.url, "agent": agent.view, "browser": browser.view}
    if agent_page is not None and browser_page is not None:
        same = agent_page.body == browser_page.body
        negotiated = agent_page.media_type != browser_page.media_type or agent_page.media_type in {
            "text/markdown",
            "text/plain",
        }
        if agent_page.media_type != browser_page.media_type:
            differences.append(
                f"content type: {agent_page.media_type} for agents, {browser_page.media_type} for browsers"
            )
        if agent_page.status != browser_page.status:
            differences.append(f"status: {agent_page.status} for agents, {browser_page.status} for browsers")
        if agent_page.url != browser_page.url:
            differences.append(f"final URL: {agent_page.url} for agents, {browser_page.url} for browsers")
        if not same:
            differences.append(f"size: {len(agent_page.body)} bytes for agents, {len(browser_page.body)} for browsers")
        if browser.tokens:
            payload["token_ratio"] = round(agent.tokens / browser.tokens, 4)
        payload |= {"negotiated": negotiated, "identical": same}
        guidance = (
            say("The site negotiates: agents get their own answer (payload.agent.content_type says which).")
            if negotiated
            else say(
                "No content negotiation: agents and browsers get the same kind of answer; scrape extracts the text."
            )
        )
    else:
        failed = "agent" if agent_page is None else "browser"
        error = agent.error if agent_page is None else browser.error
        differences.append(f"the {failed} request failed: {error.message if error else 'unknown'}")
        payload |= {"negotiated": False, "identical": False}
        guidance = (
            say("Only the browser request succeeded.")
            if failed == "agent"
            else say("Only the agent request succeeded.")
        )
    payload["differences"] = differences
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


_CRAWL_CHARS = 400_000
"""The most content characters one crawl returns in all; each page gets its share."""


@dataclass(frozen=True, slots=True)
class _CrawlPlan:
    max_depth: int
    max_pages: int
    stay_on_domain: bool
    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    reading: _Reading

    def wants(self, url: str, home: str) -> bool:
        if self.stay_on_domain and not same_site(url, home):
            return False
        if self.include and not any(p.match(url) for p in self.include):
            return False
        return not any(p.match(url) for p in self.exclude)


def _globs(patterns: list[Any] | None) -> tuple[re.Pattern[str], ...]:
    """Glob patterns (* and ?) matched against the whole URL; never a model's own regular expression."""
    import fnmatch

    return tuple(re.compile(fnmatch.translate(p.root)) for p in patterns or [])


def _plan(args: CrawlInput | BatchCrawlInput) -> _CrawlPlan:
    pages = args.max_pages or 25
    chars = min(args.max_chars or 3000, _CRAWL_CHARS // pages)
    return _CrawlPlan(
        max_depth=2 if args.max_depth is None else args.max_depth,
        max_pages=pages,
        stay_on_domain=args.stay_on_domain is not False,
        include=_globs(args.include_patterns),
        exclude=_globs(args.exclude_patterns),
        reading=_Reading(args.format or "markdown", args.main_content is not False, chars, False, frontier=True),
    )


def _normal(url: str) -> str:
    parts = urlsplit(urldefrag(url).url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


async def _crawl(ctx: Context, seed: str, plan: _CrawlPlan) -> tuple[dict[str, object], int]:
    """Breadth-first from ``seed``: each page read once (canonical URLs de-duplicated), failures kept per page."""
    home = urlsplit(seed).hostname or ""
    queue = deque([(_normal(seed), 0)])
    seen = {queue[0][0]}
    canonical_seen: dict[str, str] = {}
    pages: list[dict[str, object]] = []
    stop_by = ctx.work_until()
    while queue and len(pages) < plan.max_pages:
        url, depth = queue.popleft()
        try:
            with anyio.CancelScope(deadline=stop_by) as page_scope:
                read = await _read(ctx, url, 0, plan.reading)
            if page_scope.cancelled_caught:  # out of time: what was read is the crawl, and the rest is left
                queue.appendleft((url, depth))
                break
        except ToolError as error:
            pages.append(
                {
                    "url": url,
                    "depth": depth,
                    "ok": False,
                    "error": {"code": error.code, "message": error.message, "retryable": error.retryable},
                }
            )
            continue
        canonical = _normal(read.canonical or read.final_url)
        if canonical in canonical_seen:
            pages.append({"url": url, "depth": depth, "ok": True, "duplicate_of": canonical_seen[canonical]})
            continue
        canonical_seen[canonical] = url
        pages.append({"url": url, "depth": depth, "ok": True, "page": read.payload})
        await ctx.report(len(pages), plan.max_pages, f"read {len(pages)} of at most {plan.max_pages} pages")
        if depth < plan.max_depth:
            for link in read.frontier:
                target = _normal(link)
                if target not in seen and plan.wants(target, home):
                    seen.add(target)
                    queue.append((target, depth + 1))
    read_count = sum(1 for page in pages if "page" in page)
    result = {
        "url": seed,
        "pages": pages,
        "read": read_count,
        "failed": sum(1 for page in pages if not page["ok"]),
        "truncated": bool(queue),
    }
    return result, read_count


async def crawl(args: CrawlInput, ctx: Context) -> Outcome:
    parse_url(args.url)  # a start URL that can never be fetched is the call's error, not a failed page
    result, read_count = await _crawl(ctx, args.url, _plan(args))
    if result["truncated"]:
        guidance = say(
            "Read {count} page(s); more links were left unvisited (max_pages, or the call's deadline, was reached:"
            " raise max_pages or narrow include_patterns).",
            count=read_count,
        )
    else:
        guidance = say("Read {count} page(s).", count=read_count)
    return Outcome(result, next_step=DONE, guidance=guidance, source=args.url)


async def batch_crawl(args: BatchCrawlInput, ctx: Context) -> Outcome:
    plan = _plan(args)
    seeds = [seed.root for seed in args.urls]
    crawls: list[dict[str, object]] = []
    total = 0
    for seed in seeds:  # one seed after another: politeness is per host, and the output stays in seed order
        try:
            parse_url(seed)  # a malformed seed is that seed's error, before any request
            result, read_count = await _crawl(ctx, seed, plan)
            crawls.append(result)
            total += read_count
        except ToolError as error:
            crawls.append(
                {
                    "url": seed,
                    "pages": [],
                    "read": 0,
                    "failed": 1,
                    "truncated": False,
                    "error": {"code": error.code, "message": error.message, "retryable": error.retryable},
                }
            )
    return Outcome(
        {"crawls": crawls},
        next_step=DONE,
        guidance=say("Read {count} page(s) from {seeds} seed(s).", count=total, seeds=len(seeds)),
        source=", ".join(seeds[:3]),
    )


async def inspect_url(args: InspectUrlInput, ctx: Context) -> Outcome:
    verdict = await ctx.fetcher.robots_verdict(args.url)
    payload: dict[str, object] = {"url": args.url, "robots": verdict, "fetched": False}
    if verdict in {"disallowed", "unreadable"}:
        guidance = say("robots.txt does not let netglean read this URL (payload.robots says why).")
        return Outcome(payload, next_step=DONE, source=args.url, guidance=guidance)
    page = await ctx.fetcher.fetch(args.url, error_pages=True)
    diagnosis = await ctx.readers.run(
        read_jobs.diagnosis,
        document=page.document,
        status=page.status,
        headers=dict(page.headers),
    )
    found_feeds, counts, signals = diagnosis.feeds, diagnosis.counts, diagnosis.signals
    payload |= {
        "fetched": True,
        "final_url": page.url,
        "redirects": [hop.url for hop in page.redirects],
        "status": page.status,
        "downgraded": page.downgraded,
        "content_type": page.media_type,
        "bytes": len(page.body),
        "feeds": found_feeds,
        **counts,
        "bot_wall": bool(signals),
        "bot_wall_signals": signals,
    }
    source = args.url
    if signals:
        guidance = say("This is a challenge or block page, not the content; netglean does not bypass it.")
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if found_feeds:
        guidance = say(
            "The page announces {count} feed(s) of its own (payload.feeds): read one of those instead.",
            count=len(found_feeds),
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if page.status >= 400:
        guidance = say("The server answered HTTP {status}.", status=page.status)
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    listed = counts["repeated_items"] or (counts["articles"] if counts["articles"] >= 3 else 0)
    if listed:
        guidance = say(
            "It lists {count} items: capture_config drafts a feed config for them (or scrape it as a page).",
            count=listed,
        )
        return Outcome(payload, next_step="capture_config", source=source, guidance=guidance)
    return Outcome(payload, next_step="scrape", source=source, guidance=say("Readable: scrape it."))
