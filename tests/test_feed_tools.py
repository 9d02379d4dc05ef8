"""The feed tools over MCP against listing pages served on 127.0.0.1: capture -> validate -> apply,
scrape_url, the fixture configs to RSS and JSON Feed, pagination, headers, failures and the feed
resources."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import feedparser
import pytest
from mcp.client._memory import InMemoryTransport

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.feed_site import FEED_APP, FIXTURES
from tests.support.fixture_site import serve


@pytest.fixture(scope="module")
def feeds(registry: Registry) -> Iterator[tuple[SyncClient, int]]:
    """An MCP client whose server may read 127.0.0.1 (the operator switch), and the listing site's
    port."""
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
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
def test_fixture_configs_apply_to_rss_that_feedparser_reads(
    feeds: tuple[SyncClient, int], name: str
) -> None:
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
    assert all(
        entry.link.startswith(("http://127.0.0.1:", "https://notices.example/"))
        for entry in parsed.entries
    )
    again = _call(client, "apply_config", {"yaml": text, "parameters": {"port": str(port)}})
    assert [e.id for e in feedparser.parse(again["payload"]["rss"]).entries] == [
        e.id for e in parsed.entries
    ]


def test_blog_config_details_survive_into_the_feed(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    text = (FIXTURES / "blog.yml").read_text(encoding="utf-8")
    payload = _call(
        client,
        "apply_config",
        {"yaml": text, "parameters": {"port": str(port)}, "format": "json_feed"},
    )["payload"]
    items = payload["feed"]["items"]
    assert [i["title"] for i in items][-1] == "Restoring a 1950s lathe"  # order: reverse
    dovetails = next(i for i in items if "dovetails" in i["url"])
    assert dovetails["title"] == "Hand-cut dovetails (attempt third)"  # gsub with a group
    # the script is gone
    assert dovetails["content_html"] == "<div><p>Better, but not there yet. </p></div>"
    assert (
        dovetails["tags"] == ["wood"]
        and payload["feed"]["version"] == "https://jsonfeed.org/version/1.1"
    )
    # a:first read in Nokogiri's dialect, as html2rss does
    lathe = next(i for i in items if "lathe" in i["url"])
    # each tag
    assert lathe["url"].endswith("/2026/11/lathe-restoration/") and lathe["tags"] == [
        "metal",
        "tools",
    ]


@pytest.mark.parametrize("name", ["news", "blog", "jobs", "releases"])
def test_capture_validate_apply_over_mcp(feeds: tuple[SyncClient, int], name: str) -> None:
    client, port = feeds
    captured = _call(client, "capture_config", {"url": f"http://127.0.0.1:{port}/feeds/{name}"})
    assert captured["ok"] and captured["next_step"] == "validate_config", captured
    draft = captured["payload"]
    assert (
        draft["articles_count"] == EXPECTED[name][0]
        and draft["config"]["selectors"]["items"]["enhance"] is True
    )
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
def test_scrape_url_detects_items(
    feeds: tuple[SyncClient, int], page: str, count: int, first: str
) -> None:
    client, port = feeds
    envelope = _call(
        client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/{page}", "limit": 2}
    )
    payload = envelope["payload"]
    assert (
        envelope["next_step"] == "done" and payload["total"] == count and len(payload["items"]) == 2
    )
    assert payload["items"][0]["title"].startswith(first) and payload["source"] == "auto"


def test_scrape_url_with_a_selector_hint_and_an_empty_page(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    hinted = _call(
        client,
        "scrape_url",
        {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "tr.job"},
    )
    assert hinted["payload"]["source"] == "selector" and hinted["payload"]["total"] == 4
    assert hinted["payload"]["items"][0] == {
        "title": "Deckhand (seasonal)",
        "url": f"http://127.0.0.1:{port}/jobs/101",
        "id": hinted["payload"]["items"][0]["id"],
    }
    unreadable = _call(
        client,
        "scrape_url",
        {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "tr[["},
    )
    assert unreadable["payload"]["error"]["code"] == "invalid_config"
    assert (
        unreadable["payload"]["error"]["message"]
        == 'items_selector: "tr[[" is not a CSS selector netglean can read'
    )
    empty = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/empty"})
    assert (
        empty["ok"] is True
        and empty["payload"]["items"] == []
        and empty["next_step"] == "inspect_url"
    )


def test_scrape_url_names_its_channel_strategy_and_drops(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    payload = _call(
        client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/news", "strategy": "faraday"}
    )["payload"]
    assert (
        payload["channel_title"] == payload["title"] and payload["requested_strategy"] == "faraday"
    )
    walled = _call(client, "scrape_url", {"url": f"http://127.0.0.1:{port}/feeds/empty"})["payload"]
    assert "admission_drops" not in walled  # present only when a candidate was left out


def test_capture_config_drafts_detection_for_a_page_without_a_repeated_structure(
    feeds: tuple[SyncClient, int],
) -> None:
    """The JSON-LD page lists its guides in a script, not in repeated markup: the draft leaves them
    to auto_source."""
    client, port = feeds
    captured = _call(client, "capture_config", {"url": f"http://127.0.0.1:{port}/feeds/jsonld"})
    assert captured["ok"] and captured["next_step"] == "validate_config", captured
    draft = captured["payload"]
    assert (
        draft["has_selectors"] is False
        and draft["selectors"] == {}
        and draft["articles_count"] == 3
    )
    assert draft["config"]["auto_source"] == {} and draft["channel_title"] == "Tide tables – guides"
    applied = _call(client, "apply_config", {"yaml": draft["yaml"]})
    assert applied["ok"] and applied["payload"]["item_count"] == 3


def test_capture_config_hints_and_what_cannot_be_drafted(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    hinted = _call(
        client,
        "capture_config",
        {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "tr.job"},
    )
    assert hinted["payload"]["config"]["selectors"]["items"]["selector"] == "tr.job"
    assert hinted["payload"]["articles_count"] == 4 and hinted["next_step"] == "validate_config"
    missed = _call(
        client,
        "capture_config",
        {"url": f"http://127.0.0.1:{port}/feeds/jobs", "items_selector": "li.x"},
    )
    assert (
        missed["ok"]
        and missed["payload"]["articles_count"] == 0
        and missed["next_step"] == "inspect_url"
    )
    api = _call(client, "capture_config", {"url": f"http://127.0.0.1:{port}/feeds/api.json"})
    assert api["ok"] is False and api["payload"]["error"]["code"] == "unsupported_content"
    assert "write its config by hand" in api["payload"]["error"]["message"]


@pytest.mark.parametrize("depth", [150, 20_000])
def test_a_json_page_nested_too_deep_is_unsupported_content(
    feeds: tuple[SyncClient, int], depth: int
) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/deep.json?depth={depth}"},
        "selectors": {"items": {"selector": "array > object"}, "title": {"selector": "title"}},
    }
    error = _call(client, "apply_config", {"config": config})["payload"]["error"]
    assert error["code"] == "unsupported_content"
    assert error["message"].endswith(
        "says it is JSON but cannot be read: the JSON nests deeper than 100 levels"
    )


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
    assert (
        "x-greeting says ahoy" in titles
        and "accept-language says de" in titles
        and len(titles) == 3
    )
    # netglean names itself, always
    assert any(t.startswith("user-agent says netglean/") for t in titles)
    assert '<?xml-stylesheet href="/feed.xsl" type="text/xsl"?>' in payload["rss"]
    paged = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "request": {"max_requests": 1},
        "selectors": {
            "items": {"selector": "li.entry", "pagination": {"max_pages": 3}},
            "title": {"selector": "a"},
        },
    }
    assert _call(client, "apply_config", {"config": paged})["payload"]["pages"] == 1


@pytest.mark.browser  # auto renders a listing with no items in its markup before it says so
def test_failures_point_somewhere_useful(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    nothing = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/news"},
        "selectors": {"items": {"selector": "div.nothing-here"}, "title": {"selector": "h2"}},
    }
    empty = client.call("apply_config", {"config": nothing})
    assert empty.is_error and empty.structured_content["payload"]["error"]["code"] == "no_items"
    assert empty.structured_content["next_step"] == "inspect_url"
    assert empty.structured_content["payload"]["item_count"] == 0
    browser = {**nothing, "strategy": "browserless"}
    checked = _call(client, "validate_config", {"config": browser})["payload"]
    assert checked["valid"] is True and checked["browser_required"] is True
    # rendered, and no items there either
    rendered = _call(client, "apply_config", {"config": browser})
    assert (
        rendered["payload"]["error"]["code"] == "no_items"
        and rendered["next_step"] == "inspect_url"
    )
    invalid = client.call(
        "validate_config",
        {"yaml": "channel: {url: 'file:///etc/passwd'}\nselectors: {items: {selector: a}}"},
    )
    envelope = invalid.structured_content
    assert (
        invalid.is_error and envelope["ok"] is False and envelope["next_step"] == "validate_config"
    )
    assert envelope["payload"]["errors"] == envelope["payload"]["error"]["detail"]["errors"]
    assert (
        envelope["payload"]["errors"][0]["path"] == "/channel/url"
        and envelope["payload"]["warnings"] == []
    )
    assert "payload.errors" in envelope["guidance"]
    both = client.call("validate_config", {"yaml": "a: 1", "config": {}})
    assert (
        both.is_error and both.structured_content["payload"]["error"]["code"] == "invalid_arguments"
    )
    assert both.structured_content["next_step"] == "validate_config"
    neither = client.call(
        "apply_config", {"url": f"http://127.0.0.1:{port}/feeds/news"}
    ).structured_content
    assert neither["payload"]["error"]["message"].endswith(
        "give exactly one of config or yaml; the call gives none of them"
    )


def test_strategy_auto_validates_and_applies(feeds: tuple[SyncClient, int]) -> None:
    client, port = feeds
    config = {
        "strategy": "auto",
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "selectors": {"items": {"selector": "li.entry"}, "title": {"selector": "a"}},
    }
    checked = _call(client, "validate_config", {"config": config})["payload"]
    assert checked["browser_required"] is False and checked["config"]["strategy"] == "auto"
    assert _call(client, "apply_config", {"config": config})["payload"]["item_count"] == 3


def test_the_url_argument_stands_in_for_a_missing_channel_url(
    feeds: tuple[SyncClient, int],
) -> None:
    client, port = feeds
    page = f"http://127.0.0.1:{port}/feeds/paged"
    bare = {"selectors": {"items": {"selector": "li.entry"}, "title": {"selector": "a"}}}
    applied = _call(client, "apply_config", {"config": bare, "url": page})
    assert (
        applied["ok"]
        and applied["payload"]["item_count"] == 3
        and applied["payload"]["warnings"] == []
    )
    own = {**bare, "channel": {"url": page}}
    other = _call(
        client, "apply_config", {"config": own, "url": f"http://127.0.0.1:{port}/feeds/news"}
    )
    assert other["payload"]["item_count"] == 3  # the config's own channel.url is read
    assert [w["path"] for w in other["payload"]["warnings"]] == ["/channel/url"]
    assert "1 warning(s) about the config" in other["guidance"]
    missing = client.call("apply_config", {"config": {**bare, "channel": {"title": "Posts"}}})
    [problem] = missing.structured_content["payload"]["errors"]
    assert (
        missing.is_error
        and problem["path"] == "/channel"
        and "url argument stands in" in problem["message"]
    )


def test_a_limit_cuts_only_when_asked_and_the_guidance_says_so(
    feeds: tuple[SyncClient, int],
) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "selectors": {
            "items": {"selector": "li.entry", "pagination": {"max_pages": 3}},
            "title": {"selector": "a"},
        },
    }
    everything = _call(client, "apply_config", {"config": config})
    assert (
        everything["payload"]["item_count"] == 9 and "items_over_limit" not in everything["payload"]
    )
    assert everything["guidance"] == "9 items from 3 page(s)."
    limited = _call(client, "apply_config", {"config": config, "limit": 4})
    assert limited["payload"]["item_count"] == 4 and limited["payload"]["items_over_limit"] == 5
    assert "5 more were found beyond the limit of 4 and left out" in limited["guidance"]


def test_unknown_config_keys_are_warnings_and_the_config_applies(
    feeds: tuple[SyncClient, int],
) -> None:
    """A config written for html2rss may carry keys it ignores (a comment, a template step's
    methods)."""
    client, port = feeds
    text = f"""
