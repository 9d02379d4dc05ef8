"""The agent-readability score of one scan's evidence: an outcome, and when scored, 22 checks, a grade and ranked fixes.

``score`` is pure (no I/O, no clock, no randomness): the same evidence and table give the same result, byte
for byte (``json.dumps(result, sort_keys=True)``), every number rounded to a tenth. The outcome is decided in
a fixed order before any check runs:

1. opt_out: robots.txt (readable) disallows the page to every assistant agent (checks.ASSISTANTS);
2. unscored, the first that holds: robots_unavailable, robots_disallows_scanner, then, when neither page probe
   got a usable answer (2xx, not a bot wall), the first of unreachable, too_many_redirects, truncated_evidence,
   non_2xx, blocked_at_edge that either probe's answer gives;
3. else scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from netglean.read.readability.checks import (
    CHECKS,
    DIMENSIONS,
    assistant_verdicts,
    context_cost,
    robots_rules,
)
from netglean.read.readability.evidence import Evidence, Probe, evidence_hash, media_type
from netglean.read.readability.findings import findings
from netglean.read.readability.page import TEXT_TYPES, Page, ok, probe_problem, read_page

FORMAT = "netglean.ars/1"
SILENT = frozenset({"unreachable"})
"""A robots.txt read that failed so means the site is not there (one that timed out is robots_unavailable)."""
PAGE_REASONS = ("unreachable", "too_many_redirects", "truncated_evidence", "non_2xx", "blocked_at_edge")
"""The page's unscored reasons in the order they are given when the two probes fail differently."""
EFFORTS = ("config", "template", "engineering")
"""Fixes of equal points rank cheapest first."""


def tokens(chars: int) -> int:
    """netglean's token estimate: (characters + 3) // 4."""
    return (chars + 3) // 4


def grade_of(value: int, grades: Sequence[Mapping[str, Any]]) -> str:
    """The grade of a score: the first band (highest first) whose floor it reaches; a floor is in its band."""
    return str(next(band["grade"] for band in grades if value >= band["min"]))


def score(evidence: Evidence, table: Mapping[str, Any]) -> dict[str, Any]:
    """The result of ``evidence`` on the readability scale ``table`` (the catalog's, as generated)."""
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
        "findings": findings(evidence, table),
    }
    rules = robots_rules(evidence)
    if rules is not None and not any(assistant_verdicts(rules, evidence["url"]).values()):
        result["outcome"] = "opt_out"
        return result
    probes = {"agent": evidence["agent"], "browser": evidence["browser"]}
    problems = _problems(probes)
    reason = unscored_reason(evidence, rules, problems)
    if reason is not None:
        result["reason"] = reason
        return result
    usable = {name: probes[name] for name, problem in problems.items() if problem is None}
    page = read_page(evidence, usable.get("agent"), usable.get("browser"))
    _scored(result, page, evidence, table)
    return result


def unscored_reason(evidence: Evidence, rules: str | None, problems: Mapping[str, str | None]) -> str | None:
    """Why the evidence cannot be scored, or None: from robots.txt's text ``rules`` (as checks.robots_rules reads
    them) and what is wrong with each page probe that was asked (``problems``, by probe: page.probe_problem's)."""
    robots_error = evidence["robots"]["error"] if evidence["robots"] is not None else None
    if robots_error is not None and robots_error["code"] in SILENT:
        return "unreachable"  # the site gave no answer at all, robots.txt's included
    if evidence["robots_verdict"] != "ignored" and (rules is None or evidence["robots_verdict"] == "unreadable"):
        return "robots_unavailable"  # where the operator ignores robots.txt, what it says does not decide
    if evidence["robots_verdict"] == "disallowed":
        return "robots_disallows_scanner"
    if not problems:
        return "unreachable"
    if None in problems.values():
        return None
    return min((r for r in problems.values() if r is not None), key=PAGE_REASONS.index)


