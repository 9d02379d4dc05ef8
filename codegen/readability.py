"""The agent-readability scale (catalog/readability/): checked whole, then merged into the table the
runtime scores by (netglean.generated.readability.TABLE) and the docs page that explains it."""

from __future__ import annotations

from typing import Any

from codegen.errors import Collector
from codegen.yaml_source import SourceFile

TOTAL = 100
"""What a page's checks add up to: the scale is out of 100 points."""


def readability_table(
    scale: SourceFile | None, findings: SourceFile | None, out: Collector
) -> dict[str, Any]:
    """The scale and its findings as one table, after checking what the meta-schema cannot: the
    weights add up, the ids are unique, the bands cover 0 to 100 and every page kind's facts exist.
    Empty without a scale."""
    if scale is None:
        if findings is not None:
            out.add(findings, "", "findings.yaml needs catalog/readability/scale.yaml beside it")
        return {}
    data = scale.data
    seen: dict[str, str] = {}

    def claim(ident: str, where: str, source: SourceFile) -> None:
        if ident in seen:
            out.add(source, where, f"{where}: '{ident}' is already the id at {seen[ident]}")
        else:
            seen[ident] = where

    total = 0
    for d, dimension in enumerate(data["dimensions"]):
        claim(dimension["id"], f"/dimensions/{d}/id", scale)
        total += dimension["weight"]
        weights = 0
        for c, check in enumerate(dimension["checks"]):
            claim(check["id"], f"/dimensions/{d}/checks/{c}/id", scale)
            weights += check["weight"]
        if weights != dimension["weight"]:
            out.add(
                scale,
                f"/dimensions/{d}/weight",
                f"/dimensions/{d}: its checks' weights add up to {weights}, not its weight "
                f"{dimension['weight']}",
            )
    if total != TOTAL:
        out.add(scale, "/dimensions", f"/dimensions: the weights add up to {total}, not {TOTAL}")
    _check_grades(scale, out)
    for kind, entry in data["page_kinds"].items():
        for field in ("core_facts", "extended_facts"):
            for f, fact in enumerate(entry[field]):
                if fact not in data["facts"]:
                    where = f"/page_kinds/{kind}/{field}/{f}"
                    out.add(scale, where, f"{where}: '{fact}' is not a fact under /facts")
    listed = findings.data["findings"] if findings is not None else []
    for f, finding in enumerate(listed):
        assert findings is not None
        claim(finding["id"], f"/findings/{f}/id", findings)
    return {
        "name": data["name"],
        "description": data["description"],
        "grades": data["grades"],
        "outcomes": data["outcomes"],
        "facts": data["facts"],
        "page_kinds": data["page_kinds"],
        "dimensions": data["dimensions"],
        "findings": listed,
    }


def _check_grades(scale: SourceFile, out: Collector) -> None:
    grades = scale.data["grades"]
    floors = [band["min"] for band in grades]
    if floors != sorted(floors, reverse=True) or len(set(floors)) != len(floors):
        out.add(
            scale, "/grades", "/grades: the bands go from the highest floor down, each floor once"
        )
    if floors[-1] != 0:
        out.add(scale, f"/grades/{len(grades) - 1}/min", "/grades: the last band starts at 0")
    names = [band["grade"] for band in grades]
    if len(set(names)) != len(names):
        out.add(scale, "/grades", "/grades: each grade once")


def check_ids(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every check and finding by id, with the dimension a check belongs to (explain_check's
    index)."""
    found: dict[str, dict[str, Any]] = {}
    for dimension in table.get("dimensions", []):
        for check in dimension["checks"]:
            found[check["id"]] = {"kind": "check", "dimension": dimension["id"], **check}
    for finding in table.get("findings", []):
        found[finding["id"]] = {"kind": "finding", **finding}
    return found
