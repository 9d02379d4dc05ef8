"""Small inputs that used to freeze or exhaust the server, and deadlines that now hold: each case
failed before.

A server with one real reader process (where a hostile page's reading can be stopped) reads a
hostile site on 127.0.0.1: selectors that take minutes, a template that multiplies text, a
backtracking pattern over many items, a page that never finishes arriving inside a batch, pagination
to a local file. Its call deadline is short where a test is about running out of time, generous
elsewhere. Every call must come back as a clean envelope, with what could be read kept, and the
server must go on serving.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from xml.etree import ElementTree

import anyio
import feedparser
import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.errors import InvalidFeedConfig
from netglean.core.settings import Settings
from netglean.feeds import config as feed_config
from netglean.feeds import steps as feed_steps
from netglean.feeds.output import rss
from netglean.read import patterns
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

SHORT_CALL_TIMEOUT = 4.0
"""The deadline of the server whose tests are about a call running out of time (a 60 s drip, a 57 s
selector)."""
GENEROUS_CALL_TIMEOUT = 60.0
"""The deadline of the server whose tests must finish (a template bomb, 200 slow patterns): no
loaded machine meets it by accident, so the bounds these tests check are the page allowance's, not
the call's."""


def _items(count: int, text: str = "Story") -> str:
    return "".join(
        f'<li class="story"><a href="/story/{n}">{text} {n}</a><p>{text}</p></li>'
        for n in range(count)
    )


async def _listing(request: Request) -> Response:
    count = int(request.query_params.get("count", "5"))
    text = request.query_params.get("text", "Story")
    after = request.query_params.get("next", "")
    link = f'<a rel="next" href="{after}">Older</a>' if after else ""
    return HTMLResponse(f"<html><body><ul>{_items(count, text)}</ul>{link}</body></html>")


async def _nested(request: Request) -> Response:
    """600 nested divs: what a selector of nested :has() that finds nothing takes a minute over
    (lexbor, in C)."""
    nest = f"{'<div>' * 600}<span>x</span>{'</div>' * 600}"
    return HTMLResponse(f"<html><body><ul><li class='story'><a href='/s'>Story</a>{nest}</li></ul>")


