"""What a URL is, before reading it: one fetch diagnosed (inspect_url), and the answers an agent and
a browser get side by side (compare_agent_view)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, cast, get_args

from netglean.core.errors import OperatorPolicy, ToolError
from netglean.net.politeness import CountedBudget
from netglean.read import jobs as read_jobs
from netglean.read.document import HTML_TYPES
from netglean.read.page_signals import (
    AnnouncedFeed,
    ItemCounts,
    SemanticTree,
    TreeBuilt,
    blocked_surface,
)
from netglean.read.readability.evidence import AGENT_ACCEPT, BROWSER_ACCEPT

if TYPE_CHECKING:
    from netglean.browser.capture import Captured
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers

FEED_TYPES = frozenset(
    {"application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json"}
)
"""Media types that say the answer is a feed."""
_XML_TYPES = frozenset({"application/xml", "text/xml"})
_FEED_ROOTS = (b"<rss", b"<feed", b"<rdf:rdf")


def vantage_fetcher(vantage: str, fetcher: Fetcher) -> Fetcher:
    """The fetcher a probe from ``vantage`` reads with. public: robots.txt read and obeyed, even
    where the operator ignores it (an argument may tighten the policy). self (a claim to operate the
    origin, skipping robots.txt) is refused unless the operator already ignores robots.txt, where it
    changes nothing: no argument loosens it."""
    if vantage == "public":
        return fetcher.obeying_robots()
    if fetcher.policy.obey_robots:
        raise OperatorPolicy(
            "vantage 'self' would skip robots.txt; only the operator can do that "
            "(ignore_robots), and this one has not, so robots.txt is read and obeyed",
            detail={"setting": "ignore_robots", "argument": "vantage"},
        )
    return fetcher


RobotsVerdict = Literal["allowed", "disallowed", "unreadable", "ignored"]


def _verdict(said: str) -> RobotsVerdict:
    """The fetcher's word for what robots.txt says, as one of the four it gives."""
    for verdict in get_args(RobotsVerdict):
        if verdict == said:
            return cast("RobotsVerdict", verdict)
    raise ValueError(f"robots.txt verdict {said!r} is none of {get_args(RobotsVerdict)}")


@dataclass(frozen=True, slots=True)
class Inspection:
    robots: RobotsVerdict
    """What robots.txt says for netglean: allowed, disallowed, unreadable or ignored."""
    page: Page | None = None
    """The page, when robots.txt let it be fetched (error pages included)."""
    feeds: list[AnnouncedFeed] = field(default_factory=list)
    counts: ItemCounts = field(default_factory=ItemCounts)
    signals: list[str] = field(default_factory=list)
    """Every sign of a challenge or block page seen (an ordinary page can carry some)."""
    wall: list[str] = field(default_factory=list)
    """The signs, when they make the answer a wall by scrape's rule
    (netglean.read.reading.walled)."""
    requests: tuple[Captured, ...] | None = None
    """The XHR and fetch requests the page made while it loaded, when it was rendered."""
    sst_stats: TreeBuilt | None = None
    """An HTML page's simplified semantic tree as built (html2rss's sst_stats)."""
    sst: SemanticTree | None = None
    """The tree: its node count, whether it is degraded, its candidate segments (html2rss's sst)."""

    @property
    def blocked_surface(self) -> str | None:
        """Which bot wall or interstitial answered, by name, when one did (not merely left a
        sign)."""
        return blocked_surface(self.wall)

    @property
    def html(self) -> bool:
        """Whether the page fetched is an HTML page."""
        return self.page is not None and self.page.media_type in HTML_TYPES

    @property
    def feed(self) -> bool:
        """Whether the answer is a feed itself: typed as one, or plain XML whose root is rss, feed
        or rdf:RDF."""
        if self.page is None:
            return False
        if self.page.media_type in FEED_TYPES:
            return True
        head = self.page.body[:2048].lower()
        return self.page.media_type in _XML_TYPES and any(root in head for root in _FEED_ROOTS)

    @property
    def listed(self) -> int:
        """Items the page lists: its largest group of alike linked siblings, else its articles when
        3 or more."""
        articles = self.counts.articles
        return self.counts.repeated_items or (articles if articles >= 3 else 0)


