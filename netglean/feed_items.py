"""Items from a page by a checked feed config: find each item element, read its fields, post-process them.

Fields are evaluated lazily and once, so a template may name any other field (and `self`)
in any order; a field that names itself through others is an empty value, not a loop.
JSON documents are turned into markup the way html2rss does (objects as <object>, arrays as
<array>, keys as elements), so its selectors such as ``array > object`` work unchanged.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urljoin

from netglean import feed_steps
from netglean.feed_config import RESERVED_SELECTORS
from netglean.feed_steps import Value, text_of
from netglean.html_tree import parse_html
from netglean.untrusted import sanitize

ITEM_FIELDS = ("title", "url", "description", "published_at", "updated", "author", "image", "enclosure")


def json_markup(data: Any) -> str:
    """JSON as markup in html2rss's shape: objects as <object>, arrays as <array>, each key an element.

    Keys become ``<k data-k="key">`` rather than ``<key>``: an HTML parser would otherwise
    rebuild keys that are HTML elements (image, link, source, table, p...). ``json_selector``
    rewrites a config's selectors to match, so ``items > array > object`` works unchanged.
    """
    if isinstance(data, dict):
        inner = "".join(f'<k data-k="{html.escape(str(k))}">{json_markup(v)}</k>' for k, v in data.items())
        return f"<object>{inner}</object>"
    if isinstance(data, list):
        return f"<array>{''.join(json_markup(v) for v in data)}</array>"
    if data is None:
        return ""
    return html.escape(str(data).lower() if isinstance(data, bool) else str(data))


_KEEP_TYPES = frozenset({"object", "array"})
_SELECTOR_PSEUDOS = frozenset({"has", "not", "is", "where"})


def json_selector(selector: str) -> str:
    """A selector written against html2rss's JSON markup, for ``json_markup``'s: type selectors become keys."""
    out: list[str] = []
    i, n = 0, len(selector)
    compound_start = True
    while i < n:
        ch = selector[i]
        if ch in "\"'":
            end = selector.find(ch, i + 1)
            end = n - 1 if end < 0 else end
            out.append(selector[i : end + 1])
            i = end + 1
            compound_start = False
        elif ch == "[":
            end = selector.find("]", i)
            end = n - 1 if end < 0 else end
            out.append(selector[i : end + 1])
            i = end + 1
            compound_start = False
        elif ch == ":":
            match = re.match(r"::?([\w-]+)(\()?", selector[i:])
            if match is None:
                out.append(ch)
                i += 1
                continue
            out.append(match.group(0))
            i += len(match.group(0))
            if match.group(2):  # find the matching parenthesis
                depth, start = 1, i
                while i < n and depth:
                    depth += {"(": 1, ")": -1}.get(selector[i], 0)
                    i += 1
                inner = selector[start : i - 1]
                out.append((json_selector(inner) if match.group(1) in _SELECTOR_PSEUDOS else inner) + ")")
            compound_start = False
        elif ch in " >+~,\t\n":
            out.append(ch)
            i += 1
            compound_start = True
        elif compound_start and (ch.isalpha() or ch in "_-"):
            match = re.match(r"[\w-]+", selector[i:])
            name = match.group(0) if match else ch
            out.append(name if name.lower() in _KEEP_TYPES else f'[data-k="{name}"]')
            i += len(name)
            compound_start = False
        else:
            out.append(ch)
            i += 1
            compound_start = False
    return "".join(out)


def document(body: str, *, is_json: bool) -> Any:
    """The parsed page: HTML as is, JSON through ``json_markup``."""
    if is_json:
        return parse_html(f"<html><body>{json_markup(json.loads(body))}</body></html>")
    return parse_html(body)


@dataclass(frozen=True, slots=True)
class _Field:
    """One field's reading, worked out once per config rather than once per item."""

    selector: str | None
    extractor: str
    attribute: str
    static: str
    steps: tuple[Mapping[str, Any], ...]


def _plan(selectors: Mapping[str, Any]) -> dict[str, _Field]:
    fields: dict[str, _Field] = {}
    for name, spec in selectors.items():
        if name in RESERVED_SELECTORS or not isinstance(spec, Mapping):
            continue
        steps = spec.get("post_process") or []
        steps = steps if isinstance(steps, list) else [steps]
        if spec.get("extractor") == "html" and steps and steps[0]["name"] == "sanitize_html":
            steps = steps[1:]  # the html extractor has just sanitised it: the same step again changes nothing
        fields[name] = _Field(
            spec.get("selector") or None,
            spec.get("extractor", "text"),
            spec.get("attribute", ""),
            str(spec.get("static", "")),
            tuple(steps),
        )
    return fields


