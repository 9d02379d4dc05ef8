"""The generated registry served through the official SDK's low-level ``Server``."""

from __future__ import annotations

import dataclasses
import warnings
import weakref
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from netglean._version import __version__
from netglean.calls.context import Context
from netglean.calls.profiles import JsonRpcFailure, ToolWire
from netglean.calls.registry import ToolSpec
from netglean.calls.resources import PromptError, ResourceNotFound, read_resource, render_prompt
from netglean.calls.runner import ToolRunner, UnknownTool
from netglean.core import untrusted
from netglean.core.envelope import Envelope
from netglean.core.errors import CODES, ToolError
from netglean.serve import tasks

RESOURCE_NOT_FOUND = -32002
"""The MCP specification's error code for an unknown resource URI."""

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
UNTRUSTED_IMAGE = {"netglean/untrusted": True}
"""The ``_meta`` of an image block: a screenshot of a third-party page, data and never instructions,
as the frame's notice says of it too (the block itself stands outside the frame)."""


def image_blocks(envelope: Envelope) -> tuple[Envelope, list[types.ImageContent]]:
    """A payload's images (catalog/schemas/Image.yaml) as MCP image content: each one's base64
    leaves the payload (a model reads the image, not its base64 in the text), ``content_index`` says
    which block holds it, and each block is marked untrusted (``UNTRUSTED_IMAGE``); the envelope's
    notice says that the images are third-party."""
    images = envelope.payload.get("images")
    if not isinstance(images, list) or not any(
        isinstance(image, dict) and "data" in image for image in images
    ):
        return envelope, []
    blocks: list[types.ImageContent] = []
    kept = []
    for image in images:
        shown = {key: value for key, value in image.items() if key != "data"}
        if "data" in image:
            blocks.append(
                types.ImageContent(
                    type="image",
                    data=image["data"],
                    mime_type=image["mime_type"],
                    _meta=dict(UNTRUSTED_IMAGE),
                )
            )
            shown["content_index"] = len(blocks)
        kept.append(shown)
    payload = {**envelope.payload, "images": kept}
    notice = " ".join(
        filter(None, (envelope.notice, untrusted.SCREENSHOTS_NOTICE.format(count=len(blocks))))
    )
    return dataclasses.replace(envelope, payload=payload, payload_json=None, notice=notice), blocks


def peer_session(request: Any) -> str:
    """The budget a client without a session spends: its address's (a REST client, a 2026 MCP
    client)."""
    return f"peer:{request.client.host if request.client else '?'}"


def _tool(spec: ToolSpec, wire: ToolWire | None) -> types.Tool:
    """The tool as listed: under a profile that serves its name, with the schemas the seed's client
    reads."""
    hints = spec.annotations
    output_schema = spec.output_schema if wire is None else wire.output_schema
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=dict(spec.input_schema if wire is None else wire.input_schema),
        output_schema=None if output_schema is None else dict(output_schema),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=hints["read_only"],
            destructive_hint=hints["destructive"],
            idempotent_hint=hints["idempotent"],
            open_world_hint=hints["open_world"],
        ),
        # A run may be asked for as a task (2025-11-25); the SDK leaves this out of what a 2026
        # client sees.
        execution=types.ToolExecution(task_support="optional")
        if spec.execution == "async"
        else None,
    )


