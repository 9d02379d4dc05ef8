"""A project's definition checked, then saved: what its schema cannot say (selectors no reader can
use, datasets named twice, parents in a circle, patterns that cannot be compiled, a start URL that
can never be read), and a feed definition read as apply_config reads a config."""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from netglean.core.errors import InvalidFeedConfig, InvalidProject, ToolError
from netglean.core.validation import MAX_REPORTED, quote_value
from netglean.feeds.config_yaml import parse_yaml
from netglean.feeds.pages import load
from netglean.feeds.problems import Problem
from netglean.net.urls import parse_url
from netglean.store.base import Project

if TYPE_CHECKING:
    from netglean.store.base import RunStore


@dataclass(frozen=True, slots=True)
class Checked:
    """A definition fit to save: as kept (a feed's YAML read into its config), its kind, and its
    feed's ttl in minutes (0 for other kinds, or a feed that says none)."""

    definition: dict[str, Any]
    kind: str
    ttl: int = 0


def kind_of(definition: dict[str, Any]) -> str:
    """The kind a definition's shape says (the three shapes share no required key)."""
    return "extract" if "start_urls" in definition else "crawl" if "url" in definition else "feed"


def invalid(problems: list[Problem]) -> InvalidProject:
    """The refusal of a definition: its first problem in the message, the first MAX_REPORTED in
    detail."""
    first = problems[0]
    more = f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""
    errors = [
        {"argument": "definition", "pointer": p.path, "problem": p.message}
        for p in problems[:MAX_REPORTED]
    ]
    return InvalidProject(
        f"definition: {first.path}: {first.message}{more}", detail={"errors": errors}
    )


def parameters(variables: dict[str, Any]) -> dict[str, Any]:
    """Variables as a feed config's parameters (and a run's values): an array's values joined by
    newlines."""
    return {
        name: "\n".join(str(v) for v in value) if isinstance(value, list) else value
        for name, value in variables.items()
    }


async def checked(
    definition: dict[str, Any], kind: str | None, variables: dict[str, Any]
) -> Checked:
    """The definition fit to save, of the kind asked (None: the kind its shape says); InvalidProject
    naming every problem otherwise."""
    found = kind_of(definition)
    if kind is not None and kind != found:
        message = f"kind {kind} needs a {kind} definition; this one is {found}'s"
        raise invalid([Problem("/definition", message)])
    if found == "feed":
        return await _feed_checked(definition, variables)
    problems = definition_problems(definition) if found == "extract" else crawl_problems(definition)
    if problems:
        raise invalid(problems)
    return Checked(definition, found)


def definition_problems(definition: dict[str, Any]) -> list[Problem]:
    """What the schema cannot say of an extract definition, each with its pointer: selectors no
    reader can use, datasets named twice, a parent that is not a dataset (or a circle of them), a
    key no property has, property keys named twice, a regular expression that cannot be compiled."""
    from netglean.read.html_tree import parse_html
    from netglean.read.patterns import ruby_regex

    problems: list[Problem] = []
    empty = parse_html("")

    def selector(text: str, path: str) -> None:
        try:
            empty.css(text)
        except Exception:  # lexbor's own words name nothing useful: say what it is
            problems.append(
                Problem(path, f"{quote_value(text)} is not a CSS selector netglean can read")
            )

    datasets = definition["datasets"]
    names = [d["name"] for d in datasets]
    for index, dataset in enumerate(datasets):
        where_ = f"/definition/datasets/{index}"
        if dataset["name"] in names[:index]:
            problems.append(
                Problem(f"{where_}/name", f"dataset {dataset['name']!r} is named twice")
            )
        selector(dataset["item_selector"], f"{where_}/item_selector")
        parent = dataset.get("parent")
        if parent is not None and parent not in names:
            problems.append(Problem(f"{where_}/parent", f"no dataset is named {parent!r}"))
        keys = [p["key"] for p in dataset["properties"]]
        if dataset.get("key") is not None and dataset["key"] not in keys:
            message = f"no property of this dataset has key {dataset['key']!r}"
            problems.append(Problem(f"{where_}/key", message))
        for number, prop in enumerate(dataset["properties"]):
            place = f"{where_}/properties/{number}"
            if prop["key"] in keys[:number]:
                message = f"property key {prop['key']!r} is used twice"
                problems.append(Problem(f"{place}/key", message))
            if prop.get("selector"):
                selector(prop["selector"], f"{place}/selector")
            if prop.get("type") == "attribute" and not prop.get("attribute"):
                message = "type attribute needs the attribute to read"
                problems.append(Problem(f"{place}/attribute", message))
            for step_number, step in enumerate(prop.get("transformations") or ()):
                if step["name"] != "regex_replace":
                    continue
                path = f"{place}/transformations/{step_number}/pattern"
                if not step.get("pattern"):
                    problems.append(Problem(path, "regex_replace needs a pattern"))
                    continue
                try:
                    ruby_regex(step["pattern"])
                except Exception as exc:
                    message = f"the pattern cannot be compiled: {str(exc)[:120]}"
                    problems.append(Problem(path, message))
    parents = {d["name"]: d.get("parent") for d in datasets}
    for index, name in enumerate(names):
        seen: set[str] = {name}
        at: str | None = parents.get(name)
        while at is not None and at in parents:
            if at in seen:
                path = f"/definition/datasets/{index}/parent"
                problems.append(Problem(path, "the parents go round in a circle"))
                break
            seen.add(at)
            at = parents[at]
    return problems


def crawl_problems(definition: dict[str, Any]) -> list[Problem]:
    """A start URL that can never be read (its placeholders apart, filled at each run)."""
    if "{" in definition["url"]:
        return []
    try:
        parse_url(definition["url"])
    except ToolError as error:
        return [Problem("/definition/url", error.message)]
    return []


async def _feed_checked(definition: dict[str, Any], variables: dict[str, Any]) -> Checked:
    """A feed definition as kept (its YAML read into the object it says), checked as apply_config
    checks a config; and its channel's ttl in minutes."""
    if ("config" in definition) == ("yaml" in definition):
        message = "give exactly one of config (an object) or yaml (its text)"
        raise invalid([Problem("/definition", message)])
    try:
        if "yaml" in definition:
            config = await anyio.to_thread.run_sync(
                parse_yaml, definition["yaml"], abandon_on_cancel=True
            )
        else:
            config = definition["config"]
        loaded = await load(config, None, parameters(variables))
    except InvalidFeedConfig as error:
        found = error.detail.get("errors") or [{"path": "/", "message": error.message}]
        raise invalid(
            [
                Problem(
                    "/definition/config" + (e["path"] if e["path"] != "/" else ""), e["message"]
                )
                for e in found
            ]
        ) from error
    ttl = loaded.config["channel"].get("ttl") or 0
    return Checked({"config": config}, "feed", int(ttl))


async def save(
    store: RunStore,
    checked: Checked,
    *,
    project_id: str | None,
    name: str,
    variables: dict[str, Any],
    schedule: str | None,
) -> tuple[Project, bool]:
    """The project saved as the store keeps it, and whether it is new. An id the store does not hold
    makes a project of that id: one exported elsewhere keeps its id here; one it holds keeps its
    secret and its creation time."""
    now = time.time()
    existing = await store.project(project_id) if project_id else None
    project = Project(
        id=project_id or uuid.uuid4().hex,
        name=name,
        kind=checked.kind,
        definition=checked.definition,
        variables=variables,
        schedule=schedule,
        secret=existing.secret if existing else secrets.token_hex(16),
        created_at=existing.created_at if existing else now,
        updated_at=now,
    )
    return await store.save_project(project), existing is None
