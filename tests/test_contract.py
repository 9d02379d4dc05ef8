"""Contract fuzzing: every tool, through a real MCP client, against the schemas it publishes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netglean.registry import Registry, load_registry
from tests.conftest import SyncClient
from tests.contract import (
    arguments_strategy,
    assert_envelope,
    assert_matches_example,
    assert_names_argument,
    mutations,
)

TOOLS = sorted(load_registry().tools)
EXAMPLES = [(name, index) for name in TOOLS for index in range(len(load_registry().tools[name].examples))]
_FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _published(client: SyncClient) -> dict[str, Any]:
    return {tool.name: tool for tool in client.run("list_tools").tools}


def test_listing_publishes_every_tool_with_its_schemas(memory_client: SyncClient, registry: Registry) -> None:
    listed = _published(memory_client)
    assert sorted(listed) == TOOLS
    for name, tool in listed.items():
        spec = registry.tools[name]
        assert tool.input_schema == spec.input_schema
        assert tool.output_schema == spec.output_schema
        assert tool.title == spec.title and tool.annotations.read_only_hint == spec.annotations["read_only"]


@pytest.mark.parametrize("name", TOOLS)
def test_generated_valid_inputs_give_valid_envelopes(name: str, memory_client: SyncClient, registry: Registry) -> None:
    spec = registry.tools[name]
    published = _published(memory_client)[name].output_schema

    @_FUZZ
    @given(arguments_strategy(spec.input_schema))
    def check(arguments: dict[str, Any]) -> None:
        envelope = assert_envelope(memory_client.call(name, arguments), spec, published)
        # Valid input may still fail for a reason in the world (a dead host), never as a rejected or crashed call.
        assert envelope["ok"] or envelope["payload"]["error"]["code"] not in {"invalid_arguments", "internal_error"}

    check()


@pytest.mark.parametrize("name", TOOLS)
def test_arbitrary_json_arguments_never_break_the_contract(
    name: str, memory_client: SyncClient, registry: Registry
) -> None:
    spec = registry.tools[name]
    published = _published(memory_client)[name].output_schema

    @_FUZZ
    @given(st.dictionaries(st.text(max_size=12), _json, max_size=4))
    def check(arguments: dict[str, Any]) -> None:
        assert_envelope(memory_client.call(name, arguments), spec, published)

    check()


@pytest.mark.parametrize("name", TOOLS)
def test_mutated_inputs_come_back_naming_the_argument(name: str, memory_client: SyncClient, registry: Registry) -> None:
    from hypothesis import find

    spec = registry.tools[name]
    published = _published(memory_client)[name].output_schema
    base = find(arguments_strategy(spec.input_schema), lambda _: True)
    cases = list(mutations(spec, base))
    assert cases, f"{name}: no mutation applies; the input schema is too loose to test"
    for what, arguments, argument in cases:
        envelope = assert_envelope(memory_client.call(name, arguments), spec, published)
        try:
            assert_names_argument(envelope, argument)
        except AssertionError as exc:
            raise AssertionError(f"{name}, {what}: {exc}") from exc


@pytest.mark.parametrize(("name", "index"), EXAMPLES, ids=[f"{n}-{i}" for n, i in EXAMPLES])
def test_catalog_examples_hold(name: str, index: int, memory_client: SyncClient, registry: Registry) -> None:
    spec = registry.tools[name]
    example = spec.examples[index]
    envelope = assert_envelope(
        memory_client.call(name, example["arguments"]), spec, _published(memory_client)[name].output_schema
    )
    assert_matches_example(envelope, example["expect"])


@pytest.mark.parametrize("name", TOOLS)
def test_contract_holds_over_a_spawned_stdio_server(name: str, stdio_client: SyncClient, registry: Registry) -> None:
    spec = registry.tools[name]
    published = _published(stdio_client)[name].output_schema

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(arguments_strategy(spec.input_schema) | st.dictionaries(st.text(max_size=8), _json, max_size=3))
    def check(arguments: dict[str, Any]) -> None:
        assert_envelope(stdio_client.call(name, arguments), spec, published)

    check()
    for example in spec.examples:
        assert_matches_example(
            assert_envelope(stdio_client.call(name, example["arguments"]), spec, published), example["expect"]
        )


def test_unknown_tool_is_a_protocol_error(memory_client: SyncClient) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError, match="Unknown tool"):
        memory_client.call("no_such_tool", {})


def test_integral_numbers_are_integers_as_json_schema_says(memory_client: SyncClient) -> None:
    result = memory_client.call("generate_citations", {"markdown": "[a](u)", "heading": "", "first_number": 4.0})
    assert result.structured_content["payload"]["references"][0]["number"] == 4
