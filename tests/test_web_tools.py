"""The web tools end to end: through MCP, on the fetch layer, against the 127.0.0.1 fixture site."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.fixture_site import PAGE, Clocked, serve
from tests.support.paths import PROJECT


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve() as fixture_port:
        yield fixture_port


@pytest.fixture(scope="module")
def client(port: int, registry: Registry, settings: Settings) -> Iterator[SyncClient]:
    """An MCP client whose server fetches public-looking names that the double routes to the fixture
    site."""
    policy = dataclasses.replace(
        FetchPolicy.from_settings(settings), host_interval=0.0, only_hosts=frozenset()
    )
    fetcher = Fetcher(
        policy,
        resolver=FakeDNS(
            {
                "site.test": [PUBLIC],
                "maps.test": [PUBLIC],
                "robots-block.test": [PUBLIC],
                "evil.test": ["10.1.2.3"],
            }
        ),
        dial=LoopbackBackend(port),
    )
    runner = build_runner(registry, settings, fetcher=fetcher)
    with open_client(InMemoryTransport(build_server(runner)), runner) as session:
        yield session


def test_download_reports_an_html_page_with_its_metadata(client: SyncClient) -> None:
    result = client.call("download", {"url": "http://site.test/page"})
    envelope = result.structured_content
    assert result.is_error is False and envelope["next_step"] == "done"
    payload = envelope["payload"]
    assert payload["mime_type"] == "text/html" and payload["size"] == len(PAGE)
    assert payload["sha256"] == hashlib.sha256(PAGE).hexdigest()
    assert payload["page"] == {"title": "Fixture"} and payload["filename"] == "page"
    text = result.content[0].text
    # third-party: framed
    assert "BEGIN UNTRUSTED CONTENT" in text and "http://site.test/page" in text


def test_download_names_files_from_content_disposition(client: SyncClient) -> None:
    report = client.call("download", {"url": "http://site.test/report"}).structured_content[
        "payload"
    ]
    assert (
        report["filename"] == "résumé.pdf"
        and report["mime_type"] == "application/pdf"
        and "page" not in report
    )
    hostile = client.call("download", {"url": "http://site.test/evil-name"}).structured_content[
        "payload"
    ]
    assert hostile["filename"] == "passwd"


def test_download_follows_redirects_and_refuses_private_hops(client: SyncClient) -> None:
    moved = client.call(
        "download", {"url": "http://site.test/redirect?to=/chain/1"}
    ).structured_content["payload"]
    assert moved["final_url"] == "http://site.test/chain/0"
    assert moved["redirects"] == [
        "http://site.test/redirect?to=/chain/1",
        "http://site.test/chain/1",
    ]
    refused = client.call("download", {"url": "http://site.test/redirect?to=http://evil.test/"})
    error = refused.structured_content["payload"]["error"]
    assert refused.is_error and error["code"] == "blocked_address" and error["retryable"] is False
    too_big = client.call("download", {"url": "http://site.test/page", "max_size": 10})
    assert too_big.structured_content["payload"]["error"]["code"] == "too_large"


def test_download_over_stdio_with_the_operator_switch(port: int) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "netglean", "mcp", "--allow-private-hosts", "--host-interval", "0"],
        cwd=str(PROJECT),
        # the SDK passes a minimal environment otherwise: keep the 127.0.0.1-only rule
        env=dict(os.environ),
    )
    with open_client(server) as session:
        ok = session.call("download", {"url": f"http://127.0.0.1:{port}/page"})
        assert (
            ok.is_error is False and ok.structured_content["payload"]["page"]["title"] == "Fixture"
        )
        # not 127.0.0.1: refused before DNS
        outside = session.call("download", {"url": "http://192.0.2.1/"})
        assert outside.structured_content["payload"]["error"]["code"] == "blocked_address"


def _scrape(client: SyncClient, **arguments: object) -> dict[str, object]:
    result = client.call("scrape", {"url": "http://site.test/article", **arguments})
    assert result.is_error is False, result.structured_content
    envelope: dict[str, object] = result.structured_content
    return envelope


def test_scrape_keeps_the_article_and_drops_the_boilerplate(client: SyncClient) -> None:
    envelope = _scrape(client)
    payload = envelope["payload"]
    assert isinstance(payload, dict) and envelope["next_step"] == "done"
    content = payload["content"]
    for kept in (
        "# How Tides Work",
        "**two high tides**",
        "## Spring and neap tides",
        "- Neap tides",
        "| Bay of Fundy | 16 |",
        "effects of the Moon's gravity, the Sun",
        "range = high - low",
    ):
        assert kept in content, kept
    for dropped in (
        "Share on X",
        "Great article",
        "cookies",
        "Popular",
        "Story A",
        "All rights reserved",
        "News",
    ):
        assert dropped not in content, dropped
    assert "http" not in content  # links are their text alone unless links says otherwise
    metadata = payload["metadata"]
    assert metadata["author"] == "Ada Marin" and metadata["published"] == "2026-03-01T10:00:00Z"
    assert metadata["json_ld"][0]["@type"] == "NewsArticle" and metadata["language"] == "en"
    assert payload["title"] == "How Tides Work | Ocean Weekly"
    # 527 characters of article, in paragraphs too short for Readability's test: an article all the
    # same
    assert payload["readerable"] is True
    assert str(envelope["guidance"]) == "The whole content has been returned."
    assert payload["cost"]["chars"] == len(content) and payload["cost"]["approx_tokens"] > 0


def test_a_page_with_no_article_says_so(client: SyncClient) -> None:
    """A listing has no main content: scrape says so, in the payload and the guidance, rather than
    passing a random block off as the article. The whole page (main_content false) asks no such
    question."""
    envelope = client.call("scrape", {"url": "http://site.test/listing"}).structured_content
    assert envelope["ok"] and envelope["payload"]["readerable"] is False
    assert (
        envelope["guidance"].startswith("The page has little or no article text")
        and "map" in envelope["guidance"]
    )
    whole = client.call(
        "scrape", {"url": "http://site.test/listing", "main_content": False}
    ).structured_content
    assert "readerable" not in whole["payload"] and "Story 11" in whole["payload"]["content"]


def test_main_content_that_may_miss_part_of_the_article_is_never_called_the_whole_content(
    client: SyncClient,
) -> None:
    """An answer said "the whole content has been returned" after main-content selection had lost
    the article. When selection cannot check that its content holds the page's article text, the
    guidance says the content may be incomplete and how to read every block; it claims the whole
    only when the check holds."""
    envelope = client.call("scrape", {"url": "http://site.test/two-stories"}).structured_content
    assert envelope["ok"] and "part 1." in envelope["payload"]["content"]
    assert "The whole content has been returned" not in envelope["guidance"]
    assert (
        "may be incomplete" in envelope["guidance"] and "main_content false" in envelope["guidance"]
    )
    whole = client.call(
        "scrape", {"url": "http://site.test/two-stories", "main_content": False}
    ).structured_content
    assert whole["guidance"] == "The whole content has been returned."


def test_scrape_formats_and_the_whole_page(client: SyncClient) -> None:
    text = _scrape(client, format="text")["payload"]["content"]
    assert "two high tides" in text and "**" not in text and "](" not in text
    html = _scrape(client, format="html")["payload"]["content"]
    assert "<h1>How Tides Work</h1>" in html and "<script" not in html
    blocks = json.loads(_scrape(client, format="json")["payload"]["content"])
    assert blocks[0] == {"type": "heading", "text": "How Tides Work", "level": 1}
    assert {"table", "list", "code", "paragraph"} <= {block["type"] for block in blocks}
    whole = _scrape(client, main_content=False)["payload"]["content"]
    assert "Story A" in whole and "Great article" in whole  # nothing removed but scripts and forms


def test_scrape_writes_markdown_links_as_links_asks(client: SyncClient) -> None:
    """Inline URLs were a sixth of markdown's tokens and cost it 0.08 F1 against the text format: a
    link is its text alone by default, numbered with its URL listed once at the end (references),
    or written where it stands (inline)."""
    cited = _scrape(client, links="references")["payload"]["content"]
    number = cited.split("Moon's gravity [", 1)[1].split("]", 1)[0]
    assert "\n\n## References\n\n" in cited and f"\n[{number}]: http://site.test/moon" in cited
    assert "](" not in cited.split("## References")[0]
    inline = _scrape(client, links="inline")["payload"]["content"]
    assert "[Moon's gravity](http://site.test/moon)" in inline and "## References" not in inline
    text = _scrape(client, format="text", links="inline")["payload"]["content"]
    assert "http" not in text  # the other formats ignore it
    refused = client.call("scrape", {"url": "http://site.test/article", "links": "footnotes"})
    assert refused.structured_content["payload"]["error"]["code"] == "invalid_arguments"


def test_scrape_pages_long_content_and_never_returns_more_than_asked(client: SyncClient) -> None:
    full = _scrape(client)["payload"]["content"]
    pieces, start = [], 0
    while True:
        envelope = _scrape(client, max_chars=150, start_index=start)
        payload = envelope["payload"]
        assert len(payload["content"]) <= 150 and payload["total_chars"] == len(full)
        pieces.append(payload["content"])
        if "next_start_index" not in payload:
            assert envelope["next_step"] == "done"
            break
        assert (
            envelope["next_step"] == "scrape"
            and f"start_index={payload['next_start_index']}" in envelope["guidance"]
        )
        start = payload["next_start_index"]
    assert "".join(pieces) == full and len(pieces) > 3


def test_scrape_links_text_files_and_documents(client: SyncClient) -> None:
    links = _scrape(client, include_links=True)["payload"]["links"]
    assert {"url": "http://site.test/moon", "text": "Moon's gravity"} in links
    notes = client.call("scrape", {"url": "http://site.test/notes.txt"}).structured_content[
        "payload"
    ]
    assert notes["content"] == "plain notes\nsecond line" and notes["metadata"] == {}
    pdf = client.call("scrape", {"url": "http://site.test/report"})
    error = pdf.structured_content["payload"]["error"]
    assert (
        pdf.is_error and error["code"] == "unsupported_content" and "download" in error["message"]
    )


def test_batch_scrape_keeps_order_and_isolates_failures(client: SyncClient) -> None:
    urls = [
        "http://site.test/article",
        "ftp://site.test/x",
        "http://site.test/status/404",
        "http://site.test/redirect?to=http://evil.test/",
        "http://site.test/notes.txt",
        "http://site.test/report",
    ]
    result = client.call("batch_scrape", {"urls": urls})
    envelope = result.structured_content
    assert result.is_error is False and envelope["next_step"] == "done"
    payload = envelope["payload"]
    assert [entry["url"] for entry in payload["results"]] == urls
    outcomes = [
        entry["page"]["status"] if entry["ok"] else entry["error"]["code"]
        for entry in payload["results"]
    ]
    assert outcomes == [
        200,
        "bad_url",
        "http_status",
        "blocked_address",
        200,
        "unsupported_content",
    ]
    assert (payload["succeeded"], payload["failed"]) == (2, 4)
    assert "# How Tides Work" in payload["results"][0]["page"]["content"]


def test_batch_scrape_caps_each_page_and_points_at_scrape_for_the_rest(client: SyncClient) -> None:
    envelope = client.call(
        "batch_scrape", {"urls": ["http://site.test/article"], "max_chars": 100}
    ).structured_content
    page = envelope["payload"]["results"][0]["page"]
    assert len(page["content"]) == 100 and page["next_start_index"] == 100
    assert envelope["next_step"] == "scrape" and "start_index" in envelope["guidance"]


MAPPED = [
    "http://maps.test/about",
    "http://maps.test/news/1",
    "http://maps.test/news/2",
    "http://maps.test/a&b",
    "http://maps.test/guides/tides",
]


def test_map_finds_links_and_sitemap_entries(client: SyncClient) -> None:
    envelope = client.call(
        "map", {"url": "http://maps.test/home", "format": "json"}
    ).structured_content
    payload = envelope["payload"]
    assert payload["urls"] == MAPPED and payload["format"] == "json" and "content" not in payload
    assert payload["sitemaps"] == [
        "http://maps.test/sitemap_index.xml",
        "http://maps.test/sitemap-a.xml.gz",
        "http://maps.test/sitemap-b.xml",
    ]  # the missing one is skipped, not fatal
    assert (
        payload["sources"] == {"links": 3, "sitemaps": 5}
        and envelope["next_step"] == "batch_scrape"
    )
    # markdown
    listed = client.call("map", {"url": "http://maps.test/home"}).structured_content["payload"]
    assert listed["content"] == "\n".join(f"- {url}" for url in MAPPED) and "urls" not in listed
    assert (
        listed["format"] == "markdown"
        and listed["count"] == 5
        and listed["sitemaps"] == payload["sitemaps"]
    )


def test_map_filters_and_limits(client: SyncClient) -> None:
    news = client.call("map", {"url": "http://maps.test/home", "search": "NEWS", "format": "json"})
    assert news.structured_content["payload"]["urls"] == [
        "http://maps.test/news/1",
        "http://maps.test/news/2",
    ]
    every = client.call(
        "map", {"url": "http://maps.test/home", "same_domain": False, "include_sitemaps": False}
    )
    assert "- https://elsewhere.example/x" in every.structured_content["payload"]["content"]
    capped = client.call("map", {"url": "http://maps.test/home", "limit": 2}).structured_content[
        "payload"
    ]
    assert capped["count"] == 2 and capped["truncated"] is True


def test_compare_agent_view_sees_content_negotiation(client: SyncClient) -> None:
    envelope = client.call(
        "compare_agent_view", {"url": "http://site.test/negotiate"}
    ).structured_content
    payload = envelope["payload"]
    assert (
        payload["agent"]["content_type"] == "text/markdown"
        and payload["browser"]["content_type"] == "text/html"
    )
    assert payload["negotiated"] is True and payload["identical"] is False
    assert payload["token_ratio"] < 0.2  # the markdown view is far lighter
    assert payload["agent"]["excerpt"].startswith("# Fixture")
    assert any("content type" in line for line in payload["differences"])


def test_compare_agent_view_without_negotiation_and_with_a_refused_url(client: SyncClient) -> None:
    same = client.call("compare_agent_view", {"url": "http://site.test/page", "excerpt_chars": 10})
    payload = same.structured_content["payload"]
    assert (
        payload["negotiated"] is False
        and payload["identical"] is True
        and payload["differences"] == []
    )
    assert len(payload["agent"]["excerpt"]) == 10
    refused = client.call("compare_agent_view", {"url": "http://evil.test/"})
    assert (
        refused.is_error
        and refused.structured_content["payload"]["error"]["code"] == "blocked_address"
    )


def test_crawl_is_breadth_first_bounded_deduplicated_and_reports_progress(
    client: SyncClient,
) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    arguments = {"url": "http://site.test/crawl/", "max_depth": 2, "exclude_patterns": ["*/skip-*"]}
    result = client.portal.call(client.client.call_tool, "crawl", arguments, None, on_progress)
    payload = result.structured_content["payload"]
    visited = [
        (page["url"].removeprefix("http://site.test/crawl/"), page["depth"])
        for page in payload["pages"]
    ]
    # d is 3 away; skip-me excluded
    assert visited == [("", 0), ("a", 1), ("b", 1), ("dup", 1), ("c", 2)]
    duplicate = payload["pages"][3]
    assert duplicate["duplicate_of"] == "http://site.test/crawl/a" and "page" not in duplicate
    assert payload["read"] == 4 and payload["failed"] == 0 and payload["truncated"] is False
    assert "elsewhere.example" not in str(visited)  # same site only
    assert progress and progress[-1] == (5, 25)  # visits against max_pages, the duplicate included


def test_crawl_limits_pages_and_batch_crawl_isolates_seeds(client: SyncClient) -> None:
    limited = client.call(
        "crawl", {"url": "http://site.test/crawl/", "max_pages": 2}
    ).structured_content["payload"]
    assert len(limited["pages"]) == 2 and limited["truncated"] is True
    only = client.call(
        "crawl", {"url": "http://site.test/crawl/", "include_patterns": ["*/crawl/b"]}
    )
    assert [p["url"] for p in only.structured_content["payload"]["pages"]][1:] == [
        "http://site.test/crawl/b"
    ]
    batch = client.call(
        "batch_crawl",
        {"urls": ["http://site.test/crawl/c", "ftp://x/", "http://evil.test/"], "max_depth": 1},
    ).structured_content["payload"]["crawls"]
    assert [c["read"] for c in batch] == [2, 0, 0]
    assert (
        batch[1]["error"]["code"] == "bad_url"
        and batch[2]["pages"][0]["error"]["code"] == "blocked_address"
    )


def test_a_page_of_many_links_adds_a_bounded_number_to_a_crawl_and_map_says_it_found_more(
    client: SyncClient,
) -> None:
    crawled = client.call(
        "crawl", {"url": "http://site.test/many-links", "max_pages": 3, "max_depth": 1}
    )
    payload = crawled.structured_content["payload"]
    # two of its links are queued (three URLs in all); of the 1,500, 1,000 were taken and 998 found
    # no room
    assert [page["url"] for page in payload["pages"]][1:] == [
        "http://site.test/crawl/m0",
        "http://site.test/crawl/m1",
    ]
    assert payload["pages"][0]["links_dropped"] == 1_498 and payload["links_dropped"] == 1_498
    assert (payload["stopped"], payload["truncated"], payload.get("unvisited")) == (
        "max_pages",
        True,
        None,
    )
    assert (
        "pages gave 1498 more link(s) once max_pages URLs were queued"
        in crawled.structured_content["guidance"]
    )
    mapped = client.call(
        "map", {"url": "http://site.test/many-links", "include_sitemaps": False, "format": "json"}
    )
    found = mapped.structured_content["payload"]
    assert (
        found["count"] == 200 and found["truncated"] is True and found["sources"]["links"] == 1_500
    )
    assert found["urls"][:2] == ["http://site.test/crawl/m0", "http://site.test/crawl/m1"]
    page = client.call(
        "scrape", {"url": "http://site.test/many-links", "format": "json"}
    ).structured_content["payload"]
    assert len(page["links"]) == 1_000 and page["unlisted_links"] == 500


def test_inspect_url_reads_feeds_listings_and_bot_walls(client: SyncClient) -> None:
    listing = client.call("inspect_url", {"url": "http://site.test/listing"}).structured_content
    assert listing["next_step"] == "capture_config" and listing["payload"]["repeated_items"] == 12
    assert listing["payload"]["robots"] == "allowed" and listing["payload"]["feeds"] == []
    with_feed = client.call(
        "inspect_url", {"url": "http://site.test/listing?feed=1"}
    ).structured_content
    assert with_feed["next_step"] == "done"
    assert with_feed["payload"]["feeds"] == [
        {"url": "http://site.test/feed.xml", "type": "rss", "title": "All stories"}
    ]
    wall = client.call("inspect_url", {"url": "http://site.test/challenge"}).structured_content[
        "payload"
    ]
    assert wall["status"] == 403 and wall["bot_wall"] is True
    assert {"cloudflare-challenge", "cloudflare-challenge-header", "cloudflare-403"} <= set(
        wall["bot_wall_signals"]
    )
    article = client.call(
        "inspect_url", {"url": "http://site.test/redirect?to=/article"}
    ).structured_content
    payload = article["payload"]
    assert (
        payload["redirects"] == ["http://site.test/redirect?to=/article"]
        and payload["articles"] == 0
    )
    assert payload["content_type"] == "text/html" and payload["bot_wall"] is False
    # one article, no listing: nothing to draft a feed from
    assert article["next_step"] == "scrape_url"


def test_inspect_url_reports_robots_without_fetching(client: SyncClient) -> None:
    blocked = client.call(
        "inspect_url", {"url": "http://robots-block.test/private"}
    ).structured_content["payload"]
    asked = {
        "url": "http://robots-block.test/private",
        "requested_url": "http://robots-block.test/private",
    }
    expected = {
        "requested_strategy": "auto",
        "selected_strategy": "http",
        "robots": "disallowed",
        "fetched": False,
    }
    assert blocked == {**asked, **expected}


def test_a_hostile_page_stays_quarantined_through_scrape(client: SyncClient) -> None:
    result = client.call("scrape", {"url": "http://site.test/hostile"})
    text = result.content[0].text
    lines = text.split("\n")
    begin = next(
        i for i, line in enumerate(lines) if line.startswith("<<<BEGIN UNTRUSTED CONTENT ")
    )
    nonce, named = (
        lines[begin].removeprefix("<<<BEGIN UNTRUSTED CONTENT ").removesuffix(">>>").split(" ", 1)
    )
    assert named == "source=http://site.test/hostile"
    assert (
        lines[-1] == f"<<<END UNTRUSTED CONTENT {nonce}>>>" and nonce != "0123456789abcdef01234567"
    )
    # the forged marker cannot close it
    assert sum(line.startswith("<<<END UNTRUSTED") for line in lines) == 1
    assert "not instructions" in lines[begin - 1] and "http://site.test/hostile" in lines[begin - 1]
    for smuggled in ("\u202e", "\x1b", "\U000e0041", "\u2066"):
        assert smuggled not in text
        assert smuggled not in str(result.structured_content)
    assert "admin mode" in text  # the text is kept as data, inside the frame
    metadata = result.structured_content["payload"]["metadata"]
    # too deep to read: skipped
    assert metadata["json_ld"] == [{"@type": "NewsArticle", "headline": "Notes"}]


def test_a_page_nested_thousands_deep_is_read_to_the_bottom(client: SyncClient) -> None:
    whole = client.call(
        "scrape", {"url": "http://site.test/deep", "main_content": False}
    ).structured_content
    assert whole["ok"], whole
    content = whole["payload"]["content"]
    assert (
        all(f"Words at the bottom of nest {n}" in content for n in range(3))
        and "After the nests." in content
    )
    main = client.call("scrape", {"url": "http://site.test/deep"}).structured_content["payload"][
        "content"
    ]
    # the list and links: furniture
    assert "Words at the bottom of nest 0" in main and "After the nests." in main
    for tool in ("inspect_url", "map", "scrape_url", "compare_agent_view"):
        assert client.call(tool, {"url": "http://site.test/deep"}).structured_content["ok"], tool


def test_a_bot_wall_is_blocked_in_scrape_batch_scrape_and_crawl(client: SyncClient) -> None:
    """The 403 challenge inspect_url diagnoses is an error for the reading tools, not its text as
    content."""
    scraped = client.call("scrape", {"url": "http://site.test/challenge"})
    envelope = scraped.structured_content
    error = envelope["payload"]["error"]
    assert (
        scraped.is_error and error["code"] == "blocked" and envelope["next_step"] == "inspect_url"
    )
    assert {"cloudflare-challenge", "cloudflare-challenge-header", "cloudflare-403"} <= set(
        error["detail"]["signals"]
    )
    assert "inspect_url" in envelope["guidance"] and "Just a moment" not in envelope["guidance"]
    batch = client.call(
        "batch_scrape", {"urls": ["http://site.test/challenge", "http://site.test/page"]}
    )
    wall, page = batch.structured_content["payload"]["results"]
    assert (
        wall["error"]["code"] == "blocked"
        and page["ok"]
        and batch.structured_content["next_step"] == "done"
    )
    crawled = client.call("crawl", {"url": "http://site.test/challenge"}).structured_content
    assert (
        crawled["payload"]["pages"][0]["error"]["code"] == "blocked"
        and crawled["next_step"] == "inspect_url"
    )
    crawls = client.call("batch_crawl", {"urls": ["http://site.test/challenge"]}).structured_content
    assert crawls["payload"]["crawls"][0]["pages"][0]["error"]["code"] == "blocked"
    # as crawl: nothing was read, so the wall is what to look at
    assert crawls["next_step"] == "inspect_url"
    missing = client.call("scrape", {"url": "http://site.test/status/404"}).structured_content[
        "payload"
    ]["error"]
    # an error page, not a wall
    assert missing["code"] == "http_status" and missing["detail"]["status"] == 404


def test_format_json_is_whole_blocks_with_links_in_every_page_tool(client: SyncClient) -> None:
    page = _scrape(client, format="json", max_chars=400)["payload"]
    assert (
        json.loads(page["content"]) and len(page["content"]) <= 400 and page["next_start_index"] > 0
    )
    # json always lists them
    assert {"url": "http://site.test/moon", "text": "Moon's gravity"} in page["links"]
    batch = client.call(
        "batch_scrape", {"urls": ["http://site.test/article"], "format": "json"}
    ).structured_content
    entry = batch["payload"]["results"][0]["page"]
    assert json.loads(entry["content"])[0]["type"] == "heading" and entry["links"]
    notes = client.call(
        "scrape", {"url": "http://site.test/notes.txt", "format": "json"}
    ).structured_content
    assert json.loads(notes["payload"]["content"]) == [
        {"type": "paragraph", "text": "plain notes\nsecond line"}
    ]
    crawled = client.call(
        "crawl", {"url": "http://site.test/crawl/", "max_depth": 0, "format": "json"}
    )
    first = crawled.structured_content["payload"]["pages"][0]["page"]
    assert (
        json.loads(first["content"])[0] == {"type": "heading", "text": "Start", "level": 1}
        and first["links"]
    )


def test_download_hashes_and_caps_as_the_operator_allows(client: SyncClient) -> None:
    facts = client.call("download", {"url": "http://site.test/page"}).structured_content["payload"]
    assert facts["content_hash"] == f"sha256:{facts['sha256']}"
    above = client.call(
        "download", {"url": "http://site.test/page", "max_size": 10_000_000}
    ).structured_content
    detail = above["payload"]["error"]["detail"]
    assert (
        above["payload"]["error"]["code"] == "operator_policy"
        and detail["setting"] == "fetch_max_bytes"
    )
    assert detail["env"] == "NETGLEAN_FETCH_MAX_BYTES" and detail["flag"] == "--fetch-max-bytes"
    inflated = client.call(
        "download", {"url": "http://site.test/deflate", "max_size": 50}
    ).structured_content
    # sent in fewer bytes than it decompresses to
    assert inflated["payload"]["error"]["code"] == "too_large"


class Meeting:
    """Requests that wait for each other: each /meet/<group> waits until ``size`` of its group have
    arrived (or gives up after a few seconds, answering "alone"), and the most in flight at once is
    kept."""

    def __init__(self) -> None:
        self.arrived: dict[str, int] = {}
        self.events: dict[str, asyncio.Event] = {}
        self.in_flight = 0
        self.most: dict[str, int] = {}

    async def handle(self, request: Request) -> Response:
        group, size = request.path_params["group"], int(request.query_params.get("size", "2"))
        event = self.events.setdefault(group, asyncio.Event())
        self.arrived[group] = self.arrived.get(group, 0) + 1
        self.in_flight += 1
        self.most[group] = max(self.most.get(group, 0), self.in_flight)
        try:
            if self.arrived[group] >= size:
                event.set()
            try:
                await asyncio.wait_for(event.wait(), 3)
                word = "met"
            except TimeoutError:
                word = "alone"
        finally:
            self.in_flight -= 1
        return HTMLResponse(
            f"<html><body><article><h1>{word}</h1><p>{word} at the meeting "
            "point.</p></article></body>"
        )


@pytest.fixture(scope="module")
def meeting() -> Iterator[tuple[Meeting, int]]:
    meet = Meeting()
    with serve(app=Starlette(routes=[Route("/meet/{group}", meet.handle)])) as meeting_port:
        yield meet, meeting_port


def _client_for(
    port: int, registry: Registry, settings: Settings, **policy: Any
) -> AbstractContextManager[SyncClient]:
    fetch_policy = dataclasses.replace(
        FetchPolicy.from_settings(settings),
        only_hosts=frozenset(),
        **{"host_interval": 0.0, **policy},
    )
    hosts = {
        host: [PUBLIC] for host in ("a.test", "b.test", "c.test", "robots-block.test", "site.test")
    }
    runner = build_runner(
        registry,
        settings,
        fetcher=Fetcher(fetch_policy, resolver=FakeDNS(hosts), dial=LoopbackBackend(port)),
    )
    return open_client(InMemoryTransport(build_server(runner)), runner)


def test_batch_concurrency_is_the_width_of_the_batch(
    meeting: tuple[Meeting, int], registry: Registry, settings: Settings
) -> None:
    meet, meeting_port = meeting
    with _client_for(meeting_port, registry, settings) as session:
        # Two hosts: one host is read one page at a time whatever the batch (host_concurrency, 1 by
        # default).
        met = session.call(
            "batch_scrape", {"urls": [f"http://{host}.test/meet/wide" for host in "ab"]}
        )
        assert all(
            "met at" in r["page"]["content"] for r in met.structured_content["payload"]["results"]
        )
        one = session.call(
            "batch_scrape",
            {"urls": [f"http://{host}.test/meet/narrow" for host in "ab"], "concurrency": 1},
        )
        contents = [r["page"]["content"] for r in one.structured_content["payload"]["results"]]
        # one at a time: the first waited alone
        assert "alone at" in contents[0] and meet.most["narrow"] == 1
        seeds = {"urls": ["http://a.test/meet/seeds", "http://b.test/meet/seeds"], "max_depth": 0}
        crawls = session.call("batch_crawl", seeds).structured_content["payload"]["crawls"]
        # the seeds ran together
        assert all("met at" in crawl["pages"][0]["page"]["content"] for crawl in crawls)
        single = {
            "urls": ["http://a.test/meet/single", "http://c.test/meet/single"],
            "max_depth": 0,
            "concurrency": 1,
        }
        crawls = session.call("batch_crawl", single).structured_content["payload"]["crawls"]
        assert "alone at" in crawls[0]["pages"][0]["page"]["content"] and meet.most["single"] == 1


def _spaced_batch(
    site: Clocked, registry: Registry, settings: Settings, **policy: Any
) -> list[str]:
    """batch_scrape of three pages of a.test on ``site``: the paths the site was asked for, in
    order. The transport is warmed on another host first (its set-up is no part of a request's
    spacing), and that is forgotten."""
    in_process = dataclasses.replace(settings, read_workers=0)
    with (
        serve(app=site) as site_port,
        _client_for(site_port, registry, in_process, **policy) as session,
    ):
        assert session.call("scrape", {"url": "http://b.test/warm"}).structured_content["ok"]
        site.arrivals.clear()
        urls = [f"http://a.test/page/{n}" for n in range(3)]
        payload = session.call("batch_scrape", {"urls": urls}).structured_content["payload"]
    assert payload["succeeded"] == 3, payload
    return [path for path, _ in site.arrivals]


def test_batch_scrape_spaces_every_request_to_a_host_by_the_operators_interval(
    registry: Registry, settings: Settings
) -> None:
    """host_interval holds between any two requests to one host, robots.txt's read among them:
    measured where the requests arrive, so no other work (a read, a render) can stand in for the
    spacing."""
    site = Clocked()
    paths = _spaced_batch(site, registry, settings, host_interval=1.0)
    assert paths[0] == "/robots.txt" and sorted(paths[1:]) == ["/page/0", "/page/1", "/page/2"], (
        paths
    )
    assert min(site.gaps()) >= 0.8, f"requests {site.gaps()} s apart, host_interval 1 s"


def test_batch_scrape_spaces_pages_by_robots_txt_crawl_delay(
    registry: Registry, settings: Settings
) -> None:
    """A Crawl-delay longer than the operator's interval spaces plain fetches as it spaces a
    browser's, the page after robots.txt included."""
    site = Clocked(crawl_delay=1)
    # host_interval 0: only robots.txt asks for spacing
    paths = _spaced_batch(site, registry, settings)
    assert paths[0] == "/robots.txt" and len(paths) == 4, paths
    assert min(site.gaps()) >= 0.8, f"requests {site.gaps()} s apart, Crawl-delay 1 s"


