"""Compiled, cached JSON Schema 2020-12 validation with messages that name the argument at fault.

The runtime validates every call twice (arguments in, envelope out), so it uses
jsonschema-rs, compiled in Rust: a validity check costs about a microsecond.
Validators are built on a tool's first call and kept for the process's life.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import jsonschema_rs

_Reported = TypeVar("_Reported")
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One way an instance breaks its schema: where (pointer and argument name) and what."""

    pointer: str
    argument: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"argument": self.argument, "pointer": self.pointer, "problem": self.message}


MAX_REPORTED = 20
"""Most problems one error spells out; the rest are counted. 80,000 unknown keys fit the argument
cap, and the answer naming them all would be larger than the request."""


def report_problems(problems: Sequence[_Reported]) -> tuple[list[_Reported], int]:
    """The problems an error names (or a feed config's warnings), and how many more there are."""
    return list(problems[:MAX_REPORTED]), max(len(problems) - MAX_REPORTED, 0)


def json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


QUOTED_CHARS = 80
"""Most characters of a value (or of a name the caller chose) an error message quotes: a
100,000-character string or a 101-URL array must not come back whole, in the message and again in
its detail."""
MESSAGE_CHARS = 240
"""Most characters of one problem's sentence, whatever the validator wrote."""


def quote_value(value: Any) -> str:
    """``value`` as an error quotes it: its JSON, cut after QUOTED_CHARS characters, then how much
    there was (``["https://a.test/1", "https://a.test/2", … (101 items)``)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= QUOTED_CHARS:
        return text
    return f"{text[:QUOTED_CHARS]}… ({_size(value, text)})"


def quote_name(name: str) -> str:
    """A key the caller chose (an unknown argument's name), quoted as briefly as a value."""
    return (
        name
        if len(name) <= QUOTED_CHARS
        else f"{name[:QUOTED_CHARS]}… ({_count(len(name), 'character')})"
    )


def shorten_message(message: str) -> str:
    """A sentence cut to MESSAGE_CHARS, keeping its start and its end (where a validator says what
    is wrong)."""
    if len(message) <= MESSAGE_CHARS:
        return message
    return (
        f"{message[:QUOTED_CHARS]}… ({_count(len(message), 'character')}) "
        f"…{message[-QUOTED_CHARS:]}"
    )


def _size(value: Any, text: str) -> str:
    if isinstance(value, list | tuple):
        return _count(len(value), "item")
    if isinstance(value, Mapping):
        return _count(len(value), "key")
    return _count(len(value) if isinstance(value, str) else len(text), "character")


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def _pointer(parts: list[str | int]) -> str:
    return "".join("/" + quote_name(str(p)).replace("~", "~0").replace("/", "~1") for p in parts)


def _dotted(parts: list[str | int]) -> str:
    out = ""
    for part in parts:
        out += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{quote_name(part)}" if out else quote_name(part))
        )
    return out


def _describe(error: jsonschema_rs.ValidationError) -> list[Problem]:
    """Turn one validation error into sentences a model can act on."""
    parts: list[str | int] = list(error.instance_path)
    kind = error.kind
    kinds = jsonschema_rs.ValidationErrorKind
    if isinstance(kind, kinds.AnyOf | kinds.OneOfNotValid) and kind.context:
        return [problem for inner in _closest(error, kind.context) for problem in _describe(inner)]
    if isinstance(kind, kinds.Required):
        full = [*parts, kind.property]
        return [
            Problem(_pointer(full), _dotted(full), f"missing required argument '{_dotted(full)}'")
        ]
    if isinstance(kind, kinds.AdditionalProperties):
        return [
            Problem(
                _pointer([*parts, key]),
                _dotted([*parts, key]),
                f"unknown argument '{_dotted([*parts, key])}'",
            )
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
                f"{subject} must be {wanted}, got {json_type(error.instance)} "
                f"{quote_value(error.instance)}",
            )
        ]
    if isinstance(kind, kinds.Pattern) and (
        refused := _refused_character(kind.pattern, error.instance)
    ):
        return [
            Problem(
                _pointer(parts),
                where,
                f"{subject}: {refused} is not among the characters it may hold",
            )
        ]
    return [
        Problem(
            _pointer(parts),
            where,
            shorten_message(f"{subject}: {_quoted_briefly(error.message, error.instance)}"),
        )
    ]


