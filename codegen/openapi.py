"""The OpenAPI 3.1 document for the REST surface: ``POST /v1/tools/{name}`` per tool."""

from __future__ import annotations

import copy
from typing import Any

from jsonschema import Draft202012Validator

from codegen.catalog_types import Catalog, Tool
from netglean.core.errors import CODES
from netglean.core.rest_status import REFUSAL_SCHEMA, REFUSALS

_COMPONENTS = "#/components/schemas/"


def _rehome(schema: Any) -> Any:
    """Point ``#/$defs/X`` references at ``#/components/schemas/X`` and drop the bundled
    ``$defs``."""
    if isinstance(schema, dict):
        return {
            key: (
                _COMPONENTS + value.removeprefix("#/$defs/")
                if key == "$ref" and isinstance(value, str)
                else _rehome(value)
            )
            for key, value in schema.items()
            if key != "$defs"
        }
    if isinstance(schema, list):
        return [_rehome(item) for item in schema]
    return schema


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _responses(tool: Tool) -> dict[str, Any]:
    """Every status POST /v1/tools/{name} can answer, each with its body (see
    netglean.core.rest_status)."""
    result = {"$ref": f"{_COMPONENTS}{tool.class_stem}Result"}
    refusal = {"$ref": f"{_COMPONENTS}Refusal"}
    responses: dict[str, Any] = {
        "200": _json(
            result,
            "The result envelope: ok true, or ok false for a failure that is a fact about the "
            "world.",
        ),
    }
    for status, (code, message) in REFUSALS.items():
        if status != 404:  # an unknown tool has no path in this document
            responses[str(status)] = _json(
                refusal, f"Refused before any tool ran ({code}): {message}"
            )
    for code, status in ((code, facts.rest_status) for code, facts in CODES.items()):
        if status == 200:  # a failure that is a fact about the world: the 200 above says it
            continue
        envelope = _json(result, f"An error envelope with payload.error.code {code!r}.")
        if str(status) in responses:
            envelope["content"]["application/json"]["schema"] = {"anyOf": [refusal, result]}
            envelope["description"] = (
                f"{responses[str(status)]['description']} Or: {envelope['description']}"
            )
        responses[str(status)] = envelope
    return dict(sorted(responses.items()))


_DESCRIBED_REFUSALS = (401, 403, 408, 421, 429)
"""What a GET under /v1 may be refused with before it is answered (the token, Origin, Host, a slow
or busy client)."""
_TOOL_DESCRIPTION = {
    "type": "object",
    "description": "A tool as GET /v1/tools/NAME describes it: POST to the same URL calls it.",
    "properties": {
        "name": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "execution": {"enum": ["sync", "async"]},
        "annotations": {"type": "object", "additionalProperties": {"type": "boolean"}},
        "next_step": {"type": "array", "items": {"type": "string"}},
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"},
        "docs": {"type": "string", "description": "The tool's page on the docs site."},
    },
    "required": [
        "name", "title", "description", "execution", "annotations", "next_step", "input_schema",
        "output_schema", "docs",
    ],
    "additionalProperties": False,
}  # fmt: skip
_TOOL_LIST = {
    "type": "object",
    "description": "The tools, by name (GET /v1/tools).",
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "execution": {"enum": ["sync", "async"]},
                    "read_only": {"type": "boolean"},
                    "call": {"type": "string", "description": "Where to POST the arguments."},
                    "schema": {"type": "string", "description": "Where GET gives its schemas."},
                    "docs": {"type": "string"},
                },
                "required": [
                    "name",
                    "title",
                    "description",
                    "execution",
                    "read_only",
                    "call",
                    "schema",
                    "docs",
                ],
                "additionalProperties": False,
            },
        }
    },
    "required": ["tools"],
    "additionalProperties": False,
}


def _described(operation: str, summary: str, schema: dict[str, Any], what: str) -> dict[str, Any]:
    """A GET under /v1: its answer, and the refusals that can come before it."""
    responses = {"200": _json(schema, what)}
    for status in _DESCRIBED_REFUSALS:
        code, message = REFUSALS[status]
        responses[str(status)] = _json(
            {"$ref": f"{_COMPONENTS}Refusal"}, f"Refused ({code}): {message}"
        )
    return {
        "operationId": operation,
        "summary": summary,
        "responses": responses,
        "security": [{}, {"bearer": []}],
    }


