"""Load the catalog, validate it strictly, and return one immutable picture of it.

Every problem found is collected (not just the first) and reported with its
file and line; a catalog with any problem yields ``CatalogError`` and nothing else.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import string
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.errors import CatalogError, CatalogProblem, relative
from codegen.fragments import INLINE, Inlined, Inliner
from codegen.handlers_scan import HandlerDef, scan
from codegen.keywords import SCHEMA_KEYWORDS, subschemas
from codegen.yaml_source import SourceFile, YamlProblem, escape, load
from netglean.core.envelope import DONE, envelope_schema
from netglean.core.errors import ERROR_CODES

SCHEMA_PATH = Path(__file__).with_name("catalog.schema.json")
_REF = re.compile(r"^#/\$defs/([A-Za-z0-9]+)$")


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    origin: str
    handler: str
    entry_point: bool
    annotations: dict[str, bool]
    execution: str
    input_schema: dict[str, Any]
    payload_schema: dict[str, Any]
    output_schema: dict[str, Any]
    next_step: tuple[str, ...]
    examples: tuple[dict[str, Any], ...]
    failure_guidance: dict[str, str]
    """What to do after a failure, by error code: the tool's own words, said before the generic sentence."""
    source: SourceFile = field(repr=False, compare=False)

    @property
    def class_stem(self) -> str:
        return "".join(part.capitalize() for part in re.split(r"[_.-]", self.name))


@dataclass(frozen=True)
class Resource:
    name: str
    title: str
    description: str
    uri: str | None
    uri_template: str | None
    mime_type: str
    handler: str
    source: SourceFile = field(repr=False, compare=False)


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str
    description: str
    arguments: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, str], ...]
    source: SourceFile = field(repr=False, compare=False)


@dataclass(frozen=True)
class Catalog:
    server: dict[str, Any]
    tools: tuple[Tool, ...]
    resources: tuple[Resource, ...]
    prompts: tuple[Prompt, ...]
    shared: dict[str, dict[str, Any]]
    digest: str

    def tool(self, name: str) -> Tool:
        return next(t for t in self.tools if t.name == name)


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
    }
    if len(parts) >= 2 and parts[0] in folders and (parts[0] == "tools" or len(parts) == 2):
        return folders[parts[0]]
    return None


class _Collector:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[CatalogProblem] = []

    def add(self, source: SourceFile | Path, pointer_or_line: str | int, message: str) -> None:
        if isinstance(source, SourceFile):
            line = source.line(pointer_or_line) if isinstance(pointer_or_line, str) else pointer_or_line
            self.problems.append(CatalogProblem(source.label, line, message))
        else:
            assert isinstance(pointer_or_line, int)
            self.problems.append(CatalogProblem(relative(source, self.root), pointer_or_line, message))


def _pointer(parts: Any) -> str:
    return "".join("/" + escape(p) for p in parts)


