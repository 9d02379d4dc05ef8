"""What a web page says about itself in its <head>: title, description, language, canonical URL, site, author."""

from __future__ import annotations

from urllib.parse import urljoin

from netglean.untrusted import sanitize


def _clean(value: str | None, limit: int = 500) -> str | None:
    if not value:
        return None
    text = " ".join(sanitize(value).split())
    return text[:limit] or None


def page_metadata(html: str, base_url: str) -> dict[str, str]:
    """The page's own description of itself; keys are present only when the page gives a value."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)

    def meta(*names: str) -> str | None:
        for name in names:
            for attribute in ("name", "property"):
                node = tree.css_first(f'meta[{attribute}="{name}"]')
                if node is not None and node.attributes.get("content"):
                    return node.attributes["content"]
        return None

    title_node = tree.css_first("title")
    canonical = tree.css_first('link[rel="canonical"]')
    html_node = tree.css_first("html")
    found = {
        "title": _clean(meta("og:title") or (title_node.text() if title_node else None)),
        "description": _clean(meta("description", "og:description"), 1000),
        "language": _clean(html_node.attributes.get("lang") if html_node else None, 35),
        "canonical": _clean(urljoin(base_url, canonical.attributes.get("href") or "") if canonical else None, 2048),
        "site_name": _clean(meta("og:site_name")),
        "author": _clean(meta("author", "article:author")),
    }
    return {key: value for key, value in found.items() if value}