def _problems(probes: Mapping[str, Probe | None]) -> dict[str, str | None]:
    """page.probe_problem of each probe asked; a server that ignores Accept sends the same answer twice, and its
    bot-wall search (the costliest part of the judgement) is run once."""
    asked = {name: probe for name, probe in probes.items() if probe is not None}
    judged: dict[str, str | None] = {}
    for name, probe in asked.items():
        twin = next((earlier for earlier in judged if _same_answer(asked[earlier], probe)), None)
        judged[name] = judged[twin] if twin is not None else probe_problem(probe)
    return judged


def _same_answer(a: Probe, b: Probe) -> bool:
    keys = ("final_url", "status", "error", "headers", "body")
    return all(a[key] == b[key] for key in keys)  # type: ignore[literal-required]


def _agrees(table: Mapping[str, Any]) -> None:
    """The table's dimensions and checks are the ones implemented, with the same weights (else its rules lie)."""
    declared = {d["id"]: {c["id"]: c["weight"] for c in d["checks"]} for d in table["dimensions"]}
    if declared != DIMENSIONS:
        raise ValueError("the readability table's checks or weights are not the ones score() implements")


def _scored(result: dict[str, Any], page: Page, evidence: Evidence, table: Mapping[str, Any]) -> None:
    reference = int(table["page_kinds"][page.kind]["reference_bytes"])
    tenths = {"measured": [0, 0], "heuristic": [0, 0]}  # weight, points in tenths: sums without float noise
    fixes = []
    for dimension in table["dimensions"]:
        checks, dimension_tenths = [], 0
        for check in dimension["checks"]:
            weight = check["weight"]
            verdict = (
                context_cost(page, evidence, reference)
                if check["id"] == "context_cost"
                else CHECKS[check["id"]](page, evidence)
            )
            earned = round(weight * 10 * min(1.0, max(0.0, verdict.share)))
            points = earned / 10
            status = "pass" if earned == weight * 10 else "fail" if earned == 0 else "partial"
            checks.append(
                {
                    "id": check["id"],
                    "title": check["title"],
                    "weight": weight,
                    "points": points,
                    "basis": check["basis"],
                    "status": status,
                    "summary": verdict.summary,
                    "evidence": verdict.evidence,
                }
            )
            dimension_tenths += earned
            tenths[check["basis"]][0] += weight
            tenths[check["basis"]][1] += earned
            if earned < weight * 10:
                fixes.append(
                    {
                        "check": check["id"],
                        "dimension": dimension["id"],
                        "title": check["title"],
                        "points": (weight * 10 - earned) / 10,
                        "effort": check["effort"],
                        "fix": check["fix"],
                    }
                )
        result["dimensions"].append(
            {
                "id": dimension["id"],
                "title": dimension["title"],
                "weight": dimension["weight"],
                "points": dimension_tenths / 10,
                "checks": checks,
            }
        )
    total = sum(t[1] for t in tenths.values())
    value = (total + 5) // 10  # half up, in tenths
    fixes.sort(key=lambda fix: (-fix["points"], EFFORTS.index(fix["effort"]), fix["check"]))
    result.update(
        outcome="scored",
        score=value,
        grade=grade_of(value, table["grades"]),
        page_kind=page.kind,
        split={basis: {"weight": w, "points": p / 10} for basis, (w, p) in tenths.items()},
        context_cost=_context_cost(page, evidence, reference),
        fixes=fixes,
    )


def _context_cost(page: Page, evidence: Evidence, reference: int) -> dict[str, Any]:
    html_probe = page.html_probe
    negotiated: Probe | None = None
    if page.agent_type in TEXT_TYPES:
        negotiated = evidence["agent"]
    elif ok(evidence["alternate"]):
        negotiated = evidence["alternate"]
    return {
        "html_bytes": html_probe["bytes"] if html_probe is not None else None,
        "html_tokens": tokens(len(html_probe["body"])) if html_probe is not None else None,
        "negotiated_bytes": negotiated["bytes"] if negotiated is not None else None,
        "negotiated_tokens": tokens(len(negotiated["body"])) if negotiated is not None else None,
        "negotiated_type": media_type(negotiated) or None if negotiated is not None else None,
        "reference_bytes": reference,
    }