async def inspect(
    fetcher: Fetcher, readers: Readers, url: str, browser: BrowserPool | None = None
) -> Inspection:
    """One fetch of ``url`` diagnosed; with ``browser``, the page rendered there instead, and the
    XHR and fetch requests it made while loading."""
    verdict = _verdict(await fetcher.robots_verdict(url))
    if verdict in {"disallowed", "unreadable"}:
        return Inspection(verdict)
    requests = None
    if browser is not None:
        rendered = await browser.render(
            fetcher, url, timeout=fetcher.policy.total_timeout, capture=True
        )
        page, requests = rendered.as_page(), rendered.requests
    else:
        page = await fetcher.fetch(url, error_pages=True)
    diagnosis = await readers.run(
        read_jobs.diagnosis, document=page.document, status=page.status, headers=dict(page.headers)
    )
    return Inspection(
        verdict,
        page,
        diagnosis.feeds,
        diagnosis.counts,
        diagnosis.signals,
        diagnosis.wall,
        requests,
        diagnosis.sst_stats,
        diagnosis.sst,
    )


@dataclass(frozen=True, slots=True)
class View:
    """One side of a comparison: the request's Accept, and what came back (or why nothing did)."""

    accept: str
    page: Page | None
    error: ToolError | None
    text: str = ""

    @property
    def tokens(self) -> int:
        """About how many tokens the answer's text costs a model's context (characters / 4)."""
        return (len(self.text) + 3) // 4

    @property
    def vary(self) -> str:
        return self.page.headers.get("vary", "") if self.page is not None else ""


async def view(fetcher: Fetcher, readers: Readers, url: str, accept: str) -> View:
    try:
        page = await fetcher.fetch(url, accept=accept)
    except ToolError as error:
        return View(accept, None, error)
    return View(accept, page, None, await readers.run(read_jobs.plain_text, document=page.document))


@dataclass(frozen=True, slots=True)
class Comparison:
    agent: View
    browser: View
    requests: int = 0
    """Requests the comparison made to the target, robots.txt's included when it was the one to read
    it."""

    @property
    def negotiated(self) -> bool:
        """The server answered by Accept: another media type for agents, markdown or plain text for
        them, or other bytes from a server whose Vary header names Accept."""
        agent, browser = self.agent.page, self.browser.page
        if agent is None or browser is None:
            return False
        if agent.media_type != browser.media_type or agent.media_type in {
            "text/markdown",
            "text/plain",
        }:
            return True
        varies = any(
            "accept" in {part.strip().lower() for part in side.vary.split(",")}
            for side in (self.agent, self.browser)
        )
        return varies and agent.body != browser.body

    def differences(self) -> list[str]:
        """How the two answers differ, in words (third-party values quoted: inside the frame
        only)."""
        agent, browser = self.agent.page, self.browser.page
        if agent is None or browser is None:
            failed, error = (
                ("agent", self.agent.error) if agent is None else ("browser", self.browser.error)
            )
            return [f"the {failed} request failed: {error.message if error else 'unknown'}"]
        found = []
        if agent.media_type != browser.media_type:
            found.append(
                f"content type: {agent.media_type} for agents, {browser.media_type} for browsers"
            )
        if agent.status != browser.status:
            found.append(f"status: {agent.status} for agents, {browser.status} for browsers")
        if agent.url != browser.url:
            found.append(f"final URL: {agent.url} for agents, {browser.url} for browsers")
        if agent.body != browser.body:
            found.append(
                f"size: {len(agent.body)} bytes for agents, {len(browser.body)} for browsers"
            )
        return found


async def compare(fetcher: Fetcher, readers: Readers, url: str) -> Comparison:
    """The same URL asked for as an agent (preferring markdown), then as a browser, under the whole
    policy."""
    counted = CountedBudget(fetcher.budget)
    spending = fetcher.spending(counted)
    agent = await view(spending, readers, url, AGENT_ACCEPT)
    browser = await view(spending, readers, url, BROWSER_ACCEPT)
    return Comparison(agent, browser, counted.spent)
