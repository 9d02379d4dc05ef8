"""Checks that span the whole catalog: names and the model names derived from them, the graph of
next steps, the words descriptions use, handlers, examples. Each adds its problems to the collector
and stops nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator

from codegen.catalog_types import Prompt, Resource, Tool
from codegen.errors import Collector
from codegen.handlers_scan import HandlerDef
from codegen.keywords import subschemas
from codegen.recordings import references
from codegen.schemas import json_pointer
from codegen.yaml_source import SourceFile, escape
from netglean.core.envelope import DONE
from netglean.core.errors import ERROR_CODES
from netglean.core.validation import choice_problems


def check_names(
    tools: list[Tool], resources: list[Resource], prompts: list[Prompt], out: Collector
) -> None:
    for kind, items in (("tool", tools), ("resource", resources), ("prompt", prompts)):
        seen: dict[str, str] = {}
        for item in items:
            if item.name in seen:
                out.add(
                    item.source,
                    "/name",
                    f"duplicate {kind} name '{item.name}' (also in {seen[item.name]})",
                )
            seen.setdefault(item.name, item.source.label)
    uris: dict[str, str] = {}
    for resource in resources:
        uri = resource.uri or resource.uri_template or ""
        if uri in uris:
            out.add(
                resource.source, "/uri", f"duplicate resource URI '{uri}' (also in {uris[uri]})"
            )
        uris.setdefault(uri, resource.source.label)
    for tool in tools:
        if tool.name == DONE:
            out.add(tool.source, "/name", f"'{DONE}' is reserved: it ends a workflow")


GENERATED_SUFFIXES = ("Input", "Output", "Result")
"""Names the generator derives from each tool (models and OpenAPI components): NameInput,
NameOutput, NameResult."""


GENERATED_NAMES = frozenset({"CatalogModels", "Refusal"})


def check_generated_names(
    tools: list[Tool], shared: list[SourceFile], fragments: list[SourceFile], out: Collector
) -> None:
    """Shared schemas, the titles of object schemas (which name their models) and generated names
    live in one namespace (models, OpenAPI components): no collisions, where the model generator
    would rename in silence."""
    derived = {
        f"{tool.class_stem}{suffix}": tool.name for tool in tools for suffix in GENERATED_SUFFIXES
    }
    for source in shared:
        title = source.data["title"]
        if title in derived:
            out.add(
                source,
                "/title",
                f"title '{title}' collides with the name generated for tool '{derived[title]}'",
            )
        elif title in GENERATED_NAMES:
            out.add(source, "/title", f"title '{title}' is a name the generator uses itself")
    taken = {
        **{name: f"tool '{tool}'" for name, tool in derived.items()},
        **dict.fromkeys(GENERATED_NAMES, "netglean"),
    }
    taken |= {s.data["title"]: s.label for s in shared}
    places = [(s, "", s.data) for s in shared] + [
        (f, "/schema", f.data["schema"]) for f in fragments
    ]
    places += [
        (t.source, f"/{key}", t.source.data[key]) for t in tools for key in ("input", "output")
    ]
    for source, pointer, schema in places:
        for where, title in _inner_titles(schema, pointer):
            if title in taken:
                out.add(
                    source,
                    where,
                    f"{where}: title '{title}' names a model, and {taken[title]} has that name",
                )
            taken.setdefault(title, source.label)


def _inner_titles(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """The titles of the schemas inside ``schema``, with where they stand."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        for where, inner in subschemas(key, value, f"{pointer}/{escape(key)}"):
            if isinstance(inner, dict) and isinstance(inner.get("title"), str):
                yield f"{where}/title", inner["title"]
            yield from _inner_titles(inner, where)


def check_failure_guidance(tools: list[Tool], out: Collector) -> None:
    for tool in tools:
        for code in tool.failure_guidance:
            if code not in ERROR_CODES:
                where = f"/failure_guidance/{escape(code)}"
                out.add(
                    tool.source,
                    where,
                    f"{where}: '{code}' is not an error code ({', '.join(ERROR_CODES)})",
                )


_MENTION = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/-]|\.\w)")
"""A snake_case word standing on its own (not inside a dotted path or a URL): a tool's name, or a
field's."""


def _schema_words(schema: Any) -> Iterator[str]:
    """The property names and enum words of ``schema`` and of the schemas inside it."""
    if not isinstance(schema, dict):
        return
    properties, words = schema.get("properties"), schema.get("enum")
    if isinstance(properties, dict):
        yield from properties
    if isinstance(words, list):
        yield from (word for word in words if isinstance(word, str))
    for key, value in schema.items():
        for _, inner in subschemas(key, value, ""):
            yield from _schema_words(inner)


def check_mentions(tools: list[Tool], shared: dict[str, dict[str, Any]], out: Collector) -> None:
    """A description or failure guidance that names another tool names a real one: a snake_case word
    in it is a tool, a field or enum word the catalog defines, or an error code (so a renamed or
    misspelt tool is caught)."""
    names = sorted(t.name for t in tools)
    known = {*names, *ERROR_CODES}
    for schema in [
        *shared.values(),
        *(s for t in tools for s in (t.input_schema, t.payload_schema)),
    ]:
        known.update(_schema_words(schema))
    for tool in tools:
        texts = [("/description", tool.description)]
        texts += [
            (f"/failure_guidance/{escape(code)}", text)
            for code, text in tool.failure_guidance.items()
        ]
        for where, text in texts:
            for word in sorted(set(_MENTION.findall(text)) - known):
                out.add(
                    tool.source,
                    where,
                    f"{where}: '{word}' is no tool (tools: {', '.join(names)}) nor a field",
                )


