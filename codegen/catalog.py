"""Load the catalog, validate it strictly, and return one immutable picture of it.

Every problem found is collected (not just the first) and reported with its
file and line; a catalog with any problem yields ``CatalogError`` and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Collection
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from codegen import recordings
from codegen.catalog_types import Catalog, GuidePage, Prompt, Resource, Tool
from codegen.cross_checks import (
    check_examples,
    check_failure_guidance,
    check_generated_names,
    check_graph,
    check_handlers,
    check_mentions,
    check_names,
)
from codegen.errors import CatalogError, CatalogProblem, Collector, relative
from codegen.fragments import INLINE, Inlined, Inliner
from codegen.handlers_scan import scan
from codegen.profiles import make_profiles
from codegen.readability import readability_table
from codegen.schemas import (
    UNTRUSTED_MARK,
    bundle,
    check_schema,
    check_untrusted_marks,
    json_pointer,
    marks,
    walk_refs,
)
from codegen.yaml_source import SourceFile, YamlProblem, escape, load
from netglean.core.envelope import envelope_schema

SCHEMA_PATH = Path(__file__).with_name("catalog.schema.json")


@cache
def _meta_validator(kind: str) -> Draft202012Validator:
    document = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return Draft202012Validator({**document, "$ref": f"#/$defs/{kind}"})


def _kind(path: Path, root: Path) -> str | None:
    parts = path.relative_to(root).parts
    if parts == ("server.yaml",):
        return "server"
    folders = {
        "tools": "tool",
        "resources": "resource",
        "prompts": "prompt",
        "schemas": "shared_schema",
        "fragments": "fragment",
        "profiles": "profile",
    }
    if len(parts) >= 2 and parts[0] in folders and (parts[0] == "tools" or len(parts) == 2):
        return folders[parts[0]]
    if parts in {("readability", "scale.yaml"), ("readability", "findings.yaml")}:
        return f"readability_{path.stem}"
    if parts[0] == recordings.FOLDER:
        return "recording"
    if parts[0] == GUIDE and len(parts) == 2:
        return "guide"
    return None


GUIDE = "guide"
"""The folder of the docs site's hand-written pages: NN-slug.md, each starting with its # title."""
_GUIDE_NAME = re.compile(r"(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)\.md")


def _guide_page(path: Path, out: Collector) -> GuidePage | None:
    """One page of the guide, or None (and a problem) for a file misnamed or without its title."""
    named = _GUIDE_NAME.fullmatch(path.name)
    if named is None:
        out.add(
            path,
            1,
            "a guide page is named NN-slug.md (two digits for its place, then a-z0-9 words with -)",
        )
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        out.add(path, 1, f"cannot read the page: {exc}")
        return None
    first = text.split("\n", 1)[0]
    if not first.startswith("# ") or not first[2:].strip():
        out.add(path, 1, "a guide page starts with its title: a line '# Title'")
        return None
    body = text.split("\n", 1)[1] if "\n" in text else ""
    return GuidePage(slug=named.group(2), title=first[2:].strip(), markdown=body)


