"""`netglean serve`: one ASGI app with MCP over streamable HTTP, the REST API, the feed projects'
feeds, the docs and a health check; and, while it serves, the scheduler of projects with a schedule
(netglean.calls.scheduler).

Both entry points share one ToolRunner, so validation, deadlines, the concurrency cap
and the envelope are the same as over stdio. The Guard in front of everything
does the Host/Origin/token/size checks (see netglean.serve.guard); the feeds take
their project's secret instead of the token (see netglean.serve.feeds). /mcp's
sessions are capped per client and in all (see netglean.serve.sessions).
"""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic_core import from_json
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from netglean._version import __version__
from netglean.calls.runner import ToolRunner
from netglean.calls.scheduler import Scheduler
from netglean.core.errors import ConfigurationError, ToolError
from netglean.core.rest_status import refusal_body, status_for
from netglean.core.settings import Settings
from netglean.serve.events import BoundedEventStore
from netglean.serve.feeds import LISTED, SHOWN, feed_endpoint, served_feeds
from netglean.serve.guard import Guard, is_loopback
from netglean.serve.jsonrpc import BAD_ID, error, has_bad_id
from netglean.serve.landing import closest_tool, landing_page, tool_description, tool_list
from netglean.serve.mcp import build_server, peer_session
from netglean.serve.sessions import SessionGate

log = logging.getLogger("netglean.http")


def _refusal(status: int, reason: str = "") -> JSONResponse:
    return JSONResponse(refusal_body(status, reason), status_code=status)


