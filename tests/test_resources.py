"""Resources, resource templates, prompts and server identity, through the official MCP client."""

from __future__ import annotations

import json
import re

import pytest
from mcp.shared.exceptions import MCPError

from netglean.browser import pool
from netglean.calls.registry import Registry
from tests.support.clients import SyncClient


def test_server_identity_and_instructions(memory_client: SyncClient, registry: Registry) -> None:
    info = memory_client.client.server_info
    assert info is not None and info.name == "netglean" and info.version
    assert memory_client.client.instructions == registry.server.instructions


def test_resources_and_templates_are_listed(memory_client: SyncClient) -> None:
    uris = {str(r.uri) for r in memory_client.run("list_resources").resources}
    assert {"netglean://policy", "netglean://tool-graph"} <= uris
    templates = {
        t.uri_template for t in memory_client.run("list_resource_templates").resource_templates
    }
    assert "netglean://tools/{name}" in templates


def test_policy_holds_only_booleans_and_numbers(memory_client: SyncClient) -> None:
    contents = memory_client.run("read_resource", "netglean://policy").contents[0]
    assert contents.mime_type == "application/json"
    policy = json.loads(contents.text)
    assert policy["telemetry"] is False and policy["call_timeout"] > 0
    assert all(isinstance(value, bool | int | float) for value in policy.values())


def test_tool_graph_matches_the_registry(memory_client: SyncClient, registry: Registry) -> None:
    graph = json.loads(memory_client.run("read_resource", "netglean://tool-graph").contents[0].text)
    assert graph["edges"] == {name: list(spec.next_step) for name, spec in registry.tools.items()}
    assert set(graph["entry_points"]) == {
        name for name, spec in registry.tools.items() if spec.entry_point
    }


def test_tool_spec_template(memory_client: SyncClient, registry: Registry) -> None:
    spec = json.loads(
        memory_client.run("read_resource", "netglean://tools/generate_citations").contents[0].text
    )
    assert spec["input_schema"] == registry.tools["generate_citations"].input_schema
    missing = json.loads(
        memory_client.run("read_resource", "netglean://tools/nope").contents[0].text
    )
    assert "no tool named" in missing["error"] and "get_version" in missing["tools"]


def test_unknown_resource_is_a_protocol_error(memory_client: SyncClient) -> None:
    with pytest.raises(MCPError, match="Resource not found"):
        memory_client.run("read_resource", "netglean://nothing-here")


def test_prompt_listing_and_rendering(memory_client: SyncClient) -> None:
    prompts = {p.name: p for p in memory_client.run("list_prompts").prompts}
    assert [a.name for a in prompts["cite_sources"].arguments or []] == ["topic", "audience"]
    rendered = memory_client.run("get_prompt", "cite_sources", {"topic": "$HOME and ${x}"})
    text = rendered.messages[0].content.text
    assert "about: $HOME and ${x}" in text  # argument values are inserted as data, never expanded
    assert "Audience: a general reader" in text  # the declared default


def test_prompt_errors_name_the_problem(memory_client: SyncClient) -> None:
    with pytest.raises(MCPError, match="needs the argument 'topic'"):
        memory_client.run("get_prompt", "cite_sources", {})
    with pytest.raises(MCPError, match="has no argument"):
        memory_client.run("get_prompt", "cite_sources", {"topic": "x", "tone": "y"})
    with pytest.raises(MCPError, match="Unknown prompt"):
        memory_client.run("get_prompt", "nope", {})


def _json_resource(client: SyncClient, uri: str) -> tuple[str | None, object]:
    contents = client.run("read_resource", uri).contents[0]
    return contents.mime_type, json.loads(contents.text)


