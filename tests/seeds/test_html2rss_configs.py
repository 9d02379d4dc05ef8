"""html2rss's MCP reference (``../shared/seeds/000_2ab941c0339dd281.txt``), the parts about durable
feed configs: validate_config and apply_config as its clients call them, its result envelope, its
html2rss:// resources and its prompts, each checked for what the reference documents, over MCP
against listing pages on 127.0.0.1.

Written from the reference, not from netglean: the argument names, the fields a client reads
(payload.errors, payload.rss, payload.item_count), isError and next_step are the reference's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterator
from typing import Any

import feedparser
import pytest
import yaml
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.feed_site import FEED_APP, FIXTURES
from tests.support.fixture_site import serve

NEXT_STEPS = {
    "done",
    "inspect_url",
    "validate_config",
    "apply_config",
    "scrape_url",
    "capture_config",
    "read_runtime",
}
"""The reference: "next_step is one of" these."""
LONG = 150
"""Items on the long listing: more than any cap a client did not ask for."""


async def long_listing(request: Request) -> HTMLResponse:
    items = "".join(
        f'<li class="post"><a href="/post/{n}">Post number {n}</a></li>' for n in range(LONG)
    )
    return HTMLResponse(
        f"<html><head><title>Long</title></head><body><ul>{items}</ul></body></html>"
    )


SITE = Starlette(routes=[Route("/long", long_listing), Mount("/", app=FEED_APP)])


@pytest.fixture(scope="module")
def seed(registry: Registry) -> Iterator[tuple[SyncClient, str]]:
    """A client of a server that may read 127.0.0.1 (the operator's switch), and the listing site's
    origin."""
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
    )
    runner = build_runner(registry, settings)
    with (
        serve(app=SITE) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, f"http://127.0.0.1:{port}"


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """isError and the envelope, checked as the reference describes every result."""
    result = client.call(tool, arguments)
    envelope: dict[str, Any] = result.structured_content
    assert set(envelope) >= {"ok", "next_step", "guidance", "payload"}, envelope
    assert result.is_error is (envelope["ok"] is False), "isError matches ok: false"
    assert envelope["next_step"] in NEXT_STEPS, envelope["next_step"]
    return bool(result.is_error), envelope


def _config(origin: str, **more: Any) -> dict[str, Any]:
    return {
        "channel": {"url": f"{origin}/feeds/paged", "title": "Posts"},
        "selectors": {
            "items": {"selector": "li.entry"},
            "title": {"selector": "a"},
            "url": {"selector": "a", "extractor": "href"},
        },
        **more,
    }


# --- validate_config ------------------------------------------------------------------------------


def test_validate_config_a_valid_config_leads_to_apply_config(seed: tuple[SyncClient, str]) -> None:
    client, origin = seed
    for arguments in ({"config": _config(origin)}, {"yaml": yaml.safe_dump(_config(origin))}):
        failed, envelope = _call(client, "validate_config", arguments)
        assert not failed and envelope["ok"] is True and envelope["next_step"] == "apply_config"


def test_validate_config_on_a_text_block_that_is_the_envelope(seed: tuple[SyncClient, str]) -> None:
    """The reference: the same JSON object in the text content and structuredContent."""
    client, origin = seed
    result = client.call("validate_config", {"config": _config(origin)})
    assert json.loads(result.content[0].text) == result.structured_content


def test_validate_config_a_schema_failure_is_is_error_with_payload_errors(
    seed: tuple[SyncClient, str],
) -> None:
    client, origin = seed
    broken = _config(origin)
    broken["selectors"]["title"]["extractor"] = "txt"
    failed, envelope = _call(client, "validate_config", {"config": broken})
    assert failed and envelope["next_step"] == "validate_config"
    errors = envelope["payload"]["errors"]
    assert errors and all(set(e) >= {"path", "message"} for e in errors)
    assert any(e["path"] == "/selectors/title/extractor" for e in errors)
    failed, envelope = _call(client, "validate_config", {"yaml": "channel: [unclosed\n"})
    assert failed and envelope["payload"]["errors"] and envelope["next_step"] == "validate_config"


@pytest.mark.parametrize(
    "arguments", [{}, {"config": {"channel": {}}, "yaml": "channel: {}"}], ids=["neither", "both"]
)
def test_validate_config_neither_or_both_sources_lead_back_to_validate_config(
    seed: tuple[SyncClient, str], arguments: dict[str, Any]
) -> None:
    failed, envelope = _call(seed[0], "validate_config", arguments)
    assert failed and envelope["next_step"] == "validate_config"


@pytest.mark.parametrize("tool", ["validate_config", "apply_config"])
def test_local_file_strategy_and_path_are_rejected(seed: tuple[SyncClient, str], tool: str) -> None:
    """The reference: validate_config / apply_config reject strategy: local_file and
    request.local_file_path."""
    client, origin = seed
    for config in (
        _config(origin, strategy="local_file"),
        _config(origin, request={"local_file_path": "x.html"}),
    ):
        arguments = {
            "config": config,
            **({"url": f"{origin}/feeds/paged"} if tool == "apply_config" else {}),
        }
        failed, envelope = _call(client, tool, arguments)
        assert failed and envelope["payload"]["errors"], envelope


def test_the_html2rss_configs_rewrite_of_the_capture_prompt_validates(
    seed: tuple[SyncClient, str],
) -> None:
    """capture-feed-config: registry.id, directory.topics (non-empty), directory.title,
    channel.title mirrored, directory.summary optional and at most 160 characters, an explicit
    channel url."""
    client, origin = seed
    directory = {"title": "Posts", "topics": ["news"], "summary": "The latest posts."}
    rewritten = _config(origin, registry={"id": "example-posts"}, directory=directory)
    failed, envelope = _call(client, "validate_config", {"config": rewritten})
    assert not failed and envelope["next_step"] == "apply_config"
    for wrong in (
        {**directory, "topics": []},
        {**directory, "summary": "x" * 161},
        {"topics": ["news"]},
    ):
        failed, envelope = _call(
            client, "validate_config", {"config": {**rewritten, "directory": wrong}}
        )
        assert failed and envelope["payload"]["errors"]


# --- apply_config ---------------------------------------------------------------------------------


def test_apply_config_returns_rss_and_an_item_count_from_its_items(
    seed: tuple[SyncClient, str],
) -> None:
    client, origin = seed
    text = (
        (FIXTURES / "news.yml")
        .read_text(encoding="utf-8")
        .replace("%<port>s", origin.rsplit(":", 1)[1])
    )
    failed, envelope = _call(client, "apply_config", {"url": f"{origin}/feeds/news", "yaml": text})
    assert not failed and envelope["ok"] is True
    payload = envelope["payload"]
    parsed = feedparser.parse(payload["rss"])
    assert not parsed.bozo and parsed.version == "rss20"
    assert (
        payload["item_count"]
        == len(parsed.entries)
        == len(re.findall(r"<item>", payload["rss"]))
        == 5
    )


def test_apply_config_url_populates_a_missing_channel_url(seed: tuple[SyncClient, str]) -> None:
    client, origin = seed
    config = _config(origin)
    del config["channel"]["url"]
    failed, envelope = _call(
        client, "apply_config", {"url": f"{origin}/feeds/paged", "config": config}
    )
    assert not failed and envelope["payload"]["item_count"] == 3
    assert f"<link>{origin}/feeds/paged</link>" in envelope["payload"]["rss"]


def test_apply_config_zero_items_is_is_error_leading_to_inspect_url(
    seed: tuple[SyncClient, str],
) -> None:
    client, origin = seed
    config = _config(origin)
    config["selectors"]["items"]["selector"] = "div.nothing-here"
    failed, envelope = _call(
        client, "apply_config", {"url": f"{origin}/feeds/paged", "config": config}
    )
    assert (
        failed and envelope["payload"]["item_count"] == 0 and envelope["next_step"] == "inspect_url"
    )


def test_apply_config_keeps_every_item_it_was_not_asked_to_cut(
    seed: tuple[SyncClient, str],
) -> None:
    """The reference's apply_config takes no limit: a long listing's feed holds every item."""
    client, origin = seed
    config = {
        "channel": {"url": f"{origin}/long"},
        "selectors": {
            "items": {"selector": "li.post"},
            "title": {"selector": "a"},
            "url": {"selector": "a", "extractor": "href"},
        },
    }
    failed, envelope = _call(client, "apply_config", {"url": f"{origin}/long", "config": config})
    assert not failed and envelope["payload"]["item_count"] == LONG
    assert len(feedparser.parse(envelope["payload"]["rss"]).entries) == LONG


def test_apply_config_an_invalid_config_is_is_error_with_payload_errors(
    seed: tuple[SyncClient, str],
) -> None:
    client, origin = seed
    failed, envelope = _call(
        client, "apply_config", {"url": f"{origin}/feeds/paged", "config": {"selectors": {}}}
    )
    assert failed and envelope["payload"]["errors"]


# --- resources ------------------------------------------------------------------------------------


def _resource(client: SyncClient, uri: str) -> Any:
    contents = client.run("read_resource", uri).contents[0]
    assert contents.mime_type == "application/json", (uri, contents.mime_type)
    return json.loads(contents.text)


def test_resources_under_the_html2rss_scheme(seed: tuple[SyncClient, str]) -> None:
    client, _ = seed
    schema = _resource(client, "html2rss://schema")
    assert schema["type"] == "object" and {"channel", "selectors", "request", "strategy"} <= set(
        schema["properties"]
    )
    extractors = _resource(client, "html2rss://extractors")
    assert extractors == sorted(extractors) and {
        "attribute",
        "html",
        "href",
        "text",
        "static",
    } <= set(extractors)
    strategies = _resource(client, "html2rss://strategies")
    assert strategies == ["auto", "faraday", "botasaurus"] and "local_file" not in strategies
    runtime = _resource(client, "html2rss://runtime")
    assert isinstance(runtime["botasaurus_configured"], bool)
    assert all(isinstance(value, bool) for value in runtime.values()), (
        "booleans only: never the scraper URL"
    )


# --- prompts --------------------------------------------------------------------------------------


def test_the_scrape_webpage_prompt(seed: tuple[SyncClient, str]) -> None:
    client, _ = seed
    listed = {p.name: p for p in client.run("list_prompts").prompts}
    [argument] = listed["scrape-webpage"].arguments or []
    assert argument.name == "url" and argument.required
    text = (
        client.run("get_prompt", "scrape-webpage", {"url": "https://example.com/"})
        .messages[0]
        .content.text
    )
    assert "scrape_url" in text and "strategy auto" in text and "inspect_url" in text
    # inspect only if the scrape is weak
    assert text.index("scrape_url") < text.index("inspect_url")


def test_the_capture_feed_config_prompt(seed: tuple[SyncClient, str]) -> None:
    client, _ = seed
    listed = {p.name: p for p in client.run("list_prompts").prompts}
    [argument] = listed["capture-feed-config"].arguments or []
    assert argument.name == "url" and argument.required
    text = (
        client.run("get_prompt", "capture-feed-config", {"url": "https://example.com/"})
        .messages[0]
        .content.text
    )
    steps = re.split(r"^\s*\d\. ", text, flags=re.MULTILINE)[1:]
    assert len(steps) == len(TOOLS) and all(
        tool in step for tool, step in zip(TOOLS, steps, strict=True)
    ), steps
    for words in ("payload.yaml", "enhance: true", "isError", "zero items", "payload.item_count"):
        assert words in text, words
    # the seed's step 1 checks two fields capture_config answers with: the count, and whether
    # selectors were written
    assert "payload.articles_count and payload.has_selectors" in " ".join(steps[0].split()), steps[
        0
    ]
    workflow = client.run(
        "get_prompt", "feed_config_workflow", {"url": "https://example.com/"}
    ).messages[0]
    assert "payload.articles_count and payload.has_selectors" in " ".join(
        workflow.content.text.split()
    )
    for key in (
        "registry.id",
        "directory.topics",
        "directory.title",
        "channel.title",
        "directory.summary",
        "160",
    ):
        assert key in text, key


TOOLS = ("capture_config", "inspect_url", "validate_config", "apply_config")
"""The capture-feed-config prompt's four steps, in order."""


def test_scrape_url_takes_a_limit_above_netglean_old_bound(seed: tuple[SyncClient, str]) -> None:
    """The reference sets no bound on limit (netglean's was 200, so a client asking more got
    invalid_arguments)."""
    client, origin = seed
    failed, envelope = _call(client, "scrape_url", {"url": f"{origin}/long", "limit": 500})
    assert (
        not failed
        and envelope["payload"]["total"] == LONG
        and len(envelope["payload"]["items"]) == LONG
    )
