"""Crawlberg's MCP contract, as its public reference documents it (tests/seeds:
/work/shared/seeds/002), held by netglean over MCP: each tool called with the seed's own example
arguments and argument names, against a fixture site on 127.0.0.1, and its documented results
checked — fields, isError, the next step. Where netglean differs on purpose (its envelope around the
result, its own error codes for the seed's invalid_params and internal_error, what an argument may
not loosen), the test says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from netglean._version import __version__
from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

HOSTS = ("example.com", "example.org", "docs.rs", "waf.example", "walled.example")
WORDS = " ".join(
    f"Sentence {n} of the page says something plain about tides and harbours." for n in range(30)
)


def _html(title: str, body: str, head: str = "") -> Response:
    page = f"<html lang='en'><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    return Response(page.encode(), media_type="text/html")


def _links(*paths: str) -> str:
    return " ".join(f"<a href='{path}'>{path}</a>" for path in paths)


async def example_com(request: Request) -> Response:
    """example.com: a home page linking to its API pages, a sitemap naming more, a document, and
    pages that merely mention captchas."""
    path = request.url.path
    if path == "/robots.txt":
        return PlainTextResponse(
            "User-agent: *\nAllow: /\nSitemap: http://example.com/sitemap.xml\n"
        )
    if path == "/sitemap.xml":
        entries = "".join(
            f"<url><loc>http://example.com{p}</loc></url>" for p in ("/api/changelog", "/blog/1")
        )
        body = (
            '<?xml version="1.0"?><urlset '
            f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
        )
        return Response(body.encode(), media_type="application/xml")
    if path == "/report.pdf":
        return Response(
            b"%PDF-1.7 crawlberg fixture",
            headers={
                "content-type": "application/pdf",
                "content-disposition": 'attachment; filename="report.pdf"',
            },
        )
    # an article whose comment form carries a reCAPTCHA: content, not a wall
    if path == "/comments":
        form = "<form><div class='g-recaptcha' data-sitekey='k'></div><textarea></textarea></form>"
        head = "<script src='https://www.google.com/recaptcha/api.js'></script>"
        return _html(
            "Comments", f"<article><h1>Comments welcome</h1><p>{WORDS}</p>{form}</article>", head
        )
    head = "<meta name='description' content='The example home page'>"
    body = (
        f"<article><h1>Example Domain</h1><p>{WORDS}</p><p>Read the {_links('/api/reference')} "
        f"and the {_links('/api/guide')}, or {_links('/about')}; elsewhere: "
        f"{_links('http://example.org/')}.</p></article>"
    )
    return _html("Example Domain" if path == "/" else f"Page {path}", body, head)


async def example_org(request: Request) -> Response:
    return _html("Example Org", f"<article><h1>Example Org</h1><p>{WORDS}</p></article>")


async def docs_rs(request: Request) -> Response:
    """docs.rs: a crate's pages, two levels of links on the site and one off it."""
    path = request.url.path.rstrip("/")
    below = {
        "/tokio": ["/tokio/runtime", "/tokio/net", "http://example.org/"],
        "/tokio/runtime": ["/tokio/task"],
    }
    body = f"<article><h1>{path}</h1><p>{WORDS}</p>{_links(*below.get(path, []))}</article>"
    return _html(f"docs {path}", body)


async def waf(request: Request) -> Response:
    """waf.example: Cloudflare's challenge, as a 403 with its header."""
    body = (
        b"<html><head><title>Just a moment...</title></head><body><div "
        b"id='cf-chl-widget'></div></body></html>"
    )
    return Response(
        body,
        status_code=403,
        headers={"server": "cloudflare", "cf-mitigated": "challenge"},
        media_type="text/html",
    )


async def walled(request: Request) -> Response:
    """walled.example: a challenge page answered 200, with no header to say so: only its markup
    does."""
    return _html(
        "Just a moment...",
        "<div class='challenge-platform'></div><p>Checking your browser before accessing "
        "walled.example.</p>",
    )


SITES = {
    "example.com": example_com,
    "example.org": example_org,
    "docs.rs": docs_rs,
    "waf.example": waf,
}


async def dispatch(request: Request) -> Response:
    host = request.headers.get("host", "").split(":")[0]
    if request.url.path == "/robots.txt" and host != "example.com":
        return PlainTextResponse("User-agent: *\nAllow: /\n")
    return await SITES.get(host, walled)(request)


APP = Starlette(routes=[Route("/{path:path}", dispatch)])


