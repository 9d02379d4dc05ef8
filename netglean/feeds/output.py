"""Feeds out: RSS 2.0 that feed readers accept, and JSON Feed 1.1.

RSS dates are RFC 822 in the channel's time zone; GUIDs are stable (isPermaLink=false);
every URL is absolute; every text and attribute is escaped (&, <, > in text; attributes by
saxutils.quoteattr) and the document stripped of the characters XML 1.0 cannot hold. Output
is deterministic: no build time, so the same page gives the same bytes.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import quoteattr
from zoneinfo import ZoneInfo

from netglean._version import __version__
from netglean.feeds.steps import rfc822

_DC = "http://purl.org/dc/elements/1.1/"
_MEDIA = "http://search.yahoo.com/mrss/"
"""Media RSS: an item's image as media:content, which RSS 2.0 itself has no element for (JSON Feed's
image)."""
MAX_FEED_CHARS = 10_000_000
"""Most characters of item text one feed carries (titles, descriptions, URLs... of all its items
together): each value is capped, but items times fields times characters must be too, or a feed
could be gigabytes."""
_ITEM_TEXT = (
    ("title", "title"),
    ("url", "link"),
    ("description", "description"),
    ("author", "dc:creator"),
)


def rss(
    channel: Mapping[str, Any],
    items: Sequence[Mapping[str, Any]],
    stylesheets: Sequence[Mapping[str, str]] = (),
) -> str:
    """The RSS document, written element by element; every text and attribute is escaped."""
    zone = ZoneInfo(channel.get("time_zone") or "UTC")
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    out += [
        f"<?xml-stylesheet {_pseudo_attributes(sheet)}?>\n"
        for sheet in stylesheets
        if sheet.get("href")
    ]
    media = f' xmlns:media="{_MEDIA}"' if any(item.get("image") for item in items) else ""
    out.append(f'<rss version="2.0" xmlns:dc="{_DC}"{media}>\n  <channel>\n')
    title = channel.get("title") or channel["url"]
    out.append(_element("title", title, 4) + _element("link", channel["url"], 4))
    out.append(
        _element("description", channel.get("description") or f"Items from {channel['url']}", 4)
    )
    for key in ("language", "ttl"):
        if channel.get(key) not in (None, ""):
            out.append(_element(key, str(channel[key]), 4))
    out.append(_element("generator", f"netglean {__version__}", 4))
    if channel.get("image"):
        parts = (
            _element("url", channel["image"], 6)
            + _element("title", title, 6)
            + _element("link", channel["url"], 6)
        )
        out.append(f"    <image>\n{parts}    </image>\n")
    for item in items:
        out.append("    <item>\n")
        for key, tag in _ITEM_TEXT:
            if text := item.get(key):
                out.append(f"      <{tag}>{_escape(text)}</{tag}>\n")
        out += [
            f"      <category>{_escape(category)}</category>\n"
            for category in item.get("categories", ())
        ]
        if item.get("published_at"):
            stamp = datetime.fromisoformat(item["published_at"]).astimezone(zone)
            out.append(f"      <pubDate>{rfc822(stamp)}</pubDate>\n")
        out.append(f'      <guid isPermaLink="false">{_escape(item["id"])}</guid>\n')
        enclosure = item.get("enclosure") or _image_enclosure(item.get("image"))
        if enclosure:
            attributes = {
                "url": enclosure["url"],
                "type": enclosure["type"],
                "length": str(enclosure.get("length", 0)),
            }
            pairs = " ".join(f"{name}={quoteattr(value)}" for name, value in attributes.items())
            out.append(f"      <enclosure {pairs}/>\n")
        if item.get("image"):
            out.append(f'      <media:content url={quoteattr(item["image"])} medium="image"/>\n')
        out.append("    </item>\n")
    out.append("  </channel>\n</rss>\n")
    # the writer's own markup holds no such character: one pass covers every value
    return _xml_safe("".join(out))


def _image_enclosure(image: str | None) -> dict[str, str] | None:
    """An item's image as its enclosure, when it has none of its own and the image's type shows in
    its path (an enclosure must name its type): what feed readers without Media RSS show."""
    if not image:
        return None
    kind, _ = mimetypes.guess_type(urlsplit(image).path)
    return {"url": image, "type": kind} if kind and kind.startswith("image/") else None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _element(tag: str, text: str, indent: int) -> str:
    return f"{' ' * indent}<{tag}>{_escape(text)}</{tag}>\n"


def _pseudo_attributes(sheet: Mapping[str, str]) -> str:
    """quoteattr writes > as &gt;, so no value can end the processing instruction (once what XML
    cannot hold, which the whole document later loses, is gone: a value's "?\x01>" must not become
    "?>")."""
    return " ".join(
        f"{key}={quoteattr(_xml_safe(sheet[key]))}"
        for key in ("href", "type", "media")
        if sheet.get(key)
    )


def unique(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The items, each id once (the first), in order: pages of a paged listing overlap."""
    seen: set[str] = set()
    kept = []
    for item in items:
        if item["id"] not in seen:
            seen.add(item["id"])
            kept.append(item)
    return kept


def within_output_cap(items: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The items, in order, while their text stays within MAX_FEED_CHARS, and how many were left
    out."""
    room = MAX_FEED_CHARS
    for n, item in enumerate(items):
        room -= sum(len(value) for value in item.values() if isinstance(value, str))
        room -= sum(len(value) for value in item.get("categories", ()))
        if room < 0:
            return list(items[:n]), len(items) - n
    return list(items), 0


def count_items(xml: str) -> int:
    """Items in a rendered RSS document, counted from the document itself.

    Counting the tag is exact: text holding "<item>" is escaped as "&lt;item>" by the writer."""
    return xml.count("<item>")


def json_feed(channel: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    feed: dict[str, Any] = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": channel.get("title") or channel["url"],
        "home_page_url": channel["url"],
    }
    if channel.get("description"):
        feed["description"] = channel["description"]
    if channel.get("language"):
        feed["language"] = channel["language"]
    feed["items"] = [_json_item(item) for item in items]
    return feed


def _json_item(item: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": item["id"]}
    for ours, theirs in (
        ("url", "url"),
        ("title", "title"),
        ("image", "image"),
        ("published_at", "date_published"),
    ):
        if item.get(ours):
            entry[theirs] = item[ours]
    if item.get("updated"):
        entry["date_modified"] = item["updated"]
    entry["content_html" if "<" in item.get("description", "") else "content_text"] = item.get(
        "description", ""
    )
    if item.get("author"):
        entry["authors"] = [{"name": item["author"]}]
    if item.get("categories"):
        entry["tags"] = list(item["categories"])
    if item.get("enclosure"):
        entry["attachments"] = [
            {"url": item["enclosure"]["url"], "mime_type": item["enclosure"]["type"]}
        ]
    return entry


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold control characters, lone surrogates or U+FFFE/FFFF even escaped: drop
    them."""
    return _NOT_XML.sub("", text)
