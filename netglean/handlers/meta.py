"""About the server itself: its version, policy, tool graph and tool specifications."""

from __future__ import annotations

from typing import Any

from netglean._version import __version__
from netglean.calls.context import Context
from netglean.core.envelope import DONE, Outcome
from netglean.generated.models import (
    EngineInfoInput,
    EngineInfoOutput,
    GetVersionInput,
    GetVersionOutput,
)
from netglean.store.open import data_dir


async def get_version(args: GetVersionInput, ctx: Context) -> Outcome:
    registry = ctx.registry
    return Outcome(
        GetVersionOutput(
            name=registry.server.name,
            version=__version__,
            protocol_versions=list(ctx.protocol_versions()),
            catalog_hash=registry.catalog_hash,
            tool_count=len(registry.tools),
        )
    )


async def engine_info(args: EngineInfoInput, ctx: Context) -> Outcome:
    return Outcome(await _engine_facts(ctx), next_step=DONE)


async def read_engine_info(ctx: Context) -> dict[str, Any]:
    """The engine resource: what engine_info answers."""
    return (await _engine_facts(ctx)).model_dump(mode="json", exclude_none=True)


async def _engine_facts(ctx: Context) -> EngineInfoOutput:
    """What the server runs with: the operator's own facts (the data directory among them), never a
    secret."""
    store = ctx.runs.store
    settings = ctx.settings
    runs = await store.counts()
    _, projects = await store.list_projects(where=None, order=(), offset=0, limit=0)
    return EngineInfoOutput(
        name=ctx.registry.server.name,
        version=__version__,
        store=store.kind,
        data_dir=str(data_dir(settings.data_dir)),
        runs=runs,
        max_runs=settings.max_runs,
        projects=projects,
        token_required=bool(settings.token),
        browser=ctx.browser.installed,
        compat=list(settings.compat_sets),
        active_runs=sum(count for status, count in runs.items() if status in ("queued", "running")),
        default_project_id=settings.project_id or None,
        default_session_id=settings.session_id or None,
    )


async def read_policy(ctx: Context) -> dict[str, Any]:
    """Only booleans and numbers: a client may see limits, never secrets."""
    return {
        **ctx.settings.policy(),
        "arguments_validated": True,
        "results_validated": True,
        "telemetry": False,
        "third_party_text_framed": True,
    }


async def read_tool_graph(ctx: Context) -> dict[str, Any]:
    return dict(ctx.registry.graph)


async def read_tool_spec(ctx: Context, name: str) -> dict[str, Any]:
    spec = ctx.registry.tools.get(name)
    if spec is None:
        return {"error": f"no tool named {name!r}", "tools": sorted(ctx.registry.tools)}
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "origin": spec.origin,
        "annotations": dict(spec.annotations),
        "execution": spec.execution,
        "input_schema": spec.input_schema,
        "output_schema": spec.output_schema,
        "next_step": list(spec.next_step),
        "failure_guidance": dict(spec.failure_guidance),
        "examples": list(spec.examples),
    }
