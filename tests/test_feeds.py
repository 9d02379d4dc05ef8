"""Feeds: html2rss configs (the 56-config corpus, mistakes), post-processing, RSS/JSON Feed output, and the tools
over MCP against listing pages served on 127.0.0.1 (capture -> validate -> apply, scrape_url)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import feedparser
import pytest
import yaml
from mcp.client._memory import InMemoryTransport

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.errors import InvalidFeedConfig
from netglean.core.settings import Settings
from netglean.core.untrusted import sanitize
from netglean.feeds import config as feed_config
from netglean.feeds import steps as feed_steps
from netglean.feeds.auto import draft_config
from netglean.feeds.items import document, read_items
from netglean.feeds.output import count_items, rss
from netglean.feeds.selectors import lexbor_selector
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.feed_site import FEED_APP, FIXTURES
from tests.support.fixture_site import serve
from tests.support.paths import CORPUS

CORPUS_FILES = sorted(CORPUS.glob("*/*.yml"))


def test_the_corpus_is_there() -> None:
    assert len(CORPUS_FILES) == 56, f"expected the 56 corpus configs in {CORPUS}"


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_config_validates_and_loads(path: Path) -> None:
    raw = feed_config.parse_yaml(path.read_text(encoding="utf-8"))
    assert feed_config.problems(raw) == []
    loaded = feed_config.load(raw)
    assert "%<" not in loaded["channel"]["url"] and loaded["channel"]["url"].startswith("https://")
    assert loaded["selectors"] == raw["selectors"]  # selectors and templates are kept as written


MINIMAL: dict[str, Any] = {
    "channel": {"url": "https://example.com/news", "time_zone": "UTC"},
    "selectors": {"items": {"selector": "article"}, "title": {"selector": "h2"}},
}


def _with(**changes: Any) -> dict[str, Any]:
    config = yaml.safe_load(yaml.safe_dump(MINIMAL))
    for pointer, value in changes.items():
        *parents, last = pointer.split("__")
        node = config
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return config


@pytest.mark.parametrize(
    ("config", "path", "words"),
    [
        (_with(channel__colour="red"), "/channel", "unknown key 'colour'"),
        (_with(channel__ttl="60"), "/channel/ttl", "must be an integer, not a string '60'"),
        (_with(selectors__items__selector=None), "/selectors/items", "items needs 'selector'"),
        (_with(selectors__title={"selector": "h2", "extractor": "txt"}), "/selectors/title/extractor", "'txt'"),
        (_with(selectors__title={"extractor": "attribute"}), "/selectors/title", "needs 'attribute'"),
        (
            _with(selectors__title={"selector": "h2", "post_process": [{"name": "gsub", "pattern": "x"}]}),
            "/selectors/title/post_process/0",
            "gsub needs 'replacement'",
        ),
        (
            _with(selectors__title={"selector": "h2", "post_process": [{"name": "substring", "begin": 1}]}),
            "/selectors/title/post_process/0",
            "unknown key 'begin'",
        ),
        (
            _with(
                selectors__title={
                    "selector": "h2",
                    "post_process": [{"name": "gsub", "pattern": "/(/", "replacement": ""}],
                }
            ),
            "/selectors/title/post_process/0/pattern",
            "does not compile",
        ),
        (
            _with(selectors__title={"post_process": [{"name": "template", "string": "%{nothing}"}]}),
            "/selectors/title/post_process/0/string",
            "'nothing', which is no field",
        ),
        (_with(channel__time_zone="Mars/Olympus"), "/channel/time_zone", "not a known IANA time zone"),
        (_with(selectors=None), "", "selectors (with items) or auto_source"),
        (_with(strategy="selenium"), "/strategy", "use one of: faraday, browserless, botasaurus"),
        (_with(selectors__items__selector="li[["), "/selectors/items/selector", "'li[[' is not a CSS selector"),
        (_with(selectors__title={"selector": "h2::"}), "/selectors/title/selector", "not a CSS selector netglean"),
        (_with(selectors__title={"selector": "+ div"}), "/selectors/title/selector", "a field is read from inside"),
        (_with(selectors__url={"selector": "a"}, selectors__link={"selector": "a"}), "/selectors/link", "url or link"),
        (
            _with(selectors__items__pagination={"selector": "a[[rel"}),
            "/selectors/items/pagination/selector",
            "is not a CSS selector",
        ),
        # found by the contract fuzzer: a step without a name was taken for a gsub missing its pattern
        (_with(selectors__title={"post_process": [{}]}), "/selectors/title/post_process/0", "needs 'name'"),
        (_with(selectors__title={"post_process": {}}), "/selectors/title/post_process", "needs 'name'"),
    ],
)
def test_typical_mistakes_are_named_with_their_path_and_a_sentence(config: Any, path: str, words: str) -> None:
    found = feed_config.problems(config)
    assert any(p.path == path and words in p.message for p in found), [p.as_dict() for p in found]


def test_yaml_values_json_cannot_hold_are_text_or_named_problems() -> None:
    """Found by the contract fuzzer: a plain date in free-form metadata broke the call's answer (a date is not
    JSON), and .inf made a text block that was not JSON."""
    head = "channel: {url: 'https://e.com/'}\nselectors: {items: {selector: li}}\n"
    assert feed_config.parse_yaml(head + "directory: {since: 2026-11-29}")["directory"] == {"since": "2026-11-29"}
    with pytest.raises(InvalidFeedConfig) as refused:
        feed_config.parse_yaml(head + "parameters: {x: {default: .inf}}\ndirectory: {b: !!binary aGk=, n: .nan}")
    assert [(p["path"], p["message"].split(" ")[0]) for p in refused.value.detail["errors"]] == [
        ("/directory/b", "YAML"),
        ("/directory/n", "nan"),
        ("/parameters/x/default", "inf"),
    ]


def test_json_keys_may_hold_any_identifier_character() -> None:
    """Found by the contract fuzzer: a JSON page's key selector was cut at · or €, which lexbor then refused."""
    assert lexbor_selector("col·leccions > array > object", json_keys=True) == (
        '[data-k="col·leccions"] > array > object'
    )
    page = document('{"col·leccions": [{"preu€": "3", "title": "Pa"}]}', is_json=True)
    config = {
        "channel": {"url": "https://e.com/"},
        "selectors": {"items": {"selector": "col·leccions > array > object"}, "title": {"selector": "preu€"}},
    }
    assert feed_config.problems(config) == []
    assert [item["title"] for item in read_items(page, config, "https://e.com/", is_json=True)] == ["3"]


