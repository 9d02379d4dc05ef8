"""Peer for the stdio benchmarks: a minimal one-tool server on the SDK's low-level Server."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

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


async def main() -> None:
    server = Server(
        "minimal-lowlevel", version="0.0.1", on_list_tools=list_tools, on_call_tool=call_tool
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
