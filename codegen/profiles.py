"""Wire profiles (catalog/profiles/NAME.yaml): a seed's names for netglean's tools, resources and
prompts, and the shape its clients read, checked against the catalog they serve and turned into what
the runtime applies.

Every pointer a profile writes is checked against the tool's published output schema (a pointer into
nothing is a dangling pointer, a problem with its file and line), and the schemas a profiled tool is
listed with are derived here: its arguments under the seed's names and defaults, its
structuredContent as the projection makes it. Which profiles may be served together is decided here
too (``conflicts``), so the runtime only looks the answer up.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.catalog_types import Profile, ProfileTool, Prompt, Resource, Tool
from codegen.errors import Collector
from codegen.yaml_source import SourceFile, escape
from netglean.core.envelope import UNTRUSTED_NOTICE_KEY
from netglean.core.errors import CODES, ERROR_CODES, ConfigurationError
from netglean.core.settings import COMPAT_SETS, SETTINGS, TIGHTER

UNFRAMED_FORMS = ("json", "pretty_json")
"""Text forms that carry a result without netglean's untrusted frame (a template says so with frame:
none)."""
JSONRPC_CODES = {
    "parse_error": -32700,
    "invalid_request": -32600,
    "method_not_found": -32601,
    "invalid_params": -32602,
    "internal_error": -32603,
}
_PLACEHOLDER = re.compile(r"\{(/[^{}]*)\}")
_VARIABLES = re.compile(r"\{([^}]*)\}")


def pointer_parts(pointer: str) -> list[str]:
    """The tokens of a JSON pointer ('' is none)."""
    return (
        [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
        if pointer
        else []
    )


def make_profiles(
    sources: list[SourceFile],
    tools: list[Tool],
    resources: list[Resource],
    prompts: list[Prompt],
    out: Collector,
    *,
    invalid: Collection[str] = (),
) -> list[Profile]:
    """Every profile file, checked against the catalog's tools, resources and prompts; a name of a
    file that is invalid itself (``invalid``) is its file's problem, not the profile's."""
    by_name = {tool.name: tool for tool in tools}
    known = _Known(by_name, resources, prompts, frozenset(invalid))
    return [_profile(source, known, out) for source in sources]


@dataclass(frozen=True)
class _Known:
    """What a profile may name: the catalog's tools, resources and prompts, and the names of files
    that are invalid themselves (their problem is their own file's, not the profile's: one typo, one
    error)."""

    tools: dict[str, Tool]
    resources: list[Resource]
    prompts: list[Prompt]
    invalid: frozenset[str]


def _profile(source: SourceFile, known: _Known, out: Collector) -> Profile:
    data = source.data
    name = data["name"]
    if source.path.stem != name:
        out.add(
            source, "/name", f"profile name '{name}' must equal the file name '{source.path.stem}'"
        )
    if name not in COMPAT_SETS:
        out.add(
            source,
            "/name",
            f"'{name}' is no profile the compat setting takes ({', '.join(COMPAT_SETS)})",
        )
    wire = data.get("wire", {})
    served = []
    for seed_name, entry in data["tools"].items():
        built = _tool(source, seed_name, entry, wire=wire, known=known, out=out)
        if built is not None:
            served.append(built)
    _check_quarantine(source, data.get("quarantine"), served, out)
    _check_environment(source, data.get("environment", {}), out)
    _check_policy(source, data.get("policy", {}), out)
    _check_resources(source, data.get("resources", {}), known, out)
    _check_prompts(source, data.get("prompts", {}), known, out)
    unframed = [
        t.name for t in served if known.tools[t.tool].origin == "target" and _leaves_frame(t)
    ]
    if unframed and "unframed" not in data:
        out.add(
            source,
            "/tools",
            f"/tools: {', '.join(unframed)} answer(s) third-party text outside netglean's "
            "untrusted frame: say what the operator gives up by choosing this profile "
            "(unframed: ...)",
        )
    if "unframed" in data and not unframed:
        out.add(
            source,
            "/unframed",
            "/unframed: every tool of the profile keeps netglean's frame; nothing is given up",
        )
    return Profile(
        name=name,
        title=data["title"],
        reference=data["reference"],
        description=data["description"].strip(),
        server=dict(data["server"]) if "server" in data else None,
        environment={key: dict(value) for key, value in data.get("environment", {}).items()},
        policy=dict(data.get("policy", {})),
        quarantine=dict(data["quarantine"]) if "quarantine" in data else None,
        unframed=str(data.get("unframed", "")).strip(),
        tools=tuple(served),
        resources=dict(data.get("resources", {})),
        prompts=dict(data.get("prompts", {})),
        contract=tuple(data["contract"]),
        source=source,
    )


# --- tools ----------------------------------------------------------------------------------------


def _tool(
    source: SourceFile,
    seed_name: str,
    entry: dict[str, Any],
    *,
    wire: dict[str, Any],
    known: _Known,
    out: Collector,
) -> ProfileTool | None:
    at = f"/tools/{escape(seed_name)}"
    own = entry.get("tool", seed_name)
    tool = known.tools.get(own)
    if tool is None:
        where = f"{at}/tool" if "tool" in entry else at
        if own not in known.invalid:
            out.add(source, where, f"{where}: '{own}' is no tool of the catalog")
        return None
    if seed_name != own and seed_name in known.tools:
        out.add(
            source,
            at,
            f"{at}: '{seed_name}' is netglean's tool '{seed_name}'; it cannot also run '{own}'",
        )
    arguments = entry.get("arguments", {})
    check = _ToolCheck(source, out, tool, _profiled_input(source, at, tool, arguments, out))
    text = entry.get("text", wire.get("text", "netglean"))
    result = entry.get("result", wire.get("result", "envelope"))
    errors = {**wire.get("errors", {}), **entry.get("errors", {})}
    result_at = (
        f"{at}/result" if "result" in entry else ("/wire/result" if "result" in wire else at)
    )
    shown = check.projected(result_at, check.success, result)
    check.text(f"{at}/text" if "text" in entry else "/wire/text", text, check.success, result)
    failures: list[dict[str, Any] | None] = []
    for code, rule in errors.items():
        where = (
            f"{at}/errors/{escape(code)}"
            if code in entry.get("errors", {})
            else f"/wire/errors/{escape(code)}"
        )
        if code != "*" and code not in ERROR_CODES:
            out.add(
                source, where, f"{where}: '{code}' is not an error code ({', '.join(ERROR_CODES)})"
            )
        if "jsonrpc" in rule:
            check.jsonrpc(where, code, rule)
            continue
        projection = rule.get("result", "envelope")
        failures.append(check.projected(f"{where}/result", check.failure, projection))
        check.text(f"{where}/text", rule.get("text", text), check.failure, projection)
    if "*" not in errors:
        failures.append(check.failure)
    for index, rule in enumerate(entry.get("failed_when", [])):
        where = f"{at}/failed_when/{index}"
        check.source_schema(
            where, check.success, {"when": rule["when"], "then": {"const": 0}, "else": {"const": 0}}
        )
        projection = rule.get("result", "none")
        failures.append(check.projected(f"{where}/result", check.success, projection))
        check.text(f"{where}/text", rule["text"], check.success, projection)
    if tool.origin == "target" and _unframed(text) and not _carries_notice(result):
        message = (
            f"'{seed_name}' leaves netglean's frame, so its result must carry "
            f"/{UNTRUSTED_NOTICE_KEY}"
        )
        out.add(source, result_at, f"{result_at}: {message}")
    return ProfileTool(
        name=seed_name,
        tool=own,
        arguments={key: dict(value) for key, value in arguments.items()},
        input_schema=check.input_schema,
        output_schema=_published(tool, check.success, shown, failures),
        text=text,
        result=result,
        errors=errors,
        failed_when=tuple(entry.get("failed_when", [])),
    )


def _published(
    tool: Tool,
    success: dict[str, Any],
    shown: dict[str, Any] | None,
    failures: list[dict[str, Any] | None],
) -> dict[str, Any] | None:
    """The outputSchema the profile lists: the tool's own when the profile answers netglean's
    envelope either way, none when it answers no structuredContent, else every shape it answers."""
    if shown is success and all(f is not None and f.get("x-envelope") for f in failures):
        return tool.output_schema
    shapes = [s for s in (shown, *failures) if s is not None]
    if not shapes:
        return None
    defs = tool.output_schema.get("$defs")
    flat = [
        alternative
        for s in shapes
        for alternative in (s["anyOf"] if "properties" not in s else [s])
    ]
    listed: dict[str, Any] = {"type": "object", "anyOf": [_plain(s) for s in flat]}
    return {**listed, "$defs": defs} if defs else listed


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key != "x-envelope"}


def envelope_branch(output_schema: dict[str, Any], ok: bool) -> dict[str, Any]:
    """The tool's envelope when ``ok`` is (or is not) true, as one object schema (its oneOf branch
    merged in)."""
    properties = dict(output_schema["properties"])
    for branch in output_schema.get("oneOf", ()):
        if branch["properties"]["ok"] == {"const": ok}:
            properties |= branch["properties"]
    return {
        "type": "object",
        "properties": properties,
        "required": list(output_schema["required"]),
        "additionalProperties": False,
        "x-envelope": True,
    }


def _concrete(node: Any, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas ``node`` stands for, through $ref and anyOf / oneOf / allOf."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        ref = current.get("$ref", "")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            stack.append(defs.get(ref.removeprefix("#/$defs/"), {}))
        stack += [*current.get("anyOf", []), *current.get("oneOf", []), *current.get("allOf", [])]
        found.append(current)
    return found


def schema_at(schema: dict[str, Any], defs: dict[str, Any], pointer: str) -> dict[str, Any] | None:
    """The schema of the value at ``pointer`` below ``schema``: None where no value can be (a
    dangling pointer), an empty schema inside an open object (where any key may be)."""
    nodes: list[Any] = [schema]
    for part in pointer_parts(pointer):
        below: list[Any] = []
        for concrete in (c for node in nodes for c in _concrete(node, defs)):
            extra = concrete.get("additionalProperties", True)
            if part in concrete.get("properties", {}):
                below.append(concrete["properties"][part])
            elif (part.isdigit() or part == "*") and "items" in concrete:
                below.append(concrete["items"])
            elif concrete.get("type") == "object" and extra is not False:
                below.append(extra if isinstance(extra, dict) else {})
        if not below:
            return None
        nodes = below
    return nodes[0] if len(nodes) == 1 else {"anyOf": nodes}


def _objects(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """Each object schema with properties ``schema`` may be (one, or the alternatives of an anyOf),
    copied; an open object (any keys: a row's data) is one with none declared."""
    concrete = _concrete(schema, defs)
    objects: list[dict[str, Any]] = [copy.deepcopy(c) for c in concrete if "properties" in c]
    if objects:
        return objects
    open_ = [
        c
        for c in concrete
        if c.get("type") == "object" and c.get("additionalProperties") is not False
    ]
    return [{**copy.deepcopy(open_[0]), "properties": {}}] if len(open_) == 1 else []


def _object(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` as one object schema with its properties, when it is one (a $ref followed); an
    open object (any keys: a row's data) has none declared."""
    concrete = _concrete(schema, defs)
    objects = [c for c in concrete if "properties" in c]
    if not objects:
        open_ = [
            c
            for c in concrete
            if c.get("type") == "object" and c.get("additionalProperties") is not False
        ]
        return {**copy.deepcopy(open_[0]), "properties": {}} if len(open_) == 1 else None
    if len(objects) == 1:
        return copy.deepcopy(objects[0])
    # one of several (an async tool's result, or its run): any of their keys
    merged = copy.deepcopy(objects[0])
    for other in objects[1:]:
        merged["properties"] = {**other["properties"], **merged["properties"]}
        merged["required"] = [
            key for key in merged.get("required", []) if key in other.get("required", [])
        ]
    return merged


class _ToolCheck:
    """One profiled tool's pointers, text forms and error rules, checked against the tool's
    published schemas."""

    def __init__(
        self, source: SourceFile, out: Collector, tool: Tool, input_schema: dict[str, Any]
    ) -> None:
        self.source, self.out, self.tool, self.input_schema = source, out, tool, input_schema
        self.defs: dict[str, Any] = tool.output_schema.get("$defs", {})
        self.success = envelope_branch(tool.output_schema, True)
        self.failure = envelope_branch(tool.output_schema, False)

    def problem(self, where: str, message: str) -> None:
        self.out.add(self.source, where, f"{where}: {message}")

    def projected(
        self, where: str, envelope: dict[str, Any], projection: Any
    ) -> dict[str, Any] | None:
        """The schema of what ``projection`` makes of ``envelope`` (None for none); every pointer
        checked."""
        if projection == "envelope":
            return envelope
        if projection == "none":
            return None
        if "when" in projection:  # one of two shapes: each checked, and the result is either
            self.when(where, envelope, projection["when"])
            ways = [
                self.projected(f"{where}/{way}", envelope, projection[way])
                for way in ("then", "else")
            ]
            return {"anyOf": [_plain(s) for s in ways if s is not None]}
        start = projection.get("from", "")
        base = schema_at(envelope, self.defs, start)
        if base is None:
            self.problem(f"{where}/from", f"'{start}' points at nothing netglean's result holds")
            return None
        shapes = _objects(base, self.defs)
        if not shapes:
            self.problem(
                where, f"the value at '{start}' is not an object, which structuredContent must be"
            )
            return None
        for key in projection.get("keep", ()):
            if all(key not in made["properties"] for made in shapes):
                self.problem(f"{where}/keep", f"'{key}' is no field at '{start}'")
        sources = {
            target: self.source_schema(f"{where}/set/{escape(target)}", envelope, value)
            for target, value in projection.get("set", {}).items()
        }
        for made in shapes:
            made.pop("x-envelope", None)
            if "keep" in projection:
                made["properties"] = {
                    k: v for k, v in made["properties"].items() if k in projection["keep"]
                }
                made["required"] = [k for k in made.get("required", []) if k in projection["keep"]]
            for target, schema in sources.items():
                self.set_in(f"{where}/set/{escape(target)}", made, target, schema)
        return shapes[0] if len(shapes) == 1 else {"type": "object", "anyOf": shapes}

    def set_in(self, at: str, made: dict[str, Any], target: str, schema: dict[str, Any]) -> None:
        """``made`` with the schema at ``target`` (inside it) set to ``schema``."""
        parts = pointer_parts(target)
        parent = made
        for part in parts[:-1]:
            child = parent.get("properties", {}).get(part)
            found = _object(child, self.defs) if isinstance(child, dict) else None
            if found is None:
                self.problem(
                    at, f"'{target}' is set inside '{part}', which is no object of the result"
                )
                return
            parent["properties"][part] = found
            parent = found
        parent.setdefault("properties", {})[parts[-1]] = schema

    def source_schema(self, where: str, envelope: dict[str, Any], value: Any) -> dict[str, Any]:
        """The schema of a value of the seed's result, from its source; every pointer checked."""
        if isinstance(value, str):
            found = schema_at(envelope, self.defs, value)
            if found is None:
                self.problem(where, f"'{value}' points at nothing netglean's result holds")
            return found or {}
        if "const" in value:
            return {"const": value["const"]}
        if "each" in value:
            found = schema_at(envelope, self.defs, value["each"])
            items = (
                [c["items"] for c in _concrete(found, self.defs) if "items" in c] if found else []
            )
            if not items:
                self.problem(
                    f"{where}/each", f"'{value['each']}' points at no list netglean's result holds"
                )
                return {}
            made = self.projected(f"{where}/as", items[0], value["as"])
            return {"type": "array", "items": _plain(made) if made is not None else {}}
        if "map" in value:
            found = schema_at(envelope, self.defs, value["from"])
            if found is None:
                self.problem(
                    f"{where}/from", f"'{value['from']}' points at nothing netglean's result holds"
                )
                return {}
            values = {v for c in _concrete(found, self.defs) for v in c.get("enum", [])}
            for key in value["map"]:
                if values and key not in values:
                    self.problem(f"{where}/map", f"'{key}' is no value of '{value['from']}'")
            return (
                {"enum": sorted({str(value["map"].get(v, v)) for v in values})} if values else found
            )
        self.when(where, envelope, value["when"])
        then = self.source_schema(f"{where}/then", envelope, value["then"])
        other = self.source_schema(f"{where}/else", envelope, value["else"])
        return {"anyOf": [then, other]}

    def when(self, where: str, envelope: dict[str, Any], equalities: dict[str, Any]) -> None:
        """A when's pointers, each to a value that can equal the one given."""
        for pointer, expected in equalities.items():
            found = schema_at(envelope, self.defs, pointer)
            at = f"{where}/when/{escape(pointer)}"
            if found is None:
                self.problem(at, f"'{pointer}' points at nothing netglean's result holds")
            elif not Draft202012Validator({**found, "$defs": self.defs}).is_valid(expected):
                self.problem(at, f"{expected!r} is no value '{pointer}' can hold")

    def text(self, where: str, form: Any, envelope: dict[str, Any], projection: Any) -> None:
        """A text form's pointers, and the arguments and values it is chosen by."""
        if form in UNFRAMED_FORMS and projection == "none":
            self.problem(
                where, f"text {form} is the JSON of structuredContent, and the result is none"
            )
        if isinstance(form, dict) and "template" in form:
            item: dict[str, Any] | None = envelope
            if "each" in form:
                item = self.each_item(f"{where}/each", envelope, form["each"])
                self.placeholders(where, form.get("head", ""), envelope)
            if item is not None:
                self.placeholders(where, form["template"], item)
        if isinstance(form, dict) and "by_argument" in form:
            argument = self.input_schema.get("properties", {}).get(form["by_argument"])
            if argument is None:
                self.problem(f"{where}/by_argument", f"'{form['by_argument']}' is no argument")
            else:
                allowed = argument.get("enum")
                for value in form["forms"]:
                    if allowed is not None and value not in [str(v) for v in allowed]:
                        self.problem(
                            f"{where}/forms", f"'{value}' is no value of '{form['by_argument']}'"
                        )
            for value, inner in form["forms"].items():
                self.text(f"{where}/forms/{escape(value)}", inner, envelope, projection)
            self.text(f"{where}/otherwise", form["otherwise"], envelope, projection)

    def each_item(
        self, where: str, envelope: dict[str, Any], pointer: str
    ) -> dict[str, Any] | None:
        """The schema of one item of the array ``each`` points at (None, said, when it is no
        array)."""
        found = schema_at(envelope, self.defs, pointer)
        arrays = (
            [c for c in _concrete(found, self.defs) if "items" in c] if found is not None else []
        )
        if not arrays:
            self.problem(where, f"'{pointer}' points at no array netglean's result holds")
            return None
        return (
            {"anyOf": [a["items"] for a in arrays]} if len(arrays) > 1 else dict(arrays[0]["items"])
        )

    def placeholders(self, where: str, template: str, schema: dict[str, Any]) -> None:
        """A template's {/pointer} placeholders, each checked against ``schema``."""
        for pointer in _PLACEHOLDER.findall(template):
            if schema_at(schema, self.defs, pointer) is None:
                self.problem(
                    where,
                    f"the template's '{{{pointer}}}' points at nothing netglean's result holds",
                )
        rest = _PLACEHOLDER.sub("", template)
        if "{" in rest or "}" in rest:
            self.problem(where, "a template's placeholders are {/pointer}; write no other braces")

    def jsonrpc(self, where: str, code: str, rule: dict[str, Any]) -> None:
        message = rule["message"]
        if not isinstance(message, dict):
            return
        if schema_at(self.failure, self.defs, message["from"]) is None:
            self.problem(
                f"{where}/message", f"'{message['from']}' points at nothing a failure holds"
            )
        quote_free = code in CODES and CODES[code].quote_free  # "*" stands for codes that quote
        if self.tool.origin == "target" and not quote_free:
            self.problem(
                f"{where}/message",
                f"a JSON-RPC error stands in no untrusted frame, and {self.tool.name}'s '{code}' "
                "message can quote what a target chose: give the seed's own words",
            )


def _unframed(form: Any) -> bool:
    """Whether the text form can carry a result outside netglean's untrusted frame."""
    if form in UNFRAMED_FORMS:
        return True
    if isinstance(form, dict) and "template" in form:
        return bool(form.get("frame", "none") == "none")  # the seed's frame (seed) is a frame too
    if isinstance(form, dict) and "by_argument" in form:
        return any(_unframed(inner) for inner in (*form["forms"].values(), form["otherwise"]))
    return False


def _leaves_frame(tool: ProfileTool) -> bool:
    return (
        _unframed(tool.text)
        or any(
            _unframed(rule.get("text", tool.text))
            for rule in tool.errors.values()
            if "jsonrpc" not in rule
        )
        or any(_unframed(rule["text"]) for rule in tool.failed_when)
    )


def _carries_notice(projection: Any) -> bool:
    """Whether the projection keeps the envelope's untrusted-content notice, for a text block
    without the frame."""
    if projection == "envelope":
        return True
    if projection == "none":
        return False
    if "when" in projection:
        return _carries_notice(projection["then"]) and _carries_notice(projection["else"])
    if projection.get("from", "") == "" and UNTRUSTED_NOTICE_KEY in projection.get(
        "keep", [UNTRUSTED_NOTICE_KEY]
    ):
        return True
    return any(
        _names(value, f"/{UNTRUSTED_NOTICE_KEY}") for value in projection.get("set", {}).values()
    )


def _names(value: Any, pointer: str) -> bool:
    if isinstance(value, str):
        return value == pointer
    if isinstance(value, dict):
        return any(
            _names(inner, pointer)
            for inner in (value.get("from"), value.get("then"), value.get("else"))
        )
    return False


def _profiled_input(
    source: SourceFile, at: str, tool: Tool, arguments: dict[str, Any], out: Collector
) -> dict[str, Any]:
    """The tool's input schema as the seed's client sees it: its arguments renamed, the seed's
    defaults, and the arguments it accepts without applying them."""
    schema = copy.deepcopy(tool.input_schema)
    own = schema.get("properties", {})
    properties, required = dict(own), list(schema.get("required", []))
    renamed: dict[str, str] = {}
    for name, rule in arguments.items():
        where = f"{at}/arguments/{escape(name)}"
        if "not_applied" in rule or "answer_only" in rule:
            accepted = _accepted(source, where, name, rule, tool=tool, out=out)
            if accepted is not None:
                properties[name] = accepted
            continue
        if "schema" in rule:
            out.add(
                source,
                f"{where}/schema",
                f"{where}/schema: an applied argument has netglean's schema",
            )
        target = rule.get("as", name)
        if target not in own:
            out.add(source, where, f"{where}: '{target}' is no argument of {tool.name}")
            continue
        if name != target and name in own:
            message = f"'{name}' is {tool.name}'s own argument; it cannot also stand for '{target}'"
            out.add(source, where, f"{where}: {message}")
            continue
        if target in renamed:
            out.add(source, where, f"{where}: '{target}' is already the seed's '{renamed[target]}'")
            continue
        renamed[target] = name
        argument = dict(properties.pop(target))
        if "item_keys" in rule:
            argument = _items_renamed(
                source, f"{where}/item_keys", argument, rule["item_keys"], out
            )
        if "fixed" in rule:
            if not Draft202012Validator(argument).is_valid(rule["fixed"]):
                out.add(
                    source,
                    f"{where}/fixed",
                    f"{where}/fixed: {rule['fixed']!r} is no value of '{target}'",
                )
            required = [r for r in required if r != target]
            continue
        if "values" in rule:
            for spelt, meant in rule["values"].items():
                if not Draft202012Validator(argument).is_valid(meant):
                    out.add(
                        source,
                        f"{where}/values",
                        f"{where}/values: {spelt}: {meant!r} is no value of '{target}'",
                    )
            if "enum" in argument:
                argument["enum"] = list(rule["values"])
                argument.pop("default", None)
        if "default" in rule:
            # An argument whose own schema is broken is its tool file's problem (reported there),
            # not a bad default.
            if _is_schema(argument) and not Draft202012Validator(argument).is_valid(
                rule["default"]
            ):
                out.add(
                    source,
                    f"{where}/default",
                    f"{where}/default: {rule['default']!r} is no value of '{target}'",
                )
            argument["default"] = rule["default"]
        properties[name] = argument
        required = [name if r == target else r for r in required]
        if rule.get("required"):
            if "default" in rule:
                out.add(
                    source,
                    f"{where}/required",
                    f"{where}/required: a required argument has no default",
                )
            elif name in required:
                out.add(
                    source,
                    f"{where}/required",
                    f"{where}/required: {tool.name} requires '{target}' already",
                )
            else:
                required.append(name)
    schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def _is_schema(schema: dict[str, Any]) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


def _items_renamed(
    source: SourceFile, where: str, argument: dict[str, Any], keys: dict[str, str], out: Collector
) -> dict[str, Any]:
    """An array argument's schema with its items' keys under the seed's names (item_keys)."""
    items = argument.get("items", {})
    properties = items.get("properties") if argument.get("type") == "array" else None
    if not isinstance(properties, dict):
        out.add(source, where, f"{where}: item_keys renames the keys of an array of objects' items")
        return argument
    properties, required = dict(properties), list(items.get("required", []))
    for seed_key, own in keys.items():
        if own not in properties:
            out.add(source, where, f"{where}: '{own}' is no key of the items")
        elif seed_key in properties:
            out.add(source, where, f"{where}: '{seed_key}' is the items' own key already")
        else:
            properties[seed_key] = properties.pop(own)
            required = [seed_key if key == own else key for key in required]
    return {**argument, "items": {**items, "properties": properties, "required": required}}


def _accepted(
    source: SourceFile, where: str, name: str, rule: dict[str, Any], *, tool: Tool, out: Collector
) -> dict[str, Any] | None:
    """The listed schema of a seed's argument accepted without being applied, or only choosing how
    the answer is written (None when it is unusable)."""
    kind = "answer_only" if "answer_only" in rule else "not_applied"
    for key in (
        "as",
        "default",
        "required",
        "fixed",
        "values",
        "not_applied" if kind == "answer_only" else "answer_only",
    ):
        if key in rule:
            said = (
                "an answer_only argument"
                if kind == "answer_only"
                else "an argument that is not applied"
            )
            out.add(source, f"{where}/{key}", f"{where}/{key}: {said} has no {key}")
    if kind == "not_applied" and name in tool.input_schema.get("properties", {}):
        out.add(source, where, f"{where}: '{name}' is an argument of {tool.name}, which applies it")
    if "schema" not in rule:
        out.add(
            source, where, f"{where}: say what a call may give for it (schema: the seed's type)"
        )
        return None
    try:
        Draft202012Validator.check_schema(rule["schema"])
    except SchemaError as exc:
        out.add(source, f"{where}/schema", f"{where}/schema: not a JSON Schema: {exc.message}")
        return None
    if kind == "answer_only":
        return {**rule["schema"], "description": rule["answer_only"]}
    return {**rule["schema"], "description": f"Accepted, not applied here: {rule['not_applied']}"}


# --- the seed's frame, environment, policy, resources, prompts ------------------------------------

_QUARANTINE_WORDS = {"begin": "BEGIN UNTRUSTED CONTENT", "end": "END UNTRUSTED CONTENT"}
"""What each marker of a seed's frame must say: the words netglean's cleaning breaks wherever a page
writes them, so a page cannot show a marker of either frame."""


def _forms(form: Any) -> Iterator[Any]:
    yield form
    if isinstance(form, dict) and "by_argument" in form:
        for inner in (*form["forms"].values(), form["otherwise"]):
            yield from _forms(inner)


def _seed_framed(tool: ProfileTool) -> bool:
    forms = [
        tool.text,
        *(rule.get("text", tool.text) for rule in tool.errors.values() if "jsonrpc" not in rule),
    ]
    forms += [rule["text"] for rule in tool.failed_when]
    return any(
        isinstance(f, dict) and f.get("frame") == "seed" for form in forms for f in _forms(form)
    )


def _check_quarantine(
    source: SourceFile, quarantine: dict[str, Any] | None, served: list[ProfileTool], out: Collector
) -> None:
    """The seed's frame: there when a text form asks for it, with its markers' words and
    placeholders."""
    framed = [t.name for t in served if _seed_framed(t)]
    if quarantine is None:
        if framed:
            message = (
                f"{', '.join(framed)} answer(s) in the seed's frame (frame: seed): write it "
                "(quarantine: ...)"
            )
            out.add(source, "/tools", f"/tools: {message}")
        return
    if not framed:
        out.add(source, "/quarantine", "/quarantine: no text form answers in it (frame: seed)")
    for key, needed in (("notice", {"source"}), ("begin", {"nonce", "source"}), ("end", {"nonce"})):
        where = f"/quarantine/{key}"
        named = set(_VARIABLES.findall(quarantine[key]))
        if named - needed or (key != "notice" and needed - named):
            spelt = ", ".join(f"{{{n}}}" for n in sorted(needed))
            out.add(
                source,
                where,
                f"{where}: its placeholders are {spelt}" + (" (both)" if len(needed) > 1 else ""),
            )
        if key in _QUARANTINE_WORDS and _QUARANTINE_WORDS[key] not in quarantine[key]:
            out.add(source, where, f"{where}: the marker must say {_QUARANTINE_WORDS[key]}")
        if key != "notice" and "\n" in quarantine[key]:
            out.add(source, where, f"{where}: a marker is one line")


def _setting_named(name: str) -> Any:
    return next((s for s in SETTINGS if s.name == name), None)


def _stricter_or_same(name: str, value: Any, than: Any) -> bool:
    way = TIGHTER[name]
    if way == "more":
        return {item.strip() for item in str(value).split(",")} >= {
            item.strip() for item in str(than).split(",")
        }
    if way == "off":
        return not value or bool(than)
    return bool(value <= than) if way == "lower" else bool(value >= than)


def _check_environment(source: SourceFile, variables: dict[str, Any], out: Collector) -> None:
    for variable, rule in variables.items():
        where = f"/environment/{escape(variable)}"
        if "not_applied" in rule:
            for key in ("values", "default", "clamp", "fallback"):
                if key in rule:
                    out.add(
                        source,
                        f"{where}/{key}",
                        f"{where}/{key}: a variable that is not applied sets nothing",
                    )
            continue
        setting = _setting_named(rule["setting"])
        if setting is None:
            out.add(
                source,
                f"{where}/setting",
                f"{where}/setting: '{rule['setting']}' is no operator setting",
            )
            continue
        _check_clamp(source, where, rule, setting, out)
        for spelt, meant in rule.get("values", {}).items():
            if spelt != spelt.lower():
                out.add(
                    source,
                    f"{where}/values",
                    f"{where}/values: '{spelt}': the seed's spellings match in any case; write "
                    "them lower-case",
                )
            try:
                setting.parse(meant, f"'{spelt}' means")
            except ConfigurationError as exc:
                out.add(source, f"{where}/values", f"{where}/values: {exc}")
        if "default" in rule:
            try:
                setting.check(rule["default"], f"{where}/default")
            except ConfigurationError as exc:
                out.add(source, f"{where}/default", f"{where}/default: {exc}")
                continue
            if not isinstance(rule["default"], setting.kind) or isinstance(
                rule["default"], bool
            ) != (setting.kind is bool):
                out.add(
                    source,
                    f"{where}/default",
                    f"{where}/default: {setting.name} is a {setting.kind.__name__}",
                )
            elif setting.name in TIGHTER and not _stricter_or_same(
                setting.name, rule["default"], setting.default
            ):
                out.add(
                    source,
                    f"{where}/default",
                    f"{where}/default: a profile may not loosen netglean's network policy "
                    f"({setting.name} {setting.default!r})",
                )
            elif setting.name in {"allow_private_targets", "dev", "fetch_only_hosts"}:
                out.add(
                    source,
                    f"{where}/default",
                    f"{where}/default: {setting.name} is the operator's alone to set",
                )


def _check_clamp(
    source: SourceFile, where: str, rule: dict[str, Any], setting: Any, out: Collector
) -> None:
    """A clamp is for a number setting, least first, within what the setting takes, around the
    default; a fallback needs the default it falls back to."""
    if rule.get("fallback") and "default" not in rule:
        out.add(
            source,
            f"{where}/fallback",
            f"{where}/fallback: a fallback gives the default: write one",
        )
    if "clamp" not in rule:
        return
    least, most = rule["clamp"]
    at = f"{where}/clamp"
    if setting.kind not in (int, float):
        out.add(source, at, f"{at}: {setting.name} is no number to clamp")
    elif least > most:
        out.add(source, at, f"{at}: {least} is more than {most}")
    elif setting.minimum is not None and least < setting.minimum:
        out.add(source, at, f"{at}: {least} is below {setting.name}'s minimum {setting.minimum:g}")
    elif "default" in rule and not least <= rule["default"] <= most:
        out.add(source, at, f"{at}: the default {rule['default']} is outside [{least}, {most}]")


def _check_policy(source: SourceFile, policy: dict[str, Any], out: Collector) -> None:
    for name, value in policy.items():
        where = f"/policy/{escape(name)}"
        if name not in TIGHTER:
            out.add(
                source,
                where,
                f"{where}: '{name}' is no setting a profile can tighten ({', '.join(TIGHTER)})",
            )
            continue
        setting = _setting_named(name)
        if isinstance(value, bool) != (setting.kind is bool) or isinstance(value, str) != (
            setting.kind is str
        ):
            out.add(source, where, f"{where}: {name} is a {setting.kind.__name__}")
            continue
        try:
            setting.check(value, where)
        except ConfigurationError as exc:
            out.add(source, where, str(exc))
            continue
        # netglean's default is allowed: it holds against an operator's looser value (a seed's
        # mandatory limit)
        if not _stricter_or_same(name, value, setting.default):
            out.add(
                source,
                where,
                f"{where}: {value!r} would loosen netglean's {name} ({setting.default!r})",
            )


def _check_resources(
    source: SourceFile, addresses: dict[str, str], known: _Known, out: Collector
) -> None:
    by_name = {r.name: r for r in known.resources}
    owners = {(r.uri or r.uri_template or ""): r.name for r in known.resources}
    for address, name in addresses.items():
        where = f"/resources/{escape(address)}"
        resource = by_name.get(name)
        if resource is None:
            if name not in known.invalid:
                out.add(source, where, f"{where}: '{name}' is no resource of the catalog")
            continue
        if owners.get(address, name) != name:
            out.add(
                source,
                where,
                f"{where}: '{address}' is already the address of resource '{owners[address]}'",
            )
        variables = _VARIABLES.findall(address)
        own = _VARIABLES.findall(resource.uri_template or "")
        if len(variables) != len(own) or len(set(variables)) != len(variables):
            spelt = (
                f"{len(own)}, standing for the template's own in order ({', '.join(own)})"
                if own
                else "none"
            )
            out.add(source, where, f"{where}: the variables of '{address}' must be {spelt}")
        elif not all(re.fullmatch(r"[A-Za-z_]+", v) for v in variables):
            out.add(source, where, f"{where}: a variable of '{address}' is letters and _ only")


def _check_prompts(
    source: SourceFile, names: dict[str, str], known: _Known, out: Collector
) -> None:
    prompts = {p.name for p in known.prompts}
    for alias, name in names.items():
        where = f"/prompts/{escape(alias)}"
        if name not in prompts:
            if name not in known.invalid:
                out.add(source, where, f"{where}: '{name}' is no prompt of the catalog")
        elif alias != name and alias in prompts:
            out.add(
                source,
                where,
                f"{where}: '{alias}' is netglean's prompt '{alias}'; it cannot also render "
                f"'{name}'",
            )


# --- which profiles go together -------------------------------------------------------------------


def conflicts(profiles: list[Profile]) -> list[dict[str, Any]]:
    """Each pair of profiles that cannot be served together, with every reason: both answer one name
    (each in its own seed's shape), both announce the server's identity, both read one environment
    variable differently, or one tightens the network policy of the whole server (which would change
    the other's tools)."""
    found = []
    ordered = sorted(profiles, key=lambda p: p.name)
    for index, first in enumerate(ordered):
        for second in ordered[index + 1 :]:
            reasons = list(_clashes(first, second))
            if reasons:
                found.append({"profiles": (first.name, second.name), "reasons": tuple(reasons)})
    return found


def _clashes(first: Profile, second: Profile) -> Iterator[str]:
    pair = f"{first.name} and {second.name}"
    for kind, mine, theirs in (
        ("tool", {t.name for t in first.tools}, {t.name for t in second.tools}),
        ("resource", set(first.resources), set(second.resources)),
        ("prompt", set(first.prompts), set(second.prompts)),
    ):
        for name in sorted(mine & theirs):
            yield f"{pair} both answer the {kind} '{name}', each in its own seed's shape"
    if first.server and second.server:
        yield (
            f"{pair} both announce the server's identity ({first.server['name']}, "
            f"{second.server['name']}); a server announces one"
        )
    for variable in sorted(set(first.environment) & set(second.environment)):
        if first.environment[variable] != second.environment[variable]:
            yield f"{pair} both read {variable}, each as its own seed means it"
    for tightening, other in ((first, second), (second, first)):
        if tightening.policy:
            settings = ", ".join(f"{k} {v!r}" for k, v in sorted(tightening.policy.items()))
            yield (
                f"{tightening.name} tightens the network policy of the whole server "
                f"({settings}), which would change {other.name}'s tools too"
            )


def runtime_table(profile: Profile) -> dict[str, Any]:
    """What the runtime applies of ``profile`` (its contract ledger is for the docs)."""
    return {
        "name": profile.name,
        "title": profile.title,
        "server": profile.server,
        "environment": profile.environment,
        "policy": profile.policy,
        "unframed": profile.unframed,
        "quarantine": profile.quarantine,
        "tools": {
            t.name: {
                "tool": t.tool,
                "arguments": t.arguments,
                "input_schema": t.input_schema,
                "output_schema": t.output_schema,
                "text": t.text,
                "result": t.result,
                "errors": _runtime_errors(t.errors),
                "failed_when": list(t.failed_when),
            }
            for t in profile.tools
        },
        "resources": profile.resources,
        "prompts": profile.prompts,
    }


def _runtime_errors(errors: dict[str, Any]) -> dict[str, Any]:
    """The error rules with each JSON-RPC code as its number."""
    return {
        code: {**rule, "jsonrpc": int(JSONRPC_CODES.get(rule["jsonrpc"], rule["jsonrpc"]))}
        if "jsonrpc" in rule
        else rule
        for code, rule in errors.items()
    }
