"""Links a page declares about itself: the HTTP Link header (RFC 8288) and the <link> elements of its head."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from netglean.read.html_tree import document_base, parse_html

MAX_LINKS = 200
"""The most links read from one header or one page: a declaration list, never a crawl frontier."""

_LINK_VALUE = re.compile(r"\s*<([^>]*)>\s*((?:;\s*[^;,]*)*)")
_PARAMETER = re.compile(r';\s*([A-Za-z0-9!#$%&\'*+.^_`|~-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?')
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})


def header_links(value: str, base: str) -> list[dict[str, str]]:
    """The links of a Link header value: href (resolved against ``base``), rel (lower case, space separated) and
    type, when given. A value that is not a link list gives what was read before it stopped parsing."""
    found: list[dict[str, str]] = []
    position = 0
    while position < len(value) and len(found) < MAX_LINKS:
        match = _LINK_VALUE.match(value, position)
        if match is None:
            break
        link = {"href": urljoin(base, match.group(1).strip())}
        for name, raw in _PARAMETER.findall(match.group(2)):
            text = raw.strip()
            if text.startswith('"'):
                text = re.sub(r"\\(.)", r"\1", text[1:-1])
            link.setdefault(name.lower(), text.lower() if name.lower() in {"rel", "type"} else text)
        found.append(link)
        position = match.end()
        comma = value.find(",", position)
        if comma < 0:
            break
        position = comma + 1
    return found


def head_links(markup: str, url: str) -> list[dict[str, str]]:
    """The <link href> elements of a page (rel and type lower-cased), resolved against its base."""
    tree = parse_html(markup)
    base = document_base(tree, url)
    found = []
    for node in tree.css("link[href]")[:MAX_LINKS]:
        attributes: dict[str, Any] = node.attributes
        link = {"href": urljoin(base, (attributes.get("href") or "").strip())}
        for name in ("rel", "type", "hreflang", "title"):
            if attributes.get(name):
                link[name] = str(attributes[name]).strip().lower() if name in {"rel", "type"} else attributes[name]
        found.append(link)
    return found


def rels(link: dict[str, str]) -> set[str]:
    return set(link.get("rel", "").split())


def markdown_alternates(links: list[dict[str, str]]) -> list[str]:
    """The http(s) targets of the alternate links typed as markdown, in order, once each."""
    hrefs = (
        link["href"]
        for link in links
        if "alternate" in rels(link) and link.get("type", "").split(";")[0].strip() in MARKDOWN_TYPES
    )
    return list(dict.fromkeys(href for href in hrefs if urlsplit(href).scheme in {"http", "https"}))
