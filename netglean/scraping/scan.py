"""A page scanned for agent readability: its evidence gathered once, under the whole policy, then
scored.

A cold scan asks at most five things of the site: robots.txt, the page as an agent and as a browser
(the Accept header is the only difference), /llms.txt, and the markdown alternate the page declares
when the agent did not already get markdown. The well-known agent endpoints are asked only when the
caller wants them (``well_known``). Every request goes through the fetcher: address policy,
robots.txt, politeness and the session's budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from netglean.core.errors import BudgetExhausted, FetchError, PolicyRefusal, ToolError
from netglean.net.politeness import CountedBudget
from netglean.read import jobs as read_jobs
from netglean.read.document import decode
from netglean.read.readability.evidence import (
    AGENT_ACCEPT,
    ASSET_ACCEPT,
    BROWSER_ACCEPT,
    FORMAT,
    Evidence,
    Failure,
    Probe,
    evidence_hash,
    evidence_headers,
)
from netglean.read.readability.score import EFFORTS

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.net.robots import Robots, RobotsResponse
    from netglean.workers.pool import Readers

WELL_KNOWN = {
    "agent_skills": ("/.well-known/agent-skills/index.json", "application/json"),
    "api_catalog": ("/.well-known/api-catalog", "application/linkset+json, application/json;q=0.9"),
    "mcp_server_card": (
        "/.well-known/mcp/server-card.json",
        "application/mcp-server-card+json, application/json",
    ),
    "oauth_authorization_server": ("/.well-known/oauth-authorization-server", "application/json"),
    "oauth_protected_resource": ("/.well-known/oauth-protected-resource", "application/json"),
}
"""The well-known agent endpoints a scan asks for when asked to, by the name the evidence keeps them
under."""
_TEXT_TYPES = (
    "text/",
    "application/json",
    "application/xml",
    "application/xhtml+xml",
    "application/linkset+json",
)


@dataclass(frozen=True, slots=True)
class Scan:
    evidence: Evidence
    evidence_hash: str
    result: dict[str, Any]
    requests: int
    """Requests the scan made to the site, robots.txt's included when this scan was the one to read
    it."""


def _textual(media_type: str) -> bool:
    return media_type.startswith(_TEXT_TYPES) or media_type.endswith(("+json", "+xml"))


def _text_of(page: Page) -> str:
    """The body as the score reads it: text by its charset; a PDF as UTF-8, as ARS's probe decodes
    every answer (so what the agent received is the PDF's text where its streams are not
    compressed); any other binary answer none."""
    if _textual(page.media_type):
        return decode(page.body, page.charset)
    if page.media_type == "application/pdf":
        return page.body.decode("utf-8", "replace")
    return ""


def _probe(
    url: str, accept: str, page: Page | None = None, error: ToolError | None = None
) -> Probe:
    if page is None:
        redirects = error.detail.get("redirects", []) if error is not None else []
        return Probe(
            url=url,
            accept=accept,
            final_url=None,
            status=None,
            headers={},
            redirects=[{"url": str(hop), "status": 0} for hop in redirects],
            body="",
            bytes=0,
            error=Failure(code=error.code, message=error.message) if error is not None else None,
        )
    return Probe(
        url=url,
        accept=accept,
        final_url=page.url,
        status=page.status,
        headers=evidence_headers(page.headers),
        redirects=[{"url": hop.url, "status": hop.status} for hop in page.redirects],
        body=_text_of(page),
        bytes=len(page.body),
        error=None,
    )


async def _ask(fetcher: Fetcher, url: str, accept: str) -> tuple[Probe, Page | None]:
    """One probe: the answer whatever its status, or the failure that stood for it (a refusal of the
    address policy is evidence too: a page may declare an alternate, or redirect, where the policy
    does not go; only a spent budget ends the scan)."""
    try:
        page = await fetcher.fetch(url, accept=accept, error_pages=True)
    except BudgetExhausted:
        raise
    except (FetchError, PolicyRefusal) as failed:
        return _probe(url, accept, error=failed), None
    return _probe(url, accept, page), page


def _robots_probe(answer: RobotsResponse | None, url: str, error: ToolError | None) -> Probe:
    if answer is None:
        return _probe(url, "text/plain", error=error)
    failure = Failure(code=answer.failure[0], message=answer.failure[1]) if answer.failure else None
    return Probe(
        url=url,
        accept="text/plain",
        final_url=answer.url if answer.status is not None else None,
        status=answer.status,
        headers=evidence_headers(answer.headers),
        redirects=[],
        body=answer.text,
        bytes=answer.size,
        error=failure,
    )


def _verdict(robots: Robots | None, url: str, obeyed: bool) -> str:
    """What robots.txt says of ``url`` for netglean, as the score reads it: a robots.txt that could
    not be read is unreadable even where the operator lets fetches go on then (the score cannot be
    given without it)."""
    if not obeyed:
        return "ignored"
    if robots is None or (robots.parser is None and robots.reason):
        return "unreadable"
    return "allowed" if robots.allows(url) else "disallowed"


async def gather(
    fetcher: Fetcher, readers: Readers, url: str, *, well_known: bool = False
) -> tuple[Evidence, int]:
    """The evidence of ``url``, and how many requests gathering it took."""
    counted = CountedBudget(fetcher.budget)
    spending = fetcher.spending(counted)
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    robots: Robots | None = None
    answer: RobotsResponse | None = None
    robots_error: ToolError | None = None
    try:
        robots, answer = await spending.robots_answer(url)
    except FetchError as failed:
        robots_error = failed
    verdict = (
        _verdict(robots, url, fetcher.policy.obey_robots) if robots_error is None else "unreadable"
    )
    evidence = Evidence(
        format=FORMAT,
        url=url,
        vantage="public" if fetcher.policy.obey_robots else "self",
        robots=_robots_probe(answer, f"{origin}/robots.txt", robots_error),
        robots_verdict=verdict,
        agent=None,
        browser=None,
        llms_txt=None,
        alternate=None,
        ucp=None,
        well_known={},
        max_bytes=fetcher.policy.max_bytes,
    )
    if verdict in {"disallowed", "unreadable"}:
        return evidence, counted.spent
    agent_probe, _ = await _ask(spending, url, AGENT_ACCEPT)
    evidence["agent"] = agent_probe
    evidence["browser"], _ = await _ask(spending, url, BROWSER_ACCEPT)
    silent = agent_probe["error"]
    if silent is not None and silent["code"] in {"unreachable", "timeout"}:
        # the site is not answering: asking it for more only spends the budget
        return evidence, counted.spent
    copy = await readers.run(
        read_jobs.markdown_copy, agent=agent_probe, browser=evidence["browser"], url=url
    )
    if copy is not None:
        evidence["alternate"], _ = await _ask(spending, copy, AGENT_ACCEPT)
    evidence["llms_txt"], _ = await _ask(spending, f"{origin}/llms.txt", ASSET_ACCEPT)
    evidence["ucp"], _ = await _ask(spending, f"{origin}/.well-known/ucp", ASSET_ACCEPT)
    if well_known:
        for name, (path, accept) in WELL_KNOWN.items():
            evidence["well_known"][name], _ = await _ask(spending, f"{origin}{path}", accept)
    return evidence, counted.spent


async def scan(
    fetcher: Fetcher,
    readers: Readers,
    url: str,
    table: Mapping[str, Any],
    *,
    well_known: bool = False,
) -> Scan:
    """``url`` scanned: its evidence gathered, then scored in a reader process (the score parses the
    page)."""
    evidence, requests = await gather(fetcher, readers, url, well_known=well_known)
    result = await readers.run(read_jobs.readability_score, evidence=evidence, table=table)
    return Scan(evidence, evidence_hash(evidence), result, requests)


Effort = Literal["config", "template", "engineering"]
"""What a fix asks of a site (score.EFFORTS, easiest first)."""


@dataclass(frozen=True, slots=True)
class RankedFix:
    """One check's fix across a site: the points it would gain summed over the pages short of it."""

    check: str
    dimension: str
    title: str
    effort: Effort
    fix: str
    pages: int
    points: float
    mean_points: float


def site_fixes(results: list[dict[str, Any]]) -> list[RankedFix]:
    """The fixes of a site's scored pages, one per check: the points it would gain summed over the
    pages short of it, ranked by that, then by effort, then by check."""
    first: dict[str, dict[str, Any]] = {}
    pages: dict[str, int] = {}
    points: dict[str, float] = {}
    for result in results:
        for fix in result.get("fixes", []):
            check = fix["check"]
            first.setdefault(check, fix)
            pages[check] = pages.get(check, 0) + 1
            points[check] = points.get(check, 0.0) + fix["points"]
    ranked = [
        RankedFix(
            check=check,
            dimension=fix["dimension"],
            title=fix["title"],
            effort=fix["effort"],
            fix=fix["fix"],
            pages=pages[check],
            points=round(points[check], 1),
            mean_points=round(round(points[check], 1) / pages[check], 1),
        )
        for check, fix in first.items()
    ]
    return sorted(ranked, key=lambda f: (-f.points, EFFORTS.index(f.effort), f.check))
