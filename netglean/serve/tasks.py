"""MCP tasks, served by the runs: a task is a run, its taskId the run's id.

The SDK carries the task types but dispatches none of them, so this module adds them to the
low-level server: a middleware that routes a task-bearing ``tools/call`` to a handler of its own
(the SDK would check a task against ``CallToolResult`` and refuse it), request handlers for the
``tasks/*`` methods, and the capability.

Two wires, told apart by the protocol version:

- 2025-11-25 (core tasks): the client asks, with ``params.task`` on a tool whose
  ``execution.taskSupport`` allows it (crawl and batch_crawl, the async tools). The call starts the
  run as ``wait: false`` would and answers with the task at once; ``tasks/get``, ``tasks/result``,
  ``tasks/list`` and ``tasks/cancel`` follow it.
- 2026-07-28 (the ``io.modelcontextprotocol/tasks`` extension): the server decides. A client that
  declares the extension on its request gets the call's own answer when the run ends within the
  call's wait (``wait``, ``timeout_ms``), and the task instead of the run's handle when it does not;
  ``tasks/get`` (the result inlined once there is one), ``tasks/update`` and ``tasks/cancel`` follow
  it.

Either way the run is the one the run tools see (get_run_status, cancel_run, resume_run ...). Every
status message is our own words: a task's status sits outside any untrusted frame, so nothing a
target chose reaches it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.methods import serialize_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from netglean.calls.runner import ToolRunner
from netglean.calls.runs import describe_run
from netglean.core.envelope import say
from netglean.core.errors import RunNotFound, ToolError
from netglean.store.base import ACTIVE, Run

log = logging.getLogger("netglean.serve.tasks")

TASKS_VERSION = "2025-11-25"
"""The one protocol version with core tasks (2026-07-28 moved them to an extension)."""
EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"
"""What a host may hand the model while the task works (2025-11-25): the text a wait-false call
answers, the run."""
TASK_CALL = "netglean/tasks/call"
"""Where the middleware routes a tools/call that may become a task: never advertised, reached only
so."""
CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
POLL_INTERVAL_MS = 1000
LIST_PAGE = 50
"""Tasks one tasks/list page holds (the newest first)."""
KEEP_ALL_TTL_MS = 100 * 365 * 86_400_000
"""The ttl when the operator keeps every run (run_retention_days 0): a hundred years, not null,
which the SDK drops from what it sends (a Task without ttl is invalid)."""

CallTool = Callable[
    [ServerRequestContext[Any], types.CallToolRequestParams], Awaitable[types.CallToolResult]
]
_Params = TypeVar("_Params", bound=BaseModel | None)
Handler = Callable[[ServerRequestContext[Any], _Params], Awaitable[HandlerResult]]

# What each run status is as a task, and what the task says of itself, per wire. At 2025-11-25 a
# tool result with isError is a failed task; at 2026-07-28 it is a completed one (failed is for
# JSON-RPC errors, which a run never ends in), as is an interrupted run, whose answer is its handle
# (the call that waited for it answers so too).
_CORE: dict[str, tuple[str, str]] = {
    "queued": (
        "working",
        "The run is queued: it starts when one of the server's run slots is free.",
    ),
    "succeeded": ("completed", "The run has finished: tasks/result gives its result."),
    "failed": ("failed", "The run ended in an error: tasks/result gives the tool's error result."),
    "cancelled": (
        "cancelled",
        "The run was cancelled: resume_run continues it from its checkpoint.",
    ),
    "interrupted": (
        "failed",
        "The run was interrupted when its server stopped: resume_run continues it from its "
        "checkpoint.",
    ),
}
_EXTENDED: dict[str, tuple[str, str]] = {
    "queued": _CORE["queued"],
    "succeeded": ("completed", "The run has finished: the task's result is the tool's result."),
    "failed": (
        "completed",
        "The run ended in an error: the task's result is the tool's error result.",
    ),
    "cancelled": _CORE["cancelled"],
    "interrupted": (
        "completed",
        "The run was interrupted when its server stopped: resume_run continues it from its "
        "checkpoint.",
    ),
}


class _UpdateTaskParams(types.RequestParams):
    """tasks/update (2026-07-28): answers to a task's input requests, which a run never makes."""

    task_id: str
    input_responses: dict[str, Any] | None = None


def install(server: Server[Any], runner: ToolRunner, call_tool: CallTool) -> None:
    """Serve tasks on ``server``, whose tools/call handler is ``call_tool`` (a task's call goes
    through it too)."""
    tasks = _Tasks(runner, call_tool)
    server.add_request_handler(TASK_CALL, types.CallToolRequestParams, tasks.call)
    server.add_request_handler(
        "tasks/get", types.GetTaskRequestParams, _guard_store_errors(tasks.get)
    )
    server.add_request_handler(
        "tasks/result", types.GetTaskPayloadRequestParams, _guard_store_errors(tasks.result)
    )
    server.add_request_handler(
        "tasks/list", types.PaginatedRequestParams, _guard_store_errors(tasks.listing)
    )
    server.add_request_handler(
        "tasks/cancel", types.CancelTaskRequestParams, _guard_store_errors(tasks.cancel)
    )
    server.add_request_handler("tasks/update", _UpdateTaskParams, _guard_store_errors(tasks.update))
    server.middleware.append(tasks.middleware)


