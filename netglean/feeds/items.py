"""Items from a page by a checked feed config: find each item element, read its fields, post-process
them.

Fields are evaluated lazily and once, so a template may name any other field (and `self`)
in any order; a field that names itself through others is an empty value, not a loop.
JSON documents are turned into markup the way html2rss does (objects as <object>, arrays as
<array>, keys as elements), so its selectors such as ``array > object`` work unchanged.
"""

from __future__ import annotations

import hashlib
import html
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from netglean.core.untrusted import sanitize
from netglean.feeds import steps as feed_steps
from netglean.feeds.config import RESERVED_SELECTORS
from netglean.feeds.hints import MarkupHints, infer_from_markup
from netglean.feeds.selectors import lexbor_selector
from netglean.feeds.steps import Value, text_of
from netglean.read.html_tree import document_base, page_json, parse_html
from netglean.read.patterns import MAX_VALUE_CHARS, Allowance

ITEM_FIELDS = (
    "title",
    "url",
    "description",
    "published_at",
    "updated",
    "author",
    "image",
    "enclosure",
)
ENHANCED_FIELDS = ("title", "url", "description", "published_at", "image")
"""What ``items.enhance`` reads from an item's own markup when the config has no value for it."""


def json_markup(data: Any) -> str:
    """JSON as markup in html2rss's shape: objects as <object>, arrays as <array>, each key an
    element.

    Keys become ``<k data-k="key">`` rather than ``<key>``: an HTML parser would otherwise
    rebuild keys that are HTML elements (image, link, source, table, p...). feed_selectors
    rewrites a config's selectors to match, so ``items > array > object`` works unchanged.
    """
    if isinstance(data, dict):
        inner = "".join(
            f'<k data-k="{html.escape(str(k))}">{json_markup(v)}</k>' for k, v in data.items()
        )
        return f"<object>{inner}</object>"
    if isinstance(data, list):
        return f"<array>{''.join(json_markup(v) for v in data)}</array>"
    if data is None:
        return ""
    return html.escape(str(data).lower() if isinstance(data, bool) else str(data))


def document(body: str, *, is_json: bool) -> Any:
    """The parsed page: HTML as is, JSON through ``json_markup`` (ValueError when the JSON cannot be
    read)."""
    if is_json:
        return parse_html(f"<html><body>{json_markup(page_json(body))}</body></html>")
    return parse_html(body)


@dataclass(frozen=True, slots=True)
class _Field:
    """One field's reading, worked out once per config rather than once per item."""

    selector: str | None
    extractor: str
    attribute: str
    static: str
    steps: tuple[Mapping[str, Any], ...]


def _plan(selectors: Mapping[str, Any], items: str, is_json: bool) -> dict[str, _Field]:
    """Each field's reading; selectors in lexbor's CSS, read from the items (``items``, already
    rewritten)."""
    fields: dict[str, _Field] = {}
    for name, spec in selectors.items():
        if name in RESERVED_SELECTORS or not isinstance(spec, Mapping):
            continue
        steps = spec.get("post_process") or []
        steps = steps if isinstance(steps, list) else [steps]
        if spec.get("extractor") == "html" and steps and steps[0]["name"] == "sanitize_html":
            # the html extractor has just sanitised it: the same step again changes nothing
            steps = steps[1:]
        selector = spec.get("selector") or None
        fields[name] = _Field(
            lexbor_selector(selector, scope=items, json_keys=is_json) if selector else None,
            spec.get("extractor", "text"),
            spec.get("attribute", ""),
            str(spec.get("static", "")),
            tuple(steps),
        )
    return fields


