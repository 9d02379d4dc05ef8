"""html2rss's page tools as its MCP reference documents them (/work/shared/seeds, html2rss):
scrape_url, inspect_url and capture_config called over MCP with the seed's argument names, checked
for the seed's result fields, isError and next_step. Pages are served on 127.0.0.1 (plain HTTP and
TLS) under public-looking names the fetch double routes."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.serve.mcp import build_server
from tests.support import tls_fixture
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

SITE = "http://site.test"

STORIES = [
    (
        "/news/storm-closes-the-port",
        "Storm closes the port for two days",
        "2026-11-29T07:30:00+01:00",
    ),
    (
        "/news/ferry-timetable-changes",
        "Ferry timetable changes for winter",
        "2026-11-28T09:00:00+01:00",
    ),
    ("/news/new-lighthouse-keeper", "A new lighthouse keeper starts", "2026-11-27T12:00:00+01:00"),
    ("/news/harbour-dredging-done", "Harbour dredging is finished", "2026-11-26T16:45:00+01:00"),
]


def _story(path: str, title: str, when: str) -> str:
    return (
        f'<li class="story"><h2><a href="{path}">{title}</a></h2><time '
        f'datetime="{when}">{when[:10]}</time>'
        f"<p>What happened at the harbour: {title.lower()}.</p></li>"
    )


LISTING = (
    '<!doctype html><html lang="en"><head><title>Harbour News</title></head><body>'
    '<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
    '<li><a href="/about">About</a></li></ul></nav>'
    '<main><ul class="stories">'
    + "".join(_story(*story) for story in STORIES)
    + _story(*STORIES[0])  # the same story again (a "most read" repeat): a duplicate
    + _story(
        "https://partner.example/story",
        "A partner's story on their own site",
        "2026-11-25T08:00:00+01:00",
    )
    + "</ul></main></body></html>"
)
FEEDS = (
    "<!doctype html><html><head><title>Harbour Blog</title>"
    '<link rel="alternate" type="application/rss+xml" title="Harbour Blog RSS" href="/feed/">'
    '<link rel="alternate" type="application/atom+xml" title="Harbour Blog Atom" '
    'href="/feed/atom/">'
    '<link rel="alternate" type="application/json" href="http://site.test/wp-json/wp/v2/pages/12">'
    '<link rel="alternate" type="application/feed+json" title="Harbour Blog JSON Feed" '
    'href="/feed.json">'
    "</head><body><main><h1>Welcome aboard</h1><p>Posts are in the feeds.</p></main></body></html>"
)
WEAK = (
    "<!doctype html><html><head><title>About the harbour</title></head><body><main><h1>About "
    "us</h1>"
    '<p>We have run the ferries since 1921. <a href="/contact">Write to '
    "us</a>.</p></main></body></html>"
)
WALL = (
    "<!doctype html><html><head><title>Just a moment...</title></head><body><div "
    "id='cf-chl-widget'></div><p>Checking your browser before accessing "
    "site.test.</p></body></html>"
)

# a listing that names walls in passing: a noscript notice, a script comment, articles quoting a
# challenge
SIGNS = (
    "<!doctype html><html><head><title>Harbour Wire</title><script>/* turnstile off "
    "*/</script></head><body><noscript>Please enable JavaScript and cookies to "
    "comment.</noscript><main>"
    + "".join(
        f"<article><h2><a href='/wire/{n}'>Wire story {n} from the harbour</a></h2><p>Checking "
        f"your browser is what a wall says; story {n} tells of the ferries instead.</p><div "
        "class='challenge-platform'></div></article>"
        for n in range(30)
    )
    + "</main></body></html>"
)
NOT_FEEDS = (
    "<!doctype html><html><head><title>Odd links</title><base href='http://site.test/sub/'>"
    "<link rel='alternate' type='application/rss+xml' href='javascript:void(0)'>"
    "<link rel='alternate' type='application/rss+xml' href='data:text/xml,<x/>'>"
    "<link rel='alternate' type='application/atom+xml' href=''>"
    "<link rel='alternate' type='application/rss+xml' href='a.rss'>"
    "</head><body><main><p>One real feed, under the base URL.</p></main></body></html>"
)


async def _page(request: Request) -> Response:
    if request.url.path == "/report.pdf":
        return Response(b"%PDF-1.7\n%\xe2\xe3\n1 0 obj <<>> endobj", media_type="application/pdf")
    if request.url.path == "/feed.rss":
        return Response(
            b"<?xml version='1.0'?><rss version='2.0'><channel/></rss>",
            media_type="application/xml",
        )
    pages = {"/news": LISTING, "/blog": FEEDS, "/about": WEAK, "/wire": SIGNS, "/odd": NOT_FEEDS}
    return HTMLResponse(pages.get(request.url.path, "<h1>Not found</h1>"), status_code=200)


async def _wall(request: Request) -> Response:
    headers = {"server": "cloudflare", "cf-mitigated": "challenge"}
    return HTMLResponse(WALL, status_code=403, headers=headers)


async def _moved(request: Request) -> Response:
    """Over TLS: the listing has moved to plain http."""
    return RedirectResponse(f"{SITE}/news", status_code=301)


APP = Starlette(
    routes=[Route("/challenge", _wall), Route("/moved", _moved), Route("/{page}", _page)],
)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tls_fixture.TestTLS:
    return tls_fixture.make_tls(Path(tmp_path_factory.mktemp("tls")))


@pytest.fixture(scope="module")
def ports(tls: tls_fixture.TestTLS) -> Iterator[tuple[int, int]]:
    """The site on 127.0.0.1 twice: plain HTTP, and over TLS as site.test."""
    with serve(app=APP) as plain, serve((tls.cert_file, tls.key_file), app=APP) as secure:
        yield plain, secure


def _client(
    registry: Registry, settings: Settings, tls: tls_fixture.TestTLS, ports: tuple[int, int]
) -> Any:
    """An MCP client whose server reads site.test (a public-looking name) from the fixture site,
    under the operator policy ``settings`` say."""
    policy = dataclasses.replace(
        FetchPolicy.from_settings(settings), host_interval=0.0, only_hosts=frozenset()
    )
    fetcher = Fetcher(
        policy,
        resolver=FakeDNS({"site.test": [PUBLIC]}),
        dial=LoopbackBackend(ports[0], tls_port=ports[1]),
        ssl_context=tls.client_context(),
    )
    runner = build_runner(registry, settings, fetcher=fetcher)
    return open_client(InMemoryTransport(build_server(runner)), runner)


@pytest.fixture(scope="module")
def client(
    registry: Registry, settings: Settings, tls: tls_fixture.TestTLS, ports: tuple[int, int]
) -> Iterator[SyncClient]:
    with _client(registry, settings, tls, ports) as session:
        yield session


@pytest.fixture(scope="module")
def downgrading(
    registry: Registry, settings: Settings, tls: tls_fixture.TestTLS, ports: tuple[int, int]
) -> Iterator[SyncClient]:
    """A server whose operator allows https -> http redirects (allow_https_downgrade)."""
    with _client(
        registry, dataclasses.replace(settings, allow_https_downgrade=True), tls, ports
    ) as session:
        yield session


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The envelope, checked as the seed promises every call: ok, next_step, guidance, payload;
    isError is not ok."""
    result = client.call(tool, arguments)
    envelope: dict[str, Any] = result.structured_content
    assert {"ok", "next_step", "guidance", "payload"} <= set(envelope), envelope
    assert result.is_error is (not envelope["ok"]), envelope
    assert envelope["next_step"] in {
        "done",
        "inspect_url",
        "validate_config",
        "apply_config",
        "scrape_url",
        "capture_config",
        "read_runtime",
    }  # the seed's next steps (read_runtime is resources/read html2rss://runtime there)
    return envelope


