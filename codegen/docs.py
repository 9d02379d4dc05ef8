"""The documentation site: plain HTML files rendered from the catalog with jinja2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markdown_it import MarkdownIt
from markupsafe import Markup

from codegen.catalog_types import Catalog
from codegen.cli_table import cli_options
from codegen.graph import graph_svg
from netglean.core.settings import COMPAT_SETS, SETTINGS

TEMPLATES = Path(__file__).with_name("templates") / "docs"


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return f"exactly {json.dumps(schema['const'])}"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


_CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "default",
)


UNTRUSTED_LABEL = "third-party text (untrusted data)"
"""What a docs row says of a field marked x-untrusted in the catalog."""


def _ref(schema: dict[str, Any]) -> str:
    return str(schema.get("$ref", "")).rsplit("/", 1)[-1]


def _untrusted(prop: dict[str, Any], defs: dict[str, Any]) -> bool:
    """Marked ``x-untrusted`` itself, or a shared schema (or array of one) that is."""
    target = prop.get("items", prop) if prop.get("type") == "array" else prop
    ref = _ref(target)
    return bool(prop.get("x-untrusted") or target.get("x-untrusted") or (ref in defs and defs[ref].get("x-untrusted")))


def schema_rows(schema: dict[str, Any], prefix: str = "") -> list[dict[str, str]]:
    """Flatten an object schema's properties (nested objects and shared schemas included) into table rows."""
    rows: list[dict[str, str]] = []
    defs = schema.get("$defs", {})

    def walk(node: dict[str, Any], path: str, seen: tuple[str, ...]) -> None:
        ref = _ref(node)
        if ref in defs and ref not in seen:  # a shared schema's fields, where it stands (a whole payload, or a field)
            walk(defs[ref], path, (*seen, ref))
        required = set(node.get("required", []))
        for name, prop in node.get("properties", {}).items():
            full = f"{path}{name}"
            constraints = ", ".join(f"{key}: {json.dumps(prop[key])}" for key in _CONSTRAINTS if key in prop)
            if _untrusted(prop, defs):
                constraints = ", ".join(filter(None, [constraints, UNTRUSTED_LABEL]))
            rows.append(
                {
                    "name": full,
                    "type": _type_of(prop),
                    "required": "yes" if name in required else "no",
                    "description": prop.get("description", ""),
                    "constraints": constraints,
                }
            )
            target = prop.get("items", prop) if prop.get("type") == "array" else prop
            if _ref(target) in defs or target.get("type") == "object":
                walk(target, f"{full}{'[]' if target is not prop else ''}.", seen)

    walk(schema, prefix, ())
    return rows


def _markdown() -> MarkdownIt:
    """CommonMark with tables, raw HTML off: a guide page is text, not markup to trust."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def render_docs(catalog: Catalog, version: str, comment: str) -> dict[str, str]:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True
    )
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    env.filters["as_sent"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)  # the server's key order
    common = {
        "catalog": catalog,
        "server": catalog.server,
        "version": version,
        "comment": comment,
        "compat_sets": COMPAT_SETS,
    }
    pages = {
        "index.html": env.get_template("index.html.j2").render(
            **common, root="", graph=graph_svg(catalog, "tools/"), settings=SETTINGS
        ),
        "resources.html": env.get_template("resources.html.j2").render(**common, root=""),
        "prompts.html": env.get_template("prompts.html.j2").render(**common, root=""),
        "settings.html": env.get_template("settings.html.j2").render(**common, root="", settings=SETTINGS),
        "getting-started.html": env.get_template("getting-started.html.j2").render(**common, root=""),
        "readability.html": env.get_template("readability.html.j2").render(
            **common, root="", scale=catalog.readability
        ),
        "graph.svg": f"<!-- {comment} -->\n" + graph_svg(catalog, "tools/"),
        "style.css": f"/* {comment} */\n" + (TEMPLATES / "style.css").read_text(encoding="utf-8"),
        "search.js": f"/* {comment} */\n" + (TEMPLATES / "search.js").read_text(encoding="utf-8"),
    }
    if catalog.guide:
        pages["guide/index.html"] = env.get_template("guide-index.html.j2").render(**common, root="../")
    for page in catalog.guide:
        pages[f"guide/{page.slug}.html"] = env.get_template("guide.html.j2").render(
            **common, root="../", page=page, body=Markup(_markdown().render(page.markdown))
        )
    for tool in catalog.tools:
        pages[f"tools/{tool.name}.html"] = env.get_template("tool.html.j2").render(
            **common,
            root="../",
            tool=tool,
            inputs=schema_rows(tool.input_schema),
            required_flags=[o["flag"] for o in cli_options(tool) if o["required"]],
            outputs=schema_rows(tool.payload_schema),
            failures=schema_rows(tool.failure_payload) if tool.failure_payload else [],
            previous=sorted(t.name for t in catalog.tools if tool.name in t.next_step and t.name != tool.name),
        )
    return pages
