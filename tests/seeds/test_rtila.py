"""RTILA's MCP contract (the seed, /work/shared/seeds/003), held by `netglean mcp --compat rtila`
as RTILA's own clients read it: the official MCP client, once over stdio and once over
streamable HTTP, reading only what the seed documents (the structuredContent fields it names,
JSON-RPC errors for arguments its schema refuses), over every tool, argument and error row of
its tool catalog, its resources and prompts. The server is started as an RTILA user starts
RTILA's, with --project-id and --session-id; a fixture shop on 127.0.0.1 is what it reads."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.fixture_site import serve
from tests.support.httpserver import HttpServer
from tests.support.polling import until

PROJECT_ID = "7e1a5c0f3b2d4e6f8091a2b3c4d5e6f7"
"""The project the server is started with (--project-id), saved by the first test that needs it."""
SESSION_ID = "rtila-session-1"
TOOLS = {
    f"rtila_{name}"
    for name in (
        "analyze_page",
        "analyze_api_endpoint",
        "run_project",
        "run_project_by_name",
        "build_project",
        "get_run_status",
        "get_run_result",
        "get_run_log",
        "cancel_run",
        "list_runs",
        "list_projects",
        "get_project",
        "get_project_config",
        "list_datasets",
        "get_project_data",
        "get_logs",
        "engine_info",
    )
}
TEMPLATES = {"rtila://runs/{runId}"} | {
    f"rtila://projects/{{projectId}}{below}"
    for below in ("", "/config", "/datasets", "/data/{dataset}")
}
PRODUCTS = "".join(
    f'<li class="product" data-sku="s{n}"><h2>Kettle {n}</h2><a href="/p/{n}">more</a></li>'
    for n in range(3)
)


async def shop(request: Request) -> Response:
    return HTMLResponse(
        f"<html><head><title>Shop</title></head><body><ul>{PRODUCTS}</ul></body></html>"
    )


async def api(request: Request) -> Response:
    return JSONResponse(
        {"items": [{"id": n, "name": f"Kettle {n}"} for n in range(3)], "next": "/api?page=2"}
    )


async def slow(request: Request) -> Response:
    time.sleep(3)  # a page that keeps a run working long enough to be cancelled
    return HTMLResponse(f"<ul>{PRODUCTS}</ul>")


APP = Starlette(routes=[Route("/shop", shop), Route("/api", api), Route("/slow/{n}", slow)])


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    with serve(app=APP) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module", params=["stdio", "http"])
def rtila(
    request: pytest.FixtureRequest, origin: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SyncClient]:
    """RTILA's client of `netglean mcp --compat rtila --project-id … --session-id …`."""
    flags = ["--compat", "rtila", "--project-id", PROJECT_ID, "--session-id", SESSION_ID]
    env = {
        **TEST_ENVIRONMENT,
        "NETGLEAN_DATA_DIR": str(tmp_path_factory.mktemp(f"rtila-{request.param}")),
        "NETGLEAN_ALLOW_PRIVATE_HOSTS": "1",
        "NETGLEAN_HOST_INTERVAL": "0",
        "NETGLEAN_READ_WORKERS": "0",
    }
    if request.param == "stdio":
        command = [sys.executable, "-m", "netglean", "mcp", "--transport", "stdio", *flags]
        params = StdioServerParameters(
            command=command[0], args=command[1:], env=env, cwd=str(Path.cwd())
        )
        with open_client(params) as client:
            _save_project(client, origin)
            yield client
        return
    with HttpServer(*flags, env=env, command=("mcp", "--transport", "http")) as server:
        transport = streamable_http_client(
            f"{server.base}/mcp", http_client=httpx2.AsyncClient(timeout=60)
        )
        with open_client(transport) as client:
            _save_project(client, origin)
            yield client


def _save_project(client: SyncClient, origin: str) -> None:
    """The server's default project (RTILA's builder records one; netglean's save_project here)."""
    definition = {
        "start_urls": [f"{origin}/shop"],
        "strategy": "http",
        "datasets": [{"name": "products", "item_selector": "li.product", "key": "sku",
                      "properties": [
            {"key": "sku", "type": "attribute", "attribute": "data-sku"},
            {"key": "title", "type": "text", "selector": "h2"},
        ]}],
    }  # fmt: skip
    saved = client.call(
        "save_project", {"name": "kettles", "project_id": PROJECT_ID, "definition": definition}
    )
    assert saved.structured_content["ok"], saved.structured_content
    slow = {**definition, "start_urls": [f"{origin}/slow/{n}" for n in range(20)]}
    assert client.call(
        "save_project", {"name": "slow kettles", "definition": slow}
    ).structured_content["ok"]


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What RTILA's client reads of a call that succeeds: its structuredContent."""
    result = client.call(tool, arguments)
    assert result.is_error is False, result.content[0].text
    answer: dict[str, Any] = result.structured_content
    return answer