# scrape_url


def test_scrape_url_returns_the_listings_articles_as_json_feed_items(client: SyncClient) -> None:
    envelope = _call(client, "scrape_url", {"url": f"{SITE}/news"})
    assert envelope["ok"] is True
    payload = envelope["payload"]
    assert [item["title"] for item in payload["items"]] == [title for _, title, _ in STORIES]
    first = payload["items"][0]
    assert (
        first["url"] == f"{SITE}{STORIES[0][0]}"
        and first["published_at"] == "2026-11-29T07:30:00+01:00"
    )
    assert (
        first["description"] == "What happened at the harbour: storm closes the port for two days."
    )
    assert payload["total"] == 4 and payload["channel_title"] == "Harbour News"
    assert payload["requested_strategy"] == "auto"  # the default


def test_scrape_url_reports_why_candidate_items_were_dropped(client: SyncClient) -> None:
    payload = _call(client, "scrape_url", {"url": f"{SITE}/news"})["payload"]
    # the repeated story and the partner's (another site's) story were candidates, left out by
    # cleanup
    assert payload["admission_drops"] == {"duplicate": 1, "other_site": 1}


def test_scrape_url_limit_and_items_selector(client: SyncClient) -> None:
    limited = _call(client, "scrape_url", {"url": f"{SITE}/news", "limit": 2})["payload"]
    assert len(limited["items"]) == 2 and limited["total"] == 4
    hinted = _call(
        client, "scrape_url", {"url": f"{SITE}/news", "items_selector": "ul.stories > li.story"}
    )
    assert hinted["ok"] is True and hinted["payload"]["total"] == 6  # the hint's items, as they are
    assert hinted["payload"]["items"][0]["title"] == STORIES[0][1]


