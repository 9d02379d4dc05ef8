"""Reading a listing's items (netglean.feeds.items): fields scoped to each item, categories,
enhancement, links, and third-party text and markup made safe."""

from __future__ import annotations

from typing import Any

import pytest

from netglean.core.untrusted import sanitize
from netglean.feeds.items import document, read_items

TAGGED = """<ul><li class="post"><h2><a href="/p/1">First post</a></h2><p>The opening words.</p>
<time datetime="2026-11-02T08:00:00Z">2 Nov</time>
<span class="tag">Sea </span><span class="tag">salt</span>
<span class="tag">sea</span></li>
<li class="post"><h2><a href="/p/2">Second</a></h2><span class="tag">Tides</span></li></ul>"""


def test_categories_take_each_element_and_older_date_names_and_enhancement_apply() -> None:
    config: dict[str, Any] = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "li.post"},
            "title": {"selector": "h2"},
            "tags": {
                "selector": ".tag",
                "post_process": [{"name": "template", "string": "#%{self}"}],
            },
            "kind": {
                "selector": ".tag",
                "post_process": [{"name": "gsub", "pattern": "/^(.)/", "replacement": "~\\1"}],
            },
            "updated": {"selector": "time", "extractor": "attribute", "attribute": "datetime"},
            "categories": ["kind", "tags"],
        },
    }
    first, second = read_items(document(TAGGED, is_json=False), config, "https://example.com/")
    # one category per element the field finds, post-processed one by one; a template reads the item
    # whole
    assert first["categories"] == ["~Sea", "~salt", "~sea", "#Sea salt sea"]
    assert second["categories"] == ["~Tides", "#Tides"]
    # updated (or pubDate) stands in for published_at
    assert first["published_at"] == "2026-11-02T08:00:00+00:00"
    # enhance is on unless a config turns it off, as in html2rss: the url and description come from
    # the markup
    assert (
        first["url"] == "https://example.com/p/1" and first["description"] == "The opening words."
    )
    config["selectors"]["items"]["enhance"] = False
    plain, _ = read_items(document(TAGGED, is_json=False), config, "https://example.com/")
    assert "url" not in plain and "description" not in plain


def test_an_empty_link_is_no_link_not_the_page() -> None:
    page = '<ul><li><a data-href="">Quiet</a></li><li><a data-href="/x">Loud</a></li></ul>'
    config = {
        "channel": {"url": "https://example.com/list"},
        "selectors": {
            "items": {"selector": "li", "enhance": False},
            "title": {"selector": "a"},
            "url": {"selector": "a", "extractor": "attribute", "attribute": "data-href"},
        },
    }
    quiet, loud = read_items(document(page, is_json=False), config, "https://example.com/list")
    assert "url" not in quiet and loud["url"] == "https://example.com/x"


LISTING = """<nav><a href="/n1" class="t">Nav one</a></nav>
<ul id="l">
  <li class="i"><h3><a class="t" href="/a">Alpha</a></h3><a class="t" href="/a2">Alpha again</a>
      <span data-x="tab\there">\u202eone</span></li>
  <li class="i t" data-x="on the item"><p>Bravo, the item itself matches .t</p></li>
  <li class="i"><h3>No link</h3><span data-x="line\nbreak">two\x01</span></li>
  <li class="i"><span data-x="&#27;]0;x">three &#8203; &#27;]0;title</span></li>
  <li class="i"><span data-x="y&#7;">four</span></li>
</ul>
<ol><li class="i"><div class="t">Outer<ul><li class="i"><a class="t" href="/in">Inner</a></li></ul>
</div></li></ol>
<footer><a class="t" href="/f">Footer</a></footer>
<ol id="deep"><li>{down}<span class="t">Twelve levels down</span><a href="/d">Deep link</a>{up}
</li></ol>
<section>{down}<a class="t" href="/o1">Outside, deep</a><a href="/o2">Outside again</a>{up}
</section>""".format(
    down="<div>" * 12, up="</div>" * 12
)  # matches twelve levels down, inside an item and outside every item


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ("ul#l > li.i", ".t"),
        ("ul#l > li.i", "a"),
        ("ul#l > li.i", "h3 a, p"),
        ("li.i", ".t"),
        ("li.i", "a[href]"),
        ("ul#l > li.i, ol#deep > li", ".t"),
    ],
)
def test_fields_are_what_a_query_scoped_to_each_item_finds(items: str, field: str) -> None:
    """Each field selector runs once over the page; every item still gets the matches inside it (not
    itself, as Nokogiri's item.css), with nested items, an item matching the field and matches
    outside any item."""
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            # what the selectors find, nothing added
            "items": {"selector": items, "enhance": False},
            "title": {"selector": field},
            "description": {"selector": "a"},  # a second field over the same items
            "guid": ["title", "description"],
        },
    }
    for order in ("normal", "reverse"):
        config["selectors"]["items"]["order"] = order  # type: ignore[index]
        nodes = document(LISTING, is_json=False).css(items)
        expected = []
        for node in nodes[::-1] if order == "reverse" else nodes:
            texts = {}
            for name, selector in (("title", field), ("description", "a")):
                # lexbor: self too
                inside = [found for found in node.css(selector) if found.mem_id != node.mem_id]
                raw = " ".join(found.text(deep=True, separator=" ") for found in inside)
                text = " ".join(sanitize(raw).split())
                if text:
                    texts[name] = text
            if texts:
                expected.append(texts)
        found = read_items(document(LISTING, is_json=False), config, "https://example.com/")
        assert [
            {k: item[k] for k in ("title", "description") if k in item} for item in found
        ] == expected