def check_graph(tools: list[Tool], invalid_names: set[str], out: Collector) -> None:
    names = {t.name for t in tools} | invalid_names
    for tool in tools:
        for index, target in enumerate(tool.next_step):
            if target != DONE and target not in names:
                out.add(
                    tool.source,
                    f"/next_step/{index}",
                    f"next_step '{target}' is neither a tool nor '{DONE}'",
                )
    entries = [t.name for t in tools if t.entry_point]
    if tools and not entries:
        out.add(tools[0].source, "/entry_point", "no tool is an entry point (entry_point: true)")
    edges = {
        t.name: [s for s in t.next_step if s in names and s not in invalid_names] for t in tools
    }
    reached = set(entries)
    frontier = list(entries)
    while frontier:
        for target in edges[frontier.pop()]:
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    for tool in tools:
        if entries and not invalid_names and tool.name not in reached:
            out.add(
                tool.source,
                "/name",
                f"tool '{tool.name}' is unreachable from any entry point "
                f"({', '.join(sorted(entries))})",
            )


def check_handlers(
    tools: list[Tool],
    resources: list[Resource],
    handlers: dict[str, HandlerDef],
    invalid: set[str],
    out: Collector,
) -> None:
    used: set[str] = set(invalid)
    items: list[Tool | Resource] = [*tools, *resources]
    for item in items:
        used.add(item.handler)
        found = handlers.get(item.handler)
        if found is None:
            out.add(
                item.source,
                "/handler",
                f"handler '{item.handler}' not found: no public async def in handlers/",
            )
            continue
        if isinstance(item, Resource) and item.uri_template:
            variables = tuple(re.findall(r"\{([a-z_]+)\}", item.uri_template))
            if set(found.params[1:]) != set(variables):
                out.add(
                    item.source,
                    "/uri_template",
                    f"template variables {sorted(variables)} must match the parameters after ctx "
                    f"of {item.handler} {sorted(found.params[1:])}",
                )
    for ref, handler in sorted(handlers.items()):
        if ref not in used:
            out.add(
                handler.path,
                handler.line,
                f"handler '{ref}' has no tool or resource in the catalog",
            )


def _missing(message: str) -> str | None:
    """The property a ``required`` error names ("'run_id' is a required property")."""
    found = re.match(r"^'(.+)' is a required property$", message)
    return found.group(1) if found else None


def check_examples(tool: Tool, out: Collector) -> None:
    arguments = Draft202012Validator(tool.input_schema)
    payload = Draft202012Validator(tool.payload_schema)
    allowed = {*tool.next_step, tool.name}
    for index, example in enumerate(tool.examples):
        at = f"/examples/{index}"
        expect = example["expect"]
        invalid_on_purpose = expect.get("error") == "invalid_arguments"
        # An argument taken from a given call's answer is filled in by the recorder (its recording
        # is checked); the rest are checked here, as written.
        filled = {key for key, value in example["arguments"].items() if any(references(value))}
        written = {key: value for key, value in example["arguments"].items() if key not in filled}
        problems = [
            error.message
            for error in arguments.iter_errors(written)
            if not (error.validator == "required" and _missing(error.message) in filled)
        ]
        problems += (
            [problem.message for problem in choice_problems(tool.exactly_one_of, written)]
            if not filled
            else []
        )
        if problems and not invalid_on_purpose:
            out.add(
                tool.source,
                f"{at}/arguments",
                f"example arguments break the input schema: {problems[0]}",
            )
        if invalid_on_purpose and not problems:
            out.add(
                tool.source,
                f"{at}/arguments",
                "example expects invalid_arguments but its arguments are valid",
            )
        if expect["next_step"] not in allowed:
            out.add(
                tool.source,
                f"{at}/expect/next_step",
                f"next_step '{expect['next_step']}' is not a declared edge",
            )
        if expect["ok"] == ("error" in expect):
            out.add(
                tool.source,
                f"{at}/expect",
                "an example expects either ok: true or an error code, not both or neither",
            )
        if "payload" in expect:
            for error in payload.iter_errors(expect["payload"]):
                where = f"{at}/expect/payload{json_pointer(error.absolute_path)}"
                out.add(
                    tool.source,
                    where,
                    f"expected payload breaks the output schema: {error.message}",
                )
        # a failure's payload_includes names the fields its failure payload carries beside error
        declared = tool.payload_schema if expect["ok"] else tool.failure_payload
        properties = declared.get("properties", {})
        for key, value in expect.get("payload_includes", {}).items():
            if key not in properties:
                kind = "an output property" if expect["ok"] else "a failure_payload property"
                out.add(
                    tool.source,
                    f"{at}/expect/payload_includes/{escape(key)}",
                    f"'{key}' is not {kind}",
                )
                continue
            sub = Draft202012Validator({**properties[key], "$defs": declared.get("$defs", {})})
            for error in sub.iter_errors(value):
                out.add(
                    tool.source,
                    f"{at}/expect/payload_includes/{escape(key)}",
                    f"'{key}': {error.message}",
                )
