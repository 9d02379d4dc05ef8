"""What the catalog defines once: fragments it inlines (published schemas stay flat) and shared
output schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen.catalog import load_catalog
from tests.support.catalog_copy import assert_problem, copy_project, edit, line_of
from tests.support.paths import PROJECT

GENERATED = PROJECT / "netglean" / "generated"
CRAWL = "catalog/tools/sites/crawl.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def _refs(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        return [str(v) for k, v in schema.items() if k == "$ref"] + [
            r for v in schema.values() for r in _refs(v)
        ]
    if isinstance(schema, list):
        return [r for v in schema for r in _refs(v)]
    return []


def test_no_published_input_schema_holds_a_ref() -> None:
    """Clients with weak $ref support get every argument spelled out: fragments are inlined, never
    referenced."""
    inputs = sorted((GENERATED / "schemas").glob("*.input.json"))
    assert len(inputs) >= 14
    for path in inputs:
        assert _refs(json.loads(path.read_text())) == [], path.name
    components = json.loads((GENERATED / "openapi.json").read_text())["components"]["schemas"]
    for name, schema in components.items():
        if name.endswith("Input"):
            assert _refs(schema) == [], name
    registry = (GENERATED / "registry.py").read_text()
    assert "x-inline" not in registry and "x-inline" not in (GENERATED / "openapi.json").read_text()


def test_a_fragment_is_inlined_whole_wherever_it_is_named() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    crawl, batch = catalog.tool("crawl").input_schema, catalog.tool("batch_crawl").input_schema
    options = [name for name in crawl["properties"] if name != "url"]
    assert (
        next(iter(crawl["properties"])) == "url" and "max_depth" in options and "format" in options
    )
    assert {name: crawl["properties"][name] for name in options} == {
        name: batch["properties"][name] for name in options
    }
    assert crawl["properties"]["url"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 4096,
        "description": "The start URL.",
    }
    assert batch["properties"]["urls"]["items"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 4096,
    }
    assert crawl["properties"]["include_patterns"]["items"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 200,
    }
    validate, apply = (
        catalog.tool("validate_config").input_schema,
        catalog.tool("apply_config").input_schema,
    )
    shared = ("config", "yaml", "parameters")
    assert {name: validate["properties"][name] for name in shared} == {
        name: apply["properties"][name] for name in shared
    }
    assert list(apply["properties"]) == [
        "config",
        "yaml",
        "parameters",
        "url",
        "format",
        "limit",
        "strategy",
    ]


def test_an_unknown_fragment_is_named_at_its_site(project: Path) -> None:
    edit(project, CRAWL, "x-inline: TargetUrl", "x-inline: TargetURL")
    assert_problem(
        project, CRAWL, line_of(project, CRAWL, "TargetURL"), "fragment 'TargetURL' not found"
    )


def test_a_site_may_add_keywords_but_not_change_a_fragments(project: Path) -> None:
    edit(
        project,
        CRAWL,
        "      x-inline: TargetUrl\n",
        "      x-inline: TargetUrl\n      maxLength: 100\n",
    )
    assert_problem(
        project,
        CRAWL,
        line_of(project, CRAWL, "maxLength: 100"),
        "fragment TargetUrl sets 'maxLength'",
    )


def test_a_property_both_define_is_an_error(project: Path) -> None:
    edit(
        project,
        CRAWL,
        "      description: The start URL.\n",
        "      description: The start URL.\n    max_depth: {type: integer}\n",
    )
    assert_problem(
        project,
        CRAWL,
        line_of(project, CRAWL, "max_depth: {type"),
        "fragment CrawlOptions defines it too",
    )


def test_fragments_that_inline_each_other_are_an_error(project: Path) -> None:
    relative = "catalog/fragments/UrlPatterns.yaml"
    edit(
        project,
        relative,
        "  items: {type: string",
        "  items: {x-inline: CrawlOptions, type: string",
    )
    assert_problem(
        project, relative, line_of(project, relative, "items:"), "fragments inline each other"
    )


def test_a_fragment_inlined_nowhere_is_an_error(project: Path) -> None:
    relative = "catalog/fragments/Spare.yaml"
    (project / relative).write_text("name: Spare\ndescription: Unused.\nschema: {type: string}\n")
    assert_problem(project, relative, 1, "fragment 'Spare' is inlined nowhere")


def test_a_fragment_is_checked_in_its_own_file(project: Path) -> None:
    relative = "catalog/fragments/TargetUrl.yaml"
    edit(project, relative, "  minLength: 1", "  minLenght: 1")
    assert_problem(
        project,
        relative,
        line_of(project, relative, "minLenght"),
        "'minLenght' is not a JSON Schema",
    )
    edit(project, relative, "name: TargetUrl", "name: TargetUrl\nsummary: typo")
    assert_problem(
        project, relative, line_of(project, relative, "summary"), "unknown key 'summary'"
    )


def test_an_input_schema_may_not_reference_a_shared_schema(project: Path) -> None:
    edit(project, CRAWL, "      x-inline: TargetUrl\n", '      $ref: "#/$defs/Reference"\n')
    assert_problem(
        project, CRAWL, line_of(project, CRAWL, "$ref"), "input schemas are published flat"
    )


def test_x_inline_stands_only_where_a_schema_does(project: Path) -> None:
    edit(
        project,
        CRAWL,
        "      description: The start URL.\n",
        "      description: The start URL.\n      examples: [{x-inline: TargetUrl}]\n",
    )
    assert_problem(
        project, CRAWL, line_of(project, CRAWL, "examples:"), "stands only where a schema does"
    )


def _resolved(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def test_every_page_a_tool_returns_is_the_page_scrape_returns() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    page = catalog.shared["ScrapedPage"]
    scrape = catalog.tool("scrape").payload_schema
    assert _resolved(scrape, scrape["$defs"]) == page
    batch = catalog.tool("batch_scrape").payload_schema
    entry = batch["properties"]["results"]["items"]["properties"]
    assert _resolved(entry["page"], batch["$defs"]) == page
    for name in ("crawl", "batch_crawl"):
        payload = catalog.tool(name).payload_schema
        crawl = _resolved(payload, payload["$defs"])
        if name == "batch_crawl":
            crawl = _resolved(crawl["properties"]["crawls"]["items"], payload["$defs"])
        visit = crawl["properties"]["pages"]["items"]["properties"]
        assert _resolved(visit["page"], payload["$defs"]) == page, name


def test_every_per_item_error_has_one_shape() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    error = catalog.shared["ItemError"]
    assert (
        error["required"] == ["code", "message", "retryable"]
        and error["additionalProperties"] is False
    )
    assert error["properties"]["message"]["x-untrusted"] is True
    crawl = catalog.shared["SiteCrawl"]
    batch = catalog.tool("batch_scrape").payload_schema["properties"]["results"]["items"]
    for where in (
        batch["properties"]["error"],
        crawl["properties"]["error"],
        crawl["properties"]["pages"]["items"]["properties"]["error"],
        catalog.shared["FetchView"]["properties"]["error"],
    ):
        assert where["$ref"] == "#/$defs/ItemError"


def test_a_batch_page_is_validated_field_by_field() -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((GENERATED / "schemas/batch_scrape.output.json").read_text())
    schema["oneOf"][0]["properties"]["payload"]["$defs"] = schema["$defs"]
    payload = schema["oneOf"][0]["properties"]["payload"]
    page = {
        "url": "https://example.org/",
        "final_url": "https://example.org/",
        "status": 200,
        "format": "markdown",
        "content": "Hello",
        "start_index": 0,
        "total_chars": 5,
        "metadata": {"title": "Hello"},
        "cost": {"bytes": 5, "chars": 5, "approx_tokens": 2},
    }
    good = {
        "results": [{"url": page["url"], "ok": True, "page": page}],
        "succeeded": 1,
        "failed": 0,
    }
    assert Draft202012Validator(payload).is_valid(good)
    for broken in (
        {**page, "format": "pdf"},
        {k: v for k, v in page.items() if k != "content"},
        {**page, "x": 1},
    ):
        bad = {**good, "results": [{"url": page["url"], "ok": True, "page": broken}]}
        assert not Draft202012Validator(payload).is_valid(bad), broken


def test_an_object_title_names_its_model_and_may_not_collide(project: Path) -> None:
    relative = "catalog/tools/pages/batch_scrape.yaml"
    edit(project, relative, "title: BatchEntry", "title: ScrapedPage")
    assert_problem(
        project, relative, line_of(project, relative, "title: ScrapedPage"), "names a model"
    )