def test_respect_robots_txt_tightens_an_operator_who_ignores_it(
    port: int, registry: Registry, settings: Settings
) -> None:
    with _client_for(port, registry, settings, obey_robots=False) as session:
        url = "http://robots-block.test/private"
        # the operator ignores robots.txt
        assert session.call("scrape", {"url": url}).structured_content["ok"]
        for tool, arguments in (
            ("scrape", {"url": url}),
            ("download", {"url": url}),
            ("batch_scrape", {"urls": [url]}),
            ("crawl", {"url": url}),
            ("map", {"url": url}),
        ):
            envelope = session.call(
                tool, {**arguments, "respect_robots_txt": True}
            ).structured_content
            text = json.dumps(envelope["payload"])
            # the call asked for more care than the operator: it gets it
            assert "robots_disallowed" in text, tool
        assert session.call("scrape", {"url": url, "respect_robots_txt": False}).structured_content[
            "ok"
        ]


def test_a_crawl_past_the_calls_deadline_answers_with_its_run_which_goes_on(
    meeting: tuple[Meeting, int], registry: Registry
) -> None:
    _, meeting_port = meeting
    short = Settings.load({"call_timeout": 2.5}, environ=TEST_ENVIRONMENT)
    with _client_for(meeting_port, registry, short) as session:
        # /meet/late?size=9 waits 3 s for company that never comes: past the call's deadline, not
        # the run's
        crawled = session.call(
            "crawl", {"url": "http://a.test/meet/late?size=9", "max_pages": 100_000}
        )
        envelope = crawled.structured_content
        assert crawled.is_error is False and envelope["ok"], envelope
        assert (
            envelope["next_step"] == "get_run_status"
            and envelope["payload"]["run"]["status"] == "running"
        )
        run_id = envelope["payload"]["run"]["run_id"]
        status = session.call("get_run_status", {"run_id": run_id}).structured_content["payload"][
            "run"
        ]
        while status["status"] == "running":
            time.sleep(0.1)
            status = session.call("get_run_status", {"run_id": run_id}).structured_content[
                "payload"
            ]["run"]
        assert status["status"] == "succeeded" and status["has_result"], status
        result = session.call("get_run_result", {"run_id": run_id}).structured_content["payload"]
        assert (
            result["total_items"] == 1
            and result["items"][0]["item"]["url"] == "http://a.test/meet/late?size=9"
        )
        # the items hold the pages
        assert result["result"]["read"] == 1 and "pages" not in result["result"]


