"""A page's HTML to what the page tools return, from one parse: metadata, links, the content rendered.

This is the CPU-bound half of reading a page, kept free of I/O so it can run off the event
loop, and so the benchmark's in-process floor times exactly what the server does per page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netglean.read.extract import extract
from netglean.read.html_tree import parse_html
from netglean.read.page_meta import page_metadata
from netglean.read.render import render
from netglean.read.sitemaps import page_links


@dataclass(frozen=True, slots=True)
class HtmlReading:
    metadata: dict[str, Any]
    content: str
    title: str | None
    links: list[dict[str, str]]
    """The links of the content (what ``include_links`` returns)."""
    frontier: list[str]
    """Every link of the page, navigation included (what a crawl may follow); empty unless asked for."""


def read_html(html: str, url: str, *, fmt: str, main_content: bool, frontier: bool = False) -> HtmlReading:
    tree = parse_html(html)
    every_link = page_links(tree, url) if frontier else []
    metadata = page_metadata(tree, url)  # before extraction, which prunes the tree
    extraction = extract(tree, url, main_content=main_content)
    return HtmlReading(metadata, render(extraction, fmt), extraction.title, extraction.links, every_link)
