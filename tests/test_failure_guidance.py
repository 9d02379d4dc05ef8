"""A tool's own advice after a failure comes from its catalog entry, and so do the detail fields its
failures carry beside the error (failure_payload); the runner's table says only what fits any
tool."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.errors import CODES, ERROR_CODES
from netglean.core.settings import Settings
from tests.support.catalog_copy import assert_problem, copy_project, edit, line_of

APPLY = "catalog/tools/feeds/apply_config.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def test_guidance_is_keyed_by_a_real_error_code(project: Path) -> None:
    edit(project, APPLY, "  no_items: >-", "  no_item: >-")
    assert_problem(
        project, APPLY, line_of(project, APPLY, "no_item:"), "'no_item' is not an error code"
    )


def test_guidance_names_only_real_tools(project: Path) -> None:
    edit(project, APPLY, "inspect the page with inspect_url", "inspect the page with inspect_page")
    assert_problem(
        project, APPLY, line_of(project, APPLY, "no_items:"), "'inspect_page' is no tool"
    )


def test_a_description_names_only_real_tools(project: Path) -> None:
    edit(project, APPLY, "Pagination is followed when the config asks.", "Then call check_feed.")
    assert_problem(
        project, APPLY, line_of(project, APPLY, "description:"), "'check_feed' is no tool"
    )


def test_the_registry_carries_each_tools_guidance(registry: Registry) -> None:
    apply = registry.tools["apply_config"].failure_guidance
    assert (
        set(apply) == {"invalid_config", "no_items", "not_available"}
        and "inspect_url" in apply["no_items"]
    )
    assert registry.tools["get_version"].failure_guidance == {}
    for spec in registry.tools.values():
        assert set(spec.failure_guidance) <= set(ERROR_CODES), spec.name


def test_the_generic_table_names_no_tool(registry: Registry) -> None:
    """Which tool to call instead is the catalog's to say; the runner's own sentences fit any
    tool."""
    guidance = " ".join(facts.guidance for facts in CODES.values())
    words = set(re.findall(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", guidance))
    assert not words & set(registry.tools)


def _fail(
    registry: Registry, settings: Settings, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        runner = build_runner(registry, settings)
        try:
            envelope, _ = await runner.call(name, arguments)
        finally:
            await runner.services.aclose()
        return envelope.as_dict()

    envelope = anyio.run(run)
    assert envelope["ok"] is False
    return envelope


def test_a_failure_is_guided_by_the_tools_catalog_entry_first(
    registry: Registry, settings: Settings
) -> None:
    config = {
        "channel": {"url": "https://example.org/news"},
        "selectors": {"items": {"selector": "li"}, "title": {"selector": "a"}},
        "strategy": "browserless",
    }
    without_chromium = dataclasses.replace(settings, browser_path="netglean-tests-no-such-chromium")
    refused = _fail(registry, without_chromium, "apply_config", {"config": config})
    assert refused["payload"]["error"]["code"] == "not_available"
    assert "no Chromium to render with" in refused["payload"]["error"]["message"]
    assert refused["guidance"] == registry.tools["apply_config"].failure_guidance["not_available"]
    # A code the tool says nothing about gets the table's sentence, naming the tool.
    wrong = _fail(registry, settings, "apply_config", {"config": config, "limit": 0})
    assert wrong["payload"]["error"]["code"] == "invalid_arguments"
    assert wrong["guidance"] == CODES["invalid_arguments"].guidance.format(tool="apply_config")


def test_a_failure_payload_names_detail_fields_only(project: Path) -> None:
    edit(project, APPLY, "failure_payload:\n  type: object\n  properties:\n",
         "failure_payload:\n  type: object\n"
         "  required: [item_count]\n  properties:\n    error: {type: object}\n")  # fmt: skip
    assert_problem(
        project,
        APPLY,
        line_of(project, APPLY, "required: [item_count]"),
        "states its properties only",
    )
    assert_problem(
        project,
        APPLY,
        line_of(project, APPLY, "error: {type: object}"),
        "error is the envelope's own",
    )


def test_a_failed_examples_payload_names_failure_payload_fields(project: Path) -> None:
    edit(
        project,
        APPLY,
        "      payload_includes:\n        errors:",
        "      payload_includes:\n        pages: 1\n        errors:",
    )
    assert_problem(
        project,
        APPLY,
        line_of(project, APPLY, "pages: 1"),
        "'pages' is not a failure_payload property",
    )


def test_the_published_failure_branch_holds_the_failure_payload(registry: Registry) -> None:
    apply = registry.tools["apply_config"]
    assert apply.failure_payload == (
        "item_count",
        "errors",
        "more_errors",
        "warnings",
        "more_warnings",
    )
    failed = next(
        b for b in apply.output_schema["oneOf"] if b["properties"]["ok"] == {"const": False}
    )
    assert set(failed["properties"]["payload"]["properties"]) == {
        "error",
        "item_count",
        "errors",
        "more_errors",
        "warnings",
        "more_warnings",
    }
    assert failed["properties"]["payload"]["required"] == ["error"]
    assert registry.tools["get_version"].failure_payload == ()


VALIDATE = "catalog/tools/feeds/validate_config.yaml"


def test_exactly_one_of_names_optional_arguments_of_the_tool(project: Path) -> None:
    edit(project, VALIDATE, "exactly_one_of: [[config, yaml]]", "exactly_one_of: [[config, yml]]")
    assert_problem(
        project, VALIDATE, line_of(project, VALIDATE, "exactly_one_of:"), "'yml' is no argument"
    )


def test_a_root_oneof_in_an_input_is_refused_for_exactly_one_of(project: Path) -> None:
    """Function-calling clients refuse composition at an input's root, so the catalog says it
    another way."""
    edit(project, VALIDATE, "  additionalProperties: false\noutput:",
         "  additionalProperties: false\n  oneOf:\n"
         "    - required: [config]\n    - required: [yaml]\noutput:")  # fmt: skip
    assert_problem(
        project, VALIDATE, line_of(project, VALIDATE, "  oneOf:"), "name the arguments a call gives"
    )


def test_the_runner_asks_for_exactly_one_of_each_group(
    registry: Registry, settings: Settings
) -> None:
    neither = _fail(registry, settings, "validate_config", {})
    both = _fail(registry, settings, "validate_config", {"config": {}, "yaml": "a: 1"})
    assert neither["payload"]["error"]["detail"]["errors"] == [
        {
            "argument": "",
            "pointer": "",
            "problem": "give exactly one of config or yaml; the call gives none of them",
        }
    ]
    assert both["payload"]["error"]["detail"]["errors"] == [
        {
            "argument": "yaml",
            "pointer": "/yaml",
            "problem": "give exactly one of config or yaml, not config and yaml together",
        }
    ]
    assert neither["next_step"] == both["next_step"] == "validate_config"
    # an argument problem is not a config's (payload.errors is)
    assert "errors" not in neither["payload"]


def test_without_the_browser_extra_rendering_names_the_extra_and_auto_reads_over_http(
    registry: Registry, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Playwright is the browser extra (netglean[browser]): an install without it serves every other
    tool, strategy auto reads pages over HTTP, and asking for the browser names the extra to
    install."""
    from netglean.browser import pool

    monkeypatch.setattr(
        pool.importlib.util, "find_spec", lambda name: None if name == "playwright" else object()
    )
    config = {
        "channel": {"url": "https://example.org/news"},
        "selectors": {"items": {"selector": "li"}, "title": {"selector": "a"}},
        "strategy": "browserless",
    }
    refused = _fail(registry, settings, "apply_config", {"config": config})
    assert refused["payload"]["error"]["code"] == "not_available"
    assert "pip install 'netglean[browser]'" in refused["payload"]["error"]["message"]

    async def info() -> dict[str, Any]:
        runner = build_runner(registry, settings)
        try:
            envelope, _ = await runner.call("engine_info", {})
        finally:
            await runner.services.aclose()
        return envelope.as_dict()

    assert anyio.run(info)["payload"]["browser"] is False
