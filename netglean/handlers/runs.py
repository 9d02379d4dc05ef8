"""Background runs, for the agent that started one: where it stands, what it produced, its log;
cancel, resume, list. Every run tool reads the same store, so a run started through one server is
seen through any other that shares it."""

from __future__ import annotations

import json
import re
from typing import Any, cast

from netglean.calls.context import Context
from netglean.calls.resources import ResourceNotFound
from netglean.calls.runs import describe_run, format_time, stored_envelope
from netglean.core import untrusted
from netglean.core.envelope import DONE, Outcome, say
from netglean.core.errors import RunNotFound
from netglean.generated.models import (
    CancelRunInput,
    CancelRunOutput,
    GetRunLogInput,
    GetRunLogOutput,
    GetRunResultInput,
    GetRunResultOutput,
    GetRunStatusInput,
    GetRunStatusOutput,
    ItemError,
    ListRunsInput,
    ListRunsOutput,
    ResumeRunInput,
    ResumeRunOutput,
    RunItem,
    RunLogLine,
    RunStatus,
)
from netglean.store.base import RESUMABLE, Run

LONG_STRING = 20_000
"""Characters a string of a run's result keeps unless full_response asks for it whole."""
ITEM_LISTS = ("pages",)
"""The lists of a tool's answer that its stored items stand for (a crawl's pages): left out of
get_run_result's result, whose items hold them all."""
LOG_LEVELS = ("debug", "info", "warning", "error")
RESOURCE_RUNS = 50
"""Runs the netglean://runs resource lists (the newest; list_runs pages through them all)."""
RUN_ID = re.compile(r"[0-9a-f]{32}")


async def _run(ctx: Context, run_id: str) -> Run:
    try:
        return await ctx.runs.get(run_id)
    except RunNotFound as error:
        error.next_step = "list_runs"
        raise


def run_status(run: Run) -> RunStatus:
    """A run as the RunStatus schema shows it (``describe_run`` gives the same for the
    resources)."""
    error = None
    if run.error_code:
        retryable = run.status in RESUMABLE
        error = ItemError(code=run.error_code, message=run.error_message or "", retryable=retryable)
    # The store holds status, cancel and level as text; the model checks them against the schema.
    return RunStatus(
        run_id=run.id,
        tool=run.tool,
        label=run.label,
        status=cast(Any, run.status),
        done=run.done,
        total=run.total,
        current=run.current,
        created_at=format_time(run.created_at),
        started_at=format_time(run.started_at),
        updated_at=format_time(run.updated_at),
        finished_at=format_time(run.finished_at),
        attempts=run.attempts,
        cancel_requested=cast(Any, run.cancel),
        has_result=run.has_result,
        resumable=run.status in RESUMABLE,
        error=error,
    )


def _source(run: Run) -> str:
    """What a run tool's frame names: the run (its payload holds what the run read, from many
    URLs)."""
    return f"run {run.id}"


STDOUT = ("debug", "info")
"""The levels of a run's log that stand for its output stream (get_run_log's stdout); the rest are
its stderr."""
STDERR = ("warning", "error")
STDERR_TAIL = 2000
"""Characters of a failed run's stderr tail that get_run_status and get_run_result give."""


async def _stream(ctx: Context, run: Run, levels: tuple[str, ...], chars: int) -> str:
    """The run's log lines at ``levels`` as one text, its last ``chars`` characters (a process's
    stream, as RTILA's clients read it); a stderr that logged nothing says the run's error."""
    lines, _ = await ctx.runs.store.log_lines(run.id, levels=levels, tail_chars=chars)
    text = "\n".join(f"{line.level.upper()} {line.message}" for line in lines)
    if levels == STDERR and run.error_code:
        text = "\n".join(filter(None, (text, f"{run.error_code}: {run.error_message or ''}")))
    return text[-chars:]


async def _stderr_tail(ctx: Context, run: Run) -> str | None:
    """A finished run that did not succeed: the tail of its warnings and errors, and its error's
    classification."""
    if not run.finished or run.status == "succeeded":
        return None
    return await _stream(ctx, run, STDERR, STDERR_TAIL)


def _next(run: Run) -> str:
    if run.has_result:
        return "get_run_result"
    return (
        "resume_run" if run.status in ("interrupted", "cancelled", "failed") else "get_run_status"
    )