class _Item:
    """One item element and its fields, evaluated on first use."""

    def __init__(self, node: Any, fields: Mapping[str, _Field], base_url: str, time_zone: str) -> None:
        self._node = node
        self._fields = fields
        self._base = base_url
        self._zone = time_zone
        self._values: dict[str, Value] = {}
        self._busy: set[str] = set()

    def get(self, name: str) -> Value:
        if name in self._values:
            return self._values[name]
        field = self._fields.get(name)
        if field is None or name in self._busy:
            return None
        self._busy.add(name)
        try:
            value = self._extract(field)
            if field.steps:
                value = feed_steps.apply(
                    list(field.steps), value, base_url=self._base, time_zone=self._zone, lookup=self.get
                )
        finally:
            self._busy.discard(name)
        self._values[name] = value
        return value

    def _extract(self, field: _Field) -> Value:
        extractor = field.extractor
        if extractor == "static":
            return field.static
        if field.selector is None and extractor == "text" and field.steps:
            return None  # a field built by its steps alone (a template)
        node = self._node.css_first(field.selector) if field.selector else self._node
        if node is None:
            return None
        if extractor == "html":  # markup from a page is made safe before anything else sees it, as html2rss does
            return feed_steps.sanitize_html(node.inner_html or "", self._base)
        if extractor == "href":
            attributes = node.attrs
            href = attributes.get("href") or attributes.get("src")
            if href is None and node.tag not in {"a", "link", "area"}:
                link = node.css_first("a[href]")
                href = link.attrs.get("href") if link is not None else None
            return feed_steps.absolute_url(self._base, href) if href else None
        if extractor == "attribute":
            found = node.attrs.get(field.attribute)
            return sanitize(found) if found is not None else None
        return " ".join(sanitize(node.text(deep=True, separator=" ")).split())

    def enhanced(self, name: str) -> Value:
        """What the item's own markup says when the config has no selector for ``name`` (items.enhance)."""
        node = self._node
        if name == "url":
            link = node if node.tag == "a" else node.css_first("a[href]")
            href = link.attributes.get("href") if link is not None else None
            return urljoin(self._base, href) if href else None
        if name == "title":
            heading = node.css_first("h1, h2, h3, h4, h5, h6, [itemprop=headline]") or (
                node if node.tag == "a" else node.css_first("a[href]")
            )
            text = " ".join(sanitize(heading.text(deep=True, separator=" ")).split()) if heading is not None else ""
            return text or None
        if name == "image":
            image = node.css_first("img[src]")
            return urljoin(self._base, image.attributes["src"] or "") if image is not None else None
        if name == "published_at":
            stamp = node.css_first("time[datetime]")
            raw = stamp.attributes.get("datetime") if stamp is not None else None
            return feed_steps.apply(
                [{"name": "parse_time"}], raw, base_url=self._base, time_zone=self._zone, lookup=self.get
            )
        if name == "description":
            paragraph = node.css_first("p")
            text = " ".join(sanitize(paragraph.text(deep=True, separator=" ")).split()) if paragraph is not None else ""
            return text or None
        return None


def strip_code(tree: Any) -> None:
    """Drop scripts, styles and templates: their text is code, never an item's words."""
    for node in tree.css("script, style, noscript, template"):
        node.decompose()


def read_items(tree: Any, config: Mapping[str, Any], base_url: str, is_json: bool = False) -> list[dict[str, Any]]:
    """Every item the config's selectors find in ``tree``, as JSON Feed style dicts (values as strings)."""
    selectors: Mapping[str, Any] = config["selectors"]
    if is_json:
        selectors = {
            name: {**spec, "selector": json_selector(spec["selector"])}
            if isinstance(spec, Mapping) and spec.get("selector")
            else spec
            for name, spec in selectors.items()
        }
    strip_code(tree)
    items_spec = selectors["items"]
    zone = config["channel"].get("time_zone") or "UTC"
    enhance = bool(items_spec.get("enhance", False))
    fields = _plan(selectors)
    nodes = tree.css(items_spec["selector"])
    if items_spec.get("order") == "reverse":
        nodes = list(reversed(nodes))
    found: list[dict[str, Any]] = []
    for node in nodes:
        item = _Item(node, fields, base_url, zone)
        values: dict[str, Value] = {}
        for name in ITEM_FIELDS:
            value = item.get(name) if name in selectors else None
            if value in (None, "") and enhance:
                value = item.enhanced(name)
            if value not in (None, ""):
                values[name] = value
        if "url" not in values and "link" in selectors:
            values["url"] = item.get("link")
        categories = [text_of(item.get(name)) for name in selectors.get("categories") or []]
        guid_parts = [text_of(item.get(name)) for name in selectors.get("guid") or []]
        entry = _entry(values, [c for c in categories if c], guid_parts, selectors.get("enclosure"), base_url)
        if entry is not None:
            found.append(entry)
    return found


def _entry(
    values: dict[str, Value], categories: list[str], guid_parts: list[str], enclosure_spec: Any, base_url: str
) -> dict[str, Any] | None:
    """The JSON Feed 1.1 shaped item, or None when it has neither a title, a URL nor a description.

    URLs (link, image, enclosure) are made absolute against the page, whatever extractor read them."""
    for key in ("url", "image", "enclosure"):
        if isinstance(values.get(key), str):
            values[key] = feed_steps.absolute_url(base_url, str(values[key]))
    title, url, description = (text_of(values.get(k)) or None for k in ("title", "url", "description"))
    if not (title or url or description):
        return None
    entry: dict[str, Any] = {}
    if title:
        entry["title"] = title
    if url:
        entry["url"] = url
    if description:
        entry["description"] = description
    for key in ("published_at", "updated"):
        stamp = values.get(key)
        if isinstance(stamp, datetime):
            entry[key] = stamp.isoformat()
    if values.get("author"):
        entry["author"] = text_of(values["author"])
    if values.get("image"):
        entry["image"] = text_of(values["image"])
    if categories:
        entry["categories"] = list(dict.fromkeys(categories))
    identity = "\x00".join(guid_parts) if any(guid_parts) else (url or title or description or "")
    entry["id"] = item_id(identity)
    if values.get("enclosure"):
        content_type = (enclosure_spec or {}).get("content_type") if isinstance(enclosure_spec, Mapping) else None
        entry["enclosure"] = {
            "url": text_of(values["enclosure"]),
            "type": content_type or _guess_type(text_of(values["enclosure"])),
        }
    return entry


def item_id(identity: str) -> str:
    """A feed item's stable id: the same identity (guid fields, else the URL) always gives the same id."""
    return hashlib.sha256(identity.encode()).hexdigest()[:20]


def _guess_type(url: str) -> str:
    import mimetypes

    return mimetypes.guess_type(url.split("?", 1)[0])[0] or "application/octet-stream"
