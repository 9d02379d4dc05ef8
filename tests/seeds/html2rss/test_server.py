"""html2rss's server as its reference documents it, beside its tools: the start commands and
transports, the environment it reads, the html2rss:// resources, the prompts, and the tool list."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx2
from mcp.client.streamable_http import streamable_http_client

from tests.seeds.html2rss.conftest import Html2rss
from tests.support.clients import open_client
from tests.support.httpserver import HttpServer
from tests.support.paths import PROJECT
from tests.support.seed_servers import LOCAL_SITE

TOOLS = {"scrape_url", "inspect_url", "capture_config", "validate_config", "apply_config"}


def test_the_five_tools_are_listed(html2rss: Html2rss) -> None:
    listed = {tool.name: tool for tool in html2rss.client.run("list_tools").tools}
    assert set(listed) >= TOOLS
    assert listed["scrape_url"].input_schema["properties"]["limit"]["default"] == 25
    assert listed["scrape_url"].input_schema["required"] == ["url"]
    for name in ("scrape_url", "inspect_url", "capture_config"):
        strategy = listed[name].input_schema["properties"]["strategy"]
        assert strategy["default"] == "auto" and {"auto", "faraday", "botasaurus"} <= set(
            strategy["enum"]
        )


def test_the_html2rss_resources(html2rss: Html2rss) -> None:
    schema = html2rss.resource("html2rss://schema")
    assert schema["type"] == "object" and {"channel", "selectors", "request", "strategy"} <= set(
        schema["properties"]
    )
    extractors = html2rss.resource("html2rss://extractors")
    assert extractors == sorted(extractors) and {
        "attribute",
        "html",
        "href",
        "text",
        "static",
    } <= set(extractors)
    assert html2rss.resource("html2rss://strategies") == ["auto", "faraday", "botasaurus"]
    runtime = html2rss.resource("html2rss://runtime")
    assert isinstance(runtime["botasaurus_configured"], bool)
    assert all(isinstance(value, bool) for value in runtime.values()), (
        "booleans only: never the scraper URL"
    )


def test_the_html2rss_prompts(html2rss: Html2rss) -> None:
    listed = {prompt.name: prompt for prompt in html2rss.client.run("list_prompts").prompts}
    for name in ("scrape-webpage", "capture-feed-config"):
        [argument] = listed[name].arguments or []
        assert argument.name == "url" and argument.required
    scrape = html2rss.prompt("scrape-webpage", {"url": "https://example.com/"})
    assert scrape.index("scrape_url") < scrape.index("inspect_url") and "strategy auto" in scrape
    capture = html2rss.prompt("capture-feed-config", {"url": "https://example.com/"})
    steps = [
        capture.index(tool)
        for tool in ("capture_config", "inspect_url", "validate_config", "apply_config")
    ]
    assert (
        steps == sorted(steps) and "payload.item_count" in capture and "directory.topics" in capture
    )


def _started(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`netglean ARGS` with stdin closed at once: a stdio server that starts, says what it says, and
    ends."""
    return subprocess.run(
        [sys.executable, "-m", "netglean", *args],
        check=False,
        cwd=PROJECT,
        env={**os.environ, **LOCAL_SITE, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_operator_is_told_what_the_profile_gives_up_and_which_variables_go_unused() -> None:
    started = _started(
        "mcp", "--compat", "html2rss", env={"BOTASAURUS_SCRAPER_URL": "http://scraper.internal/"}
    )
    assert started.returncode == 0, started.stderr
    assert (
        "--compat html2rss: html2rss's text block is the same JSON as structuredContent"
        in started.stderr
    )
    assert "BOTASAURUS_SCRAPER_URL is set and not used (html2rss profile)" in started.stderr
    assert "scraper.internal" not in started.stderr  # the variable is named, its value never shown
    plain = _started("mcp")
    # netglean's own profile says nothing
    assert plain.returncode == 0 and "html2rss" not in plain.stderr


def test_log_level_is_read_and_info_by_default(site: str) -> None:
    """html2rss's daemon logs to stderr at LOG_LEVEL, info unless set: each fetch is an info
    line."""

    def fetch_lines(env: dict[str, str]) -> list[str]:
        command = ("mcp", "--transport", "http")
        with HttpServer(
            "--compat", "html2rss", env={**LOCAL_SITE, **env}, command=command
        ) as server:
            transport = streamable_http_client(
                f"{server.base}/mcp", http_client=httpx2.AsyncClient(timeout=60)
            )
            with open_client(transport) as client:
                assert client.call("scrape_url", {"url": f"{site}/news"}).is_error is False
            server.stop()
            return [line for line in server.stderr.splitlines() if "netglean.fetch: GET" in line]

    assert fetch_lines({}), "info by default: the fetch is logged"
    assert fetch_lines({"LOG_LEVEL": "WARN"}) == []
    assert fetch_lines({"LOG_LEVEL": "warn", "NETGLEAN_LOG_LEVEL": "info"}), (
        "netglean's own variable comes first"
    )
