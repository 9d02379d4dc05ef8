"""The browser tools' engines: a list of actions on one page (interact), a page's analysis
(analyze_page) and an endpoint's answer (analyze_api_endpoint), each in a fresh browser context
under the call's fetcher.

What the page shows at a scrape action, and at the end, is read as scrape reads any page (a reader
process, the same extraction and slicing); what an analysis reads off the markup runs there too
(netglean.read.analysis).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from netglean.browser.actions import Action, Performed, perform
from netglean.browser.capture import Captured, JsonSummary, describe_json
from netglean.core.errors import NotAvailable, ToolError, UnsupportedContent
from netglean.net.urls import parse_url
from netglean.read import jobs as read_jobs
from netglean.read.analysis import Analysis, Pagination
from netglean.read.document import HTML_TYPES, Document
from netglean.read.json_shape import pagination_hints

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.read.reading import HtmlReading
    from netglean.workers.pool import Readers

_ENDPOINT_HEADERS = frozenset(
    {
        "content-type",
        "content-length",
        "cache-control",
        "etag",
        "last-modified",
        "link",
        "x-total-count",
        "x-total",
        "x-total-pages",
        "x-page",
        "x-per-page",
        "x-next-page",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "access-control-allow-origin",
        "vary",
    }
)
"""The answer headers analyze_api_endpoint reports: what says how to read and page an API, never a
cookie."""
_PAGE_PARAMETERS = frozenset(
    {"page", "p", "offset", "start", "skip", "cursor", "after", "before", "limit", "per_page"}
)


async def _pool(browser: BrowserPool | None, fetcher: Fetcher, url: str) -> BrowserPool:
    """The browser to open ``url`` in, once the policy admits it: a refused page never starts a
    browser."""
    await fetcher.ready()  # before the URL is read: the fetch layer loads in a worker thread
    await fetcher.admit(parse_url(url))
    if browser is None or not browser.installed:
        raise NotAvailable(
            "no Chromium to drive: the operator installs one (apt-get install chromium) or names "
            "it with --browser-path",
            detail={"argument": "url"},
        )
    return browser


@dataclass(frozen=True, slots=True)
class Interaction:
    performed: Performed
    scraped: dict[int, HtmlReading]
    """What each scrape action read, by its index."""
    final: HtmlReading


async def interact(
    fetcher: Fetcher,
    readers: Readers,
    browser: BrowserPool | None,
    url: str,
    actions: Sequence[Action],
    *,
    fmt: str,
    main_content: bool,
    max_chars: int,
    allow_evaluate: bool,
    action_timeout: float,
) -> Interaction:
    """``url`` loaded, each action carried out until one fails, and the page read at every scrape
    and at the end."""
    pool = await _pool(browser, fetcher, url)
    refused: list[ToolError] = []
    async with pool.page(fetcher, refused) as page:
        done = await perform(
            pool,
            page,
            url,
            actions,
            timeout=fetcher.policy.total_timeout,
            refused=refused,
            allow_evaluate=allow_evaluate,
            cap=action_timeout,
        )

    async def read(at: str, html: str) -> HtmlReading:
        return await readers.run(
            read_jobs.read_page,
            document=Document(at, html.encode("utf-8"), "utf-8"),
            fmt=fmt,
            main_content=main_content,
            frontier=None,
            limit=max_chars,
        )

    scraped = {
        step.index: await read(step.url, step.html) for step in done.steps if step.html is not None
    }
    return Interaction(done, scraped, await read(done.final_url, done.final_html))


@dataclass(frozen=True, slots=True)
class PageAnalysis:
    """A rendered page's analysis: what its markup says (read.analysis), and what the browser saw
    loading it."""

    url: str
    final_url: str
    status: int
    markup: Analysis
    pagination: Pagination
    """The markup's, unless it shows none and scrolling loaded more (infinite_scroll)."""
    infinite_scroll: bool
    loads_data_by_xhr: bool
    """A request the page made answered JSON."""
    requests: tuple[Captured, ...]


