"""What the page tools ask reader processes to do with the bytes they fetched (netglean.workers runs
them).

Every job here reads third-party input — decoding, parsing, extraction, diagnoses, links, sitemaps —
so every one runs where a call's deadline can end it: a worker process that is replaced when its
caller stops waiting. Jobs take keyword arguments and return plain data (what pickles), and raise
netglean's errors, which reach the caller as they were raised. (The feed jobs are
netglean.feeds.jobs.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from netglean.core.untrusted import sanitize
from netglean.read.document import HTML_TYPES, Document
from netglean.read.extract import MAX_BLOCK_DEPTH
from netglean.read.html_tree import parse_html
from netglean.read.links import LinkFilter, Taken, take
from netglean.read.links import page_links as links
from netglean.read.page_meta import PageMeta, page_metadata
from netglean.read.page_signals import (
    AnnouncedFeed,
    ItemCounts,
    SemanticTree,
    TreeBuilt,
    bot_wall,
    candidate_items,
    feeds,
    item_groups,
    semantic_tree,
)
from netglean.read.readability.evidence import Evidence, Probe
from netglean.read.reading import HtmlReading, read_html, read_text, signals_if_wall
from netglean.read.render import Slice
from netglean.read.sitemaps import Sitemap, read_sitemap

if TYPE_CHECKING:
    from netglean.read.analysis import Analysis

__all__ = [
    "Diagnosis",
    "dataset_rows",
    "diagnosis",
    "markdown_copy",
    "page_analysis",
    "page_facts",
    "page_links",
    "plain_text",
    "read_page",
    "readability_score",
    "sitemap",
    "text_page",
    "wall_signals",
]
"""The jobs, and what they return: all a reader process will run from this module."""


def read_page(
    *,
    document: Document,
    fmt: str,
    main_content: bool,
    frontier: LinkFilter | None,
    link_style: str = "inline",
    start: int = 0,
    limit: int | None = None,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HtmlReading:
    """An HTML page as the page tools return it: metadata, links, the content in ``fmt`` (``limit``
    characters of it from ``start``; markdown's links written as ``link_style`` says), and whether
    the answer (``status``, ``headers``) is a bot wall."""
    return read_html(
        document.text(),
        document.url,
        fmt=fmt,
        main_content=main_content,
        link_style=link_style,
        frontier=frontier,
        start=start,
        limit=limit,
        status=status,
        headers=headers,
    )


def text_page(*, document: Document, fmt: str, start: int = 0, limit: int | None = None) -> Slice:
    """A text body as the page tools return it, decoded, sanitised and sliced."""
    return read_text(sanitize(document.text()), fmt=fmt, start=start, limit=limit)


def wall_signals(*, document: Document, status: int, headers: Mapping[str, str]) -> list[str]:
    """The bot-wall signals of an answer (an error page's: scrape reads no content from it)."""
    return bot_wall(status, headers, document.text() if document.media_type in HTML_TYPES else "")


def plain_text(*, document: Document) -> str:
    """A text body, decoded and sanitised."""
    return sanitize(document.text())


def page_facts(*, document: Document) -> PageMeta:
    """What an HTML page says about itself (download's ``page``)."""
    return page_metadata(parse_html(document.text()), document.url)


@dataclass(frozen=True, slots=True)
class Diagnosis:
    feeds: list[AnnouncedFeed]
    counts: ItemCounts
    signals: list[str]
    """Every sign of a wall seen in the answer: facts, which an ordinary page can carry too."""
    wall: list[str]
    """The signs, when they make the answer the wall (scrape's rule: reading.walled), else empty."""
    sst_stats: TreeBuilt | None = None
    """An HTML page's simplified semantic tree, as built (page_signals.semantic_tree); None for
    anything else."""
    sst: SemanticTree | None = None
    """The tree itself: its node count, whether it is degraded, its candidate segments."""


def diagnosis(*, document: Document, status: int, headers: Mapping[str, str]) -> Diagnosis:
    """A page's announced feeds, item counts, bot-wall signs and whether they make it a wall, from
    one parse (inspect_url)."""
    markup = document.text() if document.media_type in HTML_TYPES else ""
    tree = parse_html(markup) if markup else None
    signals = bot_wall(status, headers, markup)
    wall = list(signals_if_wall(signals, status, markup, document.url))
    if tree is None:
        return Diagnosis([], ItemCounts(), signals, wall)
    groups = item_groups(tree)
    found, counts = feeds(tree, document.url), candidate_items(tree, groups)
    built, sst = semantic_tree(tree, groups, MAX_BLOCK_DEPTH)
    return Diagnosis(found, counts, signals, wall, built, sst)


def page_links(*, document: Document, wanted: LinkFilter) -> Taken:
    """The http(s) links of an HTML page that ``wanted`` takes, absolute, each once (map)."""
    return take(links(parse_html(document.text()), document.url), wanted)


def sitemap(*, body: bytes, max_bytes: int, wanted: LinkFilter | None = None) -> Sitemap:
    """The URLs a sitemap lists; those ``wanted`` takes, when given (an index's sitemaps are all
    kept)."""
    read = read_sitemap(body, max_bytes)
    if wanted is None or read.is_index:
        return read
    return Sitemap(False, tuple(take(read.locations, wanted).links), read.listed)


def page_analysis(
    *, document: Document, status: int, headers: Mapping[str, str], http_document: Document | None
) -> Analysis:
    """A rendered page's analysis (analyze_page), beside its plain-HTTP answer when there is one."""
    from netglean.read.analysis import analysis

    return analysis(
        markup=document.text(),
        url=document.url,
        status=status,
        headers=dict(headers),
        http_markup=http_document.text() if http_document is not None else None,
    )


def dataset_rows(
    *, document: Document, datasets: list[dict[str, Any]]
) -> list[tuple[str, str, dict[str, Any]]]:
    """An extract project's rows on one page: (dataset, key, properties), parents before their
    children."""
    from netglean.read.datasets import extract

    return extract(parse_html(document.text()), document.url, datasets)


def markdown_copy(*, agent: Probe, browser: Probe | None, url: str) -> str | None:
    """The markdown copy of a page a scan asks for (ARS 0.3's rule; it parses the answers)."""
    from netglean.read.readability.page import alternate_target

    return alternate_target(agent, browser, url)


def readability_score(*, evidence: Evidence, table: Mapping[str, Any]) -> dict[str, Any]:
    """A scan's result from its evidence: the pure score, run where a hostile page's parse can be
    cut off."""
    from netglean.read.readability.score import score

    return score(evidence, table)
