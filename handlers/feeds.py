"""Feeds from listing pages: articles now (scrape_url), or a durable html2rss config (capture, validate, apply)."""

from __future__ import annotations

from typing import Any

import anyio
import yaml

from generated.models import ApplyConfigInput, CaptureConfigInput, ScrapeUrlInput, ValidateConfigInput
from netglean import feed_config
from netglean.context import Context
from netglean.envelope import DONE, Outcome, say
from netglean.errors import InvalidArguments, InvalidFeedConfig, NoItems, NotAvailable, UnsupportedContent
from netglean.feed_selectors import lexbor_selector, selector_problem
from netglean.fetch import Page
from netglean.page_meta import page_metadata

_JSON_TYPES = {"application/json", "application/feed+json", "text/json"}
_DEFAULT_PAGES = 3


async def scrape_url(args: ScrapeUrlInput, ctx: Context) -> Outcome:
    from netglean.feed_auto import auto_items
    from netglean.feed_items import read_items

    if args.items_selector and (problem := selector_problem(args.items_selector)) is not None:
        # the hint is the items selector of the config scrape_url builds: a config's problem, not a schema's
        raise InvalidFeedConfig(
            f"items_selector: {problem}", detail={"errors": [{"path": "/items_selector", "message": problem}]}
        )
    page = await ctx.fetcher.fetch(args.url)

    def read() -> tuple[str | None, list[dict[str, Any]]]:
        tree, is_json = _document(page)
        title = _title(tree, page.url) if not is_json else None
        if not args.items_selector:
            return title, auto_items(tree, page.url)
        config = {
            "channel": {"url": page.url, "time_zone": "UTC"},
            "selectors": {"items": {"selector": args.items_selector, "enhance": True}},
        }
        return title, read_items(tree, config, page.url, is_json)

    title, found = await anyio.to_thread.run_sync(read)
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
    from netglean.feed_auto import draft_config

    page = await ctx.fetcher.fetch(args.url)

    def draft() -> tuple[dict[str, Any], int] | None:
        tree, is_json = _document(page)
        if is_json:
            raise UnsupportedContent(
                f"{page.url} is JSON: write its config by hand (items selector like 'array > object')",
                detail={"url": page.url},
            )
        metadata = page_metadata(tree, page.url)
        language = metadata.get("language")
        return draft_config(tree, page.url, metadata.get("title"), language if isinstance(language, str) else None)

    drafted = await anyio.to_thread.run_sync(draft)
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
    raw = _one_config(given.config, given.yaml)
    try:
        config = feed_config.load(raw, given.parameters)
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
    from netglean.feed_auto import auto_items
    from netglean.feed_items import read_items
    from netglean.feed_output import count_items, json_feed, rss

    given = args.root  # exactly one of config and yaml: the schema's oneOf makes the model a union
    config = feed_config.load(_one_config(given.config, given.yaml), given.parameters)
    if config.get("strategy") in feed_config.BROWSER_STRATEGIES:
        raise NotAvailable(
            f"browser rendering is not available in this build, and strategy {config['strategy']} needs it",
            detail={"strategy": config["strategy"]},
        )
    channel = dict(config["channel"])
    headers = config.get("headers") or {}
    selectors = config.get("selectors")
    pagination = (selectors or {}).get("items", {}).get("pagination") if selectors else None
    request = config.get("request") or {}  # the config's own limits: they may only lower the operator's
    pages_allowed = (pagination.get("max_pages", _DEFAULT_PAGES) if pagination is not None else 1) or 1
    pages_allowed = min(pages_allowed, request.get("max_requests", pages_allowed))
    zone = channel.get("time_zone") or "UTC"

    def read(page: Page, want_title: bool) -> tuple[list[dict[str, Any]], str | None, str]:
        """One page's items, its title when wanted, and the next page's URL (or "")."""
        tree, is_json = _document(page)
        title = (_title(tree, page.url) or page.url) if want_title and not is_json else None
        if selectors:
            items = read_items(tree, config, page.url, is_json)
        else:
            items = auto_items(tree, page.url, config.get("auto_source"), zone)
        return items, title, _next_page(tree, page.url, pagination) if pagination is not None else ""

    url, first_url, pages, found = channel["url"], "", 0, []
    seen: set[str] = set()
    while url and pages < pages_allowed and url not in seen:
        seen.add(url)
        page = await ctx.fetcher.fetch(
            url, headers=headers, max_redirects=request.get("max_redirects"), timeout=request.get("timeout_seconds")
        )
        pages += 1
        first_url = first_url or page.url
        items, title, url = await anyio.to_thread.run_sync(read, page, pages == 1 and not channel.get("title"))
        found += items
        if title:
            channel["title"] = title
    items = _unique(found)[: given.limit or 100]
    fmt = given.format or "rss"
    payload: dict[str, Any] = {"url": first_url, "format": fmt, "pages": pages}
    if fmt == "rss":
        payload["rss"] = rss(channel, items, config.get("stylesheets") or ())
        payload["item_count"] = count_items(payload["rss"])
    else:
        payload["feed"] = json_feed(channel, items)
        payload["item_count"] = len(payload["feed"]["items"])
    if payload["item_count"] == 0:
        raise NoItems(
            f"the config found no items on {first_url}: its items selector matches nothing there",
            detail={"url": first_url, "items_selector": ((selectors or {}).get("items") or {}).get("selector")},
            next_step="inspect_url",
        )
    guidance = say("{count} items from {pages} page(s).", count=payload["item_count"], pages=pages)
    return Outcome(payload, next_step=DONE, guidance=guidance, source=config["channel"]["url"])


def _one_config(config: Any, text: str | None) -> Any:
    if (config is None) == (text is None):
        raise InvalidArguments("give exactly one of config (an object) or yaml (its text)")
    return feed_config.parse_yaml(text) if text is not None else config


def _document(page: Page) -> tuple[Any, bool]:
    """The page parsed (HTML, or JSON as html2rss's markup): CPU work, so callers run it off the event loop."""
    from netglean.feed_items import document

    is_json = page.media_type in _JSON_TYPES or page.media_type.endswith("+json")
    if not is_json and page.media_type not in {"text/html", "application/xhtml+xml", "application/xml", "text/xml"}:
        raise UnsupportedContent(f"{page.url} is {page.media_type}, not a page with items", detail={"url": page.url})
    try:
        return document(page.text(), is_json=is_json), is_json
    except ValueError as exc:
        unreadable = f"{page.url} says it is JSON but cannot be read: {exc}"
        raise UnsupportedContent(unreadable, detail={"url": page.url}) from None


def _title(tree: Any, url: str) -> str | None:
    title = page_metadata(tree, url).get("title")
    return title if isinstance(title, str) else None


def _next_page(tree: Any, url: str, pagination: dict[str, Any]) -> str:
    from urllib.parse import urljoin

    selector = pagination.get("selector")
    link = tree.css_first(lexbor_selector(selector) if selector else "a[rel~=next], link[rel~=next]")
    href = link.attributes.get("href") if link is not None else None
    return urljoin(url, href) if href else ""


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