def load_catalog(root: Path, handlers_dir: Path, *, recorded: bool = True) -> Catalog:
    """Read and check every file under ``root``; raise ``CatalogError`` listing all problems.

    ``recorded=False`` leaves the recorded examples' recordings unread and unchecked: the recorder's
    view, which makes them."""
    out = Collector(root)
    sources: list[SourceFile] = []
    by_kind: dict[str, list[SourceFile]] = {
        "server": [],
        "tool": [],
        "resource": [],
        "prompt": [],
        "shared_schema": [],
        "fragment": [],
        "readability_scale": [],
        "readability_findings": [],
        "profile": [],
    }
    invalid_names: set[str] = set()
    invalid_handlers: set[str] = set()
    guide: list[GuidePage] = []
    if not root.is_dir():
        raise CatalogError([CatalogProblem(str(root), 1, "catalog folder not found")])
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        label = relative(path, root)
        kind = _kind(path, root)
        if kind == "recording":  # JSON the recorder writes, read with the tools below
            continue
        if kind == "guide":
            page = _guide_page(path, out)
            if page is not None and any(other.slug == page.slug for other in guide):
                out.add(
                    path, 1, f"another guide page is named {page.slug} too: a slug names one page"
                )
            elif page is not None:
                guide.append(page)
            continue
        if path.suffix not in {".yaml", ".yml"} or kind is None:
            out.add(
                path,
                1,
                "unexpected file: the catalog holds server.yaml, tools/**/*.yaml, resources/, "
                "prompts/, schemas/, fragments/, profiles/, readability/scale.yaml, "
                f"readability/findings.yaml, {recordings.FOLDER}/TOOL.json and {GUIDE}/NN-slug.md",
            )
            continue
        try:
            source = load(path, label)
        except YamlProblem as exc:
            out.add(path, exc.line, exc.message)
            continue
        errors = sorted(
            _meta_validator(kind).iter_errors(source.data), key=lambda e: list(e.absolute_path)
        )
        for error in errors:
            for where, message in _meta_problems(error):
                out.add(source, where, f"{where or '(top level)'}: {message}")
        if not errors:
            sources.append(source)
            by_kind[kind].append(source)
        elif isinstance(source.data, dict):
            # Keep what an invalid file names, so its one mistake does not echo as orphan errors
            # elsewhere.
            invalid_names.add(str(source.data.get("name")))
            invalid_handlers.add(str(source.data.get("handler")))
    if not by_kind["server"]:
        out.add(root / "server.yaml", 1, "missing server.yaml (server identity and instructions)")

    names = {s.data["title"] for s in by_kind["shared_schema"]}
    inliner = _load_fragments(by_kind["fragment"], names, out)
    shared, used = _load_shared(by_kind["shared_schema"], inliner, out)
    built = [_make_tool(s, shared, inliner, out) for s in by_kind["tool"]]
    tools = [tool for tool, _, _ in built]
    _check_fragments_used(by_kind["fragment"], used.union(*(u for _, _, u in built)), out)
    resources = [_make_resource(s) for s in by_kind["resource"]]
    prompts = [_make_prompt(s, out) for s in by_kind["prompt"]]
    handlers, broken = scan(handlers_dir)
    for path, line, message in broken:
        out.add(path, line, message)
    check_names(tools, resources, prompts, out)
    check_generated_names(tools, by_kind["shared_schema"], by_kind["fragment"], out)
    check_graph(tools, invalid_names, out)
    check_failure_guidance(tools, out)
    check_mentions(tools, shared, out)
    check_handlers(tools, resources, handlers, invalid_handlers, out)
    by_name = {tool.name: tool for tool in tools}
    for tool, schemas_valid, _ in built:
        recordings.check_references(tool, by_name, out)
        if schemas_valid:
            check_examples(tool, out)
    if recorded:
        unusable = {tool.name for tool, usable, _ in built if not usable}
        tools = recordings.attach(tools, root, out, invalid_names | unusable)
    profiles = make_profiles(
        by_kind["profile"], tools, resources, prompts, out, invalid=invalid_names
    )
    readability = readability_table(
        next(iter(by_kind["readability_scale"]), None),
        next(iter(by_kind["readability_findings"]), None),
        out,
    )
    if out.problems:
        raise CatalogError(out.problems)

    digest = hashlib.sha256()
    for source in sorted(sources, key=lambda s: s.label):
        digest.update(
            source.label.encode() + b"\0" + json.dumps(source.data, sort_keys=True).encode() + b"\0"
        )
    for page in guide:
        digest.update(f"{GUIDE}/{page.slug}\0{page.title}\0{page.markdown}\0".encode())
    return Catalog(
        server=by_kind["server"][0].data,
        tools=tuple(sorted(tools, key=lambda t: t.name)),
        resources=tuple(sorted(resources, key=lambda r: r.name)),
        prompts=tuple(sorted(prompts, key=lambda p: p.name)),
        shared=shared,
        readability=readability,
        digest=digest.hexdigest(),
        guide=tuple(guide),  # files are read sorted: their numbers order them
        profiles=tuple(sorted(profiles, key=lambda p: p.name)),
    )


