"""Feeds from listing pages: articles now (scrape_url), or a durable html2rss config (capture,
validate, apply)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Guidance, Outcome, say
from netglean.core.errors import InvalidFeedConfig, NoItems, ToolError, UnsupportedContent
from netglean.core.validation import quote_name, quote_value, report_problems
from netglean.feeds import config as feed_config
from netglean.feeds.jobs import Drops
from netglean.feeds.pages import (
    FeedRun,
    ListedItem,
    PaginationStop,
    build_feed,
    draft,
    listing,
    load,
)
from netglean.feeds.problems import Problem, list_problems
from netglean.feeds.selectors import selector_problem
from netglean.generated.models import (
    AdmissionDrops,
    ApplyConfigInput,
    ApplyConfigOutput,
    CaptureConfigInput,
    CaptureConfigOutput,
    ConfigProblem,
    Enclosure,
    FeedItem,
    PaginationStopped,
    ScrapeUrlInput,
    ScrapeUrlOutput,
    ValidateConfigInput,
    ValidateConfigOutput,
)
from netglean.net.strategy import BROWSER


def admission_drops(drops: Drops) -> AdmissionDrops | None:
    """The candidate items left out, by why, when any was (a reason none hit is absent)."""
    if not drops.total:
        return None
    return AdmissionDrops(
        duplicate=drops.duplicate or None,
        empty=drops.empty or None,
        no_link=drops.no_link or None,
        no_title=drops.no_title or None,
        other_site=drops.other_site or None,
        same_page=drops.same_page or None,
        short_title=drops.short_title or None,
    )


def _feed_item(item: ListedItem) -> FeedItem:
    enclosure = item.enclosure
    return FeedItem(
        id=item.id,
        title=item.title,
        url=item.url,
        description=item.description,
        published_at=item.published_at,
        updated=item.updated,
        author=item.author,
        image=item.image,
        categories=item.categories,
        enclosure=Enclosure(url=enclosure.url, type=enclosure.type, length=enclosure.length)
        if enclosure is not None
        else None,
    )


async def scrape_url(args: ScrapeUrlInput, ctx: Context) -> Outcome:
    _check_items_selector(args.items_selector)
    try:
        found = await listing(
            ctx.fetcher,
            ctx.readers,
            args.url,
            args.items_selector,
            strategy=args.strategy,
            browser=ctx.browser,
        )
    # no retry reads it: inspect_url says what the URL is instead
    except UnsupportedContent as error:
        raise UnsupportedContent(
            error.message, detail=error.detail, next_step="inspect_url"
        ) from error
    limit = args.limit
    payload = ScrapeUrlOutput(
        url=found.url,
        title=found.title or None,
        channel_title=found.title or None,
        items=[_feed_item(item) for item in found.items[:limit]],
        total=len(found.items),
        source="selector" if args.items_selector else "auto",
        requested_strategy=args.strategy,
        selected_strategy=found.strategy,  # type: ignore[arg-type]  # http or browser, as listing read it
        admission_drops=admission_drops(found.drops),
    )
    if not found.items:
        guidance = say(
            "No items found: inspect_url says what the page is (a bot wall, a single article, a "
            "feed)."
        )
        return Outcome(payload, next_step="inspect_url", guidance=guidance, source=args.url)
    if len(found.items) > limit:
        guidance = say(
            "{count} items ({more} more beyond the limit). For a feed that can be re-run, use "
            "capture_config.",
            count=limit,
            more=len(found.items) - limit,
        )
    else:
        guidance = say(
            "{count} items. For a feed that can be re-run, use capture_config.",
            count=len(found.items),
        )
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


def _pagination_stopped(stop: PaginationStop | None) -> PaginationStopped | None:
    if stop is None:
        return None
    return PaginationStopped(page=stop.page, url=stop.url, code=stop.code, message=stop.message)


def _check_items_selector(items_selector: str | None) -> None:
    """The items_selector hint is the items selector of the config scrape_url or capture_config
    builds: one it cannot use is a config's problem (invalid_config, naming why), not a schema's."""
    if items_selector and (problem := selector_problem(items_selector)) is not None:
        raise InvalidFeedConfig(
            f"items_selector: {problem}",
            detail={"errors": [{"path": "/items_selector", "message": problem}]},
        )


async def capture_config(args: CaptureConfigInput, ctx: Context) -> Outcome:
    _check_items_selector(args.items_selector)
    found = await draft(
        ctx.fetcher,
        ctx.readers,
        args.url,
        args.items_selector,
        strategy=args.strategy,
        browser=ctx.browser,
    )
    url, drafted = found.url, found.draft
    config, count = drafted.config, drafted.articles_count
    written = config.get("selectors") or {}  # none in a draft that leaves the items to auto_source
    selectors = {
        name: spec["selector"]
        for name, spec in written.items()
        if isinstance(spec, dict) and spec.get("selector")
    }
    payload = CaptureConfigOutput(
        url=url,
        yaml=yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
        config=config,
        articles_count=count,
        has_selectors="selectors" in config,
        selectors=selectors,
        channel_title=config["channel"].get("title"),
        requested_strategy=args.strategy,
        selected_strategy=found.strategy,  # type: ignore[arg-type]  # http or browser, as draft read it
        admission_drops=admission_drops(drafted.drops),
    )
    if count == 0:
        guidance = (
            say(
                "The draft's items selector (the hint) finds no items here: inspect_url says "
                "what the page holds."
            )
            if args.items_selector
            else say(
                "A draft, but it finds no items on the page: inspect_url says what the page is."
            )
        )
        return Outcome(payload, next_step="inspect_url", guidance=guidance, source=args.url)
    if "selectors" not in config:
        guidance = say(
            "No repeated structure to write selectors for: the draft leaves finding the {count} "
            "items to detection (auto_source). Check it with validate_config, then run it with "
            "apply_config.",
            count=count,
        )
    else:
        guidance = say(
            "The draft finds {count} items. Check it with validate_config, then run it with "
            "apply_config.",
            count=count,
        )
    return Outcome(payload, next_step="validate_config", guidance=guidance, source=args.url)


async def validate_config(args: ValidateConfigInput, ctx: Context) -> Outcome:
    # a config that cannot be read: invalid_config
    loaded = await load(args.config, args.yaml, args.parameters)
    config = loaded.config
    browser = config.get("strategy") in BROWSER
    warnings, more = _warnings(loaded.warnings)
    payload = ValidateConfigOutput(
        valid=True,
        errors=[],
        warnings=warnings,
        more_warnings=more,
        browser_required=browser,
        config=config,
    )
    parts = [say("Valid. Run it with apply_config.")]
    if browser and not ctx.browser.installed:
        parts = [
            say("Valid, but its strategy needs a rendering browser, which this server has not got.")
        ]
    if loaded.warnings:
        parts.append(
            say(
                "{count} key(s) the format does not know were ignored (payload.warnings).",
                count=len(loaded.warnings),
            )
        )
    return Outcome(payload, next_step="apply_config", guidance=Guidance(" ".join(parts)))


async def apply_config(args: ApplyConfigInput, ctx: Context) -> Outcome:
    loaded = await load(args.config, args.yaml, args.parameters, args.url)
    config = loaded.config
    warned = list_problems(loaded.warnings, "warnings")
    try:
        built = await build_feed(
            ctx.fetcher,
            ctx.readers,
            config,
            formats=(args.format,),
            stop_by=ctx.work_until(),
            limit=args.limit,  # None: every item found
            strategy=args.strategy,
            browser=ctx.browser,
        )
        if built.item_count == 0:
            raise _no_items(config, built.run)
    except ToolError as error:  # what was ignored in the config may be why (an items key misspelt)
        for key, value in warned.items():
            error.detail.setdefault(key, value)
        raise
    run, count, over, cut = built.run, built.item_count, built.over_limit, built.cut
    warnings, more = _warnings(loaded.warnings)
    payload = ApplyConfigOutput(
        url=run.url,
        format=args.format,
        rss=built.rss,
        feed=built.json,
        item_count=count,
        pages=run.pages,
        warnings=warnings,
        more_warnings=more,
        pagination_stopped=_pagination_stopped(run.stopped),
        items_over_limit=over or None,
        items_cut=cut or None,
        selected_strategy=run.strategy,  # type: ignore[arg-type]  # http or browser, as read_feed read it
    )
    parts = [say("{count} items from {pages} page(s).", count=count, pages=run.pages)]
    if run.stopped is not None:
        parts.append(
            say(
                "Page {page} could not be read, so pagination stopped there "
                "(payload.pagination_stopped says why).",
                page=run.pages + 1,
            )
        )
    if over:
        parts.append(
            say(
                "{over} more were found beyond the limit of {limit} and left out "
                "(payload.items_over_limit).",
                over=over,
                limit=len(built.items) - over,
            )
        )
    if cut:
        parts.append(
            say(
                "{cut} more were left out, past the most text one feed may carry "
                "(payload.items_cut).",
                cut=cut,
            )
        )
    if loaded.warnings:
        parts.append(
            say(
                "{count} warning(s) about the config in payload.warnings.",
                count=len(loaded.warnings),
            )
        )
    # the notice names what the call was asked to read: the config's page, and a url argument it
    # overrode
    source = ", ".join(dict.fromkeys(url for url in (config["channel"]["url"], args.url) if url))
    return Outcome(payload, next_step=DONE, guidance=Guidance(" ".join(parts)), source=source)


def _warnings(found: Sequence[Problem]) -> tuple[list[ConfigProblem], int | None]:
    """A config's warnings as an answer lists them: the first MAX_REPORTED, and how many more."""
    shown, more = report_problems(found)
    return [ConfigProblem(path=p.path or "/", message=p.message) for p in shown], more or None


