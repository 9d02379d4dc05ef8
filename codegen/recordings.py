"""The catalog's recorded examples: what a tool really answered on the docs' example site.

An example marked ``recorded: true`` is run by ``RECORD_COMMAND`` against the example site
(tests/support/example_site.py) and its envelope is kept in ``catalog/recorded/TOOL.json``; the
tool's docs page shows it, and tests/test_recorded_examples.py runs it again and compares. The
generator cannot run the runtime, so it checks what it can: every recorded example has a recording
of the arguments the catalog states, the recorded envelope fits the tool's output schema and the
example's expectation, and no recording is left over from an example the catalog no longer has.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from codegen.catalog_types import Tool
from codegen.errors import Collector
from codegen.schemas import json_pointer

FOLDER = "recorded"
RECORD_COMMAND = "uv run python -m tests.support.recorded"
_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["recorded_by", "tool", "examples"],
    "properties": {
        "recorded_by": {"const": RECORD_COMMAND},
        "tool": {"type": "string"},
        "examples": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["title", "as_written", "given", "arguments", "envelope"],
                "properties": {
                    "title": {"type": "string"},
                    "as_written": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["given", "arguments"],
                        "properties": {"given": {"type": "array"}, "arguments": {"type": "object"}},
                    },
                    "given": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["tool", "arguments"],
                            "properties": {
                                "tool": {"type": "string"},
                                "arguments": {"type": "object"},
                            },
                        },
                    },
                    "arguments": {"type": "object"},
                    "envelope": {"type": "object"},
                },
            },
        },
    },
}


def is_reference(value: Any) -> bool:
    """``{given: N, pointer: /payload/...}``: a value taken from an earlier call's envelope."""
    return isinstance(value, dict) and set(value) == {"given", "pointer"}