def _walk_refs(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield pointer + "/$ref", value
            else:
                yield from _walk_refs(value, f"{pointer}/{escape(key)}")
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _walk_refs(item, f"{pointer}/{index}")


def _marks(schema: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """Every ``x-untrusted`` keyword in ``schema``, with where it stands."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == UNTRUSTED_MARK:
                yield f"{pointer}/{escape(key)}", value
            else:
                yield from _marks(value, f"{pointer}/{escape(key)}")
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _marks(item, f"{pointer}/{index}")


def _check_untrusted_marks(source: SourceFile, payload: dict[str, Any], out: _Collector) -> None:
    """A target-origin tool's output says which fields are third-party text (``x-untrusted: true``, here or in a
    shared schema it uses); a local tool has none to mark."""
    found = list(_marks(payload, "/output"))
    for where, value in found:
        if value is not True:
            out.add(source, where, f"{where}: {UNTRUSTED_MARK} is true or absent, not {value!r}")
    origin = source.data["origin"]
    if origin == "target" and not found:
        out.add(source, "/output", f"/output: mark the fields that carry third-party text with {UNTRUSTED_MARK}: true")
    if origin == "local" and found:
        out.add(source, found[0][0], f"{found[0][0]}: a local tool returns no third-party text to mark")


UNTRUSTED_MARK = "x-untrusted"
"""The output-schema keyword that marks a field as third-party text."""


def bundle(schema: dict[str, Any], shared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``schema`` with the shared schemas it references (transitively) under ``$defs``."""
    needed: set[str] = set()
    pending = [schema]
    while pending:
        for _, ref in _walk_refs(pending.pop(), ""):
            match = _REF.match(ref)
            if match and match.group(1) in shared and match.group(1) not in needed:
                needed.add(match.group(1))
                pending.append(shared[match.group(1)])
    result = copy.deepcopy(schema)
    if needed:
        result["$defs"] = {name: copy.deepcopy(shared[name]) for name in sorted(needed)}
    return result


def load_catalog(root: Path, handlers_dir: Path) -> Catalog:
    """Read and check every file under ``root``; raise ``CatalogError`` listing all problems."""
    out = _Collector(root)
    sources: list[SourceFile] = []
    by_kind: dict[str, list[SourceFile]] = {
        "server": [],
        "tool": [],
        "resource": [],
        "prompt": [],
        "shared_schema": [],
        "fragment": [],
    }
    invalid_names: set[str] = set()
    invalid_handlers: set[str] = set()
    if not root.is_dir():
        raise CatalogError([CatalogProblem(str(root), 1, "catalog folder not found")])
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        label = relative(path, root)
        kind = _kind(path, root)
        if path.suffix not in {".yaml", ".yml"} or kind is None:
            out.add(
                path,
                1,
                "unexpected file: the catalog holds server.yaml, tools/**/*.yaml, resources/, prompts/, schemas/, "
                "fragments/",
            )
            continue
        try:
            source = load(path, label)
        except YamlProblem as exc:
            out.add(path, exc.line, exc.message)
            continue
        errors = sorted(_meta_validator(kind).iter_errors(source.data), key=lambda e: list(e.absolute_path))
        for error in errors:
            for where, message in _meta_problems(error):
                out.add(source, where, f"{where or '(top level)'}: {message}")
        if not errors:
            sources.append(source)
            by_kind[kind].append(source)
        elif isinstance(source.data, dict):
            # Keep what an invalid file names, so its one mistake does not echo as orphan errors elsewhere.
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
    _check_names(tools, resources, prompts, out)
    _check_generated_names(tools, by_kind["shared_schema"], by_kind["fragment"], out)
    _check_graph(tools, invalid_names, out)
    _check_failure_guidance(tools, out)
    _check_mentions(tools, shared, out)
    _check_handlers(tools, resources, handlers, invalid_handlers, out)
    for tool, schemas_valid, _ in built:
        if schemas_valid:
            _check_examples(tool, out)
    if out.problems:
        raise CatalogError(out.problems)

    digest = hashlib.sha256()
    for source in sorted(sources, key=lambda s: s.label):
        digest.update(source.label.encode() + b"\0" + json.dumps(source.data, sort_keys=True).encode() + b"\0")
    return Catalog(
        server=by_kind["server"][0].data,
        tools=tuple(sorted(tools, key=lambda t: t.name)),
        resources=tuple(sorted(resources, key=lambda r: r.name)),
        prompts=tuple(sorted(prompts, key=lambda p: p.name)),
        shared=shared,
        digest=digest.hexdigest(),
    )


def _meta_problems(error: Any) -> list[tuple[str, str]]:
    """(pointer, message) pairs for one catalog-format error; unknown keys point at the key itself."""
    where = _pointer(error.absolute_path)
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


def _unknown_keywords(schema: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """Keys of ``schema`` (and of the schemas inside it) that are no JSON Schema keyword and no x- extension: JSON
    Schema ignores them, so a typo, or a flow-mapping description cut at its comma, would pass in silence."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        where = f"{pointer}/{escape(key)}"
        if key not in SCHEMA_KEYWORDS and not key.startswith("x-"):
            yield where, key, value
        for inner_pointer, inner in subschemas(key, value, where):
            yield from _unknown_keywords(inner, inner_pointer)


def _check_schema(
    source: SourceFile, pointer: str, inlined: Inlined, shared: Collection[str], out: _Collector, *, raw: Any
) -> bool:
    """Report what is wrong with one embedded schema (``raw`` as written, ``inlined`` with its fragments inlined);
    True when it is usable."""
    usable = inlined.sound  # when not, the problem is reported where it is: checking on would only echo it
    for where, key, value in _unknown_keywords(raw, pointer):
        hint = ": quote a flow-mapping text that holds a comma (YAML ends the text there)" if value is None else ""
        out.add(source, where, f"{where}: {key!r} is not a JSON Schema 2020-12 keyword (x-… for extensions){hint}")
        usable = False
    if not inlined.sound:
        return False
    schema = inlined.schema
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = pointer + _pointer(exc.absolute_path)
        out.add(source, where, f"{where}: not a valid JSON Schema 2020-12: {exc.message}")
        return False
    if isinstance(schema, dict) and "$defs" in schema and pointer:
        out.add(source, pointer + "/$defs", f"{pointer}/$defs: put shared definitions in catalog/schemas/ instead")
        usable = False
    for ref_pointer, ref in _walk_refs(schema, pointer):
        match = _REF.match(ref)
        if not match or match.group(1) not in shared:
            known = ", ".join(sorted(shared)) or "none defined"
            out.add(source, ref_pointer, f"{ref_pointer}: $ref '{ref}' does not resolve (shared schemas: {known})")
            usable = False
    for where in _stray_inlines(schema, pointer):
        out.add(source, where, f"{where}: {INLINE} stands only where a schema does (a property, items, ...)")
        usable = False
    return usable


def _stray_inlines(value: Any, pointer: str) -> Iterator[str]:
    """Where ``x-inline`` is left after inlining: inside a value (a default, an example), not a schema."""
    if isinstance(value, dict):
        for key, inner in value.items():
            where = f"{pointer}/{escape(key)}"
            if key == INLINE:
                yield where
            yield from _stray_inlines(inner, where)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _stray_inlines(inner, f"{pointer}/{index}")


def _load_fragments(sources: list[SourceFile], shared: Collection[str], out: _Collector) -> Inliner:
    """The fragments, each checked once (with the fragments it uses inlined)."""
    for source in sources:
        name = source.data["name"]
        if source.path.stem != name:
            out.add(source, "/name", f"fragment name '{name}' must equal the file name '{source.path.stem}'")
        if name in shared:
            out.add(source, "/name", f"'{name}' names a shared schema too (catalog/schemas/{name}.yaml)")

    def check(source: SourceFile, inlined: Inlined) -> bool:
        return _check_schema(source, "/schema", inlined, shared, out, raw=source.data["schema"])

    inliner = Inliner({s.data["name"]: s for s in sources}, out.add, check)
    for name in inliner.names:
        inliner.fragment(name)
    return inliner


def _check_fragments_used(sources: list[SourceFile], used: set[str], out: _Collector) -> None:
    for source in sources:
        if source.data["name"] not in used:
            out.add(source, "/name", f"fragment '{source.data['name']}' is inlined nowhere (x-inline: its name)")


def _load_shared(
    sources: list[SourceFile], inliner: Inliner, out: _Collector
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The shared schemas by title, their fragments inlined, and the fragments they use."""
    names = {s.data["title"] for s in sources}
    shared: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for source in sources:
        if source.path.stem != source.data["title"]:
            out.add(source, "/title", f"title '{source.data['title']}' must equal the file name '{source.path.stem}'")
        inlined = inliner.inline(source, "", source.data)
        _check_schema(source, "", inlined, names, out, raw=source.data)
        shared[source.data["title"]] = inlined.schema
        used |= inlined.used
    return shared, used


def _make_tool(
    source: SourceFile, shared: dict[str, Any], inliner: Inliner, out: _Collector
) -> tuple[Tool, bool, frozenset[str]]:
    """The tool, whether its schemas are usable enough to check its examples against, and the fragments it uses."""
    data = source.data
    inputs = inliner.inline(source, "/input", data["input"])
    outputs = inliner.inline(source, "/output", data["output"])
    checked = [
        _check_schema(source, f"/{key}", s, shared, out, raw=data[key])
        for key, s in (("input", inputs), ("output", outputs))
    ]
    usable = all(checked)
    for ref_pointer, _ in _walk_refs(inputs.schema, "/input"):
        out.add(
            source,
            ref_pointer,
            f"{ref_pointer}: input schemas are published flat, for clients that cannot follow $ref: inline a "
            f"fragment instead ({INLINE}: Name, from catalog/fragments/)",
        )
        usable = False
    for where, _ in _marks(inputs.schema, "/input"):
        out.add(source, where, f"{where}: {UNTRUSTED_MARK} marks third-party text in an output; inputs have none")
    input_schema = dict(inputs.schema)
    open_args = data.get("additional_arguments", False)
    declared = input_schema.get("additionalProperties")
    if declared is not None and bool(declared) != open_args:
        out.add(source, "/input/additionalProperties", "additionalProperties contradicts additional_arguments")
    input_schema.setdefault("additionalProperties", open_args)
    if source.path.stem != data["name"]:
        out.add(source, "/name", f"tool name '{data['name']}' must equal the file name '{source.path.stem}'")
    family = source.path.parent.name
    if str(data["handler"]).split(".", 1)[0] != family:
        out.add(
            source,
            "/handler",
            f"a tool of the {family!r} family has its handler in handlers/{family}.py: "
            f"'{family}.{str(data['handler']).rsplit('.', 1)[-1]}', not '{data['handler']}'",
        )
    payload = bundle(outputs.schema, shared)
    _check_untrusted_marks(source, payload, out)
    output = envelope_schema(
        data["name"], {k: v for k, v in payload.items() if k != "$defs"}, data["next_step"], data["origin"]
    )
    if "$defs" in payload:
        output["$defs"] = payload["$defs"]
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
        next_step=tuple(data["next_step"]),
        examples=tuple(data["examples"]),
        failure_guidance={code: text.strip() for code, text in data.get("failure_guidance", {}).items()},
        source=source,
    )
    return tool, usable, inputs.used | outputs.used


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


def _make_prompt(source: SourceFile, out: _Collector) -> Prompt:
    d = source.data
    declared = {a["name"] for a in d.get("arguments", [])}
    for index, message in enumerate(d["messages"]):
        template = string.Template(message["text"])
        if not template.is_valid():
            out.add(
                source, f"/messages/{index}/text", "bad placeholder: write ${name} for an argument and $$ for a '$'"
            )
            continue
        for name in sorted(set(template.get_identifiers()) - declared):
            out.add(source, f"/messages/{index}/text", f"placeholder '${{{name}}}' is not a declared argument")
    return Prompt(
        d["name"], d["title"], d["description"].strip(), tuple(d.get("arguments", [])), tuple(d["messages"]), source
    )


def _check_names(tools: list[Tool], resources: list[Resource], prompts: list[Prompt], out: _Collector) -> None:
    for kind, items in (("tool", tools), ("resource", resources), ("prompt", prompts)):
        seen: dict[str, str] = {}
        for item in items:
            if item.name in seen:
                out.add(item.source, "/name", f"duplicate {kind} name '{item.name}' (also in {seen[item.name]})")
            seen.setdefault(item.name, item.source.label)
    uris: dict[str, str] = {}
    for resource in resources:
        uri = resource.uri or resource.uri_template or ""
        if uri in uris:
            out.add(resource.source, "/uri", f"duplicate resource URI '{uri}' (also in {uris[uri]})")
        uris.setdefault(uri, resource.source.label)
    for tool in tools:
        if tool.name == DONE:
            out.add(tool.source, "/name", f"'{DONE}' is reserved: it ends a workflow")


GENERATED_SUFFIXES = ("Input", "Output", "Result")
"""Names the generator derives from each tool (models and OpenAPI components): NameInput, NameOutput, NameResult."""
GENERATED_NAMES = frozenset({"CatalogModels", "Refusal"})


def _check_generated_names(
    tools: list[Tool], shared: list[SourceFile], fragments: list[SourceFile], out: _Collector
) -> None:
    """Shared schemas, the titles of object schemas (which name their models) and generated names live in one
    namespace (models, OpenAPI components): no collisions, where the model generator would rename in silence."""
    derived = {f"{tool.class_stem}{suffix}": tool.name for tool in tools for suffix in GENERATED_SUFFIXES}
    for source in shared:
        title = source.data["title"]
        if title in derived:
            out.add(source, "/title", f"title '{title}' collides with the name generated for tool '{derived[title]}'")
        elif title in GENERATED_NAMES:
            out.add(source, "/title", f"title '{title}' is a name the generator uses itself")
    taken = {**{name: f"tool '{tool}'" for name, tool in derived.items()}, **dict.fromkeys(GENERATED_NAMES, "netglean")}
    taken |= {s.data["title"]: s.label for s in shared}
    places = [(s, "", s.data) for s in shared] + [(f, "/schema", f.data["schema"]) for f in fragments]
    places += [(t.source, f"/{key}", t.source.data[key]) for t in tools for key in ("input", "output")]
    for source, pointer, schema in places:
        for where, title in _inner_titles(schema, pointer):
            if title in taken:
                out.add(source, where, f"{where}: title '{title}' names a model, and {taken[title]} has that name")
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


def _check_failure_guidance(tools: list[Tool], out: _Collector) -> None:
    for tool in tools:
        for code in tool.failure_guidance:
            if code not in ERROR_CODES:
                where = f"/failure_guidance/{escape(code)}"
                out.add(tool.source, where, f"{where}: '{code}' is not an error code ({', '.join(ERROR_CODES)})")


_MENTION = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/-]|\.\w)")
"""A snake_case word standing on its own (not inside a dotted path or a URL): a tool's name, or a field's."""


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