comment: html2rss ignores this
channel: {{url: "http://127.0.0.1:{port}/feeds/paged"}}
selectors:
  items: {{selector: li.entry}}
  title:
    selector: a
    post_process:
      - {{name: template, string: "Post: %{{self}}", methods: [upcase]}}
"""
    checked = _call(client, "validate_config", {"yaml": text})
    assert checked["ok"] and checked["next_step"] == "apply_config"
    paths = [w["path"] for w in checked["payload"]["warnings"]]
    assert paths == ["/comment", "/selectors/title/post_process/0/methods"]
    assert "2 key(s) the format does not know were ignored" in checked["guidance"]
    applied = _call(client, "apply_config", {"yaml": text, "format": "json_feed"})["payload"]
    assert [w["path"] for w in applied["warnings"]] == paths
    assert applied["feed"]["items"][0]["title"] == "Post: Post 0 of page 1"
    typo = text.replace(
        "items: {selector: li.entry}", "items: {selector: li.entry, selectr: x}"
    ).replace("title:\n    selector: a", "title:\n    selecter: a")
    warned = _call(client, "validate_config", {"yaml": typo})["payload"]["warnings"]
    assert any(
        w["path"] == "/selectors/title/selecter" and "did you mean 'selector'?" in w["message"]
        for w in warned
    )


@pytest.mark.browser  # the runtime resource says this server can render
def test_feed_resources(feeds: tuple[SyncClient, int]) -> None:
    import json

    client, _ = feeds
    schema = json.loads(
        client.run("read_resource", "netglean://feeds/config-schema").contents[0].text
    )
    assert schema["title"] == "FeedConfig" and "FeedField" in schema["$defs"]
    extractors = json.loads(
        client.run("read_resource", "netglean://feeds/extractors").contents[0].text
    )
    assert set(extractors["extractors"]) == {"text", "html", "href", "attribute", "static"}
    assert "outer HTML" in extractors["extractors"]["html"]
    assert "parse_time" in extractors["post_processors"]
    capabilities = json.loads(
        client.run("read_resource", "netglean://feeds/capabilities").contents[0].text
    )
    assert capabilities["browser_rendering"] is True and all(
        isinstance(v, bool) for v in capabilities.values()
    )
    strategies = json.loads(
        client.run("read_resource", "netglean://feeds/strategies").contents[0].text
    )
    assert strategies["available"] == ["auto", "faraday", "botasaurus", "browserless"]
    assert "browser" in strategies["strategies"]["botasaurus"]


def test_the_html_extractor_gives_outer_html_as_the_resources_say(
    feeds: tuple[SyncClient, int],
) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/paged"},
        "selectors": {
            "items": {"selector": "li.entry"},
            "title": {"selector": "a"},
            "description": {"selector": "a", "extractor": "html"},
        },
    }
    items = _call(client, "apply_config", {"config": config, "format": "json_feed"})["payload"][
        "feed"
    ]["items"]
    assert items[0]["content_html"].startswith("<a ") and items[0]["content_html"].endswith("</a>")


def _text(result: Any) -> str:
    """The answer's text block, which is what a model reads."""
    text: str = result.content[0].text
    return text