def test_scrape_url_with_no_items_is_still_a_success(client: SyncClient) -> None:
    envelope = _call(client, "scrape_url", {"url": f"{SITE}/about"})
    assert (
        envelope["ok"] is True
        and envelope["payload"]["items"] == []
        and envelope["payload"]["total"] == 0
    )
    assert envelope["next_step"] == "inspect_url"


# inspect_url


def test_inspect_url_lists_only_rss_and_atom_as_alternate_feeds(client: SyncClient) -> None:
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/blog"})
    assert envelope["ok"] is True and envelope["next_step"] == "done"  # native feeds exist
    payload = envelope["payload"]
    assert payload["alternate_feeds"] == [
        {"url": f"{SITE}/feed/", "type": "rss", "title": "Harbour Blog RSS"},
        {"url": f"{SITE}/feed/atom/", "type": "atom", "title": "Harbour Blog Atom"},
    ]  # WordPress's application/json REST link is no feed
    assert payload["json_feeds"] == [
        {"url": f"{SITE}/feed.json", "title": "Harbour Blog JSON Feed"}
    ]
    assert all("wp-json" not in feed["url"] for feed in payload["feeds"])
    # announced, not fetched: it may answer 404 (issue 19)
    assert "unverified" in envelope["guidance"]


def test_inspect_url_diagnoses_a_listing(client: SyncClient) -> None:
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/news"})
    payload = envelope["payload"]
    assert payload["requested_url"] == f"{SITE}/news" and payload["final_url"] == f"{SITE}/news"
    assert payload["status"] == 200 and payload["scheme_downgrade"] is False
    assert payload["alternate_feeds"] == [] and "blocked_surface" not in payload
    assert payload["articles_count"] == 4 and payload["admission_drops"] == {
        "duplicate": 1,
        "other_site": 1,
    }
    assert envelope["next_step"] == "capture_config"  # articles were found
    assert payload["content_type"] == "text/html" and payload["html_response"] is True
    # the stories are a repeated linked structure, nothing else
    assert payload["scraper_eligibility"] == ["html"]
    # menu, stories
    assert payload["sst_stats"]["links"] == 3 + 6 and payload["sst_stats"]["stripped"] == 0
    assert payload["sst"]["segment_stats"] == {"segments": 1, "cards": 6, "largest": 6}
    assert (
        payload["sst"]["node_count"] == payload["sst_stats"]["elements"]
        and payload["sst"]["degraded"] is False
    )


