"""A typed, read-only view of the generated registry (``generated/registry.py``).

The generated module holds plain literals so importing it is cheap; this module
turns them into frozen specs once, at start-up. Handlers are imported lazily,
on their first call, so listing tools never pays for a handler's imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from netglean.core.errors import ConfigurationError

REGISTRY_MODULE = "netglean.generated.registry"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    origin: str
    handler: str
    input_model: str
    entry_point: bool
    annotations: Mapping[str, bool]
    execution: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    next_step: tuple[str, ...]
    examples: tuple[Mapping[str, Any], ...]
    failure_guidance: Mapping[str, str] = field(default_factory=dict)
    """The tool's own advice after a failure, by error code (from its catalog entry; none in an older registry)."""
    failure_payload: tuple[str, ...] = ()
    """The fields of a failure's detail its payload also carries beside ``error`` (the catalog's failure_payload)."""
    exactly_one_of: tuple[tuple[str, ...], ...] = ()
    """Groups of arguments of which a call gives exactly one each (the catalog's exactly_one_of)."""


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    title: str
    description: str
    uri: str | None
    uri_template: str | None
    mime_type: str
    handler: str


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str
    required: bool
    default: str | None


@dataclass(frozen=True, slots=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    messages: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ServerSpec:
    name: str
    title: str
    description: str
    instructions: str
    website_url: str | None


@dataclass(frozen=True, slots=True)
class Registry:
    server: ServerSpec
    catalog_hash: str
    tools: Mapping[str, ToolSpec]
    resources: tuple[ResourceSpec, ...]
    prompts: Mapping[str, PromptSpec]
    graph: Mapping[str, Any]
    package: str = "netglean.generated"
    """The generated package the registry belongs to: its command-line tables, schemas and docs are beside it."""

    @property
    def folder(self) -> Path:
        """Where the generated package's files are (the docs site the HTTP server serves, the schemas)."""
        return Path(importlib.import_module(self.package).__file__ or "").resolve().parent

    @classmethod
    def from_module(cls, module: ModuleType) -> Registry:
        try:
            return cls(
                server=ServerSpec(**module.SERVER),
                catalog_hash=module.CATALOG_HASH,
                tools={t["name"]: ToolSpec(**t) for t in module.TOOLS},
                resources=tuple(ResourceSpec(**r) for r in module.RESOURCES),
                prompts={
                    p["name"]: PromptSpec(
                        name=p["name"],
                        title=p["title"],
                        description=p["description"],
                        arguments=tuple(PromptArgument(**a) for a in p["arguments"]),
                        messages=tuple((m["role"], m["text"]) for m in p["messages"]),
                    )
                    for p in module.PROMPTS
                },
                graph=module.GRAPH,
                package=module.__name__.rpartition(".")[0],
            )
        except (AttributeError, TypeError, KeyError) as exc:
            raise ConfigurationError(
                f"{module.__name__} is not a netglean registry ({exc}); run `netglean gen`"
            ) from exc


def load_registry(module_name: str = REGISTRY_MODULE) -> Registry:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"cannot import the generated registry {module_name!r}: {exc}") from exc
    return Registry.from_module(module)


def resolve(reference: str) -> Any:
    """Import ``package.module:attribute`` (handlers, models) named in the registry."""
    module_name, _, attribute = reference.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(f"registry names {reference!r}, which cannot be imported: {exc}") from exc