def _operation(tool: Tool) -> dict[str, Any]:
    stem = tool.class_stem
    return {
        "get": _described(
            f"describe_{tool.name}",
            f"Describe {tool.name}: its schemas",
            {"$ref": f"{_COMPONENTS}ToolDescription"},
            "The tool's description and its input and output schemas.",
        ),
        "post": {
            "operationId": tool.name,
            "summary": tool.title,
            "description": tool.description,
            "tags": [tool.source.path.parent.name],
            "requestBody": {
                # An empty body means no arguments ({}): the body is optional exactly when {} is
                # valid.
                "required": not Draft202012Validator(_request_schema(tool)).is_valid({}),
                "description": "The tool's arguments as a JSON object; an empty body means no "
                "arguments ({}).",
                "content": {"application/json": {"schema": {"$ref": f"{_COMPONENTS}{stem}Input"}}},
            },
            "responses": _responses(tool),
            "security": [{}, {"bearer": []}],
            "x-netglean-origin": tool.origin,
            "x-netglean-next-step": list(tool.next_step),
        },
    }


_LANDING = {
    "get": {
        "operationId": "landing",
        "summary": "What this server is",
        "description": (
            "A small HTML page: the entry points (/docs/, /openapi.json, /mcp, /v1/tools) and the "
            "MCP client configs with this server's address. Never needs a token and names none."
        ),
        "responses": {
            "200": {
                "description": "The page.",
                "content": {"text/html": {"schema": {"type": "string"}}},
            }
        },
    }
}
_HEALTH = {
    "get": {
        "operationId": "healthz",
        "summary": "Liveness check",
        "description": "Answers while the server is up; never needs a token.",
        "responses": {
            "200": _json(
                {
                    "type": "object",
                    "properties": {
                        "status": {"const": "ok"},
                        "version": {"type": "string"},
                        "tools": {"type": "integer", "minimum": 0},
                    },
                    "required": ["status", "version", "tools"],
                    "additionalProperties": False,
                },
                "The server is up.",
            ),
            "403": _json(
                {"$ref": f"{_COMPONENTS}Refusal"}, "Requests from this Origin are not allowed."
            ),
            "421": _json(
                {"$ref": f"{_COMPONENTS}Refusal"}, "This server does not answer to that Host."
            ),
        },
    }
}


def _request_schema(tool: Tool) -> dict[str, Any]:
    """The tool's input schema with its exactly_one_of groups as the oneOf a request body can hold:
    an OpenAPI document is read by HTTP clients and fuzzers, not by function calling, so it states
    the whole rule."""
    schema = copy.deepcopy(tool.input_schema)
    choices = [{"oneOf": [{"required": [name]} for name in group]} for group in tool.exactly_one_of]
    if len(choices) == 1:
        schema.update(choices[0])
    elif choices:
        schema["allOf"] = choices
    return schema


def openapi_document(catalog: Catalog, version: str, comment: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {
        name: _rehome(copy.deepcopy(s)) for name, s in catalog.shared.items()
    }
    schemas["Refusal"] = REFUSAL_SCHEMA
    schemas["ToolDescription"] = _TOOL_DESCRIPTION
    schemas["ToolList"] = _TOOL_LIST
    paths: dict[str, Any] = {
        "/": _LANDING,
        "/healthz": _HEALTH,
        "/v1/tools": {
            "get": _described(
                "list_tools",
                "The tools",
                {"$ref": f"{_COMPONENTS}ToolList"},
                "Every tool, with where it is called.",
            )
        },
    }
    for tool in catalog.tools:
        schemas[f"{tool.class_stem}Input"] = _rehome(_request_schema(tool))
        schemas[f"{tool.class_stem}Result"] = _rehome(tool.output_schema)
        paths[f"/v1/tools/{tool.name}"] = _operation(tool)
    server = catalog.server
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": server["title"],
            "version": version,
            "description": server["description"],
        },
        "x-generated": comment,
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "Required on /v1 and /mcp when the operator set a token "
                    "(always, beyond loopback).",
                }
            },
        },
    }
