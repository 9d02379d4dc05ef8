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
from netglean.generated.models import (
    AdmissionDrops,
    ApplyConfigInput,
    ApplyConfigOutput,
    CaptureConfigInput,
    CaptureConfigOutput,
    ConfigProblem,
    FeedItem,
    PaginationStopped,
    ScrapeUrlInput,
    ScrapeUrlOutput,
    ValidateConfigInput,
    ValidateConfigOutput,
)
from netglean.net.strategy import require_plain_http


async def scrape_url(args: ScrapeUrlInput, ctx: Context) -> Outcome:
    require_plain_http(args.strategy)
    _check_items_selector(args.items_selector)
    found = await listing(ctx.fetcher, ctx.readers, args.url, args.items_selector)
    limit = args.limit
    payload = ScrapeUrlOutput(
        url=found.url,
        title=found.title or None,
        channel_title=found.title or None,
        items=[FeedItem.model_validate(item) for item in found.items[:limit]],
        total=len(found.items),
        source="selector" if args.items_selector else "auto",
        requested_strategy=args.strategy,  # type: ignore[arg-type]  # a plain HTTP one: require_plain_http saw to it
        admission_drops=AdmissionDrops.model_validate(found.drops) if found.drops else None,
    )
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


def _check_items_selector(items_selector: str | None) -> None:
    """The items_selector hint is the items selector of the config scrape_url or capture_config builds: one it
    cannot use is a config's problem (invalid_config, naming why), not a schema's."""
    if items_selector and (problem := selector_problem(items_selector)) is not None:
        raise InvalidFeedConfig(
            f"items_selector: {problem}", detail={"errors": [{"path": "/items_selector", "message": problem}]}
        )


async def capture_config(args: CaptureConfigInput, ctx: Context) -> Outcome:
    require_plain_http(args.strategy)
    _check_items_selector(args.items_selector)
    url, drafted = await draft(ctx.fetcher, ctx.readers, args.url, args.items_selector)
    config, count = drafted.config, drafted.articles_count
    written = config.get("selectors") or {}  # none in a draft that leaves the items to auto_source
    selectors = {
        name: spec["selector"] for name, spec in written.items() if isinstance(spec, dict) and spec.get("selector")
    }
    payload = CaptureConfigOutput(
        url=url,
        yaml=yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
        config=config,
        articles_count=count,
        has_selectors="selectors" in config,
        selectors=selectors,
        channel_title=config["channel"].get("title"),
        requested_strategy=args.strategy,  # type: ignore[arg-type]  # a plain HTTP one: require_plain_http saw to it
        admission_drops=AdmissionDrops.model_validate(drafted.drops) if drafted.drops else None,
    )
    if count == 0:
        guidance = (
            say("The draft's items selector (the hint) finds no items here: inspect_url says what the page holds.")
            if args.items_selector
            else say("A draft, but it finds no items on the page: inspect_url says what the page is.")
        )
        return Outcome(payload, next_step="inspect_url", guidance=guidance, source=args.url)
    if "selectors" not in config:
        guidance = say(
            "No repeated structure to write selectors for: the draft leaves finding the {count} items to detection"
            " (auto_source). Check it with validate_config, then run it with apply_config.",
            count=count,
        )
    else:
        guidance = say(
            "The draft finds {count} items. Check it with validate_config, then run it with apply_config.", count=count
        )
    return Outcome(payload, next_step="validate_config", guidance=guidance, source=args.url)


async def validate_config(args: ValidateConfigInput, ctx: Context) -> Outcome:
    try:
        config = await load(args.config, args.yaml, args.parameters)
    except InvalidFeedConfig as invalid:
        errors = [ConfigProblem.model_validate(problem) for problem in invalid.detail["errors"]]
        guidance = f"{len(errors)} problem(s), each with its path: fix them and call validate_config again."
        return Outcome(ValidateConfigOutput(valid=False, errors=errors), next_step="validate_config", guidance=guidance)
    browser = config.get("strategy") in feed_config.BROWSER_STRATEGIES
    payload = ValidateConfigOutput(valid=True, errors=[], browser_required=browser, config=config)
    guidance = "Valid. Run it with apply_config."
    if browser:
        guidance = f"Valid, but strategy {config['strategy']} needs a rendering browser, which this build lacks."
    return Outcome(payload, next_step="apply_config", guidance=guidance)


async def apply_config(args: ApplyConfigInput, ctx: Context) -> Outcome:
    config = await load(args.config, args.yaml, args.parameters)
    if config.get("strategy") in feed_config.BROWSER_STRATEGIES:
        raise NotAvailable(
            f"browser rendering is not available in this build, and strategy {config['strategy']} needs it",
            detail={"strategy": config["strategy"]},
        )
    run = await read_feed(ctx.fetcher, ctx.readers, config, stop_by=ctx.work_until())
    items, cut = within_output_cap(unique(run.items)[: args.limit])
    if args.format == "rss":
        document = rss(run.channel, items, config.get("stylesheets") or ())
        feed, count = None, count_items(document)
    else:
        document, feed = None, json_feed(run.channel, items)
        count = len(feed["items"])
    if count == 0:
        selectors = config.get("selectors") or {}
        raise NoItems(
            f"the config found no items on {run.url}: its items selector matches nothing there",
            detail={"url": run.url, "items_selector": (selectors.get("items") or {}).get("selector")},
            next_step="inspect_url",
        )
    payload = ApplyConfigOutput(
        url=run.url,
        format=args.format,
        rss=document,
        feed=feed,
        item_count=count,
        pages=run.pages,
        pagination_stopped=PaginationStopped.model_validate(run.stopped) if run.stopped is not None else None,
        items_cut=cut or None,
    )
    pages = run.pages
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