def _guard_store_errors(handler: Handler[_Params]) -> Handler[_Params]:
    """A store that fails under a tasks/* request is the server's internal error (-32603), said in
    our own words: the SDK would answer with the exception's text, which may name the store's
    path."""

    async def guarded(ctx: ServerRequestContext[Any], params: _Params) -> HandlerResult:
        try:
            return await handler(ctx, params)
        except ToolError as error:
            log.warning("%s failed: %s", ctx.method, error.message)
            message = f"The server's run store could not answer ({error.code}): ask again shortly."
            raise MCPError(types.INTERNAL_ERROR, message) from None

    return guarded


def _modern(ctx: ServerRequestContext[Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _declares_extension(ctx: ServerRequestContext[Any]) -> bool:
    """Whether this request (not an earlier one: the extension is declared per request) declares the
    extension."""
    meta = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
    capabilities = (
        meta.get(types.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    )
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return isinstance(extensions, Mapping) and EXTENSION in extensions


def _not_found(method: str) -> MCPError:
    return MCPError(types.METHOD_NOT_FOUND, "Method not found", data=method)


class _Tasks:
    def __init__(self, runner: ToolRunner, call_tool: CallTool) -> None:
        self._runner = runner
        self._runs = runner.services.runs
        self._call_tool = call_tool
        days = runner.settings.run_retention_days
        self._ttl_ms = round(days * 86_400_000) if days else KEEP_ALL_TTL_MS
        """A task lives as long as its run: the store prunes a run retention days after it finished,
        so never before retention days after it was created."""

    async def middleware(
        self, ctx: ServerRequestContext[Any], call_next: CallNext
    ) -> HandlerResult:
        """Route a tools/call that may become a task to TASK_CALL (past the init gate and params
        validation, as any request), and add the tasks capability to what the server says of
        itself."""
        if ctx.method == "tools/call" and isinstance(ctx.params, Mapping):
            if ctx.protocol_version == TASKS_VERSION and ctx.params.get("task") is not None:
                return await call_next(dataclasses.replace(ctx, method=TASK_CALL))
            spec = self._runner.registry.tools.get(str(ctx.params.get("name")))
            if (
                _modern(ctx)
                and spec is not None
                and spec.execution == "async"
                and _declares_extension(ctx)
            ):
                return await call_next(dataclasses.replace(ctx, method=TASK_CALL))
        result = await call_next(ctx)
        if isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
            if ctx.method == "initialize" and result.get("protocolVersion") == TASKS_VERSION:
                result["capabilities"]["tasks"] = CAPABILITY
            elif ctx.method == "server/discover":
                extensions = result["capabilities"].setdefault("extensions", {})
                extensions[EXTENSION] = {}
        return result

    async def call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> HandlerResult:
        """A tools/call that may become a task: the call's own answer when it does not (invalid
        arguments, a run that ended within the call's wait), else the task."""
        core = ctx.protocol_version == TASKS_VERSION and params.task is not None
        # called by its name, not routed here
        if not core and not (_modern(ctx) and _declares_extension(ctx)):
            raise _not_found(TASK_CALL)
        if core:
            spec = self._runner.registry.tools.get(params.name)
            if spec is not None and spec.execution != "async":
                raise MCPError(
                    types.METHOD_NOT_FOUND,
                    f"Tool {params.name!r} does not run as a task (its execution.taskSupport is "
                    "forbidden): call it without params.task",
                )
            # A task never waits: the run starts as wait false would start it, and the task follows
            # it.
            params = params.model_copy(
                update={"arguments": {**(params.arguments or {}), "wait": False}}
            )
        result = await self._call_tool(ctx, params)
        status = _handed_run(result)
        if status is None or status["status"] not in ACTIVE:
            return serialize_server_result("tools/call", ctx.protocol_version, _dumped(result))
        task = self._task(status, core=core)
        if not core:
            return {"resultType": "task", **task}
        text = "".join(
            block.text for block in result.content if isinstance(block, types.TextContent)
        )
        return {"task": task, "_meta": {IMMEDIATE_RESPONSE: text}}

    async def get(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskRequestParams
    ) -> HandlerResult:
        core = self._gate(ctx, "tasks/get", core_only=False)
        run = await self._run(params.task_id)
        task = self._task(describe_run(run), core=core)
        if not core and task["status"] == "completed":
            task["result"] = await self._answer(ctx, run)
        return task

    async def result(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskPayloadRequestParams
    ) -> HandlerResult:
        """What the call would have answered had it waited for its run to end: blocks until it
        has."""
        self._gate(ctx, "tasks/result", core_only=True)
        run = await self._run(params.task_id)
        while not run.finished:
            run = await self._runs.wait(run.id, float("inf"))
        answer = await self._answer(ctx, run)
        answer["_meta"] = {**answer.get("_meta", {}), RELATED_TASK: {"taskId": run.id}}
        return answer

    async def listing(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> HandlerResult:
        """Every run of the store, newest first, LIST_PAGE at a time; the cursor is where the next
        page starts."""
        self._gate(ctx, "tasks/list", core_only=True)
        cursor = params.cursor if params is not None else None
        if cursor is not None and not (cursor.isascii() and cursor.isdigit() and len(cursor) <= 18):
            raise MCPError(
                types.INVALID_PARAMS, "Invalid cursor: use the nextCursor of an earlier tasks/list"
            )
        offset = int(cursor or 0)
        runs, total = await self._runs.store.list_runs(
            statuses=(), tools=(), offset=offset, limit=LIST_PAGE
        )
        page: dict[str, Any] = {"tasks": [self._task(describe_run(run), core=True) for run in runs]}
        if offset + len(runs) < total:
            page["nextCursor"] = str(offset + len(runs))
        return page

    async def cancel(
        self, ctx: ServerRequestContext[Any], params: types.CancelTaskRequestParams
    ) -> HandlerResult:
        """Cancel the run gracefully (it stops at its next page and keeps what it read, or is forced
        after a grace): the task as it then is at 2025-11-25, an acknowledgement at 2026-07-28."""
        core = self._gate(ctx, "tasks/cancel", core_only=False)
        run = await self._run(params.task_id)
        if run.finished:
            if core:
                status = self._task(describe_run(run), core=core)["status"]
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Cannot cancel task: already in terminal status {status!r}",
                )
            return {}
        run = await self._runs.cancel(run.id, force=False)
        return self._task(describe_run(run), core=True) if core else {}

    async def update(
        self, ctx: ServerRequestContext[Any], params: _UpdateTaskParams
    ) -> HandlerResult:
        """A run never asks for input, so every response is to a request not outstanding: ignored,
        acknowledged."""
        if not _modern(ctx):
            raise _not_found("tasks/update")
        self._require_extension(ctx)
        await self._run(params.task_id)
        return {}

    def _gate(self, ctx: ServerRequestContext[Any], method: str, *, core_only: bool) -> bool:
        """Whether the request is on the core wire (2025-11-25); the extension's wire needs its
        declaration; any other version has no such method."""
        if ctx.protocol_version == TASKS_VERSION:
            return True
        if core_only or not _modern(ctx):
            raise _not_found(method)
        self._require_extension(ctx)
        return False

    @staticmethod
    def _require_extension(ctx: ServerRequestContext[Any]) -> None:
        if not _declares_extension(ctx):
            raise MCPError(
                types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                f"Missing required client capability: declare the {EXTENSION} extension on the "
                "request",
                data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )

    async def _run(self, task_id: str) -> Run:
        try:
            return await self._runs.get(task_id)
        except RunNotFound:
            raise MCPError(
                types.INVALID_PARAMS, "Failed to retrieve task: Task not found"
            ) from None

    async def _answer(self, ctx: ServerRequestContext[Any], run: Run) -> dict[str, Any]:
        """The run's answer as the tools/call that waited for it would have sent it, on this
        request's wire."""
        envelope, source = await self._runner.run_response_for(run)
        result = types.CallToolResult(
            content=[
                types.TextContent(
                    type="text", text=self._runner.render_text(run.tool, envelope, source)
                )
            ],
            structured_content=envelope.as_dict(),
            is_error=not envelope.ok,
        )
        return serialize_server_result("tools/call", ctx.protocol_version, _dumped(result))

    def _task(self, run: Mapping[str, Any], *, core: bool) -> dict[str, Any]:
        """A run (as RunStatus shows it) as a task of either wire."""
        if run["status"] == "running":
            status, message = (
                "working",
                str(say("The run is working: {done} done so far.", done=run["done"])),
            )
        else:
            status, message = (_CORE if core else _EXTENDED)[run["status"]]
        task: dict[str, Any] = {
            "taskId": run["run_id"],
            "status": status,
            "statusMessage": message,
            "createdAt": run["created_at"],
            "lastUpdatedAt": run["updated_at"],
        }
        if core:
            return {**task, "ttl": self._ttl_ms, "pollInterval": POLL_INTERVAL_MS}
        return {**task, "ttlMs": self._ttl_ms, "pollIntervalMs": POLL_INTERVAL_MS}


def _dumped(result: types.CallToolResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def _handed_run(result: types.CallToolResult) -> Mapping[str, Any] | None:
    """The run an async tool's answer hands back instead of its result (payload ``{"run":
    RunStatus}``), if it does."""
    envelope = result.structured_content
    payload = (
        envelope.get("payload") if isinstance(envelope, Mapping) and envelope.get("ok") else None
    )
    if (
        isinstance(payload, Mapping)
        and set(payload) == {"run"}
        and isinstance(payload["run"], Mapping)
    ):
        return payload["run"]
    return None
