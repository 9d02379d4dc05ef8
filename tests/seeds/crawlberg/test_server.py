"""Crawlberg's server as its reference documents it, beside its tools: the identity and instructions
it announces, the nine tools with their arguments, get_version, generate_citations, and the error
table (JSON-RPC invalid_params for an invalid URL or config, internal_error with Crawlberg's
messages)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from netglean._version import __version__
from tests.seeds.crawlberg.conftest import INTERNAL_ERROR, INVALID_PARAMS, Crawlberg
from tests.support.paths import PROJECT
from tests.support.seed_servers import LOCAL_SITE, seed_client

ARGUMENTS = {
    "scrape": ({"url"}, {"url", "format", "use_browser"}),
    "crawl": ({"url"}, {"url", "max_depth", "max_pages", "format", "stay_on_domain"}),
    "map": ({"url"}, {"url", "limit", "search", "respect_robots_txt", "format"}),
    "batch_scrape": ({"urls"}, {"urls", "format", "concurrency"}),
    "batch_crawl": (
        {"urls"},
        {"urls", "max_depth", "max_pages", "format", "stay_on_domain", "concurrency"},
    ),
    "download": ({"url"}, {"url", "max_size"}),
    "interact": ({"url", "actions"}, {"url", "actions"}),
    "generate_citations": ({"markdown"}, {"markdown"}),
    "get_version": (set(), set()),
}
"""Each tool's required arguments and every argument the reference documents."""


def test_the_server_announces_crawlbergs_identity_and_instructions(crawlberg: Crawlberg) -> None:
    info = crawlberg.client.client.server_info
    assert info is not None and info.name == "crawlberg-mcp" and info.version == __version__
    assert info.title == "Crawlberg Web Crawling MCP Server"
    instructions = crawlberg.client.client.instructions or ""
    assert instructions.startswith("Scrape, crawl, and map websites. Use 'scrape' for single pages")
    assert "Use format: 'json' for structured output or 'markdown' (default)" in instructions
    capabilities = crawlberg.client.client.server_capabilities
    assert capabilities is not None and capabilities.tools is not None


def test_the_nine_tools_take_crawlbergs_arguments(crawlberg: Crawlberg) -> None:
    listed = {tool.name: tool.input_schema for tool in crawlberg.client.run("list_tools").tools}
    for tool, (required, documented) in ARGUMENTS.items():
        assert set(listed[tool].get("required", [])) == required, tool
        assert documented <= set(listed[tool]["properties"]), tool
    for tool in ("scrape", "crawl", "map", "batch_scrape", "batch_crawl"):
        fmt = listed[tool]["properties"]["format"]
        assert fmt["default"] == "markdown" and set(fmt["enum"]) == {"markdown", "json"}, tool
    action = listed["interact"]["properties"]["actions"]["items"]
    assert action["required"] == ["type"] and "click" in action["properties"]["type"]["enum"]
    for tool in ("crawl", "batch_crawl"):
        bounds = listed[tool]["properties"]
        assert bounds["max_depth"]["maximum"] == 100
        assert (bounds["max_pages"]["minimum"], bounds["max_pages"]["maximum"]) == (1, 100_000)


def test_get_version_returns_the_version(crawlberg: Crawlberg) -> None:
    text = crawlberg.text("get_version", {})
    assert json.loads(text) == {"version": __version__}


def test_generate_citations_numbers_the_links_with_references_at_the_end(
    crawlberg: Crawlberg,
) -> None:
    given = "Read [the tides](https://tides.example/) and [the ferries](https://ferries.example/)."
    text = crawlberg.text("generate_citations", {"markdown": given})
    assert text == (
        "Read the tides [1] and the ferries [2].\n\n[1]: https://tides.example/\n[2]: "
        "https://ferries.example/\n"
    )


def test_an_invalid_url_is_invalid_params(crawlberg: Crawlberg) -> None:
    for tool, arguments in (
        ("scrape", {"url": "ftp://example.com/file"}),
        ("crawl", {"url": "not a url"}),
        ("download", {"url": "file:///etc/passwd"}),
    ):
        code, message = crawlberg.error(tool, arguments)
        assert code == INVALID_PARAMS and message, (tool, message)


def test_an_invalid_config_is_invalid_params_naming_the_argument(crawlberg: Crawlberg) -> None:
    for tool, arguments, named in (
        ("crawl", {"url": crawlberg.url("/"), "max_depth": 101}, "max_depth"),
        ("crawl", {"url": crawlberg.url("/"), "max_pages": 0}, "max_pages"),
        ("scrape", {"url": crawlberg.url("/"), "format": "pdf"}, "format"),
        ("batch_scrape", {"urls": []}, "urls"),
        ("batch_crawl", {"urls": []}, "urls"),
        ("interact", {"url": crawlberg.url("/more")}, "actions"),
        ("generate_citations", {}, "markdown"),
    ):
        code, message = crawlberg.error(tool, arguments)
        assert code == INVALID_PARAMS and named in message, (tool, message)


def test_a_waf_is_internal_error_blocked_by_waf(crawlberg: Crawlberg) -> None:
    assert crawlberg.error("scrape", {"url": crawlberg.url("/challenge")}) == (
        INTERNAL_ERROR,
        "Blocked by WAF/bot protection",
    )


def test_a_network_error_is_internal_error(crawlberg: Crawlberg) -> None:
    code, message = crawlberg.error("scrape", {"url": "http://127.0.0.1:9/closed"})
    assert code == INTERNAL_ERROR and message.startswith("Network error")


def test_a_timeout_is_internal_error_request_timed_out(site: str) -> None:
    """The operator's fetch deadline (one second here) passes before the slow page answers."""
    with seed_client("crawlberg", "stdio", env={"NETGLEAN_FETCH_TOTAL_TIMEOUT": "1"}) as client:
        slow = Crawlberg(client, site)
        assert slow.error("scrape", {"url": slow.url("/slow")}) == (
            INTERNAL_ERROR,
            "Request timed out",
        )


def test_the_operator_is_told_what_the_profile_gives_up() -> None:
    started = subprocess.run(
        [sys.executable, "-m", "netglean", "mcp", "--compat", "crawlberg"],
        check=False,
        cwd=PROJECT,
        env={**os.environ, **LOCAL_SITE},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 0, started.stderr
    assert "--compat crawlberg: With format json" in started.stderr and started.stdout == ""


def test_a_crawl_outlasting_the_call_answers_with_its_run(site: str) -> None:
    """The server's call deadline (six seconds here) comes before the slow page answers: the crawl
    goes on as a run, and the answer says which, in markdown and in JSON."""
    with seed_client("crawlberg", "stdio", env={"NETGLEAN_CALL_TIMEOUT": "6"}) as client:
        slow = Crawlberg(client, site)
        text = slow.text("crawl", {"url": slow.url("/slower")})
        assert re.search(
            r"\n- Still running: run [0-9a-f]{32} \(running\); get_run_result reads it when done",
            text,
        )
        result = slow.json("crawl", {"url": slow.url("/slower"), "format": "json"})
        assert result["run"]["status"] == "running" and re.fullmatch(
            "[0-9a-f]{32}", result["run"]["run_id"]
        )
