"""The browser tools: actions on a page (interact), a page's structure (analyze_page) and an
endpoint's answer (analyze_api_endpoint), all in the server's Chromium under the call's network
policy."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from netglean.browser.actions import Action
from netglean.browser.capture import Captured, JsonSummary
from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.generated.models import Action as ActionInput
from netglean.generated.models import (
    AnalyzeApiEndpointInput,
    AnalyzeApiEndpointOutput,
    AnalyzePageInput,
    AnalyzePageOutput,
    CapturedRequest,
    Features,
    FieldModel,
    Form,
    Image,
    InteractInput,
    InteractOutput,
    ItemSelector,
    Json,
    Json1,
    Pagination,
    Step,
    Table,
    Waf,
)
from netglean.handlers.pages import item_error
from netglean.scraping.browsing import PageAnalysis, analyze, analyze_endpoint
from netglean.scraping.browsing import interact as interaction

CUT_CHARS = 20_000
"""The longest string analyze_page returns unless full_response is asked for (RTILA's rule)."""


async def interact(args: InteractInput, ctx: Context) -> Outcome:
    found = await interaction(
        ctx.fetcher,
        ctx.readers,
        ctx.browser,
        args.url,
        [_action(step) for step in args.actions],
        fmt=args.format,
        main_content=args.main_content,
        max_chars=args.max_chars,
        allow_evaluate=ctx.settings.browser_evaluate,
        action_timeout=ctx.settings.browser_action_timeout,
    )
    done = found.performed
    shots = {shot.action: shot for shot in done.shots}
    images: list[Image] = []
    steps: list[Step] = []
    for step in done.steps:
        read = found.scraped.get(step.index)
        evaluated = step.action == "evaluate" and step.ok
        shot = shots.get(step.index)
        if shot is not None:
            images.append(
                Image(
                    action=shot.action,
                    mime_type=shot.mime_type,
                    width=shot.width,
                    height=shot.height,
                    bytes=len(shot.data),
                    data=base64.b64encode(shot.data).decode("ascii"),
                )
            )
        steps.append(
            Step(
                index=step.index,
                action=step.action,
                ok=step.ok,
                ms=step.ms,
                url=step.url,
                error=item_error(step.error) if step.error is not None else None,
                content=read.content if read is not None else None,
                total_chars=read.total_chars if read is not None else None,
                value=step.value if evaluated else None,
                truncated=step.truncated if evaluated else None,
                image=len(images) - 1 if shot is not None else None,
            )
        )
    final = found.final
    failed = next((step.index for step in done.steps if not step.ok), None)
    payload = InteractOutput(
        url=args.url,
        final_url=done.final_url,
        completed=failed is None,
        failed_action=failed,
        steps=steps,
        title=final.title or None,
        content=final.content,
        total_chars=final.total_chars,
        truncated=final.next_start is not None,
        images=images or None,
    )
    if failed is not None:
        guidance = say(
            "Action {index} failed (payload.steps[{index}].error says why) and ended the list; "
            "the page as it was then is in payload.content. Fix that action and call interact "
            "again.",
            index=failed,
        )
        return Outcome(payload, next_step="interact", guidance=guidance, source=args.url)
    guidance = say(
        "{count} action(s) done; the final page is in payload.content.", count=len(steps)
    )
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)


CRAWLBERG_ACTIONS = {"wait": "wait_for", "executeJs": "evaluate"}
"""Crawlberg's action names that differ from netglean's."""


def _action(given: ActionInput) -> Action:
    """One action as the browser carries it out, Crawlberg's names taken too (``wait`` with
    ``milliseconds``, ``executeJs``)."""
    return Action(
        action=CRAWLBERG_ACTIONS.get(given.action, given.action),
        selector=given.selector,
        text=given.text,
        url=given.url,
        key=given.key,
        values=tuple(given.values or ()),
        to=given.to,
        pixels=given.pixels,
        repeat=given.repeat,
        network_idle=given.network_idle,
        time_ms=given.time_ms if given.time_ms is not None else given.milliseconds,
        full_page=given.full_page,
        script=given.script,
        timeout_ms=given.timeout_ms,
    )


def captured_request(request: Captured) -> CapturedRequest:
    """An XHR or fetch request a page made, as analyze_page and inspect_url list it."""
    summary = request.json
    return CapturedRequest(
        method=request.method,
        url=request.url,
        status=request.status,
        content_type=request.content_type,
        bytes=request.bytes,
        json_=_captured_json(summary) if summary is not None else None,
    )


