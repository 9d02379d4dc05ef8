"""One parse of a page, shared by everything that reads it: metadata, links, signals, extraction."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def parse_html(markup: str) -> Any:
    """A lexbor tree of ``markup`` (selectolax imported on first use: start-up never pays for it)."""
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(markup)


def with_ancestors(nodes: Iterable[Any]) -> set[int]:
    """The identities (``mem_id``) of ``nodes`` and of every node above them. Each climb stops where an earlier
    one has been, so a page nested thousands deep is climbed once, not once per node (None is skipped)."""
    seen: set[int] = set()
    for start in nodes:
        node = start
        while node is not None and node.mem_id not in seen:
            seen.add(node.mem_id)
            node = node.parent
    return seen


MAX_JSON_DEPTH = 100
"""Deepest nesting read from JSON a page carries. Everything after the parser (metadata, feed items, the
envelope's sanitising and serialising) walks it recursively: a few kilobytes of brackets must not exhaust
the stack of whatever reads the page."""


def page_json(text: str) -> Any:
    """JSON from a page (a script block, a JSON document); ValueError when it is broken or nested too deep."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"the JSON nests deeper than {MAX_JSON_DEPTH} levels") from None
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:  # else it cannot be that deep: no walk needed
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


def script_json(tree: Any, selector: str, max_chars: int) -> Iterator[Any]:
    """The parsed JSON of each script ``selector`` finds (JSON-LD, app state), at most ``max_chars`` of it read;
    broken blocks, and blocks nested past MAX_JSON_DEPTH, are skipped."""
    for node in tree.css(selector):
        try:
            yield page_json(node.text(deep=True)[:max_chars])
        except ValueError:
            continue
