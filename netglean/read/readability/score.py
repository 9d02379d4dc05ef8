"""The agent-readability score of one scan's evidence (ARS 0.3): an outcome, and when scored, 22
checks, a grade and ranked fixes.

``score`` is pure (no I/O, no clock, no randomness): the same evidence and table give the same
result, byte for byte (``json.dumps(result, sort_keys=True)``). Points are whole numbers, as ARS's
are. The outcome is decided in a fixed order before any check runs:

1. unscored, unreachable: robots.txt's request got no answer at all (the site is not there);
2. unscored, robots_unavailable: robots.txt could not be read (where robots.txt is obeyed);
3. opt_out: robots.txt disallows the page to the assistants by a group naming them, in a clean
   file (robots_policy.Policy.opt_out);
4. unscored, robots_disallows_scanner: robots.txt disallows the page to netglean itself;
5. unscored, from the agent's answer: a failure (unreachable, too_many_redirects,
   truncated_evidence), 401, 403, 429 or a bot wall (blocked_at_edge), another status but 2xx
   (non_2xx), more than 3 redirects (too_many_redirects), or a browser answer past the body cap
   (truncated_evidence);
6. else scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from netglean.read.readability.checks import CHECKS, DIMENSIONS, MAX_REDIRECTS, UNLOCKS, Verdict
from netglean.read.readability.evidence import Evidence, Probe, evidence_hash
from netglean.read.readability.findings import findings
from netglean.read.readability.page import Page, has_response, probe_problem, read_page
from netglean.read.readability.robots_policy import Policy, policy

FORMAT = "netglean.ars/2"
SILENT = frozenset({"unreachable"})
"""A robots.txt read that failed so means the site is not there (one that timed out is
robots_unavailable)."""
EFFORTS = ("config", "template", "engineering")
"""Fixes of equal points rank cheapest first."""
FLAGS = (
    "substance_divergence",
    "structured_data_divergence",
    "robots_contradiction",
    "paywalled",
    "render_dependent",
    "training_opt_out",
    "vary_missing",
    "canonical_mismatch",
)
"""Every flag a result can carry, in the order they are listed (ARS's)."""


def tokens(chars: int) -> int:
    """netglean's token estimate: (characters + 3) // 4."""
    return (chars + 3) // 4


def grade_of(value: int, grades: Sequence[Mapping[str, Any]]) -> str:
    """The grade of a score: the first band (highest first) whose floor it reaches; a floor is in
    its band."""
    return str(next(band["grade"] for band in grades if value >= band["min"]))


def robots_rules(evidence: Evidence) -> str | None:
    """The robots.txt text rules are read from: its body on 2xx, None (no rules: allow all) on 4xx;
    None too when it is unreadable, which unscored_reason tells apart."""
    robots = evidence["robots"]
    if robots is None or robots["error"] is not None or robots["status"] is None:
        return None
    return robots["body"] if 200 <= robots["status"] < 300 else None


def readable(evidence: Evidence) -> bool:
    """Whether robots.txt said something the score can read: a 2xx or a 4xx (no rules)."""
    robots = evidence["robots"]
    if robots is None or robots["error"] is not None or robots["status"] is None:
        return False
    return 200 <= robots["status"] < 300 or 400 <= robots["status"] < 500


def score(evidence: Evidence, table: Mapping[str, Any]) -> dict[str, Any]:
    """The result of ``evidence`` on the readability scale ``table`` (the catalog's, as
    generated)."""
    _agrees(table)
    result: dict[str, Any] = {
        "format": FORMAT,
        "scale": table["name"],
        "url": evidence["url"],
        "evidence_hash": evidence_hash(evidence),
        "outcome": "unscored",
        "reason": None,
        "grade": None,
        "score": None,
        "page_kind": None,
        "dimensions": [],
        "split": {"measured": {"weight": 0, "points": 0}, "heuristic": {"weight": 0, "points": 0}},
        "context_cost": None,
        "fixes": [],
        "flags": [],
        "findings": findings(evidence, table),
    }
    said = policy(robots_rules(evidence), urlsplit(evidence["url"]).path or "/")
    if readable(evidence) and said.training.decision == "disallow":
        result["flags"].append(_training_flag())
    reason = unscored_reason(evidence, said)
    if reason == "opt_out":
        result["outcome"] = "opt_out"
        return result
    if reason is not None:
        result["reason"] = reason
        return result
    agent, browser = evidence["agent"], evidence["browser"]
    assert agent is not None  # unscored_reason saw to it
    page = read_page(evidence, agent, browser if has_response(browser) else None, said, table)
    _scored(result, page, evidence, table)
    return result


def unscored_reason(evidence: Evidence, said: Policy) -> str | None:
    """Why the evidence gets no grade ("opt_out", or an unscored reason), or None."""
    robots_error = evidence["robots"]["error"] if evidence["robots"] is not None else None
    if robots_error is not None and robots_error["code"] in SILENT:
        return "unreachable"  # the site gave no answer at all, robots.txt's included
    verdict = evidence["robots_verdict"]
    if verdict != "ignored" and (not readable(evidence) or verdict == "unreadable"):
        return "robots_unavailable"  # where the operator ignores robots.txt, it does not decide
    if said.opt_out:
        return "opt_out"
    if verdict == "disallowed":
        return "robots_disallows_scanner"
    agent = evidence["agent"]
    if agent is None:
        return "unreachable"
    problem = probe_problem(agent)
    if problem is not None:
        return problem
    if len(agent["redirects"]) > MAX_REDIRECTS:
        return "too_many_redirects"
    browser = evidence["browser"]
    if (
        browser is not None
        and browser["error"] is not None
        and browser["error"]["code"] == "too_large"
    ):
        return "truncated_evidence"
    return None


def _training_flag() -> dict[str, str]:
    return {
        "id": "training_opt_out",
        "severity": "info",
        "summary": "robots.txt blocks AI training crawlers and lets assistants in: that does not "
        "change the score.",
    }


def _agrees(table: Mapping[str, Any]) -> None:
    """The table's dimensions and checks are the ones implemented, with the same weights (else its
    rules lie)."""
    declared = {d["id"]: {c["id"]: c["weight"] for c in d["checks"]} for d in table["dimensions"]}
    if declared != DIMENSIONS:
        raise ValueError(
            "the readability table's checks or weights are not the ones score() implements"
        )


def _scored(
    result: dict[str, Any], page: Page, evidence: Evidence, table: Mapping[str, Any]
) -> None:
    split = {"measured": [0, 0], "heuristic": [0, 0]}
    verdicts: dict[str, tuple[dict[str, Any], dict[str, Any], Verdict]] = {}
    for dimension in table["dimensions"]:
        checks = []
        for check in dimension["checks"]:
            verdict = CHECKS[check["id"]](page, evidence)
            weight = check["weight"]
            points = min(weight, max(0, verdict.points))
            checks.append(
                {
                    "id": check["id"],
                    "title": check["title"],
                    "weight": weight,
                    "points": points,
                    "basis": check["basis"],
                    "status": "pass" if points == weight else "fail" if points == 0 else "partial",
                    "summary": verdict.summary,
                    "evidence": verdict.evidence,
                }
            )
            split[check["basis"]][0] += weight
            split[check["basis"]][1] += points
            verdicts[check["id"]] = (dimension, check, verdict)
        result["dimensions"].append(
            {
                "id": dimension["id"],
                "title": dimension["title"],
                "weight": dimension["weight"],
                "points": sum(check["points"] for check in checks),
                "checks": checks,
            }
        )
    value = sum(points for _, points in split.values())
    earned = {c["id"]: c["points"] for d in result["dimensions"] for c in d["checks"]}
    result.update(
        outcome="scored",
        score=value,
        grade=grade_of(value, table["grades"]),
        page_kind=page.profile.kind,
        split={basis: {"weight": w, "points": p} for basis, (w, p) in split.items()},
        context_cost=_context_cost(page),
        fixes=fixes(verdicts, earned, result["dimensions"]),
        flags=sorted(
            [*result["flags"], *_page_flags(page, evidence)], key=lambda f: FLAGS.index(f["id"])
        ),
    )


def fixes(
    verdicts: Mapping[str, tuple[dict[str, Any], dict[str, Any], Verdict]],
    earned: Mapping[str, int],
    dimensions: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The fixes, ranked: one per check short of its points, each worth what applying it alone
    gains. A check that cannot earn while another is short is no fix of its own: it is listed under
    the fix that unlocks it (``unlocks``), whose points include it. Ranked by those points, then the
    cheapest effort, then the scale's order; a check is claimed by the first fix that lists it."""
    order = list(verdicts)
    weight = {ident: check["weight"] for ident, (_, check, _) in verdicts.items()}
    gap = {ident: weight[ident] - earned[ident] for ident in verdicts}
    ranked = []
    for index, (ident, (_, check, _)) in enumerate(verdicts.items()):
        opens = UNLOCKS[ident](earned) if gap[ident] > 0 and ident in UNLOCKS else ()
        raw = gap[ident] + sum(gap[other] for other in opens)
        if raw > 0:
            ranked.append((-raw, EFFORTS.index(check["effort"]), index, ident, opens))
    ranked.sort()
    room = {d["id"]: d["weight"] - d["points"] for d in dimensions}
    claimed: set[str] = set()
    listed = []
    for _, _, _, ident, opens in ranked:
        dimension, check, verdict = verdicts[ident]
        points, unlocked = 0, []
        for other in (ident, *opens):
            owner = verdicts[other][0]["id"]
            value = min(gap[other], room[owner])
            if other in claimed or value <= 0:
                continue
            claimed.add(other)
            room[owner] -= value
            points += value
            if other != ident:
                unlocked.append(other)
        if points:
            listed.append(
                {
                    "check": ident,
                    "dimension": dimension["id"],
                    "title": check["title"],
                    "points": points,
                    "effort": check["effort"],
                    "fix": verdict.fix or check["fix"],
                    "unlocks": sorted(unlocked, key=order.index),
                }
            )
    return listed


def _page_flags(page: Page, evidence: Evidence) -> list[dict[str, str]]:
    flags = list(page.flags)
    paywall = _paywall(page, evidence["agent"])
    if paywall is not None:
        flags.append(
            {
                "id": "paywalled",
                "severity": "info",
                "summary": f"The page says it is behind a paywall ({paywall}): what was shown is "
                "scored.",
            }
        )
    return flags


def _paywall(page: Page, agent: Probe | None) -> str | None:
    """A paywall the page declares: WWW-Authenticate, or JSON-LD isAccessibleForFree false."""
    if agent is not None and "www-authenticate" in agent["headers"]:
        return "WWW-Authenticate"
    for node in page.structural.ld.nodes if page.structural is not None else ():
        if node.value.get("isAccessibleForFree") in (False, "False", "false"):
            return "isAccessibleForFree: false"
    return None


def _context_cost(page: Page) -> dict[str, Any]:
    html = page.structural or page.agent
    negotiated = page.agent if page.negotiated else None
    if negotiated is None and page.linked is not None and page.linked.status == "checked":
        negotiated = page.linked.rep
    return {
        "html_bytes": html.bytes,
        "html_tokens": tokens(len(html.body)),
        "negotiated_bytes": negotiated.bytes if negotiated is not None else None,
        "negotiated_tokens": tokens(len(negotiated.body)) if negotiated is not None else None,
        "negotiated_type": negotiated.media_type or None if negotiated is not None else None,
        "reference_bytes": page.profile.reference,
    }