def test_extracted_text_and_attributes_lose_controls_and_keep_their_place() -> None:
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "ul#l > li.i", "enhance": False},
            "title": {"selector": "span"},
            "author": {"selector": "span", "extractor": "attribute", "attribute": "data-x"},
            "url": {"selector": "a", "extractor": "href"},
        },
    }
    found = read_items(document(LISTING, is_json=False), config, "https://example.com/")
    assert [(i.get("title"), i.get("author"), i.get("url")) for i in found] == [
        ("one", "tab\there", "https://example.com/a"),  # the bidi override is gone
        # the control character too; the item without a span has no fields at all
        ("two", "line\nbreak", None),
        # a zero-width space leaves one space; an escape never spans two items
        ("three 0;title", "0;x", None),
        ("four", "y", None),
    ]


def test_link_stands_in_for_url_and_enhance_fills_what_the_config_leaves_out() -> None:
    page = (
        '<div class="c"><h2 itemprop="headline">Tide tables</h2><a class="go" '
        'href="/t">more</a><time datetime="2026-11-29T08:00:00">today</time><img '
        'src="/t.png"><p>Twice a day.</p></div><div class="c"><a href="/u">Undertow</a></div>'
    )
    config = {
        "channel": {"url": "https://example.com/", "time_zone": "Europe/Berlin"},
        "selectors": {
            "items": {"selector": "div.c", "enhance": True},
            "link": {"selector": "a.go", "extractor": "href"},
        },
    }
    first, second = read_items(document(page, is_json=False), config, "https://example.com/news/")
    # link, then enhance
    assert first["url"] == "https://example.com/t" and first["title"] == "Tide tables"
    assert (
        first["published_at"] == "2026-11-29T08:00:00+01:00"
        and first["image"] == "https://example.com/t.png"
    )
    assert first["description"] == "Twice a day."
    # no link: enhance finds one
    assert second["url"] == "https://example.com/u" and second["title"] == "Undertow"


def test_html_extracted_from_a_page_is_always_made_safe() -> None:
    tree = document(
        '<ul><li><a href="/a">A</a><div class="d" onclick="x()"><script>evil()</script><img '
        'src="/i.png"><iframe src="https://evil.example/"></iframe>Body <a '
        'href="javascript:alert(1)">j</a></div></li></ul>',
        is_json=False,
    )
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "li"},
            "title": {"selector": "a"},
            "description": {"selector": ".d", "extractor": "html"},
        },
    }
    [item] = read_items(tree, config, "https://example.com/list/")
    assert item["description"] == (  # the element itself too, as html2rss's html extractor gives it
        '<div><img src="https://example.com/i.png">Body <a rel="nofollow noopener '
        'noreferrer">j</a></div>'
    )
    # every link the title's selector finds, as html2rss's text extractor reads
    assert item["title"] == "A j"


def test_an_item_with_nothing_to_show_is_left_out_and_counted() -> None:
    from collections import Counter

    page = (
        '<ul><li class="row"><a href="/a">Shown</a></li><li class="row"><img alt=""></li><li '
        'class="row"> </li></ul>'
    )
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {"items": {"selector": "li.row"}},
    }
    drops: Counter[str] = Counter()
    [shown] = read_items(document(page, is_json=False), config, "https://example.com/", drops=drops)
    assert shown["title"] == "Shown" and drops == {"empty": 2}


def test_item_links_resolve_against_the_documents_base_url() -> None:
    """Found by review: items resolved links against the page URL while the page's own links used
    <base href>."""
    page = '<head><base href="https://cdn.example.com/news/"></head><body>' + TAGGED + "</body>"
    config: dict[str, Any] = {
        "channel": {"url": "https://example.com/list"},
        "selectors": {
            "items": {"selector": "li.post"},
            "title": {"selector": "h2"},
            "link": {"selector": "a"},
        },
    }
    first, _ = read_items(document(page, is_json=False), config, "https://example.com/list")
    assert first["url"] == "https://cdn.example.com/p/1"  # /p/1 against the base's host
    relative = page.replace('href="/p/1"', 'href="p/1"')
    first, _ = read_items(document(relative, is_json=False), config, "https://example.com/list")
    assert first["url"] == "https://cdn.example.com/news/p/1"