def test_a_site_that_never_answers_is_unreachable_for_every_tool_not_a_robots_verdict(
    registry: Registry, settings: Settings, closed_port: int
) -> None:
    """Issue 19: a closed port was reported as robots_disallowed ("robots.txt could not be read",
    not retryable) and inspect_url repeated it. A connection refused while reading robots.txt is no
    answer: unreachable, retryable, for the page tools, the feed tools and the probes alike."""
    policy = dataclasses.replace(
        FetchPolicy.from_settings(settings), host_interval=0.0, only_hosts=frozenset()
    )
    fetcher = Fetcher(
        policy, resolver=FakeDNS({"down.test": [PUBLIC]}), dial=LoopbackBackend(closed_port)
    )
    runner = build_runner(registry, settings, fetcher=fetcher)
    calls = {
        "scrape": {"url": "http://down.test/"},
        "download": {"url": "http://down.test/file.pdf"},
        "inspect_url": {"url": "http://down.test/"},
        "scrape_url": {"url": "http://down.test/news", "strategy": "faraday"},
        "capture_config": {"url": "http://down.test/news", "strategy": "faraday"},
        "compare_agent_view": {"url": "http://down.test/"},
        "map": {"url": "http://down.test/"},
    }
    with open_client(InMemoryTransport(build_server(runner)), runner) as session:
        for tool, arguments in calls.items():
            envelope = session.call(tool, arguments).structured_content
            error = envelope["payload"]["error"]
            assert (envelope["ok"], error["code"], error["retryable"]) == (
                False,
                "unreachable",
                True,
            ), (tool, error)
            # the robots rule's words
            assert "nothing there is fetched" not in error["message"], (tool, error)