def test_config_errors_quote_values_briefly_and_list_at_most_twenty(
    feeds: tuple[SyncClient, int],
) -> None:
    """A config is the caller's text up to the argument cap: what comes back quotes 80 characters of
    any value or key, lists 20 problems (and 20 warnings) and counts the rest, whatever the config
    holds."""
    client, port = feeds
    page = f"http://127.0.0.1:{port}/feeds/paged"
    base = {
        "channel": {"url": page},
        "selectors": {"items": {"selector": "li.entry"}, "title": {"selector": "a"}},
    }
    fields = {f"f{n}": {"selector": "a", "extractor": "nope" * 1000} for n in range(50)}
    cases: list[tuple[str, dict[str, Any], str]] = [
        (
            "validate_config",
            {
                "config": {
                    **base,
                    "directory": {"title": "t", "topics": ["a"], "summary": "y" * 100_000},
                }
            },
            "/directory/summary",
        ),
        ("validate_config", {"config": {**base, "strategy": "z" * 50_000}}, "/strategy"),
        (
            "validate_config",
            {"config": {**base, "channel": {"url": "ftp://" + "a" * 50_000}}},
            "/channel/url",
        ),
        (
            "apply_config",
            {"config": {**base, "channel": {"url": "ftp://" + "a" * 50_000}}},
            "/channel/url",
        ),
        (
            "validate_config",
            {"config": {**base, "selectors": {"items": {"selector": "[[[" + "a" * 50_000}}}},
            "/selectors/items/selector",
        ),
        (
            "validate_config",
            {"config": {**base, "selectors": {**base["selectors"], **fields}}},
            "/selectors/f0/extractor",
        ),
        (
            "apply_config",
            {"config": base, "parameters": {"k" * 100_000: 1}},
            "/parameters/" + "k" * 80 + "… (100000 characters)",
        ),
    ]
    for tool, arguments, path in cases:
        result = client.call(tool, arguments)
        payload = result.structured_content["payload"]
        assert result.is_error and payload["error"]["code"] == "invalid_config", (
            tool,
            payload["error"],
        )
        assert len(_text(result)) < 20_000, (tool, path, len(_text(result)))
        assert payload["errors"][0]["path"] == path and len(payload["error"]["message"]) <= 300
    many = client.call(
        "validate_config", {"config": {**base, "selectors": {**base["selectors"], **fields}}}
    )
    payload = many.structured_content["payload"]
    assert (
        len(payload["errors"]) == 20
        and payload["more_errors"] == 30
        and payload["error"]["detail"]["more_errors"] == 30
    )
    assert payload["error"]["message"].endswith("(and 49 more)")
    assert (
        '"nopenope' in payload["errors"][0]["message"]
        and "(4000 characters)" in payload["errors"][0]["message"]
    )
    unknown = client.call("validate_config", {"config": {**base, "k" * 50_000: 1}})
    [warning] = unknown.structured_content["payload"]["warnings"]
    assert not unknown.is_error and len(_text(unknown)) < 20_000
    assert warning["message"].startswith(
        '"' + "k" * 79 + "… (50000 characters) is not a key of the config"
    )
    keys = {**base, **{f"x{n}": n for n in range(30)}}
    checked = _call(client, "validate_config", {"config": keys})
    assert len(checked["payload"]["warnings"]) == 20 and checked["payload"]["more_warnings"] == 10
    assert "30 key(s) the format does not know were ignored" in checked["guidance"]
    applied = _call(client, "apply_config", {"config": keys})
    assert len(applied["payload"]["warnings"]) == 20 and applied["payload"]["more_warnings"] == 10
    selector = client.call("scrape_url", {"url": page, "items_selector": "[[" + "b" * 490})
    assert (
        selector.is_error and len(selector.structured_content["payload"]["error"]["message"]) < 200
    )


