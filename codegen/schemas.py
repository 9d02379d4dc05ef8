"""The JSON Schemas embedded in the catalog: what makes one unusable (a problem each, with where it
stands), the third-party marks in an output, and the bundle of shared schemas one references."""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Iterator
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.errors import Collector
from codegen.fragments import INLINE, Inlined
from codegen.keywords import SCHEMA_KEYWORDS, subschemas
from codegen.yaml_source import SourceFile, escape

REF = re.compile(r"^#/\$defs/([A-Za-z0-9]+)$")


def json_pointer(parts: Any) -> str:
    return "".join("/" + escape(p) for p in parts)


def walk_refs(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield pointer + "/$ref", value
            else:
                yield from walk_refs(value, f"{pointer}/{escape(key)}")
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from walk_refs(item, f"{pointer}/{index}")


def marks(schema: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """Every ``x-untrusted`` keyword in ``schema``, with where it stands."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == UNTRUSTED_MARK:
                yield f"{pointer}/{escape(key)}", value
            else:
                yield from marks(value, f"{pointer}/{escape(key)}")
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from marks(item, f"{pointer}/{index}")


UNTRUSTED_MARK = "x-untrusted"
"""The output-schema keyword that marks a field as third-party text."""


def check_untrusted_marks(source: SourceFile, payload: dict[str, Any], out: Collector) -> None:
    """A target-origin tool's output says which fields are third-party text (``x-untrusted: true``,
    here or in a shared schema it uses); a local tool has none to mark."""
    found = list(marks(payload, "/output"))
    for where, value in found:
        if value is not True:
            out.add(source, where, f"{where}: {UNTRUSTED_MARK} is true or absent, not {value!r}")
    origin = source.data["origin"]
    if origin == "target" and not found:
        out.add(
            source,
            "/output",
            f"/output: mark the fields that carry third-party text with {UNTRUSTED_MARK}: true",
        )
    if origin == "local" and found:
        out.add(
            source, found[0][0], f"{found[0][0]}: a local tool returns no third-party text to mark"
        )


def bundle(schema: dict[str, Any], shared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``schema`` with the shared schemas it references (transitively) under ``$defs``."""
    needed: set[str] = set()
    pending = [schema]
    while pending:
        for _, ref in walk_refs(pending.pop(), ""):
            match = REF.match(ref)
            if match and match.group(1) in shared and match.group(1) not in needed:
                needed.add(match.group(1))
                pending.append(shared[match.group(1)])
    result = copy.deepcopy(schema)
    if needed:
        result["$defs"] = {name: copy.deepcopy(shared[name]) for name in sorted(needed)}
    return result


def _unknown_keywords(schema: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """Keys of ``schema`` (and of the schemas inside it) that are no JSON Schema keyword and no x-
    extension: JSON Schema ignores them, so a typo, or a flow-mapping description cut at its comma,
    would pass in silence."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        where = f"{pointer}/{escape(key)}"
        if key not in SCHEMA_KEYWORDS and not key.startswith("x-"):
            yield where, key, value
        for inner_pointer, inner in subschemas(key, value, where):
            yield from _unknown_keywords(inner, inner_pointer)


class _Content:
    """A schema keyed by what it holds (its repr), so equal schemas share one check whatever object
    holds them."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._key = repr(schema)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Content) and other._key == self._key


@lru_cache(maxsize=4096)
def _meta_schema_error(content: _Content) -> tuple[tuple[str | int, ...], str] | None:
    """Where and why a schema is no valid JSON Schema 2020-12, or None: remembered by content, as
    checking against the metaschema is half of a catalog's load and a catalog edited in one place
    (the catalog tests load some 80 such) holds the same schemas but one."""
    try:
        Draft202012Validator.check_schema(content.schema)
    except SchemaError as exc:
        return tuple(exc.absolute_path), exc.message
    return None


def check_schema(
    source: SourceFile,
    pointer: str,
    inlined: Inlined,
    shared: Collection[str],
    out: Collector,
    *,
    raw: Any,
) -> bool:
    """Report what is wrong with one embedded schema (``raw`` as written, ``inlined`` with its
    fragments inlined); True when it is usable."""
    # when not, the problem is reported where it is: checking on would only echo it
    usable = inlined.sound
    for where, key, value in _unknown_keywords(raw, pointer):
        hint = (
            ": quote a flow-mapping text that holds a comma (YAML ends the text there)"
            if value is None
            else ""
        )
        out.add(
            source,
            where,
            f"{where}: {key!r} is not a JSON Schema 2020-12 keyword (x-… for extensions){hint}",
        )
        usable = False
    if not inlined.sound:
        return False
    schema = inlined.schema
    wrong = _meta_schema_error(_Content(schema))
    if wrong is not None:
        path, message = wrong
        where = pointer + json_pointer(path)
        out.add(source, where, f"{where}: not a valid JSON Schema 2020-12: {message}")
        return False
    if isinstance(schema, dict) and "$defs" in schema and pointer:
        out.add(
            source,
            pointer + "/$defs",
            f"{pointer}/$defs: put shared definitions in catalog/schemas/ instead",
        )
        usable = False
    for ref_pointer, ref in walk_refs(schema, pointer):
        match = REF.match(ref)
        if not match or match.group(1) not in shared:
            known = ", ".join(sorted(shared)) or "none defined"
            out.add(
                source,
                ref_pointer,
                f"{ref_pointer}: $ref '{ref}' does not resolve (shared schemas: {known})",
            )
            usable = False
    for where in _stray_inlines(schema, pointer):
        out.add(
            source,
            where,
            f"{where}: {INLINE} stands only where a schema does (a property, items, ...)",
        )
        usable = False
    return usable


def _stray_inlines(value: Any, pointer: str) -> Iterator[str]:
    """Where ``x-inline`` is left after inlining: inside a value (a default, an example), not a
    schema."""
    if isinstance(value, dict):
        for key, inner in value.items():
            where = f"{pointer}/{escape(key)}"
            if key == INLINE:
                yield where
            yield from _stray_inlines(inner, where)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _stray_inlines(inner, f"{pointer}/{index}")