def test_inspect_url_on_a_weak_page_points_to_scrape_url(client: SyncClient) -> None:
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/about"})
    assert envelope["ok"] is True and envelope["payload"]["articles_count"] == 0
    assert envelope["payload"]["alternate_feeds"] == [] and envelope["next_step"] == "scrape_url"


def test_inspect_url_names_the_bot_wall(client: SyncClient) -> None:
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/challenge"})
    payload = envelope["payload"]
    assert envelope["ok"] is True and payload["status"] == 403
    assert payload["blocked_surface"] == "cloudflare-challenge"
    assert payload["articles_count"] == 0
    # netglean's own choice past the seed: a wall ends the inspection (scrape_url would read the
    # same wall)
    assert envelope["next_step"] == "done"


def test_inspect_url_reads_a_listing_that_names_walls_in_passing_as_a_listing(
    client: SyncClient,
) -> None:
    """Signs of a wall on a page of its own text are facts (bot_wall_signals), not a wall: scrape's
    rule."""
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/wire"})
    payload = envelope["payload"]
    assert (
        payload["articles_count"] == 30
        and "blocked_surface" not in payload
        and payload["bot_wall"] is False
    )
    assert {"browser-check", "captcha", "cloudflare-challenge"} <= set(payload["bot_wall_signals"])
    assert envelope["next_step"] == "capture_config" and "challenge" not in envelope["guidance"]
    assert _call(client, "scrape_url", {"url": f"{SITE}/wire"})["payload"]["total"] == 30


def test_inspect_url_lists_only_http_feeds_resolved_against_the_base_url(
    client: SyncClient,
) -> None:
    envelope = _call(client, "inspect_url", {"url": f"{SITE}/odd"})
    payload = envelope["payload"]
    assert payload["alternate_feeds"] == [{"url": f"{SITE}/sub/a.rss", "type": "rss"}]
    assert payload["feeds"] == payload["alternate_feeds"] and payload["json_feeds"] == []
    assert "1 feed(s)" in envelope["guidance"]


def test_inspect_url_on_what_is_no_html_page_is_done(client: SyncClient) -> None:
    """scrape_url would refuse a PDF: sending the agent there would loop."""
    pdf = _call(client, "inspect_url", {"url": f"{SITE}/report.pdf"})
    assert (
        pdf["ok"] is True
        and pdf["next_step"] == "done"
        and pdf["payload"]["html_response"] is False
    )
    # an HTML page's facts
    assert not {"scraper_eligibility", "sst_stats", "sst"} & set(pdf["payload"])
    assert "download identifies a document" in pdf["guidance"]
    feed = _call(client, "inspect_url", {"url": f"{SITE}/feed.rss"})
    assert feed["next_step"] == "done" and "a feed itself" in feed["guidance"]


def test_scrape_url_on_what_it_cannot_read_does_not_send_the_agent_back_to_itself(
    client: SyncClient,
) -> None:
    envelope = _call(client, "scrape_url", {"url": f"{SITE}/report.pdf"})
    assert envelope["ok"] is False and envelope["payload"]["error"]["code"] == "unsupported_content"
    assert (
        envelope["next_step"] == "inspect_url"
        and "download identifies a document" in envelope["guidance"]
    )


def test_inspect_url_reports_an_https_to_http_redirect_the_operator_allows(
    downgrading: SyncClient,
) -> None:
    payload = _call(downgrading, "inspect_url", {"url": "https://site.test/moved"})["payload"]
    assert (
        payload["requested_url"] == "https://site.test/moved"
        and payload["final_url"] == f"{SITE}/news"
    )
    assert payload["scheme_downgrade"] is True and payload["status"] == 200


def test_an_https_to_http_redirect_is_refused_by_default(client: SyncClient) -> None:
    """netglean's policy: a downgrade is refused unless the operator allows it; the refusal says
    so."""
    envelope = _call(client, "inspect_url", {"url": "https://site.test/moved"})
    assert envelope["ok"] is False and envelope["payload"]["error"]["code"] == "scheme_downgrade"


