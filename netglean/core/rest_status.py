"""How the REST surface (`POST /v1/tools/{name}`) maps results and refusals to HTTP statuses.

Read by the REST handler and by the generator that writes openapi.json, so the
published document and the server cannot disagree.

- A tool result is always an envelope. ``ok: true`` is 200. An error envelope takes
  its code's ``rest_status`` (netglean.core.errors.CODES): 200 for a failure that is a
  fact about the world (an unreachable host, a refused robots.txt), where the call
  itself succeeded.
- A request refused before any tool ran (bad token, foreign Origin, body too large,
  not JSON, too many requests) gets a small ``{"error": {code, message}}`` body.
"""

from __future__ import annotations

from typing import Any

from netglean.core.errors import CODES

REFUSALS: dict[int, tuple[str, str]] = {
    400: ("bad_request", "The request body is not valid JSON."),
    401: ("unauthorized", "A valid bearer token is required."),
    403: ("forbidden_origin", "Requests from this Origin are not allowed."),
    404: ("unknown_tool", "There is no tool by that name."),
    408: ("request_timeout", "The request body did not arrive in time."),
    413: ("too_large", "The request body is larger than this server accepts."),
    415: ("unsupported_media_type", "Send the tool's arguments as application/json."),
    421: ("misdirected_request", "This server does not answer to that Host."),
    429: ("too_many_requests", "Too many requests in flight from this client; retry shortly."),
}

REFUSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Refusal",
    "description": "Why the request was refused before any tool ran.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
            "additionalProperties": False,
        }
    },
    "required": ["error"],
    "additionalProperties": False,
}


def status_for(ok: bool, error_code: str | None) -> int:
    if ok or error_code is None:
        return 200
    facts = CODES.get(error_code)
    return facts.rest_status if facts is not None else 200


def refusal_body(status: int, reason: str = "") -> dict[str, Any]:
    """The refusal for ``status``; ``reason`` says what exactly was wrong, after the status's own
    sentence."""
    code, message = REFUSALS[status]
    return {"error": {"code": code, "message": f"{message} {reason}".strip()}}