def references(value: Any) -> Iterator[dict[str, Any]]:
    if is_reference(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from references(item)
    elif isinstance(value, list):
        for item in value:
            yield from references(item)


def fits(template: Any, resolved: Any) -> bool:
    """Whether ``resolved`` is ``template`` with each reference filled in (by any value)."""
    if is_reference(template):
        return True
    if isinstance(template, dict):
        return (
            isinstance(resolved, dict)
            and set(template) == set(resolved)
            and all(fits(template[k], resolved[k]) for k in template)
        )
    if isinstance(template, list):
        return (
            isinstance(resolved, list)
            and len(template) == len(resolved)
            and all(fits(t, r) for t, r in zip(template, resolved, strict=True))
        )
    return bool(template == resolved and type(template) is type(resolved))


def check_references(tool: Tool, tools: dict[str, Tool], out: Collector) -> None:
    """A recorded example's given calls name tools, and its references point at earlier calls."""
    for index, example in enumerate(tool.examples):
        at = f"/examples/{index}"
        given = example.get("given", [])
        if not example.get("recorded"):
            if given or any(references(example["arguments"])):
                out.add(
                    tool.source,
                    at,
                    "only a recorded example has given calls and references to them",
                )
            continue
        for number, call in enumerate(given):
            if call["tool"] not in tools:
                out.add(
                    tool.source, f"{at}/given/{number}/tool", f"no tool is named '{call['tool']}'"
                )
            for reference in references(call["arguments"]):
                if not _points_back(reference, number):
                    out.add(
                        tool.source,
                        f"{at}/given/{number}",
                        f"{reference} must name an earlier given call",
                    )
        for reference in references(example["arguments"]):
            if not _points_back(reference, len(given)):
                out.add(
                    tool.source, f"{at}/arguments", f"{reference} must name one of the given calls"
                )


def _points_back(reference: dict[str, Any], before: int) -> bool:
    number, pointer = reference["given"], reference["pointer"]
    return (
        isinstance(number, int)
        and 0 <= number < before
        and isinstance(pointer, str)
        and pointer.startswith("/")
    )


def attach(
    tools: list[Tool], root: Path, out: Collector, invalid: Collection[str] = ()
) -> list[Tool]:
    """The tools with their recordings, each checked against its catalog example and the tool's
    schemas (a tool whose file is ``invalid`` keeps its recording unreported: its one mistake is
    reported already)."""
    folder = root / FOLDER
    found = sorted(folder.glob("*")) if folder.is_dir() else []
    files = {path.stem: path for path in found if path.suffix == ".json" and path.is_file()}
    by_name = {tool.name: tool for tool in tools}
    for path in found:
        if files.get(path.stem) != path or (path.stem not in by_name and path.stem not in invalid):
            out.add(
                path,
                1,
                f"a recording of no tool: catalog/{FOLDER}/ holds TOOL.json, written by "
                f"{RECORD_COMMAND}",
            )
    return [
        tool
        if tool.name in invalid
        else dataclasses.replace(tool, recorded=_recorded(tool, files.get(tool.name), out))
        for tool in tools
    ]


def _recorded(tool: Tool, path: Path | None, out: Collector) -> dict[str, dict[str, Any]]:
    wanted = {example["title"]: example for example in tool.examples if example.get("recorded")}
    if path is None:
        for title in wanted:
            out.add(
                tool.source,
                "/examples",
                f"example '{title}' has no recording yet: run {RECORD_COMMAND}",
            )
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        out.add(path, 1, f"unreadable recording ({exc}): run {RECORD_COMMAND} again")
        return {}
    problems = [
        f"{json_pointer(e.absolute_path) or '/'}: {e.message}"
        for e in _validator().iter_errors(data)
    ]
    if problems or data["tool"] != tool.name:
        out.add(
            path,
            1,
            f"not a recording of {tool.name} ({(problems or ['another tool'])[0]}): run "
            f"{RECORD_COMMAND}",
        )
        return {}
    kept = {entry["title"]: entry for entry in data["examples"]}
    for title in sorted(set(kept) - set(wanted)):
        out.add(
            path,
            1,
            f"'{title}' is no recorded example of {tool.name} any more: run {RECORD_COMMAND}",
        )
    for title, example in wanted.items():
        entry = kept.get(title)
        if entry is None:
            out.add(
                tool.source,
                "/examples",
                f"example '{title}' has no recording yet: run {RECORD_COMMAND}",
            )
        else:
            _check_entry(tool, example, entry, path, out)
    return {title: kept[title] for title in wanted if title in kept}


def _check_entry(
    tool: Tool, example: dict[str, Any], entry: dict[str, Any], path: Path, out: Collector
) -> None:
    given = example.get("given", [])
    same_calls = len(given) == len(entry["given"]) and all(
        call["tool"] == kept["tool"] and fits(call["arguments"], kept["arguments"])
        for call, kept in zip(given, entry["given"], strict=False)
    )
    title = example["title"]
    as_written = {"given": given, "arguments": example["arguments"]}
    if entry["as_written"] != as_written or not (
        same_calls and fits(example["arguments"], entry["arguments"])
    ):
        out.add(
            path,
            1,
            f"the recording of '{title}' is stale (the catalog's calls changed): run "
            f"{RECORD_COMMAND}",
        )
        return
    envelope = entry["envelope"]
    checks = (
        ("arguments break the input", tool.input_schema, entry["arguments"]),
        ("envelope breaks the output", tool.output_schema, envelope),
    )
    for what, schema, value in checks:
        error = _deepest(Draft202012Validator(schema).iter_errors(value))
        if error is not None:
            where = json_pointer(error.absolute_path) or "/"
            out.add(
                path, 1, f"'{title}': the recorded {what} schema at {where}: {error.message:.300}"
            )
    expect = example["expect"]
    payload: dict[str, Any] = (
        envelope["payload"] if isinstance(envelope.get("payload"), dict) else {}
    )
    failure: dict[str, Any] = payload["error"] if isinstance(payload.get("error"), dict) else {}
    seen = {
        "ok": envelope.get("ok"),
        "next_step": envelope.get("next_step"),
        "error": None if envelope.get("ok") else failure.get("code"),
    }
    wanted = {"ok": expect["ok"], "next_step": expect["next_step"], "error": expect.get("error")}
    if seen != wanted:
        out.add(
            path,
            1,
            f"'{title}': recorded {seen}, but the example expects {wanted}: fix one, "
            f"{RECORD_COMMAND}",
        )
    if "payload" in expect and payload != expect["payload"]:
        out.add(
            path,
            1,
            f"'{title}': the recorded payload is not the one the example expects: fix one, "
            f"{RECORD_COMMAND}",
        )
    for key, value in expect.get("payload_includes", {}).items():
        if payload.get(key) != value:
            out.add(
                path,
                1,
                f"'{title}': the recorded payload's {key} is not the example's: fix one, "
                f"{RECORD_COMMAND}",
            )


def _deepest(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error deepest in the value: of an envelope's branches (ok or not), the one that got
    furthest."""
    leaves: list[ValidationError] = []
    stack = list(errors)
    while stack:
        error = stack.pop()
        if error.context:
            stack.extend(error.context)
        else:
            leaves.append(error)
    return max(leaves, key=lambda e: len(e.absolute_path), default=None)


def _validator() -> Draft202012Validator:
    return Draft202012Validator(_FILE_SCHEMA)
