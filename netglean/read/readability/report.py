"""The plain-text report of a scored page: what a person (or Rebilder's clients, in its text block)
reads of an ArsResult. Derived from the result alone, so the same result always reads the same;
page-derived values (the URL, each check's summary of its evidence) travel in it, so it goes to a
model only inside an untrusted frame."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _points(value: Any) -> str:
    """Points as the result holds them: whole points as integers, else to a tenth."""
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.1f}"


def report(result: Mapping[str, Any]) -> str:
    """The result in lines: the verdict, the dimensions and their checks, the split, the context
    cost, the fixes."""
    lines = [f"Agent readability of {result['url']} ({result['scale']})"]
    if result["outcome"] == "opt_out":
        return "\n".join(
            [
                *lines,
                "Outcome: opt_out - robots.txt closes the page to assistants, so it is not scored.",
            ]
        )
    if result["outcome"] != "scored":
        return "\n".join(
            [*lines, f"Outcome: unscored - {str(result['reason']).replace('_', ' ')}."]
        )
    lines.append(f"Grade {result['grade']}, {result['score']} of 100 ({result['page_kind']} page)")
    for dimension in result["dimensions"]:
        lines += [
            "",
            f"{dimension['title']}: {_points(dimension['points'])} of {dimension['weight']}",
        ]
        lines += [
            f"  [{check['status']}] {check['title']}: {_points(check['points'])} of "
            f"{check['weight']}, {check['basis']} - {check['summary']}"
            for check in dimension["checks"]
        ]
    split = result["split"]
    lines += [
        "",
        f"Measured: {_points(split['measured']['points'])} of {split['measured']['weight']}; "
        f"heuristic: {_points(split['heuristic']['points'])} of {split['heuristic']['weight']}",
    ]
    cost = result.get("context_cost")
    if cost:
        served = (
            f"{cost['negotiated_bytes']} bytes (~{cost['negotiated_tokens']} tokens) of "
            f"{cost['negotiated_type']}"
            if cost["negotiated_bytes"] is not None
            else "no machine representation"
        )
        html = (
            f"{cost['html_bytes']} bytes (~{cost['html_tokens']} tokens)"
            if cost["html_bytes"] is not None
            else "none"
        )
        lines.append(
            f"Context cost: HTML {html}; {served}; reference {cost['reference_bytes']} bytes"
        )
    fixes = result["fixes"]
    lines += ["", "Fixes, ranked:" if fixes else "Fixes: none - every check has its points."]
    lines += [
        f"  {rank}. +{_points(fix['points'])} {fix['title']} ({fix['effort']}): {fix['fix']}"
        for rank, fix in enumerate(fixes, 1)
    ]
    return "\n".join(lines)
