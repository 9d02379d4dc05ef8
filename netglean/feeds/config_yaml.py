"""Feed configs written as YAML: read only what JSON could hold, from a document whose shape is
checked first (nesting, and aliases that would expand into a billion values) before anything is
built."""

from __future__ import annotations

import math
from typing import Any

import yaml

from netglean.core.validation import quote_value, shorten_message
from netglean.feeds.problems import Problem, invalid, json_pointer

# the tools' yaml maxLength: even 4-byte characters fit the default argument cap
MAX_YAML_CHARS = 131_072
MAX_YAML_DEPTH = 32
"""Deepest nesting a YAML config may have (the corpus's deepest is 6); deeper would exhaust the
reader's stack."""
MAX_YAML_VALUES = 50_000
"""Most values a YAML config may stand for once its aliases are expanded: 500 bytes of aliases to
aliases can stand for a billion strings, which every later step (checking, copying, echoing) would
walk."""


def parse_yaml(text: str) -> Any:
    """The YAML document, or InvalidFeedConfig naming the line where it breaks."""
    if len(text) > MAX_YAML_CHARS:
        raise invalid(
            [Problem("", f"the YAML is {len(text)} characters; the limit is {MAX_YAML_CHARS}")]
        )
    try:
        _check_shape(text)
        document = yaml.load(text, Loader=_ConfigLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise invalid([Problem("", shorten_message(f"not valid YAML{where}: {reason}"))]) from None
    found = _not_json(document)
    if found:
        raise invalid(found)
    return document


class _ConfigLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a date or time written plainly stays the text it is: a
    config holds what JSON holds, and a ``since: 2026-11-29`` in free-form metadata must not break
    the config's echo."""


_ConfigLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _not_json(document: Any) -> list[Problem]:
    """What YAML read as something JSON cannot hold: keys that are not text (null, yes, 1...: a
    config's keys are names), numbers that are not finite (.inf, .nan), and explicitly tagged
    binaries, sets and dates."""
    found: list[Problem] = []
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:  # nesting is bounded by _check_shape
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, inner in value.items():
                if not isinstance(key, str):
                    hint = (
                        "quote it: YAML reads null, ~, yes, no, on, off and numbers as other types"
                    )
                    found.append(
                        Problem(path or "/", f"the key {quote_value(key)} is not text; {hint}")
                    )
                stack.append((inner, f"{path}/{json_pointer([key])[1:]}"))
        elif isinstance(value, list):
            stack.extend((inner, f"{path}/{n}") for n, inner in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            found.append(
                Problem(
                    path or "/",
                    f"{value!r} is not a number a config can hold; quote it if it is text",
                )
            )
        elif not isinstance(value, str | int | float | bool) and value is not None:
            kind = type(value).__name__
            found.append(
                Problem(path or "/", f"YAML read this as a {kind}, which a config cannot hold")
            )
    return sorted(found, key=lambda p: (p.path, p.message))


def _check_shape(text: str) -> None:
    """Refuse, from the event stream and before anything is built, YAML nested past MAX_YAML_DEPTH,
    aliases that refer to the value holding them, or aliases standing for more than MAX_YAML_VALUES
    values."""
    # anchor -> values its node stands for; None while the node is open
    anchored: dict[str, int | None] = {}
    # (anchor, values so far) for each open collection
    open_nodes: list[tuple[str | None, int]] = [(None, 0)]
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) > MAX_YAML_DEPTH:
                raise invalid(
                    [
                        Problem(
                            "", f"the YAML nests deeper than {MAX_YAML_DEPTH} levels {_at(event)}"
                        )
                    ]
                )
            if event.anchor is not None:
                anchored[event.anchor] = None
            open_nodes.append((event.anchor, 1))
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            anchor, size = open_nodes.pop()
            if anchor is not None:
                anchored[anchor] = size
        elif isinstance(event, yaml.AliasEvent):
            # an unknown anchor is the composer's error to report
            known = anchored.get(event.anchor or "", 1)
            if known is None:
                raise invalid(
                    [
                        Problem(
                            "",
                            f"the alias *{event.anchor} {_at(event)} refers to a value that "
                            "holds it",
                        )
                    ]
                )
            size = known
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor is not None:
                anchored[event.anchor] = size
        else:
            continue
        anchor, total = open_nodes[-1]
        open_nodes[-1] = (anchor, total + size)
        if sum(count for _, count in open_nodes) > MAX_YAML_VALUES:
            expanded = (
                f"the YAML stands for more than {MAX_YAML_VALUES} values once its aliases are "
                "expanded"
            )
            raise invalid([Problem("", f"{expanded} ({_at(event)})")])


def _at(event: yaml.Event) -> str:
    mark = event.start_mark
    return (
        f"at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "in the YAML"
    )