def test_yaml_errors_name_the_line_and_local_files_are_refused() -> None:
    with pytest.raises(InvalidFeedConfig) as broken:
        feed_config.parse_yaml("channel:\n  url: [unclosed\n")
    assert "line 3" in broken.value.message or "line 2" in broken.value.message
    with pytest.raises(InvalidFeedConfig) as local:
        feed_config.load(_with(channel__url="file:///etc/passwd"))
    assert local.value.detail["errors"] == [
        {"path": "/channel/url", "message": "'file:///etc/passwd' is not an http(s) URL; tools never read local files"}
    ]


@pytest.mark.parametrize(
    ("tail", "words"),
    [
        (  # nine levels of nine aliases: 550 bytes standing for 387 million strings
            "directory:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
            + "".join(f"  a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]\n" for n in range(1, 9)),
            "stands for more than 50000 values once its aliases are expanded (at line",
        ),
        ("directory: &a {x: [1, *a]}\n", "the alias *a at line 3, column 23 refers to a value that holds it"),
        ("directory: " + "[" * 5000 + "]" * 5000 + "\n", "nests deeper than 32 levels at line 3, column 43"),
        ("directory: {yes: 1, ~: 2}\n", "the key None is not text; quote it"),  # YAML's null and yes are not names
    ],
)
def test_yaml_that_would_expand_or_nest_without_end_is_refused_before_it_is_built(tail: str, words: str) -> None:
    head = "channel: {url: 'https://example.com/'}\nselectors: {items: {selector: li}}\n"
    with pytest.raises(InvalidFeedConfig) as refused:
        feed_config.parse_yaml(head + tail)
    assert words in refused.value.message
    shared = feed_config.parse_yaml(head + "directory: {a: &x [1, 2], b: *x, c: {<<: {d: 1}}}\n")
    assert shared["directory"] == {"a": [1, 2], "b": [1, 2], "c": {"d": 1}}  # aliases within bounds still work


