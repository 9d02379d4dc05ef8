"""Probes: what a URL is before reading it (inspect_url), and what agents get next to browsers (compare_agent_view)."""

from __future__ import annotations

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.generated.models import (
    CompareAgentViewInput,
    CompareAgentViewOutput,
    Feed,
    FetchView,
    InspectUrlInput,
    InspectUrlOutput,
    ItemError,
)
from netglean.sites.probe import View, compare, inspect


async def inspect_url(args: InspectUrlInput, ctx: Context) -> Outcome:
    found = await inspect(ctx.fetcher, ctx.readers, args.url)
    page, source = found.page, args.url
    if page is None:
        guidance = say("robots.txt does not let netglean read this URL (payload.robots says why).")
        payload = InspectUrlOutput(url=args.url, robots=found.robots, fetched=False)  # type: ignore[arg-type]
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    payload = InspectUrlOutput(
        url=args.url,
        robots=found.robots,  # type: ignore[arg-type]  # one of the schema's words, typed str by the engine
        fetched=True,
        final_url=page.url,
        redirects=[hop.url for hop in page.redirects],
        status=page.status,
        downgraded=page.downgraded,
        content_type=page.media_type,
        bytes=len(page.body),
        feeds=[Feed.model_validate(feed) for feed in found.feeds],
        articles=found.counts.get("articles"),
        repeated_items=found.counts.get("repeated_items"),
        bot_wall=bool(found.signals),
        bot_wall_signals=found.signals,
    )
    if found.signals:
        guidance = say("This is a challenge or block page, not the content; netglean does not bypass it.")
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if found.feeds:
        guidance = say(
            "The page announces {count} feed(s) of its own (payload.feeds): read one of those instead.",
            count=len(found.feeds),
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if page.status >= 400:
        guidance = say("The server answered HTTP {status}.", status=page.status)
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if found.listed:
        guidance = say(
            "It lists {count} items: capture_config drafts a feed config for them (or scrape it as a page).",
            count=found.listed,
        )
        return Outcome(payload, next_step="capture_config", source=source, guidance=guidance)
    return Outcome(payload, next_step="scrape", source=source, guidance=say("Readable: scrape it."))


def _side(seen: View, excerpt_chars: int) -> FetchView:
    if seen.page is None:
        error = seen.error
        failed = ItemError(code=error.code, message=error.message, retryable=error.retryable) if error else None
        return FetchView(accept=seen.accept, error=failed)
    return FetchView(
        accept=seen.accept,
        status=seen.page.status,
        final_url=seen.page.url,
        content_type=seen.page.media_type,
        bytes=len(seen.page.body),
        approx_tokens=(len(seen.text) + 3) // 4,
        excerpt=seen.text[:excerpt_chars],
    )


async def compare_agent_view(args: CompareAgentViewInput, ctx: Context) -> Outcome:
    both = await compare(ctx.fetcher, ctx.readers, args.url)
    agent, browser = both.agent, both.browser
    if agent.error is not None and browser.page is None:
        raise agent.error  # nothing to compare: the call fails as the fetch did
    token_ratio: float | None = None
    if agent.page is not None and browser.page is not None:
        agent_tokens, browser_tokens = (len(agent.text) + 3) // 4, (len(browser.text) + 3) // 4
        if browser_tokens:
            token_ratio = round(agent_tokens / browser_tokens, 4)
        negotiated, identical = both.negotiated, agent.page.body == browser.page.body
        guidance = (
            say("The site negotiates: agents get their own answer (payload.agent.content_type says which).")
            if both.negotiated
            else say(
                "No content negotiation: agents and browsers get the same kind of answer; scrape extracts the text."
            )
        )
    else:
        negotiated, identical = False, False
        guidance = (
            say("Only the browser request succeeded.")
            if agent.page is None
            else say("Only the agent request succeeded.")
        )
    payload = CompareAgentViewOutput(
        url=args.url,
        agent=_side(agent, args.excerpt_chars),
        browser=_side(browser, args.excerpt_chars),
        negotiated=negotiated,
        identical=identical,
        token_ratio=token_ratio,
        differences=both.differences(),
    )
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
