"""Pages: one read (scrape), many at once (batch_scrape), a document identified without its bytes (download)."""

from __future__ import annotations

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import ToolError
from netglean.generated.models import (
    BatchEntry,
    BatchScrapeInput,
    BatchScrapeOutput,
    Cost,
    DownloadInput,
    DownloadOutput,
    ItemError,
    Link,
    PageMetadata,
    ScrapedPage,
    ScrapeInput,
)
from netglean.sites.batch import read_pages
from netglean.sites.documents import document_facts
from netglean.sites.pages import PageRead, Reading, read_page


def scraped(read: PageRead, include_links: bool) -> ScrapedPage:
    """A page read, as scrape returns it (and batch_scrape and the crawls each page)."""
    chars = len(read.content)
    return ScrapedPage(
        url=read.url,
        final_url=read.final_url,
        status=read.status,
        format=read.format,  # type: ignore[arg-type]  # the format the arguments chose, typed str by the engine
        title=read.title or None,
        content=read.content,
        start_index=read.start_index,
        next_start_index=read.next_start,
        total_chars=read.total_chars,
        metadata=PageMetadata.model_validate(read.metadata),
        links=[Link.model_validate(link) for link in read.links] if include_links else None,
        cost=Cost(bytes=read.bytes, chars=chars, approx_tokens=(chars + 3) // 4),
    )


def item_error(error: ToolError) -> ItemError:
    """A part's failure, as a batch or a crawl reports it beside the parts that succeeded."""
    return ItemError(code=error.code, message=error.message, retryable=error.retryable)


async def scrape(args: ScrapeInput, ctx: Context) -> Outcome:
    start = args.start_index
    how = Reading(args.format, args.main_content, args.max_chars, args.include_links)
    read = await read_page(ctx.fetcher, ctx.readers, args.url, start, how)
    payload, total = scraped(read, args.include_links), read.total_chars
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
    urls = args.urls
    how = Reading(args.format, args.main_content, args.max_chars, args.include_links)
    reads = await read_pages(ctx.fetcher, ctx.readers, urls, how, stop_by=ctx.work_until())
    results = [
        BatchEntry(url=url, ok=False, error=item_error(read))
        if isinstance(read, ToolError)
        else BatchEntry(url=url, ok=True, page=scraped(read, args.include_links))
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
        BatchScrapeOutput(results=results, succeeded=len(urls) - failed, failed=failed),
        next_step="scrape" if longer else DONE,
        guidance=guidance,
        source=", ".join(urls[:3]) + (" …" if len(urls) > 3 else ""),
    )


async def download(args: DownloadInput, ctx: Context) -> Outcome:
    facts = await document_facts(ctx.fetcher, ctx.readers, args.url, args.max_size)
    payload = DownloadOutput(
        url=args.url,
        final_url=facts.final_url,
        status=facts.status,
        redirects=facts.redirects,
        mime_type=facts.media_type,
        size=facts.size,
        sha256=facts.sha256,
        filename=facts.filename,
        page=PageMetadata.model_validate(facts.page) if facts.page else None,
    )
    guidance = say("{size} bytes read; payload.mime_type and payload.filename say what it is.", size=facts.size)
    return Outcome(payload, guidance=guidance, source=args.url)
