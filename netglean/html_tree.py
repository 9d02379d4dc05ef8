"""One parse of a page, shared by everything that reads it: metadata, links, signals, extraction."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def parse_html(markup: str) -> Any:
    """A lexbor tree of ``markup`` (selectolax imported on first use: start-up never pays for it)."""
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(markup)


def script_json(tree: Any, selector: str, max_chars: int) -> Iterator[Any]:
    """The parsed JSON of each script ``selector`` finds (JSON-LD, app state), at most ``max_chars`` of it read;
    broken blocks are skipped."""
    for node in tree.css(selector):
        try:
            yield json.loads(node.text(deep=True)[:max_chars])
        except ValueError:
            continue
