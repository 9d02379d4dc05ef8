"""Contract fuzzing: every tool, through a real MCP client, against the schemas it publishes.

The fuzzing servers may reach the fuzz site on 127.0.0.1 (tests/support/fuzz_site.py) and nothing
else, so generated calls reach the success side of every tool; the catalog's examples run under the
tests' usual policy. Every run draws from one seed (tests.support.seed.SEED, printed in the report's
header and with any failure).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st

from netglean.calls.registry import Registry, load_registry
from tests.support.clients import SyncClient
from tests.support.contract import (
    JSON,
    MIN_OK_SHARE,
    NEVER_SUCCEEDS,
    Mutation,
    Tally,
    arbitrary_arguments,
    argument_schema,
    arguments_strategy,
    assert_envelope,
    assert_matches_example,
    assert_names_argument,
    assert_names_config_problem,
    config_mutations,
    mutations,
    sample,
)
from tests.support.fuzz_site import World
from tests.support.seed import REPLAY, SEED

TOOLS = sorted(load_registry().tools)
RENDERING = {"browser", "botasaurus", "browserless"}
"""The strategies that render in Chromium, by any of their names."""


def _renders(arguments: Any) -> bool:
    """Whether arguments ask for a rendering strategy anywhere (a config's own strategy too)."""
    if isinstance(arguments, dict):
        return arguments.get("strategy") in RENDERING or any(
            _renders(value) for value in arguments.values()
        )
    return isinstance(arguments, list) and any(_renders(value) for value in arguments)


def _example(name: str, index: int) -> Any:
    renders = _renders(load_registry().tools[name].examples[index]["arguments"])
    return pytest.param(name, index, id=f"{name}-{index}", marks=[pytest.mark.browser] * renders)


EXAMPLES = [
    _example(name, index)
    for name in TOOLS
    for index, example in enumerate(load_registry().tools[name].examples)
    if not example.get("recorded")  # those run on the example site: tests/test_recorded_examples.py
]
"""The catalog's own examples: those that render need Chromium (they are marked browser)."""
STDIO_TOOLS = [
    pytest.param(name, marks=pytest.mark.browser)
    if any(
        _renders(e["arguments"])
        for e in load_registry().tools[name].examples
        if not e.get("recorded")
    )
    else name
    for name in TOOLS
]
"""Every tool, over stdio; it runs its catalog examples there too, so those whose examples render
need Chromium."""
FAST, FULL = "fast", "full"
HANG_GUARD = pytest.mark.timeout(900)
"""A fuzz test's bound (pytest-timeout): only a hang passes it. The suite's 120 s ended scan_site's
400 valid inputs at 236 (132 s) at load average 20 on 2 cores."""
DEPTHS = [
    pytest.param(FAST, marks=HANG_GUARD),
    pytest.param(FULL, marks=[pytest.mark.slow, HANG_GUARD]),
]
"""Every fuzz test runs at two depths: fast, which a developer runs (-m "not slow"), and full, the
slow set, which CI runs beside it."""
VALID_EXAMPLES, ARBITRARY_EXAMPLES, STDIO_EXAMPLES = (
    {FAST: 100, FULL: 400},
    {FAST: 50, FULL: 200},
    {FAST: 15, FULL: 60},
)
"""Hypothesis examples per tool: the knob for how long the contract tests take (about 1 ms to 15 ms
a call)."""
PAST_VALIDATION = {FAST: 1, FULL: 5}
"""The fewest arbitrary calls a tool must let through to its handler, by depth: install_snippet,
whose arguments are an enum and strings held to patterns, lets 1 of the fast set's 50 through at the
default seed."""
BROWSER_TOOLS = {"interact": 30, "analyze_page": 20, "analyze_api_endpoint": 20}
"""The tools that only drive the browser, and their valid-input examples: each call opens a page in
Chromium (some 100 ms to 1 s), so they are fuzzed less, at full depth only, against a server that
has it (fuzz_browser_client)."""


def _valid(name: str, depth: str) -> Any:
    marks = [HANG_GUARD, pytest.mark.slow] if depth == FULL else [HANG_GUARD]
    return pytest.param(
        name,
        depth,
        id=f"{name}-{depth}",
        marks=marks + [pytest.mark.browser] * (name in BROWSER_TOOLS),
    )


VALID = [_valid(name, FAST) for name in TOOLS if name not in BROWSER_TOOLS] + [
    _valid(name, FULL) for name in TOOLS
]
"""The valid-input fuzz: every tool at full depth, all but the browser tools at fast depth too."""


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )


def _shown(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope["payload"], ensure_ascii=False)[:800]


def _published(client: SyncClient) -> dict[str, Any]:
    return {tool.name: tool for tool in client.run("list_tools").tools}


