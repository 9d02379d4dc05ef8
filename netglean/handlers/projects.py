"""Projects: saved extract jobs (save, get, list, delete), their datasets and rows, and their runs."""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

from netglean.calls.context import Context
from netglean.calls.runs import when
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import HandlerContractError, InvalidProject, ProjectNotFound
from netglean.core.validation import quoted
from netglean.generated.models import (
    DeleteProjectInput,
    GetProjectDataInput,
    GetProjectInput,
    ListDatasetsInput,
    ListProjectsInput,
    RunProjectInput,
    SaveProjectInput,
)
from netglean.handlers.pages import item_error
from netglean.sites.projects import run_extract
from netglean.store.base import Project
from netglean.store.filters import fields_of, order_by, where

PROJECT_FIELDS = fields_of(
    {"name": "name", "kind": "kind", "created": "created_at", "updated": "updated_at", "project_id": "id"}, None
)
ROW_FIELDS = fields_of({"run_id": "run_id", "created": "created", "updated": "updated", "key": "key"}, "data")
SHOWN_FAILURES = 20


def _shown(project: Project) -> dict[str, Any]:
    return {
        "project_id": project.id,
        "name": project.name,
        "kind": project.kind,
        "definition": project.definition,
        "variables": project.variables,
        "created": when(project.created_at),
        "updated": when(project.updated_at),
    }


def _paging(page: int, per_page: int, total: int) -> dict[str, Any]:
    """Where a page of a listing stands: its number and size, how many match, whether a later page holds more."""
    return {"page": page, "per_page": per_page, "total": total, "has_more": page * per_page < total}


async def _project(ctx: Context, project_id: str) -> Project:
    project = await ctx.runs.store.project(project_id)
    if project is None:
        raise ProjectNotFound(f"no project {project_id} in this server's store", next_step="list_projects")
    return project


def definition_problems(definition: dict[str, Any]) -> list[dict[str, str]]:
    """What the schema cannot say of an extract definition, each with its pointer: selectors no reader can use,
    datasets named twice, a parent that is not a dataset (or a circle of them), a key no property has, property
    keys named twice, a regular expression that cannot be compiled."""
    from netglean.read.html_tree import parse_html
    from netglean.read.patterns import ruby_regex

    problems: list[dict[str, str]] = []
    empty = parse_html("")

    def selector(text: str, path: str) -> None:
        try:
            empty.css(text)
        except Exception:  # lexbor's own words name nothing useful: say what it is
            problems.append({"path": path, "message": f"{quoted(text)} is not a CSS selector netglean can read"})

    datasets = definition["datasets"]
    names = [d["name"] for d in datasets]
    for index, dataset in enumerate(datasets):
        where_ = f"/definition/datasets/{index}"
        if dataset["name"] in names[:index]:
            problems.append({"path": f"{where_}/name", "message": f"dataset {dataset['name']!r} is named twice"})
        selector(dataset["item_selector"], f"{where_}/item_selector")
        parent = dataset.get("parent")
        if parent is not None and parent not in names:
            problems.append({"path": f"{where_}/parent", "message": f"no dataset is named {parent!r}"})
        keys = [p["key"] for p in dataset["properties"]]
        if dataset.get("key") is not None and dataset["key"] not in keys:
            problems.append(
                {"path": f"{where_}/key", "message": f"no property of this dataset has key {dataset['key']!r}"}
            )
        for number, prop in enumerate(dataset["properties"]):
            place = f"{where_}/properties/{number}"
            if prop["key"] in keys[:number]:
                problems.append({"path": f"{place}/key", "message": f"property key {prop['key']!r} is used twice"})
            if prop.get("selector"):
                selector(prop["selector"], f"{place}/selector")
            if prop.get("type") == "attribute" and not prop.get("attribute"):
                problems.append({"path": f"{place}/attribute", "message": "type attribute needs the attribute to read"})
            for step_number, step in enumerate(prop.get("transformations") or ()):
                if step["name"] != "regex_replace":
                    continue
                if not step.get("pattern"):
                    problems.append(
                        {
                            "path": f"{place}/transformations/{step_number}/pattern",
                            "message": "regex_replace needs a pattern",
                        }
                    )
                    continue
                try:
                    ruby_regex(step["pattern"])
                except Exception as exc:
                    problems.append(
                        {
                            "path": f"{place}/transformations/{step_number}/pattern",
                            "message": f"the pattern cannot be compiled: {str(exc)[:120]}",
                        }
                    )
    parents = {d["name"]: d.get("parent") for d in datasets}
    for index, name in enumerate(names):
        seen: set[str] = {name}
        at: str | None = parents.get(name)
        while at is not None and at in parents:
            if at in seen:
                problems.append(
                    {"path": f"/definition/datasets/{index}/parent", "message": "the parents go round in a circle"}
                )
                break
            seen.add(at)
            at = parents[at]
    return problems


