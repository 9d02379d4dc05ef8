"""The registry (netglean.calls.registry): the generated tables as frozen specs, a module that is no
registry named as such, and references that resolve."""

from __future__ import annotations

import dataclasses
import re
import types

import pytest

from netglean.calls.registry import REGISTRY_MODULE, Registry, load_registry, resolve
from netglean.core.errors import ConfigurationError
from netglean.generated import registry as generated
from tests.support.paths import PROJECT
from tests.support.toy_tools import toy_registry


def test_the_generated_tables_become_specs() -> None:
    registry = load_registry()
    assert list(registry.tools) == [tool["name"] for tool in generated.TOOLS]
    assert registry.catalog_hash == generated.CATALOG_HASH and registry.server.name == "netglean"
    assert (
        registry.package == "netglean.generated"
        and registry.folder == PROJECT / "netglean" / "generated"
    )
    for spec in registry.tools.values():
        assert (
            spec.origin in {"local", "target"}
            and spec.next_step
            and isinstance(spec.next_step, tuple)
        )
        assert spec.output_schema["properties"]["next_step"]["enum"] == sorted(
            {*spec.next_step, spec.name}
        )
    prompt = next(iter(registry.prompts.values()))
    assert all(isinstance(message, tuple) and len(message) == 2 for message in prompt.messages)


def test_specs_are_frozen() -> None:
    spec = load_registry().tools["scrape"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.origin = "local"  # type: ignore[misc]


def test_every_reference_the_registry_names_resolves() -> None:
    registry = load_registry()
    for spec in registry.tools.values():
        assert callable(resolve(spec.handler)) and hasattr(
            resolve(spec.input_model), "model_validate"
        )
    for resource in registry.resources:
        assert callable(resolve(resource.handler))


def test_a_registry_is_known_by_its_package() -> None:
    """Another tool pack's registry (``NAME.registry``) serves its own generated files."""
    module = types.ModuleType("pack.generated.registry")
    names = ("SERVER", "CATALOG_HASH", "TOOLS", "RESOURCES", "PROMPTS", "GRAPH")
    module.__dict__.update({name: getattr(generated, name) for name in names})
    assert Registry.from_module(module).package == "pack.generated"
    assert toy_registry().folder == PROJECT / "tests" / "support"


def test_a_module_that_is_no_registry_is_named_with_the_fix() -> None:
    module = types.ModuleType("somewhere.registry")
    module.SERVER = generated.SERVER  # type: ignore[attr-defined]
    with pytest.raises(
        ConfigurationError,
        match=r"somewhere.registry is not a netglean registry .*run `netglean gen`",
    ):
        Registry.from_module(module)
    module.__dict__.update(
        CATALOG_HASH="", TOOLS=({"name": "x"},), RESOURCES=(), PROMPTS=(), GRAPH={}
    )
    # a tool table of another shape
    with pytest.raises(ConfigurationError, match="is not a netglean registry"):
        Registry.from_module(module)


def test_a_registry_that_cannot_be_imported_is_a_configuration_error() -> None:
    with pytest.raises(
        ConfigurationError,
        match=re.escape("cannot import the generated registry 'no_such_pack.registry'"),
    ):
        load_registry("no_such_pack.registry")
    assert REGISTRY_MODULE == "netglean.generated.registry"


@pytest.mark.parametrize(
    "reference",
    [
        "netglean.handlers.pages:no_such_handler",
        "no_such_module:handler",
        "netglean.handlers.pages",
    ],
)
def test_a_reference_that_does_not_resolve_names_itself(reference: str) -> None:
    with pytest.raises(
        ConfigurationError,
        match=re.escape(f"registry names '{reference}', which cannot be imported"),
    ):
        resolve(reference)


def test_a_profiles_names_are_added_only_when_it_is_served() -> None:
    registry = load_registry()
    assert registry.with_profiles([]) is registry
    with pytest.raises(ConfigurationError, match="has no profile 'nothing'"):
        registry.with_profiles(["nothing"])
    served = registry.with_profiles(["rtila"])
    aliases = {name: spec for name, spec in served.tools.items() if spec.alias_of}
    assert list(served.tools)[: len(registry.tools)] == list(registry.tools)  # netglean's own first
    rtila = registry.profiles["rtila"].tools
    assert aliases and all(rtila[name].tool == spec.alias_of for name, spec in aliases.items())
    assert set(served.wires) == set(rtila) and served.served == ("rtila",)
    alias, own = served.tools["rtila_list_projects"], registry.tools["list_projects"]
    assert alias.description.startswith("RTILA's name for netglean's list_projects")
    assert alias.description.endswith(own.description) and alias.alias_of == own.name
    same = {"name": own.name, "title": own.title, "description": own.description}
    # the same schemas, annotations and handler
    assert dataclasses.replace(alias, alias_of=None, **same) == own
    by_address = {r.uri or r.uri_template: r for r in served.resources}
    assert {"rtila://runs", "rtila://runs/{runId}"} <= set(by_address)
    # RTILA's spelling, the handler's
    assert by_address["rtila://runs/{runId}"].variables == {"runId": "run_id"}
    assert (
        served.prompts["rtila_build_scraper"].messages == registry.prompts["build_scraper"].messages
    )
