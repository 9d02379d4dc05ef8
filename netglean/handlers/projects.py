"""Projects: saved extract jobs (save, get, list, delete), their datasets and rows, and their runs."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import secrets
import time
import uuid
from typing import Any
from urllib.parse import quote

import anyio

from netglean.calls.context import Context
from netglean.calls.resources import ResourceNotFound
from netglean.calls.runs import RunScope, when
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import (
    AmbiguousName,
    HandlerContractError,
    InvalidFeedConfig,
    InvalidProject,
    NoItems,
    NotAvailable,
    ProjectNotFound,
    RunNotFound,
    ToolError,
)
from netglean.core.schedule import SHORTEST, parse_schedule
from netglean.core.settings import Settings
from netglean.core.validation import quoted
from netglean.feeds.config_yaml import parse_yaml
from netglean.feeds.output import json_feed, rss, unique, within_output_cap
from netglean.feeds.pages import load, read_feed
from netglean.generated.models import (
    BuildProjectInput,
    CrawlInput,
    DeleteProjectInput,
    GetLogsInput,
    GetProjectConfigInput,
    GetProjectDataInput,
    GetProjectInput,
    ListDatasetsInput,
    ListProjectsInput,
    RunProjectByNameInput,
    RunProjectInput,
    SaveProjectInput,
)
from netglean.handlers._crawling import Journal, crawled
from netglean.handlers.runs import LOG_LEVELS, framed
from netglean.net.urls import parse_url
from netglean.sites.projects import ProjectRun, kept_pages, run_extract, start_urls
from netglean.store.base import FINISHED, RESUMABLE, Project, Visited, Written
from netglean.store.filters import fields_of, parse_filter, parse_sort

PROJECT_FIELDS = fields_of(
    {
        "name": "name",
        "kind": "kind",
        "created": "created",
        "updated": "updated",
        "project_id": "id",
    },
    properties=False,
)
ROW_FIELDS = fields_of(
    {"run_id": "run_id", "created": "created", "updated": "updated", "key": "key"},
    properties=True,
)
SHOWN_FAILURES = 20
PAGES = "pages"
"""A crawl project's dataset: a row for each page read."""
DATASETS = "datasets"
"""What writing a crawl project's page did (new, updated, unchanged by dataset), kept in its visit."""
ITEMS = "items"
"""A feed project's dataset: a row for each item."""
PAGE_PROPERTIES = ("url", "depth", "status", "title", "content", "description", "language", "author", "published")
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
LOGGED_RUNS = 500
"""The latest runs of a project whose lines get_logs reads."""
RESOURCE_ROWS = 200
PROJECT_ID = re.compile(r"[0-9a-f]{32}")

log = logging.getLogger("netglean.handlers.projects")


def _shown(project: Project, settings: Settings) -> dict[str, Any]:
    shown = {
        "project_id": project.id,
        "name": project.name,
        "kind": project.kind,
        "definition": project.definition,
        "variables": project.variables,
        "created": when(project.created_at),
        "updated": when(project.updated_at),
    }
    if project.schedule is not None:
        shown["schedule"] = project.schedule
    if project.kind == "feed":
        shown["feed_urls"] = feed_urls(project, settings)
    return shown


def feed_urls(project: Project, settings: Settings) -> dict[str, str]:
    """Where ``netglean serve`` serves a feed project, the address a feed reader subscribes to: by name, with its
    secret when the server requires a token (a feed reader cannot send one)."""
    path = settings.feed_address("/feeds/" + quote(project.name, safe=""))
    key = f"?secret={project.secret}" if settings.token else ""
    return {"rss": f"{path}.xml{key}", "json": f"{path}.json{key}"}


def _paging(page: int, per_page: int, total: int) -> dict[str, Any]:
    """Where a page of a listing stands: its number and size, how many match, whether a later page holds more."""
    return {"page": page, "per_page": per_page, "total": total, "has_more": page * per_page < total}


def _chosen(ctx: Context, project_id: str | None) -> str:
    """The project a call names, or the server's default (--project-id) when it names none."""
    chosen = project_id or ctx.settings.project_id
    if not chosen:
        raise ProjectNotFound(
            "no project_id given, and this server has no default project (its operator sets --project-id): "
            "list_projects names the projects",
            next_step="list_projects",
        )
    return chosen


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


