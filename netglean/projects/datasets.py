"""A project's datasets: those each kind declares (an extract project's own, a crawl's pages, a
feed's items), the names RTILA's collections give them, and a crawled page as a row."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from netglean.store.base import Project, Visited

PAGES = "pages"
"""A crawl project's dataset: a row for each page read."""
DATASETS = "datasets"
"""What writing a crawl project's page did (new, updated, unchanged by dataset), in its visit."""
ITEMS = "items"
"""A feed project's dataset: a row for each item."""
PAGE_PROPERTIES = (
    "url",
    "depth",
    "status",
    "title",
    "content",
    "description",
    "language",
    "author",
    "published",
)
ITEM_PROPERTIES = (
    "id",
    "title",
    "url",
    "description",
    "published_at",
    "updated",
    "author",
    "image",
    "categories",
    "enclosure",
)


@dataclass(frozen=True, slots=True)
class Transformation:
    name: str
    pattern: str | None = None
    replacement: str | None = None


@dataclass(frozen=True, slots=True)
class DeclaredProperty:
    """A dataset's property as its definition declares it (a crawl's or feed's: its key alone)."""

    key: str
    name: str | None = None
    type: str | None = None
    selector: str | None = None
    attribute: str | None = None
    transformations: list[Transformation] | None = None


@dataclass(frozen=True, slots=True)
class DeclaredDataset:
    name: str
    properties: list[DeclaredProperty]
    key: str | None = None
    parent: str | None = None
    item_selector: str | None = None


def datasets_of(project: Project) -> list[DeclaredDataset]:
    """The project's datasets as its kind declares them: an extract project's own, a crawl's pages,
    a feed's items."""
    if project.kind == "extract":
        return [_declared(dataset) for dataset in project.definition["datasets"]]
    if project.kind == "crawl":
        return [DeclaredDataset(PAGES, [DeclaredProperty(k) for k in PAGE_PROPERTIES], key="url")]
    return [DeclaredDataset(ITEMS, [DeclaredProperty(k) for k in ITEM_PROPERTIES], key="id")]


def _declared(dataset: dict[str, Any]) -> DeclaredDataset:
    """An extract project's dataset as stored (its definition, which save_project checked)."""
    return DeclaredDataset(
        name=dataset["name"],
        properties=[
            DeclaredProperty(
                key=prop["key"],
                name=prop.get("name"),
                type=prop.get("type"),
                selector=prop.get("selector"),
                attribute=prop.get("attribute"),
                transformations=[
                    Transformation(step["name"], step.get("pattern"), step.get("replacement"))
                    for step in prop["transformations"]
                ]
                if "transformations" in prop
                else None,
            )
            for prop in dataset["properties"]
        ],
        key=dataset.get("key") or None,
        parent=dataset.get("parent") or None,
        item_selector=dataset.get("item_selector") or None,
    )


def collection_name(dataset: str) -> str:
    """A dataset's name as RTILA's collections spell it: every character but ASCII letters and
    digits as _."""
    return re.sub(r"[^A-Za-z0-9]", "_", dataset)


def dataset_named(project: Project, name: str) -> str:
    """The project's dataset a name stands for: its own, else the one RTILA's collection rule makes
    of it."""
    declared = [d.name for d in datasets_of(project)]
    if name in declared:
        return name
    return next((own for own in declared if collection_name(own) == collection_name(name)), name)


def page_row(visit: Visited) -> tuple[str, dict[str, Any]]:
    """A crawled page as a row: keyed by its canonical URL; its URL, depth, title, status, content
    and the metadata a dataset is filtered by."""
    page = visit.body["page"]
    data: dict[str, Any] = {
        "url": page["final_url"],
        "depth": visit.body["depth"],
        "status": page["status"],
    }
    for name in ("title", "content"):
        if page.get(name) is not None:
            data[name] = page[name]
    metadata = page.get("metadata") or {}
    for name in ("description", "language", "author", "published"):
        if metadata.get(name):
            data[name] = metadata[name]
    return visit.canonical or page["final_url"], data