def test_parameters_fill_the_channel_and_unknown_ones_are_refused() -> None:
    config = _with(parameters={"section": {"type": "string", "default": "news"}})
    config["channel"]["url"] = "https://example.com/%<section>s"
    assert feed_config.load(config)["channel"]["url"] == "https://example.com/news"
    assert feed_config.load(config, {"section": "sport"})["channel"]["url"] == "https://example.com/sport"
    with pytest.raises(InvalidFeedConfig, match="no parameter 'region'"):
        feed_config.load(config, {"region": "x"})


def _step(step: dict[str, Any], value: feed_steps.Value, **fields: str) -> feed_steps.Value:
    [result] = feed_steps.apply_column(
        [step],
        [value],
        base_url="https://example.com/a/",
        time_zone="Europe/Berlin",
        columns=lambda name: [fields[name]] if name in fields else None,
    )
    return result


def test_post_processors() -> None:
    assert _step({"name": "gsub", "pattern": "/^(\\d+.)\\s/", "replacement": ""}, "12. Title") == "Title"
    assert _step({"name": "gsub", "pattern": "/(\\w+) (\\w+)/", "replacement": "\\2 \\1"}, "tide high") == "high tide"
    assert _step({"name": "gsub", "pattern": "a.b", "replacement": "-"}, "a.b axb") == "- -"  # a regex, slashes or not
    assert _step({"name": "gsub", "pattern": "//", "replacement": "/"}, "a//b") == "a/b"  # too short to lose slashes
    assert _step({"name": "gsub", "pattern": "(?<n>\\d+)", "replacement": "#\\k<n>\\0\\\\\\9"}, "v12") == "v#1212\\"
    assert _step({"name": "gsub", "pattern": "/tide|moon/i", "replacement": {"Tide": "T"}}, "Tide moon") == "T "
    assert _step({"name": "template", "string": "%{self} by %<author>s"}, "Tides", author="Ana") == "Tides by Ana"
    assert _step({"name": "substring", "start": 0, "end": -5}, "Heute, 12:00 Uhr") == "Heute, 12:00"
    assert _step({"name": "substring", "start": 2, "end": 4}, "abcdef") == "cde"
    stamp = _step({"name": "parse_time"}, "2026-11-29 08:00")
    assert isinstance(stamp, datetime) and stamp.isoformat() == "2026-11-29T08:00:00+01:00"
    assert _step({"name": "parse_time"}, "not a date at all") is None
    clean = _step({"name": "sanitize_html"}, '<p onclick="x()">Hi <a href="/b">b</a><script>evil()</script></p>')
    assert clean == '<p>Hi <a href="https://example.com/b" rel="nofollow noopener noreferrer">b</a></p>'
    assert _step({"name": "markdown_to_html"}, "**bold** [x](/y)") == (
        '<p><strong>bold</strong> <a href="https://example.com/y" rel="nofollow noopener noreferrer">x</a></p>'
    )
    spaced = _step({"name": "sanitize_html"}, "<p>\n  Tides\t and\u00a0 <b>moon</b>\n</p>\n")
    assert spaced == "<p> Tides and&nbsp; <b>moon</b> </p>"  # ASCII whitespace collapsed, as html2rss's
    template = _step({"name": "template", "string": "%{self}!"}, datetime(2026, 11, 29, 8, tzinfo=UTC))
    assert template == "Sun, 29 Nov 2026 08:00:00 +0000!"  # a date reads as html2rss's parse_time leaves it
    assert _step({"name": "html_to_markdown"}, "<p>A <b>bold</b> <a href='/z'>link</a></p>") == (
        "A **bold** [link](https://example.com/z)"
    )
    assert _step({"name": "parse_uri"}, "../c?d=1") == "https://example.com/c?d=1"


def test_steps_run_a_column_at_a_time_with_each_items_own_fields() -> None:
    gsub = {"name": "gsub", "pattern": "/x/", "replacement": "y"}
    template = {"name": "template", "string": "%{self}/%<n>s/%<missing>s"}
    values = feed_steps.apply_column(
        [gsub, template],
        ["ax", None, "bx"],
        base_url="https://example.com/",
        time_zone="UTC",
        columns={"n": ["1", "2", "3"]}.get,
    )
    assert values == ["ay/1/", None, "by/3/"]  # a value gone before a step ends its chain; templates fill per item
    assert _step(template, None, n="7") == "/7/"  # a template is where a value can begin


