"""The browser tools: actions on a page (interact), a page's structure (analyze_page) and an endpoint's answer
(analyze_api_endpoint), all in the server's Chromium under the call's network policy."""

from __future__ import annotations

import base64
from typing import Any

from netglean.browser.actions import Action
from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.generated.models import (
    AnalyzeApiEndpointInput,
    AnalyzeApiEndpointOutput,
    AnalyzePageInput,
    AnalyzePageOutput,
    InteractInput,
    InteractOutput,
)
from netglean.handlers.pages import item_error
from netglean.sites.browsing import analyze, analyze_endpoint
from netglean.sites.browsing import interact as interaction

CUT_CHARS = 20_000
"""The longest string analyze_page returns unless full_response is asked for (RTILA's rule)."""


async def interact(args: InteractInput, ctx: Context) -> Outcome:
    actions = [_action(step.model_dump(mode="json", by_alias=True, exclude_none=True)) for step in args.actions]
    found = await interaction(
        ctx.fetcher,
        ctx.readers,
        ctx.browser,
        args.url,
        actions,
        fmt=args.format,
        main_content=args.main_content,
        max_chars=args.max_chars,
        allow_evaluate=ctx.settings.browser_evaluate,
        action_timeout=ctx.settings.browser_action_timeout,
    )
    done = found.performed
    images: list[dict[str, Any]] = []
    shots = {shot.action: shot for shot in done.shots}
    steps: list[dict[str, Any]] = []
    for step in done.steps:
        shown: dict[str, Any] = {"index": step.index, "action": step.action, "ok": step.ok, "ms": step.ms}
        shown["url"] = step.url
        if step.error is not None:
            shown["error"] = item_error(step.error).model_dump(exclude_none=True)
        if step.index in found.scraped:
            read = found.scraped[step.index]
            shown["content"], shown["total_chars"] = read.content, read.total_chars
        if step.action == "evaluate" and step.ok:
            shown["value"], shown["truncated"] = step.value, step.truncated
        if step.index in shots:
            shot = shots[step.index]
            shown["image"] = len(images)
            images.append(
                {
                    "action": shot.action,
                    "mime_type": shot.mime_type,
                    "width": shot.width,
                    "height": shot.height,
                    "bytes": len(shot.data),
                    "data": base64.b64encode(shot.data).decode("ascii"),
                }
            )
        steps.append(shown)
    final = found.final
    failed = next((step.index for step in done.steps if not step.ok), None)
    payload = InteractOutput.model_validate(
        {
            "url": args.url,
            "final_url": done.final_url,
            "completed": failed is None,
            "failed_action": failed,
            "steps": steps,
            "title": final.title or None,
            "content": final.content,
            "total_chars": final.total_chars,
            "truncated": final.next_start is not None,
            "images": images or None,
        }
    )
    if failed is not None:
        guidance = say(
            "Action {index} failed (payload.steps[{index}].error says why) and ended the list; the page as it was"
            " then is in payload.content. Fix that action and call interact again.",
            index=failed,
        )
        return Outcome(payload, next_step="interact", guidance=guidance, source=args.url)
    guidance = say("{count} action(s) done; the final page is in payload.content.", count=len(steps))
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


CRAWLBERG_ACTIONS = {"wait": "wait_for", "executeJs": "evaluate"}
"""Crawlberg's action names that differ from netglean's."""


def _action(given: dict[str, Any]) -> Action:
    """One action object, Crawlberg's names taken too (``wait`` with ``milliseconds``, ``executeJs``)."""
    named = given.pop("action")
    if "milliseconds" in given:
        given.setdefault("time_ms", given.pop("milliseconds"))
    given["values"] = tuple(given.get("values") or ())
    return Action(action=CRAWLBERG_ACTIONS.get(named, named), **given)


async def analyze_page(args: AnalyzePageInput, ctx: Context) -> Outcome:
    report = await analyze(ctx.fetcher, ctx.readers, ctx.browser, args.url)
    if not args.full_response:
        report = _cut(report)
    payload = AnalyzePageOutput.model_validate(report)
    features = payload.features
    if payload.waf.detected:
        guidance = say("A WAF or captcha answered (payload.waf), not the page; netglean does not get past it.")
        return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
    if features.loads_data_by_xhr:
        guidance = say(
            "The page loads its data by XHR or fetch ({count} request(s) in payload.requests): analyze_api_endpoint"
            " describes an endpoint, which may be read directly.",
            count=len(payload.requests),
        )
        return Outcome(payload, next_step="analyze_api_endpoint", guidance=guidance, source=args.url)
    if payload.item_selectors:
        guidance = say(
            "{count} candidate item selector(s) in payload.item_selectors: capture_config drafts a feed from them.",
            count=len(payload.item_selectors),
        )
        return Outcome(payload, next_step="capture_config", guidance=guidance, source=args.url)
    guidance = say("No repeated items found; scrape reads the page's content.")
    return Outcome(payload, next_step="scrape", guidance=guidance, source=args.url)


def _cut(value: Any) -> Any:
    """Strings over CUT_CHARS characters cut, all the way down."""
    if isinstance(value, str):
        return value if len(value) <= CUT_CHARS else value[:CUT_CHARS] + "…"
    if isinstance(value, list):
        return [_cut(item) for item in value]
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    return value


async def analyze_api_endpoint(args: AnalyzeApiEndpointInput, ctx: Context) -> Outcome:
    report = await analyze_endpoint(ctx.fetcher, ctx.browser, args.url)
    payload = AnalyzeApiEndpointOutput.model_validate(report)
    if payload.json_ is not None and payload.json_.items_count:
        guidance = say(
            "A JSON answer with {count} item(s) (payload.json says where and what they hold).",
            count=payload.json_.items_count,
        )
    elif payload.json_ is not None:
        guidance = say("A JSON answer (payload.json describes its shape).")
    elif payload.text_sample is not None:
        guidance = say("Not a JSON answer (payload.content_type says what it is; payload.text_sample shows it).")
    else:
        guidance = say("Neither JSON nor text (payload.content_type says what it is): download identifies it.")
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
