"""The feeds `netglean serve` serves: each feed project's last good feed at ``/feeds/{name}.xml``
(RSS 2.0) and ``/feeds/{name}.json`` (JSON Feed), the name URL-encoded as get_project's
``feed_urls`` write it.

Feed readers poll, so a feed carries its ETag and Last-Modified, and a conditional GET
(If-None-Match, else If-Modified-Since) that finds it unchanged is a 304 without a body. A refresh
that failed changes nothing here: the store keeps the last good feed, and that is what is served.

A feed reader cannot send a bearer token: when the server requires one, a feed URL carries its
project's secret instead (``?secret=``, compared in constant time), and a missing or wrong secret is
the same 404 as a name that is no feed project's, so a URL without its secret tells nothing of which
projects there are. Without a token the server listens on loopback only
(netglean.serve.http.check_binding) and a secret given is ignored, so a subscription made with one
keeps working. The Guard's Host and Origin checks hold here as on every route, and no log line shows
a URL's query (netglean.core.logs).

A feed project that has not yet run successfully is a 404, or a 503 with Retry-After while a run of
it is queued or working: its first feed is on its way, and a reader tries again.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable
from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime
from urllib.parse import quote

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from netglean.calls.runs import Runs
from netglean.calls.scheduler import running
from netglean.core.errors import ToolError
from netglean.core.settings import Settings
from netglean.store.base import Project, ProjectFeed

FORMATS = {".xml": "application/rss+xml; charset=utf-8", ".json": "application/feed+json"}
RETRY_AFTER = "30"
"""Seconds a reader is asked to wait for a feed being built, or a store that was busy."""
NO_FEED = "No feed here.\n"
"""The one answer to a name that is no feed project's and to a secret missing or wrong: they look
the same."""
_DECOY = "0" * 32
"""What a secret is compared with when no project has the name, so that both cases take the same
work."""
_ENTITY_TAG = re.compile(r'\*|(?:W/)?"[^"]*"')


SHOWN = 20
"""Feeds the start-up line names (the landing page lists up to LISTED)."""
LISTED = 500


async def served_feeds(
    runs: Runs, settings: Settings, base: str, most: int
) -> tuple[list[tuple[str, str]], int]:
    """The feeds this server serves, by project name, each with its RSS address on ``base`` (the
    server's own, or the operator's public_url), and how many there are. A secret is never shown:
    where the server requires a token, the address says where get_project shows it."""
    projects, total = await runs.store.feed_projects(most)
    key = "?secret=… (get_project shows it)" if settings.token else ""
    return [
        (
            project.name,
            settings.feed_address(f"/feeds/{quote(project.name, safe='')}.xml", base) + key,
        )
        for project in projects
    ], total


def feed_endpoint(runs: Runs, token_required: bool) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``/feeds/{file:path}`` (GET, and so HEAD), reading the store ``runs``
    holds."""

    async def feed(request: Request) -> Response:
        file: str = request.path_params["file"]
        suffix = next((s for s in FORMATS if file.endswith(s) and len(file) > len(s)), None)
        if suffix is None:
            return PlainTextResponse(NO_FEED, status_code=404)
        try:
            found = await runs.store.projects_named(file.removesuffix(suffix))
            project = found[0] if found and found[0].kind == "feed" else None
            if token_required and not _secret_fits(request.query_params.get("secret", ""), project):
                project = None
            if project is None:
                return PlainTextResponse(NO_FEED, status_code=404)
            kept = await runs.store.project_feed(project.id)
            if kept is None or kept.etag is None:
                return await _not_built(runs, project)
        except ToolError:  # a busy or failing store (the store logs why): try again shortly
            return _later("The feed cannot be read just now; try again shortly.\n")
        return _serve_feed(request.headers, kept, suffix, private=token_required)

    return feed


def _secret_fits(given: str, project: Project | None) -> bool:
    expected = project.secret if project is not None else _DECOY
    return hmac.compare_digest(given.encode(), expected.encode()) and project is not None


async def _not_built(runs: Runs, project: Project) -> Response:
    if await running(runs.store, project):
        return _later("This feed is being built by its project's first run; try again shortly.\n")
    return PlainTextResponse(
        "This feed has not been built: its project has not yet run successfully.\n", 404
    )


def _later(text: str) -> Response:
    return PlainTextResponse(text, status_code=503, headers={"Retry-After": RETRY_AFTER})


def _serve_feed(asked: Headers, kept: ProjectFeed, suffix: str, *, private: bool) -> Response:
    """The feed, or 304 when the reader's copy is current. A feed behind a secret is for that reader
    alone."""
    etag, built_at = kept.etag or "", kept.built_at or 0.0
    headers = {
        "ETag": etag,
        "Last-Modified": formatdate(built_at, usegmt=True),
        "Cache-Control": "private, no-cache" if private else "no-cache",
    }
    if _not_modified(asked, etag, built_at):
        return Response(status_code=304, headers=headers)
    body = kept.rss if suffix == ".xml" else kept.json
    return Response(body, media_type=FORMATS[suffix], headers=headers)


def _not_modified(asked: Headers, etag: str, built_at: float) -> bool:
    """RFC 9110 §13.1: If-None-Match by weak comparison (``*`` matches any feed), and
    If-Modified-Since only when no If-None-Match came (a date it cannot read is no condition)."""
    tags = asked.get("if-none-match")
    if tags is not None:
        ours = etag.removeprefix("W/")
        return any(
            tag == "*" or tag.removeprefix("W/") == ours for tag in _ENTITY_TAG.findall(tags)
        )
    since = asked.get("if-modified-since")
    if since is None:
        return False
    try:
        when = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False
    when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return int(built_at) <= when.timestamp()