def test_a_config_cannot_grow_a_value_past_the_cap() -> None:
    cap = feed_steps.MAX_VALUE_CHARS
    long = "x" * (cap // 2)
    assert _step({"name": "template", "string": "%{self}" * 5_000}, long) == "x" * cap  # not 250 MB, cut as built
    assert _step({"name": "gsub", "pattern": ".", "replacement": "\\0" * 10_000}, long) is None  # dropped
    assert _step({"name": "gsub", "pattern": "/x{10}/", "replacement": "yy"}, long) == "yy" * (cap // 20)  # in reach
    page = f"<ul><li><p>{'word ' * cap}</p></li></ul>"
    config = {"channel": {"url": "https://example.com/"}, "selectors": {"items": {"selector": "li"}, "title": {}}}
    [item] = read_items(document(page, is_json=False), config, "https://example.com/")
    assert len(item["title"]) == cap  # read from the page, then cut


def test_a_backtracking_pattern_costs_one_value_not_the_server() -> None:
    bomb = {"name": "gsub", "pattern": "/(a|aa)+$/", "replacement": ""}
    assert _step(bomb, "a" * 40 + "b") is None  # stopped at feed_steps.REGEX_SECONDS
    assert _step({"name": "gsub", "pattern": "/\\Aab/", "replacement": "x"}, "ab\nab") == "x\nab"  # \A: start only


STORY = """<ul><li class="story"><a href="/1">one</a><div><a href="/2">two</a></div><a href="/3">three</a>
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
        (":first", "text", "one two"),  # no type: the first child of its parent (the item is not in itself)
        ("a", "text", "one two three"),  # every match, as html2rss's text extractor reads a node set
        ("a, div > a", "text", "one two three"),  # a node two alternatives find counts once, as in Nokogiri
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


TAGGED = """<ul><li class="post"><h2><a href="/p/1">First post</a></h2><p>The opening words.</p>
<time datetime="2026-11-02T08:00:00Z">2 Nov</time><span class="tag">Sea </span><span class="tag">salt</span>
<span class="tag">sea</span></li>
<li class="post"><h2><a href="/p/2">Second</a></h2><span class="tag">Tides</span></li></ul>"""


def test_categories_take_each_element_and_older_date_names_and_enhancement_apply() -> None:
    config: dict[str, Any] = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": "li.post"},
            "title": {"selector": "h2"},
            "tags": {"selector": ".tag", "post_process": [{"name": "template", "string": "#%{self}"}]},
            "kind": {
                "selector": ".tag",
                "post_process": [{"name": "gsub", "pattern": "/^(.)/", "replacement": "~\\1"}],
            },
            "updated": {"selector": "time", "extractor": "attribute", "attribute": "datetime"},
            "categories": ["kind", "tags"],
        },
    }
    first, second = read_items(document(TAGGED, is_json=False), config, "https://example.com/")
    # one category per element the field finds, post-processed one by one; a template reads the item whole
    assert first["categories"] == ["~Sea", "~salt", "~sea", "#Sea salt sea"]
    assert second["categories"] == ["~Tides", "#Tides"]
    assert first["published_at"] == "2026-11-02T08:00:00+00:00"  # updated (or pubDate) stands in for published_at
    # enhance is on unless a config turns it off, as in html2rss: the url and description come from the markup
    assert first["url"] == "https://example.com/p/1" and first["description"] == "The opening words."
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


def test_a_drafted_title_finds_one_element_in_each_item() -> None:
    rows = "".join(
        f'<li class="row"><a class="story" href="/s/{n}">Story {n}</a> <a href="/s/{n}#c">{n} comments</a></li>'
        for n in range(4)
    )
    tree = document(f"<html><body><ul class='rows'>{rows}</ul></body></html>", is_json=False)
    drafted = draft_config(tree, "https://example.com/", None, None)
    assert drafted is not None
    config, count = drafted
    assert count == 4 and config["selectors"]["title"]["selector"] == "a.story[href]"
    items = read_items(document(tree.html, is_json=False), config, "https://example.com/")
    assert [item["title"] for item in items] == [f"Story {n}" for n in range(4)]


def test_json_selectors_match_html2rss_markup_even_for_html_element_names() -> None:
    tree = document('{"items": [{"image": {"url": "/i.png"}, "link": "/p", "title": "T", "p": 1}]}', is_json=True)
    assert lexbor_selector("items > array > object", json_keys=True) == '[data-k="items"] > array > object'
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


LISTING = """<nav><a href="/n1" class="t">Nav one</a></nav>
<ul id="l">
  <li class="i"><h3><a class="t" href="/a">Alpha</a></h3><a class="t" href="/a2">Alpha again</a>
      <span data-x="tab\there">\u202eone</span></li>
  <li class="i t" data-x="on the item"><p>Bravo, the item itself matches .t</p></li>
  <li class="i"><h3>No link</h3><span data-x="line\nbreak">two\x01</span></li>
  <li class="i"><span data-x="&#27;]0;x">three &#8203; &#27;]0;title</span></li>
  <li class="i"><span data-x="y&#7;">four</span></li>
</ul>
<ol><li class="i"><div class="t">Outer<ul><li class="i"><a class="t" href="/in">Inner</a></li></ul></div></li></ol>
<footer><a class="t" href="/f">Footer</a></footer>
<ol id="deep"><li>{down}<span class="t">Twelve levels down</span><a href="/d">Deep link</a>{up}</li></ol>
<section>{down}<a class="t" href="/o1">Outside, deep</a><a href="/o2">Outside again</a>{up}</section>""".format(
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
    """Each field selector runs once over the page; every item still gets the matches inside it (not itself,
    as Nokogiri's item.css), with nested items, an item matching the field and matches outside any item."""
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {
            "items": {"selector": items, "enhance": False},  # what the selectors find, nothing added
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
                inside = [found for found in node.css(selector) if found.mem_id != node.mem_id]  # lexbor: self too
                raw = " ".join(found.text(deep=True, separator=" ") for found in inside)
                text = " ".join(sanitize(raw).split())
                if text:
                    texts[name] = text
            if texts:
                expected.append(texts)
        found = read_items(document(LISTING, is_json=False), config, "https://example.com/")
        assert [{k: item[k] for k in ("title", "description") if k in item} for item in found] == expected


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
        ("two", "line\nbreak", None),  # the control character too; the item without a span has no fields at all
        ("three 0;title", "0;x", None),  # a zero-width space leaves one space; an escape never spans two items
        ("four", "y", None),
    ]


def test_link_stands_in_for_url_and_enhance_fills_what_the_config_leaves_out() -> None:
    page = (
        '<div class="c"><h2 itemprop="headline">Tide tables</h2><a class="go" href="/t">more</a>'
        '<time datetime="2026-11-29T08:00:00">today</time><img src="/t.png"><p>Twice a day.</p></div>'
        '<div class="c"><a href="/u">Undertow</a></div>'
    )
    config = {
        "channel": {"url": "https://example.com/", "time_zone": "Europe/Berlin"},
        "selectors": {
            "items": {"selector": "div.c", "enhance": True},
            "link": {"selector": "a.go", "extractor": "href"},
        },
    }
    first, second = read_items(document(page, is_json=False), config, "https://example.com/news/")
    assert first["url"] == "https://example.com/t" and first["title"] == "Tide tables"  # link, then enhance
    assert first["published_at"] == "2026-11-29T08:00:00+01:00" and first["image"] == "https://example.com/t.png"
    assert first["description"] == "Twice a day."
    assert second["url"] == "https://example.com/u" and second["title"] == "Undertow"  # no link: enhance finds one


def test_html_extracted_from_a_page_is_always_made_safe() -> None:
    tree = document(
        '<ul><li><a href="/a">A</a><div class="d" onclick="x()"><script>evil()</script><img src="/i.png">'
        '<iframe src="https://evil.example/"></iframe>Body <a href="javascript:alert(1)">j</a></div></li></ul>',
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
        '<div><img src="https://example.com/i.png">Body <a rel="nofollow noopener noreferrer">j</a></div>'
    )
    assert item["title"] == "A j"  # every link the title's selector finds, as html2rss's text extractor reads


def test_rss_output_is_escaped_dated_in_the_channel_zone_and_accepted_by_feedparser() -> None:
    items = [
        {
            "id": "abc",
            "title": "Tides & <currents>",
            "url": "https://example.com/t?a=1&b=2",
            "description": "<p>Hello</p>",
            "published_at": "2026-11-29T07:30:00+00:00",
            "author": "Ana",
            "categories": ["sea", "sea2"],
            "enclosure": {"url": "https://example.com/t.mp3", "type": "audio/mpeg"},
        }
    ]
    channel = {"url": "https://example.com/", "title": "Harbour", "time_zone": "Europe/Berlin", "ttl": 60}
    xml = rss(channel, items)
    assert count_items(xml) == 1 and "<pubDate>Sun, 29 Nov 2026 08:30:00 +0100</pubDate>" in xml
    parsed = feedparser.parse(xml)
    assert not parsed.bozo, parsed.get("bozo_exception")
    entry = parsed.entries[0]
    assert entry.title == "Tides & <currents>" and entry.link == "https://example.com/t?a=1&b=2"
    assert entry.id == "abc" and entry.enclosures[0]["type"] == "audio/mpeg" and entry.author == "Ana"
    assert [t.term for t in entry.tags] == ["sea", "sea2"]


@pytest.mark.parametrize(
    ("zone", "date"),
    [
        ("America/St_Johns", "Sun, 29 Nov 2026 04:00:00 -0330"),
        ("Asia/Kathmandu", "Sun, 29 Nov 2026 13:15:00 +0545"),
        ("UTC", "Sun, 29 Nov 2026 07:30:00 +0000"),
    ],
)
def test_rss_dates_in_any_zone_and_text_xml_cannot_hold(zone: str, date: str) -> None:
    item = {"id": "a\x01b", "title": "Bell\x07 \ud800\ufffe tolls", "published_at": "2026-11-29T07:30:00+00:00"}
    xml = rss({"url": "https://example.com/", "time_zone": zone}, [item], [{"href": "/s.xsl?\x01>x"}])
    assert f"<pubDate>{date}</pubDate>" in xml and "<title>Bell  tolls</title>" in xml and ">ab</guid>" in xml
    assert '<?xml-stylesheet href="/s.xsl?&gt;x"?>' in xml  # a stripped control cannot close the instruction
    assert not feedparser.parse(xml).bozo


@pytest.fixture(scope="module")
def feeds(registry: Registry) -> Iterator[tuple[SyncClient, int]]:
    """An MCP client whose server may read 127.0.0.1 (the operator switch), and the listing site's port."""
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)), allow_private_hosts=True, host_interval=0.0, read_workers=0
    )
    runner = build_runner(registry, settings)
    with (
        serve(app=FEED_APP) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, port


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


EXPECTED = {
    "news": (5, "Storm closes the port for two days", "Sun, 29 Nov 2026 07:30:00 +0100"),
    "blog": (4, "Sharpening without a jig", "Mon, 12 Oct 2026 00:00:00 +0200"),
    "releases": (3, "v2.1.0 released", "Fri, 20 Nov 2026 10:00:00 +0000"),
    "jobs": (4, "Deckhand (seasonal) at North Ferries", "Wed, 25 Nov 2026 00:00:00 -0500"),
    "api": (3, "Tide gauge upgraded", "Sun, 29 Nov 2026 08:00:00 +1300"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_configs_apply_to_rss_that_feedparser_reads(feeds: tuple[SyncClient, int], name: str) -> None:
    client, port = feeds
    text = (FIXTURES / f"{name}.yml").read_text(encoding="utf-8")
    envelope = _call(client, "apply_config", {"yaml": text, "parameters": {"port": str(port)}})
    assert envelope["ok"] and envelope["next_step"] == "done", envelope
    count, first_title, first_date = EXPECTED[name]
    payload = envelope["payload"]
    assert payload["item_count"] == count and payload["pages"] == 1
    parsed = feedparser.parse(payload["rss"])
    assert not parsed.bozo and len(parsed.entries) == count
    first = parsed.entries[0]
    assert first.title == first_title and first.published == first_date
    assert all(entry.link.startswith(("http://127.0.0.1:", "https://notices.example/")) for entry in parsed.entries)
    again = _call(client, "apply_config", {"yaml": text, "parameters": {"port": str(port)}})
    assert [e.id for e in feedparser.parse(again["payload"]["rss"]).entries] == [e.id for e in parsed.entries]


def test_blog_config_details_survive_into_the_feed(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    text = (FIXTURES / "blog.yml").read_text(encoding="utf-8")
    payload = _call(client, "apply_config", {"yaml": text, "parameters": {"port": str(port)}, "format": "json_feed"})[
        "payload"
    ]
    items = payload["feed"]["items"]
    assert [i["title"] for i in items][-1] == "Restoring a 1950s lathe"  # order: reverse
    dovetails = next(i for i in items if "dovetails" in i["url"])
    assert dovetails["title"] == "Hand-cut dovetails (attempt third)"  # gsub with a group
    assert dovetails["content_html"] == "<div><p>Better, but not there yet. </p></div>"  # the script is gone
    assert dovetails["tags"] == ["wood"] and payload["feed"]["version"] == "https://jsonfeed.org/version/1.1"
    lathe = next(i for i in items if "lathe" in i["url"])  # a:first read in Nokogiri's dialect, as html2rss does
    assert lathe["url"].endswith("/2026/11/lathe-restoration/") and lathe["tags"] == ["metal", "tools"]  # each tag


@pytest.mark.parametrize("name", ["news", "blog", "jobs", "releases"])
def test_capture_validate_apply_over_mcp(feeds: tuple[SyncClient, int], name: str) -> None:
    client, port = feeds
    captured = _call(client, "capture_config", {"url": f"http://127.0.0.1:{port}/feeds/{name}"})
    assert captured["ok"] and captured["next_step"] == "validate_config", captured
    draft = captured["payload"]
    assert draft["articles_count"] == EXPECTED[name][0] and draft["config"]["selectors"]["items"]["enhance"] is True
    checked = _call(client, "validate_config", {"yaml": draft["yaml"]})
    assert checked["payload"]["valid"] is True and checked["next_step"] == "apply_config", checked
    applied = _call(client, "apply_config", {"config": checked["payload"]["config"]})
    assert applied["ok"] and applied["payload"]["item_count"] == EXPECTED[name][0]
    parsed = feedparser.parse(applied["payload"]["rss"])
    assert not parsed.bozo and all(entry.title and entry.link for entry in parsed.entries)


@pytest.mark.parametrize(
    ("page", "count", "first"),
    [
        ("state", 3, "Episode 12: Night pilots"),
        ("jsonld", 3, "Reading tide tables"),
        ("news", 5, "Storm closes"),
        ("sitemap.xml", 3, "reading tide tables"),
    ],
)
def test_scrape_url_detects_items(feeds: tuple[SyncClient, int], page: str, count: int, first: str) -> None:
    client, port = feeds
    envelope = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/{page}", "limit": 2})
    payload = envelope["payload"]
    assert envelope["next_step"] == "done" and payload["total"] == count and len(payload["items"]) == 2
    assert payload["items"][0]["title"].startswith(first) and payload["source"] == "auto"


def test_scrape_url_with_a_selector_hint_and_an_empty_page(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    hinted = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "tr.job"})
    assert hinted["payload"]["source"] == "selector" and hinted["payload"]["total"] == 4
    assert hinted["payload"]["items"][0] == {
        "title": "Deckhand (seasonal)",
        "url": f"http://127.0.0.1:{port}/jobs/101",
        "id": hinted["payload"]["items"][0]["id"],
    }
    unreadable = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "tr[["})
    assert unreadable["payload"]["error"]["code"] == "invalid_config"
    assert unreadable["payload"]["error"]["message"] == "items_selector: 'tr[[' is not a CSS selector netglean can read"
    empty = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/empty"})
    assert empty["ok"] is True and empty["payload"]["items"] == [] and empty["next_step"] == "inspect_url"


@pytest.mark.parametrize("depth", [150, 20_000])
def test_a_json_page_nested_too_deep_is_unsupported_content(feeds: tuple[SyncClient, int], depth: int) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/deep.json?depth={depth}"},
        "selectors": {"items": {"selector": "array > object"}, "title": {"selector": "title"}},
    }
    error = _call(client, "apply_config", {"config": config})["payload"]["error"]
    assert error["code"] == "unsupported_content"
    assert error["message"].endswith("says it is JSON but cannot be read: the JSON nests deeper than 100 levels")