async def analyze(
    fetcher: Fetcher, readers: Readers, browser: BrowserPool | None, url: str
) -> PageAnalysis:
    """The page rendered (its XHR and fetch requests kept, scrolled once to see whether it grows)
    and analysed, beside its plain-HTTP answer (which tells a page its scripts build from one sent
    whole)."""
    pool = await _pool(browser, fetcher, url)
    rendered = await pool.render(
        fetcher, url, timeout=fetcher.policy.total_timeout, capture=True, scroll=True
    )
    http_document = None
    try:
        plain = await fetcher.fetch(url, error_pages=True)
        if plain.media_type in HTML_TYPES:
            http_document = plain.document
    except ToolError:  # the comparison is lost, not the analysis
        http_document = None
    page = rendered.as_page()
    found: Analysis = await readers.run(
        read_jobs.page_analysis,
        document=page.document,
        status=rendered.status,
        headers=dict(page.headers),
        http_document=http_document,
    )
    grew = bool(rendered.grew_on_scroll)
    pagination = found.features.pagination
    return PageAnalysis(
        url=url,
        final_url=rendered.final_url,
        status=rendered.status,
        markup=found,
        pagination=Pagination("infinite_scroll")
        if grew and pagination.kind == "none"
        else pagination,
        infinite_scroll=grew,
        loads_data_by_xhr=any(request.json is not None for request in rendered.requests),
        requests=tuple(rendered.requests),
    )


@dataclass(frozen=True, slots=True)
class EndpointAnswer:
    """An endpoint's answer as analyze_api_endpoint describes it."""

    url: str
    final_url: str
    status: int
    content_type: str
    bytes: int | None
    """Its size, read or declared (None when neither)."""
    headers: dict[str, str]
    """The headers that say how to read and page it (_ENDPOINT_HEADERS), never a cookie."""
    pagination_hints: list[str]
    json: JsonSummary | None = None
    text_sample: str | None = None
    """The first 500 bytes of an answer that is not JSON, decoded."""


async def analyze_endpoint(
    fetcher: Fetcher, browser: BrowserPool | None, url: str
) -> EndpointAnswer:
    """An endpoint's answer in a browser context: status, the headers that say how to read and page
    it, its content type, and for JSON its shape, where its items are, a sample, and what looks like
    pagination."""
    pool = await _pool(browser, fetcher, url)
    answered = await pool.answer(fetcher, url, timeout=fetcher.policy.total_timeout)
    media = answered.headers.get("content-type", "").split(";")[0].strip().lower()
    body = answered.body
    declared = answered.headers.get("content-length", "")
    size = len(body) if body is not None else (int(declared) if declared.isdigit() else None)
    hints = [
        f"query parameter {name}"
        for name in _query_names(answered.final_url)
        if name in _PAGE_PARAMETERS
    ]
    if re.search(r"rel=\"?next\b", answered.headers.get("link", "")):
        hints.append("Link header rel=next")
    counted = ("x-total-count", "x-total-pages", "x-next-page")
    hints += [f"header {name}" for name in counted if name in answered.headers]
    declared_json = media == "application/json" or media.endswith("+json")
    summary, text_sample = None, None
    if body is not None and (declared_json or body.lstrip()[:1] in {b"{", b"["}):
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):  # not JSON after all, or nested past what can be read
            if declared_json:
                raise UnsupportedContent(
                    f"{url} says it is JSON but cannot be read as JSON", detail={"url": url}
                ) from None
            text_sample = body[:500].decode("utf-8", "replace")
        else:
            summary = describe_json(value)
            hints += [f"key {pointer}" for pointer in pagination_hints(value)]
    elif body is not None:
        text_sample = body[:500].decode("utf-8", "replace")
    return EndpointAnswer(
        url=url,
        final_url=answered.final_url,
        status=answered.status,
        content_type=media,
        bytes=size,
        headers={
            name: value for name, value in answered.headers.items() if name in _ENDPOINT_HEADERS
        },
        pagination_hints=hints,
        json=summary,
        text_sample=text_sample,
    )


def _query_names(url: str) -> list[str]:
    return [name.lower() for name, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)]
