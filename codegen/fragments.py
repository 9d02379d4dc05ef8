"""Fragments: schema pieces written once in catalog/fragments/ and inlined wherever a schema says
``x-inline``.

A shared schema (catalog/schemas/) is published once and referenced with ``$ref``; a fragment is
copied into every schema that names it, so the catalog defines it once and the published schemas
stay flat (an input schema holds no ``$ref``, for clients that cannot follow one). A fragment holds
a piece of a schema::

    name: TargetUrl
    description: What the fragment is, for catalog readers (never published).
    schema: {type: string, minLength: 1, maxLength: 4096}

and a schema uses it by naming it beside its own keywords::

    url: {x-inline: TargetUrl, description: The page to read.}

Inlining merges, in the order the site lists its keywords (``x-inline`` stands for the fragment's):
a site adds keywords, it never changes one the fragment sets, so a keyword both set to different
values, or a property both define, is an error. ``properties`` are joined and ``required`` united,
so an object fragment brings a group of properties (crawl's options, say) into the object that
inlines it. A fragment may inline another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from codegen.keywords import ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS
from codegen.yaml_source import SourceFile, escape

INLINE = "x-inline"
"""The keyword that inlines a fragment: ``{x-inline: Name, ...}``."""

Report = Callable[[SourceFile, str, str], None]
"""Where a problem is reported: (file, JSON pointer, message)."""
Check = Callable[[SourceFile, "Inlined"], bool]
"""Checks a fragment with its own fragments inlined (reporting what is wrong); True when it is
usable."""


@dataclass(frozen=True)
class Inlined:
    """A schema with its fragments inlined: which fragments it used, and whether all went well (when
    not, the problem has been reported where it is, and checking the result again would only echo
    it)."""

    schema: Any
    used: frozenset[str]
    sound: bool


@dataclass
class _Walk:
    source: SourceFile
    used: set[str] = field(default_factory=set)
    sound: bool = True


class Inliner:
    def __init__(self, fragments: Mapping[str, SourceFile], report: Report, check: Check) -> None:
        self._sources = dict(fragments)
        self._report = report
        self._check = check
        self._done: dict[str, Inlined] = {}
        self._active: list[str] = []

    @property
    def names(self) -> list[str]:
        return sorted(self._sources)

    def fragment(self, name: str) -> Inlined:
        """Fragment ``name`` with the fragments it uses inlined, checked once."""
        if name not in self._done:
            source = self._sources[name]
            self._active.append(name)
            inlined = self.inline(source, "/schema", source.data["schema"])
            self._active.pop()
            self._done[name] = Inlined(inlined.schema, inlined.used, self._check(source, inlined))
        return self._done[name]

    def inline(self, source: SourceFile, pointer: str, schema: Any) -> Inlined:
        """``schema`` (at ``pointer`` in ``source``) with every fragment it names inlined."""
        walk = _Walk(source)
        result = self._schema(walk, pointer, schema)
        return Inlined(result, frozenset(walk.used), walk.sound)

    def _schema(self, walk: _Walk, pointer: str, schema: Any) -> Any:
        if not isinstance(schema, dict):
            return schema
        node: dict[str, Any] = {}
        for key, value in schema.items():
            where = f"{pointer}/{escape(key)}"
            if key in ONE_SCHEMA:
                node[key] = self._schema(walk, where, value)
            elif key in SCHEMA_LISTS and isinstance(value, list):
                node[key] = [
                    self._schema(walk, f"{where}/{i}", inner) for i, inner in enumerate(value)
                ]
            elif key in SCHEMA_MAPS and isinstance(value, dict):
                node[key] = {
                    n: self._schema(walk, f"{where}/{escape(n)}", inner)
                    for n, inner in value.items()
                }
            else:
                node[key] = value
        return self._merge(walk, pointer, node) if INLINE in node else node

    def _merge(self, walk: _Walk, pointer: str, site: dict[str, Any]) -> dict[str, Any]:
        name = site[INLINE]
        own = {key: value for key, value in site.items() if key != INLINE}
        if not isinstance(name, str) or name not in self._sources:
            known = ", ".join(self.names) or "none defined"
            self._fail(
                walk,
                f"{pointer}/{INLINE}",
                f"{INLINE}: fragment {name!r} not found (fragments: {known})",
            )
            return own
        if name in self._active:
            cycle = " -> ".join([*self._active[self._active.index(name) :], name])
            self._fail(
                walk, f"{pointer}/{INLINE}", f"{INLINE}: fragments inline each other ({cycle})"
            )
            return own
        fragment = self.fragment(name)
        walk.used |= {name, *fragment.used}
        walk.sound = walk.sound and fragment.sound
        merged: dict[str, Any] = {}

        def put(key: str, value: Any) -> None:
            if key not in merged:
                merged[key] = value
                return
            where = f"{pointer}/{escape(key)}"
            if key == "properties" and isinstance(value, dict) and isinstance(merged[key], dict):
                for both in sorted(set(merged[key]) & set(value)):
                    self._fail(
                        walk,
                        f"{where}/{escape(both)}",
                        f"{where}/{escape(both)}: fragment {name} defines it too",
                    )
                merged[key] = {
                    **merged[key],
                    **{k: v for k, v in value.items() if k not in merged[key]},
                }
            elif key == "required" and isinstance(value, list) and isinstance(merged[key], list):
                merged[key] = list(dict.fromkeys([*merged[key], *value]))
            elif merged[key] != value:
                self._fail(
                    walk,
                    where,
                    f"{where}: fragment {name} sets {key!r} already; a schema adds keywords to a "
                    "fragment, it does not change them",
                )

        for key, value in site.items():
            if key == INLINE:
                for inner, given in fragment.schema.items():
                    put(inner, given)
            else:
                put(key, value)
        return merged

    def _fail(self, walk: _Walk, pointer: str, message: str) -> None:
        walk.sound = False
        self._report(walk.source, pointer, message)