def _meta_problems(error: Any) -> list[tuple[str, str]]:
    """(pointer, message) pairs for one catalog-format error; unknown keys point at the key
    itself."""
    where = json_pointer(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        allowed = ", ".join(sorted(known))
        return [
            (f"{where}/{escape(key)}", f"unknown key '{key}' (allowed here: {allowed})")
            for key in sorted(set(error.instance) - known)
        ]
    if error.validator == "required":
        return [(where, f"missing {error.message.replace(' is a required property', '')}")]
    return [(where, str(error.message))]


def _load_fragments(sources: list[SourceFile], shared: Collection[str], out: Collector) -> Inliner:
    """The fragments, each checked once (with the fragments it uses inlined)."""
    for source in sources:
        name = source.data["name"]
        if source.path.stem != name:
            out.add(
                source,
                "/name",
                f"fragment name '{name}' must equal the file name '{source.path.stem}'",
            )
        if name in shared:
            out.add(
                source, "/name", f"'{name}' names a shared schema too (catalog/schemas/{name}.yaml)"
            )

    def check(source: SourceFile, inlined: Inlined) -> bool:
        return check_schema(source, "/schema", inlined, shared, out, raw=source.data["schema"])

    inliner = Inliner({s.data["name"]: s for s in sources}, out.add, check)
    for name in inliner.names:
        inliner.fragment(name)
    return inliner


def _check_fragments_used(sources: list[SourceFile], used: set[str], out: Collector) -> None:
    for source in sources:
        if source.data["name"] not in used:
            out.add(
                source,
                "/name",
                f"fragment '{source.data['name']}' is inlined nowhere (x-inline: its name)",
            )


def _load_shared(
    sources: list[SourceFile], inliner: Inliner, out: Collector
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The shared schemas by title, their fragments inlined, and the fragments they use."""
    names = {s.data["title"] for s in sources}
    shared: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for source in sources:
        if source.path.stem != source.data["title"]:
            out.add(
                source,
                "/title",
                f"title '{source.data['title']}' must equal the file name '{source.path.stem}'",
            )
        inlined = inliner.inline(source, "", source.data)
        check_schema(source, "", inlined, names, out, raw=source.data)
        shared[source.data["title"]] = inlined.schema
        used |= inlined.used
    return shared, used


def _make_tool(
    source: SourceFile, shared: dict[str, Any], inliner: Inliner, out: Collector
) -> tuple[Tool, bool, frozenset[str]]:
    """The tool, whether its schemas are usable enough to check its examples against, and the
    fragments it uses."""
    data = source.data
    inputs = inliner.inline(source, "/input", data["input"])
    outputs = inliner.inline(source, "/output", data["output"])
    checked = [
        check_schema(source, f"/{key}", s, shared, out, raw=data[key])
        for key, s in (("input", inputs), ("output", outputs))
    ]
    usable = all(checked)
    for ref_pointer, _ in walk_refs(inputs.schema, "/input"):
        out.add(
            source,
            ref_pointer,
            f"{ref_pointer}: input schemas are published flat, for clients that cannot follow "
            f"$ref: inline a fragment instead ({INLINE}: Name, from catalog/fragments/)",
        )
        usable = False
    for where, _ in marks(inputs.schema, "/input"):
        out.add(
            source,
            where,
            f"{where}: {UNTRUSTED_MARK} marks third-party text in an output; inputs have none",
        )
    input_schema = dict(inputs.schema)
    run_used = _run_options(source, input_schema, inliner, out)
    open_args = data.get("additional_arguments", False)
    declared = input_schema.get("additionalProperties")
    if declared is not None and bool(declared) != open_args:
        out.add(
            source,
            "/input/additionalProperties",
            "additionalProperties contradicts additional_arguments",
        )
    input_schema.setdefault("additionalProperties", open_args)
    groups = tuple(tuple(group) for group in data.get("exactly_one_of", ()))
    _check_groups(source, groups, input_schema, out)
    _check_root(source, input_schema, out)
    if source.path.stem != data["name"]:
        out.add(
            source,
            "/name",
            f"tool name '{data['name']}' must equal the file name '{source.path.stem}'",
        )
    family = source.path.parent.name
    if str(data["handler"]).split(".", 1)[0] != family:
        out.add(
            source,
            "/handler",
            f"a tool of the {family!r} family has its handler in handlers/{family}.py: "
            f"'{family}.{str(data['handler']).rsplit('.', 1)[-1]}', not '{data['handler']}'",
        )
    payload = bundle(outputs.schema, shared)
    check_untrusted_marks(source, payload, out)
    failed, failed_used = _failure_payload(source, shared, inliner, out)
    answered = {k: v for k, v in payload.items() if k != "$defs"}
    next_step = list(data["next_step"])
    if data["execution"] == "async":
        if RUN_STATUS not in shared:
            out.add(
                source,
                "/execution",
                f"/execution: an async tool answers with a run: add schemas/{RUN_STATUS}.yaml",
            )
        answered = {
            k: v
            for k, v in bundle({"anyOf": [outputs.schema, RUN_HANDLE]}, shared).items()
            if k != "$defs"
        }
        payload = {
            **payload,
            "$defs": bundle({"anyOf": [outputs.schema, RUN_HANDLE]}, shared)["$defs"],
        }
        next_step += [step for step in RUN_STEPS if step not in next_step]
    output = envelope_schema(
        data["name"], answered, next_step, data["origin"], failed.get("properties", {})
    )
    if "$defs" in payload or "$defs" in failed:
        output["$defs"] = {**payload.get("$defs", {}), **failed.get("$defs", {})}
    tool = Tool(
        name=data["name"],
        title=data["title"],
        description=data["description"].strip(),
        origin=data["origin"],
        handler=data["handler"],
        entry_point=data.get("entry_point", False),
        annotations=data["annotations"],
        execution=data["execution"],
        input_schema=bundle(input_schema, shared),
        payload_schema=payload,
        output_schema=output,
        next_step=tuple(next_step),
        examples=tuple(data["examples"]),
        failure_guidance={
            code: text.strip() for code, text in data.get("failure_guidance", {}).items()
        },
        exactly_one_of=groups,
        failure_payload=failed,
        cli=dict(data.get("cli", {})),
        source=source,
    )
    if usable:
        _check_cli(tool, out)
    return tool, usable, inputs.used | outputs.used | failed_used | run_used


def _concrete(payload: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas ``node`` stands for, through $ref into the payload's $defs and its
    anyOf/oneOf/allOf branches."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        ref = current.get("$ref", "")
        if ref.startswith("#/$defs/"):
            stack.append(payload.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {}))
        stack += [*current.get("anyOf", []), *current.get("oneOf", []), *current.get("allOf", [])]
        found.append(current)
    return found


def _payload_fields(payload: dict[str, Any]) -> dict[str, Any]:
    """The properties of a payload schema, through its top-level $ref or anyOf branches (a run's
    handle too)."""
    found: dict[str, Any] = {}
    for node in _concrete(payload, payload):
        found |= node.get("properties", {})
    return found


def _at(payload: dict[str, Any], node: dict[str, Any], path: str) -> list[dict[str, Any]] | None:
    """The schemas at a dotted path below ``node`` (empty: an open object, where any key may be), or
    None."""
    nodes = [node]
    for part in path.split("."):
        below: list[dict[str, Any]] = []
        for concrete in (c for n in nodes for c in _concrete(payload, n)):
            if part in concrete.get("properties", {}):
                below.append(concrete["properties"][part])
            elif (
                concrete.get("type") == "object"
                and concrete.get("additionalProperties", True) is not False
            ):
                return []
        if not below:
            return None
        nodes = below
    return [c for n in nodes for c in _concrete(payload, n)]


def _types(nodes: list[dict[str, Any]]) -> set[str]:
    return {
        kind
        for node in nodes
        for kind in ([node["type"]] if isinstance(node.get("type"), str) else node.get("type", []))
    }


def _check_cli(tool: Tool, out: Collector) -> None:
    """A cli entry names payload fields the payload has, of the shape it shows them in (a list for a
    table's rows, a value for a summary's placeholder): a person would otherwise get nothing, or a
    Python repr, silently."""
    payload = tool.payload_schema
    fields = _payload_fields(payload)
    problems = [
        ("content", name, "is not a field of the payload")
        for name in tool.cli.get("content", [])
        if name not in fields
    ]
    problems += [
        ("fails_when", name, "is not a field of the payload")
        for name in tool.cli.get("fails_when", {})
        if name not in fields
    ]
    table = tool.cli.get("table")
    if table is not None:
        rows = _at(payload, payload, table["rows"])
        if rows is None or (rows and "array" not in _types(rows)):
            problems.append(("table/rows", table["rows"], "is not a list in the payload"))
        else:
            items = (
                [c for node in rows for c in _concrete(payload, node.get("items", {}))]
                if rows
                else []
            )
            item = {"anyOf": items} if items else {}
            for column in table["columns"]:
                for alternative in column.split("|"):
                    if item and _at(payload, item, alternative) is None:
                        problems.append(
                            (
                                "table/columns",
                                column,
                                f"names {alternative!r}, which its rows do not have",
                            )
                        )
    elif "summary" in tool.cli:
        out.add(
            tool.source,
            "/cli/summary",
            "/cli/summary: a summary line heads a table: name the table too",
        )
    for placeholder in re.findall(r"\{([\w.|]+)\}", tool.cli.get("summary", "")):
        for alternative in placeholder.split("|"):
            found = _at(payload, payload, alternative)
            if found is None:
                problems.append(("summary", alternative, "is not a field of the payload"))
            elif found and _types(found) and _types(found) <= {"object", "array"}:
                problems.append(
                    ("summary", alternative, "is a list or an object, not a value a line can show")
                )
    for where, name, problem in problems:
        out.add(tool.source, f"/cli/{where}", f"/cli/{where}: '{name}' {problem}")


RUN_OPTIONS = "RunOptions"
"""The fragment of arguments every async tool takes besides its own (wait, timeout_ms, label)."""
RUN_STATUS = "RunStatus"
RUN_HANDLE: dict[str, Any] = {
    "type": "object",
    "description": "The run, when the call did not wait for it to end (wait false, or timeout_ms "
    "passed first).",
    "properties": {"run": {"$ref": f"#/$defs/{RUN_STATUS}"}},
    "required": ["run"],
    "additionalProperties": False,
}
RUN_STEPS = ("get_run_status", "get_run_result")
"""The next steps of every async tool's answer, besides its own."""


def _run_options(
    source: SourceFile, input_schema: dict[str, Any], inliner: Inliner, out: Collector
) -> frozenset[str]:
    """An async tool's input gains the RunOptions arguments, ``wait`` defaulting to what its entry
    says; the fragments that used."""
    data = source.data
    if data["execution"] != "async":
        if "wait" in data:
            out.add(
                source,
                "/wait",
                "/wait: only an async tool (execution: async) has a run to wait for",
            )
        return frozenset()
    if "wait" not in data:
        out.add(
            source,
            "/execution",
            "/execution: an async tool says whether a call waits by default (wait: ...)",
        )
    if RUN_OPTIONS not in inliner.names:
        out.add(
            source,
            "/execution",
            f"/execution: an async tool takes the arguments of fragments/{RUN_OPTIONS}.yaml",
        )
        return frozenset()
    options = inliner.fragment(RUN_OPTIONS)
    properties = dict(input_schema.get("properties", {}))
    for name, schema in options.schema.get("properties", {}).items():
        if name in properties:
            out.add(
                source,
                f"/input/properties/{escape(name)}",
                f"{name} is an argument every async tool has already",
            )
            continue
        properties[name] = (
            {**schema, "default": data["wait"]} if name == "wait" and "wait" in data else schema
        )
    input_schema["properties"] = properties
    return frozenset({RUN_OPTIONS, *options.used})


def _check_groups(
    source: SourceFile,
    groups: tuple[tuple[str, ...], ...],
    input_schema: dict[str, Any],
    out: Collector,
) -> None:
    """Each argument of an exactly_one_of group is an optional argument of the tool; no argument is
    in two."""
    properties, required = input_schema.get("properties", {}), set(input_schema.get("required", []))
    seen: set[str] = set()
    for index, group in enumerate(groups):
        for name in group:
            where = f"/exactly_one_of/{index}"
            if name not in properties:
                out.add(source, where, f"{where}: '{name}' is no argument of the tool")
            elif name in required:
                out.add(
                    source,
                    where,
                    f"{where}: '{name}' is required, so no other argument can stand in for it",
                )
            elif name in seen:
                out.add(source, where, f"{where}: '{name}' is in another group too")
            seen.add(name)


def _check_root(source: SourceFile, input_schema: dict[str, Any], out: Collector) -> None:
    """No composition at an input schema's root: function-calling clients (Anthropic's, OpenAI's)
    refuse it."""
    for key in ("oneOf", "anyOf", "allOf", "not"):
        if key in input_schema:
            where = f"/input/{key}"
            message = "name the arguments a call gives exactly one of in exactly_one_of instead"
            out.add(
                source,
                where,
                f"{where}: function-calling clients refuse {key} at an input's root; {message}",
            )


_FAILURE_PAYLOAD_KEYS = frozenset({"type", "description", "properties"})


def _failure_payload(
    source: SourceFile, shared: dict[str, Any], inliner: Inliner, out: Collector
) -> tuple[dict[str, Any], frozenset[str]]:
    """The tool's failure payload (the fields a failure carries beside error), its fragments inlined
    and the shared schemas it references bundled, and the fragments it uses; empty when the tool
    declares none."""
    raw = source.data.get("failure_payload")
    if raw is None:
        return {}, frozenset()
    inlined = inliner.inline(source, "/failure_payload", raw)
    check_schema(source, "/failure_payload", inlined, shared, out, raw=raw)
    schema = inlined.schema if isinstance(inlined.schema, dict) else {}
    for key in sorted(set(schema) - _FAILURE_PAYLOAD_KEYS):
        where = f"/failure_payload/{escape(key)}"
        out.add(
            source,
            where,
            f"{where}: a failure payload states its properties only (type, description, "
            "properties)",
        )
    fields = schema.get("properties", {})
    if not fields:
        out.add(
            source,
            "/failure_payload",
            "/failure_payload: name the fields a failure carries (properties)",
        )
    if "error" in fields:
        where = "/failure_payload/properties/error"
        out.add(
            source,
            where,
            f"{where}: error is the envelope's own field; name the detail fields to carry beside "
            "it",
        )
    return bundle(schema, shared), inlined.used


def _make_resource(source: SourceFile) -> Resource:
    d = source.data
    return Resource(
        d["name"],
        d["title"],
        d["description"].strip(),
        d.get("uri"),
        d.get("uri_template"),
        d["mime_type"],
        d["handler"],
        source,
    )


def _make_prompt(source: SourceFile, out: Collector) -> Prompt:
    d = source.data
    declared = {a["name"] for a in d.get("arguments", [])}
    for index, message in enumerate(d["messages"]):
        template = string.Template(message["text"])
        if not template.is_valid():
            out.add(
                source,
                f"/messages/{index}/text",
                "bad placeholder: write ${name} for an argument and $$ for a '$'",
            )
            continue
        for name in sorted(set(template.get_identifiers()) - declared):
            out.add(
                source,
                f"/messages/{index}/text",
                f"placeholder '${{{name}}}' is not a declared argument",
            )
    return Prompt(
        d["name"],
        d["title"],
        d["description"].strip(),
        tuple(d.get("arguments", [])),
        tuple(d["messages"]),
        source,
    )
