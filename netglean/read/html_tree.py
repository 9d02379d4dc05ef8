"""One parse of a page, shared by everything that reads it: metadata, links, signals, extraction."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar, cast
from urllib.parse import urljoin, urlsplit

T = TypeVar("T")


def parse_html(markup: str) -> Any:
    """A lexbor tree of ``markup`` (selectolax imported on first use: start-up never pays for
    it)."""
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(markup)


BLOCK_ELEMENTS = frozenset(
    "address article aside blockquote caption center dd details dialog div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li main menu nav ol "
    "p pre section summary table tbody td tfoot th thead tr ul".split()
)
"""Elements a browser lays out as blocks: the words on either side of one's edge are never one word.
"""


def flat_text(node: Any, separator: str = " ") -> str:
    """The text of ``node``'s subtree with ``separator`` at every block element's edge (and for
    every <br>), never twice in a row: what ``node.text(deep=True)`` gives, without gluing "Quote
    one.Quote two." together. The walk is iterative, so a page nested thousands deep is read without
    recursion."""
    parts: list[str] = []
    ends: list[Any] = []  # elements entered, whose edge is written when their children are read
    child = node.child

    def edge() -> None:
        if not parts or not parts[-1].endswith(separator):
            parts.append(separator)

    while True:
        while child is None:
            if not ends:
                return "".join(parts)
            element = ends.pop()
            if element.tag in BLOCK_ELEMENTS:
                edge()
            child = element.next
        tag = child.tag
        if tag == "-text":
            text = child.text_content
            if text:
                parts.append(text)
        elif tag == "br":
            edge()
        elif tag is not None and tag[0] != "-":
            if tag in BLOCK_ELEMENTS:
                edge()
            ends.append(child)
            child = child.child
            continue
        child = child.next


def document_base(tree: Any, url: str) -> str:
    """The URL a page's relative links resolve against: its head's first <base href>, itself
    resolved against the page's ``url``, when that is http(s); else ``url``. Every reader of a
    page's links resolves them through this, so a feed, a link and a canonical URL of one page
    agree."""
    node = tree.css_first("head base[href]")
    href = (node.attributes.get("href") or "").strip() if node is not None else ""
    if not href:
        return url
    base = urljoin(url, href)
    return base if urlsplit(base).scheme in {"http", "https"} else url


def with_ancestors(nodes: Iterable[Any]) -> set[int]:
    """The identities (``mem_id``) of ``nodes`` and of every node above them. Each climb stops where
    an earlier one has been, so a page nested thousands deep is climbed once, not once per node
    (None is skipped)."""
    seen: set[int] = set()
    for start in nodes:
        node = start
        while node is not None and node.mem_id not in seen:
            seen.add(node.mem_id)
            node = node.parent
    return seen


_UNREAD: Any = object()


class TextMeasure(Generic[T]):
    """A measure of the text (``node.text(deep=True)``) of chosen nodes that may nest, each
    character read once.

    A node holding no other chosen node is read in one call; one that holds some is measured from
    its children, the chosen ones measured once and remembered. Reading each of a nest of n chosen
    nodes (quotes, tables, articles) for its own text reads ~n²/2 nodes; this reads n. ``join`` must
    be associative with ``empty`` as its identity, and ``measure(a + b) == join(measure(a),
    measure(b))``."""

    def __init__(
        self,
        chosen: Iterable[Any],
        measure: Callable[[str], T],
        join: Callable[[T, T], T],
        empty: T,
    ):
        self._holders = with_ancestors(node.parent for node in chosen)
        self._measure, self._join, self._empty = measure, join, empty
        self._known: dict[int, T] = {}

    def __call__(self, node: Any) -> T:
        known, holders, measure, join = self._known, self._holders, self._measure, self._join
        if node.mem_id in known:
            return known[node.mem_id]
        if node.mem_id not in holders:
            value = known[node.mem_id] = measure(node.text(deep=True))
            return value
        # Holders nest as deep as the page does: an explicit stack of [holder, its next child, its
        # measure so far].
        stack: list[list[Any]] = [[node, node.child, self._empty]]
        while True:
            frame = stack[-1]
            child, total = frame[1], cast(T, frame[2])
            while child is not None:
                value = known.get(child.mem_id, _UNREAD)
                if value is _UNREAD:
                    if child.mem_id in holders:
                        break
                    value = measure(child.text(deep=True))
                total = join(total, value)
                child = child.next
            if child is not None:
                frame[1], frame[2] = child, total
                stack.append([child, child.child, self._empty])
                continue
            known[frame[0].mem_id] = total
            stack.pop()
            if not stack:
                return total
            stack[-1][1], stack[-1][2] = stack[-1][1].next, join(stack[-1][2], total)


MAX_JSON_DEPTH = 100
"""Deepest nesting read from JSON a page carries. Everything after the parser (metadata, feed items,
the envelope's sanitising and serialising) walks it recursively: a few kilobytes of brackets must
not exhaust the stack of whatever reads the page."""


def page_json(text: str) -> Any:
    """JSON from a page (a script block, a JSON document); ValueError when it is broken or nested
    too deep."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"the JSON nests deeper than {MAX_JSON_DEPTH} levels") from None
    # else it cannot be that deep: no walk needed
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        stack = [(value, 1)] if isinstance(value, dict | list) else []
        while stack:
            node, depth = stack.pop()
            children = node.values() if isinstance(node, dict) else node
            for child in children:
                if isinstance(child, dict | list):
                    if depth >= MAX_JSON_DEPTH:
                        raise ValueError(f"the JSON nests deeper than {MAX_JSON_DEPTH} levels")
                    stack.append((child, depth + 1))
    return value


_CDATA = re.compile(r"^\s*<!\[CDATA\[|\]\]>\s*$")
"""The CDATA wrapper some pages put around a script's JSON (for XHTML parsers): not part of the
JSON."""


def script_json(tree: Any, selector: str, max_chars: int) -> Iterator[Any]:
    """The parsed JSON of each script ``selector`` finds (JSON-LD, app state), at most ``max_chars``
    of it read; broken blocks, and blocks nested past MAX_JSON_DEPTH, are skipped."""
    for node in tree.css(selector):
        text = node.text(deep=True)[:max_chars]
        try:
            yield page_json(_CDATA.sub("", text) if "<![CDATA[" in text else text)
        except ValueError:
            continue
