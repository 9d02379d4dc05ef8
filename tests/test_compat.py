"""RTILA's names (``--compat rtila``, issue 17; its profile, catalog/profiles/rtila.yaml, since
issue 30): off by default, the lists hold netglean's names only; on, each of RTILA's tool, resource
and prompt names runs the netglean one it names (in RTILA's wire shape:
tests/seeds/test_rtila.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.fixture_site import serve
from tests.support.polling import until

RTILA_TOOLS = {
    "rtila_analyze_page": "analyze_page",
    "rtila_analyze_api_endpoint": "analyze_api_endpoint",
    "rtila_run_project": "run_project",
    "rtila_get_run_status": "get_run_status",
    "rtila_get_run_result": "get_run_result",
    "rtila_get_run_log": "get_run_log",
    "rtila_cancel_run": "cancel_run",
    "rtila_list_runs": "list_runs",
    "rtila_list_projects": "list_projects",
    "rtila_get_project": "get_project",
    "rtila_list_datasets": "list_datasets",
    "rtila_get_project_data": "get_project_data",
    "rtila_get_project_config": "get_project_config",
    "rtila_get_logs": "get_logs",
    "rtila_run_project_by_name": "run_project_by_name",
    "rtila_engine_info": "engine_info",
    "rtila_build_project": "build_project",
}
"""RTILA's names (the seed, 003_*.txt) of netglean's tools (build_project says there is no builder
here)."""
RTILA_PROMPTS = {
    f"rtila_{name}": name for name in ("build_scraper", "optimize_selector", "explain_dataset")
}
PRODUCTS = "".join(
    f'<li class="product" data-sku="s{n}"><h2>Kettle {n}</h2></li>' for n in range(3)
)
APP = Starlette(routes=[Route("/shop", lambda request: HTMLResponse(f"<ul>{PRODUCTS}</ul>"))])


@pytest.fixture(scope="module")
def rtila(registry: Registry) -> Iterator[tuple[SyncClient, str]]:
    """A server started with --compat rtila (as a flag gives it), and the shop it may read on
    127.0.0.1."""
    overrides = {
        "compat": "rtila",
        "allow_private_hosts": True,
        "host_interval": 0.0,
        "read_workers": 0,
    }
    runner = build_runner(registry, Settings.load(overrides, environ=TEST_ENVIRONMENT))
    with (
        serve(app=APP) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, f"http://127.0.0.1:{port}/shop"


def _answer(client: SyncClient, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The envelope and the text block of a call."""
    result = client.call(tool, arguments)
    return result.structured_content, result.content[0].text


def _project(client: SyncClient, name: str, url: str) -> str:
    definition = {
        "start_urls": [url],
        "strategy": "http",
        "datasets": [{"name": "products", "item_selector": "li.product", "key": "sku",
                      "properties": [{"key": "sku", "type": "attribute", "attribute": "data-sku"},
                                     {"key": "title", "selector": "h2"}]}],
    }  # fmt: skip
    saved, _ = _answer(client, "save_project", {"name": name, "definition": definition})
    assert saved["ok"], saved
    return str(saved["payload"]["project"]["project_id"])


def test_off_by_default_only_netglean_names_are_served(memory_client: SyncClient) -> None:
    tools = [tool.name for tool in memory_client.run("list_tools").tools]
    prompts = [prompt.name for prompt in memory_client.run("list_prompts").prompts]
    uris = [str(r.uri) for r in memory_client.run("list_resources").resources]
    uris += [
        t.uri_template for t in memory_client.run("list_resource_templates").resource_templates
    ]
    assert "list_projects" in tools and "build_scraper" in prompts and "netglean://runs" in uris
    assert not [name for name in tools + prompts if name.startswith("rtila")]
    assert not [uri for uri in uris if uri.startswith("rtila://")]
    with pytest.raises(MCPError, match="Unknown tool: 'rtila_list_projects'"):
        memory_client.call("rtila_list_projects", {})
    with pytest.raises(MCPError, match="Resource not found"):
        memory_client.run("read_resource", "rtila://runs")


