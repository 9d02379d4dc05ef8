"""Pages: one read (scrape), many at once (batch_scrape), a document identified without its bytes (download)."""

from __future__ import annotations

from typing import Any

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import ToolError
from netglean.generated.models import BatchScrapeInput, DownloadInput, ScrapeInput
from netglean.sites.batch import read_pages
from netglean.sites.documents import document_facts
from netglean.sites.pages import PageRead, Reading, read_page


def page_payload(read: PageRead, include_links: bool) -> dict[str, Any]:
    """A page read, as scrape returns it (and batch_scrape and the crawls each page)."""
    payload: dict[str, Any] = {
        "url": read.url,
        "final_url": read.final_url,
        "status": read.status,
        "format": read.format,
        "content": read.content,
        "start_index": read.start_index,
        "total_chars": read.total_chars,
        "metadata": read.metadata,
        "cost": {"bytes": read.bytes, "chars": len(read.content), "approx_tokens": (len(read.content) + 3) // 4},
    }
    if read.title:
        payload["title"] = read.title
    if include_links:
        payload["links"] = read.links
    if read.next_start is not None:
        payload["next_start_index"] = read.next_start
    return payload


def failure(error: ToolError) -> dict[str, Any]:
    """A page's failure, as a batch or a crawl reports it beside the pages it read."""
    return {"code": error.code, "message": error.message, "retryable": error.retryable}


async def scrape(args: ScrapeInput, ctx: Context) -> Outcome:
    start = args.start_index or 0
    include_links = bool(args.include_links)
    how = Reading(args.format or "markdown", args.main_content is not False, args.max_chars or 20000, include_links)
    read = await read_page(ctx.fetcher, ctx.readers, args.url, start, how)
    payload, total = page_payload(read, include_links), read.total_chars
    if read.next_start is not None:
        guidance = say(
            "{more} more characters: call scrape again with start_index={next}.",
            more=total - read.next_start,
            next=read.next_start,
        )
        return Outcome(payload, next_step="scrape", guidance=guidance, source=args.url)
    if start >= total and total:
        guidance = say(
            "start_index {start} is past the end ({total} characters); nothing more to read.", start=start, total=total
        )
    else:
        guidance = say("The whole content has been returned.")
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


async def batch_scrape(args: BatchScrapeInput, ctx: Context) -> Outcome:
    urls = [url.root for url in args.urls]  # constrained strings arrive as RootModel values
    include_links = bool(args.include_links)
    how = Reading(args.format or "markdown", args.main_content is not False, args.max_chars or 5000, include_links)
    reads = await read_pages(ctx.fetcher, ctx.readers, urls, how, stop_by=ctx.work_until())
    results = [
        {"url": url, "ok": False, "error": failure(read)}
        if isinstance(read, ToolError)
        else {"url": url, "ok": True, "page": page_payload(read, include_links)}
        for url, read in zip(urls, reads, strict=True)
    ]
    failed = sum(1 for read in reads if isinstance(read, ToolError))
    longer = sum(1 for read in reads if isinstance(read, PageRead) and read.next_start is not None)
    guidance = say("{read} of {total} pages read.", read=len(urls) - failed, total=len(urls))
    if longer:
        guidance = say(
            "{read} of {total} pages read. {long} were longer than max_chars: scrape them one by one with start_index"
            " to read on.",
            read=len(urls) - failed,
            total=len(urls),
            long=longer,
        )
    return Outcome(
        {"results": results, "succeeded": len(urls) - failed, "failed": failed},
        next_step="scrape" if longer else DONE,
        guidance=guidance,
        source=", ".join(urls[:3]) + (" …" if len(urls) > 3 else ""),
    )


async def download(args: DownloadInput, ctx: Context) -> Outcome:
    facts = await document_facts(ctx.fetcher, ctx.readers, args.url, args.max_size)
    payload: dict[str, Any] = {
        "url": args.url,
        "final_url": facts.final_url,
        "status": facts.status,
        "redirects": facts.redirects,
        "mime_type": facts.media_type,
        "size": facts.size,
        "sha256": facts.sha256,
        "filename": facts.filename,
    }
    if facts.page:
        payload["page"] = facts.page
    guidance = say("{size} bytes read; payload.mime_type and payload.filename say what it is.", size=facts.size)
    return Outcome(payload, guidance=guidance, source=args.url)