async def get_run_status(args: GetRunStatusInput, ctx: Context) -> Outcome:
    run = await _run(ctx, args.run_id)
    if not run.finished:
        guidance = say(
            "The run is still working ({done} done so far): call get_run_status again in a few "
            "seconds.",
            done=run.done,
        )
        payload = GetRunStatusOutput(run=run_status(run))
        return Outcome(payload, next_step="get_run_status", guidance=guidance, source=_source(run))
    if run.has_result:
        guidance = say(
            "The run has ended (payload.run.status): get_run_result reads what it produced."
        )
    elif run.status == "interrupted":
        guidance = say(
            "The run was interrupted when its server stopped: resume_run continues it from its "
            "checkpoint."
        )
    else:
        guidance = say(
            "The run ended without a result (payload.run.error says why): resume_run tries it "
            "again."
        )
    payload = GetRunStatusOutput(run=run_status(run), stderr_tail=await _stderr_tail(ctx, run))
    return Outcome(payload, next_step=_next(run), guidance=guidance, source=_source(run))


def _cut(value: Any, whole: bool, counter: list[int]) -> Any:
    """``value`` with its strings longer than LONG_STRING cut (counted in ``counter``), unless
    ``whole``."""
    if isinstance(value, str):
        if whole or len(value) <= LONG_STRING:
            return value
        counter[0] += 1
        return (
            value[:LONG_STRING]
            + f"… [cut: {len(value) - LONG_STRING} more characters; full_response gives them]"
        )
    if isinstance(value, dict):
        return {key: _cut(inner, whole, counter) for key, inner in value.items()}
    if isinstance(value, list):
        return [_cut(inner, whole, counter) for inner in value]
    return value


def _without_items(value: Any) -> Any:
    """``value`` without its item lists (a list by one of those names: a project's dataset named
    pages, its counts an object, is kept)."""
    if isinstance(value, dict):
        return {
            key: _without_items(inner)
            for key, inner in value.items()
            if key not in ITEM_LISTS or not isinstance(inner, list)
        }
    if isinstance(value, list):
        return [_without_items(inner) for inner in value]
    return value


async def get_run_result(args: GetRunResultInput, ctx: Context) -> Outcome:
    run = await _run(ctx, args.run_id)
    store = ctx.runs.store
    offset = (args.page - 1) * args.per_page
    items, total = await store.items(run.id, offset=offset, limit=args.per_page)
    cut = [0]
    whole = args.full_response
    run_items = [RunItem(part=i.part, seq=i.seq, item=_cut(i.body, whole, cut)) for i in items]
    result = None
    stored = await store.result(run.id) if args.page == 1 and run.has_result else None
    if stored is not None:
        envelope = stored_envelope(stored[0])
        answer = envelope.payload if envelope.ok else {"error": envelope.payload.get("error", {})}
        result = _cut(_without_items(answer) if total else answer, whole, cut)
    payload = GetRunResultOutput(
        run=run_status(run),
        items=run_items,
        page=args.page,
        per_page=args.per_page,
        total_items=total,
        has_more=offset + len(items) < total,
        result=result,
        cut_strings=cut[0],
        stderr_tail=await _stderr_tail(ctx, run),
    )
    if not run.finished:
        guidance = say(
            "The run is still working ({done} done so far); these are its first items: "
            "get_run_status follows it.",
            done=run.done,
        )
        next_step = "get_run_status"
    elif payload.has_more:
        guidance = say(
            "Items {first} to {last} of {total}: call get_run_result with page {next} for the "
            "next ones.",
            first=offset + 1,
            last=offset + len(items),
            total=total,
            next=args.page + 1,
        )
        next_step = "get_run_result"
    else:
        guidance = say(
            "Items {shown} of {total} shown; no more pages.", shown=len(items), total=total
        )
        next_step = DONE
    return Outcome(payload, next_step=next_step, guidance=guidance, source=_source(run))


async def get_run_log(args: GetRunLogInput, ctx: Context) -> Outcome:
    run = await _run(ctx, args.run_id)
    levels = LOG_LEVELS[LOG_LEVELS.index(args.level) :]
    lines, omitted = await ctx.runs.store.log_lines(
        run.id, levels=levels, tail_chars=args.tail_chars
    )
    shown = [
        RunLogLine(at=format_time(x.at), level=cast(Any, x.level), message=x.message) for x in lines
    ]
    payload = GetRunLogOutput(
        run_id=run.id,
        lines=shown,
        omitted=omitted,
        stdout=await _stream(ctx, run, STDOUT, args.tail_chars),
        stderr=await _stream(ctx, run, STDERR, args.tail_chars),
    )
    guidance = say(
        "{count} line(s); {omitted} older line(s) left out by tail_chars.",
        count=len(lines),
        omitted=omitted,
    )
    return Outcome(payload, next_step="get_run_status", guidance=guidance, source=_source(run))