def _no_items(config: dict[str, Any], run: FeedRun) -> NoItems:
    """No items, said as it happened: detection found none, the items selector matched nothing, or
    it matched elements that gave no item. Counts and the config's own selector only: nothing the
    page wrote."""
    selector = ((config.get("selectors") or {}).get("items") or {}).get("selector")
    where = "there" if run.pages == 1 else f"on its {run.pages} pages"
    if selector is None:
        why = f"detection (auto_source) found none {where}"
    elif run.matched == 0:
        why = f"its items selector {quote_value(selector)} matches nothing {where}"
    else:
        why = (
            f"its items selector {quote_value(selector)} matched {run.matched} element(s) "
            f"{where}, but none gave an item with a title or link"
        )
    return NoItems(
        f"the config found no items on {run.url}: {why}",
        detail={
            "url": run.url,
            "items_selector": quote_name(selector) if selector is not None else None,
            "item_count": 0,
            "elements_matched": run.matched,
        },
        next_step="inspect_url",
    )


async def read_config_schema(ctx: Context) -> dict[str, Any]:
    return feed_config.config_schema()


async def read_extractors(ctx: Context) -> dict[str, Any]:
    steps = feed_config.config_schema()["$defs"]["FeedPostProcess"]
    return {
        "extractors": feed_config.EXTRACTORS,
        "post_processors": steps["properties"]["name"]["enum"],
        "post_processor_arguments": {
            k: v["description"] for k, v in steps["properties"].items() if k != "name"
        },
    }


