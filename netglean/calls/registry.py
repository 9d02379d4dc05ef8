"""A typed, read-only view of the generated registry (``generated/registry.py``).

The generated module holds plain literals so importing it is cheap; this module
turns them into frozen specs once, at start-up. Handlers are imported lazily,
on their first call, so listing tools never pays for a handler's imports.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from netglean.calls.profiles import Profile, ToolWire, policy_of, refusal
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
    """The tool's own advice after a failure, by error code (from its catalog entry; none in an
    older registry)."""
    failure_payload: tuple[str, ...] = ()
    """The fields of a failure's detail its payload also carries beside ``error`` (the catalog's
    failure_payload)."""
    exactly_one_of: tuple[tuple[str, ...], ...] = ()
    """Groups of arguments of which a call gives exactly one each (the catalog's exactly_one_of)."""
    alias_of: str | None = None
    """For a seed's name of the tool (a profile's): the netglean tool it names, whose spec a call
    runs (its runs, next steps, errors)."""


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    title: str
    description: str
    uri: str | None
    uri_template: str | None
    mime_type: str
    handler: str
    variables: Mapping[str, str] = field(default_factory=dict)
    """A seed's address's variables, each with the handler's it stands for (a profile spells them
    its own way)."""


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
    """The generated package the registry belongs to: its command-line tables, schemas and docs are
    beside it."""
    profiles: Mapping[str, Profile] = field(default_factory=dict)
    """The wire profiles its catalog declares, by the word ``compat`` takes."""
    conflicts: tuple[Mapping[str, Any], ...] = ()
    """Each pair of profiles that cannot be served together, with why."""
    wires: Mapping[str, ToolWire] = field(default_factory=dict)
    """The tool names the served profiles answer in their seeds' shape (``with_profiles``)."""
    served: tuple[str, ...] = ()
    """The profiles served, in the order the operator named them."""
    policy: Mapping[str, Any] = field(default_factory=dict)
    """The network-policy settings the served profiles make stricter."""

    @property
    def folder(self) -> Path:
        """Where the generated package's files are (the docs site the HTTP server serves, the
        schemas)."""
        return Path(importlib.import_module(self.package).__file__ or "").resolve().parent

    def with_profiles(self, names: Iterable[str]) -> Registry:
        """This registry serving the wire profiles ``names`` (the operator's ``compat``): each
        seed's tool, resource and prompt names answer as the netglean ones they name (a name of
        netglean's own is answered in the seed's shape; another is listed after netglean's own), the
        server announces a seed's identity where its profile gives one. Profiles that collide are
        refused, saying why."""
        chosen = list(dict.fromkeys(names))
        if not chosen:
            return self
        unknown = [name for name in chosen if name not in self.profiles]
        if unknown:
            raise ConfigurationError(
                f"compat: {self.package} has no profile {', '.join(map(repr, unknown))}"
            )
        refused = refusal(chosen, self.conflicts)
        if refused:
            raise ConfigurationError(f"compat: {refused}")
        served = [self.profiles[name] for name in chosen]
        tools, resources, prompts = dict(self.tools), list(self.resources), dict(self.prompts)
        wires: dict[str, ToolWire] = {}
        server = self.server
        for profile in served:
            for wire in profile.tools.values():
                if wire.name != wire.tool:
                    tools[wire.name] = _tool_alias(self.tools[wire.tool], wire.name, profile.title)
                wires[wire.name] = wire
            by_name = {r.name: r for r in self.resources}
            resources += [
                _resource_alias(by_name[name], address, profile.title)
                for address, name in profile.resources.items()
                if address != (by_name[name].uri or by_name[name].uri_template)
            ]
            prompts |= {
                alias: _prompt_alias(self.prompts[name], alias, profile.title)
                for alias, name in profile.prompts.items()
                if alias != name
            }
            if profile.server:
                server = replace(server, **profile.server)
        return replace(
            self,
            server=server,
            tools=tools,
            resources=tuple(resources),
            prompts=prompts,
            wires=wires,
            served=tuple(chosen),
            policy=policy_of(served),
        )

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
                # A registry generated before profiles came has none.
                profiles={
                    n: Profile.from_table(t) for n, t in getattr(module, "PROFILES", {}).items()
                },
                conflicts=tuple(getattr(module, "PROFILE_CONFLICTS", ())),
            )
        except (AttributeError, TypeError, KeyError) as exc:
            raise ConfigurationError(
                f"{module.__name__} is not a netglean registry ({exc}); run `netglean gen`"
            ) from exc


def _tool_alias(spec: ToolSpec, name: str, server: str) -> ToolSpec:
    """``spec`` under ``server``'s ``name``: a call of it runs ``spec`` (``alias_of``), so its run
    record and next steps are netglean's tool's."""
    description = (
        f"{server}'s name for netglean's {spec.name}, the same tool (its next steps name "
        "netglean's tools)."
    )
    return replace(
        spec,
        name=name,
        title=f"{spec.title} ({server}'s name)",
        description=f"{description} {spec.description}",
        alias_of=spec.name,
    )


def _resource_alias(spec: ResourceSpec, address: str, server: str) -> ResourceSpec:
    """``spec`` at ``server``'s ``address``: a template's variables, in order, stand for netglean's
    (the catalog checks there are as many), however the seed spells them."""
    own = spec.uri or spec.uri_template
    spelt = re.findall(r"\{([A-Za-z_]+)\}", address)
    description = f"{server}'s address for netglean's {own}, the same resource."
    return replace(
        spec,
        variables=dict(
            zip(spelt, re.findall(r"\{([a-z_]+)\}", spec.uri_template or ""), strict=True)
        ),
        title=f"{spec.title} ({server}'s address)",
        description=f"{description} {spec.description}",
        uri=address if spec.uri is not None else None,
        uri_template=address if spec.uri_template is not None else None,
    )


def _prompt_alias(spec: PromptSpec, name: str, server: str) -> PromptSpec:
    return replace(
        spec,
        name=name,
        title=f"{spec.title} ({server}'s name)",
        description=f"{server}'s name for netglean's {spec.name} prompt. {spec.description}",
    )


def load_registry(module_name: str = REGISTRY_MODULE) -> Registry:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"cannot import the generated registry {module_name!r}: {exc}"
        ) from exc
    return Registry.from_module(module)


def resolve(reference: str) -> Any:
    """Import ``package.module:attribute`` (handlers, models) named in the registry."""
    module_name, _, attribute = reference.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(
            f"registry names {reference!r}, which cannot be imported: {exc}"
        ) from exc
