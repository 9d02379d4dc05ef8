"""Feed projects served by a real `netglean serve` (issue 17): read back with feedparser and as JSON
Feed, revalidated (304), kept when a refresh fails, behind their secret when the server requires a
token (and the secret never logged); and the scheduler: a scheduled project runs by itself, a missed
schedule runs once (across a restart too), and a project never has two scheduled runs at once.
Everything is on 127.0.0.1. A server stopped gracefully exits by SIGTERM (uvicorn raises it again
once it has finished)."""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

import anyio
import feedparser
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from netglean.store.sqlite import FILE_NAME
from tests.support.fixture_site import serve
from tests.support.httpserver import HttpServer
from tests.support.polling import until

TOKEN = "tok-7d1c0e5b-feeds-never-logged"
NEWS = [("one", "First"), ("two", "Second")]
DOWN: set[str] = set()
"""Paths that answer 503 for now."""
GATE = threading.Event()
"""While clear, /slow holds its answer: a run reading it stays working."""
GATE.set()
TICK_LINE = "the scheduler looked at"


async def news(request: Request) -> Response:
    if request.url.path in DOWN:
        return Response("down", status_code=503)
    if request.url.path == "/slow":
        while not GATE.is_set():
            await anyio.sleep(0.02)
    items = "".join(
        f'<article class="post"><h2><a href="/a/{slug}">{title}</a></h2><p class="summary">About '
        f"{title}.</p></article>"
        for slug, title in NEWS
    )
    return HTMLResponse(
        f"<html><head><title>News</title></head><body><main>{items}</main></body></html>"
    )


APP = Starlette(routes=[Route("/news", news), Route("/slow", news)])


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    with serve(app=APP) as port:
        yield f"http://127.0.0.1:{port}"


def _server(data: Path, *args: str, env: dict[str, str] | None = None) -> HttpServer:
    environment = {
        "NETGLEAN_DATA_DIR": str(data),
        "NETGLEAN_ALLOW_PRIVATE_HOSTS": "1",
        "NETGLEAN_HOST_INTERVAL": "0",
        **(env or {}),
    }
    return HttpServer("--log-level", "debug", "--read-workers", "0", *args, env=environment)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with _server(tmp_path_factory.mktemp("plain")) as running:
        yield running


def _call(
    server: HttpServer, tool: str, arguments: dict[str, Any], token: str = ""
) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    answer = httpx.post(
        f"{server.base}/v1/tools/{tool}", json=arguments, headers=headers, timeout=60
    )
    envelope: dict[str, Any] = answer.json()
    return envelope


def _config(origin: str, path: str = "/news") -> dict[str, Any]:
    return {
        "channel": {"url": f"{origin}{path}", "title": "The news"},
        "selectors": {
            "items": {"selector": "article.post"},
            "title": {"selector": "h2 a"},
            "url": {"selector": "h2 a", "extractor": "href"},
            "description": {"selector": ".summary"},
        },
    }


def _saved(server: HttpServer, arguments: dict[str, Any], token: str = "") -> dict[str, Any]:
    saved = _call(server, "save_project", arguments, token)
    assert saved["ok"] is True, saved["payload"]
    project: dict[str, Any] = saved["payload"]["project"]
    return project


