"""Crawl and feed projects over MCP, on a site served on 127.0.0.1: saved, run, their rows read back
by filter, sort and page, a re-run after the site changed writing only what changed; a feed
project's feed kept for serving (and kept when a refresh fails). Then what surrounds a run: by name,
resume and retry_failed, the logs, the configuration, the engine's own facts and the project
resources."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

NEWS: list[tuple[str, str]] = []
"""The news listing's articles (slug, title): a test changes them between runs."""
DOWN: set[str] = set()
"""Paths that answer 503 for now."""


async def news(request: Request) -> Response:
    if "/news" in DOWN:
        return Response("down", status_code=503)
    items = "".join(
        f'<article class="post"><h2><a href="/a/{slug}">{title}</a></h2><p class="summary">About '
        f"{title}.</p></article>"
        for slug, title in NEWS
    )
    return HTMLResponse(
        f"<html><head><title>News</title></head><body><main>{items}</main></body></html>"
    )


async def article(request: Request) -> Response:
    slug = request.path_params["slug"]
    if f"/a/{slug}" in DOWN:
        return Response("down", status_code=503)
    title = dict(NEWS).get(slug, slug)
    return HTMLResponse(
        f"<html><head><title>{title}</title><meta name='description' content='All about "
        f"{title}'></head><body><article><h1>{title}</h1><p>{title} is the story of the day, "
        "told at length here.</p><a href='/news'>back</a></article></body></html>"
    )


APP = Starlette(routes=[Route("/news", news), Route("/a/{slug}", article)])