class _Columns:
    """Every field's values for every item, a field at a time, each field evaluated on first use.

    A field's selector runs once over the whole page, read inside the items, and each match goes to
    the item holding it: a query per item would parse the selector again for every item and field.
    Taking a column at a time keeps the lazy semantics: templates may name any field in any order,
    and a field that names itself through others is an empty value, not a loop.
    """

    def __init__(
        self,
        tree: Any,
        nodes: list[Any],
        fields: Mapping[str, _Field],
        *,
        items: str,
        nested: bool,
        base_url: str,
        zone: str,
        allowance: Allowance,
    ) -> None:
        self._tree = tree
        self._allowance = allowance
        self._items = items
        self._nodes = nodes
        self._nested = nested
        self._fields = fields
        self._base = base_url
        self._zone = zone
        self._values: dict[str, list[Value]] = {}
        self._busy: set[str] = set()
        self._positions = {node.mem_id: n for n, node in enumerate(nodes)}
        self._found: dict[str, list[list[Any]]] = {}

    def column(self, name: str) -> list[Value] | None:
        """``name``'s value for every item; None for a field the config does not have (or one being
        worked out)."""
        if name in self._values:
            return self._values[name]
        field = self._fields.get(name)
        if field is None or name in self._busy:
            return None
        self._busy.add(name)
        try:
            values = self._processed(field, self._extract(field), self.column)
        finally:
            self._busy.discard(name)
        self._values[name] = values
        return values

    def each(self, name: str) -> list[list[str]]:
        """``name``'s values as categories, a list for every item: a field whose selector finds
        several elements in an item gives one category for each (html2rss's multi-node categories),
        read and post-processed element by element; other fields give their item value."""
        column = self.column(name)
        if column is None:
            return [[] for _ in self._nodes]
        singles = [[text] if (text := text_of(value)) else [] for value in column]
        field = self._fields[name]
        if (
            field.selector is None
            or field.extractor == "static"
            or any(s["name"] == "template" for s in field.steps)
        ):
            return singles  # a template reads the other fields item by item: one value an item
        found = self._select_every(field.selector)
        several = [n for n, nodes in enumerate(found) if len(nodes) > 1]
        if not several:
            return singles
        read = self._allowance.take(
            self._read(field, [[node] for n in several for node in found[n]])
        )
        values = self._processed(field, read, lambda _: None)
        texts = iter(text_of(value) for value in values)
        for n in several:
            singles[n] = [text for text in (next(texts) for _ in found[n]) if text]
        return singles

    def _processed(
        self, field: _Field, values: list[Value], columns: feed_steps.Columns
    ) -> list[Value]:
        if not field.steps:
            return values
        return feed_steps.apply_column(
            list(field.steps),
            values,
            base_url=self._base,
            time_zone=self._zone,
            columns=columns,
            allowance=self._allowance,
        )

    def _extract(self, field: _Field) -> list[Value]:
        count = len(self._nodes)
        if field.extractor == "static":
            return [field.static] * count
        if field.selector is None and field.extractor == "text" and field.steps:
            return [None] * count  # a field built by its steps alone (a template)
        found = (
            self._select_every(field.selector)
            if field.selector
            else [[node] for node in self._nodes]
        )
        return self._allowance.take(self._read(field, found))

    def _read(self, field: _Field, found: list[list[Any]]) -> list[Value]:
        """What ``field``'s extractor takes from each list of elements, as html2rss reads a node
        set: text and html from every element (texts joined by a space, outer HTML), attributes and
        hrefs from the first."""
        extractor = field.extractor
        if extractor in {"href", "attribute"}:
            firsts = [nodes[0] if nodes else None for nodes in found]
            if extractor == "href":
                return [None if n is None else _href(n, self._base) for n in firsts]
            return _sanitize_all(
                [None if n is None else n.attrs.get(field.attribute) for n in firsts]
            )
        # markup from a page is made safe before anything else sees it, as html2rss does
        if extractor == "html":
            markup = [
                nodes[0].html if len(nodes) == 1 else _join_capped(n.html or "" for n in nodes)
                for nodes in found
            ]
            return [feed_steps.sanitize_html(html, self._base) if html else None for html in markup]
        texts = [  # one node, the usual case, without a generator
            None
            if not nodes
            else nodes[0].text(deep=True, separator=" ")
            if len(nodes) == 1
            else _join_capped((n.text(deep=True, separator=" ") for n in nodes), " ")
            for nodes in found
        ]
        return _sanitize_all(
            [None if text is None else " ".join(text.split()) for text in texts], squeeze=True
        )

    def _select_every(self, selector: str) -> list[list[Any]]:
        """For each item, every node ``selector`` (read inside the items) finds in it, in document
        order.

        One query finds the items and the matches together, in document order; as items do not hold
        one another, each match belongs to the item last seen before it. When items do, each is
        asked alone."""
        if selector not in self._found:  # a field is read again for its categories
            self._found[selector] = (
                self._asked_alone(selector) if self._nested else self._matched(selector)
            )
        return self._found[selector]

    def _asked_alone(self, selector: str) -> list[list[Any]]:
        return [
            [m for m in distinct(node.css(selector)) if m.mem_id != node.mem_id]
            for node in self._nodes
        ]

    def _matched(self, selector: str) -> list[list[Any]]:
        positions = self._positions
        found: list[list[Any]] = [[] for _ in self._nodes]
        current: list[Any] = []
        seen: set[int] = set()  # lexbor gives a node once for each alternative of a list it matches
        for node in self._tree.css(f"{self._items}, {selector}"):
            key = node.mem_id
            position = positions.get(key)
            if position is not None:
                current = found[position]
            elif key not in seen:
                seen.add(key)
                current.append(node)
        return found


