"""Pages: one read (scrape), many at once (batch_scrape), a document identified without its bytes
(download)."""

from __future__ import annotations

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Guidance, Outcome, say, sources
from netglean.core.errors import Blocked, ToolError
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
from netglean.net.strategy import page_strategy
from netglean.read.page_meta import PageMeta
from netglean.scraping.batch import read_pages
from netglean.scraping.documents import document_facts
from netglean.scraping.operator_limits import concurrency, robots_fetcher, size_cap
from netglean.scraping.pages import PageRead, Reading, read_page, with_links


def scrape_payload(read: PageRead, include_links: bool) -> ScrapedPage:
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
        metadata=page_metadata(read.metadata),
        readerable=read.readerable,
        selected_strategy=read.strategy,  # type: ignore[arg-type]  # http or browser, as read_page read it
        links=[Link(url=ln.url, text=ln.text) for ln in read.links] if include_links else None,
        unlisted_links=read.links_unlisted or None,
        cost=Cost(bytes=read.bytes, chars=chars, approx_tokens=(chars + 3) // 4),
    )


def page_metadata(meta: PageMeta) -> PageMetadata:
    """What a page says about itself, as scrape and download return it."""
    return PageMetadata(
        title=meta.title,
        description=meta.description,
        language=meta.language,
        canonical=meta.canonical,
        site_name=meta.site_name,
        author=meta.author,
        published=meta.published,
        opengraph=meta.opengraph or None,
        json_ld=meta.json_ld or None,
    )


def item_error(error: ToolError) -> ItemError:
    """A part's failure, as a batch or a crawl reports it beside the parts that succeeded."""
    return ItemError(
        code=error.code,
        message=error.message,
        retryable=error.retryable,
        detail=error.detail or None,
    )


def _reading(args: ScrapeInput | BatchScrapeInput, links: bool, strategy: str) -> Reading:
    """How scrape and batch_scrape read each page: the same arguments mean the same reading."""
    return Reading(
        args.format,
        args.main_content,
        args.max_chars,
        links,
        strategy=strategy,
        link_style=args.links,
    )


async def scrape(args: ScrapeInput, ctx: Context) -> Outcome:
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)
    start, links = args.start_index, with_links(args.format, args.include_links)
    strategy = page_strategy(args.strategy, use_browser=args.use_browser)
    how = _reading(args, links, strategy)
    read = await read_page(fetcher, ctx.readers, args.url, start, how, browser=ctx.browser)
    payload, total = scrape_payload(read, links), read.total_chars
    if read.next_start is not None:
        guidance = say(
            "{more} more characters: call scrape again with start_index={next}.",
            more=total - read.next_start,
            next=read.next_start,
        )
        return Outcome(
            payload,
            next_step="scrape",
            guidance=_unless_readerable(read, guidance),
            source=args.url,
        )
    if start >= total and total:
        guidance = say(
            "start_index {start} is past the end ({total} characters); nothing more to read.",
            start=start,
            total=total,
        )
    elif read.whole:
        guidance = say("The whole content has been returned.")
    else:
        guidance = say(
            "This is all the main content found, and it may be incomplete: the page holds more "
            "article text than main-content selection kept. scrape with main_content false "
            "returns every block."
        )
    return Outcome(
        payload, next_step=DONE, guidance=_unless_readerable(read, guidance), source=args.url
    )


def _unless_readerable(read: PageRead, guidance: Guidance) -> Guidance:
    """The guidance, told first when the page has no main content to speak of (readerable false)."""
    if read.readerable is not False:
        return guidance
    warning = say(
        "The page has little or no article text (a short page, a home page, a listing, a search "
        "or a form): the content is a best guess at its main part. scrape with main_content "
        "false returns every block; map lists its links."
    )
    return Guidance(f"{warning} {guidance}")


async def batch_scrape(args: BatchScrapeInput, ctx: Context) -> Outcome:
    urls = args.urls
    width = concurrency(args.concurrency, ctx.fetcher, most=len(urls))
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)
    links = with_links(args.format, args.include_links)
    strategy = page_strategy(args.strategy)
    how = _reading(args, links, strategy)
    reads = await read_pages(
        fetcher, ctx.readers, urls, how, stop_by=ctx.work_until(), width=width, browser=ctx.browser
    )
    results = [
        BatchEntry(url=url, ok=False, error=item_error(read))
        if isinstance(read, ToolError)
        else BatchEntry(url=url, ok=True, page=scrape_payload(read, links))
        for url, read in zip(urls, reads, strict=True)
    ]
    failed = sum(1 for read in reads if isinstance(read, ToolError))
    walls = sum(1 for read in reads if isinstance(read, Blocked))
    longer = sum(1 for read in reads if isinstance(read, PageRead) and read.next_start is not None)
    done, total = len(urls) - failed, len(urls)
    next_step = "scrape" if longer else DONE
    if longer:
        guidance = say(
            "{read} of {total} pages read. {long} were longer than max_chars: scrape them one by "
            "one with start_index to read on.",
            read=done,
            total=total,
            long=longer,
        )
    elif late := sum(1 for read in reads if isinstance(read, ToolError) and read.code == "timeout"):
        guidance = say(
            "{read} of {total} pages read; {late} ran out of time (timeout, retryable): call "
            "batch_scrape again with those URLs, or fewer at once.",
            read=done,
            total=total,
            late=late,
        )
        next_step = "batch_scrape"
    elif walls:
        guidance = say(
            "{read} of {total} pages read; {walls} answered with a bot wall or challenge page "
            "(blocked), not the page: inspect_url says more about one.",
            read=done,
            total=total,
            walls=walls,
        )
        next_step = "inspect_url" if not done else DONE
    else:
        guidance = say("{read} of {total} pages read.", read=done, total=total)
    return Outcome(
        BatchScrapeOutput(results=results, succeeded=done, failed=failed),
        next_step=next_step,
        guidance=guidance,
        source=sources(urls),
    )


async def download(args: DownloadInput, ctx: Context) -> Outcome:
    fetcher = robots_fetcher(ctx.fetcher, args.respect_robots_txt)
    facts = await document_facts(
        fetcher, ctx.readers, args.url, size_cap(args.max_size, ctx.fetcher)
    )
    payload = DownloadOutput(
        url=args.url,
        final_url=facts.final_url,
        status=facts.status,
        redirects=facts.redirects,
        mime_type=facts.media_type,
        size=facts.size,
        content_hash=f"sha256:{facts.sha256}",
        sha256=facts.sha256,
        filename=facts.filename,
        page=page_metadata(facts.page) if facts.page is not None else None,
    )
    guidance = say(
        "{size} bytes read; payload.mime_type and payload.filename say what it is.", size=facts.size
    )
    return Outcome(payload, guidance=guidance, source=args.url)
