"""Refreshing a feed project: its config's feed built as apply_config builds it, its items rows of
the dataset items, and the feed as served (RSS and JSON Feed) kept as the project's last good one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import anyio

from netglean.core.errors import NoItems, ToolError
from netglean.feeds.pages import build_feed, load
from netglean.projects.datasets import ITEMS
from netglean.projects.extract import ProjectRun

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.core.settings import Settings
    from netglean.net.fetcher import Fetcher
    from netglean.store.base import Project, RunStore
    from netglean.workers.pool import Readers

log = logging.getLogger("netglean.projects.feed")


@dataclass(frozen=True, slots=True)
class FeedAddresses:
    """Where ``netglean serve`` serves a feed project, as RSS and as JSON Feed."""

    rss: str
    json: str


def feed_urls(project: Project, settings: Settings) -> FeedAddresses:
    """Where ``netglean serve`` serves a feed project, the address a feed reader subscribes to: by
    name, with its secret when the server requires a token (a feed reader cannot send one)."""
    path = settings.feed_address("/feeds/" + quote(project.name, safe=""))
    key = f"?secret={project.secret}" if settings.token else ""
    return FeedAddresses(rss=f"{path}.xml{key}", json=f"{path}.json{key}")


async def refresh_feed(
    fetcher: Fetcher,
    readers: Readers,
    store: RunStore,
    project: Project,
    variables: dict[str, Any],
    *,
    run_id: str,
    browser: BrowserPool | None = None,
) -> ProjectRun:
    """The feed project's items written, and its feed kept to be served. A refresh that fails keeps
    the last good feed and says why."""
    try:
        loaded = await load(project.definition["config"], None, variables)
        built = await build_feed(
            fetcher,
            readers,
            loaded.config,
            formats=("rss", "json_feed"),
            stop_by=math.inf,
            browser=browser,
        )
        if not built.items:
            url = built.run.url
            raise NoItems(
                f"the feed config found no items on {url}", detail={"url": url, "item_count": 0}
            )
        feed = await anyio.to_thread.run_sync(lambda: json.dumps(built.json, ensure_ascii=False))
    except ToolError as error:
        log.warning(
            "feed project %r: a refresh failed (%s: %s); its last good feed stays served",
            project.name,
            error.code,
            error.message,
        )
        await store.feed_failed(project.id, f"{error.code}: {error.message}")
        raise
    document = built.rss or ""
    items = [(item["id"], dict(item)) for item in built.items]
    counts = await store.write_rows(project.id, run_id, {ITEMS: items})
    etag = '"' + hashlib.sha256((document + feed).encode()).hexdigest()[:32] + '"'
    await store.keep_feed(project.id, run_id, document, feed, etag)
    written = counts[ITEMS]
    return ProjectRun(
        pages_read=built.run.pages,
        datasets={ITEMS: [written.new, written.updated, written.unchanged]},
    )
