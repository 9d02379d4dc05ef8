"""What the tools ask reader processes to do with the bytes they fetched (netglean.workers.pool runs these).

Every job here reads third-party input — decoding, parsing, selectors, extraction, a feed config's
patterns and templates — so every one runs where a call's deadline can end it: a worker process
that is replaced when its caller stops waiting. Jobs take keyword arguments and return plain data
(what pickles), and raise netglean's errors, which reach the caller as they were raised.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from netglean.read.document import Document
from netglean.read.reading import HtmlReading, read_html

__all__ = [
    "Diagnosis",
    "Document",
    "FeedPage",
    "diagnosis",
    "draft_feed",
    "feed_page",
    "listing_items",
    "page_facts",
    "page_links",
    "plain_text",
    "read_page",
    "sitemap",
]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
JSON_TYPES = frozenset({"application/json", "application/feed+json", "text/json"})
_LISTING_TYPES = HTML_TYPES | {"application/xml", "text/xml"}


def read_page(*, document: Document, fmt: str, main_content: bool, frontier: bool) -> HtmlReading:
    """An HTML page as the page tools return it: metadata, links, the content in ``fmt``."""
    return read_html(document.text(), document.url, fmt=fmt, main_content=main_content, frontier=frontier)


def plain_text(*, document: Document) -> str:
    """A text body, decoded and sanitised."""
    from netglean.core.untrusted import sanitize

    return sanitize(document.text())


def page_facts(*, document: Document) -> dict[str, Any]:
    """What an HTML page says about itself (download's ``page``)."""
    from netglean.read.html_tree import parse_html
    from netglean.read.page_meta import page_metadata

    return page_metadata(parse_html(document.text()), document.url)


@dataclass(frozen=True, slots=True)
class Diagnosis:
    feeds: list[dict[str, str]]
    counts: dict[str, int]
    signals: list[str]


def diagnosis(*, document: Document, status: int, headers: Mapping[str, str]) -> Diagnosis:
    """A page's announced feeds, item counts and bot-wall signals, from one parse (inspect_url)."""
    from netglean.read.html_tree import parse_html
    from netglean.read.page_signals import bot_wall, candidate_items, feeds

    markup = document.text() if document.media_type in HTML_TYPES else ""
    tree = parse_html(markup) if markup else None
    found = feeds(tree, document.url) if tree is not None else []
    counts = candidate_items(tree) if tree is not None else {"articles": 0, "repeated_items": 0}
    return Diagnosis(found, counts, bot_wall(status, headers, markup))


def page_links(*, document: Document) -> list[str]:
    """Every http(s) link of an HTML page, absolute (map)."""
    from netglean.read.html_tree import parse_html
    from netglean.read.sitemaps import page_links as links

    return links(parse_html(document.text()), document.url)


def sitemap(*, body: bytes, max_bytes: int) -> Any:
    """The URLs a sitemap lists (netglean.read.sitemaps.Sitemap)."""
    from netglean.read.sitemaps import read_sitemap

    return read_sitemap(body, max_bytes)


def _listing(document: Document) -> tuple[Any, bool]:
    """A listing page parsed: HTML, or JSON as html2rss's markup."""
    from netglean.core.errors import UnsupportedContent
    from netglean.feeds.items import document as parsed

    url, media_type = document.url, document.media_type
    is_json = media_type in JSON_TYPES or media_type.endswith("+json")
    if not is_json and media_type not in _LISTING_TYPES:
        raise UnsupportedContent(f"{url} is {media_type}, not a page with items", detail={"url": url})
    try:
        return parsed(document.text(), is_json=is_json), is_json
    except ValueError as exc:
        raise UnsupportedContent(f"{url} says it is JSON but cannot be read: {exc}", detail={"url": url}) from None


def _title(tree: Any, url: str) -> str | None:
    from netglean.read.page_meta import page_metadata

    title = page_metadata(tree, url).get("title")
    return title if isinstance(title, str) else None


def listing_items(
    *, document: Document, items_selector: str | None, deadline: float
) -> tuple[str | None, list[dict[str, Any]]]:
    """A listing page's title and items, found by ``items_selector`` or by detection (scrape_url)."""
    from netglean.feeds import steps as feed_steps
    from netglean.feeds.auto import auto_items
    from netglean.feeds.items import read_items

    url = document.url
    tree, is_json = _listing(document)
    title = _title(tree, url) if not is_json else None
    if not items_selector:
        return title, auto_items(tree, url)
    config = {
        "channel": {"url": url, "time_zone": "UTC"},
        "selectors": {"items": {"selector": items_selector, "enhance": True}},
    }
    return title, read_items(tree, config, url, is_json, feed_steps.Allowance.for_page(deadline))


def draft_feed(*, document: Document) -> tuple[dict[str, Any], int] | None:
    """A draft feed config for a listing page and how many items it finds, or None (capture_config)."""
    from netglean.core.errors import UnsupportedContent
    from netglean.feeds.auto import draft_config
    from netglean.read.page_meta import page_metadata

    url = document.url
    tree, is_json = _listing(document)
    if is_json:
        raise UnsupportedContent(
            f"{url} is JSON: write its config by hand (items selector like 'array > object')", detail={"url": url}
        )
    metadata = page_metadata(tree, url)
    language = metadata.get("language")
    return draft_config(tree, url, metadata.get("title"), language if isinstance(language, str) else None)


@dataclass(frozen=True, slots=True)
class FeedPage:
    """One page of a feed: its items, its title (when asked for), and the next page's URL ("" for none)."""

    items: list[dict[str, Any]]
    title: str | None
    next_url: str


def feed_page(
    *, document: Document, config: Mapping[str, Any], want_title: bool, deadline: float = math.inf
) -> FeedPage:
    """A checked feed config's items on one page (apply_config); its patterns stop by ``deadline``."""
    from netglean.feeds import steps as feed_steps
    from netglean.feeds.auto import auto_items
    from netglean.feeds.items import read_items

    url = document.url
    tree, is_json = _listing(document)
    title = (_title(tree, url) or url) if want_title and not is_json else None
    selectors = config.get("selectors")
    zone = config["channel"].get("time_zone") or "UTC"
    if selectors:
        items = read_items(tree, config, url, is_json, feed_steps.Allowance.for_page(deadline))
    else:
        items = auto_items(tree, url, config.get("auto_source"), zone)
    pagination = selectors["items"].get("pagination") if selectors else None
    return FeedPage(items, title, _next_page(tree, url, pagination) if pagination is not None else "")


def _next_page(tree: Any, url: str, pagination: Mapping[str, Any]) -> str:
    from urllib.parse import urljoin

    from netglean.feeds.selectors import lexbor_selector

    selector = pagination.get("selector")
    link = tree.css_first(lexbor_selector(selector) if selector else "a[rel~=next], link[rel~=next]")
    href = link.attributes.get("href") if link is not None else None
    return urljoin(url, href) if href else ""
