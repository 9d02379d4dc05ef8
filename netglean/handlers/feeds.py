"""Feeds from listing pages: articles now (scrape_url), or a durable html2rss config (capture, validate, apply)."""

from __future__ import annotations

from typing import Any

import yaml

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import InvalidFeedConfig, NoItems, NotAvailable
from netglean.feeds import config as feed_config
from netglean.feeds.output import count_items, json_feed, rss, unique, within_output_cap
from netglean.feeds.pages import draft, listing, load, read_feed
from netglean.feeds.selectors import selector_problem
from netglean.generated.models import ApplyConfigInput, CaptureConfigInput, ScrapeUrlInput, ValidateConfigInput


async def scrape_url(args: ScrapeUrlInput, ctx: Context) -> Outcome:
    if args.items_selector and (problem := selector_problem(args.items_selector)) is not None:
        # the hint is the items selector of the config scrape_url builds: a config's problem, not a schema's
        raise InvalidFeedConfig(
            f"items_selector: {problem}", detail={"errors": [{"path": "/items_selector", "message": problem}]}
        )
    found = await listing(ctx.fetcher, ctx.readers, args.url, args.items_selector)
    limit = args.limit or 25
    source = "selector" if args.items_selector else "auto"
    payload: dict[str, Any] = {
        "url": found.url,
        "items": found.items[:limit],
        "total": len(found.items),
        "source": source,
    }
    if found.title:
        payload["title"] = found.title
    if not found.items:
        guidance = say("No items found: inspect_url says what the page is (a bot wall, a single article, a feed).")
        return Outcome(payload, next_step="inspect_url", guidance=guidance, source=args.url)
    if len(found.items) > limit:
        guidance = say(
            "{count} items ({more} more beyond the limit). For a feed that can be re-run, use capture_config.",
            count=limit,
            more=len(found.items) - limit,
        )
    else:
        guidance = say("{count} items. For a feed that can be re-run, use capture_config.", count=len(found.items))
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


async def capture_config(args: CaptureConfigInput, ctx: Context) -> Outcome:
    url, drafted = await draft(ctx.fetcher, ctx.readers, args.url)
    if drafted is None:
        raise NoItems(
            f"{url} has no repeated structure of linked items to make a feed from",
            detail={"url": url},
            next_step="inspect_url",
        )
    config, count = drafted
    selectors = {
        name: spec["selector"]
        for name, spec in config["selectors"].items()
        if isinstance(spec, dict) and spec.get("selector")
    }
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    payload = {"url": url, "yaml": text, "config": config, "articles_count": count, "selectors": selectors}
    guidance = say(
        "The draft finds {count} items. Check it with validate_config, then run it with apply_config.", count=count
    )
    return Outcome(payload, next_step="validate_config", guidance=guidance, source=args.url)


async def validate_config(args: ValidateConfigInput, ctx: Context) -> Outcome:
    given = args.root  # exactly one of config and yaml: the schema's oneOf makes the model a union
    try:
        config = await load(given.config, given.yaml, given.parameters)
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
    given = args.root  # exactly one of config and yaml: the schema's oneOf makes the model a union
    config = await load(given.config, given.yaml, given.parameters)
    if config.get("strategy") in feed_config.BROWSER_STRATEGIES:
        raise NotAvailable(
            f"browser rendering is not available in this build, and strategy {config['strategy']} needs it",
            detail={"strategy": config["strategy"]},
        )
    run = await read_feed(ctx.fetcher, ctx.readers, config, stop_by=ctx.work_until())
    items, cut = within_output_cap(unique(run.items)[: given.limit or 100])
    fmt = given.format or "rss"
    payload: dict[str, Any] = {"url": run.url, "format": fmt, "pages": run.pages}
    if run.stopped is not None:
        payload["pagination_stopped"] = run.stopped
    if cut:
        payload["items_cut"] = cut
    if fmt == "rss":
        payload["rss"] = rss(run.channel, items, config.get("stylesheets") or ())
        payload["item_count"] = count_items(payload["rss"])
    else:
        payload["feed"] = json_feed(run.channel, items)
        payload["item_count"] = len(payload["feed"]["items"])
    if payload["item_count"] == 0:
        selectors = config.get("selectors") or {}
        raise NoItems(
            f"the config found no items on {run.url}: its items selector matches nothing there",
            detail={"url": run.url, "items_selector": (selectors.get("items") or {}).get("selector")},
            next_step="inspect_url",
        )
    count, pages = payload["item_count"], run.pages
    if run.stopped is not None:
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
