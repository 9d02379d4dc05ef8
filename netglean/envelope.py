"""The result envelope every tool returns, and the outcome a handler hands back.

The envelope's JSON Schema is built here and nowhere else: the generator calls
``envelope_schema`` to publish each tool's output schema, and the runtime
validates every result against that same published schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from netglean.errors import ERROR_CODES, ToolError

DONE = "done"
"""The edge that ends a workflow."""

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ToolFailure",
    "description": "Why the call failed, and whether the same call could succeed later.",
    "properties": {
        "code": {"type": "string", "enum": list(ERROR_CODES)},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
        "detail": {"type": "object"},
    },
    "required": ["code", "message", "retryable", "detail"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a handler returns: its payload, the edge to follow, and advice for the model.

    ``next_step`` of ``None`` means the tool's first declared edge. ``source``
    names where third-party text came from (a URL) for the untrusted-content frame.
    """

    payload: BaseModel | Mapping[str, Any]
    next_step: str | None = None
    guidance: str = ""
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Envelope:
    ok: bool
    next_step: str
    guidance: str
    payload: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "next_step": self.next_step, "guidance": self.guidance, "payload": self.payload}


def failure(error: ToolError, *, next_step: str, guidance: str) -> Envelope:
    """The error envelope for ``error``: a result a model can act on, never an exception."""
    return Envelope(
        ok=False,
        next_step=next_step,
        guidance=guidance,
        payload={
            "error": {
                "code": error.code,
                "message": error.message,
                "retryable": error.retryable,
                "detail": error.detail,
            }
        },
    )


def envelope_schema(tool_name: str, payload_schema: Mapping[str, Any], edges: Sequence[str]) -> dict[str, Any]:
    """The published output schema: the envelope wrapped around a tool's declared payload.

    ``edges`` are the declared next steps; the tool itself is always allowed too,
    because a failed call's natural next step is to call it again, corrected.
    """
    allowed = sorted({*edges, tool_name})
    common = {
        "next_step": {"type": "string", "enum": allowed},
        "guidance": {"type": "string"},
    }
    return {
        "type": "object",
        "title": f"{tool_name} result",
        "description": "netglean result envelope: ok, next_step, guidance and the payload (or the error).",
        "properties": {"ok": {"type": "boolean"}, **common, "payload": {"type": "object"}},
        "required": ["ok", "next_step", "guidance", "payload"],
        "additionalProperties": False,
        "oneOf": [
            {"properties": {"ok": {"const": True}, "payload": dict(payload_schema)}},
            {
                "properties": {
                    "ok": {"const": False},
                    "payload": {
                        "type": "object",
                        "properties": {"error": ERROR_SCHEMA},
                        "required": ["error"],
                        "additionalProperties": False,
                    },
                }
            },
        ],
    }
