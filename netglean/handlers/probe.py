"""Probes: what a URL is before reading it (inspect_url), and what agents get next to browsers
(compare_agent_view)."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.untrusted import PAYLOAD_NOTICE
from netglean.feeds.pages import page_listing
from netglean.generated.models import (
    AlternateFeed,
    CompareAgentViewInput,
    CompareAgentViewOutput,
    ComparedTarget,
    ComparisonCost,
    Divergence,
    Feed,
    FetchView,
    InspectUrlInput,
    InspectUrlOutput,
    ItemError,
    JsonFeed,
    SegmentStats,
    Sst,
    SstStats,
    XhrCapture,
)
from netglean.handlers.browser import captured_request
from netglean.handlers.feeds import admission_drops
from netglean.net.strategy import page_strategy
from netglean.read.page_signals import SemanticTree, TreeBuilt
from netglean.scraping.probe import Comparison, Inspection, View, compare, inspect, vantage_fetcher

SAMPLE_ENDPOINTS = 10
"""The most XHR and fetch requests inspect_url lists (the count says how many there were)."""


async def inspect_url(args: InspectUrlInput, ctx: Context) -> Outcome:
    # auto is a cheap diagnostic over HTTP, as html2rss's
    rendered = page_strategy(args.strategy) == "browser"
    found = await inspect(ctx.fetcher, ctx.readers, args.url, ctx.browser if rendered else None)
    page, source = found.page, args.url
    selected: Literal["http", "browser"] = "browser" if rendered else "http"
    if page is None:
        guidance = say("robots.txt does not let netglean read this URL (payload.robots says why).")
        payload = InspectUrlOutput(
            url=args.url,
            requested_url=args.url,
            requested_strategy=args.strategy,
            selected_strategy=selected,
            robots=found.robots,
            fetched=False,
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    listed = await page_listing(ctx.readers, page) if found.html else None
    count = len(listed.items) if listed is not None else 0
    surface = found.blocked_surface
    payload = InspectUrlOutput(
        url=args.url,
        requested_url=args.url,
        requested_strategy=args.strategy,
        selected_strategy=selected,
        robots=found.robots,
        fetched=True,
        final_url=page.url,
        redirects=[hop.url for hop in page.redirects],
        status=page.status,
        downgraded=page.downgraded,
        scheme_downgrade=page.downgraded,
        content_type=page.media_type,
        html_response=found.html,
        bytes=len(page.body),
        feeds=[Feed(url=feed.url, type=feed.type, title=feed.title) for feed in found.feeds],
        alternate_feeds=[
            AlternateFeed(url=feed.url, type=feed.type, title=feed.title)
            for feed in found.feeds
            if feed.type != "json"
        ],
        json_feeds=[
            JsonFeed(url=feed.url, title=feed.title) for feed in found.feeds if feed.type == "json"
        ],
        articles_count=count if listed is not None else None,
        admission_drops=admission_drops(listed.drops) if listed is not None else None,
        articles=found.counts.articles,
        repeated_items=found.counts.repeated_items,
        bot_wall=surface is not None,
        bot_wall_signals=found.signals,
        blocked_surface=surface,
        xhr_capture=_xhr_capture(found),
        scraper_eligibility=list(listed.scrapers) if listed is not None else None,
        sst_stats=_tree_built(found.sst_stats) if found.sst_stats is not None else None,
        sst=_semantic_tree(found.sst) if found.sst is not None else None,
    )
    if surface is not None:
        guidance = say(
            "This is a challenge or block page, not the content (payload.blocked_surface says "
            "which); netglean does not bypass it, and scrape_url would read the same wall."
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if found.feeds:
        guidance = say(
            "The page announces {count} feed(s) of its own (payload.alternate_feeds, "
            "payload.json_feeds), not fetched here, so unverified: download one to see that it "
            "answers, and read it instead if it does.",
            count=len(found.feeds),
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if page.status >= 400:
        guidance = say(
            "The server answered HTTP {status}: another read would get the same.",
            status=page.status,
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    # scrape_url reads items from HTML pages: on anything else it would fail, and be retried
    if not found.html:
        guidance = (
            say("The URL is a feed itself (payload.content_type says which): read it as it is.")
            if found.feed
            else say(
                "Not an HTML page (payload.content_type says what it is), so no listing to "
                "detect items on: download identifies a document, scrape reads a text one (a "
                "JSON listing takes scrape_url's items_selector)."
            )
        )
        return Outcome(payload, next_step=DONE, source=source, guidance=guidance)
    if count or found.listed:
        guidance = say(
            "{count} articles found: capture_config drafts a feed config for them (scrape_url "
            "reads them now).",
            count=count or found.listed,
        )
        return Outcome(payload, next_step="capture_config", source=source, guidance=guidance)
    guidance = say(
        "No articles found and no feed announced: scrape_url reads the page as a listing."
    )
    return Outcome(payload, next_step="scrape_url", source=source, guidance=guidance)


def _xhr_capture(found: Inspection) -> XhrCapture | None:
    """What the rendered page asked for by XHR and fetch: how many, the first few (URLs redacted),
    and the most items one JSON answer held (a listing's data endpoint)."""
    if found.requests is None:
        return None
    counts = [
        request.json.items_count or 0 for request in found.requests if request.json is not None
    ]
    return XhrCapture(
        count=len(found.requests),
        sample_endpoints=[captured_request(req) for req in found.requests[:SAMPLE_ENDPOINTS]],
        candidate_articles=max(counts, default=0),
    )


def _tree_built(built: TreeBuilt) -> SstStats:
    return SstStats(
        elements=built.elements,
        stripped=built.stripped,
        text_chars=built.text_chars,
        links=built.links,
    )


def _semantic_tree(tree: SemanticTree) -> Sst:
    segments = tree.segment_stats
    return Sst(
        node_count=tree.node_count,
        degraded=tree.degraded,
        segment_stats=SegmentStats(
            segments=segments.segments, cards=segments.cards, largest=segments.largest
        ),
    )


def _side(seen: View, excerpt_chars: int) -> FetchView:
    if seen.page is None:
        error = seen.error
        failed = (
            ItemError(code=error.code, message=error.message, retryable=error.retryable)
            if error
            else None
        )
        return FetchView(accept=seen.accept, error=failed)
    return FetchView(
        accept=seen.accept,
        status=seen.page.status,
        final_url=seen.page.url,
        content_type=seen.page.media_type,
        vary=seen.vary or None,
        bytes=len(seen.page.body),
        approx_tokens=seen.tokens,
        excerpt=seen.text[:excerpt_chars],
    )


def _divergence(both: Comparison) -> Divergence:
    """How the answers differ, as facts: netglean's own words and numbers, whatever the target
    sent."""
    agent, browser = both.agent.page, both.browser.page
    if agent is None or browser is None:
        return Divergence(kind="one_failed")
    kind: Literal["identical", "same_type", "different_type"] = "different_type"
    if agent.body == browser.body:
        kind = "identical"
    elif agent.media_type == browser.media_type:
        kind = "same_type"
    return Divergence(
        kind=kind,
        content_type=agent.media_type != browser.media_type,
        status=agent.status != browser.status,
        final_url=agent.url != browser.url,
        body=agent.body != browser.body,
        byte_delta=len(agent.body) - len(browser.body),
    )


def _cost(both: Comparison) -> ComparisonCost:
    agent = both.agent.tokens if both.agent.page is not None else None
    browser = both.browser.tokens if both.browser.page is not None else None
    if agent is None or browser is None:
        return ComparisonCost(requests=both.requests, agent_tokens=agent, browser_tokens=browser)
    ratio = round(agent / browser, 4) if browser else None
    return ComparisonCost(
        requests=both.requests,
        agent_tokens=agent,
        browser_tokens=browser,
        saved_tokens=browser - agent,
        token_ratio=ratio,
    )


async def compare_agent_view(args: CompareAgentViewInput, ctx: Context) -> Outcome:
    both = await compare(vantage_fetcher(args.vantage, ctx.fetcher), ctx.readers, args.url)
    agent, browser = both.agent, both.browser
    if agent.error is not None and browser.page is None:
        raise agent.error  # nothing to compare: the call fails as the fetch did
    cost = _cost(both)
    if agent.page is not None and browser.page is not None:
        negotiated, identical = both.negotiated, agent.page.body == browser.page.body
        guidance = (
            say(
                "The site negotiates: agents get their own answer (payload.agent.content_type "
                "says which)."
            )
            if both.negotiated
            else say(
                "No content negotiation: agents and browsers get the same kind of answer; scrape "
                "extracts the text."
            )
        )
    else:
        negotiated, identical = False, False
        guidance = (
            say("Only the browser request succeeded.")
            if agent.page is None
            else say("Only the agent request succeeded.")
        )
    parts = urlsplit(args.url)
    payload = CompareAgentViewOutput(
        url=args.url,
        target=ComparedTarget(
            url=args.url, origin=f"{parts.scheme}://{parts.netloc}".lower(), vantage=args.vantage
        ),
        agent=_side(agent, args.excerpt_chars),
        browser=_side(browser, args.excerpt_chars),
        cost=cost,
        negotiated=negotiated,
        identical=identical,
        divergence=_divergence(both),
        token_ratio=cost.token_ratio,
        differences=both.differences(),
        untrustedContentNotice=PAYLOAD_NOTICE,
    )
    return Outcome(payload, next_step=DONE, guidance=guidance, source=args.url)
