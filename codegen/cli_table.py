"""Command-line options for `netglean call TOOL`, derived from a tool's input schema.

One place decides each flag's spelling, so the generated CLI and the docs agree.
"""

from __future__ import annotations

from typing import Any

from codegen.catalog_types import Tool
from netglean.core.cli_flags import reserved_flags


def _kind(schema: dict[str, Any]) -> Any:
    """A property's JSON type: its ``type``, else what its enum (or const) values all are —
    ``format`` is ``{enum: [markdown, text, ...]}`` with no type, and taking it for JSON made
    ``--format text`` a usage error."""
    if "type" in schema:
        return schema["type"]
    values = schema.get("enum", [schema["const"]] if "const" in schema else [])
    for kind, python in (("string", str), ("integer", int), ("number", int | float)):
        if values and all(isinstance(v, python) and not isinstance(v, bool) for v in values):
            return kind
    return "json"


def _range(schema: dict[str, Any]) -> str | None:
    """The bounds a number (or a string's or list's length) takes, as a person reads them: 1-500, at
    most 10."""
    for low, high, unit in (
        ("minimum", "maximum", ""),
        ("minLength", "maxLength", " characters"),
        ("minItems", "maxItems", " items"),
    ):
        if low in schema and high in schema:
            return f"{schema[low]}-{schema[high]}{unit}"
        if high in schema:
            return f"at most {schema[high]}{unit}"
        if schema.get(low):
            return f"at least {schema[low]}{unit}"
    return None


def cli_options(tool: Tool) -> list[dict[str, Any]]:
    """Command-line options derived from a tool's input schema, one per top-level property."""
    schema = tool.input_schema
    required = set(schema.get("required", []))
    reserved = reserved_flags()
    options = []
    for name, prop in schema.get("properties", {}).items():
        flag = "--" + name.replace("_", "-")
        kind = _kind(prop)
        item_kind = _kind(prop.get("items", {})) if kind == "array" else None
        options.append(
            {
                "name": name,
                "flag": flag if flag not in reserved else "--arg-" + flag.removeprefix("--"),
                "type": kind
                if isinstance(kind, str)
                and kind in {"string", "integer", "number", "boolean", "array"}
                else "json",
                "item_type": item_kind
                if item_kind in {"string", "integer", "number"}
                else ("json" if item_kind else None),
                "required": name in required,
                "choices": prop.get("enum"),
                "help": prop.get("description", ""),
                "default": prop.get("default"),
                "range": _range(prop),
            }
        )
    return options
