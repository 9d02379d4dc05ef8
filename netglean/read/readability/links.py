"""Links a page declares about itself in its HTTP Link header (RFC 8288), as the findings read
them."""

from __future__ import annotations

import re

MAX_LINKS = 200
"""The most links read from one header or one page: a declaration list, never a crawl frontier."""
LINK_HEADER_CHARS = 16_384
"""Characters of a Link header read (a hostile one can be long; real ones name a handful of
links)."""

_LINK = re.compile(r"<([^>]*)>([^<]*)")
_PARAMETER = re.compile(
    r';\s*([A-Za-z0-9!#$%&\'*+.^_`|~-]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*)))?'
)


def header_links(value: str) -> list[dict[str, str]]:
    """The links of a Link header value (RFC 8288), as the head's <link> elements are kept: href as
    written (the caller resolves it), rel and type lower-cased ("" when absent), and any other
    parameter as given."""
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