async def _drip(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b"<html><body><p>"
        for _ in range(600):
            yield b"."
            await anyio.sleep(0.1)

    return StreamingResponse(body(), media_type="text/html")


SITE = Starlette(
    routes=[
        Route("/robots.txt", lambda request: Response("", status_code=404)),
        Route("/listing", _listing),
        Route("/nested", _nested),
        Route("/drip", _drip),
        Route(
            "/page/{n}",
            lambda request: HTMLResponse(
                f"<html><body><article><h1>Page</h1>{'<p>Words.</p>' * 5}"
            ),
        ),
    ]
)


def _server(registry: Registry, call_timeout: float) -> Iterator[tuple[SyncClient, str]]:
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        host_concurrency=8,
        read_workers=1,
        call_timeout=call_timeout,
    )
    runner = build_runner(registry, settings)
    with (
        serve(app=SITE) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def site(registry: Registry) -> Iterator[tuple[SyncClient, str]]:
    yield from _server(registry, GENEROUS_CALL_TIMEOUT)


@pytest.fixture(scope="module")
def short(registry: Registry) -> Iterator[tuple[SyncClient, str]]:
    """A server whose calls run out of time: for the tests that a deadline ends."""
    yield from _server(registry, SHORT_CALL_TIMEOUT)


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


def _config(url: str, **fields: Any) -> dict[str, Any]:
    return {
        "channel": {"url": url},
        "selectors": {"items": {"selector": "li.story"}, "title": {"selector": "a"}, **fields},
    }


def _still_serving(client: SyncClient, base: str) -> None:
    assert _call(client, "scrape", {"url": f"{base}/page/1"})["ok"]


def _meanwhile(
    client: SyncClient, tool: str, arguments: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Call ``tool``, and while it works, get_version: the envelope of the first, and which answered
    first. A server whose event loop is held by the first call's work (a thread in C code that keeps
    the GIL, a pattern the regex module runs without releasing it) answers the second only after the
    first."""
    order: list[str] = []
    answer: list[dict[str, Any]] = []

    async def both() -> None:
        async def slow() -> None:
            answer.append((await client.client.call_tool(tool, arguments)).structured_content)
            order.append(tool)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(slow)
            await anyio.sleep(0.5)  # the slow call is reading by now
            await client.client.call_tool("get_version", {})
            order.append("get_version")

    client.portal.call(both)
    return answer[0], order


def test_a_selector_that_takes_minutes_ends_with_its_call_and_never_holds_the_server(
    short: tuple[SyncClient, str],
) -> None:
    client, base = short
    config = _config(f"{base}/nested", description={"selector": "div:has(div:has(div:has(p)))"})
    envelope, order = _meanwhile(client, "apply_config", {"config": config})
    # was: the server frozen for the selector's 57 s
    assert order == ["get_version", "apply_config"]
    assert envelope["ok"] is False and envelope["payload"]["error"]["code"] == "timeout"
    _still_serving(client, base)


def test_a_template_that_multiplies_text_stops_at_the_page_allowance(
    site: tuple[SyncClient, str],
) -> None:
    client, base = site
    bomb = {"name": "template", "string": "%{self}" * 2_000}
    # 120,000 characters an item once multiplied, cut to 100,000: 100 million for 1,000 items
    text = "x" * 60
    config = _config(
        f"{base}/listing?count=1000&text={text}",
        description={"selector": "p", "post_process": [bomb]},
    )
    envelope = _call(
        client, "apply_config", {"config": config, "format": "json_feed", "limit": 1000}
    )
    assert envelope["ok"], envelope["payload"]
    described = sum(
        len(item.get("content_text", "")) for item in envelope["payload"]["feed"]["items"]
    )
    assert described <= patterns.PAGE_CHARS
    _still_serving(client, base)


def test_a_backtracking_pattern_over_many_items_is_bounded_per_page(
    site: tuple[SyncClient, str],
) -> None:
    client, base = site
    bomb = {"name": "gsub", "pattern": "/(a|aa)+b/", "replacement": ""}
    # each value runs into the 0.25 s limit: 200 of them were 50 s, on the event loop's GIL
    text = "a" * 40 + "c"
    config = _config(
        f"{base}/listing?count=200&text={text}",
        description={"selector": "p", "post_process": [bomb]},
    )
    envelope, order = _meanwhile(
        client, "apply_config", {"config": config, "format": "json_feed", "limit": 200}
    )
    assert order == ["get_version", "apply_config"]
    assert envelope["ok"], envelope["payload"]
    # the items are kept; the slow values are dropped
    assert len(envelope["payload"]["feed"]["items"]) == 200


def test_one_slow_page_does_not_cost_a_batch_its_other_pages(short: tuple[SyncClient, str]) -> None:
    client, base = short
    urls = [f"{base}/page/{n}" for n in range(3)] + [f"{base}/drip"]
    envelope = _call(client, "batch_scrape", {"urls": urls})
    # was a timeout envelope that lost the three pages read
    assert envelope["ok"], envelope["payload"]
    results = envelope["payload"]["results"]
    assert [result["ok"] for result in results] == [True, True, True, False]
    assert results[3]["error"]["code"] == "timeout" and results[3]["error"]["retryable"] is True
    # retry them
    assert envelope["next_step"] == "batch_scrape" and "1 ran out of time" in envelope["guidance"]


def test_a_crawl_out_of_time_answers_with_its_run_which_reads_on(
    short: tuple[SyncClient, str],
) -> None:
    client, base = short
    envelope = _call(
        client, "batch_crawl", {"urls": [f"{base}/page/1", f"{base}/drip"], "max_depth": 0}
    )
    assert envelope["ok"] and envelope["next_step"] == "get_run_status", envelope["payload"]
    run_id = envelope["payload"]["run"]["run_id"]
    status = envelope["payload"]["run"]
    while status["done"] < 1:  # the fast seed's page, read by the run after the call answered
        time.sleep(0.05)
        status = _call(client, "get_run_status", {"run_id": run_id})["payload"]["run"]
    assert status["status"] == "running"  # the slow seed still drips, past the call's deadline
    _call(client, "cancel_run", {"run_id": run_id, "force": True})
    items = _call(client, "get_run_result", {"run_id": run_id})["payload"]["items"]
    assert [(i["item"]["url"], i["item"]["ok"]) for i in items] == [(f"{base}/page/1", True)]


@pytest.mark.parametrize("after", ["file:///etc/passwd", "/drip", "http://10.0.0.1/next"])
def test_a_later_page_that_cannot_be_read_ends_pagination_not_the_feed(
    short: tuple[SyncClient, str], after: str
) -> None:
    client, base = short
    config = _config(f"{base}/listing?count=3&next={after}")
    config["selectors"]["items"]["pagination"] = {"max_pages": 3}
    envelope = _call(client, "apply_config", {"config": config})
    # a file:// link used to fail the call and lose page 1
    assert envelope["ok"], envelope["payload"]
    payload = envelope["payload"]
    assert payload["item_count"] == 3 and payload["pages"] == 1
    assert payload["pagination_stopped"]["page"] == 2
    assert payload["pagination_stopped"]["code"] in {"bad_url", "timeout", "blocked_address"}
    assert "pagination stopped" in envelope["guidance"]


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        # 18 bytes; the regex module made 1.16 GB of it
        ("(?:a{2000}){2000}", "stand for more than"),
        ("((((a{50}){50}){50}){50})", "stand for more than"),
        ("(" * 900 + "a" + ")" * 900, "nests groups deeper"),  # was internal_error: RecursionError
        ("x" * 5000, "characters; the limit is"),
    ],
)
def test_patterns_that_would_compile_into_too_much_are_refused_before_compiling(
    pattern: str, words: str
) -> None:
    config = _config(
        "https://example.com/", description={"post_process": {"name": "gsub", "pattern": pattern}}
    )
    config["selectors"]["description"]["post_process"]["replacement"] = ""
    with pytest.raises(InvalidFeedConfig) as refused:
        feed_config.load(config)
    [problem] = refused.value.detail["errors"]
    assert (
        problem["path"] == "/selectors/description/post_process/pattern"
        and words in problem["message"]
    )


@pytest.mark.parametrize(
    "pattern", ["a{100000}", "(?:a{300}){300}", r"\p{L}{3}[{]{9}", "^(\\d+)\\.\\s*(.*)$", "[a{]{2}"]
)
def test_patterns_within_bounds_compile(pattern: str) -> None:
    assert patterns.pattern_problem(pattern) is None
    assert patterns.ruby_regex(pattern) is not None


def test_validate_config_reports_a_pattern_bomb_as_a_problem(site: tuple[SyncClient, str]) -> None:
    client, _ = site
    step = {"name": "gsub", "pattern": "(?:a{2000}){2000}", "replacement": ""}
    config = _config("https://example.com/", description={"selector": "p", "post_process": [step]})
    envelope = _call(client, "validate_config", {"config": config})
    assert envelope["ok"] is False and envelope["payload"]["error"]["code"] == "invalid_config"
    assert (
        envelope["payload"]["errors"][0]["path"] == "/selectors/description/post_process/0/pattern"
    )


def test_every_text_a_feed_writes_is_escaped() -> None:
    hostile = "R&D <b>bold</b> ]]> &amp; \"quoted\" 'single'"
    item = {
        "id": hostile,
        "title": hostile,
        "url": f"https://example.com/a?x=1&y=<2>]]>{hostile}",
        "description": hostile,
        "author": hostile,
        "categories": [hostile, "R&D"],
        "enclosure": {
            "url": f"https://example.com/e.mp3?a=1&b={hostile}",
            "type": f"audio/mpeg;{hostile}",
        },
    }
    channel = {
        "url": "https://example.com/?a=1&b=2",
        "title": hostile,
        "description": hostile,
        "language": hostile,
    }
    xml = rss(channel, [item], [{"href": f"/s.xsl?{hostile}", "type": "text/xsl"}])
    assert not feedparser.parse(xml).bozo
    # every value reads back exactly as it was given
    document = ElementTree.fromstring(xml.encode())
    channel_node, entry = document.find("channel"), document.find("channel/item")
    assert channel_node is not None and entry is not None
    assert (
        channel_node.findtext("title") == hostile
        and channel_node.findtext("link") == channel["url"]
    )
    assert (
        channel_node.findtext("description") == hostile
        and channel_node.findtext("language") == hostile
    )
    for tag, value in (
        ("title", hostile),
        ("link", item["url"]),
        ("description", hostile),
        ("guid", hostile),
    ):
        assert entry.findtext(tag) == value, tag
    assert entry.findtext("{http://purl.org/dc/elements/1.1/}creator") == hostile
    assert [node.text for node in entry.findall("category")] == [hostile, "R&D"]
    enclosure = entry.find("enclosure")
    assert enclosure is not None and enclosure.get("url") == item["enclosure"]["url"]
    assert enclosure.get("type") == item["enclosure"]["type"]


def test_a_pages_patterns_share_one_time_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each value may take REGEX_SECONDS, but a page's values together only GSUB_SECONDS: a clock
    that a pattern's every run moves on by its limit shows how many runs a page gets (200 before:
    one per item)."""
    from netglean.feeds.items import document, read_items

    now = [1000.0]
    runs: list[float] = []

    class Slow:
        def sub(self, replace: Any, text: str, timeout: float) -> str:
            runs.append(timeout)
            now[0] += timeout
            raise TimeoutError

    monkeypatch.setattr(patterns.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(feed_steps, "ruby_regex", lambda pattern: Slow())
    bomb = {"name": "gsub", "pattern": "/(a|aa)+b/", "replacement": ""}
    config = _config("https://example.com/", description={"selector": "p", "post_process": [bomb]})
    # else the item's own <p> stands in for a dropped value
    config["selectors"]["items"]["enhance"] = False
    items = read_items(
        document(f"<ul>{_items(200, 'a' * 40 + 'c')}</ul>", is_json=False), config, "https://e.com/"
    )
    assert len(items) == 200 and not any("description" in item for item in items)
    assert len(runs) == patterns.GSUB_SECONDS / patterns.REGEX_SECONDS  # 8 runs, not 200


@pytest.mark.parametrize("reader", ["read_items", "auto_items"])
def test_items_nested_in_each_other_cost_work_in_proportion_to_the_page(reader: str) -> None:
    """An item's own markup (items.enhance, auto_source's HTML items) was read with a query per item
    over all it holds: 8,000 nested <article>s took 1.4 s (read_items) and 3.0 s (auto_items),
    16,000 four times that."""
    from netglean.feeds.auto import auto_items
    from netglean.feeds.items import read_items
    from tests.support.work_counting import work

    def page(n: int) -> str:
        return (
            "<article><p>Some words here</p>" * n
            + "<a href=/x>two words</a><time datetime=2026-01-01>"
        )

    config = {"channel": {"url": "https://e.com/"}, "selectors": {"items": {"selector": "article"}}}

    def read(tree: Any) -> object:
        return (
            read_items(tree, config, "https://e.com/")
            if reader == "read_items"
            else auto_items(tree, "https://e.com/")
        )

    small, _ = work(page(300), read)
    large, nodes = work(page(600), read)
    assert large <= 2.1 * small and large <= 30 * nodes, (small, large, nodes)
