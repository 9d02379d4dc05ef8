"""Feeds from listing pages: articles now (scrape_url), or a durable html2rss config (capture, validate, apply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
import yaml

from generated.models import ApplyConfigInput, CaptureConfigInput, ScrapeUrlInput, ValidateConfigInput
from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import InvalidArguments, InvalidFeedConfig, NoItems, NotAvailable, ToolError
from netglean.feeds import config as feed_config
from netglean.feeds import jobs as feed_jobs
from netglean.feeds.selectors import selector_problem

_DEFAULT_PAGES = 3


async def scrape_url(args: ScrapeUrlInput, ctx: Context) -> Outcome:
    if args.items_selector and (problem := selector_problem(args.items_selector)) is not None:
        # the hint is the items selector of the config scrape_url builds: a config's problem, not a schema's
        raise InvalidFeedConfig(
            f"items_selector: {problem}", detail={"errors": [{"path": "/items_selector", "message": problem}]}
        )
    page = await ctx.fetcher.fetch(args.url)
    title, found = await ctx.readers.run(
        feed_jobs.listing_items,
        document=page.document,
        items_selector=args.items_selector,
        deadline=anyio.current_effective_deadline(),
    )
    source = "selector" if args.items_selector else "auto"
    limit = args.limit or 25
    payload: dict[str, Any] = {"url": page.url, "items": found[:limit], "total": len(found), "source": source}
    if title:
        payload["title"] = title
    if not found:
        guidance = say("No items found: inspect_url says what the page is (a bot wall, a single article, a feed).")
        return Outcome(payload, next_step="inspect_url", guidance=guidance, source=args.url)
    if len(found) > limit:
        guidance = say(
            "{count} items ({more} more beyond the limit). For a feed that can be re-run, use capture_config.",
            count=limit,
            more=len(found) - limit,
        )
    else:
        guidance = say("{count} items. For a feed that can be re-run, use capture_config.", count=len(found))
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


async def capture_config(args: CaptureConfigInput, ctx: Context) -> Outcome:
    page = await ctx.fetcher.fetch(args.url)
    drafted = await ctx.readers.run(feed_jobs.draft_feed, document=page.document)
    if drafted is None:
        raise NoItems(
            f"{page.url} has no repeated structure of linked items to make a feed from",
            detail={"url": page.url},
            next_step="inspect_url",
        )
    config, count = drafted
    selectors = {
        name: spec["selector"]
        for name, spec in config["selectors"].items()
        if isinstance(spec, dict) and spec.get("selector")
    }
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    payload = {"url": page.url, "yaml": text, "config": config, "articles_count": count, "selectors": selectors}
    guidance = say(
        "The draft finds {count} items. Check it with validate_config, then run it with apply_config.", count=count
    )
    return Outcome(payload, next_step="validate_config", guidance=guidance, source=args.url)


async def validate_config(args: ValidateConfigInput, ctx: Context) -> Outcome:
    given = args.root  # exactly one of config and yaml: the schema's oneOf makes the model a union
    try:
        config = await _loaded(given.config, given.yaml, given.parameters)
    except InvalidFeedConfig as invalid:
        errors = invalid.detail["errors"]
        guidance = f"{len(errors)} problem(s), each with its path: fix them and call validate_config again."
        return Outcome({"valid": False, "errors": errors}, next_step="validate_config", guidance=guidance)
    browser = config.get("strategy") in feed_config.BROWSER_STRATEGIES
    payload = {"valid": True, "errors": [], "browser_required": browser, "config": config}
    guidance = "Valid. Run it with apply_config."
    if browser:
        guidance = f"Valid, but strategy {config['strategy']} needs a rendering browser, which this build lacks."
    return Outcome(payload, next_step="apply_config", guidance=guidance)


async def apply_config(args: ApplyConfigInput, ctx: Context) -> Outcome:
    from netglean.feeds.output import count_items, json_feed, rss, within_output_cap

    given = args.root  # exactly one of config and yaml: the schema's oneOf makes the model a union
    config = await _loaded(given.config, given.yaml, given.parameters)
    if config.get("strategy") in feed_config.BROWSER_STRATEGIES:
        raise NotAvailable(
            f"browser rendering is not available in this build, and strategy {config['strategy']} needs it",
            detail={"strategy": config["strategy"]},
        )
    channel = dict(config["channel"])
    selectors = config.get("selectors")
    pagination = (selectors or {}).get("items", {}).get("pagination") if selectors else None
    request = config.get("request") or {}  # the config's own limits: they may only lower the operator's
    pages_allowed = (pagination.get("max_pages", _DEFAULT_PAGES) if pagination is not None else 1) or 1
    pages_allowed = min(pages_allowed, request.get("max_requests", pages_allowed))

    first = await _feed_page(ctx, config, channel["url"], want_title=not channel.get("title"))
    if first.title:
        channel["title"] = first.title
    found, url, pages = list(first.page.items), first.page.next_url, 1
    stopped: dict[str, Any] | None = None
    seen = {channel["url"], first.url}
    stop_by = ctx.work_until()
    while url and pages < pages_allowed and url not in seen:
        # A later page that cannot be read ends the pagination, not the feed: what was read is kept, with a note.
        seen.add(url)
        with anyio.CancelScope(deadline=stop_by) as waited:
            try:
                later = await _feed_page(ctx, config, url, want_title=False)
            except ToolError as error:
                stopped = {"page": pages + 1, "url": url, "code": error.code, "message": error.message}
                break
        if waited.cancelled_caught:
            message = "the page could not be read before the call's deadline"
            stopped = {"page": pages + 1, "url": url, "code": "timeout", "message": message}
            break
        pages += 1
        found += later.page.items
        url = later.page.next_url
    items, cut = within_output_cap(_unique(found)[: given.limit or 100])
    fmt = given.format or "rss"
    payload: dict[str, Any] = {"url": first.url, "format": fmt, "pages": pages}
    if stopped is not None:
        payload["pagination_stopped"] = stopped
    if cut:
        payload["items_cut"] = cut
    if fmt == "rss":
        payload["rss"] = rss(channel, items, config.get("stylesheets") or ())
        payload["item_count"] = count_items(payload["rss"])
    else:
        payload["feed"] = json_feed(channel, items)
        payload["item_count"] = len(payload["feed"]["items"])
    if payload["item_count"] == 0:
        raise NoItems(
            f"the config found no items on {first.url}: its items selector matches nothing there",
            detail={"url": first.url, "items_selector": ((selectors or {}).get("items") or {}).get("selector")},
            next_step="inspect_url",
        )
    count = payload["item_count"]
    if stopped is not None:
        guidance = say(
            "{count} items from {pages} page(s); page {page} could not be read, so pagination stopped there"
            " (payload.pagination_stopped says why).",
            count=count,
            pages=pages,
            page=pages + 1,
        )
    elif cut:
        guidance = say(
            "{count} items from {pages} page(s); {cut} more were left out, past the size one feed may have.",
            count=count,
            pages=pages,
            cut=cut,
        )
    else:
        guidance = say("{count} items from {pages} page(s).", count=count, pages=pages)
    return Outcome(payload, next_step=DONE, guidance=guidance, source=config["channel"]["url"])


@dataclass(frozen=True, slots=True)
class _Read:
    url: str
    """Where the page was found, after redirects."""
    page: feed_jobs.FeedPage

    @property
    def title(self) -> str | None:
        return self.page.title


async def _feed_page(ctx: Context, config: dict[str, Any], url: str, *, want_title: bool) -> _Read:
    request = config.get("request") or {}
    page = await ctx.fetcher.fetch(
        url,
        headers=config.get("headers") or {},
        max_redirects=request.get("max_redirects"),
        timeout=request.get("timeout_seconds"),
    )
    read = await ctx.readers.run(
        feed_jobs.feed_page,
        document=page.document,
        config=config,
        want_title=want_title,
        deadline=anyio.current_effective_deadline(),
    )
    return _Read(page.url, read)


async def _loaded(config: Any, text: str | None, parameters: dict[str, Any] | None) -> dict[str, Any]:
    """The config (an object, or YAML) parsed and checked, in a worker thread: YAML, schemas and patterns are
    CPU work, bounded but not for the event loop."""
    if (config is None) == (text is None):
        raise InvalidArguments("give exactly one of config (an object) or yaml (its text)")

    def load() -> dict[str, Any]:
        return feed_config.load(feed_config.parse_yaml(text) if text is not None else config, parameters)

    return await anyio.to_thread.run_sync(load, abandon_on_cancel=True)


def _unique(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    unique = []
    for item in items:
        if item["id"] not in seen:
            seen.add(item["id"])
            unique.append(item)
    return unique


async def read_config_schema(ctx: Context) -> dict[str, Any]:
    return feed_config.config_schema()


async def read_extractors(ctx: Context) -> dict[str, Any]:
    steps = feed_config.config_schema()["$defs"]["FeedPostProcess"]
    return {
        "extractors": feed_config.EXTRACTORS,
        "post_processors": steps["properties"]["name"]["enum"],
        "post_processor_arguments": {k: v["description"] for k, v in steps["properties"].items() if k != "name"},
    }


async def read_strategies(ctx: Context) -> dict[str, Any]:
    available = [name for name in feed_config.STRATEGIES if name not in feed_config.BROWSER_STRATEGIES]
    return {"strategies": feed_config.STRATEGIES, "available": available, "default": "faraday"}


async def read_capabilities(ctx: Context) -> dict[str, bool]:
    return {
        "plain_http": True,
        "browser_rendering": False,
        "json_pages": True,
        "auto_source": True,
        "pagination": True,
        "rss": True,
        "json_feed": True,
        "local_files": False,
    }
