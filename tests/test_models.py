"""The generated models as handlers see them: the catalog's defaults, plain values, one model per
input."""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from netglean.calls.registry import Registry, resolve
from netglean.generated import models

HANDLERS = Path(__file__).resolve().parent.parent / "netglean" / "handlers"


def _admits_none(annotation: Any) -> bool:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_admits_none(arg) for arg in typing.get_args(annotation))
    return annotation is type(None)


def test_every_default_is_the_catalogs_and_never_none(registry: Registry) -> None:
    for spec in registry.tools.values():
        model: type[BaseModel] = resolve(spec.input_model)
        for name, prop in spec.input_schema.get("properties", {}).items():
            field = model.model_fields[name]
            if "default" in prop:
                assert field.default == prop["default"], (spec.name, name)
                assert not _admits_none(field.annotation), (
                    f"{spec.name}.{name} has a default, so it is never None"
                )


def test_constrained_strings_in_lists_are_plain_strings() -> None:
    given = models.BatchScrapeInput.model_validate(
        {"urls": ["https://example.org/a", "https://example.org/b"]}
    )
    assert given.urls == ["https://example.org/a", "https://example.org/b"]
    assert all(type(url) is str for url in given.urls)
    crawl = models.CrawlInput.model_validate(
        {"url": "https://example.org/", "include_patterns": ["*/blog/*"]}
    )
    assert crawl.include_patterns == ["*/blog/*"]
    with pytest.raises(ValidationError):
        models.BatchScrapeInput.model_validate({"urls": ["x" * 4097]})


def test_a_presence_rule_is_checked_on_one_model() -> None:
    """A feed config's anyOf [required selectors] | [required auto_source] is one FeedConfig, not a
    union of near-copies; the tools' "config or yaml" is the runner's (exactly_one_of), so their
    model is one model too."""
    assert models.ApplyConfigInput.model_validate({"yaml": "channel: {}"}).limit is None
    assert set(models.FeedConfig.model_fields) >= {"selectors", "auto_source"}
    with pytest.raises(ValidationError):
        models.FeedConfig.model_validate({"channel": {"url": "https://example.org/"}})
    with pytest.raises(ValidationError):
        models.BatchScrapeInput.model_validate(
            {"urls": ["https://example.org/", "https://example.org/"]}
        )


def test_a_payload_that_is_a_shared_schema_is_its_model() -> None:
    assert models.ScrapeOutput is models.ScrapedPage
    assert models.CrawlOutput is models.SiteCrawl


def _defaulted(registry: Registry) -> set[str]:
    return {
        name
        for spec in registry.tools.values()
        for name, prop in spec.input_schema.get("properties", {}).items()
        if "default" in prop
    }


def _args_field(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "args"
    ):
        return node.attr
    return None


def test_handlers_repeat_no_default(registry: Registry) -> None:
    """No `args.max_chars or 20000`, no `args.heading if args.heading is not None else ...`: the
    model has it."""
    defaulted = _defaulted(registry)
    found = []
    for path in sorted(HANDLERS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            fallbacks: list[ast.expr] = []
            if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
                fallbacks = node.values[:-1]
            elif isinstance(node, ast.Compare) and any(
                isinstance(side, ast.Constant) and side.value is None for side in node.comparators
            ):
                fallbacks = [node.left]
            for candidate in fallbacks:
                name = _args_field(candidate)
                if name in defaulted:
                    found.append(f"{path.name}:{candidate.lineno}: args.{name}")
    assert not found, found
