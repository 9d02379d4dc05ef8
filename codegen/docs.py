"""The documentation site: plain HTML files rendered from the catalog with jinja2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markdown_it import MarkdownIt
from markupsafe import Markup

from codegen.catalog_types import Catalog, Profile, ProfileTool
from codegen.cli_table import cli_options
from codegen.graph import graph_svg
from codegen.profiles import conflicts
from netglean.core.errors import CODES
from netglean.core.settings import SETTINGS

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
    return bool(
        prop.get("x-untrusted")
        or target.get("x-untrusted")
        or (ref in defs and defs[ref].get("x-untrusted"))
    )


def schema_rows(schema: dict[str, Any], prefix: str = "") -> list[dict[str, str]]:
    """Flatten an object schema's properties (nested objects and shared schemas included) into table
    rows."""
    rows: list[dict[str, str]] = []
    defs = schema.get("$defs", {})

    def walk(node: dict[str, Any], path: str, seen: tuple[str, ...]) -> None:
        ref = _ref(node)
        # a shared schema's fields, where it stands (a whole payload, or a field)
        if ref in defs and ref not in seen:
            walk(defs[ref], path, (*seen, ref))
        required = set(node.get("required", []))
        for name, prop in node.get("properties", {}).items():
            full = f"{path}{name}"
            constraints = ", ".join(
                f"{key}: {json.dumps(prop[key])}" for key in _CONSTRAINTS if key in prop
            )
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


STATUSES = ("match", "differs", "missing", "wrong")


def _counts(profile: Profile) -> list[tuple[str, int]]:
    """How many contract items of ``profile`` have each status (those that any do)."""
    found = [item["status"] for item in profile.contract]
    return [(status, found.count(status)) for status in STATUSES if status in found]


def _source(value: Any) -> str:
    if isinstance(value, str):
        return f"{value or '(the whole)'}"
    if "const" in value:
        return json.dumps(value["const"])
    if "map" in value:
        return f"{value['from']} renamed {json.dumps(value['map'])}"
    if "each" in value:
        return f"each item of {value['each']} as {Describe.projection(value['as'])}"
    when = " and ".join(f"{pointer} is {json.dumps(v)}" for pointer, v in value["when"].items())
    return f"(if {when} then {_source(value['then'])} else {_source(value['else'])})"


class Describe:
    """A profile's data said in words, for its docs page."""

    @staticmethod
    def projection(projection: Any) -> str:
        if projection == "envelope":
            return "netglean's envelope"
        if projection == "none":
            return "none (and no outputSchema)"
        if "when" in projection:
            when = " and ".join(
                f"{pointer} is {json.dumps(v)}" for pointer, v in projection["when"].items()
            )
            then, other = (
                Describe.projection(projection["then"]),
                Describe.projection(projection["else"]),
            )
            return f"when {when}: {then}; else {other}"
        said = (
            "netglean's envelope"
            if not projection.get("from")
            else f"the value at {projection['from']}"
        )
        if "keep" in projection:
            said += f", only {', '.join(projection['keep'])}"
        if "set" in projection:
            said += ", with " + "; ".join(
                f"{k} = {_source(v)}" for k, v in projection["set"].items()
            )
        return said

    @staticmethod
    def text(form: Any) -> str:
        if form == "netglean":
            return "netglean's (a target-origin payload in the untrusted frame)"
        if form == "json":
            return "the JSON of structuredContent"
        if form == "pretty_json":
            return "the JSON of structuredContent, indented"
        if "template" in form:
            frames = {
                "netglean": " in netglean's untrusted frame",
                "seed": " in the seed's quarantine frame",
            }
            framed = frames.get(form.get("frame", "none"), ", unframed")
            said = f"the template {json.dumps(form['template'])}"
            if "each" in form:
                said = (
                    f"{said} for each item at {form['each']}, after "
                    f"{json.dumps(form.get('head', ''))}"
                )
            if form.get("skip_empty"):
                said += " (a line whose placeholders find nothing left out)"
            return f"{said}{framed}"
        cases = "; ".join(
            f"{value}: {Describe.text(inner)}" for value, inner in form["forms"].items()
        )
        return f"by {form['by_argument']}: {cases}; otherwise {Describe.text(form['otherwise'])}"

    @staticmethod
    def arguments(tool: ProfileTool) -> list[str]:
        lines = []
        for name, rule in tool.arguments.items():
            if "not_applied" in rule:
                lines.append(f"{name}: accepted, not applied ({rule['not_applied']})")
                continue
            if "answer_only" in rule:
                lines.append(
                    f"{name}: shapes the answer, not passed to netglean's tool "
                    f"({rule['answer_only']})"
                )
                continue
            said = f"{name}: netglean's {rule['as']}" if rule.get("as", name) != name else f"{name}"
            if "fixed" in rule:
                lines.append(f"{said}: always {json.dumps(rule['fixed'])} (not listed)")
                continue
            if "values" in rule:
                said += " (" + ", ".join(f"{k}: {v}" for k, v in rule["values"].items()) + ")"
            if "default" in rule:
                said += f", default {json.dumps(rule['default'])}"
            if rule.get("required"):
                said += ", required"
            if "item_keys" in rule:
                said += ", each item's " + ", ".join(
                    f"{k} is netglean's {v}" for k, v in rule["item_keys"].items()
                )
            lines.append(said)
        return lines

    @staticmethod
    def errors(tool: ProfileTool) -> list[str]:
        lines = []
        for code, rule in tool.errors.items():
            what = "any other code" if code == "*" else code
            if "jsonrpc" in rule:
                message = (
                    rule["message"]
                    if isinstance(rule["message"], str)
                    else f"netglean's {rule['message']['from']}"
                )
                lines.append(f"{what}: JSON-RPC error {rule['jsonrpc']} ({message})")
            else:
                shape = Describe.projection(rule.get("result", "envelope"))
                lines.append(
                    f"{what}: a result (isError), {shape}; text "
                    f"{Describe.text(rule.get('text', tool.text))}"
                )
        for rule in tool.failed_when:
            when = " and ".join(
                f"{pointer} is {json.dumps(v)}" for pointer, v in rule["when"].items()
            )
            shape = Describe.projection(rule.get("result", "none"))
            lines.append(
                f"a success where {when}: a result (isError), {shape}; text "
                f"{Describe.text(rule['text'])}"
            )
        return lines