def _check_mentions(tools: list[Tool], shared: dict[str, dict[str, Any]], out: _Collector) -> None:
    """A description or failure guidance that names another tool names a real one: a snake_case word in it is a
    tool, a field or enum word the catalog defines, or an error code (so a renamed or misspelt tool is caught)."""
    names = sorted(t.name for t in tools)
    known = {*names, *ERROR_CODES}
    for schema in [*shared.values(), *(s for t in tools for s in (t.input_schema, t.payload_schema))]:
        known.update(_schema_words(schema))
    for tool in tools:
        texts = [("/description", tool.description)]
        texts += [(f"/failure_guidance/{escape(code)}", text) for code, text in tool.failure_guidance.items()]
        for where, text in texts:
            for word in sorted(set(_MENTION.findall(text)) - known):
                out.add(tool.source, where, f"{where}: '{word}' is no tool (tools: {', '.join(names)}) nor a field")


def _check_graph(tools: list[Tool], invalid_names: set[str], out: _Collector) -> None:
    names = {t.name for t in tools} | invalid_names
    for tool in tools:
        for index, target in enumerate(tool.next_step):
            if target != DONE and target not in names:
                out.add(tool.source, f"/next_step/{index}", f"next_step '{target}' is neither a tool nor '{DONE}'")
    entries = [t.name for t in tools if t.entry_point]
    if tools and not entries:
        out.add(tools[0].source, "/entry_point", "no tool is an entry point (entry_point: true)")
    edges = {t.name: [s for s in t.next_step if s in names and s not in invalid_names] for t in tools}
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
                f"tool '{tool.name}' is unreachable from any entry point ({', '.join(sorted(entries))})",
            )