def test_pagination_is_followed_up_to_max_pages(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "selectors": {
            "items": {"selector": "li.entry", "pagination": {"max_pages": 2}},
            "title": {"selector": "a"},
            "url": {"selector": "a", "extractor": "href"},
        },
    }
    payload = _call(client, "apply_config", {"config": config, "format": "json_feed"})["payload"]
    assert payload["pages"] == 2 and payload["item_count"] == 6
    assert payload["feed"]["items"][-1]["title"] == "Post 2 of page 2"


def test_config_headers_stylesheets_and_request_limits_apply(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    config = {
        "headers": {
            "X-Greeting": "ahoy",
            "Accept-Language": "de",
            "User-Agent": "pretend-browser",
            "Bad Name": "dropped",
            "X-Smuggle": "a\r\nHost: evil.test",
        },
        "stylesheets": [{"href": "/feed.xsl", "type": "text/xsl"}],
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/headers"},
        "selectors": {"items": {"selector": "li.header"}, "title": {"selector": "a"}},
    }
    payload = _call(client, "apply_config", {"config": config})["payload"]
    titles = [entry.title for entry in feedparser.parse(payload["rss"]).entries]
    assert "x-greeting says ahoy" in titles and "accept-language says de" in titles and len(titles) == 3
    assert any(t.startswith("user-agent says netglean/") for t in titles)  # netglean names itself, always
    assert '<?xml-stylesheet href="/feed.xsl" type="text/xsl"?>' in payload["rss"]
    paged = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "request": {"max_requests": 1},
        "selectors": {"items": {"selector": "li.entry", "pagination": {"max_pages": 3}}, "title": {"selector": "a"}},
    }
    assert _call(client, "apply_config", {"config": paged})["payload"]["pages"] == 1


