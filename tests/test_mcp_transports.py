"""`netglean mcp --transport stdio|http --port N`: the start command of servers whose clients launch
`SERVER mcp --transport stdio|http --port N` (html2rss's), for netglean's own clients too."""

from __future__ import annotations

import subprocess
import sys

import httpx2
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.support.clients import open_client
from tests.support.httpserver import HttpServer
from tests.support.paths import PROJECT


def test_mcp_over_stdio_named_so() -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "netglean", "mcp", "--transport", "stdio"]
    )
    with open_client(params) as client:
        assert "get_version" in {tool.name for tool in client.run("list_tools").tools}
        assert client.call("get_version", {}).structured_content["ok"] is True


def test_mcp_over_http_on_the_port_given() -> None:
    with HttpServer(command=("mcp", "--transport", "http")) as server:
        assert server.base.startswith("http://127.0.0.1:")
        transport = streamable_http_client(
            f"{server.base}/mcp", http_client=httpx2.AsyncClient(timeout=30)
        )
        with open_client(transport) as client:
            assert client.call("get_version", {}).structured_content["ok"] is True


def test_an_http_setting_over_stdio_is_a_usage_error() -> None:
    """A port given to the stdio server would be silently unused: it is refused, naming the
    transport it needs."""
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "mcp", "--port", "8080"],
        check=False,
        cwd=PROJECT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--port applies to --transport http only" in done.stderr, (
        done.stderr
    )