_ONE_CLASS = re.compile(r"\^(\[(?:\\.|[^\]\\])+\])[*+]\$")
"""A pattern that allows strings of one class of characters, ``^[...]*$`` or ``^[...]+$``."""
_UNNAMED = {
    "Cc": "a control character",
    "Co": "a private-use character",
    "Cn": "unassigned",
    "Cs": "a surrogate",
}
"""What a character Unicode gives no name is, by its general category."""


def _refused_character(pattern: str, instance: Any) -> str | None:
    """The first character of ``instance`` that a pattern allowing one class of characters refuses,
    named by its code point: quoting the value would show nothing where that is a control or an
    invisible character."""
    shape = _ONE_CLASS.fullmatch(pattern)
    allowed = (
        _character_class(shape[1]) if shape is not None and isinstance(instance, str) else None
    )
    if allowed is None:
        return None
    char = next((char for char in instance if allowed.fullmatch(char) is None), None)
    if char is None:
        return None
    named = unicodedata.name(char, "").lower() or _UNNAMED.get(
        unicodedata.category(char), "unassigned"
    )
    return f"U+{ord(char):04X} ({named})"


@functools.lru_cache(maxsize=64)
def _character_class(written: str) -> re.Pattern[str] | None:
    """The class as Python reads it; None where its syntax is the schema's own (then the message
    quotes the value)."""
    try:
        return re.compile(written)
    except re.error:
        return None


def _closest(
    error: jsonschema_rs.ValidationError, branches: list[list[jsonschema_rs.ValidationError]]
) -> list[jsonschema_rs.ValidationError]:
    """The errors of the choice the value came closest to: the fewest problems with the value itself
    (a missing or unknown key, a wrong type), then the most inside it (the keys it shares with the
    choice). An extract definition whose datasets are wrong is told about its datasets, not that it
    is no crawl."""
    at = list(error.instance_path)

    def distance(branch: list[jsonschema_rs.ValidationError]) -> tuple[int, int]:
        own = sum(1 for inner in branch if list(inner.instance_path) == at)
        return own, own - len(branch)

    return min(branches, key=distance)


def _quoted_briefly(message: str, instance: Any) -> str:
    """The validator's message with the value it quotes cut short (``quote_value``); where the
    validator spelt the value some other way, ``shorten_message`` still cuts the sentence."""
    for ascii_only in (False, True):
        written = json.dumps(instance, ensure_ascii=ascii_only, separators=(",", ":"), default=str)
        if len(written) > QUOTED_CHARS and written in message:
            return message.replace(written, quote_value(instance), 1)
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
        # ordered, hashed once
        found = dict.fromkeys(problem for error in errors for problem in _describe(error))
        return sorted(found, key=lambda p: p.pointer)

    def hint(self) -> str:
        """What a caller may send, for messages about unknown arguments."""
        return f"expected arguments: {', '.join(self._allowed)}" if self._allowed else ""


def choice_problems(
    groups: tuple[tuple[str, ...], ...], arguments: Mapping[str, Any]
) -> list[Problem]:
    """A call must give exactly one argument of each group (a feed config as config or as yaml): the
    input schema cannot say so, since function-calling clients refuse a oneOf at its root."""
    found = []
    for group in groups:
        given = [name for name in group if name in arguments]
        choice = " or ".join(group)
        if not given:
            found.append(
                Problem("", "", f"give exactly one of {choice}; the call gives none of them")
            )
        elif len(given) > 1:
            found.append(
                Problem(
                    f"/{given[1]}",
                    given[1],
                    f"give exactly one of {choice}, not {' and '.join(given)} together",
                )
            )
    return found