def test_each_rtila_tool_is_listed_as_the_tool_it_names(
    rtila: tuple[SyncClient, str], registry: Registry
) -> None:
    client, _ = rtila
    listed = {tool.name: tool for tool in client.run("list_tools").tools}
    assert {
        name: wire.tool for name, wire in registry.profiles["rtila"].tools.items()
    } == RTILA_TOOLS
    assert list(listed)[: len(registry.tools)] == list(registry.tools)  # netglean's own come first
    for alias, own in RTILA_TOOLS.items():
        tool, theirs = listed[own], listed[alias]
        said = (
            f"RTILA's name for netglean's {own}, the same tool (its next steps name netglean's "
            "tools)."
        )
        assert (
            theirs.title == f"{tool.title} (RTILA's name)"
            and theirs.description == f"{said} {tool.description}"
        )
        assert theirs.annotations.model_dump(exclude={"title"}) == tool.annotations.model_dump(
            exclude={"title"}
        )


def test_a_run_started_under_rtila_names_is_netglean_run_and_reads_alike_at_both_addresses(
    rtila: tuple[SyncClient, str],
) -> None:
    """The run is netglean's run_project's (so any server of the store can resume it); the rtila://
    resources read as netglean's. RTILA's wire itself: tests/seeds/test_rtila.py."""
    client, shop = rtila
    project_id = _project(client, "run shop", shop)
    started = client.call("rtila_run_project", {"project_id": project_id}).structured_content
    run_id = started["run_id"]

    def finished() -> dict[str, Any] | None:
        status, _ = _answer(client, "get_run_status", {"run_id": run_id})
        return status if status["payload"]["run"]["status"] not in ("queued", "running") else None

    status = until(finished, f"run {run_id}")
    assert (
        status["payload"]["run"]["status"] == "succeeded"
        and status["payload"]["run"]["tool"] == "run_project"
    )
    addresses = [
        "runs",
        f"runs/{run_id}",
        "projects",
        f"projects/{project_id}",
        f"projects/{project_id}/config",
    ]
    addresses += [
        f"projects/{project_id}/datasets",
        f"projects/{project_id}/data/products",
        "engine/info",
    ]
    for theirs, ours in ((f"rtila://{address}", f"netglean://{address}") for address in addresses):
        read, own = (
            client.run("read_resource", theirs).contents[0],
            client.run("read_resource", ours).contents[0],
        )
        assert (str(read.uri), read.mime_type, read.text) == (theirs, own.mime_type, own.text)


def test_rtila_resources_and_prompts_are_listed_and_render_as_netglean(
    rtila: tuple[SyncClient, str],
) -> None:
    client, _ = rtila
    assert "rtila://runs" in {str(r.uri) for r in client.run("list_resources").resources}
    templates = {
        t.uri_template: t for t in client.run("list_resource_templates").resource_templates
    }
    assert templates["rtila://runs/{runId}"].title == "One background run (RTILA's address)"
    prompts = {prompt.name: prompt for prompt in client.run("list_prompts").prompts}
    for alias, own in RTILA_PROMPTS.items():
        assert prompts[alias].arguments == prompts[own].arguments
        assert (
            prompts[alias].description
            == f"RTILA's name for netglean's {own} prompt. {prompts[own].description}"
        )
    arguments = {"url": "https://shop.example/${goal}", "goal": "prices, $HOME"}
    theirs = client.run("get_prompt", "rtila_build_scraper", arguments)
    assert theirs.messages == client.run("get_prompt", "build_scraper", arguments).messages
    text = theirs.messages[0].content.text
    assert (
        "inspect_url with url https://shop.example/${goal}" in text
        and "What to extract: prices, $HOME" in text
    )
    with pytest.raises(MCPError, match="'rtila_explain_dataset' needs the argument 'dataset'"):
        client.run("get_prompt", "rtila_explain_dataset", {})