def test_listing_publishes_every_tool_with_its_schemas(
    memory_client: SyncClient, registry: Registry
) -> None:
    listed = _published(memory_client)
    assert sorted(listed) == TOOLS
    for name, tool in listed.items():
        spec = registry.tools[name]
        assert tool.input_schema == spec.input_schema
        assert tool.output_schema == spec.output_schema
        assert (
            tool.title == spec.title
            and tool.annotations.read_only_hint == spec.annotations["read_only"]
        )


@pytest.mark.parametrize(("name", "depth"), VALID)
def test_generated_valid_inputs_give_valid_envelopes(
    name: str, depth: str, request: pytest.FixtureRequest, fuzz_world: World, registry: Registry
) -> None:
    spec = registry.tools[name]
    fuzz_client: SyncClient = request.getfixturevalue(
        "fuzz_browser_client" if name in BROWSER_TOOLS else "fuzz_client"
    )
    published = _published(fuzz_client)[name].output_schema
    tally = Tally(f"valid inputs ({depth})", name)
    # back in this server's store, whatever a fuzzed delete_project took
    for _, saved in fuzz_world.projects:
        fuzz_client.call("save_project", saved)

    @_fuzz(BROWSER_TOOLS.get(name, VALID_EXAMPLES[depth]))
    @seed(SEED)
    @given(arguments_strategy(argument_schema(spec), fuzz_world))
    def check(arguments: dict[str, Any]) -> None:
        note(f"{REPLAY}; arguments = {arguments!r:.2000}")
        with tally.watching():
            envelope = assert_envelope(
                fuzz_client.call(name, arguments), spec, published, arguments
            )
            code = tally.record(envelope)
            # Valid input may still fail for a reason in the world (a dead host), never as a
            # rejected or crash.
            assert code not in {"invalid_arguments", "internal_error"}, _shown(envelope)

    check()
    seen = tally.codes
    if name in NEVER_SUCCEEDS:
        assert set(seen) == {"not_available"}, dict(seen)
        return
    share = seen["ok"] / sum(seen.values())
    floor = MIN_OK_SHARE[depth]
    assert share >= floor, (
        f"{name}: ok for {share:.0%} of valid inputs ({dict(seen)}), under {floor:.0%}; {REPLAY}"
    )


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name", TOOLS)
def test_arbitrary_json_arguments_never_break_the_contract(
    name: str, depth: str, fuzz_client: SyncClient, fuzz_world: World, registry: Registry
) -> None:
    """Arbitrary objects, mostly with the tool's own argument names: some reach the handler, none
    crash it."""
    spec = registry.tools[name]
    published = _published(fuzz_client)[name].output_schema
    tally = Tally(f"arbitrary JSON ({depth})", name)

    @_fuzz(ARBITRARY_EXAMPLES[depth])
    @seed(SEED)
    @given(arbitrary_arguments(argument_schema(spec), fuzz_world))
    def check(arguments: Any) -> None:
        note(f"{REPLAY}; arguments = {arguments!r:.2000}")
        with tally.watching():
            envelope = assert_envelope(
                fuzz_client.call(name, arguments), spec, published, arguments
            )
            assert tally.record(envelope) != "internal_error", _shown(envelope)

    check()
    seen = tally.codes
    past = sum(seen.values()) - seen["invalid_arguments"]
    floor = PAST_VALIDATION[depth]
    assert past >= floor, (
        f"{name}: {past} arbitrary calls got past validation, under {floor}; {REPLAY}"
    )


def _check_mutations(
    client: SyncClient, registry: Registry, name: str, cases: list[Mutation]
) -> None:
    """Every case is called; the failures are reported together (the first few in full)."""
    spec = registry.tools[name]
    published = _published(client)[name].output_schema
    failures: list[str] = []
    tally = Tally("mutations", name)
    for mutation in cases:
        try:
            envelope = assert_envelope(
                client.call(name, mutation.arguments), spec, published, mutation.arguments
            )
            tally.record(envelope)
            if mutation.config is None:
                assert_names_argument(envelope, mutation)
            else:
                assert_names_config_problem(envelope, mutation)
        except AssertionError as exc:
            failures.append(f"{mutation.what}: {exc}\n    arguments: {mutation.arguments!r:.400}")
    shown = "\n".join(failures[:8]) + (
        f"\n... and {len(failures) - 8} more" if len(failures) > 8 else ""
    )
    assert not failures, (
        f"{name}: {len(failures)} of {len(cases)} mutations not reported as they must be:\n{shown}"
    )


