"""JSON-RPC facts the transports' tests share."""

from __future__ import annotations

BAD_IDS = ('{"a": 1}', "true", "false", "1.5", "1e3", "null", "[1]")
"""Request ids JSON-RPC 2.0 does not allow (a string or an integer): the SDK took such a request for
a notification."""