def build_server(runner: ToolRunner) -> Server[Any]:
    """A low-level SDK server whose every list is built once and whose calls go through
    ``runner``."""
    registry = runner.registry
    tools = types.ListToolsResult(
        tools=[_tool(spec, registry.wires.get(spec.name)) for spec in registry.tools.values()]
    )
    resources = types.ListResourcesResult(
        resources=[
            types.Resource(
                name=r.name,
                title=r.title,
                uri=r.uri,
                description=r.description,
                mime_type=r.mime_type,
            )
            for r in registry.resources
            if r.uri is not None
        ]
    )
    templates = types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                name=r.name,
                title=r.title,
                uri_template=r.uri_template,
                description=r.description,
                mime_type=r.mime_type,
            )
            for r in registry.resources
            if r.uri_template is not None
        ]
    )
    prompts = types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name=p.name,
                title=p.title,
                description=p.description,
                arguments=[
                    types.PromptArgument(
                        name=a.name, description=a.description, required=a.required
                    )
                    for a in p.arguments
                ],
            )
            for p in registry.prompts.values()
        ]
    )

    # logging/setLevel holds for the connection. The SDK builds a session object per request, so the
    # connection is known by its initialize parameters (one unhashable object per connection): by
    # id, with the entry dropped when that object is collected.
    log_levels: dict[int, str] = {}

    async def set_logging_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        connection = ctx.session.client_params
        if connection is not None:
            if id(connection) not in log_levels:
                weakref.finalize(connection, log_levels.pop, id(connection), None)
            log_levels[id(connection)] = params.level
        return types.EmptyResult()

    async def report_failure(
        ctx: ServerRequestContext[Any], tool: str, error: dict[str, Any]
    ) -> None:
        """Tell a client that asked for logs that a call failed, at the failure's level, in our own
        words only.

        2025-era clients ask with logging/setLevel; from 2026-07-28 a request opts in through its
        _meta, which the SDK checks itself when the message is sent.
        """
        facts = CODES.get(error.get("code", ""), CODES["tool_error"])
        level = facts.log_level
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = ctx.session.client_params
            wanted = log_levels.get(id(connection)) if connection is not None else None
            if wanted is None or LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted):
                return
        data = {
            "tool": tool,
            "code": error.get("code", "tool_error"),
            "retryable": bool(error.get("retryable")),
            "message": facts.sentence,
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.session.send_log_message(
                level, data, logger="netglean", related_request_id=ctx.request_id
            )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return tools

    def session_of(ctx: ServerRequestContext[Any]) -> str:
        """Whose request budget a call spends. Over HTTP, an MCP session's (its id is the server's,
        checked by the SDK on every request), else the peer address's, as for REST (2026 clients
        keep no session); over stdio the one client's."""
        request = getattr(ctx, "request", None)
        if request is None:
            return "local"
        session = request.headers.get("mcp-session-id")
        if session:
            return f"mcp:{session}"
        return peer_session(request)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            # An omitted `arguments` in MCP means "no arguments".
            envelope, source = await runner.call(
                params.name,
                {} if params.arguments is None else params.arguments,
                ctx.session.report_progress,
                session=session_of(ctx),
            )
        except UnknownTool:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name!r}") from None
        if not envelope.ok:
            await report_failure(ctx, params.name, envelope.payload.get("error", {}))
        envelope, images = image_blocks(envelope)
        wire = registry.wires.get(params.name)
        if wire is None:
            text = runner.render_text(params.name, envelope, source, len(images))
            structured: dict[str, Any] | None = envelope.as_dict()
            is_error = not envelope.ok
        # a seed's shape, from netglean's envelope (its text too, where the profile keeps
        # netglean's)
        else:
            try:
                answer = wire.answer(
                    envelope.as_dict(),
                    params.arguments or {},
                    lambda: runner.render_text(params.name, envelope, source, len(images)),
                    source,
                )
            except JsonRpcFailure as refused:
                raise MCPError(refused.code, refused.message) from None
            text, structured, is_error = answer.text, answer.structured, answer.is_error
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text), *images],
            structured_content=structured,
            is_error=is_error,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return resources

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return templates

    async def read(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        try:
            body = await read_resource(
                registry.resources, Context(runner.services), str(params.uri)
            )
        except ResourceNotFound:
            raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {params.uri}") from None
        # the run store failed under a runs resource: our words, its code
        except ToolError as error:
            raise MCPError(types.INTERNAL_ERROR, CODES[error.code].sentence) from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=body.uri, mime_type=body.mime_type, text=body.text)
            ]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return prompts

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        spec = registry.prompts.get(params.name)
        if spec is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name!r}")
        try:
            messages = render_prompt(spec, params.arguments)
        except PromptError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return types.GetPromptResult(
            description=spec.description,
            messages=[
                types.PromptMessage(role=role, content=types.TextContent(type="text", text=text))  # type: ignore[arg-type]
                for role, text in messages
            ],
        )

    # Logging is deprecated from protocol 2026-07-28 on but still what 2025 clients use; the SDK
    # warns on use.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Server[Any] = Server(
            registry.server.name,
            version=__version__,
            title=registry.server.title,
            description=registry.server.description,
            instructions=registry.server.instructions,
            website_url=registry.server.website_url,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_set_logging_level=set_logging_level,
        )

    async def holding_warm_up(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        with runner.busy():
            return await call_next(ctx)

    # The SDK installs an OpenTelemetry span middleware by default; netglean sends no telemetry.
    server.middleware = [holding_warm_up]
    tasks.install(server, runner, call_tool)
    return server


async def serve_stdio(runner: ToolRunner) -> None:
    from netglean.serve.stdio import stdio_streams

    server = build_server(runner)
    try:
        async with (
            runner.services.runs.hosting(),
            stdio_streams() as (read_stream, write_stream),
            anyio.create_task_group() as background,
        ):
            background.start_soon(runner.warm_up)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            background.cancel_scope.cancel()
    finally:
        await runner.services.aclose()
