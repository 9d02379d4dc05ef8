"""Wire profiles at run time: a seed's names for netglean's tools, and the shape its clients read.

The generator checked each profile (catalog/profiles/NAME.yaml) and wrote what the runtime applies
into the generated registry (``PROFILES``, and which of them collide, ``PROFILE_CONFLICTS``). Two
places apply it, both on the one call path: the runner takes a profiled tool's arguments as the seed
names them (``ToolWire.arguments_in``), and the MCP entry point answers in the seed's shape
(``ToolWire.answer``): its structuredContent projected from netglean's envelope, its text block, its
failures as results or JSON-RPC errors. netglean's envelope stays the default: a name no profile
serves answers as it always has.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from netglean.core import untrusted
from netglean.core.errors import ConfigurationError, InvalidArguments
from netglean.core.settings import SETTINGS
from netglean.core.validation import Problem, SchemaValidator

_PLACEHOLDER = re.compile(r"\{(/[^{}]*)\}")
_ABSENT = object()


def _parts(pointer: str) -> list[str]:
    return (
        [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
        if pointer
        else []
    )


def value_at(document: Any, pointer: str) -> Any:
    """The value at a JSON pointer, or ``_ABSENT``."""
    current = document
    for part in _parts(pointer):
        current = _step(current, part)
        if current is _ABSENT:
            return _ABSENT
    return current


def _step(current: Any, part: str) -> Any:
    """The value one pointer token below ``current``, or ``_ABSENT``."""
    if isinstance(current, Mapping) and part in current:
        return current[part]
    if isinstance(current, list) and part.isdigit() and int(part) < len(current):
        return current[int(part)]
    return _ABSENT


def values_at(document: Any, pointer: str) -> list[Any]:
    """The values at a JSON pointer whose ``*`` tokens stand for every item of an array, flattened
    in order."""
    found = [document]
    for part in _parts(pointer):
        below: list[Any] = []
        for current in found:
            if part == "*" and isinstance(current, list):
                below += current
            elif (inner := _step(current, part)) is not _ABSENT:
                below.append(inner)
        found = below
    return found


def _value(envelope: Mapping[str, Any], source: Any) -> Any:
    """A value of the seed's result, from its source in the profile (a pointer, const, map or
    when)."""
    if isinstance(source, str):
        return value_at(envelope, source)
    if "const" in source:
        return source["const"]
    if "each" in source:
        found = value_at(envelope, source["each"])
        return (
            [project(item, source["as"]) for item in found] if isinstance(found, list) else _ABSENT
        )
    if "map" in source:
        found = value_at(envelope, source["from"])
        return source["map"].get(found, found) if isinstance(found, str) else found
    return _value(
        envelope, source["then"] if _conditions_hold(envelope, source["when"]) else source["else"]
    )


def _conditions_hold(envelope: Mapping[str, Any], when: Mapping[str, Any]) -> bool:
    """Whether every pointer's value in ``envelope`` is the one ``when`` gives."""
    return all(value_at(envelope, pointer) == expected for pointer, expected in when.items())


def project(envelope: Mapping[str, Any], projection: Any) -> dict[str, Any] | None:
    """structuredContent as ``projection`` makes it of netglean's envelope (None: no
    structuredContent)."""
    if projection == "envelope":
        return dict(envelope)
    if projection == "none":
        return None
    if "when" in projection:
        return project(
            envelope,
            projection["then"]
            if _conditions_hold(envelope, projection["when"])
            else projection["else"],
        )
    start = value_at(envelope, projection.get("from", ""))
    made = {k: v for k, v in start.items() if "keep" not in projection or k in projection["keep"]}
    for target, source in projection.get("set", {}).items():
        value = _value(envelope, source)
        *path, last = _parts(target)
        parent = made
        for part in path:
            # copied on the way down: netglean's envelope is not changed
            parent[part] = dict(parent[part])
            parent = parent[part]
        if value is _ABSENT:
            parent.pop(last, None)
        else:
            parent[last] = value
    return made