def _served_as(catalog: Catalog) -> dict[str, dict[str, list[tuple[Profile, str]]]]:
    """For each tool, resource and prompt, the profiles that serve it and under which of their
    names."""
    served: dict[str, dict[str, list[tuple[Profile, str]]]] = {
        "tools": {},
        "resources": {},
        "prompts": {},
    }
    for profile in catalog.profiles:
        for tool in profile.tools:
            served["tools"].setdefault(tool.tool, []).append((profile, tool.name))
        for address, name in profile.resources.items():
            served["resources"].setdefault(name, []).append((profile, address))
        for alias, name in profile.prompts.items():
            served["prompts"].setdefault(name, []).append((profile, alias))
    return served


def render_docs(catalog: Catalog, version: str, comment: str) -> dict[str, str]:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["pretty"] = lambda value: json.dumps(
        value, indent=2, ensure_ascii=False, sort_keys=True
    )
    # the server's key order
    env.filters["as_sent"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
    common = {
        "catalog": catalog,
        "server": catalog.server,
        "version": version,
        "comment": comment,
        "served_as": _served_as(catalog),
    }
    refused = conflicts(list(catalog.profiles))
    pages = {
        "index.html": env.get_template("index.html.j2").render(
            **common, root="", graph=graph_svg(catalog, "tools/"), settings=SETTINGS
        ),
        "resources.html": env.get_template("resources.html.j2").render(**common, root=""),
        "prompts.html": env.get_template("prompts.html.j2").render(**common, root=""),
        "settings.html": env.get_template("settings.html.j2").render(
            **common, root="", settings=SETTINGS
        ),
        "errors.html": env.get_template("errors.html.j2").render(**common, root="", codes=CODES),
        "getting-started.html": env.get_template("getting-started.html.j2").render(
            **common, root=""
        ),
        "profiles.html": env.get_template("profiles.html.j2").render(
            **common,
            root="",
            conflicts=refused,
            counts={p.name: _counts(p) for p in catalog.profiles},
        ),
        "readability.html": env.get_template("readability.html.j2").render(
            **common, root="", scale=catalog.readability
        ),
        "graph.svg": f"<!-- {comment} -->\n" + graph_svg(catalog, "tools/"),
        "style.css": f"/* {comment} */\n" + (TEMPLATES / "style.css").read_text(encoding="utf-8"),
        "search.js": f"/* {comment} */\n" + (TEMPLATES / "search.js").read_text(encoding="utf-8"),
    }
    if catalog.guide:
        pages["guide/index.html"] = env.get_template("guide-index.html.j2").render(
            **common, root="../"
        )
    for page in catalog.guide:
        pages[f"guide/{page.slug}.html"] = env.get_template("guide.html.j2").render(
            **common, root="../", page=page, body=Markup(_markdown().render(page.markdown))
        )
    for profile in catalog.profiles:
        pages[f"profiles/{profile.name}.html"] = env.get_template("profile.html.j2").render(
            **common,
            root="../",
            profile=profile,
            describe=Describe,
            counts=_counts(profile),
            refused=[
                {
                    "other": next(n for n in c["profiles"] if n != profile.name),
                    "reasons": c["reasons"],
                }
                for c in refused
                if profile.name in c["profiles"]
            ],
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
            previous=sorted(
                t.name for t in catalog.tools if tool.name in t.next_step and t.name != tool.name
            ),
        )
    return pages