def test_no_items_says_what_the_config_found(feeds: tuple[SyncClient, int]) -> None:
    """No items: the items selector matched nothing, matched elements that gave no item, or there is
    no items selector and detection found none. The message holds counts and the config's own
    selector, never page text."""
    client, port = feeds
    page = f"http://127.0.0.1:{port}/feeds/paged"
    cases = [
        (
            {"items": {"selector": "div.none"}, "title": {"selector": "a"}},
            'its items selector "div.none" matches nothing there',
            0,
        ),
        (
            {"items": {"selector": "li.entry", "enhance": False}, "title": {"selector": "h9"}},
            'its items selector "li.entry" matched 3 element(s) there, but none gave an item '
            "with a title or link",
            3,
        ),
    ]
    for selectors, words, matched in cases:
        result = client.call(
            "apply_config", {"config": {"channel": {"url": page}, "selectors": selectors}}
        )
        error = result.structured_content["payload"]["error"]
        assert error["code"] == "no_items" and error["message"].endswith(words), error["message"]
        assert error["detail"]["elements_matched"] == matched
    detected = client.call(
        "apply_config",
        {"config": {"channel": {"url": f"http://127.0.0.1:{port}/feeds/empty"}, "auto_source": {}}},
    )
    error = detected.structured_content["payload"]["error"]
    assert error["code"] == "no_items" and error["message"].endswith(
        "detection (auto_source) found none there"
    )
    assert error["detail"]["items_selector"] is None and "Checking" not in error["message"]