def _ended(client: SyncClient, run_id: str) -> dict[str, Any]:
    """Poll rtila_get_run_status as the seed's async contract says, until the run is not running."""
    return until(
        lambda: (
            (s := _call(client, "rtila_get_run_status", {"run_id": run_id}))["status"] != "running"
            and s
        ),
        f"run {run_id} to end",
        bound=180,
    )


# The catalog -------------------------------------------------------------------------------------


def test_rtilas_tools_resources_and_prompts_are_listed_under_its_names(rtila: SyncClient) -> None:
    tools = {tool.name: tool for tool in rtila.run("list_tools").tools}
    assert set(tools) >= TOOLS
    assert tools["rtila_list_runs"].input_schema.get("properties", {}) == {}  # no arguments
    page = tools["rtila_analyze_page"].input_schema["properties"]
    assert (
        page["wait"]["default"],
        page["timeout_ms"]["default"],
        page["full_response"]["default"],
    ) == (
        False,
        300000,
        False,
    )
    assert {"settings", "browser_profile_config", "show_instance"} <= set(page)
    run = tools["rtila_run_project"].input_schema
    assert run["properties"]["timeout_ms"]["default"] == 1800000 and "project_id" not in run.get(
        "required", []
    )
    optional = {
        "session_id",
        "variables",
        "resume",
        "retry_failed",
        "browser_profile_id",
        "output_dir",
    }
    assert optional | {"browser_executable_path"} <= set(run["properties"])
    assert tools["rtila_run_project_by_name"].input_schema["required"] == ["name"]
    assert tools["rtila_get_run_log"].input_schema["properties"]["tail_chars"]["default"] == 8000
    data = tools["rtila_get_project_data"].input_schema
    assert data["required"] == ["dataset"] and data["properties"]["per_page"]["default"] == 50
    assert (
        data["properties"]["per_page"]["maximum"] == 200
        and data["properties"]["sort"]["default"] == "-created"
    )
    projects = tools["rtila_list_projects"].input_schema["properties"]
    assert (projects["per_page"]["default"], projects["sort"]["default"]) == (50, "-updated")
    assert {"WARN", "ERROR", "CRITICAL"} <= set(
        tools["rtila_get_logs"].input_schema["properties"]["level"]["enum"]
    )
    templates = {t.uri_template for t in rtila.run("list_resource_templates").resource_templates}
    assert templates >= TEMPLATES
    assert {"rtila://projects", "rtila://runs", "rtila://engine/info"} <= {
        str(r.uri) for r in rtila.run("list_resources").resources
    }
    prompts = {p.name: p for p in rtila.run("list_prompts").prompts}
    assert {"rtila_build_scraper", "rtila_optimize_selector", "rtila_explain_dataset"} <= set(
        prompts
    )


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        (
            "rtila_list_projects",
            {"per_page": "50"},
            "per_page",
        ),  # an integer argument must be a JSON integer
        (
            "rtila_list_projects",
            {"per_pag": 50},
            "per_pag",
        ),  # a typo'd name is an error, not a no-op
        (
            "rtila_get_project_data",
            {"dataset": "products", "per_page": 201},
            "per_page",
        ),  # at most 200
        ("rtila_get_run_status", {}, "run_id"),
        ("rtila_list_runs", {"page": 2}, "page"),  # no arguments
        (
            "rtila_analyze_page",
            {"url": "http://127.0.0.1/", "show_instance": "yes"},
            "show_instance",
        ),
    ],
)
def test_arguments_the_schema_refuses_are_a_json_rpc_invalid_params_naming_them(
    rtila: SyncClient, tool: str, arguments: dict[str, Any], named: str
) -> None:
    with pytest.raises(MCPError) as refused:
        rtila.call(tool, arguments)
    assert refused.value.error.code == -32602 and named in refused.value.error.message


# Browser tools (async) ---------------------------------------------------------------------------


