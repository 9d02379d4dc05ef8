"""The MCP protocol versions this build speaks: the SDK's, read when asked (importing its types costs ~170 ms)."""

from __future__ import annotations


def spoken() -> tuple[str, ...]:
    """Every protocol version a client may ask for, the handshake's and the modern ones."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    return (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
