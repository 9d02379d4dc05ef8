"""The plain-text report of an ArsResult: every part of a scored result read in order, and a line
for a page that was not scored."""

from __future__ import annotations

import json
from typing import Any

from netglean.read.readability.report import report
from tests.support.paths import PROJECT


def _recorded() -> dict[str, Any]:
    recorded = json.loads((PROJECT / "catalog/recorded/scan_url.json").read_text())
    result: dict[str, Any] = recorded["examples"][0]["envelope"]["payload"]["result"]
    return result


def test_a_scored_result_reads_verdict_dimensions_checks_split_cost_and_ranked_fixes() -> None:
    result = _recorded()
    lines = report(result).split("\n")
    assert lines[0] == f"Agent readability of {result['url']} ({result['scale']})"
    assert (
        lines[1]
        == f"Grade {result['grade']}, {result['score']} of 100 ({result['page_kind']} page)"
    )
    checks = [check for dimension in result["dimensions"] for check in dimension["checks"]]
    for check in checks:  # each check once, in the scale's order, with its status and summary
        [line] = [
            line for line in lines if line.startswith(f"  [{check['status']}] {check['title']}: ")
        ]
        assert line.endswith(f"{check['basis']} - {check['summary']}")
    assert lines.index("Fixes, ranked:") < len(lines) - len(result["fixes"])
    fixes = lines[-len(result["fixes"]) :]
    assert [line.split(" ", 4)[3] for line in fixes] == [
        f"+{fix['points']:g}" for fix in result["fixes"]
    ]
    assert any(line.startswith("Measured: ") for line in lines) and any(
        "Context cost: HTML" in x for x in lines
    )


def test_a_page_not_scored_says_why_in_one_line() -> None:
    base = {"url": "https://a.test/", "scale": "ARS 0.1"}
    assert (
        report({**base, "outcome": "unscored", "reason": "non_2xx"}).split("\n")[1]
        == "Outcome: unscored - non 2xx."
    )
    assert "opt_out" in report({**base, "outcome": "opt_out", "reason": None}).split("\n")[1]
