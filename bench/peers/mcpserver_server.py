"""Peer for the stdio benchmarks: a minimal one-tool MCPServer (the SDK 2.x successor of
FastMCP)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

app = MCPServer("minimal-mcpserver")


@app.tool()
def get_version() -> dict[str, str]:
    """Report the server version."""
    return {"version": "0.0.1"}


if __name__ == "__main__":
    app.run()