# capture_config


def test_capture_config_drafts_a_config_for_a_listing(client: SyncClient) -> None:
    envelope = _call(client, "capture_config", {"url": f"{SITE}/news"})
    assert envelope["ok"] is True and envelope["next_step"] == "validate_config"
    payload = envelope["payload"]
    assert payload["articles_count"] > 0 and payload["has_selectors"] is True
    assert payload["articles_count"] == 5  # the repeat is one item, as apply_config keeps it
    assert payload["channel_title"] == "Harbour News" and payload["requested_strategy"] == "auto"
    assert "enhance: true" in payload["yaml"] and "items:" in payload["yaml"]
    # the seed's capture-feed-config workflow: capture -> validate -> apply, item_count confirmed
    checked = _call(client, "validate_config", {"yaml": payload["yaml"]})
    assert checked["ok"] is True and checked["next_step"] == "apply_config"
    applied = _call(client, "apply_config", {"yaml": payload["yaml"]})
    assert applied["ok"] is True and applied["payload"]["item_count"] == payload["articles_count"]


def test_capture_config_takes_an_items_selector_hint(client: SyncClient) -> None:
    payload = _call(
        client, "capture_config", {"url": f"{SITE}/news", "items_selector": "li.story"}
    )["payload"]
    assert (
        payload["config"]["selectors"]["items"]["selector"] == "li.story"
        and payload["has_selectors"] is True
    )
    assert payload["articles_count"] == 5
    unreadable = _call(client, "capture_config", {"url": f"{SITE}/news", "items_selector": "li[["})
    assert unreadable["ok"] is False and unreadable["payload"]["error"]["code"] == "invalid_config"


def test_capture_config_on_a_weak_page_still_returns_a_draft(client: SyncClient) -> None:
    envelope = _call(client, "capture_config", {"url": f"{SITE}/about"})
    assert envelope["ok"] is True and envelope["next_step"] == "inspect_url"
    payload = envelope["payload"]
    assert payload["articles_count"] == 0 and payload["has_selectors"] is False
    assert payload["yaml"] and payload["channel_title"] == "About the harbour"


# strategy


@pytest.mark.parametrize("tool", ["scrape_url", "inspect_url", "capture_config"])
def test_faraday_is_plain_http_like_auto(client: SyncClient, tool: str) -> None:
    envelope = _call(client, tool, {"url": f"{SITE}/news", "strategy": "faraday"})
    assert envelope["ok"] is True and envelope["payload"]["requested_strategy"] == "faraday"
    assert envelope["payload"]["selected_strategy"] == "http"


@pytest.mark.browser
@pytest.mark.parametrize("tool", ["scrape_url", "inspect_url", "capture_config"])
@pytest.mark.parametrize("strategy", ["botasaurus", "browserless"])
def test_a_browser_strategy_renders_the_page_in_the_servers_browser(
    client: SyncClient, tool: str, strategy: str
) -> None:
    """The listing is the same rendered (it needs no script): what the tools find in it is the same
    too."""
    plain = _call(client, tool, {"url": f"{SITE}/news"})["payload"]
    envelope = _call(client, tool, {"url": f"{SITE}/news", "strategy": strategy})
    payload = envelope["payload"]
    assert envelope["ok"] is True and payload["requested_strategy"] == strategy
    assert payload["selected_strategy"] == "browser" and plain["selected_strategy"] == "http"
    if tool == "scrape_url":
        assert [item["url"] for item in payload["items"]] == [
            item["url"] for item in plain["items"]
        ]
    elif tool == "capture_config":
        assert (
            payload["articles_count"] == plain["articles_count"]
            and payload["config"]["strategy"] == "browserless"
        )
        assert "strategy" not in plain["config"]
    else:
        assert (
            payload["articles_count"] == plain["articles_count"]
            and payload["xhr_capture"]["count"] == 0
        )
