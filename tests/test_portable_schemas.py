"""Every published input schema stays inside what function-calling clients accept, so no client
refuses a tool.

The input schemas are published twice: as files (``netglean/generated/schemas/*.input.json``) and in
the registry, which ``tools/list`` sends. Clients hand them to a model's function calling, and the
strictest of those decide what is portable:

- Gemini's function declarations take an OpenAPI 3.0 ``Schema``: ``type`` is one enum value (STRING,
  NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT), so ``type: [string, integer]`` cannot be converted and
  the declaration is refused; references are not resolved; ``enum`` applies to strings; ``anyOf`` is
  the one way to say "one of these types"; there is no ``oneOf``, ``allOf``, ``not``,
  ``if``/``then``, ``const`` or tuple.
- OpenAI's function calling takes JSON Schema, but ``parameters`` must be a ``type: object`` whose
  root has no ``oneOf``, ``anyOf``, ``allOf``, ``not`` or ``enum``; strict mode likewise knows
  ``anyOf`` only.

So the rules, each checked at every schema inside an input (properties, array items,
additionalProperties, anyOf branches):

1. The root is ``type: object`` with ``properties`` and no composition or enum beside them.
2. No ``$ref``, ``$defs`` or other reference keywords: a declaration stands alone.
3. ``type`` is a single string among string, number, integer, boolean, array, object; never a list.
4. Every schema states its ``type``, except an ``anyOf`` whose branches each state one.
5. ``enum`` stands on ``type: string`` and lists strings.
6. Only these keywords: type, description, default, enum, properties, required,
   additionalProperties, items, minItems, maxItems, uniqueItems, minimum, maximum, minLength,
   maxLength, pattern, anyOf (and the generator's ``$comment`` at a file's root).
   ``additionalProperties`` and ``uniqueItems`` are outside Gemini's subset: clients that convert to
   it drop them (as they must for every tool's ``additionalProperties: false``), which loosens what
   the client checks, never what netglean checks: the runner validates every call against the whole
   schema. What netglean cannot say within these rules it says in the description and checks itself
   ("exactly one of config or yaml").
7. ``required`` names declared properties, and a ``default`` is valid against its own schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from netglean.calls.registry import Registry, load_registry
from tests.support.paths import PROJECT

SCHEMAS = PROJECT / "netglean" / "generated" / "schemas"
TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
KEYWORDS = frozenset(
    {
        "type",
        "description",
        "default",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
    }
)
ROOT_FORBIDDEN = ("oneOf", "anyOf", "allOf", "not", "enum")


def portability_problems(schema: Mapping[str, Any]) -> list[str]:
    """Every way ``schema`` (a published input schema) breaks the rules above, each with its JSON
    pointer."""
    found = []
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        found.append("/: the root must be type: object with properties")
    found += [f"/{key}: {key} at the root" for key in ROOT_FORBIDDEN if key in schema]
    body = {key: value for key, value in schema.items() if key != "$comment"}
    found += list(_problems(body, ""))
    return found


def _problems(schema: Any, pointer: str) -> Iterator[str]:
    where = pointer or "/"
    if not isinstance(schema, dict):
        yield f"{where}: a schema is an object, not {type(schema).__name__}"
        return
    for key in sorted(set(schema) - KEYWORDS):
        yield f"{where}: {key!r} is not a portable keyword"
    stated = schema.get("type")
    branches = schema.get("anyOf")
    if isinstance(stated, list):
        yield f"{where}: type is a list {stated}; use anyOf with one type per branch"
    elif stated is None and not (isinstance(branches, list) and branches):
        yield f"{where}: no type (and no anyOf whose branches state one)"
    elif stated is not None and stated not in TYPES:
        yield f"{where}: type {stated!r} is not one of {sorted(TYPES)}"
    if "enum" in schema and (
        stated != "string" or not all(isinstance(v, str) for v in schema["enum"])
    ):
        yield f"{where}: enum stands on type: string and lists strings"
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in properties:
            yield f"{where}: required names {name!r}, which is no property"
    if "default" in schema and not Draft202012Validator(schema).is_valid(schema["default"]):
        yield f"{where}: the default {schema['default']!r} breaks its own schema"
    for name, inner in properties.items():
        yield from _problems(inner, f"{pointer}/properties/{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from _problems(schema[key], f"{pointer}/{key}")
    for index, branch in enumerate(branches or []):
        if isinstance(branch, dict) and "type" not in branch:
            yield f"{pointer}/anyOf/{index}: an anyOf branch states its type"
        yield from _problems(branch, f"{pointer}/anyOf/{index}")


FILES = sorted(SCHEMAS.glob("*.input.json"))
REGISTRY: Registry = load_registry()


def test_every_tool_publishes_an_input_schema_file() -> None:
    assert {path.name.removesuffix(".input.json") for path in FILES} == set(REGISTRY.tools)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_published_input_schema_files_are_portable(path: Any) -> None:
    assert portability_problems(json.loads(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("name", sorted(REGISTRY.tools))
def test_the_input_schemas_tools_list_sends_are_portable(name: str) -> None:
    assert portability_problems(REGISTRY.tools[name].input_schema) == []


def test_the_rules_catch_what_function_calling_clients_refuse() -> None:
    """The forms netglean published before these rules, each refused by a client, are each named."""
    refused = {
        "type": "object",
        "properties": {
            "parameters": {
                "type": "object",
                "additionalProperties": {"type": ["string", "integer"]},
            },
            "format": {"enum": ["rss", "json_feed"]},
            "config": {"$ref": "#/$defs/FeedConfig"},
            "count": {"type": "integer", "const": 3, "default": "three"},
            "either": {"anyOf": [{"type": "string"}, {"enum": ["a"]}]},
        },
        "required": ["nothing"],
        "oneOf": [{"required": ["parameters"]}, {"required": ["format"]}],
    }
    assert portability_problems(refused) == [
        "/oneOf: oneOf at the root",
        "/: 'oneOf' is not a portable keyword",
        "/: required names 'nothing', which is no property",
        "/properties/parameters/additionalProperties: type is a list ['string', 'integer']; use "
        "anyOf with one type per branch",
        "/properties/format: no type (and no anyOf whose branches state one)",
        "/properties/format: enum stands on type: string and lists strings",
        "/properties/config: '$ref' is not a portable keyword",
        "/properties/config: no type (and no anyOf whose branches state one)",
        "/properties/count: 'const' is not a portable keyword",
        "/properties/count: the default 'three' breaks its own schema",
        "/properties/either/anyOf/1: an anyOf branch states its type",
        "/properties/either/anyOf/1: no type (and no anyOf whose branches state one)",
        "/properties/either/anyOf/1: enum stands on type: string and lists strings",
    ]
