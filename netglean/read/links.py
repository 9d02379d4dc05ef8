"""A page's links, and which of them a crawl or a map takes: the site's, those its patterns allow,
once each, and no more than a bound however many the page holds.

This runs in the reader process that parses the page, so a page of 60,000 links costs the server's
event loop the few links taken, never the whole list."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

from netglean.read.html_tree import document_base

LINKS_PER_PAGE = 1_000
"""The most links one page adds to a crawl (its first ones, in document order, that the crawl
wants), and the most of its content's links a page tool lists."""


def page_links(tree: Any, page_url: str) -> list[str]:
    """Every http(s) link of the page at ``page_url``, absolute (against its base URL) and without
    fragment, in document order, once each."""
    base_url = document_base(tree, page_url)
    found: dict[str, None] = {}
    for anchor in tree.css("a[href]"):
        href = (anchor.attributes.get("href") or "").strip()
        if not href or href.lower().startswith(("javascript:", "mailto:", "tel:", "data:")):
            continue
        url = urldefrag(urljoin(base_url, href)).url
        if urlsplit(url).scheme in {"http", "https"}:
            found.setdefault(url, None)
    return list(found)


def same_site(url: str, origin_host: str) -> bool:
    """The URL's host is the start host or one of its subdomains (a leading www. ignored)."""
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    home = origin_host.lower().removeprefix("www.")
    return host == home or host.endswith("." + home)


def normalize_url(url: str) -> str:
    """``url`` without its fragment, scheme and host in lower case, an empty path as /: one spelling
    of it."""
    parts = urlsplit(url)
    return urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, "")
    )


normal = lru_cache(maxsize=65_536)(normalize_url)
"""``normalize_url``, cached: a crawl meets the same links (a site's navigation) on every page, and
spelling them was a tenth of its time. A URL met once (a page's canonical URL) is spelled without
it, so as not to fill the cache."""


@dataclass(frozen=True, slots=True)
class LinkFilter:
    """Which links a crawl (or a map) follows: on the start URL's site (when it stays there),
    matching one of ``include`` (when there are any) and none of ``exclude``, containing ``search``
    (in lower case)."""

    home: str
    """The start URL's host."""
    stay_on_domain: bool = True
    include: tuple[re.Pattern[str], ...] = ()
    exclude: tuple[re.Pattern[str], ...] = ()
    search: str = ""
    most: int = LINKS_PER_PAGE
    """The most links taken from one page (or one sitemap)."""

    def wants(self, url: str) -> bool:
        if self.stay_on_domain and not same_site(url, self.home):
            return False
        if self.search and self.search not in url.lower():
            return False
        if self.include and not any(pattern.match(url) for pattern in self.include):
            return False
        return not any(pattern.match(url) for pattern in self.exclude)


@dataclass(frozen=True, slots=True)
class ContentLink:
    """A link of a page's content: where it goes, and its text."""

    url: str
    text: str


def content_links(found: Iterable[ContentLink]) -> tuple[list[ContentLink], int]:
    """The content's links as a page tool lists them: each URL once (with the last text it had), the
    first LINKS_PER_PAGE of them; and how many more there were."""
    every = list({link.url: link for link in found}.values())
    return every[:LINKS_PER_PAGE], max(0, len(every) - LINKS_PER_PAGE)


@dataclass(frozen=True, slots=True)
class Taken:
    """The links taken from one page: at most the filter's ``most``, and how many more it wanted."""

    links: list[str]
    dropped: int = 0
    of: int = 0
    """Links looked at (every link of the page, or every location of the sitemap)."""


def take(links: Iterable[str], wanted: LinkFilter) -> Taken:
    """The links ``wanted`` follows, each spelled once (``normal``) and once only, in order, up to
    its bound."""
    taken: dict[str, None] = {}
    dropped: set[str] = set()
    of = 0
    for link in links:
        of += 1
        url = normal(link)
        if url in taken or url in dropped or not wanted.wants(url):
            continue
        if len(taken) < wanted.most:
            taken[url] = None
        else:
            dropped.add(url)
    return Taken(list(taken), len(dropped), of)