def test_html2rss_resources_under_their_own_addresses(memory_client: SyncClient) -> None:
    """html2rss's four resources are served as its clients read them, beside netglean's own feed
    resources."""
    uris = {str(r.uri) for r in memory_client.run("list_resources").resources}
    assert {
        "html2rss://schema",
        "html2rss://extractors",
        "html2rss://strategies",
        "html2rss://runtime",
    } <= uris
    assert {
        "netglean://feeds/config-schema",
        "netglean://feeds/extractors",
        "netglean://feeds/strategies",
    } <= uris
    mime, schema = _json_resource(memory_client, "html2rss://schema")
    assert mime == "application/json" and isinstance(schema, dict)
    assert schema == _json_resource(memory_client, "netglean://feeds/config-schema")[1]
    assert {"registry", "directory", "strategy"} <= set(schema["properties"])
    _, extractors = _json_resource(memory_client, "html2rss://extractors")
    assert extractors == ["attribute", "href", "html", "static", "text"]
    _, strategies = _json_resource(memory_client, "html2rss://strategies")
    assert strategies == ["auto", "faraday", "botasaurus"]
    _, runtime = _json_resource(memory_client, "html2rss://runtime")
    # whether Chromium is there
    assert runtime == {"botasaurus_configured": pool.find_browser("") is not None}


def test_html2rss_prompts_under_their_hyphenated_names(memory_client: SyncClient) -> None:
    prompts = {p.name: p for p in memory_client.run("list_prompts").prompts}
    assert {
        "scrape-webpage",
        "capture-feed-config",
        "feed_now",
        "feed_config_workflow",
        "cite_sources",
    } <= set(prompts)
    for name in ("scrape-webpage", "capture-feed-config"):
        [argument] = prompts[name].arguments or []
        assert (argument.name, argument.required) == ("url", True)
    scrape = memory_client.run("get_prompt", "scrape-webpage", {"url": "https://example.com/news"})
    text = scrape.messages[0].content.text
    assert (
        "scrape_url once with url https://example.com/news and strategy auto" in text
        and "inspect_url" in text
    )
    capture = memory_client.run(
        "get_prompt", "capture-feed-config", {"url": "https://example.com/news"}
    )
    steps = capture.messages[0].content.text
    order = [
        steps.index(tool)
        for tool in ("capture_config", "inspect_url", "validate_config", "apply_config")
    ]
    assert order == sorted(order) and "payload.item_count" in steps
    for key in (
        "registry.id",
        "directory.topics",
        "directory.title",
        "channel.title",
        "directory.summary",
    ):
        assert key in steps
    with pytest.raises(MCPError, match="needs the argument 'url'"):
        memory_client.run("get_prompt", "capture-feed-config", {})


@pytest.mark.parametrize(
    ("prompt", "arguments", "tools"),
    [
        ("build_scraper", {"url": "https://shop.example/"},
         ["inspect_url", "analyze_page", "save_project", "run_project", "get_project_data"]),
        ("optimize_selector", {"selector": "div > div:nth-child(3)"},
         ["analyze_page", "scrape_url"]),
        ("explain_dataset", {"dataset": "products"},
         ["list_projects", "get_project_config", "list_datasets", "get_project_data"]),
    ],
)  # fmt: skip
def test_rtilas_prompts_walk_through_netglean_tools(
    memory_client: SyncClient,
    registry: Registry,
    prompt: str,
    arguments: dict[str, str],
    tools: list[str],
) -> None:
    """RTILA's three prompts, under netglean's names: each takes the seed's arguments (the first
    required) and names netglean's tools in the order a model calls them."""
    listed = {p.name: p for p in memory_client.run("list_prompts").prompts}[prompt]
    assert [a.required for a in listed.arguments or []] == [True, False]
    text = memory_client.run("get_prompt", prompt, arguments).messages[0].content.text
    assert all(value in text for value in arguments.values())
    assert set(tools) <= set(registry.tools)
    first = [match.start() for tool in tools if (match := re.search(rf"\b{tool}\b", text))]
    assert len(first) == len(tools) and first == sorted(first), text
