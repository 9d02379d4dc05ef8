"""Links a page declares about itself: the HTTP Link header (RFC 8288) and the <link> elements of its head."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from netglean.read.document import MARKDOWN_TYPES
from netglean.read.html_tree import document_base, parse_html

MAX_LINKS = 200
"""The most links read from one header or one page: a declaration list, never a crawl frontier."""
LINK_HEADER_CHARS = 16_384
"""Characters of a Link header read (a hostile one can be long; real ones name a handful of links)."""

_LINK = re.compile(r"<([^>]*)>([^<]*)")
_PARAMETER = re.compile(r';\s*([A-Za-z0-9!#$%&\'*+.^_`|~-]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*)))?')


def header_links(value: str) -> list[dict[str, str]]:
    """The links of a Link header value (RFC 8288), as the head's <link> elements are kept: href as written (the
    caller resolves it), rel and type lower-cased ("" when absent), and any other parameter as given."""
    found: list[dict[str, str]] = []
    for entry in _LINK.finditer(value[:LINK_HEADER_CHARS]):
        link = {"href": entry.group(1).strip(), "rel": "", "type": ""}
        given: set[str] = set()
        for name, quoted, bare in _PARAMETER.findall(entry.group(2)):
            key = name.lower()
            if key in given:
                continue  # RFC 8288: a parameter given twice counts once, the first
            given.add(key)
            text = re.sub(r"\\(.)", r"\1", quoted) if quoted else bare
            link[key] = text.lower() if key in {"rel", "type"} else text
        found.append(link)
        if len(found) == MAX_LINKS:
            break
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
