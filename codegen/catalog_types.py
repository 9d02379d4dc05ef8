"""The picture of a catalog that the generators read: immutable, checked before it is made."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codegen.yaml_source import SourceFile


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
    """What to do after a failure, by error code: the tool's own words, said before the generic
    sentence."""
    exactly_one_of: tuple[tuple[str, ...], ...]
    """Groups of arguments of which a call gives exactly one each (config or yaml), checked by the
    runner."""
    failure_payload: dict[str, Any]
    """The fields a failure's payload carries beside error (copied from its detail), as an object
    schema with its shared schemas bundled; empty when the tool declares none."""
    cli: dict[str, Any]
    """How `netglean call` shows the result to a person: its content field or table, and what
    exits 1."""
    source: SourceFile = field(repr=False, compare=False)
    recorded: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    """The recorded examples' real calls and envelopes, by example title
    (catalog/recorded/TOOL.json)."""

    @property
    def failure_fields(self) -> tuple[str, ...]:
        return tuple(self.failure_payload.get("properties", {}))

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
class ProfileTool:
    """One of a seed's tool names, as a profile serves it."""

    name: str
    """The seed's name."""
    tool: str
    """The netglean tool it runs."""
    arguments: dict[str, dict[str, Any]]
    """The seed's arguments where they differ from netglean's: renamed (as), defaulted, or not
    applied."""
    input_schema: dict[str, Any]
    """The tool's input schema as the seed's client sees it (listed under the profile)."""
    output_schema: dict[str, Any] | None
    """The outputSchema listed under the profile (None: no structuredContent)."""
    text: Any
    result: Any
    errors: dict[str, Any]
    failed_when: tuple[dict[str, Any], ...] = ()
    """Successes of netglean's the seed answers as failures: when, text, result."""


@dataclass(frozen=True)
class Profile:
    """A seed's wire profile (catalog/profiles/NAME.yaml), checked against the catalog it serves."""

    name: str
    title: str
    reference: str
    description: str
    server: dict[str, str] | None
    environment: dict[str, dict[str, Any]]
    policy: dict[str, Any]
    quarantine: dict[str, Any] | None
    """The seed's own untrusted frame (None: the profile answers in netglean's, or in none)."""
    unframed: str
    tools: tuple[ProfileTool, ...]
    resources: dict[str, str]
    prompts: dict[str, str]
    contract: tuple[dict[str, Any], ...]
    """Every item the seed documents and what netglean does with it (the docs' table)."""
    source: SourceFile = field(repr=False, compare=False)


@dataclass(frozen=True)
class GuidePage:
    """A hand-written page of the docs site (catalog/guide/NN-slug.md), rendered beside the tool
    pages."""

    slug: str
    title: str
    markdown: str


@dataclass(frozen=True)
class Catalog:
    server: dict[str, Any]
    tools: tuple[Tool, ...]
    resources: tuple[Resource, ...]
    prompts: tuple[Prompt, ...]
    shared: dict[str, dict[str, Any]]
    readability: dict[str, Any]
    """The agent-readability scale and its findings (catalog/readability/), merged; empty when there
    is none."""
    digest: str
    guide: tuple[GuidePage, ...] = ()
    """The guide's pages, in the order of their file names' numbers."""

    profiles: tuple[Profile, ...] = ()
    """The wire profiles, by name."""

    def tool(self, name: str) -> Tool:
        return next(t for t in self.tools if t.name == name)
