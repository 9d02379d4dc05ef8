"""The page readers besides extraction (metadata, signals, links) on hostile pages: deep, wide, many
attributes. Work is counted, never timed: doubling the page at most doubles it, and it stays a few
units a node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from netglean.read.html_tree import parse_html
from netglean.read.links import page_links
from netglean.read.page_meta import page_metadata
from netglean.read.page_signals import candidate_items, feeds, item_groups
from tests.support.work_counting import work

PER_NODE = 12
"""Each reader runs a handful of queries over the whole tree and climbs from the nodes they find
once (2-7 units a node on the pages below)."""


def _nested_listings(n: int) -> str:
    """A listing whose first item holds the next listing, n deep: every level is a group of three
    linked items."""
    page = ""
    for _ in range(n):
        page = (
            f"<div><div><a href=/a>x</a>{page}</div><div><a href=/b>y</a></div><div><a "
            "href=/c>z</a></div></div>"
        )
    return page


def test_nested_listings_are_ranked_in_work_in_proportion_to_the_page() -> None:
    """Groups are ranked by the text of their items, and nested groups hold each other's items: each
    group read its items' text again (work grew with the square of the nesting)."""
    small, _ = work(_nested_listings(150), item_groups)
    large, nodes = work(_nested_listings(300), item_groups)
    assert large <= 2.1 * small and large <= PER_NODE * nodes, (small, large, nodes)
    # alike in size: the one with more text first
    groups = item_groups(parse_html(_nested_listings(3)))
    assert [
        (len(group.nodes), sum(len(node.text(deep=True)) for node in group.nodes))
        for group in groups
    ] == [
        (3, 9),
        (3, 6),
        (3, 3),
    ]


PAGES: dict[str, Callable[[int], str]] = {
    "deep divs": lambda n: "<div>words <a href=/x>link</a>" * n,
    "deep lists": lambda n: "<ul><li><a href=/x>item</a>" * n,
    "deep links through tables": lambda n: "<a href=/x>link<table><tr><td>" * n,
    "wide siblings": lambda n: "<div>" + "<div class=item><a href=/p>words</a></div>" * (50 * n),
    "many metadata": lambda n: (
        '<meta property="og:t" content="v"><link rel=alternate type=application/rss+xml href=/f>'
        * (20 * n)
    ),
    "many JSON-LD blocks": lambda n: (
        '<script type="application/ld+json">{"@type": "Thing"}</script>' * (10 * n)
    ),
    "many classes": lambda n: (
        '<div class="' + " ".join(f"c{i}" for i in range(50 * n)) + '"><a href=/>x</a></div>' * 3
    ),
}
READERS: dict[str, Callable[[Any], object]] = {
    "page_metadata": lambda tree: page_metadata(tree, "https://example.test/"),
    "candidate_items": candidate_items,
    "feeds": lambda tree: feeds(tree, "https://example.test/"),
    "page_links": lambda tree: page_links(tree, "https://example.test/"),
}


@pytest.mark.parametrize("reader", READERS, ids=list(READERS))
@pytest.mark.parametrize("page", PAGES, ids=list(PAGES))
def test_page_readers_cost_work_in_proportion_to_hostile_pages(page: str, reader: str) -> None:
    small, _ = work(PAGES[page](200), READERS[reader])
    large, nodes = work(PAGES[page](400), READERS[reader])
    assert large <= 2.1 * small and large <= PER_NODE * nodes, (small, large, nodes)
