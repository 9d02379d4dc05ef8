"""What a listing item's own markup says its fields are, read for all items of a page at once
(items.enhance, auto_source's HTML items)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from netglean.core.untrusted import sanitize
from netglean.feeds import steps as feed_steps
from netglean.feeds.steps import Value

AUTHOR = "[rel~=author], [itemprop=author], .author"
"""The element that holds an item's author's name alone."""
BYLINE = f"{AUTHOR}, .byline"
"""An item's byline: its author's name (with a date, a "By"), never part of its summary."""
TAGS = (
    "a[rel~=tag], a[rel~=category], .tags a, .categories a, [itemprop=keywords], .tags li, "
    ".categories li"
)
"""An item's categories: tag and category links, keyword lists."""
MAX_CATEGORIES = 10
_HINTS = {
    "link": "a[href]",
    "heading": "h1, h2, h3, h4, h5, h6, [itemprop=headline]",
    "paragraph": f"p:not({BYLINE})",
    "time": "time[datetime]",
    "image": "img[src]",
    "author": AUTHOR,
    "byline": BYLINE,
}


class MarkupHints:
    """What items' own markup says their fields are, as written: the title is an item's first
    heading's text (else its link's), the url its link, the description its first paragraph that is
    no byline, published_at its first time[datetime], the image its first img[src], the author the
    element of its name (else its byline), the categories its tag links or tag list. Read by
    items.enhance and by auto_source's HTML items.

    Each kind of element is found once over the whole tree, each item's first one by one climb from
    every match, and each element's text is read once: items nested in one another (8,000 nested
    <article>s) cost what items side by side do, where a query per item read every item below it."""

    def __init__(self, tree: Any) -> None:
        self._tree = tree
        self._first: dict[str, dict[int, Any]] = {}
        self._tags: dict[int, list[Any]] | None = None
        self._texts: dict[int, str] = {}

    def hint(self, node: Any, name: str) -> str | None:
        if name in {"url", "title"}:
            link = node if node.tag == "a" else self._inside(node, "link")
            if name == "url":
                return link.attributes.get("href") if link is not None else None
            heading = self._inside(node, "heading") or link
            return self._text(heading) if heading is not None else None
        if name in {"description", "author"}:
            found = self._inside(node, "paragraph") if name == "description" else self._author(node)
            return self._text(found) if found is not None else None
        found = self._inside(node, "time" if name == "published_at" else "image")
        return (
            found.attributes.get("datetime" if name == "published_at" else "src")
            if found is not None
            else None
        )

    def categories(self, node: Any) -> list[str]:
        """The texts of the item's tag links, at most MAX_CATEGORIES, each once."""
        if self._tags is None:
            self._tags = {}
            for match in self._tree.css(TAGS):
                above = match.parent
                # An ancestor that holds MAX_CATEGORIES already has those of every item above it
                # too: stop there.
                while (
                    above is not None
                    and len(self._tags.setdefault(above.mem_id, [])) < MAX_CATEGORIES
                ):
                    self._tags[above.mem_id].append(match)
                    above = above.parent
        texts = (
            " ".join(sanitize(self._text(tag)).split()) for tag in self._tags.get(node.mem_id, [])
        )
        return list(dict.fromkeys(text[:100] for text in texts if text))

    def _author(self, node: Any) -> Any | None:
        """The element naming the item's author alone, else its whole byline."""
        return self._inside(node, "author") or self._inside(node, "byline")

    def _inside(self, node: Any, kind: str) -> Any | None:
        """The first element of ``kind`` below ``node``, in document order (``node`` itself is not
        below it)."""
        firsts = self._first.get(kind)
        if firsts is None:
            firsts = self._first[kind] = {}
            # document order: the first match to reach a node is its first
            for match in self._tree.css(_HINTS[kind]):
                above = match.parent
                while above is not None and above.mem_id not in firsts:
                    firsts[above.mem_id] = match
                    above = above.parent
        return firsts.get(node.mem_id)

    def _text(self, node: Any) -> str:
        text = self._texts.get(node.mem_id)
        if text is None:
            text = self._texts[node.mem_id] = node.text(deep=True, separator=" ")
        return text


def infer_from_markup(hints: MarkupHints, node: Any, name: str, base_url: str, zone: str) -> Value:
    """What the item's own markup says when the config has no value for ``name`` (items.enhance)."""
    hint = hints.hint(node, name)
    if not hint:
        return None
    if name in {"url", "image"}:
        return urljoin(base_url, hint.strip())
    if name == "published_at":
        return feed_steps.parse_time(hint, zone)
    return " ".join(sanitize(hint).split()) or None