class JsonRpcFailure(Exception):
    """A failure the seed's client reads as a JSON-RPC error (the entry point raises it as one)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class SeedResponse:
    """A call's answer in the seed's shape."""

    text: str
    structured: dict[str, Any] | None
    is_error: bool


@dataclass(frozen=True, slots=True)
class _Filling:
    """What a text block is made from: netglean's envelope, the seed's result, the call's arguments
    as the seed gave them, netglean's own text (made only when asked for) and the source the call
    read."""

    envelope: Mapping[str, Any]
    structured: Mapping[str, Any] | None
    arguments: Mapping[str, Any]
    netglean_text: Callable[[], str]
    source: str | None


@dataclass(frozen=True, slots=True)
class ToolWire:
    """One of a seed's tool names as its profile serves it."""

    profile: str
    name: str
    tool: str
    arguments: Mapping[str, Mapping[str, Any]]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    text: Any
    result: Any
    errors: Mapping[str, Mapping[str, Any]]
    failed_when: tuple[Mapping[str, Any], ...] = ()
    """Successes of netglean's the seed answers as failures (isError): the envelope's values, and
    the answer."""
    quarantine: Mapping[str, Any] | None = None
    """The seed's own untrusted frame, for a template whose frame is seed."""
    _checks: dict[str, SchemaValidator] = field(default_factory=dict, compare=False, repr=False)

    def arguments_in(self, arguments: Any) -> tuple[Any, tuple[str, ...]]:
        """The call's arguments as netglean's tool takes them (the seed's names renamed, the seed's
        defaults given), and the seed's arguments it gave that are accepted without being applied. A
        not-applied argument of the wrong type is invalid, as any argument is."""
        if not isinstance(arguments, Mapping):
            return arguments, ()
        given, unapplied = dict(arguments), []
        problems: list[Problem] = []
        for name, rule in self.arguments.items():
            if "not_applied" in rule or "answer_only" in rule:
                if name in given:
                    check = self._checks.setdefault(name, SchemaValidator(rule["schema"]))
                    problems += [_name_problem(name, p) for p in check.problems(given.pop(name))]
                    if "not_applied" in rule:
                        unapplied.append(name)
                continue
            own = rule.get("as", name)
            if "fixed" in rule:  # the seed's tool always has it: not the caller's to give
                if name in given:
                    problems.append(Problem(f"/{name}", name, f"unknown argument '{name}'"))
                given[own] = rule["fixed"]
                continue
            if "item_keys" in rule and isinstance(given.get(name), list):
                given[name] = [_keys_renamed(item, rule["item_keys"]) for item in given[name]]
            if rule.get("required") and name not in given:
                problems.append(Problem(f"/{name}", name, f"argument '{name}' is required"))
            if name in given:
                value = given.pop(name)
                given[own] = (
                    rule.get("values", {}).get(value, value) if isinstance(value, str) else value
                )
            elif own not in given and "default" in rule:
                given[own] = rule["default"]
        if problems:
            message = f"invalid arguments for {self.name}: " + "; ".join(
                p.message for p in problems
            )
            raise InvalidArguments(message, detail={"errors": [p.as_dict() for p in problems]})
        return given, tuple(unapplied)

    def answer(
        self,
        envelope: Mapping[str, Any],
        arguments: Mapping[str, Any],
        netglean_text: Callable[[], str],
        source: str | None,
    ) -> SeedResponse:
        """The call's answer as the seed's client reads it; a failure the seed answers as a JSON-RPC
        error raises ``JsonRpcFailure``."""
        ok = bool(envelope["ok"])
        projection, text = self.result, self.text
        failed = (
            next(
                (rule for rule in self.failed_when if _conditions_hold(envelope, rule["when"])),
                None,
            )
            if ok
            else None
        )
        if failed is not None:
            structured = project(envelope, failed.get("result", "none"))
            filling = _Filling(envelope, structured, arguments, netglean_text, source)
            return SeedResponse(self._text(failed["text"], filling), structured, True)
        if not ok:
            code = str(envelope["payload"].get("error", {}).get("code", ""))
            rule = self.errors.get(code) or self.errors.get("*") or {}
            if "jsonrpc" in rule:
                message = rule["message"]
                said = message if isinstance(message, str) else value_at(envelope, message["from"])
                raise JsonRpcFailure(int(rule["jsonrpc"]), str(said))
            projection, text = rule.get("result", "envelope"), rule.get("text", text)
        structured = project(envelope, projection)
        filling = _Filling(envelope, structured, arguments, netglean_text, source)
        return SeedResponse(self._text(text, filling), structured, not ok)

    def _text(self, form: Any, filling: _Filling) -> str:
        if form == "netglean":
            return filling.netglean_text()
        if form == "json":
            return json.dumps(filling.structured, ensure_ascii=False)
        if form == "pretty_json":
            return json.dumps(filling.structured, ensure_ascii=False, indent=2)
        if "by_argument" in form:
            name = form["by_argument"]
            default = self.arguments.get(name, {}).get("default", self._own_default(name))
            inner = form["forms"].get(str(filling.arguments.get(name, default)), form["otherwise"])
            return self._text(inner, filling)
        if "each" in form:
            arrays = values_at(filling.envelope, form["each"])
            items = [item for found in arrays if isinstance(found, list) for item in found]
            written = [
                _fill_template(form["template"], item, skip=form.get("skip_empty", False))
                for item in items
            ]
            head = _fill_template(
                form.get("head", ""), filling.envelope, skip=form.get("skip_empty", False)
            )
            filled = str(form.get("join", "\n\n")).join(filter(None, [head, *written]))
        else:
            filled = _fill_template(
                form["template"], filling.envelope, skip=form.get("skip_empty", False)
            )
        if form.get("frame") == "netglean":
            return untrusted.frame(filling.source or self.name, filled, cleaned=True)
        # the generator saw that it is there
        if form.get("frame") == "seed" and self.quarantine is not None:
            seed = self.quarantine
            named = filling.arguments.get(seed.get("source_argument", ""))
            return untrusted.frame_as(
                filling.source or (named if isinstance(named, str) and named else self.name),
                filled,
                notice=seed["notice"],
                begin=seed["begin"],
                end=seed["end"],
                digits=seed["nonce_digits"],
            )
        return filled

    def _own_default(self, argument: str) -> Any:
        return self.input_schema.get("properties", {}).get(argument, {}).get("default")