def _captured_json(summary: JsonSummary) -> Json1:
    return Json1(
        shape=summary.shape,
        sample=summary.sample,
        items_pointer=summary.items_pointer,
        items_count=summary.items_count,
    )


def _analysis(report: PageAnalysis) -> AnalyzePageOutput:
    markup = report.markup
    pagination = report.pagination
    return AnalyzePageOutput(
        url=report.url,
        final_url=report.final_url,
        status=report.status,
        features=Features(
            frameworks=markup.features.frameworks,
            rendering=markup.features.rendering,
            text_chars=markup.features.text_chars,
            pagination=Pagination(
                kind=pagination.kind, next_url=pagination.next_url, selector=pagination.selector
            ),
            infinite_scroll=report.infinite_scroll,
            loads_data_by_xhr=report.loads_data_by_xhr,
        ),
        item_selectors=[
            ItemSelector(selector=found.selector, count=found.count, sample=found.sample)
            for found in markup.item_selectors
        ],
        forms=[
            Form(
                action=form.action,
                method=form.method,
                selector=form.selector,
                fields=[
                    FieldModel(
                        name=field.name,
                        type=field.type,
                        required=field.required,
                        label=field.label,
                        options=field.options,
                    )
                    for field in form.fields
                ],
            )
            for form in markup.forms
        ],
        tables=[
            Table(
                headers=table.headers,
                rows=table.rows,
                row_count=table.row_count,
                caption=table.caption,
            )
            for table in markup.tables
        ],
        waf=Waf(
            detected=markup.waf.detected, signals=markup.waf.signals, surface=markup.waf.surface
        ),
        requests=[captured_request(request) for request in report.requests],
    )


async def analyze_page(args: AnalyzePageInput, ctx: Context) -> Outcome:
    report = await analyze(ctx.fetcher, ctx.readers, ctx.browser, args.url)
    if not args.full_response:
        report = _cut(report)
    payload = _analysis(report)
    features = payload.features
    if payload.waf.detected:
        guidance = say(
            "A WAF or captcha answered (payload.waf), not the page; netglean does not get past it."
        )
        return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
    if features.loads_data_by_xhr:
        guidance = say(
            "The page loads its data by XHR or fetch ({count} request(s) in payload.requests): "
            "analyze_api_endpoint describes an endpoint, which may be read directly.",
            count=len(payload.requests),
        )
        return Outcome(
            payload, next_step="analyze_api_endpoint", guidance=guidance, source=args.url
        )
    if payload.item_selectors:
        guidance = say(
            "{count} candidate item selector(s) in payload.item_selectors: capture_config drafts "
            "a feed from them.",
            count=len(payload.item_selectors),
        )
        return Outcome(payload, next_step="capture_config", guidance=guidance, source=args.url)
    guidance = say("No repeated items found; scrape reads the page's content.")
    return Outcome(payload, next_step="scrape", guidance=guidance, source=args.url)


def _cut(value: Any) -> Any:
    """Strings over CUT_CHARS characters cut, all the way down (dataclasses' fields too)."""
    if isinstance(value, str):
        return value if len(value) <= CUT_CHARS else value[:CUT_CHARS] + "…"
    if isinstance(value, list | tuple):
        return type(value)(_cut(item) for item in value)
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cut = {field.name: _cut(getattr(value, field.name)) for field in dataclasses.fields(value)}
        return dataclasses.replace(value, **cut)
    return value


async def analyze_api_endpoint(args: AnalyzeApiEndpointInput, ctx: Context) -> Outcome:
    answer = await analyze_endpoint(ctx.fetcher, ctx.browser, args.url)
    summary = answer.json
    payload = AnalyzeApiEndpointOutput(
        url=answer.url,
        final_url=answer.final_url,
        status=answer.status,
        content_type=answer.content_type,
        bytes=answer.bytes,
        headers=answer.headers,
        pagination_hints=answer.pagination_hints,
        json_=Json(
            shape=summary.shape,
            sample=summary.sample,
            items_pointer=summary.items_pointer,
            items_count=summary.items_count,
        )
        if summary is not None
        else None,
        text_sample=answer.text_sample,
    )
    if payload.json_ is not None and payload.json_.items_count:
        guidance = say(
            "A JSON answer with {count} item(s) (payload.json says where and what they hold).",
            count=payload.json_.items_count,
        )
    elif payload.json_ is not None:
        guidance = say("A JSON answer (payload.json describes its shape).")
    elif payload.text_sample is not None:
        guidance = say(
            "Not a JSON answer (payload.content_type says what it is; payload.text_sample shows "
            "it)."
        )
    else:
        guidance = say(
            "Neither JSON nor text (payload.content_type says what it is): download identifies it."
        )
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
