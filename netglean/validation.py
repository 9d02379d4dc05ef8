"""Compiled, cached JSON Schema validation with messages that name the argument at fault.

Validators are built on first use (importing jsonschema costs start-up time that
``initialize`` and ``tools/list`` never need) and kept for the process's life.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


@dataclass(frozen=True, slots=True)
class Problem:
    """One way an instance breaks its schema: where (pointer and argument name) and what."""

    pointer: str
    argument: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"argument": self.argument, "pointer": self.pointer, "problem": self.message}


def json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _pointer(parts: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _dotted(parts: list[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(error: ValidationError) -> list[Problem]:
    """Turn one jsonschema error into sentences a model can act on."""
    parts = list(error.absolute_path)
    where = _dotted(parts)
    expected: Any = error.validator_value
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "required":
        missing = [name for name in expected if isinstance(error.instance, dict) and name not in error.instance]
        return [
            Problem(
                _pointer([*parts, name]),
                _dotted([*parts, name]),
                f"missing required argument '{_dotted([*parts, name])}'",
            )
            for name in missing
        ]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        patterns = schema.get("patternProperties", {})
        extra = sorted(
            key for key in error.instance if key not in allowed and not any(re.search(p, key) for p in patterns)
        )
        hint = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        return [
            Problem(
                _pointer([*parts, key]), _dotted([*parts, key]), f"unknown argument '{_dotted([*parts, key])}'{hint}"
            )
            for key in extra
        ]
    subject = f"argument '{where}'" if where else "the arguments"
    if error.validator == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        shown = json.dumps(error.instance, ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return [Problem(_pointer(parts), where, f"{subject} must be {wanted}, got {json_type(error.instance)} {shown}")]
    return [Problem(_pointer(parts), where, f"{subject}: {error.message}")]


class SchemaValidator:
    """A JSON Schema 2020-12 validator compiled once and reused for every call."""

    __slots__ = ("_validator",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        from jsonschema import Draft202012Validator

        self._validator: Validator = Draft202012Validator(schema)

    def problems(self, instance: Any) -> list[Problem]:
        """Every problem, most specific first, de-duplicated; empty when the instance is valid."""
        if self._validator.is_valid(instance):
            return []
        found: list[Problem] = []
        for error in sorted(self._validator.iter_errors(instance), key=lambda e: (list(e.absolute_path), e.validator)):
            leaves = _leaf_errors(error)
            for leaf in leaves:
                for problem in _describe(leaf):
                    if problem not in found:
                        found.append(problem)
        return found


def _leaf_errors(error: ValidationError) -> list[ValidationError]:
    """The errors under a oneOf/anyOf that explain it best, or the error itself."""
    if error.context:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        return [best] if best is not None else [error]
    return [error]