async def cancel_run(args: CancelRunInput, ctx: Context) -> Outcome:
    await _run(ctx, args.run_id)
    run = await ctx.runs.cancel(args.run_id, force=args.force)
    if not run.finished:
        guidance = say(
            "The cancel is asked; the server working the run has not carried it out yet: "
            "get_run_status follows it."
        )
        payload = CancelRunOutput(run=run_status(run))
        return Outcome(payload, next_step="get_run_status", guidance=guidance, source=_source(run))
    guidance = say("The run has ended (payload.run.status); resume_run continues a cancelled run.")
    return Outcome(
        CancelRunOutput(run=run_status(run)),
        next_step=_next(run) if run.has_result else DONE,
        guidance=guidance,
        source=_source(run),
    )


async def resume_run(args: ResumeRunInput, ctx: Context) -> Outcome:
    await _run(ctx, args.run_id)
    # Where no transport hosts runs (the command line), the run is hosted for this call, which then
    # waits for it.
    async with ctx.runs.hosted_here() as only_now:
        run, resumed = await ctx.runs.resume(
            args.run_id, retry_failed=args.retry_failed, session=ctx.session
        )
        if resumed and (only_now or args.wait):
            run = await ctx.runs.wait_for_call(run.id, args.timeout_ms, ctx.report)
    if only_now and resumed and not run.finished:
        run = await ctx.runs.get(run.id)
    payload = ResumeRunOutput(run=run_status(run))
    if not resumed:
        if run.finished:
            guidance = say(
                "The run has succeeded: nothing to resume (retry_failed reads its failed pages "
                "again); get_run_result reads what it produced."
            )
            return Outcome(payload, next_step=_next(run), guidance=guidance, source=_source(run))
        guidance = say("The run is still working: nothing to resume; get_run_status follows it.")
        return Outcome(payload, next_step="get_run_status", guidance=guidance, source=_source(run))
    if run.finished:
        guidance = say(
            "The resumed run has ended (payload.run.status): get_run_result reads what it produced."
        )
        return Outcome(payload, next_step=_next(run), guidance=guidance, source=_source(run))
    guidance = say("The run goes on from its checkpoint: get_run_status follows it.")
    return Outcome(payload, next_step="get_run_status", guidance=guidance, source=_source(run))


async def list_runs(args: ListRunsInput, ctx: Context) -> Outcome:
    offset = (args.page - 1) * args.per_page
    runs, total = await ctx.runs.store.list_runs(
        statuses=list(args.status or ()),
        tools=list(args.tool or ()),
        offset=offset,
        limit=args.per_page,
        session=ctx.session if args.this_session else None,
    )
    has_more = offset + len(runs) < total
    payload = ListRunsOutput(
        runs=[run_status(run) for run in runs],
        page=args.page,
        per_page=args.per_page,
        total=total,
        has_more=has_more,
    )
    guidance = say("{count} of {total} run(s).", count=len(runs), total=total)
    next_step = "list_runs" if has_more else "get_run_status" if runs else DONE
    return Outcome(payload, next_step=next_step, guidance=guidance, source="netglean://runs")


def frame_resource(source: str, value: Any) -> str:
    """A resource's JSON, quarantined as a target tool's payload is: a resource has no envelope to
    mark it."""
    return untrusted.frame(
        source, json.dumps(untrusted.clean_tree(value), ensure_ascii=False), cleaned=True
    )


async def read_runs(ctx: Context) -> str:
    runs, total = await ctx.runs.store.list_runs(
        statuses=(), tools=(), offset=0, limit=RESOURCE_RUNS
    )
    return frame_resource(
        "netglean://runs", {"runs": [describe_run(run) for run in runs], "total": total}
    )


async def read_run(ctx: Context, run_id: str) -> str:
    run = await ctx.runs.store.get(run_id) if RUN_ID.fullmatch(run_id) else None
    if run is None:
        raise ResourceNotFound(f"netglean://runs/{run_id}")
    return frame_resource(f"netglean://runs/{run_id}", {"run": describe_run(run)})
