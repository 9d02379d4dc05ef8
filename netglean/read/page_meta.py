"""What a web page says about itself: title, description, language, canonical URL, site, author, dates,
OpenGraph properties and JSON-LD objects. All of it is third-party text: sanitised and bounded."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from netglean.core.untrusted import sanitize
from netglean.read.html_tree import document_base, script_json

JSON_LD = 'script[type="application/ld+json"]'
"""Where a page keeps its JSON-LD."""


def _clean(value: str | None, limit: int = 500) -> str | None:
    if not value:
        return None
    text = " ".join(sanitize(value).split())
    return text[:limit] or None


def page_metadata(tree: Any, page_url: str) -> dict[str, Any]:
    """The page's own description of itself (its canonical URL resolved against its base URL); keys are present
    only when the page gives a value."""
    base_url = document_base(tree, page_url)
    metas: dict[str, str] = {}  # name or property -> the first non-empty content: one pass over the tree
    for node in tree.css("meta"):
        content = node.attributes.get("content")
        if content:
            for attribute in ("name", "property"):
                key = node.attributes.get(attribute)
                if key:
                    metas.setdefault(f"{attribute}={key}", content)

    def meta(*names: str) -> str | None:
        for name in names:
            for attribute in ("name", "property"):
                value = metas.get(f"{attribute}={name}")
                if value:
                    return value
        return None

    time_node = tree.css_first("time[datetime]")
    title_node = tree.css_first("title")
    canonical = tree.css_first('link[rel="canonical"]')
    html_node = tree.css_first("html")
    json_ld = _json_ld(tree)
    found = {
        "title": _clean(meta("og:title") or (title_node.text() if title_node else None)),
        "description": _clean(meta("description", "og:description"), 1000),
        "language": _clean(html_node.attributes.get("lang") if html_node else None, 35),
        "canonical": _clean(urljoin(base_url, canonical.attributes.get("href") or "") if canonical else None, 2048),
        "site_name": _clean(meta("og:site_name")),
        "author": _clean(meta("author", "article:author")),
        "published": _clean(
            meta("article:published_time", "datePublished", "date", "pubdate")
            or next((item["datePublished"] for item in json_ld if isinstance(item.get("datePublished"), str)), None)
            or (time_node.attributes.get("datetime") if time_node else None),
            64,
        ),
        "opengraph": _opengraph(tree),
        "json_ld": json_ld,
    }
    return {key: value for key, value in found.items() if value}


def _opengraph(tree: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in tree.css('meta[property^="og:"]'):
        key = _clean((node.attributes.get("property") or "")[3:1024], 64)
        value = _clean(node.attributes.get("content"), 1000)
        if key and value and key not in found and len(found) < 40:
            found[key] = value
    return found


def _json_ld(tree: Any, limit: int = 10) -> list[dict[str, Any]]:
    """The page's JSON-LD objects (top level and @graph members), at most ``limit``; broken blocks are skipped."""
    found: list[dict[str, Any]] = []
    for data in script_json(tree, JSON_LD, 200_000):
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                graph = item.get("@graph")
                found.extend(g for g in (graph if isinstance(graph, list) else [item]) if isinstance(g, dict))
    return found[:limit]
