"""What the feed tools ask reader processes to do with a listing page's bytes (netglean.workers runs
them).

Parsing a listing, running a config's selectors, patterns and templates over it, detecting items and
drafting configs all read third-party input with work a config can make large, so each runs where a
call's deadline can end it. Jobs take keyword arguments, return plain data, and raise netglean's
errors.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from netglean.core.errors import UnsupportedContent
from netglean.feeds.auto import Scraper, auto_items, auto_source_config, draft_config, hinted_config
from netglean.feeds.items import document as parsed
from netglean.feeds.items import read_items
from netglean.feeds.output import unique
from netglean.feeds.selectors import lexbor_selector
from netglean.read.document import HTML_TYPES, Document
from netglean.read.html_tree import document_base
from netglean.read.page_meta import page_metadata
from netglean.read.patterns import Allowance

__all__ = ["Draft", "Drops", "FeedPage", "Listed", "draft_feed", "feed_page", "listing_items"]
"""The jobs, and what they return: all a reader process will run from this module."""

JSON_TYPES = frozenset({"application/json", "application/feed+json", "text/json"})
_LISTING_TYPES = HTML_TYPES | {"application/xml", "text/xml"}


def _listing(document: Document) -> tuple[Any, bool]:
    """A listing page parsed: HTML, or JSON as html2rss's markup."""
    url, media_type = document.url, document.media_type
    is_json = media_type in JSON_TYPES or media_type.endswith("+json")
    if not is_json and media_type not in _LISTING_TYPES:
        raise UnsupportedContent(
            f"{url} is {media_type}, not a page with items", detail={"url": url}
        )
    try:
        return parsed(document.text(), is_json=is_json), is_json
    except ValueError as exc:
        raise UnsupportedContent(
            f"{url} says it is JSON but cannot be read: {exc}", detail={"url": url}
        ) from None


def _title(tree: Any, url: str) -> str | None:
    return page_metadata(tree, url).title


@dataclass(frozen=True, slots=True)
class Drops:
    """Candidate items left out, by why (the reasons catalog/schemas/AdmissionDrops.yaml names)."""

    duplicate: int = 0
    empty: int = 0
    no_link: int = 0
    no_title: int = 0
    other_site: int = 0
    same_page: int = 0
    short_title: int = 0

    @classmethod
    def counted(cls, drops: Counter[str]) -> Drops:
        """The reasons the engine counted under their names (auto._cleanup, items.read_items)."""
        return cls(
            duplicate=drops["duplicate"],
            empty=drops["empty"],
            no_link=drops["no_link"],
            no_title=drops["no_title"],
            other_site=drops["other_site"],
            same_page=drops["same_page"],
            short_title=drops["short_title"],
        )

    @property
    def total(self) -> int:
        return (
            self.duplicate
            + self.empty
            + self.no_link
            + self.no_title
            + self.other_site
            + self.same_page
            + self.short_title
        )


@dataclass(frozen=True, slots=True)
class Listed:
    """A listing page's title, its items, and how many candidate items were left out, by why (the
    reasons catalog/schemas/AdmissionDrops.yaml names)."""

    title: str | None
    items: list[dict[str, Any]]
    drops: Drops
    scrapers: tuple[Scraper, ...] = ()
    """The detectors that found candidate items (without a selector; html2rss's scraper
    eligibility)."""


def listing_items(*, document: Document, items_selector: str | None, deadline: float) -> Listed:
    """A listing page's title and items, found by ``items_selector`` or by detection (scrape_url,
    inspect_url)."""
    url = document.url
    tree, is_json = _listing(document)
    title = _title(tree, url) if not is_json else None
    drops: Counter[str] = Counter()
    if not items_selector:
        found_by: list[Scraper] = []
        return Listed(
            title,
            auto_items(tree, url, drops=drops, found_by=found_by),
            Drops.counted(drops),
            tuple(found_by),
        )
    config = {
        "channel": {"url": url, "time_zone": "UTC"},
        "selectors": {"items": {"selector": items_selector, "enhance": True}},
    }
    items = read_items(tree, config, url, is_json, Allowance.for_page(deadline), drops=drops)
    return Listed(title, items, Drops.counted(drops))


@dataclass(frozen=True, slots=True)
class Draft:
    """A draft feed config, the items it finds on its page, and the candidates left out and why."""

    config: dict[str, Any]
    articles_count: int
    drops: Drops


def draft_feed(
    *, document: Document, items_selector: str | None = None, deadline: float = math.inf
) -> Draft:
    """A draft feed config for a listing page (capture_config): its items selector
    ``items_selector`` when given, else the page's repeated structure, else detection (auto_source)
    for a page without one; counted by running it over the page, as apply_config would."""
    url = document.url
    tree, is_json = _listing(document)
    if is_json:
        raise UnsupportedContent(
            f"{url} is JSON: write its config by hand (items selector like 'array > object')",
            detail={"url": url},
        )
    metadata = page_metadata(tree, url)
    title, language = metadata.title, metadata.language
    if items_selector:
        config = hinted_config(tree, url, items_selector, title, language)
    else:
        drafted = draft_config(tree, url, title, language)
        config = drafted[0] if drafted is not None else auto_source_config(url, title, language)
    drops: Counter[str] = Counter()
    if "selectors" in config:
        found = read_items(tree, config, url, allowance=Allowance.for_page(deadline), drops=drops)
        count = len(unique(found))  # as apply_config keeps them: each id once
        drops["duplicate"] += len(found) - count
    else:
        count = len(auto_items(tree, url, config["auto_source"], drops=drops))
    return Draft(config, count, Drops.counted(drops))


@dataclass(frozen=True, slots=True)
class FeedPage:
    """One page of a feed: its items, its title (when asked for), the next page's URL ("" for none),
    and how many elements its items selector found (0 when detection read the page), items or
    not."""

    items: list[dict[str, Any]]
    title: str | None
    next_url: str
    matched: int = 0


def feed_page(
    *, document: Document, config: Mapping[str, Any], want_title: bool, deadline: float = math.inf
) -> FeedPage:
    """A checked feed config's items on one page (apply_config); its patterns stop by
    ``deadline``."""
    url = document.url
    tree, is_json = _listing(document)
    title = (_title(tree, url) or url) if want_title and not is_json else None
    selectors = config.get("selectors")
    zone = config["channel"].get("time_zone") or "UTC"
    drops: Counter[str] = Counter()
    if selectors:
        items = read_items(tree, config, url, is_json, Allowance.for_page(deadline), drops=drops)
    else:
        items = auto_items(tree, url, config.get("auto_source"), zone)
    pagination = selectors["items"].get("pagination") if selectors else None
    next_url = _next_page(tree, url, pagination) if pagination is not None else ""
    return FeedPage(items, title, next_url, len(items) + drops["empty"] if selectors else 0)


def _next_page(tree: Any, url: str, pagination: Mapping[str, Any]) -> str:
    from urllib.parse import urljoin

    selector = pagination.get("selector")
    link = tree.css_first(
        lexbor_selector(selector) if selector else "a[rel~=next], link[rel~=next]"
    )
    href = link.attributes.get("href") if link is not None else None
    return urljoin(document_base(tree, url), href) if href else ""