async def save_project(args: SaveProjectInput, ctx: Context) -> Outcome:
    definition = args.definition.model_dump(mode="json", exclude_none=True)
    problems = definition_problems(definition)
    if problems:
        first = problems[0]
        raise InvalidProject(
            f"definition: {first['path']}: {first['message']}"
            + (f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""),
            detail={
                "errors": [
                    {"argument": "definition", "pointer": p["path"], "problem": p["message"]} for p in problems[:20]
                ]
            },
        )
    store = ctx.runs.store
    now = time.time()
    # An id the store does not hold makes a project of that id: one exported elsewhere keeps its id here.
    existing = await store.project(args.project_id) if args.project_id else None
    project = Project(
        id=args.project_id or uuid.uuid4().hex,
        name=args.name,
        kind=args.kind,
        definition=definition,
        variables=dict(args.variables or {}),
        schedule=None,
        secret=existing.secret if existing else secrets.token_hex(16),
        created_at=existing.created_at if existing else now,
        updated_at=now,
    )
    kept = await store.save_project(project)
    payload = {"project": _shown(kept), "created": existing is None}
    guidance = say("Saved. run_project reads its pages into its datasets.")
    return Outcome(payload, next_step="run_project", guidance=guidance)


async def get_project(args: GetProjectInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    return Outcome({"project": _shown(project)}, next_step="run_project")


async def list_projects(args: ListProjectsInput, ctx: Context) -> Outcome:
    condition, ordering = where(args.filter or "", PROJECT_FIELDS), order_by(args.sort, PROJECT_FIELDS, "-updated")
    found, total = await ctx.runs.store.list_projects(
        where=(condition.sql, condition.params),
        order=(ordering.sql, ordering.params),
        offset=(args.page - 1) * args.per_page,
        limit=args.per_page,
    )
    payload = {
        "projects": [_shown(project) for project in found],
        **_paging(args.page, args.per_page, total),
    }
    guidance = say("{count} of {total} project(s).", count=len(found), total=total)
    return Outcome(payload, next_step="get_project" if found else DONE, guidance=guidance)


async def delete_project(args: DeleteProjectInput, ctx: Context) -> Outcome:
    deleted = await ctx.runs.store.delete_project(args.project_id)
    guidance = say("Deleted, with its rows.") if deleted else say("No such project: nothing to delete.")
    return Outcome({"project_id": args.project_id, "deleted": deleted}, next_step=DONE, guidance=guidance)


async def list_datasets(args: ListDatasetsInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    counts = await ctx.runs.store.datasets(project.id)
    datasets = []
    for dataset in project.definition["datasets"]:
        shown: dict[str, Any] = {
            "name": dataset["name"],
            "properties": [prop["key"] for prop in dataset["properties"]],
            "rows": counts.get(dataset["name"], 0),
        }
        for optional in ("parent", "key"):
            if dataset.get(optional):
                shown[optional] = dataset[optional]
        datasets.append(shown)
    return Outcome({"project_id": project.id, "datasets": datasets}, next_step="get_project_data")


async def get_project_data(args: GetProjectDataInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    if args.dataset not in {dataset["name"] for dataset in project.definition["datasets"]}:
        raise ProjectNotFound(
            f"dataset: the project has no dataset {args.dataset!r} (list_datasets names them)",
            detail={"argument": "dataset"},
            next_step="list_datasets",
        )
    condition, ordering = where(args.filter or "", ROW_FIELDS), order_by(args.sort, ROW_FIELDS, "-created")
    rows, total = await ctx.runs.store.rows(
        project.id,
        args.dataset,
        where=(condition.sql, condition.params),
        order=(ordering.sql, ordering.params),
        offset=(args.page - 1) * args.per_page,
        limit=args.per_page,
    )
    payload = {
        "project_id": project.id,
        "dataset": args.dataset,
        "rows": [
            {
                "key": r.key,
                "run_id": r.run_id,
                "created": when(r.created_at),
                "updated": when(r.updated_at),
                "data": r.data,
            }
            for r in rows
        ],
        **_paging(args.page, args.per_page, total),
    }
    more = payload["has_more"]
    guidance = say("{count} of {total} row(s).", count=len(rows), total=total)
    return Outcome(
        payload, next_step="get_project_data" if more else DONE, guidance=guidance, source=f"project {project.id}"
    )


async def run_project(args: RunProjectInput, ctx: Context) -> Outcome:
    if ctx.run is None:
        raise HandlerContractError("run_project works as a background run (execution: async), and this call is none")
    run = ctx.run
    project = await _project(ctx, args.project_id)
    variables = {
        name: "\n".join(str(v) for v in value) if isinstance(value, list) else value
        for name, value in (args.variables or {}).items()
    }

    async def report(done: int, total: int) -> None:
        await ctx.report(done, total, f"read {done} of {total} page(s)")

    found = await run_extract(
        ctx.fetcher,
        ctx.readers,
        ctx.runs.store,
        project,
        variables,
        run_id=run.id,
        browser=ctx.browser,
        report=report,
        stop=run.stop.is_set,
    )
    for url, error in found.failures:
        await run.log("warning", f"failed {url}: {error.code}")
    payload = {
        "project_id": project.id,
        "pages_read": found.pages_read,
        "pages_failed": len(found.failures),
        "datasets": {name: {"new": n, "updated": u, "unchanged": s} for name, (n, u, s) in found.datasets.items()},
        "failures": [
            {"url": url, "error": item_error(error).model_dump(exclude_none=True)}
            for url, error in found.failures[:SHOWN_FAILURES]
        ],
    }
    new = sum(counts[0] for counts in found.datasets.values())
    guidance = say(
        "Read {pages} page(s), {failed} failed; {new} new row(s). get_project_data reads them.",
        pages=found.pages_read,
        failed=len(found.failures),
        new=new,
    )
    return Outcome(payload, next_step="get_project_data", guidance=guidance, source=f"project {project.id}")