def _join_capped(parts: Iterator[str], separator: str = "") -> str:
    """The parts joined, reading no more of them once MAX_VALUE_CHARS is reached: a selector such as
    ``*`` finds every element of an item, and their outer HTML together grows with the square of its
    depth."""
    out: list[str] = []
    size = 0
    for part in parts:
        out.append(part)
        size += len(part) + len(separator)
        if size >= MAX_VALUE_CHARS:
            break
    return separator.join(out)


def distinct(nodes: list[Any]) -> list[Any]:
    """``nodes`` without repeats, in order: lexbor gives a node once for each alternative of a
    selector list it matches (``li.a, li.b`` on ``<li class="a b">``), where Nokogiri, like CSS,
    gives it once."""
    return list({node.mem_id: node for node in nodes}.values())


def _sanitize_all(values: list[str | None], *, squeeze: bool = False) -> list[Value]:
    """``sanitize`` on every value: one pass over them joined by newlines when that is safe (no
    value holds a newline, and no ESC could start a terminal escape running from one value into the
    next), else one by one. ``squeeze`` makes whitespace single again where something between two
    spaces was removed."""
    present = [value for value in values if value is not None]
    joined = "\n".join(present)
    if "\x1b" in joined or joined.count("\n") != max(len(present) - 1, 0):
        cleaned = [sanitize(value) for value in present]
    else:
        clean = sanitize(joined)
        cleaned = present if clean == joined else clean.split("\n")
    if squeeze and cleaned is not present:
        cleaned = [" ".join(value.split()) for value in cleaned]
    remaining = iter(cleaned)
    return [None if value is None else next(remaining) for value in values]


def _href(node: Any, base_url: str) -> str | None:
    attributes = node.attrs
    href = attributes.get("href") or attributes.get("src")
    if href is None and node.tag not in {"a", "link", "area"}:
        link = node.css_first("a[href]")
        href = link.attrs.get("href") if link is not None else None
    return feed_steps.absolute_url(base_url, href) if href else None


def strip_code(tree: Any) -> None:
    """Drop scripts, styles and templates: their text is code, never an item's words."""
    for node in tree.css("script, style, noscript, template"):
        node.decompose()