@pytest.mark.parametrize("name", TOOLS)
def test_mutated_inputs_come_back_naming_the_argument(
    name: str, fuzz_client: SyncClient, fuzz_world: World, registry: Registry
) -> None:
    """Unknown keys, missing required ones, wrong types, bounds, lengths, item counts, repeated
    items and enums, at the top level and inside arrays and nested objects: each is
    invalid_arguments naming its argument; each problem inside a feed config is reported at its JSON
    pointer."""
    spec = registry.tools[name]
    base = sample(argument_schema(spec), spec.input_schema.get("$defs", {}))
    cases = list(mutations(spec, base)) + list(config_mutations(spec, base, fuzz_world))
    assert cases, f"{name}: no mutation applies; the input schema is too loose to test"
    _check_mutations(fuzz_client, registry, name, cases)


@pytest.mark.parametrize(("name", "index"), EXAMPLES)
def test_catalog_examples_hold(
    name: str, index: int, memory_client: SyncClient, registry: Registry
) -> None:
    spec = registry.tools[name]
    example = spec.examples[index]
    envelope = assert_envelope(
        memory_client.call(name, example["arguments"]),
        spec,
        _published(memory_client)[name].output_schema,
        example["arguments"],
    )
    assert_matches_example(envelope, example["expect"])


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name", STDIO_TOOLS)
def test_contract_holds_over_a_spawned_stdio_server(
    name: str,
    depth: str,
    *,
    fuzz_stdio_client: SyncClient,
    stdio_client: SyncClient,
    fuzz_world: World,
    registry: Registry,
) -> None:
    spec = registry.tools[name]
    published = _published(fuzz_stdio_client)[name].output_schema
    tally = Tally(f"stdio ({depth})", name)

    @_fuzz(STDIO_EXAMPLES[depth])
    @seed(SEED)
    @given(
        arguments_strategy(argument_schema(spec), fuzz_world)
        | arbitrary_arguments(argument_schema(spec), fuzz_world)
        | st.dictionaries(st.text(max_size=8), JSON, max_size=3)
    )
    def check(arguments: dict[str, Any]) -> None:
        note(f"{REPLAY}; arguments = {arguments!r:.2000}")
        with tally.watching():
            envelope = assert_envelope(
                fuzz_stdio_client.call(name, arguments), spec, published, arguments
            )
            assert tally.record(envelope) != "internal_error", _shown(envelope)

    check()
    for example in spec.examples:  # under the tests' usual policy, as the catalog states them
        if example.get("recorded"):
            continue
        envelope = assert_envelope(
            stdio_client.call(name, example["arguments"]), spec, published, example["arguments"]
        )
        assert_matches_example(envelope, example["expect"])


def test_the_frame_check_catches_a_forged_frame(
    fuzz_client: SyncClient, fuzz_world: World, registry: Registry
) -> None:
    """The checker itself: mismatched nonces, a nonce that is not the hash of the source and the
    content, a framed payload that is not structuredContent's, a missing notice: each is refused,
    for its own reason."""
    from types import SimpleNamespace

    targets = [spec for _, spec in sorted(registry.tools.items()) if spec.origin == "target"]
    spec = next(spec for spec in targets if "url" in spec.input_schema["properties"])
    arguments = {"url": fuzz_world.pages[0]}
    result = fuzz_client.call(spec.name, arguments)
    published = _published(fuzz_client)[spec.name].output_schema
    envelope = assert_envelope(result, spec, published, arguments)
    lines = result.content[0].text.split("\n")
    nonce = lines[2].removeprefix("<<<BEGIN UNTRUSTED CONTENT ").split(" ", 1)[0]
    other = "0" * 24 if nonce != "0" * 24 else "1" * 24
    no_notice = {k: v for k, v in envelope.items() if k != "untrusted_content_notice"}
    forged = {
        "BEGIN nonce .* but END nonce": ([*lines[:-1], lines[-1].replace(nonce, other)], envelope),
        r"nonce\(source, content\)": (
            [*lines[:2], *(line.replace(nonce, other) for line in lines[2:])],
            envelope,
        ),
        "framed JSON is not the structured payload": (
            [*lines[:3], '{"forged": true}', lines[-1]],
            envelope,
        ),
        "untrusted_content_notice": (lines, no_notice),
        "not the untrusted-content notice": ([lines[0], *lines[2:]], envelope),
    }
    for reason, (forged_lines, forged_envelope) in forged.items():
        text = SimpleNamespace(type="text", text="\n".join(forged_lines))
        fake = SimpleNamespace(
            structured_content=forged_envelope, is_error=result.is_error, content=[text]
        )
        with pytest.raises(AssertionError, match=reason):
            assert_envelope(fake, spec, published, arguments)


def test_unknown_tool_is_a_protocol_error(memory_client: SyncClient) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError, match="Unknown tool"):
        memory_client.call("no_such_tool", {})


def test_integral_numbers_are_integers_as_json_schema_says(memory_client: SyncClient) -> None:
    result = memory_client.call(
        "generate_citations", {"markdown": "[a](u)", "heading": "", "first_number": 4.0}
    )
    assert result.structured_content["payload"]["references"][0]["number"] == 4
