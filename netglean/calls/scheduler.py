"""`netglean serve`'s scheduler: each project with a schedule runs when it falls due, started as a
call of run_project starts it (a background run: recorded, its rows written, a feed project's feed
refreshed).

Due counts from the project's latest run, whoever started it and however it ended: an interval falls
due that long after it, a cron expression at its first firing after it. A project never run is due
at once (an interval) or at the first firing after it was saved (cron). However many due times
passed while no server ran, the project runs once, and the next due time counts from that run. A
project with a run queued or working is left until the run has ended, so the schedule never starts a
second one beside it.

With ``run_workers`` on, the servers leave it to the workers: the fleet's periodic tend job
(netglean.queue), once across the fleet at each tick, calls ``Scheduler.look``, and its runs go to
the workers as any other.

Otherwise, only ``serve`` schedules: a stdio server lives as long as its client's session, and each
client would start one. Several ``serve`` processes sharing a store each look, and each sees the
runs the others started as working (unless two look in the same instant). A scheduled run counts as
the project's latest from the moment it is started, so one cancelled (or interrupted) before it
began is that due time's run all the same: not started again at once.

A scheduled run spends a budget of its own (session ``schedule:<project_id>:<time>``), as a new
client session would: the operator's session_budget bounds one refresh, not every refresh there will
ever be.
"""

from __future__ import annotations

import logging
import time

import anyio

from netglean.calls.runner import ToolRunner
from netglean.core.errors import ToolError
from netglean.core.schedule import parse_schedule
from netglean.store.base import ACTIVE, Project, ProjectRecords, RunRecords
from netglean.store.filters import Column, Compare, Sort

log = logging.getLogger("netglean.calls.scheduler")

RUN_TOOL = "run_project"
PROJECT_TOOLS = (RUN_TOOL, "run_project_by_name")
"""The tools whose runs work on a project (their arguments name it: by id, or by name)."""
LABEL = "scheduled"
PAGE = 200
SCHEDULED = Compare(Column("schedule"), "!=", None)
"""The projects that have a schedule."""


class Scheduler:
    """Looks every ``schedule_tick`` seconds for projects due, and starts a run of each through
    ``runner``."""

    def __init__(self, runner: ToolRunner) -> None:
        self._runner = runner

    async def run(self) -> None:
        """Look until cancelled (the server's stop). A look that fails (a busy store, a bug) is
        logged and the next one tries again: the scheduler never ends the server."""
        # another tool pack's registry: nothing to run projects with
        if RUN_TOOL not in self._runner.registry.tools:
            log.debug("no scheduler: the registry has no %s", RUN_TOOL)
            return
        if self._runner.services.runs.dispatching:
            log.debug("no scheduler here: the workers' tend looks for due projects")
            return
        while True:
            try:
                await self.look()
            except ToolError as exc:
                log.warning("the scheduler could not read the run store: %s", exc.message)
            except Exception:
                log.exception("the scheduler's look failed")
            await anyio.sleep(self._runner.settings.schedule_tick)

    async def look(self) -> int:
        """Start a run of each scheduled project that is due and has none working; how many were
        started."""
        store = self._runner.services.runs.store
        now = time.time()
        scheduled = await _scheduled(store)
        working = await _working(store)
        started = 0
        for project in scheduled:
            if _named_by(project, working):
                continue
            try:
                if await _due(store, project, now):
                    started += await self._start(store, project, now)
            # one project's trouble (its store rows, its schedule) is not the others'
            except ToolError as exc:
                log.warning(
                    "project %r: its schedule could not be followed: %s", project.name, exc.message
                )
        log.debug(
            "the scheduler looked at %d scheduled project(s) and started %d run(s)",
            len(scheduled),
            started,
        )
        return started

    async def _start(self, store: ProjectRecords, project: Project, now: float) -> int:
        arguments = {"project_id": project.id, "wait": False, "label": LABEL}
        envelope, _ = await self._runner.call(
            RUN_TOOL, arguments, session=f"schedule:{project.id}:{now:.0f}"
        )
        if not envelope.ok:
            message = envelope.payload.get("error", {}).get("message", "")
            log.warning("project %r: its scheduled run could not start: %s", project.name, message)
            return 0
        # wait false: the answer is the run, just started
        run_id = envelope.payload["run"]["run_id"]
        # now, not when it begins: a queued run is the latest already
        await store.link_run(project.id, run_id)
        log.info("project %r: scheduled run %s started", project.name, run_id)
        return 1


async def running(store: RunRecords, project: Project) -> bool:
    """Whether some run of the project is queued or working."""
    return _named_by(project, await _working(store))


async def _scheduled(store: ProjectRecords) -> list[Project]:
    found: list[Project] = []
    while True:
        page, total = await store.list_projects(
            where=SCHEDULED, order=(Sort(Column("created")),), offset=len(found), limit=PAGE
        )
        found += page
        if not page or len(found) >= total:
            return found


async def _working(store: RunRecords) -> tuple[set[str], set[str]]:
    """The projects that runs queued or working name: by id, and by name in lower case
    (run_project_by_name takes a name but for case)."""
    ids: set[str] = set()
    names: set[str] = set()
    seen = 0
    while True:
        runs, total = await store.list_runs(
            statuses=ACTIVE, tools=PROJECT_TOOLS, offset=seen, limit=PAGE
        )
        for run in runs:
            if "project_id" in run.arguments:
                ids.add(str(run.arguments["project_id"]))
            if "name" in run.arguments:
                names.add(str(run.arguments["name"]).lower())
        seen += len(runs)
        if not runs or seen >= total:
            return ids, names


def _named_by(project: Project, working: tuple[set[str], set[str]]) -> bool:
    ids, names = working
    return project.id in ids or project.name.lower() in names


async def _due(store: ProjectRecords, project: Project, now: float) -> bool:
    latest, _ = await store.project_runs(project.id, statuses=(), offset=0, limit=1)
    return due_at(project, latest[0].created_at if latest else None) <= now


def due_at(project: Project, last: float | None) -> float:
    """When the project's schedule falls due, its latest run having been created at ``last`` (None:
    never run): the first due time after it, however long ago that was (see the module
    docstring)."""
    # its least gap was checked when it was saved
    schedule = parse_schedule(project.schedule or "", at_least=0)
    return schedule.next_after(project.updated_at if last is None else last, last)