def _keys_renamed(item: Any, keys: Mapping[str, str]) -> Any:
    """An item of an array argument with the seed's keys as netglean's (where it does not give
    netglean's)."""
    if not isinstance(item, Mapping):
        return item
    renamed = dict(item)
    for seed_key, own in keys.items():
        if seed_key in renamed and own not in renamed:
            renamed[own] = renamed.pop(seed_key)
    return renamed


def _fill_template(template: str, document: Any, *, skip: bool) -> str:
    """``template`` with its placeholders filled from ``document``; with ``skip``, without the lines
    whose placeholders all find nothing."""
    if not skip:
        return _PLACEHOLDER.sub(lambda m: _shown(value_at(document, m.group(1))), template)
    kept = []
    for line in template.split("\n"):
        shown = [_shown(value_at(document, pointer)) for pointer in _PLACEHOLDER.findall(line)]
        if shown and not any(shown):
            continue
        kept.append(_PLACEHOLDER.sub(lambda m: _shown(value_at(document, m.group(1))), line))
    return "\n".join(kept)


def _shown(value: Any) -> str:
    if value is _ABSENT or value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _name_problem(argument: str, problem: Problem) -> Problem:
    """A not-applied argument's problem, said of the argument by name."""
    where = f"/{argument}{problem.pointer}"
    return Problem(where, argument, f"argument '{argument}': {problem.message}")