@pytest.mark.browser
def test_analyze_page_answers_a_run_id_at_once_and_the_run_tools_follow_it(
    rtila: SyncClient, origin: str
) -> None:
    started = _call(
        rtila,
        "rtila_analyze_page",
        {"url": f"{origin}/shop", "settings": {"humanoidEnabled": True}, "show_instance": False},
    )
    assert started["status"] == "running" and len(started["run_id"]) == 32
    # named, never silent
    assert "settings" in started["guidance"] and "show_instance" in started["guidance"]
    status = _ended(rtila, started["run_id"])
    assert status["status"] == "succeeded", status
    assert (status["exit_code"], status["run_id"]) == (0, started["run_id"])
    assert status["started_at"] and status["ended_at"] and isinstance(status["meta"], dict)
    assert "stderr_tail" not in status  # present when the run failed
    result = _call(rtila, "rtila_get_run_result", {"run_id": started["run_id"]})
    assert result["result_available"] is True and result["stdout_truncated"] is False
    assert result["result"]["item_selectors"][0]["count"] == 3
    log = _call(rtila, "rtila_get_run_log", {"run_id": started["run_id"], "tail_chars": 100})
    assert (
        isinstance(log["stdout"], str)
        and isinstance(log["stderr"], str)
        and len(log["stdout"]) <= 100
    )
    runs = _call(rtila, "rtila_list_runs", {})["runs"]
    assert started["run_id"] in {run["run_id"] for run in runs}
    assert {run["status"] for run in runs} <= {"running", "succeeded", "failed"}


@pytest.mark.browser
def test_analyze_api_endpoint_with_wait_answers_its_report_inline(
    rtila: SyncClient, origin: str
) -> None:
    report = _call(
        rtila,
        "rtila_analyze_api_endpoint",
        {"url": f"{origin}/api", "wait": True, "timeout_ms": 120000},
    )
    assert report["status"] == 200 and report["json"]["items_count"] == 3


def test_a_failed_run_reports_failed_with_its_stderr_tail(rtila: SyncClient) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/"
    started = _call(rtila, "rtila_analyze_api_endpoint", {"url": url})
    status = _ended(rtila, started["run_id"])
    assert status["status"] == "failed" and status["exit_code"] == 1 and status["error"], status
    assert status["stderr_tail"] and status["meta"]["status"] == "failed"
    result = _call(rtila, "rtila_get_run_result", {"run_id": started["run_id"]})
    assert result["stderr_tail"] == status["stderr_tail"]


# Project runs ------------------------------------------------------------------------------------


def test_a_project_run_takes_the_servers_project_and_its_result_is_null(rtila: SyncClient) -> None:
    started = _call(rtila, "rtila_run_project", {"variables": {"unused": ["a", "b"]}})
    assert started["status"] == "running"
    assert _ended(rtila, started["run_id"])["status"] == "succeeded"
    result = _call(rtila, "rtila_get_run_result", {"run_id": started["run_id"]})
    assert result["result"] is None and result["result_available"] is True  # its output is rows
    again = _call(
        rtila,
        "rtila_run_project",
        {
            "project_id": PROJECT_ID,
            "session_id": SESSION_ID,
            "browser_executable_path": "/bin/sh",
            "wait": True,
        },
    )
    assert again["datasets"]["products"]["unchanged"] == 3  # waited: the payload inline
    assert "browser_executable_path" in again["guidance"] and "session_id" in again["guidance"]


def test_run_project_by_name_resolves_the_exact_name(rtila: SyncClient) -> None:
    started = _call(
        rtila,
        "rtila_run_project_by_name",
        {"name": "kettles", "resume": False, "retry_failed": False},
    )
    assert _ended(rtila, started["run_id"])["status"] == "succeeded"
    # resolved by the run
    missing = _call(rtila, "rtila_run_project_by_name", {"name": "no such project"})
    failed = _ended(rtila, missing["run_id"])
    assert failed["status"] == "failed" and "no project is named" in failed["error"], failed


def test_a_cancelled_run_is_failed_and_says_it_was_cancelled(rtila: SyncClient) -> None:
    started = _call(rtila, "rtila_run_project_by_name", {"name": "slow kettles"})
    cancelled = _call(rtila, "rtila_cancel_run", {"run_id": started["run_id"], "force": True})
    assert cancelled["status"] == "failed" and cancelled["meta"]["status"] == "cancelled", cancelled
    assert _call(rtila, "rtila_get_run_status", {"run_id": started["run_id"]})["status"] == "failed"


def test_build_project_is_an_error_saying_what_to_do_instead(rtila: SyncClient) -> None:
    answer = rtila.call(
        "rtila_build_project", {"active_project_id": PROJECT_ID, "extra_args": [], "wait": False}
    )
    assert answer.is_error is True
    assert answer.structured_content["code"] == "not_available"
    assert "save_project" in answer.structured_content["error"]


def test_an_unknown_run_is_an_error_result(rtila: SyncClient) -> None:
    answer = rtila.call("rtila_get_run_status", {"run_id": "0" * 32})
    assert answer.is_error is True and answer.structured_content["code"] == "not_found"


# Data tools --------------------------------------------------------------------------------------


