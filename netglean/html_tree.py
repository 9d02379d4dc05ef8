"""One parse of a page, shared by everything that reads it: metadata, links, signals, extraction."""

from __future__ import annotations

from typing import Any


def parse_html(markup: str) -> Any:
    """A lexbor tree of ``markup`` (selectolax imported on first use: start-up never pays for it)."""
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(markup)
