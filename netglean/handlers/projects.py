"""Projects: saved extract jobs (save, get, list, delete), their datasets and rows, and their
runs."""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from netglean.calls.context import Context
from netglean.calls.resources import ResourceNotFound
from netglean.calls.runs import format_time
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import (
    AmbiguousName,
    HandlerContractError,
    NotAvailable,
    ProjectNotFound,
    RunNotFound,
)
from netglean.core.schedule import SHORTEST, parse_schedule
from netglean.core.settings import Settings
from netglean.core.validation import quote_value
from netglean.generated.models import (
    BuildProjectInput,
    CrawlInput,
    Dataset,
    Dataset1,
    Datasets,
    DeleteProjectInput,
    DeleteProjectOutput,
    Failure,
    FeedUrls,
    GetLogsInput,
    GetLogsOutput,
    GetProjectConfigInput,
    GetProjectConfigOutput,
    GetProjectDataInput,
    GetProjectDataOutput,
    GetProjectInput,
    GetProjectOutput,
    ItemError,
    Line,
    ListDatasetsInput,
    ListDatasetsOutput,
    ListProjectsInput,
    ListProjectsOutput,
    ProjectRunResult,
    PropertyDetail,
    PropertyTransformation,
    Row,
    RunProjectByNameInput,
    RunProjectInput,
    SaveProjectInput,
    SaveProjectOutput,
    Summary,
)
from netglean.generated.models import Definition as ExtractDefinition
from netglean.generated.models import Definition1 as CrawlDefinition
from netglean.generated.models import Definition2 as FeedDefinition
from netglean.generated.models import Project as ProjectShown
from netglean.handlers.runs import LOG_LEVELS, frame_resource
from netglean.handlers.sites import visit_body
from netglean.projects.datasets import DeclaredProperty, dataset_named, datasets_of
from netglean.projects.definitions import checked as check_definition
from netglean.projects.definitions import save
from netglean.projects.feed import feed_urls
from netglean.projects.run import run_project as run_of_project
from netglean.store.base import Project
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
ProjectKind = Literal["extract", "crawl", "feed"]
SHOWN_FAILURES = 20
LOGGED_RUNS = 500
"""The latest runs of a project whose lines get_logs reads."""
RESOURCE_ROWS = 200
PROJECT_ID = re.compile(r"[0-9a-f]{32}")


def _shown(project: Project, settings: Settings) -> ProjectShown:
    kind, definition = _definition(project)
    served = feed_urls(project, settings) if kind == "feed" else None
    return ProjectShown(
        project_id=project.id,
        name=project.name,
        kind=kind,
        definition=definition,
        variables=project.variables,
        created=format_time(project.created_at),
        updated=format_time(project.updated_at),
        schedule=project.schedule,
        feed_urls=FeedUrls(rss=served.rss, json_=served.json) if served is not None else None,
    )


def _definition(
    project: Project,
) -> tuple[ProjectKind, ExtractDefinition | CrawlDefinition | FeedDefinition]:
    """A project's kind, and its definition as stored (the one save_project checked) read into the
    model of its kind: the store holds it as JSON."""
    kind = _kind(project)
    if kind == "extract":
        return kind, ExtractDefinition.model_validate(project.definition)
    if kind == "crawl":
        return kind, CrawlDefinition.model_validate(project.definition)
    return kind, FeedDefinition.model_validate(project.definition)


def _kind(project: Project) -> ProjectKind:
    """The project's kind, one of the schema's (the store holds it as text)."""
    if project.kind == "extract":
        return "extract"
    if project.kind == "crawl":
        return "crawl"
    if project.kind == "feed":
        return "feed"
    raise HandlerContractError(f"the store holds a project of no known kind: {project.kind!r}")


def _choose_project(ctx: Context, project_id: str | None) -> str:
    """The project a call names, or the server's default (--project-id) when it names none."""
    chosen = project_id or ctx.settings.project_id
    if not chosen:
        raise ProjectNotFound(
            "no project_id given, and this server has no default project (its operator sets "
            "--project-id): list_projects names the projects",
            next_step="list_projects",
        )
    return chosen


