"""A typed, read-only view of the generated registry (``generated/registry.py``).

The generated module holds plain literals so importing it is cheap; this module
turns them into frozen specs once, at start-up. Handlers are imported lazily,
on their first call, so listing tools never pays for a handler's imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from netglean.core.errors import ConfigurationError
from netglean.core.settings import COMPAT_SETS

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
    compat: Mapping[str, str] = field(default_factory=dict)
    """The tool's names under other servers' compat sets (the catalog's compat), served by ``Registry.with_compat``."""
    alias_of: str | None = None
    """For a compat name's spec: the netglean tool it names, whose spec a call runs (its runs, next steps, errors)."""


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    title: str
    description: str
    uri: str | None
    uri_template: str | None
    mime_type: str
    handler: str
    compat: Mapping[str, str] = field(default_factory=dict)
    """The resource's addresses under other servers' compat sets (a URI, or a template of the same variables)."""


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
    compat: Mapping[str, str] = field(default_factory=dict)
    """The prompt's names under other servers' compat sets."""


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

    def with_compat(self, sets: Iterable[str]) -> Registry:
        """This registry answering also to the names its catalog gives its tools, resources and prompts in the
        compat sets ``sets`` (the operator's ``compat``), so a client written for that server works: each is listed
        after netglean's own, with the same schemas, annotations and handler, and says whose name it is."""
        wanted = set(sets)
        chosen = [key for key in COMPAT_SETS if key in wanted]
        if not chosen:
            return self
        tools, resources, prompts = dict(self.tools), list(self.resources), dict(self.prompts)
        for key in chosen:
            server = COMPAT_SETS[key]
            tools |= {
                s.compat[key]: _tool_alias(s, s.compat[key], server) for s in self.tools.values() if key in s.compat
            }
            resources += [_resource_alias(r, r.compat[key], server) for r in self.resources if key in r.compat]
            prompts |= {
                p.compat[key]: _prompt_alias(p, p.compat[key], server) for p in self.prompts.values() if key in p.compat
            }
        return replace(self, tools=tools, resources=tuple(resources), prompts=prompts)

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
                        compat=p.get("compat", {}),
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


def _tool_alias(spec: ToolSpec, name: str, server: str) -> ToolSpec:
    """``spec`` under ``server``'s ``name``: a call of it runs ``spec`` (``alias_of``), so its envelope, run record and
    next steps are netglean's tool's."""
    description = f"{server}'s name for netglean's {spec.name}, the same tool (its next steps name netglean's tools)."
    return replace(
        spec,
        name=name,
        title=f"{spec.title} ({server}'s name)",
        description=f"{description} {spec.description}",
        compat={},
        alias_of=spec.name,
    )


def _resource_alias(spec: ResourceSpec, address: str, server: str) -> ResourceSpec:
    """``spec`` at ``server``'s ``address``: a template's variables are spelt as netglean's (the catalog checks)."""
    own = spec.uri or spec.uri_template
    return replace(
        spec,
        title=f"{spec.title} ({server}'s address)",
        description=f"{server}'s address for netglean's {own}, the same resource. {spec.description}",
        uri=address if spec.uri is not None else None,
        uri_template=address if spec.uri_template is not None else None,
        compat={},
    )


def _prompt_alias(spec: PromptSpec, name: str, server: str) -> PromptSpec:
    return replace(
        spec,
        name=name,
        title=f"{spec.title} ({server}'s name)",
        description=f"{server}'s name for netglean's {spec.name} prompt. {spec.description}",
        compat={},
    )


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