def test_a_url_argument_equal_to_the_filled_in_channel_url_is_no_warning(
    feeds: tuple[SyncClient, int],
) -> None:
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/%<section>s"},
        "parameters": {"section": {"type": "string", "default": "paged"}},
        "selectors": {"items": {"selector": "li.entry"}, "title": {"selector": "a"}},
    }
    same = _call(
        client, "apply_config", {"config": config, "url": f"http://127.0.0.1:{port}/feeds/paged"}
    )
    assert same["payload"]["item_count"] == 3 and same["payload"]["warnings"] == []
    other = _call(
        client, "apply_config", {"config": config, "url": f"http://127.0.0.1:{port}/feeds/news"}
    )
    assert [w["path"] for w in other["payload"]["warnings"]] == ["/channel/url"]


def test_tags_holding_markup_reach_the_rss_as_written(feeds: tuple[SyncClient, int]) -> None:
    """A tag's text is the item's category, escaped: "Q&A" and "</category><category>injected" stay
    one category each, and the RSS is well-formed XML."""
    client, port = feeds
    config = {
        "channel": {"url": f"http://127.0.0.1:{port}/feeds/markup-tags"},
        "selectors": {
            "items": {"selector": "article.note"},
            "title": {"selector": "h2 a"},
            "url": {"selector": "h2 a", "extractor": "href"},
            "tags": {"selector": "ul.tags a"},
            "categories": ["tags"],
        },
    }
    applied = _call(client, "apply_config", {"config": config})
    assert applied["ok"] is True, applied["payload"]
    rss = applied["payload"]["rss"]
    root = ElementTree.fromstring(rss)
    items = [
        (item.findtext("title"), [category.text for category in item.findall("category")])
        for item in root.iter("item")
    ]
    assert items == [
        ("R&D <b>day</b>", ["Q&A", "</category><category>injected"]),
        ("Tides > 5 m", ["sea & sky"]),
    ], rss
    assert [tag.term for tag in feedparser.parse(rss).entries[0].tags] == [
        "Q&A",
        "</category><category>injected",
    ]