def test_the_data_tools_answer_rtilas_fields(rtila: SyncClient) -> None:
    _call(rtila, "rtila_run_project", {"wait": True})
    projects = _call(
        rtila, "rtila_list_projects", {"filter": 'name ~ "kettles"', "sort": "name", "page": 1}
    )
    assert projects["per_page"] == 50 and PROJECT_ID in {p["id"] for p in projects["projects"]}
    project = _call(rtila, "rtila_get_project", {"project_id": PROJECT_ID})
    assert (project["id"], project["name"]) == (PROJECT_ID, "kettles")
    config = _call(rtila, "rtila_get_project_config", {"project_id": PROJECT_ID})
    assert config["datasets"][0]["name"] == "products" and config["definition"]["start_urls"]
    summary = _call(
        rtila, "rtila_get_project_config", {"project_id": PROJECT_ID, "summary_only": True}
    )
    assert summary["summary"]["datasets"][0]["properties"] == ["sku", "title"]
    [dataset] = _call(rtila, "rtila_list_datasets", {"project_id": PROJECT_ID})["datasets"]
    assert (dataset["name"], dataset["item_selector"]) == ("products", "li.product")
    assert dataset["properties"][1] == {"key": "title", "type": "text", "selector": "h2"}
    rows = _call(
        rtila, "rtila_get_project_data", {"dataset": "products", "sort": "sku", "per_page": 2}
    )
    assert rows["per_page"] == 2 and rows["total"] == 3
    shown = [(row["id"], row["sku"], row["title"]) for row in rows["rows"]]
    assert shown == [("s0", "s0", "Kettle 0"), ("s1", "s1", "Kettle 1")]
    assert rows["rows"][0]["created"] and rows["rows"][0]["run_id"]
    filtered = _call(
        rtila, "rtila_get_project_data", {"dataset": "products", "filter": 'title ~ "2"'}
    )
    assert [row["sku"] for row in filtered["rows"]] == ["s2"] and filtered["per_page"] == 50


def test_get_logs_reads_the_servers_project_by_rtilas_levels(rtila: SyncClient) -> None:
    _call(rtila, "rtila_run_project", {"wait": True})
    every = _call(rtila, "rtila_get_logs", {"page": 1, "per_page": 200})
    assert every["items"] and {line["level"] for line in every["items"]} <= {
        "DEBUG",
        "INFO",
        "WARN",
        "ERROR",
    }
    for level in ("WARN", "ERROR", "CRITICAL"):
        shown = _call(rtila, "rtila_get_logs", {"level": level, "session_id": SESSION_ID})
        assert {line["level"] for line in shown["items"]} <= {"WARN", "ERROR"}
        assert "session_id" in shown["guidance"]


def test_engine_info_says_what_the_server_was_started_with(rtila: SyncClient) -> None:
    info = _call(rtila, "rtila_engine_info", {})
    assert (info["project_id"], info["session_id"], info["token_set"]) == (
        PROJECT_ID,
        SESSION_ID,
        False,
    )
    assert info["version"] and info["engine_command"] and info["database_url"]
    assert isinstance(info["active_runs"], int)


# Resources and prompts ---------------------------------------------------------------------------


def test_resources_are_read_at_rtilas_addresses(rtila: SyncClient) -> None:
    config = rtila.run("read_resource", f"rtila://projects/{PROJECT_ID}/config")
    assert PROJECT_ID in config.contents[0].text
    datasets = rtila.run("read_resource", f"rtila://projects/{PROJECT_ID}/datasets")
    assert "li.product" in datasets.contents[0].text
    started = _call(rtila, "rtila_run_project", {})
    run = rtila.run("read_resource", f"rtila://runs/{started['run_id']}")
    assert started["run_id"] in run.contents[0].text
    _ended(rtila, started["run_id"])
    data = rtila.run("read_resource", f"rtila://projects/{PROJECT_ID}/data/products")
    assert "Kettle 1" in data.contents[0].text
    info = json.loads(rtila.run("read_resource", "rtila://engine/info").contents[0].text)
    assert info["default_project_id"] == PROJECT_ID


def test_prompts_take_rtilas_arguments(rtila: SyncClient) -> None:
    scraper = rtila.run(
        "get_prompt",
        "rtila_build_scraper",
        {"url": "https://example.com/products", "goal": "prices"},
    )
    assert "https://example.com/products" in scraper.messages[0].content.text
    selector = rtila.run("get_prompt", "rtila_optimize_selector", {"selector": "li.product"})
    assert "li.product" in selector.messages[0].content.text
    dataset = rtila.run(
        "get_prompt", "rtila_explain_dataset", {"dataset": "products", "project_id": PROJECT_ID}
    )
    assert "products" in dataset.messages[0].content.text