@pytest.fixture(scope="module")
def client(registry: Registry, settings: Settings) -> Iterator[SyncClient]:
    """An MCP client whose server reaches the seed's hosts, routed to the fixture site on
    127.0.0.1."""
    with serve(app=APP) as port:
        policy = dataclasses.replace(
            FetchPolicy.from_settings(settings), host_interval=0.0, only_hosts=frozenset()
        )
        fetcher = Fetcher(
            policy, resolver=FakeDNS({host: [PUBLIC] for host in HOSTS}), dial=LoopbackBackend(port)
        )
        runner = build_runner(registry, settings, fetcher=fetcher)
        with open_client(InMemoryTransport(build_server(runner)), runner) as session:
            yield session


def _ok(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.call(tool, arguments)
    assert result.is_error is False, result.structured_content
    envelope: dict[str, Any] = result.structured_content
    assert envelope["ok"] is True
    return envelope


def _error(client: SyncClient, tool: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
    result = client.call(tool, arguments)
    envelope: dict[str, Any] = result.structured_content
    assert result.is_error is True and envelope["ok"] is False, envelope
    assert envelope["payload"]["error"]["code"] == code, envelope["payload"]["error"]
    return envelope


def test_the_seeds_tools_are_listed_with_its_argument_names(client: SyncClient) -> None:
    tools = {tool.name: tool for tool in client.run("list_tools").tools}
    expected = {
        "scrape": {"url", "format", "use_browser"},
        "crawl": {"url", "max_depth", "max_pages", "format", "stay_on_domain"},
        "map": {"url", "limit", "search", "respect_robots_txt", "format"},
        "batch_scrape": {"urls", "format", "concurrency"},
        "batch_crawl": {
            "urls",
            "max_depth",
            "max_pages",
            "format",
            "stay_on_domain",
            "concurrency",
        },
        "download": {"url", "max_size"},
        "generate_citations": {"markdown"},
        "get_version": set(),
    }
    for name, arguments in expected.items():
        assert arguments <= set(tools[name].input_schema["properties"]), name
    crawl = tools["crawl"].input_schema["properties"]
    assert crawl["max_depth"]["maximum"] == 100 and crawl["max_pages"]["maximum"] == 100_000
    assert crawl["max_pages"]["minimum"] == 1
    assert set(tools["scrape"].input_schema["properties"]["format"]["enum"]) >= {"markdown", "json"}


def test_the_instructions_say_which_tool_to_use_when(client: SyncClient) -> None:
    instructions = client.client.instructions
    for sentence in (
        "'scrape' for a single page",
        "'crawl' follows links",
        "'map' discovers",
        "'batch_scrape'",
    ):
        assert sentence in instructions
    assert (
        "format 'json' for structured output" in instructions
        and "'markdown' (the default)" in instructions
    )


def test_scrape_markdown_returns_the_title_metadata_and_content(client: SyncClient) -> None:
    envelope = _ok(client, "scrape", {"url": "http://example.com", "format": "markdown"})
    page = envelope["payload"]
    assert page["format"] == "markdown" and page["title"] == "Example Domain"
    assert page["content"].startswith("# Example Domain") and "Sentence 29" in page["content"]
    assert (
        page["metadata"]["description"] == "The example home page"
        and page["metadata"]["language"] == "en"
    )
    assert envelope["next_step"] == "done"


def test_scrape_json_is_the_structured_result(client: SyncClient) -> None:
    page = _ok(client, "scrape", {"url": "http://example.com", "format": "json"})["payload"]
    blocks = json.loads(page["content"])  # JSON, with every field: title, metadata, blocks, links
    assert blocks[0] == {"type": "heading", "text": "Example Domain", "level": 1}
    assert {"paragraph"} <= {block["type"] for block in blocks}
    assert (
        page["title"] == "Example Domain"
        and page["metadata"]["description"] == "The example home page"
    )
    assert {"url": "http://example.com/api/reference", "text": "/api/reference"} in page["links"]


@pytest.mark.browser
def test_scrape_use_browser_renders_the_page_in_the_browser(client: SyncClient) -> None:
    """Crawlberg's use_browser is strategy browser: the page is rendered (under the same policy) and
    read."""
    envelope = _ok(client, "scrape", {"url": "http://example.com", "use_browser": True})
    assert (
        envelope["payload"]["selected_strategy"] == "browser"
        and envelope["payload"]["status"] == 200
    )


def test_a_waf_challenge_is_an_error_never_content(client: SyncClient) -> None:
    """The seed's 'WAF blocked' (internal_error, "Blocked by WAF/bot protection") is netglean's
    blocked."""
    for url in ("http://waf.example/", "http://walled.example/"):
        envelope = _error(client, "scrape", {"url": url}, "blocked")
        error = envelope["payload"]["error"]
        assert error["detail"]["signals"] and error["retryable"] is False
        assert envelope["next_step"] == "inspect_url" and "inspect_url" in envelope["guidance"]
    assert (
        "cloudflare-challenge-header"
        in _error(client, "scrape", {"url": "http://waf.example/"}, "blocked")["payload"]["error"][
            "detail"
        ]["signals"]
    )


def test_a_page_that_merely_carries_a_captcha_is_content(client: SyncClient) -> None:
    page = _ok(client, "scrape", {"url": "http://example.com/comments"})["payload"]
    assert "Comments welcome" in page["content"] and "Sentence 3 " in page["content"]


def test_crawl_follows_links_on_the_domain_within_the_bounds(client: SyncClient) -> None:
    arguments = {
        "url": "http://docs.rs/tokio",
        "max_depth": 2,
        "max_pages": 50,
        "stay_on_domain": True,
    }
    crawled = _ok(client, "crawl", arguments)
    payload = crawled["payload"]
    urls = [visit["url"] for visit in payload["pages"]]
    assert urls == [
        "http://docs.rs/tokio",
        "http://docs.rs/tokio/runtime",
        "http://docs.rs/tokio/net",
        "http://docs.rs/tokio/task",
    ]
    assert all(visit["ok"] and visit["page"]["content"] for visit in payload["pages"])
    assert payload["read"] == 4 and payload["truncated"] is False and "stopped" not in payload
    assert crawled["next_step"] == "done"
    shallow = _ok(
        client, "crawl", {**arguments, "max_depth": 1, "stay_on_domain": False, "format": "json"}
    )
    pages = shallow["payload"]["pages"]
    assert "http://example.org/" in [visit["url"] for visit in pages]
    assert json.loads(pages[0]["page"]["content"])[0]["type"] == "heading"


def test_crawl_takes_the_seeds_largest_bounds_and_refuses_past_them(client: SyncClient) -> None:
    most = _ok(
        client, "crawl", {"url": "http://docs.rs/tokio", "max_depth": 100, "max_pages": 100_000}
    )
    assert most["payload"]["read"] == 4
    # the seed's invalid_params
    for bad in ({"max_depth": 101}, {"max_pages": 0}, {"max_pages": 100_001}):
        _error(client, "crawl", {"url": "http://docs.rs/tokio", **bad}, "invalid_arguments")
    _error(client, "crawl", {"url": "ftp://docs.rs/tokio"}, "bad_url")  # the seed's invalid URL


def test_map_discovers_links_and_sitemap_urls_filtered_and_limited(client: SyncClient) -> None:
    envelope = _ok(client, "map", {"url": "http://example.com", "limit": 200, "search": "api"})
    payload = envelope["payload"]
    api = [
        "http://example.com/api/reference",
        "http://example.com/api/guide",
        "http://example.com/api/changelog",
    ]
    # markdown, the default: a readable list
    assert payload["content"] == "\n".join(f"- {url}" for url in api)
    assert (
        payload["count"] == 3
        and payload["truncated"] is False
        and envelope["next_step"] == "batch_scrape"
    )
    structured = _ok(
        client, "map", {"url": "http://example.com", "search": "API", "format": "json"}
    )["payload"]
    assert structured["urls"] == api and structured["sitemaps"] == [
        "http://example.com/sitemap.xml"
    ]
    obeying = _ok(
        client, "map", {"url": "http://example.com", "limit": 2, "respect_robots_txt": True}
    )["payload"]
    assert obeying["count"] == 2 and obeying["truncated"] is True


def test_map_cannot_switch_robots_txt_off(client: SyncClient) -> None:
    envelope = _error(
        client, "map", {"url": "http://example.com", "respect_robots_txt": False}, "operator_policy"
    )
    assert envelope["payload"]["error"]["detail"]["setting"] == "ignore_robots"


def test_batch_scrape_reads_each_url_concurrently_in_order(client: SyncClient) -> None:
    arguments = {
        "urls": ["http://example.com", "http://example.org"],
        "format": "json",
        "concurrency": 5,
    }
    envelope = _ok(client, "batch_scrape", arguments)
    payload = envelope["payload"]
    assert [entry["url"] for entry in payload["results"]] == arguments["urls"]
    assert [json.loads(entry["page"]["content"])[0]["text"] for entry in payload["results"]] == [
        "Example Domain",
        "Example Org",
    ]
    assert (payload["succeeded"], payload["failed"]) == (2, 0) and envelope["next_step"] == "done"


def test_batch_scrape_reports_a_wall_as_that_urls_error(client: SyncClient) -> None:
    envelope = _ok(client, "batch_scrape", {"urls": ["http://example.org", "http://waf.example/"]})
    good, wall = envelope["payload"]["results"]
    assert good["ok"] is True and wall["ok"] is False and "page" not in wall
    assert wall["error"]["code"] == "blocked" and wall["error"]["detail"]["signals"]
    assert "inspect_url" in envelope["guidance"]
    alone = _ok(client, "batch_scrape", {"urls": ["http://walled.example/"]})
    assert alone["next_step"] == "inspect_url" and alone["payload"]["failed"] == 1


def test_batch_scrape_concurrency_above_the_operators_is_refused_by_name(
    client: SyncClient,
) -> None:
    envelope = _error(
        client,
        "batch_scrape",
        {"urls": ["http://example.com"], "concurrency": 500},
        "operator_policy",
    )
    detail = envelope["payload"]["error"]["detail"]
    assert (
        detail["setting"] == "global_concurrency" and detail["env"] == "NETGLEAN_GLOBAL_CONCURRENCY"
    )
    assert detail["flag"] == "--global-concurrency" and detail["argument"] == "concurrency"
    _error(client, "batch_scrape", {"urls": []}, "invalid_arguments")  # the seed: must not be empty


def test_batch_crawl_crawls_each_seed(client: SyncClient) -> None:
    arguments = {
        "urls": ["http://docs.rs/tokio", "http://example.org"],
        "max_depth": 1,
        "max_pages": 10,
        "format": "markdown",
        "stay_on_domain": True,
        "concurrency": 2,
    }
    crawls = _ok(client, "batch_crawl", arguments)["payload"]["crawls"]
    assert [crawl["url"] for crawl in crawls] == arguments["urls"]
    assert [crawl["read"] for crawl in crawls] == [3, 1]
    walled = _ok(client, "batch_crawl", {"urls": ["http://walled.example/"]})["payload"]["crawls"][
        0
    ]
    assert walled["pages"][0]["error"]["code"] == "blocked" and walled["read"] == 0
    _error(
        client,
        "batch_crawl",
        {"urls": ["http://docs.rs/tokio"], "concurrency": 500},
        "operator_policy",
    )


def test_download_returns_the_documents_facts(client: SyncClient) -> None:
    envelope = _ok(
        client, "download", {"url": "http://example.com/report.pdf", "max_size": 1_000_000}
    )
    facts = envelope["payload"]
    body = b"%PDF-1.7 crawlberg fixture"
    assert (
        facts["url"] == "http://example.com/report.pdf" and facts["mime_type"] == "application/pdf"
    )
    assert facts["size"] == len(body) and facts["filename"] == "report.pdf"
    assert (
        facts["content_hash"] == "sha256:" + hashlib.sha256(body).hexdigest()
        and "page" not in facts
    )
    html = _ok(client, "download", {"url": "http://example.com"})["payload"]
    # page metadata
    assert html["mime_type"] == "text/html" and html["page"]["title"] == "Example Domain"
    assert html["page"]["description"] == "The example home page"
    _error(
        client, "download", {"url": "http://example.com/report.pdf", "max_size": 10}, "too_large"
    )
    too_much = _error(
        client,
        "download",
        {"url": "http://example.com", "max_size": 100_000_000},
        "operator_policy",
    )
    assert too_much["payload"]["error"]["detail"]["setting"] == "fetch_max_bytes"


def test_generate_citations_numbers_the_links(client: SyncClient) -> None:
    markdown = "Tides follow the [moon](https://moon.example/) and the [sun](https://sun.example/)."
    payload = _ok(client, "generate_citations", {"markdown": markdown})["payload"]
    assert payload["markdown"].startswith("Tides follow the moon [1] and the sun [2].\n")
    # at the end
    assert payload["markdown"].endswith("[1]: https://moon.example/\n[2]: https://sun.example/\n")
    assert payload["citation_count"] == 2


def test_get_version_returns_the_version(client: SyncClient) -> None:
    payload = _ok(client, "get_version", {})["payload"]
    assert payload["version"] == __version__
