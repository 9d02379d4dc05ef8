"""Feeds out: RSS 2.0 that feed readers accept, and JSON Feed 1.1.

RSS dates are RFC 822 in the channel's time zone; GUIDs are stable (isPermaLink=false);
every URL is absolute; text is escaped by the XML writer, never by hand. Output is
deterministic: no build time, so the same page gives the same bytes.
"""

from __future__ import annotations

import email.utils
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from xml.etree import ElementTree
from zoneinfo import ZoneInfo

import netglean

_DC = "http://purl.org/dc/elements/1.1/"


def rss(
    channel: Mapping[str, Any], items: Sequence[Mapping[str, Any]], stylesheets: Sequence[Mapping[str, str]] = ()
) -> str:
    ElementTree.register_namespace("dc", _DC)
    zone = ZoneInfo(channel.get("time_zone") or "UTC")
    root = ElementTree.Element("rss", {"version": "2.0"})
    head = ElementTree.SubElement(root, "channel")
    _text(head, "title", channel.get("title") or channel["url"])
    _text(head, "link", channel["url"])
    _text(head, "description", channel.get("description") or f"Items from {channel['url']}")
    for key in ("language", "ttl"):
        if channel.get(key) not in (None, ""):
            _text(head, key, str(channel[key]))
    _text(head, "generator", f"netglean {netglean.__version__}")
    if channel.get("image"):
        image = ElementTree.SubElement(head, "image")
        for key, value in (("url", channel["image"]), ("title", channel.get("title") or channel["url"])):
            _text(image, key, value)
        _text(image, "link", channel["url"])
    for item in items:
        node = ElementTree.SubElement(head, "item")
        if item.get("title"):
            _text(node, "title", item["title"])
        if item.get("url"):
            _text(node, "link", item["url"])
        if item.get("description"):
            _text(node, "description", item["description"])
        if item.get("author"):
            _text(node, f"{{{_DC}}}creator", item["author"])
        for category in item.get("categories", []):
            _text(node, "category", category)
        if item.get("published_at"):
            stamp = datetime.fromisoformat(item["published_at"]).astimezone(zone)
            _text(node, "pubDate", email.utils.format_datetime(stamp))
        _text(node, "guid", item["id"]).set("isPermaLink", "false")
        if item.get("enclosure"):
            enclosure = item["enclosure"]
            length = str(enclosure.get("length", 0))
            ElementTree.SubElement(
                node, "enclosure", {"url": enclosure["url"], "type": enclosure["type"], "length": length}
            )
    ElementTree.indent(root)
    styles = "".join(
        f"<?xml-stylesheet {_pseudo_attributes(sheet)}?>\n" for sheet in stylesheets if sheet.get("href")
    )  # how a browser shows the feed (the config's stylesheets)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{styles}' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _pseudo_attributes(sheet: Mapping[str, str]) -> str:
    from xml.sax.saxutils import quoteattr

    return " ".join(
        f"{key}={quoteattr(_xml_safe(sheet[key]).replace('?>', '?&gt;'))}"
        for key in ("href", "type", "media")
        if sheet.get(key)
    )


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
    for ours, theirs in (("url", "url"), ("title", "title"), ("image", "image"), ("published_at", "date_published")):
        if item.get(ours):
            entry[theirs] = item[ours]
    if item.get("updated"):
        entry["date_modified"] = item["updated"]
    entry["content_html" if "<" in item.get("description", "") else "content_text"] = item.get("description", "")
    if item.get("author"):
        entry["authors"] = [{"name": item["author"]}]
    if item.get("categories"):
        entry["tags"] = list(item["categories"])
    if item.get("enclosure"):
        entry["attachments"] = [{"url": item["enclosure"]["url"], "mime_type": item["enclosure"]["type"]}]
    return entry


def _text(parent: ElementTree.Element, tag: str, text: str) -> ElementTree.Element:
    node = ElementTree.SubElement(parent, tag)
    node.text = _xml_safe(text)
    return node


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold most control characters even escaped: drop them."""
    return "".join(ch for ch in text if ch in "\t\n\r" or ch >= " ") if not text.isprintable() else text
