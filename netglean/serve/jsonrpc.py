"""What a JSON-RPC 2.0 message is, and the answer owed to input that is not one.

The SDK's transports drop input they cannot read, and take a request whose ``id`` is neither
a string nor an integer (an object, a bool, a float, null, an array) for a notification:
either way the client waits forever. JSON-RPC 2.0 says: -32700 for what is not JSON, -32600
"Invalid Request" (with ``id: null`` when the id cannot be used) for the rest. Only a message
with no ``id`` member at all is a notification, and gets no answer. Both transports use
this: the stdio reader (netglean.serve.stdio) and the /mcp front (netglean.serve.http).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import from_json

BAD_ID = (
    "Invalid request: an id must be a string or an integer (a notification has no id member at all)"
)


def error(request_id: Any, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def has_bad_id(raw: Any) -> bool:
    """A request-shaped object (it names a method) whose id JSON-RPC does not allow."""
    return isinstance(raw, dict) and "method" in raw and "id" in raw and not _usable_id(raw["id"])


def _answer(request_id: Any, code: int, message: str) -> SessionMessage:
    return SessionMessage(error(request_id, code, message))


def classify(line: bytes) -> SessionMessage | None:
    """A valid message, an error answer for invalid input, or None for a blank line."""
    if not line.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as invalid:
        unreadable = next(
            (problem["msg"] for problem in invalid.errors() if problem["type"] == "json_invalid"),
            None,
        )
    else:
        # Only a would-be notification is read again: what validated as a request or a response has
        # a good id.
        if isinstance(message, types.JSONRPCNotification) and has_bad_id(from_json(line)):
            return _answer(None, types.INVALID_REQUEST, BAD_ID)
        return SessionMessage(message)
    # pydantic's reader also bounds nesting, which json.loads would take to the stack's end
    if unreadable is not None:
        return _answer(
            None, types.PARSE_ERROR, f"Parse error: the line is not valid JSON ({unreadable})"
        )
    raw = from_json(line)  # JSON that pydantic has just read
    if isinstance(raw, list):
        return _answer(
            None,
            types.INVALID_REQUEST,
            "Invalid request: JSON-RPC batches are not supported by MCP",
        )
    request_id = raw.get("id") if isinstance(raw, dict) else None
    return _answer(
        request_id if _usable_id(request_id) else None,
        types.INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 request, notification or response",
    )
