"""A registry of toy tools built in code, and services that stand in for the network and the reader
processes: what the unit tests of netglean.calls run the call path on without codegen, a server or a
socket.

Tools: ``shout`` (local; a string and a bounded integer; next step ``page_echo`` or done),
``page_echo`` (target origin: its payload is third-party text), ``misbehave`` (local: breaks the
handler contract in the way asked for) and ``hold`` (local: waits until the test lets it go,
counting the calls inside it at once). Handlers and input models are found by reference
(``tests.support.toy_tools:shout``), as the generated registry names real ones.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict

from netglean.calls.context import Context, Services
from netglean.calls.registry import (
    PromptArgument,
    PromptSpec,
    Registry,
    ResourceSpec,
    ServerSpec,
    ToolSpec,
)
from netglean.calls.runner import ToolRunner
from netglean.calls.runs import Runs
from netglean.core.envelope import DONE, Outcome, envelope_schema, say
from netglean.core.errors import ToolError, Unreachable
from netglean.core.settings import Settings
from netglean.store.open import open_store
from tests.support.environment import TEST_ENVIRONMENT

HERE = __name__


class ShoutInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    times: int = 1


class PageEchoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    quotes: list[str] | None = None


class MisbehaveInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: str


class HoldInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


async def shout(args: ShoutInput, ctx: Context) -> Outcome:
    return Outcome({"text": " ".join([args.text.upper()] * args.times)}, next_step="page_echo")


async def page_echo(args: PageEchoInput, ctx: Context) -> Outcome:
    # what a target-origin tool may not do: guidance say() did not build
    if args.text == "plain guidance":
        return Outcome(
            {"content": args.text}, guidance=f"echoed {args.text}", source="https://pages.example/a"
        )
    if args.text == "refuse":  # a refusal quoting what a target chose
        raise Unreachable("https://pages.example/\u202egnp.exe\x1b[2J could not be reached")
    payload: dict[str, Any] = {"content": args.text}
    if args.quotes is not None:
        payload["quotes"] = tuple(args.quotes) if args.text == "as a tuple" else list(args.quotes)
    guidance = say("Echoed {count} characters.", count=len(args.text))
    return Outcome(payload, guidance=guidance, source="https://pages.example/article")


async def misbehave(args: MisbehaveInput, ctx: Context) -> Outcome:
    mode = args.mode
    if mode == "raise":
        raise RuntimeError("boom: https://secret.example/?token=s3cret")
    if mode == "bad_payload":
        return Outcome({"fine": "yes"})
    if mode == "bad_next_step":
        return Outcome({"fine": True}, next_step="page_echo")
    if mode == "not_outcome":
        return {"fine": True}  # type: ignore[return-value]
    if mode == "not_json":
        return Outcome({"fine": True, "when": datetime.date(2026, 11, 29)})
    if mode == "nan":
        return Outcome({"fine": True, "score": float("nan")})
    if mode == "refuse_towards_shout":  # a better next tool, declared
        raise ToolError("try shouting instead", next_step="shout")
    if mode == "refuse_towards_page_echo":  # a next tool the catalog entry does not declare
        raise ToolError("try the page instead", next_step="page_echo")
    if mode == "refuse_counting":  # a detail field the failure payload carries beside error
        raise ToolError("nothing counted", detail={"count": 0, "where": "here"})
    if mode == "refuse_miscounting":  # the same field, breaking its declared schema
        raise ToolError("nothing counted", detail={"count": "none"})
    if mode == "model":
        return Outcome(_Fine(fine=True))
    return Outcome({"fine": True})


class _Fine(BaseModel):
    fine: bool
    note: str | None = None


@dataclasses.dataclass
class Gate:
    """What ``hold`` waits on: calls inside it now, the most there were at once, and the event that
    lets them go."""

    inside: int = 0
    most: int = 0
    entered: int = 0
    release: anyio.Event | None = None

    def reset(self) -> None:
        self.inside = self.most = self.entered = 0
        self.release = anyio.Event()


GATE = Gate()


async def hold(args: HoldInput, ctx: Context) -> Outcome:
    GATE.inside += 1
    GATE.entered += 1
    GATE.most = max(GATE.most, GATE.inside)
    try:
        assert GATE.release is not None, "GATE.reset() first"
        await GATE.release.wait()
    finally:
        GATE.inside -= 1
    return Outcome({"fine": True}, next_step=DONE)


_FINE = {
    "type": "object",
    "properties": {"fine": {"type": "boolean"}},
    "required": ["fine"],
    "additionalProperties": False,
}


def _tool(
    name: str,
    input_schema: Mapping[str, Any],
    payload: Mapping[str, Any],
    next_step: tuple[str, ...],
    *,
    origin: str = "local",
    model: str,
    failure_payload: Mapping[str, Any] | None = None,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=name.replace("_", " ").capitalize(),
        description=f"The toy tool {name}.",
        origin=origin,
        handler=f"{HERE}:{name}",
        input_model=f"{HERE}:{model}",
        entry_point=True,
        annotations={
            "read_only": True,
            "destructive": False,
            "idempotent": True,
            "open_world": origin == "target",
        },
        execution="sync",
        input_schema=input_schema,
        output_schema=envelope_schema(name, payload, next_step, origin, failure_payload),
        next_step=next_step,
        examples=(),
        failure_payload=tuple(failure_payload or ()),
    )


TOOLS = (
    _tool(
        "shout",
        {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer", "minimum": 1, "maximum": 5},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        ("page_echo", DONE),
        model="ShoutInput",
    ),
    _tool(
        "page_echo",
        {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "quotes": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "content": {"type": "string"},
                "quotes": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["content"],
            "additionalProperties": False,
        },
        (DONE,),
        origin="target",
        model="PageEchoInput",
    ),
    _tool(
        "misbehave",
        {
            "type": "object",
            "properties": {"mode": {"type": "string"}},
            "required": ["mode"],
            "additionalProperties": False,
        },
        _FINE,
        (DONE, "shout"),
        model="MisbehaveInput",
        failure_payload={"count": {"type": "integer", "minimum": 0}},
    ),
    _tool(
        "hold", {"type": "object", "additionalProperties": False}, _FINE, (DONE,), model="HoldInput"
    ),
)


async def policy_resource(ctx: Context) -> Mapping[str, Any]:
    return {"z": 1, "a": ctx.settings.call_timeout}


async def tool_resource(ctx: Context, name: str) -> str:
    return f"tool {name}"


def toy_registry() -> Registry:
    return Registry(
        server=ServerSpec(
            "toys", "Toys", "Toy tools for the call path's tests.", "Call shout first.", None
        ),
        catalog_hash="toy",
        tools={spec.name: spec for spec in TOOLS},
        resources=(
            ResourceSpec(
                "policy",
                "Policy",
                "Settings.",
                "toy://policy",
                None,
                "application/json",
                f"{HERE}:policy_resource",
            ),
            ResourceSpec(
                "tool",
                "Tool",
                "One tool.",
                None,
                "toy://tools/{name}",
                "text/plain",
                f"{HERE}:tool_resource",
            ),
        ),
        prompts={
            "greet": PromptSpec(
                "greet",
                "Greet",
                "Greet someone.",
                (
                    PromptArgument("who", "Whom.", True, None),
                    PromptArgument("tone", "How.", False, "warmly"),
                ),
                (("user", "Greet $who $tone; it costs $$5."),),
            )
        },
        graph={},
        package=HERE,
    )


class Budgets:
    """Stands in for the session budgets: each session's budget is its name."""

    def for_session(self, session: str) -> str:
        return f"budget of {session or 'the default session'}"


class Fetcher:
    """Stands in for the fetcher: remembers the budget it was asked to spend, fetches nothing."""

    budget: str | None = None

    def spending(self, budget: str) -> Fetcher:
        view = Fetcher()
        view.budget = budget
        return view

    def prepare(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class Browser:
    """The toy server's browser: never started, closed with the rest."""

    async def aclose(self) -> None:
        return None


class Readers:
    started = False
    closed = False

    def start(self) -> None:
        self.started = True

    def close(self) -> None:
        self.closed = True


def toy_services(**settings: Any) -> Services:
    loaded = dataclasses.replace(Settings.load(environ=TEST_ENVIRONMENT), **settings)
    runs = Runs(loaded, lambda: open_store(loaded.data_dir))
    return Services(loaded, toy_registry(), Fetcher(), Readers(), Browser(), Budgets(), runs)  # type: ignore[arg-type]


def toy_runner(**settings: Any) -> ToolRunner:
    """A runner over the toy tools, with ``settings`` replacing the defaults."""
    return ToolRunner(toy_services(**settings))