class _RejectBadIds:
    """POST /mcp: a request whose id is neither a string nor an integer gets -32600 with ``id:
    null``.

    The SDK would take it for a notification, answer 202 and never reply (netglean.serve.jsonrpc).
    The body is read once more here, before the SDK reads it: ~0.4 µs for a typical call, ~0.07 ms a
    MB.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went, or the Guard refused the body and answers for it
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            raw: Any = from_json(body)
        except ValueError:
            raw = None  # the SDK answers what is not JSON itself
        if has_bad_id(raw):
            answer = error(None, mcp_types.INVALID_REQUEST, BAD_ID).model_dump_json(
                by_alias=True, exclude_unset=True
            )
            await Response(answer, status_code=400, media_type="application/json")(
                scope, receive, send
            )
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def build_app(runner: ToolRunner) -> Guard:
    registry, settings = runner.registry, runner.settings
    manager = StreamableHTTPSessionManager(
        app=build_server(runner),
        stateless=settings.stateless,
        # Resumable streams: a client that loses its connection reconnects with Last-Event-ID.
        event_store=BoundedEventStore() if settings.resumable and not settings.stateless else None,
        retry_interval=1000,
        # Host/Origin are checked once, for every route, by the Guard.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=settings.max_body_bytes,
        session_idle_timeout=settings.session_idle_timeout,
        # The SessionGate holds the caps (per client and in all) and closes idle sessions for new
        # ones; the SDK's own cap would refuse every new client once one client held it all.
        max_sessions=None,
    )
    mcp_app: ASGIApp = StreamableHTTPASGIApp(manager)
    if not settings.stateless:
        mcp_app = SessionGate(mcp_app, settings)
    generated = registry.folder

    def base(request: Request) -> str:
        return str(request.base_url).rstrip("/")  # its Host is one the guard let through

    def unknown(name: str) -> Response:
        closest = closest_tool(name, registry.tools)
        return _refusal(
            404, (f"Did you mean {closest}? " if closest else "") + "(GET /v1/tools lists them.)"
        )

    async def call_tool(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in registry.tools:
            return unknown(name)
        media_type = (
            request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
        )
        if media_type != "application/json":
            return _refusal(415)
        body = await request.body()
        # pydantic's reader, as the MCP transports use: it also bounds nesting, which json.loads
        # does not
        try:
            # only no body at all means no arguments
            arguments: Any = from_json(body) if body else {}
        except ValueError as exc:
            return _refusal(400, f"Where it breaks: {exc}.")
        envelope, _ = await runner.call(name, arguments, session=peer_session(request))
        error = envelope.payload.get("error", {}).get("code") if not envelope.ok else None
        return JSONResponse(envelope.as_dict(), status_code=status_for(envelope.ok, error))

    async def describe_tool(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in registry.tools:
            return unknown(name)
        return JSONResponse(tool_description(registry.tools[name], base(request)))

    async def tool(request: Request) -> Response:
        return await (describe_tool(request) if request.method == "GET" else call_tool(request))

    async def list_tools(request: Request) -> Response:
        return JSONResponse(tool_list(registry.tools, base(request)))

    async def landing(request: Request) -> Response:
        try:
            feeds = await served_feeds(runner.services.runs, settings, base(request), LISTED)
        except ToolError as exc:  # a busy or broken store: the page without its feeds, saying why
            log.warning("the landing page could not list the served feeds: %s", exc.message)
            feeds = None
        return HTMLResponse(
            landing_page(registry.tools, base(request), bool(settings.token), feeds)
        )

    async def openapi(request: Request) -> Response:
        return FileResponse(generated / "openapi.json", media_type="application/json")

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__, "tools": len(registry.tools)})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with (
                runner.services.runs.hosting(),
                manager.run(),
                anyio.create_task_group() as background,
            ):
                background.start_soon(runner.warm_up)
                background.start_soon(Scheduler(runner).run)
                yield
                background.cancel_scope.cancel()
        finally:
            await runner.services.aclose()

    app = Starlette(
        routes=[
            Route("/mcp", _RejectBadIds(mcp_app)),
            Route("/", landing, methods=["GET"]),
            Route("/v1/tools", list_tools, methods=["GET"]),
            # One route for both methods: a 405 then lists them both in its Allow header.
            Route("/v1/tools/{name}", tool, methods=["GET", "POST"]),
            Route(
                "/feeds/{file:path}",
                feed_endpoint(runner.services.runs, bool(settings.token)),
                methods=["GET"],
            ),
            Route("/openapi.json", openapi, methods=["GET"]),
            Route("/healthz", health, methods=["GET"]),
            Mount("/docs", StaticFiles(directory=generated / "docs", html=True), name="docs"),
        ],
        lifespan=lifespan,
    )
    return Guard(app, settings)


async def _say_feeds(runner: ToolRunner, base: str) -> None:
    """The feeds this server serves, on stderr at start: their addresses are what a person
    subscribes to."""
    try:
        feeds, total = await served_feeds(runner.services.runs, runner.settings, base, SHOWN)
    except ToolError as exc:
        log.warning("the served feeds could not be listed: %s", exc.message)
        return
    for name, address in feeds:
        print(f"feed {name}: {address}", file=sys.stderr)
    if total > len(feeds):
        print(f"and {total - len(feeds)} more feed(s): {base}/ lists them", file=sys.stderr)
    sys.stderr.flush()


def check_binding(settings: Settings) -> None:
    """Refuse to listen beyond loopback without a token: anyone who can reach the port could use the
    tools."""
    if not is_loopback(settings.host) and not settings.token:
        raise ConfigurationError(
            f"refusing to listen on {settings.host} without a bearer token: set NETGLEAN_TOKEN "
            "(or --token), or bind 127.0.0.1"
        )


async def serve_http(runner: ToolRunner) -> None:
    import uvicorn
    from sse_starlette.sse import AppStatus

    from netglean.serve.connections import DrainingServer, check_listenable, front_protocol

    settings = runner.settings
    check_binding(settings)
    check_listenable(settings.host, settings.port)
    runner.services.runs.prepare()
    # sse-starlette (the SDK's SSE responses) cuts every stream the moment the signal comes, so
    # calls in flight would lose their results; here the drain ends them, the calls first
    # (netglean.serve.connections).
    AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]
    app = build_app(runner)

    async def drain() -> None:
        cut = await runner.drain(settings.shutdown_grace)
        if cut:
            grace = settings.shutdown_grace
            log.warning(
                "shutting down: %d call(s) still running after the %g s grace end as unavailable",
                cut,
                grace,
            )
        app.end_streams()

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        # header deadline and per-address connection cap (netglean.serve.connections)
        http=front_protocol(settings),
        ws="none",
        log_level=settings.log_level,
        # uvicorn's lines go through netglean.core.logs like every other: to stderr, redacted
        log_config=None,
        # The grace is the drain's (DrainingServer); uvicorn's deadline (whole seconds) is a later
        # backstop.
        timeout_graceful_shutdown=math.ceil(settings.shutdown_grace) + 2,
        server_header=False,
        # The client is the socket's peer, unless the peer is one of the operator's proxies: then
        # the address X-Forwarded-For names. uvicorn's default (loopback trusted) would let any
        # local client name itself anew on every request and so slip the per-client caps.
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies,  # comma-separated, as uvicorn takes them
        lifespan="on",
    )
    server = DrainingServer(config, drain)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve)
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.01)
        host, port = server.servers[0].sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        # Always printed (whatever the log level): scripts and tests read the port from it.
        print(
            f"netglean serving on http://{shown}:{port} (MCP at /mcp, REST at /v1/tools/NAME,"
            f" docs at http://{shown}:{port}/docs/)",
            file=sys.stderr,
            flush=True,
        )
        await _say_feeds(runner, f"http://{shown}:{port}")