@dataclass(frozen=True, slots=True)
class Profile:
    """A seed's wire profile, as the generator wrote it."""

    name: str
    title: str
    server: Mapping[str, str] | None
    environment: Mapping[str, Mapping[str, Any]]
    policy: Mapping[str, Any]
    unframed: str
    tools: Mapping[str, ToolWire]
    resources: Mapping[str, str]
    prompts: Mapping[str, str]

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> Profile:
        return cls(
            name=table["name"],
            title=table["title"],
            server=table["server"],
            environment=table["environment"],
            policy=table["policy"],
            unframed=table["unframed"],
            tools={
                name: ToolWire(
                    profile=table["name"],
                    name=name,
                    quarantine=table.get("quarantine"),
                    **{**entry, "failed_when": tuple(entry.get("failed_when", ()))},
                )
                for name, entry in table["tools"].items()
            },
            resources=table["resources"],
            prompts=table["prompts"],
        )


def refusal(chosen: Iterable[str], conflicts: Iterable[Mapping[str, Any]]) -> str | None:
    """Why the profiles ``chosen`` cannot be served together (None when they can)."""
    wanted = set(chosen)
    reasons = [reason for c in conflicts if set(c["profiles"]) <= wanted for reason in c["reasons"]]
    if not reasons:
        return None
    return "these profiles cannot be served together: " + "; ".join(reasons)


def seed_environment(profiles: Iterable[Profile], environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with each setting the profiles' seeds' variables give as its ``NETGLEAN_``
    variable, where that is not set already (the seed's spelling of a value translated, a number
    clamped, a refused value the default where the seed falls back), and the profiles' defaults
    where neither is."""
    translated = dict(environ)
    for profile in profiles:
        for variable, rule in profile.environment.items():
            if "setting" not in rule:
                continue
            own = f"NETGLEAN_{rule['setting'].upper()}"
            if own in translated:
                continue
            if variable in environ:
                value, _ = _seed_value(rule, environ[variable])
                translated[own] = value
            elif "default" in rule:
                translated[own] = _spelt(rule["default"])
    return translated


def _spelt(value: Any) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else str(value)


def _seed_value(rule: Mapping[str, Any], given: str) -> tuple[str, bool]:
    """What the seed's variable set to ``given`` means as the setting's variable, and whether it
    fell back to the default (a value the setting refuses, where the seed falls back)."""
    raw = given.strip()
    meant = rule.get("values", {}).get(raw.lower(), raw)
    setting = next(s for s in SETTINGS if s.name == rule["setting"])
    if "clamp" in rule:
        try:
            number = setting.kind(meant)
        except ValueError:
            number = None
        if number is not None and math.isfinite(number):
            least, most = rule["clamp"]
            meant = str(setting.kind(min(max(number, least), most)))
    if rule.get("fallback"):
        try:
            setting.parse(meant, "")
        except ConfigurationError:
            return _spelt(rule["default"]), True
    return meant, False


def start_notices(profiles: Iterable[Profile], environ: Mapping[str, str]) -> list[str]:
    """What an operator who turned ``profiles`` on is told at start: what a profile gives up, and
    each variable of a seed's that is set and not used."""
    said = []
    for profile in profiles:
        if profile.unframed:
            said.append(f"netglean: --compat {profile.name}: {profile.unframed}")
        for variable, rule in profile.environment.items():
            if "not_applied" in rule and environ.get(variable):
                said.append(
                    f"netglean: {variable} is set and not used ({profile.name} profile): "
                    f"{rule['not_applied']}"
                )
            elif (
                "setting" in rule
                and variable in environ
                and _seed_value(rule, environ[variable])[1]
            ):
                default = _spelt(rule["default"])
                said.append(
                    f"netglean: {variable} is no value {profile.title} takes; {default} is used, "
                    "as it does"
                )
    return said


def policy_of(profiles: Iterable[Profile]) -> dict[str, Any]:
    """The network-policy settings the profiles tighten (one profile at most: with another they are
    refused)."""
    return {name: value for profile in profiles for name, value in profile.policy.items()}