def test_failures_point_somewhere_useful(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    nothing = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/news"},
        "selectors": {"items": {"selector": "div.nothing-here"}, "title": {"selector": "h2"}},
    }
    empty = _call(client, "apply_config", {"config": nothing})
    assert empty["ok"] is False and empty["payload"]["error"]["code"] == "no_items"
    assert empty["next_step"] == "inspect_url"
    browser = {**nothing, "strategy": "browserless"}
    checked = _call(client, "validate_config", {"config": browser})["payload"]
    assert checked["valid"] is True and checked["browser_required"] is True
    refused = _call(client, "apply_config", {"config": browser})
    assert refused["payload"]["error"]["code"] == "not_available"
    assert "browser rendering is not available" in refused["payload"]["error"]["message"]
    invalid = _call(
        client, "validate_config", {"yaml": "channel: {url: 'file:///etc/passwd'}\nselectors: {items: {selector: a}}"}
    )
    assert invalid["payload"]["valid"] is False and invalid["next_step"] == "validate_config"
    assert invalid["payload"]["errors"][0]["path"] == "/channel/url"
    both = client.call("validate_config", {"yaml": "a: 1", "config": {}}).structured_content
    assert both["payload"]["error"]["code"] == "invalid_arguments"


def test_feed_resources(feeds: tuple[SyncClient, int]) -> None:
    import json

    client, _ = feeds
    schema = json.loads(client.run("read_resource", "netglean://feeds/config-schema").contents[0].text)
    assert schema["title"] == "FeedConfig" and "FeedField" in schema["$defs"]
    extractors = json.loads(client.run("read_resource", "netglean://feeds/extractors").contents[0].text)
    assert set(extractors["extractors"]) == {"text", "html", "href", "attribute", "static"}
    assert "parse_time" in extractors["post_processors"]
    capabilities = json.loads(client.run("read_resource", "netglean://feeds/capabilities").contents[0].text)
    assert capabilities["browser_rendering"] is False and all(isinstance(v, bool) for v in capabilities.values())
    strategies = json.loads(client.run("read_resource", "netglean://feeds/strategies").contents[0].text)
    assert strategies["available"] == ["faraday"]