async def _project(ctx: Context, project_id: str) -> Project:
    project = await ctx.runs.store.project(project_id)
    if project is None:
        raise ProjectNotFound(
            f"no project {project_id} in this server's store", next_step="list_projects"
        )
    return project


async def save_project(args: SaveProjectInput, ctx: Context) -> Outcome:
    variables = dict(args.variables or {})
    definition = args.definition.model_dump(mode="json", exclude_none=True)
    checked = await check_definition(definition, args.kind, variables)
    ttl = checked.ttl
    schedule = (
        parse_schedule(args.schedule, at_least=max(SHORTEST, ttl * 60)).text
        if args.schedule
        else None
    )
    kept, created = await save(
        ctx.runs.store,
        checked,
        project_id=args.project_id,
        name=args.name,
        variables=variables,
        schedule=schedule,
    )
    payload = SaveProjectOutput(project=_shown(kept, ctx.settings), created=created)
    guidance = say("Saved. run_project reads its pages into its datasets.")
    return Outcome(payload, next_step="run_project", guidance=guidance)


async def get_project(args: GetProjectInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    payload = GetProjectOutput(project=_shown(project, ctx.settings))
    return Outcome(payload, next_step="run_project")


async def list_projects(args: ListProjectsInput, ctx: Context) -> Outcome:
    condition = parse_filter(args.filter or "", PROJECT_FIELDS)
    ordering = parse_sort(args.sort, PROJECT_FIELDS, "-updated")
    found, total = await ctx.runs.store.list_projects(
        where=condition,
        order=ordering,
        offset=(args.page - 1) * args.per_page,
        limit=args.per_page,
    )
    payload = ListProjectsOutput(
        projects=[_shown(project, ctx.settings) for project in found],
        page=args.page,
        per_page=args.per_page,
        total=total,
        has_more=args.page * args.per_page < total,
    )
    guidance = say("{count} of {total} project(s).", count=len(found), total=total)
    return Outcome(payload, next_step="get_project" if found else DONE, guidance=guidance)


async def delete_project(args: DeleteProjectInput, ctx: Context) -> Outcome:
    deleted = await ctx.runs.store.delete_project(args.project_id)
    guidance = (
        say("Deleted, with its rows.") if deleted else say("No such project: nothing to delete.")
    )
    payload = DeleteProjectOutput(project_id=args.project_id, deleted=deleted)
    return Outcome(payload, next_step=DONE, guidance=guidance)


def _datasets(project: Project, counts: dict[str, int]) -> ListDatasetsOutput:
    return ListDatasetsOutput(
        project_id=project.id,
        datasets=[
            Dataset1(
                name=dataset.name,
                properties=[prop.key for prop in dataset.properties],
                property_details=[_property(prop) for prop in dataset.properties],
                rows=counts.get(dataset.name, 0),
                parent=dataset.parent,
                key=dataset.key,
                item_selector=dataset.item_selector,
            )
            for dataset in datasets_of(project)
        ],
    )


def _property(declared: DeclaredProperty) -> PropertyDetail:
    steps = declared.transformations
    return PropertyDetail(
        key=declared.key,
        name=declared.name,
        type=declared.type,
        selector=declared.selector,
        attribute=declared.attribute,
        transformations=[
            PropertyTransformation(
                name=step.name, pattern=step.pattern, replacement=step.replacement
            )
            for step in steps
        ]
        if steps is not None
        else None,
    )


async def list_datasets(args: ListDatasetsInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    payload = _datasets(project, await ctx.runs.store.datasets(project.id))
    return Outcome(payload, next_step="get_project_data")


async def _rows(
    ctx: Context,
    project: Project,
    dataset: str,
    *,
    filter_: str,
    sort: str,
    page: int,
    per_page: int,
) -> GetProjectDataOutput:
    """One page of a dataset's rows, as get_project_data and the data resource show it."""
    dataset = dataset_named(project, dataset)
    if dataset not in {declared.name for declared in datasets_of(project)}:
        raise ProjectNotFound(
            f"dataset: the project has no dataset {quote_value(dataset)} (list_datasets names "
            "them)",
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
    return GetProjectDataOutput(
        project_id=project.id,
        dataset=dataset,
        rows=[
            Row(
                key=r.key,
                run_id=r.run_id,
                created=format_time(r.created_at),
                updated=format_time(r.updated_at),
                data=r.data,
            )
            for r in rows
        ],
        page=page,
        per_page=per_page,
        total=total,
        has_more=page * per_page < total,
    )


async def get_project_data(args: GetProjectDataInput, ctx: Context) -> Outcome:
    project = await _project(ctx, _choose_project(ctx, args.project_id))
    payload = await _rows(
        ctx,
        project,
        args.dataset,
        filter_=args.filter or "",
        sort=args.sort,
        page=args.page,
        per_page=args.per_page,
    )
    guidance = say("{count} of {total} row(s).", count=len(payload.rows), total=payload.total)
    return Outcome(
        payload,
        next_step="get_project_data" if payload.has_more else DONE,
        guidance=guidance,
        source=f"project {project.id}",
    )


def _config(project: Project, summary_only: bool) -> GetProjectConfigOutput:
    """A project's configuration whole, or (``summary_only``) by count and name."""
    definition = project.definition
    summary = None
    if summary_only:
        strategy = definition.get("strategy") or (definition.get("config") or {}).get("strategy")
        summary = Summary(
            start_urls=len(definition.get("start_urls") or ()) or (1 if "url" in definition else 0),
            datasets=[
                Dataset(
                    name=d.name, properties=[prop.key for prop in d.properties], parent=d.parent
                )
                for d in datasets_of(project)
            ],
            variables=sorted(project.variables),
            strategy=strategy or None,
        )
    return GetProjectConfigOutput(
        project_id=project.id,
        name=project.name,
        kind=_kind(project),
        variables=project.variables,
        schedule=project.schedule,
        definition=None if summary_only else definition,
        summary=summary,
    )


async def get_project_config(args: GetProjectConfigInput, ctx: Context) -> Outcome:
    project = await _project(ctx, args.project_id)
    return Outcome(_config(project, args.summary_only), next_step="run_project")


async def get_logs(args: GetLogsInput, ctx: Context) -> Outcome:
    store = ctx.runs.store
    if args.run_id is not None:
        if await store.get(args.run_id) is None:
            raise RunNotFound(f"no run {args.run_id} in this server's store", next_step="list_runs")
        run_ids, source = [args.run_id], f"run {args.run_id}"
        # both filter: the run's lines, if it is a run of the project
        if args.project_id is not None:
            runs, _ = await store.project_runs(
                args.project_id, statuses=(), offset=0, limit=LOGGED_RUNS
            )
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
    # The store holds a line's level as text; the model checks it against the schema's literals.
    log = [
        Line(
            run_id=run_id,
            at=format_time(line.at),
            level=cast(Any, line.level),
            message=line.message,
        )
        for run_id, line in lines
    ]
    has_more = args.page * args.per_page < total
    payload = GetLogsOutput(
        lines=log,
        page=args.page,
        per_page=args.per_page,
        total=total,
        has_more=has_more,
    )
    guidance = say("{count} of {total} line(s).", count=len(lines), total=total)
    next_step = "get_logs" if has_more else DONE
    return Outcome(payload, next_step=next_step, guidance=guidance, source=source)


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
    shown = [
        _shown(project, ctx.settings).model_dump(mode="json", by_alias=True, exclude_none=True)
        for project in found
    ]
    return {"projects": shown, "total": total}


async def read_project(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}", project_id)
    shown = _shown(project, ctx.settings)
    return {"project": shown.model_dump(mode="json", by_alias=True, exclude_none=True)}


async def read_project_config(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}/config", project_id)
    return _config(project, summary_only=False).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )


async def read_project_datasets(ctx: Context, project_id: str) -> dict[str, Any]:
    project = await _resource_project(ctx, f"netglean://projects/{project_id}/datasets", project_id)
    datasets = _datasets(project, await ctx.runs.store.datasets(project.id))
    return datasets.model_dump(mode="json", by_alias=True, exclude_none=True)


async def read_project_data(ctx: Context, project_id: str, dataset: str) -> str:
    uri = f"netglean://projects/{project_id}/data/{dataset}"
    project = await _resource_project(ctx, uri, project_id)
    dataset = dataset_named(project, dataset)
    if dataset not in {declared.name for declared in datasets_of(project)}:
        raise ResourceNotFound(uri)
    rows = await _rows(ctx, project, dataset, filter_="", sort="", page=1, per_page=RESOURCE_ROWS)
    return frame_resource(uri, rows.model_dump(mode="json", by_alias=True, exclude_none=True))


async def _run(
    project: Project, args: RunProjectInput | RunProjectByNameInput, ctx: Context
) -> Outcome:
    if ctx.run is None:
        raise HandlerContractError(
            "a project runs as a background run (execution: async), and this call is none"
        )
    ran = await run_of_project(
        ctx.fetcher,
        ctx.readers,
        project,
        ctx.run,
        variables=args.variables,
        resume=args.resume,
        retry_failed=args.retry_failed,
        crawl_arguments=CrawlInput.model_validate,
        visit_body=visit_body,
        report=ctx.report,
        browser=ctx.browser,
    )
    found = ran.found
    payload = ProjectRunResult(
        project_id=project.id,
        kind=_kind(project),
        pages_read=found.pages_read,
        pages_failed=len(found.failures),
        datasets={
            name: Datasets(new=new, updated=updated, unchanged=unchanged)
            for name, (new, updated, unchanged) in found.datasets.items()
        },
        failures=[
            Failure(
                url=failure.url,
                error=ItemError(
                    code=failure.code,
                    message=failure.message,
                    retryable=failure.retryable,
                    detail=failure.detail,
                ),
            )
            for failure in found.failures[:SHOWN_FAILURES]
        ],
        started_from=ran.started_from,
    )
    new = sum(counts[0] for counts in found.datasets.values())
    guidance = say(
        "Read {pages} page(s), {failed} failed; {new} new row(s). get_project_data reads them.",
        pages=found.pages_read,
        failed=len(found.failures),
        new=new,
    )
    return Outcome(
        payload, next_step="get_project_data", guidance=guidance, source=f"project {project.id}"
    )


async def build_project(args: BuildProjectInput, ctx: Context) -> Outcome:
    """RTILA's builder is a browser for a person to record a project in; this server has none."""
    raise NotAvailable(
        "this server has no project builder: a project is a definition save_project stores "
        "(analyze_page finds the selectors), not a recording",
        next_step="analyze_page",
    )


async def run_project(args: RunProjectInput, ctx: Context) -> Outcome:
    return await _run(await _project(ctx, _choose_project(ctx, args.project_id)), args, ctx)


async def run_project_by_name(args: RunProjectByNameInput, ctx: Context) -> Outcome:
    return await _run(await _find_by_name(ctx, args.name), args, ctx)


async def _find_by_name(ctx: Context, name: str) -> Project:
    """The project of that exact name, else the one project whose name matches but for case; several
    such are an error that lists them."""
    store = ctx.runs.store
    exact = await store.projects_named(name)
    if exact:
        return exact[0]
    alike = await store.projects_named_any_case(name, limit=20)
    if len(alike) == 1:
        return alike[0]
    if not alike:
        raise ProjectNotFound(
            f"name: no project is named {quote_value(name)} in this server's store "
            "(list_projects names them)",
            detail={"argument": "name"},
            next_step="list_projects",
        )
    raise AmbiguousName(
        f"name: {len(alike)} projects are named {quote_value(name)} but for case; run_project "
        "takes one of their ids",
        detail={"argument": "name", "project_ids": [p.id for p in alike]},
        next_step="run_project",
    )