def _get(server: HttpServer, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(server.base + path, timeout=30, **kwargs)


def test_a_feed_project_is_served_as_rss_and_json_feed_and_revalidated(
    plain: HttpServer, origin: str
) -> None:
    project = _saved(plain, {"name": "the news", "definition": {"config": _config(origin)}})
    urls = project["feed_urls"]
    assert urls == {"rss": "/feeds/the%20news.xml", "json": "/feeds/the%20news.json"}
    unbuilt = _get(plain, urls["rss"])
    assert unbuilt.status_code == 404 and "not yet run successfully" in unbuilt.text
    assert _call(plain, "run_project", {"project_id": project["project_id"]})["ok"] is True

    served = _get(plain, urls["rss"])
    assert (
        served.status_code == 200
        and served.headers["content-type"] == "application/rss+xml; charset=utf-8"
    )
    parsed = feedparser.parse(served.content)
    assert not parsed.bozo and parsed.version == "rss20" and parsed.feed.title == "The news"
    assert [entry.title for entry in parsed.entries] == ["First", "Second"]
    assert parsed.entries[0].link == f"{origin}/a/one"
    etag, modified = served.headers["etag"], served.headers["last-modified"]
    assert etag.startswith('"') and modified.endswith(" GMT")

    for condition in (
        {"if-none-match": etag},
        {"if-none-match": f'"other", W/{etag}'},
        {"if-none-match": "*"},
    ):
        again = _get(plain, urls["rss"], headers=condition)
        assert (
            again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
        ), condition
    assert _get(plain, urls["rss"], headers={"if-modified-since": modified}).status_code == 304
    # If-None-Match decides when both come; an older date, or one that cannot be read, is a full
    # answer.
    assert _get(
        plain, urls["rss"], headers={"if-none-match": '"other"', "if-modified-since": modified}
    ).is_success
    assert (
        _get(
            plain, urls["rss"], headers={"if-modified-since": formatdate(0, usegmt=True)}
        ).status_code
        == 200
    )
    assert _get(plain, urls["rss"], headers={"if-modified-since": "yesterday"}).status_code == 200
    head = httpx.head(plain.base + urls["rss"], timeout=30)
    assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == etag
    assert int(head.headers["content-length"]) == len(served.content)

    as_json = _get(plain, urls["json"])
    assert as_json.status_code == 200 and as_json.headers["content-type"] == "application/feed+json"
    feed = json.loads(as_json.content)
    assert feed["version"] == "https://jsonfeed.org/version/1.1" and feed["title"] == "The news"
    assert [item["title"] for item in feed["items"]] == ["First", "Second"]
    assert as_json.headers["etag"] == etag
    assert _get(plain, urls["json"], headers={"if-none-match": etag}).status_code == 304


def test_only_a_feed_project_has_a_feed(plain: HttpServer, origin: str) -> None:
    _saved(plain, {"name": "a crawl", "definition": {"url": f"{origin}/news", "max_pages": 1}})
    for path in (
        "/feeds/a%20crawl.xml",
        "/feeds/nobody.xml",
        "/feeds/nobody.json",
        "/feeds/.xml",
        "/feeds/x.txt",
    ):
        answer = _get(plain, path)
        assert answer.status_code == 404 and answer.text == "No feed here.\n", path


def test_a_failed_refresh_keeps_serving_the_last_good_feed(plain: HttpServer, origin: str) -> None:
    project = _saved(plain, {"name": "fragile news", "definition": {"config": _config(origin)}})
    rss = project["feed_urls"]["rss"]
    assert _call(plain, "run_project", {"project_id": project["project_id"]})["ok"] is True
    before = _get(plain, rss)
    DOWN.add("/news")
    try:
        failed = _call(plain, "run_project", {"project_id": project["project_id"]})
    finally:
        DOWN.discard("/news")
    assert failed["ok"] is False
    after = _get(plain, rss)
    assert after.status_code == 200 and after.content == before.content
    assert after.headers["etag"] == before.headers["etag"]
    assert _get(plain, rss, headers={"if-none-match": before.headers["etag"]}).status_code == 304
    until(
        lambda: "'fragile news': a refresh failed" in plain.stderr,
        "the failed refresh in the server's log",
    )


def test_a_feed_being_built_is_503_with_retry_after(plain: HttpServer, origin: str) -> None:
    project = _saved(
        plain, {"name": "slow news", "definition": {"config": _config(origin, "/slow")}}
    )
    GATE.clear()
    try:
        started = _call(plain, "run_project", {"project_id": project["project_id"], "wait": False})
        assert started["ok"] is True
        waiting = _get(plain, project["feed_urls"]["rss"])
        assert waiting.status_code == 503 and waiting.headers["retry-after"] == "30"
    finally:
        GATE.set()
    until(lambda: _get(plain, project["feed_urls"]["rss"]).status_code == 200, "the first feed")


def test_with_a_token_a_feed_takes_its_secret_and_the_secret_is_never_logged(
    tmp_path: Path, origin: str
) -> None:
    with _server(tmp_path, env={"NETGLEAN_TOKEN": TOKEN}) as guarded:
        project = _saved(
            guarded, {"name": "private news", "definition": {"config": _config(origin)}}, TOKEN
        )
        secret = project["feed_urls"]["rss"].split("?secret=", 1)[1]
        assert project["feed_urls"]["json"].endswith(f"?secret={secret}") and len(secret) == 32
        assert (
            _call(guarded, "run_project", {"project_id": project["project_id"]}, TOKEN)["ok"]
            is True
        )
        path = "/feeds/private%20news.xml"
        bearer = {"authorization": f"Bearer {TOKEN}"}
        refused = [
            _get(guarded, path),
            _get(guarded, path, params={"secret": "0" * 32}),
            _get(guarded, path, headers=bearer),
            _get(guarded, "/feeds/nobody.xml", params={"secret": secret}),
        ]
        assert [(r.status_code, r.text) for r in refused] == [(404, "No feed here.\n")] * 4
        served = _get(guarded, project["feed_urls"]["rss"])
        assert served.status_code == 200 and feedparser.parse(served.content).entries
        assert served.headers["cache-control"] == "private, no-cache"
        assert _get(guarded, project["feed_urls"]["json"]).status_code == 200
        revalidated = _get(
            guarded, project["feed_urls"]["rss"], headers={"if-none-match": served.headers["etag"]}
        )
        assert revalidated.status_code == 304
        # the token still guards the tools
        assert _get(guarded, "/v1/tools/get_version").status_code != 200
    assert guarded.stop() == -signal.SIGTERM
    assert secret not in guarded.stderr and TOKEN not in guarded.stderr
    assert "/feeds/private%20news.xml?***" in guarded.stderr  # the access log, its query hidden


# The scheduler ------------------------------------------------------------------------------------


def _runs(server: HttpServer) -> list[dict[str, Any]]:
    listed = _call(server, "list_runs", {"tool": ["run_project"], "per_page": 200})
    runs: list[dict[str, Any]] = listed["payload"]["runs"]
    return runs


def _looks(server: HttpServer) -> int:
    return server.stderr.count(TICK_LINE)


def _after_looks(server: HttpServer, more: int = 3) -> list[dict[str, Any]]:
    """The runs once the scheduler has looked ``more`` times again (whatever it was going to start,
    it has)."""
    seen = _looks(server)
    until(lambda: _looks(server) >= seen + more, f"{more} more looks of the scheduler")
    return _runs(server)


def _move_back(data: Path, project_id: str, seconds: float) -> None:
    """Make the project's runs ``seconds`` older, as if the server had been down that long since."""
    with sqlite3.connect(data / FILE_NAME, timeout=30) as db:
        db.execute(
            "UPDATE runs SET created_at = created_at - ? WHERE id IN"
            " (SELECT run_id FROM project_runs WHERE project_id = ?)",
            (seconds, project_id),
        )
    db.close()


def _finished(runs: list[dict[str, Any]], count: int) -> bool:
    return len(runs) == count and all(run["status"] == "succeeded" for run in runs)


def test_a_scheduled_project_runs_by_itself_once_per_due_time_and_never_twice_at_once(
    tmp_path: Path, origin: str
) -> None:
    with _server(tmp_path, "--schedule-tick", "0.05") as first:
        project = _saved(
            first,
            {
                "name": "scheduled news",
                "definition": {"config": _config(origin, "/slow")},
                "schedule": "5m",
            },
        )
        project_id = project["project_id"]
        # Never run: an interval schedule is due at once.
        until(lambda: _finished(_runs(first), 1), "the first scheduled run")
        assert _runs(first)[0]["label"] == "scheduled"
        assert _get(first, project["feed_urls"]["rss"]).status_code == 200
        assert len(_after_looks(first)) == 1  # the next is five minutes away

        GATE.clear()  # the next run stays working until the gate opens
        try:
            _move_back(tmp_path, project_id, 3600)  # twelve due times missed
            working = until(
                lambda: [r for r in _runs(first) if r["status"] in ("queued", "running")], "a run"
            )
            _move_back(tmp_path, project_id, 3600)  # due again, while that run works
            runs = _after_looks(first)
            assert len(runs) == 2 and runs[0]["run_id"] == working[0]["run_id"]
        finally:
            GATE.set()
        # Its run ended and the project is due (that run counts as an hour old): one run, not one
        # per due time.
        until(lambda: _finished(_runs(first), 3), "the run after the working one ended")
        assert len(_after_looks(first)) == 3
    assert first.stop() == -signal.SIGTERM and "Traceback" not in first.stderr

    _move_back(tmp_path, project_id, 86_400)  # the server down for a day: 288 due times
    with _server(tmp_path, "--schedule-tick", "0.05") as second:
        until(lambda: _finished(_runs(second), 4), "the run the restarted server owed")
        assert len(_after_looks(second)) == 4
    assert second.stop() == -signal.SIGTERM and "Traceback" not in second.stderr


def test_the_scheduler_leaves_a_project_whose_run_a_client_started(
    tmp_path: Path, origin: str
) -> None:
    """A run a client started (queued or working) keeps the schedule from starting another beside
    it."""
    with _server(tmp_path, "--schedule-tick", "0.05") as server:
        project = _saved(
            server, {"name": "busy news", "definition": {"config": _config(origin, "/slow")}}
        )
        GATE.clear()
        try:
            started = _call(
                server, "run_project", {"project_id": project["project_id"], "wait": False}
            )
            assert started["ok"] is True
            _saved(
                server,
                {
                    "project_id": project["project_id"],
                    "name": "busy news",
                    "definition": {"config": _config(origin, "/slow")},
                    "schedule": "5m",
                },
            )
            _move_back(tmp_path, project["project_id"], 3600)
            assert [run["run_id"] for run in _after_looks(server)] == [
                started["payload"]["run"]["run_id"]
            ]
        finally:
            GATE.set()
    assert server.stop() == -signal.SIGTERM


def test_a_scheduled_run_cancelled_before_it_began_is_not_started_again(
    tmp_path: Path, origin: str
) -> None:
    """One run at a time: the scheduled run waits queued behind a client's, and is cancelled there.
    It was that due time's run all the same; the next is five minutes on."""
    with _server(tmp_path, "--schedule-tick", "0.05", "--max-runs", "1") as server:
        holder = _saved(
            server, {"name": "holder", "definition": {"config": _config(origin, "/slow")}}
        )
        GATE.clear()
        try:
            assert (
                _call(server, "run_project", {"project_id": holder["project_id"], "wait": False})[
                    "ok"
                ]
                is True
            )
            _saved(
                server,
                {"name": "skipped", "definition": {"config": _config(origin)}, "schedule": "5m"},
            )
            queued = until(
                lambda: [
                    r
                    for r in _runs(server)
                    if r.get("label") == "scheduled" and r["status"] == "queued"
                ],
                "the scheduled run, queued",
            )
            cancelled = _call(server, "cancel_run", {"run_id": queued[0]["run_id"]})
            assert cancelled["ok"] is True, cancelled["payload"]
            scheduled = [r for r in _after_looks(server) if r.get("label") == "scheduled"]
            assert [(r["run_id"], r["status"]) for r in scheduled] == [
                (queued[0]["run_id"], "cancelled")
            ]
        finally:
            GATE.set()
    assert server.stop() == -signal.SIGTERM


# Where a feed is found ----------------------------------------------------------------------------


def test_a_served_feeds_address_is_absolute_and_shown_at_start_and_on_the_landing_page(
    tmp_path: Path, origin: str
) -> None:
    public = {"NETGLEAN_PUBLIC_URL": "https://feeds.example.org/netglean/"}
    with _server(tmp_path, env=public) as first:
        project = _saved(first, {"name": "the news", "definition": {"config": _config(origin)}})
        rss = "https://feeds.example.org/netglean/feeds/the%20news.xml"
        assert project["feed_urls"] == {"rss": rss, "json": rss.removesuffix(".xml") + ".json"}
        landing = _get(first, "/").text
        assert "<td>the news</td>" in landing and f"<code>{rss}</code>" in landing
    with _server(tmp_path) as again:  # no public URL: the address it serves on
        said = f"feed the news: {again.base}/feeds/the%20news.xml"
        until(lambda: said in again.stderr, "the feed named at start")
        assert f"<code>{again.base}/feeds/the%20news.xml</code>" in _get(again, "/").text


def test_with_a_token_the_start_up_line_and_landing_page_never_show_a_feeds_secret(
    tmp_path: Path, origin: str
) -> None:
    with _server(tmp_path, env={"NETGLEAN_TOKEN": TOKEN}) as guarded:
        project = _saved(
            guarded, {"name": "private news", "definition": {"config": _config(origin)}}, TOKEN
        )
        secret = project["feed_urls"]["rss"].split("?secret=", 1)[1]
    with _server(tmp_path, env={"NETGLEAN_TOKEN": TOKEN}) as again:
        said = (
            f"feed private news: {again.base}/feeds/private%20news.xml?secret=… (get_project "
            "shows it)"
        )
        until(lambda: said in again.stderr, "the feed named at start")
        landing = httpx.get(
            again.base + "/", headers={"authorization": f"Bearer {TOKEN}"}, timeout=30
        ).text
        assert "private news" in landing and secret not in landing
    assert secret not in again.stderr
