"""The OpenAPI 3.1 document for the REST surface: ``POST /v1/tools/{name}`` per tool."""

from __future__ import annotations

import copy
from typing import Any

from codegen.catalog import Catalog, Tool

_COMPONENTS = "#/components/schemas/"


def _rehome(schema: Any) -> Any:
    """Point ``#/$defs/X`` references at ``#/components/schemas/X`` and drop the bundled ``$defs``."""
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


def _operation(tool: Tool) -> dict[str, Any]:
    stem = tool.class_stem
    return {
        "post": {
            "operationId": tool.name,
            "summary": tool.title,
            "description": tool.description,
            "tags": [tool.source.path.parent.name],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"{_COMPONENTS}{stem}Input"}}},
            },
            "responses": {
                "200": {
                    "description": "The result envelope. A failed call is still an envelope, with ok false.",
                    "content": {"application/json": {"schema": {"$ref": f"{_COMPONENTS}{stem}Result"}}},
                }
            },
            "x-netglean-origin": tool.origin,
            "x-netglean-next-step": list(tool.next_step),
        }
    }


def openapi_document(catalog: Catalog, version: str, comment: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {name: _rehome(copy.deepcopy(s)) for name, s in catalog.shared.items()}
    paths: dict[str, Any] = {}
    for tool in catalog.tools:
        schemas[f"{tool.class_stem}Input"] = _rehome(tool.input_schema)
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
        "components": {"schemas": dict(sorted(schemas.items()))},
    }