def test_bylines_tags_and_images_of_a_listing_reach_its_items_and_its_feed(
    feeds: tuple[SyncClient, int],
) -> None:
    """Found as a new user would (issue 19): scrape_url left out the author and categories in the
    items' markup, the drafted description took the byline with the summary, and RSS dropped the
    image JSON Feed kept."""
    client, port = feeds
    url = f"http://127.0.0.1:{port}/feeds/bylines"
    scraped = _call(client, "scrape_url", {"url": url})["payload"]["items"]
    first = scraped[0]
    assert (first["author"], first["categories"]) == ("Ana Ruiz", ["weather", "ferries"])
    assert first["description"] == "Ferries stay in for two days while the storm passes."
    assert first["image"] == f"http://127.0.0.1:{port}/img/storm.jpg"
    draft = _call(client, "capture_config", {"url": url})["payload"]["config"]
    selectors = draft["selectors"]
    assert (
        selectors["description"]["selector"] == "p.summary"
        and selectors["author"]["selector"] == "p.byline"
    )
    assert selectors["categories"] == ["tags"]
    applied = _call(client, "apply_config", {"config": draft})
    assert applied["ok"] is True, applied["payload"]
    entry = feedparser.parse(applied["payload"]["rss"]).entries[0]
    assert (
        entry.summary == "Ferries stay in for two days while the storm passes."
        and "Ana" in entry.author
    )
    assert [tag.term for tag in entry.tags] == ["weather", "ferries"]
    assert entry.media_content[0]["url"] == f"http://127.0.0.1:{port}/img/storm.jpg"