async def read_strategies(ctx: Context) -> dict[str, Any]:
    return {
        "strategies": feed_config.STRATEGIES,
        "available": list(feed_config.STRATEGIES) if ctx.browser.installed else ["auto", "faraday"],
        "default": feed_config.DEFAULT_STRATEGY,
    }


async def read_extractor_names(ctx: Context) -> list[str]:
    """html2rss://extractors: the names alone, alphabetically, as html2rss lists them."""
    return sorted(feed_config.EXTRACTORS)


async def read_mcp_strategies(ctx: Context) -> list[str]:
    """html2rss://strategies: the strategies the tools take under html2rss's names
    (html2rss://runtime says whether a browser one can run)."""
    return list(feed_config.MCP_STRATEGIES)


async def read_runtime(ctx: Context) -> dict[str, bool]:
    """html2rss://runtime, booleans only: whether the browser strategies can render (a Chromium is
    installed); never where it is."""
    return {"botasaurus_configured": ctx.browser.installed}


async def read_capabilities(ctx: Context) -> dict[str, bool]:
    return {
        "plain_http": True,
        "browser_rendering": ctx.browser.installed,
        "json_pages": True,
        "auto_source": True,
        "pagination": True,
        "rss": True,
        "json_feed": True,
        "local_files": False,
    }
