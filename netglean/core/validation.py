"""Compiled, cached JSON Schema 2020-12 validation with messages that name the argument at fault.

The runtime validates every call twice (arguments in, envelope out), so it uses
jsonschema-rs, compiled in Rust: a validity check costs about a microsecond.
Validators are built on a tool's first call and kept for the process's life.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


@dataclass(frozen=True, slots=True)
class Problem:
    """One way an instance breaks its schema: where (pointer and argument name) and what."""

    pointer: str
    argument: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"argument": self.argument, "pointer": self.pointer, "problem": self.message}


MAX_REPORTED = 20
"""Most problems one error spells out; the rest are counted. 80,000 unknown keys fit the argument cap, and
the answer naming them all would be larger than the request."""


def reported(problems: list[Problem]) -> tuple[list[Problem], int]:
    """The problems an error names, and how many more there are."""
    return problems[:MAX_REPORTED], max(len(problems) - MAX_REPORTED, 0)


def json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _pointer(parts: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _dotted(parts: list[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(error: jsonschema_rs.ValidationError) -> list[Problem]:
    """Turn one validation error into sentences a model can act on."""
    parts: list[str | int] = list(error.instance_path)
    kind = error.kind
    kinds = jsonschema_rs.ValidationErrorKind
    if isinstance(kind, kinds.Required):
        full = [*parts, kind.property]
        return [Problem(_pointer(full), _dotted(full), f"missing required argument '{_dotted(full)}'")]
    if isinstance(kind, kinds.AdditionalProperties):
        return [
            Problem(_pointer([*parts, key]), _dotted([*parts, key]), f"unknown argument '{_dotted([*parts, key])}'")
            for key in kind.unexpected
        ]
    where = _dotted(parts)
    subject = f"argument '{where}'" if where else "the arguments"
    if isinstance(kind, kinds.Type):
        wanted = " or ".join(kind.types)
        return [
            Problem(
                _pointer(parts),
                where,
                f"{subject} must be {wanted}, got {json_type(error.instance)} {_shown(error.instance)}",
            )
        ]
    return [Problem(_pointer(parts), where, f"{subject}: {_quoted_briefly(error.message, error.instance)}")]


def _quoted_briefly(message: str, instance: Any) -> str:
    """The validator's message with the value it quotes cut short: a 100,000-character string or a 101-URL
    array must not come back whole in an error."""
    written = json.dumps(instance, ensure_ascii=False, separators=(",", ":"), default=str)
    if len(written) > 60 and written in message:
        return message.replace(written, _shown(instance), 1)
    return message


class SchemaValidator:
    """A JSON Schema 2020-12 validator compiled once and reused for every call."""

    __slots__ = ("_allowed", "_validator")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._validator = jsonschema_rs.Draft202012Validator(dict(schema))
        properties = schema.get("properties", {})
        self._allowed = sorted(properties) if schema.get("additionalProperties") is False else []

    def is_valid(self, instance: Any) -> bool:
        return bool(self._validator.is_valid(instance))

    def problems(self, instance: Any) -> list[Problem]:
        """Every problem, in document order, de-duplicated; empty when the instance is valid."""
        if self._validator.is_valid(instance):
            return []
        errors = self._validator.iter_errors(instance)
        found = dict.fromkeys(problem for error in errors for problem in _describe(error))  # ordered, hashed once
        return sorted(found, key=lambda p: p.pointer)

    def hint(self) -> str:
        """What a caller may send, for messages about unknown arguments."""
        return f"expected arguments: {', '.join(self._allowed)}" if self._allowed else ""