def kind_of(definition: dict[str, Any]) -> str:
    """The kind a definition's shape says (the three shapes share no required key)."""
    return "extract" if "start_urls" in definition else "crawl" if "url" in definition else "feed"


def _invalid(problems: list[dict[str, str]]) -> InvalidProject:
    first = problems[0]
    return InvalidProject(
        f"definition: {first['path']}: {first['message']}"
        + (f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""),
        detail={
            "errors": [{"argument": "definition", "pointer": p["path"], "problem": p["message"]} for p in problems[:20]]
        },
    )


def parameters(variables: dict[str, Any]) -> dict[str, Any]:
    """Variables as a feed config's parameters (and a run's values): an array's values joined by newlines."""
    return {
        name: "\n".join(str(v) for v in value) if isinstance(value, list) else value
        for name, value in variables.items()
    }


async def _feed_definition(definition: dict[str, Any], variables: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A feed definition as kept (its YAML read into the object it says), checked as apply_config checks a
    config; and its channel's ttl in minutes."""
    if ("config" in definition) == ("yaml" in definition):
        raise _invalid(
            [{"path": "/definition", "message": "give exactly one of config (an object) or yaml (its text)"}]
        )
    try:
        if "yaml" in definition:
            config = await anyio.to_thread.run_sync(parse_yaml, definition["yaml"], abandon_on_cancel=True)
        else:
            config = definition["config"]
        loaded = await load(config, None, parameters(variables))
    except InvalidFeedConfig as error:
        found = error.detail.get("errors") or [{"path": "/", "message": error.message}]
        raise _invalid(
            [
                {"path": "/definition/config" + (e["path"] if e["path"] != "/" else ""), "message": e["message"]}
                for e in found
            ]
        ) from error
    ttl = loaded.config["channel"].get("ttl") or 0
    return {"config": config}, int(ttl)


def _crawl_problems(definition: dict[str, Any]) -> list[dict[str, str]]:
    """A start URL that can never be read (its placeholders apart, filled at each run)."""
    if "{" in definition["url"]:
        return []
    try:
        parse_url(definition["url"])
    except ToolError as error:
        return [{"path": "/definition/url", "message": error.message}]
    return []


async def save_project(args: SaveProjectInput, ctx: Context) -> Outcome:
    definition = args.definition.model_dump(mode="json", exclude_none=True)
    kind = kind_of(definition)
    if args.kind is not None and args.kind != kind:
        raise _invalid(
            [
                {
                    "path": "/definition",
                    "message": f"kind {args.kind} needs a {args.kind} definition; this one is {kind}'s",
                }
            ]
        )
    variables = dict(args.variables or {})
    ttl = 0
    if kind == "feed":
        definition, ttl = await _feed_definition(definition, variables)
    else:
        problems = definition_problems(definition) if kind == "extract" else _crawl_problems(definition)
        if problems:
            raise _invalid(problems)
    schedule = parse_schedule(args.schedule, at_least=max(SHORTEST, ttl * 60)).text if args.schedule else None
    store = ctx.runs.store
    now = time.time()
    # An id the store does not hold makes a project of that id: one exported elsewhere keeps its id here.
    existing = await store.project(args.project_id) if args.project_id else None
    project = Project(
        id=args.project_id or uuid.uuid4().hex,
        name=args.name,
        kind=kind,
        definition=definition,
        variables=variables,
        schedule=schedule,
        secret=existing.secret if existing else secrets.token_hex(16),
        created_at=existing.created_at if existing else now,
        updated_at=now,
    )
    kept = await store.save_project(project)
    payload = {"project": _shown(kept, ctx.settings), "created": existing is None}
    guidance = say("Saved. run_project reads its pages into its datasets.")
    return Outcome(payload, next_step="run_project", guidance=guidance)


async def get_project(args: GetProjectInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    return Outcome({"project": _shown(project, ctx.settings)}, next_step="run_project")


async def list_projects(args: ListProjectsInput, ctx: Context) -> Outcome:
    condition = parse_filter(args.filter or "", PROJECT_FIELDS)
    ordering = parse_sort(args.sort, PROJECT_FIELDS, "-updated")
    found, total = await ctx.runs.store.list_projects(
        where=condition,
        order=ordering,
        offset=(args.page - 1) * args.per_page,
        limit=args.per_page,
    )
    payload = {
        "projects": [_shown(project, ctx.settings) for project in found],
        **_paging(args.page, args.per_page, total),
    }
    guidance = say("{count} of {total} project(s).", count=len(found), total=total)
    return Outcome(payload, next_step="get_project" if found else DONE, guidance=guidance)


async def delete_project(args: DeleteProjectInput, ctx: Context) -> Outcome:
    deleted = await ctx.runs.store.delete_project(args.project_id)
    guidance = say("Deleted, with its rows.") if deleted else say("No such project: nothing to delete.")
    return Outcome({"project_id": args.project_id, "deleted": deleted}, next_step=DONE, guidance=guidance)


def datasets_of(project: Project) -> list[dict[str, Any]]:
    """The project's datasets as its kind declares them: an extract project's own, a crawl's pages, a feed's
    items."""
    if project.kind == "extract":
        declared: list[dict[str, Any]] = project.definition["datasets"]
        return declared
    if project.kind == "crawl":
        return [{"name": PAGES, "key": "url", "properties": [{"key": key} for key in PAGE_PROPERTIES]}]
    return [{"name": ITEMS, "key": "id", "properties": [{"key": key} for key in ITEM_PROPERTIES]}]


def _datasets(project: Project, counts: dict[str, int]) -> dict[str, Any]:
    datasets = []
    for dataset in datasets_of(project):
        shown: dict[str, Any] = {
            "name": dataset["name"],
            "properties": [prop["key"] for prop in dataset["properties"]],
            "property_details": [dict(prop) for prop in dataset["properties"]],
            "rows": counts.get(dataset["name"], 0),
        }
        for optional in ("parent", "key", "item_selector"):
            if dataset.get(optional):
                shown[optional] = dataset[optional]
        datasets.append(shown)
    return {"project_id": project.id, "datasets": datasets}


async def list_datasets(args: ListDatasetsInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    payload = _datasets(project, await ctx.runs.store.datasets(project.id))
    return Outcome(payload, next_step="get_project_data")


def collection_name(dataset: str) -> str:
    """A dataset's name as RTILA's collections spell it: every character but ASCII letters and digits as _."""
    return re.sub(r"[^A-Za-z0-9]", "_", dataset)


def _dataset_named(project: Project, name: str) -> str:
    """The project's dataset a name stands for: its own, else the one RTILA's collection rule makes of it."""
    declared = [d["name"] for d in datasets_of(project)]
    if name in declared:
        return name
    return next((own for own in declared if collection_name(own) == collection_name(name)), name)


async def _rows(
    ctx: Context, project: Project, dataset: str, *, filter_: str, sort: str, page: int, per_page: int
) -> dict[str, Any]:
    """One page of a dataset's rows, as get_project_data and the data resource show it."""
    dataset = _dataset_named(project, dataset)
    if dataset not in {declared["name"] for declared in datasets_of(project)}:
        raise ProjectNotFound(
            f"dataset: the project has no dataset {quoted(dataset)} (list_datasets names them)",
            detail={"argument": "dataset"},
            next_step="list_datasets",
        )
    condition = parse_filter(filter_, ROW_FIELDS)
    ordering = parse_sort(sort, ROW_FIELDS, "-created")
    rows, total = await ctx.runs.store.rows(
        project.id,
        dataset,
        where=condition,
        order=ordering,
        offset=(page - 1) * per_page,
        limit=per_page,
    )
    return {
        "project_id": project.id,
        "dataset": dataset,
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
        **_paging(page, per_page, total),
    }


async def get_project_data(args: GetProjectDataInput, ctx: Context) -> Outcome:
    project = await _project(ctx, _chosen(ctx, args.project_id))
    payload = await _rows(
        ctx,
        project,
        args.dataset,
        filter_=args.filter or "",
        sort=args.sort,
        page=args.page,
        per_page=args.per_page,
    )
    guidance = say("{count} of {total} row(s).", count=len(payload["rows"]), total=payload["total"])
    return Outcome(
        payload,
        next_step="get_project_data" if payload["has_more"] else DONE,
        guidance=guidance,
        source=f"project {project.id}",
    )


def _config(project: Project, summary_only: bool) -> dict[str, Any]:
    """A project's configuration whole, or (``summary_only``) by count and name."""
    shown: dict[str, Any] = {
        "project_id": project.id,
        "name": project.name,
        "kind": project.kind,
        "variables": project.variables,
    }
    if project.schedule is not None:
        shown["schedule"] = project.schedule
    if not summary_only:
        return {**shown, "definition": project.definition}
    definition = project.definition
    summary: dict[str, Any] = {
        "start_urls": len(definition.get("start_urls") or ()) or (1 if "url" in definition else 0),
        "datasets": [
            {"name": d["name"], "properties": [prop["key"] for prop in d["properties"]]}
            | ({"parent": d["parent"]} if d.get("parent") else {})
            for d in datasets_of(project)
        ],
        "variables": sorted(project.variables),
    }
    strategy = definition.get("strategy") or (definition.get("config") or {}).get("strategy")
    if strategy:
        summary["strategy"] = strategy
    return {**shown, "summary": summary}


async def get_project_config(args: GetProjectConfigInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    return Outcome(_config(project, args.summary_only), next_step="run_project")


async def get_logs(args: GetLogsInput, ctx: Context) -> Outcome:
    store = ctx.runs.store
    if args.run_id is not None:
        if await store.get(args.run_id) is None:
            raise RunNotFound(f"no run {args.run_id} in this server's store", next_step="list_runs")
        run_ids, source = [args.run_id], f"run {args.run_id}"
        if args.project_id is not None:  # both filter: the run's lines, if it is a run of the project
            runs, _ = await store.project_runs(args.project_id, statuses=(), offset=0, limit=LOGGED_RUNS)
            run_ids = run_ids if args.run_id in {run.id for run in runs} else []
    elif args.project_id is not None or ctx.settings.project_id:
        project = await _project(ctx, args.project_id or ctx.settings.project_id)
        runs, _ = await store.project_runs(project.id, statuses=(), offset=0, limit=LOGGED_RUNS)
        run_ids, source = [run.id for run in runs], f"project {project.id}"
    else:  # neither, and no default project: the store's latest runs
        runs, _ = await store.list_runs(statuses=[], tools=[], offset=0, limit=LOGGED_RUNS)
        run_ids, source = [run.id for run in runs], "netglean://runs"
    levels = LOG_LEVELS[LOG_LEVELS.index(args.level) :]
    lines, total = await store.run_logs(
        run_ids, levels=levels, offset=(args.page - 1) * args.per_page, limit=args.per_page
    )
    payload = {
        "lines": [
            {"run_id": run, "at": when(line.at), "level": line.level, "message": line.message} for run, line in lines
        ],
        **_paging(args.page, args.per_page, total),
    }
    guidance = say("{count} of {total} line(s).", count=len(lines), total=total)
    return Outcome(payload, next_step="get_logs" if payload["has_more"] else DONE, guidance=guidance, source=source)


async def _resource_project(ctx: Context, uri: str, project_id: str) -> Project:
    """The project a resource URI names; ResourceNotFound (the URI) when it names none."""
    project = await ctx.runs.store.project(project_id) if PROJECT_ID.fullmatch(project_id) else None
    if project is None:
        raise ResourceNotFound(uri)
    return project


async def read_projects(ctx: Context) -> dict[str, Any]:
    found, total = await ctx.runs.store.list_projects(
        where=None, order=parse_sort("", PROJECT_FIELDS, "-updated"), offset=0, limit=200
    )
    return {"projects": [_shown(project, ctx.settings) for project in found], "total": total}


async def read_project(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}", project_id)
    return {"project": _shown(project, ctx.settings)}


async def read_project_config(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}/config", project_id)
    return _config(project, summary_only=False)


async def read_project_datasets(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}/datasets", project_id)
    return _datasets(project, await ctx.runs.store.datasets(project.id))


async def read_project_data(ctx: Context, project_id: str, dataset: str) -> str:
    uri = f"netglean://projects/{project_id}/data/{dataset}"
    project = await _resource_project(ctx, uri, project_id)
    dataset = _dataset_named(project, dataset)
    if dataset not in {declared["name"] for declared in datasets_of(project)}:
        raise ResourceNotFound(uri)
    return framed(uri, await _rows(ctx, project, dataset, filter_="", sort="", page=1, per_page=RESOURCE_ROWS))


class _PagesJournal(Journal):
    """A crawl project's journal: each page read is a row of its dataset pages too, written with its visit, and
    what writing it did kept in the visit (``datasets``, as an extract project's visit keeps it), so a run that
    holds the visit (after a restart, or started from this run) counts it."""

    def __init__(self, run: RunScope, part: int, links: bool, project_id: str) -> None:
        super().__init__(run, part, links)
        self._project_id = project_id

    async def keep(self, visits: list[Visited]) -> None:
        read = [visit for visit in visits if visit.read]

        def counted(written: dict[str, Written]) -> list[Visited]:
            for visit, outcome in zip(read, written[PAGES].each, strict=True):
                visit.body[DATASETS] = {PAGES: [int(outcome == n) for n in range(3)]}
            return visits

        rows = [page_row(visit) for visit in read]
        await self._run.store.write_rows(self._project_id, self._run.id, {PAGES: rows}, visits=counted)


def page_row(visit: Visited) -> tuple[str, dict[str, Any]]:
    """A crawled page as a row: keyed by its canonical URL; its URL, depth, title, status, content and the
    metadata a dataset is filtered by."""
    page = visit.body["page"]
    data: dict[str, Any] = {"url": page["final_url"], "depth": visit.body["depth"], "status": page["status"]}
    for name in ("title", "content"):
        if page.get(name) is not None:
            data[name] = page[name]
    metadata = page.get("metadata") or {}
    for name in ("description", "language", "author", "published"):
        if metadata.get(name):
            data[name] = metadata[name]
    return visit.canonical or page["final_url"], data


async def _adopted(ctx: Context, run: RunScope, project: Project, resume: bool, retry_failed: bool) -> str | None:
    """The earlier run of the project this one starts from, when asked and there is one: resume takes an
    interrupted, cancelled or failed run's checkpoint (its failed pages too, unless retry_failed), retry_failed
    alone the latest finished run's but its failed pages, so only those are read again. Only on a run's first
    attempt: a run resumed itself goes on from its own."""
    await ctx.runs.store.link_run(project.id, run.id)
    this = await ctx.runs.get(run.id)
    if this.attempts > 1 or not (resume or retry_failed):
        return None
    statuses = RESUMABLE if resume else FINISHED
    earlier, _ = await ctx.runs.store.project_runs(project.id, statuses=statuses, offset=0, limit=1)
    if not earlier:
        return None
    taken = await ctx.runs.store.adopt(run.id, earlier[0].id, failed=not retry_failed)
    await run.log("info", f"started from run {earlier[0].id} ({taken} page(s) it read kept)")
    return earlier[0].id


async def _run(project: Project, args: RunProjectInput | RunProjectByNameInput, ctx: Context) -> Outcome:
    if ctx.run is None:
        raise HandlerContractError("a project runs as a background run (execution: async), and this call is none")
    run = ctx.run
    variables = parameters({**project.variables, **(args.variables or {})})
    earlier = await _adopted(ctx, run, project, args.resume, args.retry_failed)

    async def report(done: int, total: int) -> None:
        await ctx.report(done, total, f"read {done} of {total} page(s)")

    if project.kind == "extract":
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
    elif project.kind == "crawl":
        found = await _run_crawl(project, variables, ctx, run)
    else:
        found = await _run_feed(project, variables, ctx, run)
    payload = {
        "project_id": project.id,
        "kind": project.kind,
        "pages_read": found.pages_read,
        "pages_failed": len(found.failures),
        "datasets": {name: {"new": n, "updated": u, "unchanged": s} for name, (n, u, s) in found.datasets.items()},
        "failures": found.failures[:SHOWN_FAILURES],
    }
    if earlier is not None:
        payload["started_from"] = earlier
    new = sum(counts[0] for counts in found.datasets.values())
    guidance = say(
        "Read {pages} page(s), {failed} failed; {new} new row(s). get_project_data reads them.",
        pages=found.pages_read,
        failed=len(found.failures),
        new=new,
    )
    return Outcome(payload, next_step="get_project_data", guidance=guidance, source=f"project {project.id}")


async def _run_crawl(project: Project, variables: dict[str, Any], ctx: Context, run: RunScope) -> ProjectRun:
    """The saved crawl, its start URL's placeholders filled; each page read a row of the dataset pages."""
    definition = dict(project.definition)
    urls = await anyio.to_thread.run_sync(start_urls, [definition["url"]], variables)
    if len(urls) > 1:
        raise InvalidProject(
            f"variables: a crawl has one start URL, and these values give {len(urls)}",
            detail={"argument": "variables"},
        )
    definition["url"] = urls[0]
    args = CrawlInput.model_validate(definition)
    await crawled(args, ctx, lambda scope, part, links: _PagesJournal(scope, part, links, project.id))
    done = ProjectRun(datasets={PAGES: [0, 0, 0]})
    async for item in kept_pages(ctx.runs.store, run.id):
        body = item.body
        done.count(body if body.get("page") is None else {"url": body["url"], DATASETS: body.get(DATASETS)})
    return done


async def _run_feed(project: Project, variables: dict[str, Any], ctx: Context, run: RunScope) -> ProjectRun:
    """The feed config read as apply_config reads it; its items rows of the dataset items, and the feed as
    served (RSS and JSON Feed) kept as the project's last good one. A refresh that fails keeps the last good feed
    and says why."""
    store = ctx.runs.store
    try:
        loaded = await load(project.definition["config"], None, variables)
        read = await read_feed(ctx.fetcher, ctx.readers, loaded.config, stop_by=math.inf, browser=ctx.browser)
        items = unique(read.items)
        if not items:
            raise NoItems(f"the feed config found no items on {read.url}", detail={"url": read.url, "item_count": 0})

        def written() -> tuple[str, str]:
            kept, _ = within_output_cap(items)
            document = rss(read.channel, kept, loaded.config.get("stylesheets") or ())
            return document, json.dumps(json_feed(read.channel, kept), ensure_ascii=False)

        document, feed = await anyio.to_thread.run_sync(written)
    except ToolError as error:
        log.warning(
            "feed project %r: a refresh failed (%s: %s); its last good feed stays served",
            project.name,
            error.code,
            error.message,
        )
        await store.feed_failed(project.id, f"{error.code}: {error.message}")
        raise
    counts = await store.write_rows(project.id, run.id, {ITEMS: [(item["id"], dict(item)) for item in items]})
    etag = '"' + hashlib.sha256((document + feed).encode()).hexdigest()[:32] + '"'
    await store.keep_feed(project.id, run.id, document, feed, etag)
    written_items = counts[ITEMS]
    return ProjectRun(
        pages_read=read.pages, datasets={ITEMS: [written_items.new, written_items.updated, written_items.unchanged]}
    )


async def build_project(args: BuildProjectInput, ctx: Context) -> Outcome:
    """RTILA's builder is a browser for a person to record a project in; this server has none."""
    raise NotAvailable(
        "this server has no project builder: a project is a definition save_project stores (analyze_page finds "
        "the selectors), not a recording",
        next_step="analyze_page",
    )


async def run_project(args: RunProjectInput, ctx: Context) -> Outcome:
    return await _run(await _project(ctx, _chosen(ctx, args.project_id)), args, ctx)


async def run_project_by_name(args: RunProjectByNameInput, ctx: Context) -> Outcome:
    return await _run(await _named(ctx, args.name), args, ctx)


async def _named(ctx: Context, name: str) -> Project:
    """The project of that exact name, else the one project whose name matches but for case; several such are
    an error that lists them."""
    store = ctx.runs.store
    exact = await store.projects_named(name)
    if exact:
        return exact[0]
    alike = await store.projects_named_any_case(name, limit=20)
    if len(alike) == 1:
        return alike[0]
    if not alike:
        raise ProjectNotFound(
            f"name: no project is named {quoted(name)} in this server's store (list_projects names them)",
            detail={"argument": "name"},
            next_step="list_projects",
        )
    raise AmbiguousName(
        f"name: {len(alike)} projects are named {quoted(name)} but for case; run_project takes one of their ids",
        detail={"argument": "name", "project_ids": [p.id for p in alike]},
        next_step="run_project",
    )
