"""Peer for the HTTP benchmark: a minimal one-tool server on the SDK's own streamable HTTP app."""

from __future__ import annotations

import sys
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server import Server

TOOL = types.Tool(
    name="get_version",
    description="Report the server version.",
    input_schema={"type": "object", "properties": {}},
)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text='{"version": "0.0.1"}')]
    )


if __name__ == "__main__":
    server = Server(
        "minimal-http", version="0.0.1", on_list_tools=list_tools, on_call_tool=call_tool
    )
    uvicorn.run(
        server.streamable_http_app(host="127.0.0.1"),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
    )
