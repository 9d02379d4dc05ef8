"""A project's datasets: those each kind declares (an extract project's own, a crawl's pages, a
feed's items), the names RTILA's collections give them, and a crawled page as a row."""

from __future__ import annotations

import re
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


def datasets_of(project: Project) -> list[dict[str, Any]]:
    """The project's datasets as its kind declares them: an extract project's own, a crawl's pages,
    a feed's items."""
    if project.kind == "extract":
        declared: list[dict[str, Any]] = project.definition["datasets"]
        return declared
    if project.kind == "crawl":
        return [{"name": PAGES, "key": "url", "properties": [{"key": k} for k in PAGE_PROPERTIES]}]
    return [{"name": ITEMS, "key": "id", "properties": [{"key": k} for k in ITEM_PROPERTIES]}]


def collection_name(dataset: str) -> str:
    """A dataset's name as RTILA's collections spell it: every character but ASCII letters and
    digits as _."""
    return re.sub(r"[^A-Za-z0-9]", "_", dataset)


def dataset_named(project: Project, name: str) -> str:
    """The project's dataset a name stands for: its own, else the one RTILA's collection rule makes
    of it."""
    declared = [d["name"] for d in datasets_of(project)]
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
