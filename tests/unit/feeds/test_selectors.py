"""Feed selectors (netglean.feeds.selectors): html2rss's CSS dialect (Nokogiri's :first, :contains,
:eq, > a from the item) and its JSON pages' key selectors, read as html2rss reads them."""

from __future__ import annotations

import pytest

from netglean.feeds import config as feed_config
from netglean.feeds.items import document, read_items
from netglean.feeds.selectors import lexbor_selector


def test_json_keys_may_hold_any_identifier_character() -> None:
    """Found by the contract fuzzer: a JSON page's key selector was cut at · or €, which lexbor then
    refused."""
    assert lexbor_selector("col·leccions > array > object", json_keys=True) == (
        '[data-k="col·leccions"] > array > object'
    )
    page = document('{"col·leccions": [{"preu€": "3", "title": "Pa"}]}', is_json=True)
    config = {
        "channel": {"url": "https://e.com/"},
        "selectors": {
            "items": {"selector": "col·leccions > array > object"},
            "title": {"selector": "preu€"},
        },
    }
    assert feed_config.problems(config) == []
    assert [item["title"] for item in read_items(page, config, "https://e.com/", is_json=True)] == [
        "3"
    ]


STORY = """<ul><li class="story"><a href="/1">one</a><div><a href="/2">two</a></div>
<a href="/3">three</a>
<span>s1</span><span>s2</span><p>Read more here</p><p>Other words</p></li></ul>"""


@pytest.mark.parametrize(
    ("selector", "extractor", "value"),
    [
        ("a:first", "text", "one two"),  # Nokogiri: the first a of its parent, in every parent
        ("a:first", "href", "https://example.com/1"),
        ("span:last", "text", "s2"),
        ("> a", "text", "one three"),  # read from the item: its own children
        ("p:contains('Read')", "text", "Read more here"),
        ("p:contains(Other words)", "text", "Other words"),
        ("a:eq(2)", "text", "three"),
        ("span:gt(1)", "text", "s2"),
        # no type: the first child of its parent (the item is not in itself)
        (":first", "text", "one two"),
        # every match, as html2rss's text extractor reads a node set
        ("a", "text", "one two three"),
        # a node two alternatives find counts once, as in Nokogiri
        ("a, div > a", "text", "one two three"),
        ("span", "html", "<span>s1</span><span>s2</span>"),  # outer HTML of every match
    ],
)
def test_selectors_are_read_in_html2rss_dialect(selector: str, extractor: str, value: str) -> None:
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "li.story, ul > li"},  # one item, found by both alternatives
            "title": {"selector": selector, "extractor": extractor},
        },
    }
    assert feed_config.problems(config) == []
    [item] = read_items(document(STORY, is_json=False), config, "https://example.com/")
    assert item.get("title", item.get("url")) == value


def test_json_selectors_match_html2rss_markup_even_for_html_element_names() -> None:
    tree = document(
        '{"items": [{"image": {"url": "/i.png"}, "link": "/p", "title": "T", "p": 1}]}',
        is_json=True,
    )
    assert (
        lexbor_selector("items > array > object", json_keys=True)
        == '[data-k="items"] > array > object'
    )
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "items > array > object:has(link)"},
            "title": {"selector": "title"},
            "url": {"selector": "link"},
            "image": {"selector": "image url"},
            "description": {"selector": "p"},
        },
    }
    [item] = read_items(tree, config, "https://example.com/", is_json=True)
    assert item["title"] == "T" and item["url"] == "https://example.com/p"
    assert item["image"] == "https://example.com/i.png" and item["description"] == "1"


def test_an_items_selector_that_breaks_only_inside_its_own_items_is_a_problem() -> None:
    """The items selector is also read inside its own items (nested items are told apart): one that
    parses alone but not scoped by itself ("[A") is named, not left to fail on the page."""
    from netglean.feeds.selectors import selector_problem

    assert selector_problem("[A") == '"[A" is not a CSS selector netglean can read'
    assert selector_problem("article.teaser") is None
    assert selector_problem("> h2", items="article") is None