def read_items(
    tree: Any,
    config: Mapping[str, Any],
    base_url: str,
    is_json: bool = False,
    allowance: Allowance | None = None,
    *,
    drops: Counter[str] | None = None,
) -> list[dict[str, Any]]:
    """Every item the config's selectors find in ``tree``, as JSON Feed style dicts (values as
    strings). What reading them may produce, and how long its patterns may run, is ``allowance`` (a
    page's by default); an element with nothing to show (no title, url or description) is left out
    and counted in ``drops``."""
    selectors: Mapping[str, Any] = config["selectors"]
    # as the page's own links resolve
    base_url = base_url if is_json else document_base(tree, base_url)
    strip_code(tree)
    items_spec = selectors["items"]
    zone = config["channel"].get("time_zone") or "UTC"
    # html2rss merges enhance: true into every selectors config
    enhance = bool(items_spec.get("enhance", True))
    items = lexbor_selector(items_spec["selector"], json_keys=is_json)
    fields = _plan(selectors, items, is_json)
    nodes = distinct(tree.css(items))
    nested = (
        tree.css_first(lexbor_selector(items_spec["selector"], scope=items, json_keys=is_json))
        is not None
    )
    if items_spec.get("order") == "reverse":
        nodes = list(reversed(nodes))
    allowance = allowance or Allowance.for_page()
    columns = _Columns(
        tree,
        nodes,
        fields,
        items=items,
        nested=nested,
        base_url=base_url,
        zone=zone,
        allowance=allowance,
    )
    named = {name: columns.column(name) for name in ITEM_FIELDS if name in selectors}
    if "published_at" not in named:  # html2rss's older names for it
        dated = next((name for name in ("updated", "pubDate") if name in selectors), None)
        named["published_at"] = columns.column(dated) if dated else None
    if "link" in selectors:
        named["link"] = columns.column("link")
    categories = [columns.each(name) for name in selectors.get("categories") or []]
    guid = [columns.column(name) for name in selectors.get("guid") or []]
    finished = {
        name: _finish_column(name, column, base_url, zone)
        for name, column in named.items()
        if column
    }
    link, enclosures = finished.pop("link", None), finished.pop("enclosure", None)
    shown = [(name, finished[name]) for name in _SHOWN if name in finished]
    missing = ENHANCED_FIELDS if enhance else ()
    enclosure_spec = selectors.get("enclosure")
    enclosure_type = (
        enclosure_spec.get("content_type") if isinstance(enclosure_spec, Mapping) else None
    )
    found: list[dict[str, Any]] = []
    hints = MarkupHints(tree)
    for n, node in enumerate(nodes):
        entry: dict[str, Any] = {
            name: text for name, column in shown if (text := column[n]) is not None
        }
        for name in missing:
            if name not in entry and (
                hint := infer_from_markup(hints, node, name, base_url, zone)
            ) not in (None, ""):
                entry[name] = hint.isoformat() if isinstance(hint, datetime) else hint
        if "url" not in entry and link is not None and (href := link[n]) is not None:
            entry["url"] = href
        if "title" not in entry and "url" not in entry and "description" not in entry:
            if drops is not None:
                drops["empty"] += 1
            continue
        if categories and (
            item_categories := [text for column in categories for text in column[n]]
        ):
            entry["categories"] = list(dict.fromkeys(item_categories))
        parts = [text_of(column[n]) if column is not None else "" for column in guid]
        entry["id"] = item_id(
            "\x00".join(parts)
            if any(parts)
            else entry.get("url") or entry.get("title") or entry["description"]
        )
        if enclosures is not None and (enclosure := enclosures[n]) is not None:
            entry["enclosure"] = {
                "url": enclosure,
                "type": enclosure_type or _guess_type(enclosure),
            }
        found.append(entry)
    return found


_SHOWN = ("title", "url", "description", "published_at", "updated", "author", "image")
"""An item's fields in the order it shows them (link and enclosure are read apart)."""


def _finish_column(name: str, column: list[Value], base_url: str, zone: str) -> list[str | None]:
    """A field's values as items hold them, a column at a time: URLs absolute against the page
    whatever extractor read them, dates ISO 8601 (a date read without parse_time is parsed, as
    html2rss's DateTime.parse would), the rest text; None where there is nothing."""
    if name in {"published_at", "updated"}:
        stamps = [
            feed_steps.parse_time(value, zone) if isinstance(value, str) else value
            for value in column
        ]
        return [stamp.isoformat() if isinstance(stamp, datetime) else None for stamp in stamps]
    if name in {"url", "link", "image", "enclosure"}:
        return [
            feed_steps.absolute_url(base_url, value)
            if isinstance(value, str) and value
            else text_of(value) or None
            for value in column
        ]
    return [text_of(value) or None for value in column]


def item_id(identity: str) -> str:
    """A feed item's stable id: the same identity (guid fields, else the URL) always gives the same
    id."""
    return hashlib.sha256(identity.encode()).hexdigest()[:20]


def _guess_type(url: str) -> str:
    import mimetypes

    return mimetypes.guess_type(url.split("?", 1)[0])[0] or "application/octet-stream"