@pytest.fixture(scope="module")
def site(registry: Registry) -> Iterator[tuple[SyncClient, str, ToolRunner]]:
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
    )
    runner = build_runner(registry, settings)
    with (
        serve(app=APP) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, f"http://127.0.0.1:{port}", runner


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


def _saved(client: SyncClient, arguments: dict[str, Any]) -> dict[str, Any]:
    saved = _call(client, "save_project", arguments)
    assert saved["ok"] is True, saved["payload"]
    project: dict[str, Any] = saved["payload"]["project"]
    return project


def _feed_config(origin: str) -> dict[str, Any]:
    return {
        "channel": {"url": f"{origin}/%<section>s", "title": "The news", "ttl": 60},
        "parameters": {"section": {"type": "string", "default": "news"}},
        "selectors": {
            "items": {"selector": "article.post"},
            "title": {"selector": "h2 a"},
            "url": {"selector": "h2 a", "extractor": "href"},
            "description": {"selector": ".summary"},
        },
    }


def test_a_crawl_project_keeps_each_page_as_a_row_and_a_rerun_writes_what_changed(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, _ = site
    NEWS[:] = [("one", "First"), ("two", "Second")]
    project = _saved(
        client,
        {
            "name": "news crawl",
            "definition": {
                "url": "{origin}/news",
                "max_depth": 1,
                "max_pages": 10,
                "strategy": "http",
            },
            "variables": {"origin": origin},
        },
    )
    assert project["kind"] == "crawl" and "feed_urls" not in project
    first = _call(client, "run_project", {"project_id": project["project_id"]})
    assert first["ok"] is True, first["payload"]
    assert first["payload"]["kind"] == "crawl" and first["payload"]["pages_read"] == 3
    assert first["payload"]["datasets"] == {"pages": {"new": 3, "updated": 0, "unchanged": 0}}
    rows = _call(
        client,
        "get_project_data",
        {
            "project_id": project["project_id"],
            "dataset": "pages",
            "filter": 'url ~ "/a/"',
            "sort": "title",
        },
    )["payload"]
    assert [row["data"]["title"] for row in rows["rows"]] == ["First", "Second"] and rows[
        "total"
    ] == 2
    assert (
        rows["rows"][0]["data"]["description"] == "All about First"
        and rows["rows"][0]["data"]["depth"] == 1
    )
    NEWS[:] = [("one", "First"), ("two", "Second"), ("three", "Third")]
    again = _call(client, "run_project", {"project_id": project["project_id"]})["payload"]
    # The listing changed (a new link in its content) and one article is new; the other two are as
    # they were.
    assert again["datasets"] == {"pages": {"new": 1, "updated": 1, "unchanged": 2}}
    datasets = _call(client, "list_datasets", {"project_id": project["project_id"]})["payload"][
        "datasets"
    ]
    assert [(d["name"], d["key"], d["rows"]) for d in datasets] == [("pages", "url", 4)]


def test_a_feed_project_keeps_items_as_rows_and_its_feed_even_when_a_refresh_fails(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, runner = site
    NEWS[:] = [("one", "First"), ("two", "Second")]
    project = _saved(
        client,
        {"name": "the news", "definition": {"config": _feed_config(origin)}, "schedule": "2h"},
    )
    assert project["kind"] == "feed" and project["schedule"] == "2h"
    base = "http://127.0.0.1:8080/feeds/the%20news"  # netglean serve's address under these settings
    assert project["feed_urls"] == {"rss": f"{base}.xml", "json": f"{base}.json"}
    first = _call(client, "run_project", {"project_id": project["project_id"]})["payload"]
    assert first["kind"] == "feed" and first["datasets"] == {
        "items": {"new": 2, "updated": 0, "unchanged": 0}
    }
    items = _call(
        client,
        "get_project_data",
        {"project_id": project["project_id"], "dataset": "items", "sort": "title"},
    )["payload"]["rows"]
    assert [(row["data"]["title"], row["data"]["url"]) for row in items] == [
        ("First", f"{origin}/a/one"),
        ("Second", f"{origin}/a/two"),
    ]
    store = runner.services.runs.store
    kept = anyio.run(store.project_feed, project["project_id"])
    assert kept is not None and kept.rss is not None and kept.json is not None
    assert "<title>First</title>" in kept.rss and json.loads(kept.json)["title"] == "The news"
    DOWN.add("/news")
    try:
        failed = _call(client, "run_project", {"project_id": project["project_id"]})
    finally:
        DOWN.discard("/news")
    assert failed["ok"] is False and failed["payload"]["error"]["code"] == "http_status"
    after = anyio.run(store.project_feed, project["project_id"])
    assert after is not None and after.rss == kept.rss and after.etag == kept.etag
    assert after.failure is not None and after.failure.startswith("http_status")


def test_a_feed_definition_is_checked_as_apply_config_checks_a_config(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, _ = site
    broken = {"channel": {"url": f"{origin}/news"}, "selectors": {"items": {"selector": "li["}}}
    refused = _call(
        client, "save_project", {"name": "broken feed", "definition": {"config": broken}}
    )
    error = refused["payload"]["error"]
    assert error["code"] == "invalid_config" and error["detail"]["errors"][0]["pointer"].startswith(
        "/definition/config/selectors/items"
    )
    both = _call(
        client,
        "save_project",
        {"name": "both", "definition": {"config": broken, "yaml": "channel: {}"}},
    )
    assert both["payload"]["error"]["code"] == "invalid_config"
    often = _call(
        client,
        "save_project",
        {
            "name": "often",
            "definition": {"config": _feed_config(origin)},
            "schedule": "*/10 * * * *",
        },
    )
    assert (
        often["payload"]["error"]["code"] == "invalid_config"
        and "60 minutes" in often["payload"]["error"]["message"]
    )
    mismatch = _call(
        client,
        "save_project",
        {"name": "mismatch", "kind": "extract", "definition": {"url": f"{origin}/news"}},
    )
    assert (
        mismatch["payload"]["error"]["code"] == "invalid_config"
        and "crawl" in mismatch["payload"]["error"]["message"]
    )
    yaml_text = (
        "channel:\n  url: "
        + origin
        + "/news\nselectors:\n  items: {selector: article.post}\n  title: {selector: h2}\n"
    )
    from_yaml = _saved(client, {"name": "from yaml", "definition": {"yaml": yaml_text}})
    assert from_yaml["definition"] == {
        "config": {
            "channel": {"url": f"{origin}/news"},
            "selectors": {"items": {"selector": "article.post"}, "title": {"selector": "h2"}},
        }
    }


def test_resume_and_retry_failed_start_from_the_projects_earlier_run(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, _ = site
    NEWS[:] = [("one", "First"), ("two", "Second"), ("three", "Third")]
    definition = {
        "start_urls": ["{origin}/a/{slug}"],
        "strategy": "http",
        "datasets": [
            {
                "name": "articles",
                "item_selector": "article",
                "key": "title",
                "properties": [{"key": "title", "selector": "h1"}],
            }
        ],
    }
    project = _saved(
        client,
        {
            "name": "articles",
            "definition": definition,
            "variables": {"origin": origin, "slug": ["one", "two", "three"]},
        },
    )
    DOWN.add("/a/two")
    try:
        first = _call(client, "run_project", {"project_id": project["project_id"]})["payload"]
    finally:
        DOWN.discard("/a/two")
    assert (
        first["pages_read"] == 2
        and first["pages_failed"] == 1
        and first["failures"][0]["url"].endswith("/a/two")
    )
    assert first["failures"][0]["error"]["code"] == "http_status"
    retried = _call(
        client, "run_project", {"project_id": project["project_id"], "retry_failed": True}
    )["payload"]
    # Only the failed page is read again; the counts take in what the earlier run wrote.
    assert retried["pages_read"] == 3 and retried["pages_failed"] == 0 and retried["started_from"]
    assert retried["datasets"]["articles"] == {"new": 3, "updated": 0, "unchanged": 0}
    logs = _call(client, "get_logs", {"project_id": project["project_id"], "level": "warning"})[
        "payload"
    ]
    assert [line["message"] for line in logs["lines"]] == [f"failed {origin}/a/two: http_status"]
    fresh = _call(client, "run_project_by_name", {"name": "ARTICLES", "resume": True})["payload"]
    # Nothing to resume (no run was interrupted): a whole new run, every row as it was.
    assert "started_from" not in fresh and fresh["datasets"]["articles"] == {
        "new": 0,
        "updated": 0,
        "unchanged": 3,
    }


def test_a_name_alike_in_case_is_found_and_two_such_are_listed(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, _ = site
    definition = {"url": f"{origin}/news", "max_depth": 0}
    ids = [
        _saved(client, {"name": name, "definition": definition})["project_id"]
        for name in ("Daily", "DAILY")
    ]
    ambiguous = _call(client, "run_project_by_name", {"name": "daily"})
    assert ambiguous["payload"]["error"]["code"] == "conflict"
    assert sorted(ambiguous["payload"]["error"]["detail"]["project_ids"]) == sorted(ids)
    unknown = _call(client, "run_project_by_name", {"name": "weekly"})
    assert (
        unknown["payload"]["error"]["code"] == "not_found"
        and unknown["next_step"] == "list_projects"
    )
    exact = _call(client, "run_project_by_name", {"name": "DAILY"})
    assert exact["ok"] is True and exact["payload"]["project_id"] == ids[1]


def test_the_configuration_the_engine_and_the_resources(
    site: tuple[SyncClient, str, ToolRunner],
) -> None:
    client, origin, _ = site
    project = _saved(client, {"name": "configured", "definition": {"config": _feed_config(origin)}})
    whole = _call(client, "get_project_config", {"project_id": project["project_id"]})["payload"]
    assert whole["definition"] == {"config": _feed_config(origin)} and whole["kind"] == "feed"
    summary = _call(
        client, "get_project_config", {"project_id": project["project_id"], "summary_only": True}
    )
    assert summary["payload"]["summary"] == {
        "start_urls": 0,
        "datasets": [summary["payload"]["summary"]["datasets"][0]],
        "variables": [],
    }
    assert (
        summary["payload"]["summary"]["datasets"][0]["name"] == "items"
        and "definition" not in summary["payload"]
    )
    info = _call(client, "engine_info", {})["payload"]
    assert info["store"] == "sqlite" and info["token_required"] is False and info["projects"] >= 1
    assert set(info) >= {"version", "data_dir", "runs", "max_runs", "browser"}
    for uri in (
        "netglean://projects",
        f"netglean://projects/{project['project_id']}",
        f"netglean://projects/{project['project_id']}/config",
        f"netglean://projects/{project['project_id']}/datasets",
        "netglean://engine/info",
    ):
        body = json.loads(client.run("read_resource", uri).contents[0].text)
        assert body, uri
    data = (
        client.run("read_resource", f"netglean://projects/{project['project_id']}/data/items")
        .contents[0]
        .text
    )
    assert "UNTRUSTED" in data
