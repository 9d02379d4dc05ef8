"""Post-processing steps (netglean.feeds.steps): each html2rss step, a column at a time, and what a
config cannot make of a value (text past the cap, a pattern that backtracks for minutes)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from netglean.feeds import steps as feed_steps
from netglean.feeds.items import document, read_items
from netglean.read import patterns


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
    assert (
        _step({"name": "gsub", "pattern": "/^(\\d+.)\\s/", "replacement": ""}, "12. Title")
        == "Title"
    )
    assert (
        _step({"name": "gsub", "pattern": "/(\\w+) (\\w+)/", "replacement": "\\2 \\1"}, "tide high")
        == "high tide"
    )
    # a regex, slashes or not
    assert _step({"name": "gsub", "pattern": "a.b", "replacement": "-"}, "a.b axb") == "- -"
    # too short to lose slashes
    assert _step({"name": "gsub", "pattern": "//", "replacement": "/"}, "a//b") == "a/b"
    assert (
        _step({"name": "gsub", "pattern": "(?<n>\\d+)", "replacement": "#\\k<n>\\0\\\\\\9"}, "v12")
        == "v#1212\\"
    )
    assert (
        _step(
            {"name": "gsub", "pattern": "/tide|moon/i", "replacement": {"Tide": "T"}}, "Tide moon"
        )
        == "T "
    )
    assert (
        _step({"name": "template", "string": "%{self} by %<author>s"}, "Tides", author="Ana")
        == "Tides by Ana"
    )
    assert _step({"name": "substring", "start": 0, "end": -5}, "Heute, 12:00 Uhr") == "Heute, 12:00"
    assert _step({"name": "substring", "start": 2, "end": 4}, "abcdef") == "cde"
    stamp = _step({"name": "parse_time"}, "2026-11-29 08:00")
    assert isinstance(stamp, datetime) and stamp.isoformat() == "2026-11-29T08:00:00+01:00"
    assert _step({"name": "parse_time"}, "not a date at all") is None
    clean = _step(
        {"name": "sanitize_html"},
        '<p onclick="x()">Hi <a href="/b">b</a><script>evil()</script></p>',
    )
    assert (
        clean
        == '<p>Hi <a href="https://example.com/b" rel="nofollow noopener noreferrer">b</a></p>'
    )
    assert _step({"name": "markdown_to_html"}, "**bold** [x](/y)") == (
        '<p><strong>bold</strong> <a href="https://example.com/y" rel="nofollow noopener '
        'noreferrer">x</a></p>'
    )
    spaced = _step({"name": "sanitize_html"}, "<p>\n  Tides\t and\u00a0 <b>moon</b>\n</p>\n")
    # ASCII whitespace collapsed, as html2rss's
    assert spaced == "<p> Tides and&nbsp; <b>moon</b> </p>"
    template = _step(
        {"name": "template", "string": "%{self}!"}, datetime(2026, 11, 29, 8, tzinfo=UTC)
    )
    # a date reads as html2rss's parse_time leaves it
    assert template == "Sun, 29 Nov 2026 08:00:00 +0000!"
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
    # a value gone before a step ends its chain; templates fill per item
    assert values == ["ay/1/", None, "by/3/"]
    assert _step(template, None, n="7") == "/7/"  # a template is where a value can begin


def test_a_config_cannot_grow_a_value_past_the_cap() -> None:
    cap = patterns.MAX_VALUE_CHARS
    long = "x" * (cap // 2)
    # not 250 MB, cut as built
    assert _step({"name": "template", "string": "%{self}" * 5_000}, long) == "x" * cap
    # dropped
    assert _step({"name": "gsub", "pattern": ".", "replacement": "\\0" * 10_000}, long) is None
    # in reach
    assert _step({"name": "gsub", "pattern": "/x{10}/", "replacement": "yy"}, long) == "yy" * (
        cap // 20
    )
    page = f"<ul><li><p>{'word ' * cap}</p></li></ul>"
    config = {
        "channel": {"url": "https://example.com/"},
        "selectors": {"items": {"selector": "li"}, "title": {}},
    }
    [item] = read_items(document(page, is_json=False), config, "https://example.com/")
    assert len(item["title"]) == cap  # read from the page, then cut


def test_a_backtracking_pattern_costs_one_value_not_the_server() -> None:
    bomb = {"name": "gsub", "pattern": "/(a|aa)+$/", "replacement": ""}
    assert _step(bomb, "a" * 40 + "b") is None  # stopped at patterns.REGEX_SECONDS
    # \A: start only
    assert _step({"name": "gsub", "pattern": "/\\Aab/", "replacement": "x"}, "ab\nab") == "x\nab"