def _check_handlers(
    tools: list[Tool], resources: list[Resource], handlers: dict[str, HandlerDef], invalid: set[str], out: _Collector
) -> None:
    used: set[str] = set(invalid)
    items: list[Tool | Resource] = [*tools, *resources]
    for item in items:
        used.add(item.handler)
        found = handlers.get(item.handler)
        if found is None:
            out.add(item.source, "/handler", f"handler '{item.handler}' not found: no public async def in handlers/")
            continue
        if isinstance(item, Resource) and item.uri_template:
            variables = tuple(re.findall(r"\{([a-z_]+)\}", item.uri_template))
            if set(found.params[1:]) != set(variables):
                out.add(
                    item.source,
                    "/uri_template",
                    f"template variables {sorted(variables)} must match the parameters after ctx of "
                    f"{item.handler} {sorted(found.params[1:])}",
                )
    for ref, handler in sorted(handlers.items()):
        if ref not in used:
            out.add(handler.path, handler.line, f"handler '{ref}' has no tool or resource in the catalog")


def _check_examples(tool: Tool, out: _Collector) -> None:
    arguments = Draft202012Validator(tool.input_schema)
    payload = Draft202012Validator(tool.payload_schema)
    allowed = {*tool.next_step, tool.name}
    for index, example in enumerate(tool.examples):
        at = f"/examples/{index}"
        expect = example["expect"]
        invalid_on_purpose = expect.get("error") == "invalid_arguments"
        problems = list(arguments.iter_errors(example["arguments"]))
        if problems and not invalid_on_purpose:
            out.add(tool.source, f"{at}/arguments", f"example arguments break the input schema: {problems[0].message}")
        if invalid_on_purpose and not problems:
            out.add(tool.source, f"{at}/arguments", "example expects invalid_arguments but its arguments are valid")
        if expect["next_step"] not in allowed:
            out.add(tool.source, f"{at}/expect/next_step", f"next_step '{expect['next_step']}' is not a declared edge")
        if expect["ok"] == ("error" in expect):
            out.add(
                tool.source, f"{at}/expect", "an example expects either ok: true or an error code, not both or neither"
            )
        if "payload" in expect:
            for error in payload.iter_errors(expect["payload"]):
                where = f"{at}/expect/payload{_pointer(error.absolute_path)}"
                out.add(tool.source, where, f"expected payload breaks the output schema: {error.message}")
        properties = tool.payload_schema.get("properties", {})
        for key, value in expect.get("payload_includes", {}).items():
            if key not in properties:
                out.add(
                    tool.source, f"{at}/expect/payload_includes/{escape(key)}", f"'{key}' is not an output property"
                )
                continue
            sub = Draft202012Validator({**properties[key], "$defs": tool.payload_schema.get("$defs", {})})
            for error in sub.iter_errors(value):
                out.add(tool.source, f"{at}/expect/payload_includes/{escape(key)}", f"'{key}': {error.message}")
