"""The one path every tool call takes, whatever entry point it came through (MCP, CLI, REST).

validate arguments -> build the input model -> run the handler under the
operator's deadline and concurrency cap -> check the outcome against the
declared edges and output schema -> envelope. Any failure on the way becomes an
error envelope; nothing a handler does can produce an invalid result or kill
the server.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import anyio
from pydantic import BaseModel, ValidationError

from netglean.calls.context import Context, Progress, Services
from netglean.calls.registry import ToolSpec, resolve
from netglean.calls.runs import RunScope, describe_run, stored_envelope
from netglean.core import untrusted
from netglean.core.envelope import (
    DONE,
    Envelope,
    Guidance,
    Outcome,
    failure,
    failure_field_schemas,
    say,
)
from netglean.core.errors import (
    CODES,
    ArgumentsTooLarge,
    CallTimeout,
    HandlerContractError,
    HandlerCrashed,
    InvalidArguments,
    ToolError,
    Unavailable,
)
from netglean.core.validation import (
    Problem,
    SchemaValidator,
    choice_problems,
    json_type,
    quote_name,
    report_problems,
    shorten_message,
)
from netglean.store.base import Run

log = logging.getLogger("netglean.calls.runner")

Handler = Callable[[BaseModel, Context], Awaitable[Outcome]]


class UnknownTool(LookupError):
    """A tool name the registry does not hold: a protocol error, not a tool result."""


class _Compiled:
    """Per-tool validators, input model and handler, built on the tool's first call."""

    __slots__ = ("beside", "handler", "input_model", "inputs", "outputs")

    def __init__(self, spec: ToolSpec) -> None:
        self.inputs = SchemaValidator(spec.input_schema)
        self.outputs = SchemaValidator(spec.output_schema)
        fields = failure_field_schemas(spec.output_schema)
        self.beside = {
            name: SchemaValidator(fields[name]) for name in spec.failure_payload if name in fields
        }
        """The detail fields a failure also carries beside ``error``, each with the schema it must
        meet there."""
        self.input_model: type[BaseModel] = resolve(spec.input_model)
        self.handler: Handler = resolve(spec.handler)


WARM_UP_QUIET = 0.25
"""Seconds without a call after which a server builds its tools ahead of their first calls
(ToolRunner.warm_up)."""


class ToolRunner:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.registry = services.registry
        self.settings = services.settings
        self._compiled: dict[str, _Compiled] = {}
        self._building: dict[str, threading.Lock] = {}
        self._limit: anyio.Semaphore | None = None
        self._in_flight = 0
        # quiet is counted from the start too: a first call comes first
        self._last_call = time.monotonic()
        self._draining = False
        self._running: set[anyio.CancelScope] = set()
        services.runs.bind(self._run_tool)

    async def warm_up(self, quiet: float = WARM_UP_QUIET) -> None:
        """Make the server ready for its first calls once it has had ``quiet`` seconds without a
        call: the reader processes started (they load in processes of their own), the fetch layer
        imported with its certificates, the patterns that find look-alikes of the frame's markers in
        third-party text compiled, then every tool built (validators, input model, handler and
        what it imports), one at a time in a worker thread, each after ``quiet`` seconds more
        without a call, so that a busy server is never slowed by it. The browser is not launched
        ahead: a Chromium would cost every server its memory, and few sessions render. What fails
        here fails its own first use instead, as that use's error."""
        self._last_call = time.monotonic()  # quiet is counted from the transport's start
        await self._quiet(quiet)
        try:
            self.services.readers.start()
            await anyio.to_thread.run_sync(self.services.fetcher.prepare)
            await anyio.to_thread.run_sync(untrusted.prepare)
        except Exception:
            log.debug("the fetch and read layers did not prepare ahead of use", exc_info=True)
        gc.freeze()  # what the fetch layer loaded, as a tool's build is frozen (_build)
        for spec in self.registry.tools.values():
            if spec.alias_of or spec.name in self._compiled:  # an alias: built as the tool it names
                continue
            await self._quiet(quiet)
            try:
                await anyio.to_thread.run_sync(self._build, spec)
            except Exception:
                log.debug("tool %s did not build ahead of its first call", spec.name, exc_info=True)

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Hold the warm-up off while a transport answers a request of any kind, a handshake or a
        listing too: on a busy machine the warm-up never competes with a client's start."""
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            self._last_call = time.monotonic()

    async def _quiet(self, quiet: float) -> None:
        """Return once no call is running and none has ended for ``quiet`` seconds."""
        while self._in_flight or time.monotonic() - self._last_call < quiet:
            await anyio.sleep(quiet)

    async def drain(self, grace: float) -> int:
        """Shutting down: calls from now on end at once as `unavailable` (retryable: another server
        can take them); those running get ``grace`` seconds to finish, then end so too. Returns how
        many were cut off."""
        self._draining = True
        with anyio.move_on_after(grace):
            while self._running:
                await anyio.sleep(0.05)
        cut = list(self._running)
        for scope in cut:
            scope.cancel()
        return len(cut)

    @contextmanager
    def _stoppable(self) -> Iterator[None]:
        """Run a call so that drain() can end it: an Unavailable, like a call that comes while
        draining."""
        if self._draining:
            raise Unavailable("the server is shutting down")
        with anyio.CancelScope() as scope:
            self._running.add(scope)
            try:
                yield
            finally:
                self._running.discard(scope)
        if scope.cancelled_caught:
            raise Unavailable("the server shut down before the call finished")

    def spec(self, name: str) -> ToolSpec:
        """The spec a call of ``name`` runs: a seed's name's (a profile's) is the netglean tool's it
        names."""
        try:
            spec = self.registry.tools[name]
        except KeyError:
            raise UnknownTool(name) from None
        return self.registry.tools[spec.alias_of] if spec.alias_of else spec

    async def _build_tool(self, spec: ToolSpec) -> _Compiled:
        """``spec``'s tool, built on its first call in a worker thread: importing a handler and what
        it imports would hold the event loop, and with it every deadline, for as long as it takes. A
        call that stops waiting (its deadline) leaves the building going on for the next call."""
        compiled = self._compiled.get(spec.name)
        if compiled is not None:
            return compiled
        return await anyio.to_thread.run_sync(self._build, spec, abandon_on_cancel=True)

    def _build(self, spec: ToolSpec) -> _Compiled:
        """Build ``spec``'s tool once, however many threads ask at once (warm-up, first calls)."""
        with self._building.setdefault(spec.name, threading.Lock()):
            compiled = self._compiled.get(spec.name)
            if compiled is None:
                compiled = self._compiled[spec.name] = _Compiled(spec)
                # What the server and a tool's first call built (modules, models, validators)
                # lives as long as the process: frozen, it is no longer walked by every full
                # collection, which otherwise stalls a busy server for ~50 ms each time a
                # batch's results push the collector into one.
                gc.freeze()
            return compiled

    async def call(
        self, name: str, arguments: Any, progress: Progress | None = None, *, session: str = ""
    ) -> tuple[Envelope, str | None]:
        """Run tool ``name`` on ``arguments`` (anything but an object is invalid) for ``session``
        (whose budget its fetches spend); return the envelope and the source of any third-party
        content. A name a served profile answers takes the seed's arguments
        (``ToolWire.arguments_in``); those it accepts without applying are named in the guidance."""
        spec = self.spec(name)
        wire = self.registry.wires.get(name)
        if wire is None:
            return await self._call(spec, name, arguments, progress, session)
        try:
            arguments, unapplied = wire.arguments_in(arguments)
        except ToolError as error:
            return self._fail(spec, error), None
        envelope, source = await self._call(spec, name, arguments, progress, session)
        if unapplied:
            said = (
                f"Accepted and not applied here: {', '.join(unapplied)} (the {wire.profile} "
                "profile says why)."
            )
            envelope = dataclasses.replace(envelope, guidance=f"{envelope.guidance} {said}")
        return envelope, source

    async def _call(
        self, spec: ToolSpec, name: str, arguments: Any, progress: Progress | None, session: str
    ) -> tuple[Envelope, str | None]:
        log.debug("call %s", name)  # the tool's name only: arguments may hold anything
        if self._limit is None:
            self._limit = anyio.Semaphore(self.settings.max_concurrent_calls)
        self._in_flight += 1
        timeout = self.settings.call_timeout
        try:
            with self._stoppable():
                started = anyio.current_time()
                # The deadline holds from the call's start, whatever is cold: a tool's first call
                # waits for its building within it (an import that fails is its internal_error).
                with anyio.fail_after(timeout):
                    compiled = await self._build_tool(spec)
                model = self._validate(spec, compiled, arguments)
                left = timeout - (anyio.current_time() - started)
                # a run: it takes no call slot, and goes on past the call
                if spec.execution == "async":
                    with anyio.fail_after(left):
                        return await self._start_run(
                            spec, compiled, model, arguments, progress=progress, session=session
                        )
                async with self._limit:  # the wait for a slot is not the call's own time
                    with anyio.fail_after(left):
                        context = Context(self.services, session=session, progress=progress)
                        return await self._invoke(spec, compiled, model, context)
        except ToolError as error:
            return self._fail(spec, error), None
        except TimeoutError:
            timed_out = CallTimeout(f"{name} did not finish within {timeout:g} s")
            return self._fail(spec, timed_out), None
        except Exception as exc:
            log.exception("tool %s raised", name)
            return self._fail(spec, HandlerCrashed(f"{name} failed: {type(exc).__name__}")), None
        finally:
            self._in_flight -= 1
            self._last_call = time.monotonic()

    async def _invoke(
        self, spec: ToolSpec, compiled: _Compiled, model: BaseModel, context: Context
    ) -> tuple[Envelope, str | None]:
        outcome = await compiled.handler(model, context)
        return self._finish(spec, compiled, outcome), outcome.source

    async def _start_run(
        self,
        spec: ToolSpec,
        compiled: _Compiled,
        model: BaseModel,
        arguments: Mapping[str, Any],
        *,
        progress: Progress | None,
        session: str,
    ) -> tuple[Envelope, str | None]:
        """Start the call as a background run and wait for it as long as it asks, within the call's
        deadline (less the share kept for answering): its result when it ends in time, else the
        run."""
        runs = self.services.runs
        # A transport that hosts no runs (an embedding's own): the run lives as long as the call,
        # which waits for it.
        async with runs.hosted_here() as only_now:
            run = await runs.start(
                spec.name, dict(arguments), session=session, label=getattr(model, "label", None)
            )
            if getattr(model, "wait", False) or only_now:
                run = await runs.wait_for_call(run.id, getattr(model, "timeout_ms", None), progress)
        # it ended with the hosting: interrupted, as the answer says
        if only_now and not run.finished:
            run = await runs.get(run.id)
        return await self.run_response(spec, compiled, run)

    async def run_response(
        self, spec: ToolSpec, compiled: _Compiled, run: Run
    ) -> tuple[Envelope, str | None]:
        """A run's answer to the call that started it: the run's own envelope once it has one, else
        the run."""
        if run.has_result:
            stored = await self.services.runs.store.result(run.id)
            if stored is not None:
                text, source = stored
                return stored_envelope(text), source
        if run.finished:
            guidance = say(
                "The run (payload.run.run_id) ended without a result (payload.run.status says "
                "how): get_run_status says more, and resume_run continues it."
            )
        else:
            guidance = say(
                "The run (payload.run.run_id) goes on in the background ({done} done so far): "
                "get_run_status follows it, and get_run_result reads its result once it has "
                "finished.",
                done=run.done,
            )
        source = f"run {run.id}"
        outcome = Outcome(
            {"run": describe_run(run)}, next_step="get_run_status", guidance=guidance, source=source
        )
        return self._finish(spec, compiled, outcome), source

    async def run_response_for(self, run: Run) -> tuple[Envelope, str | None]:
        """``run_answer`` for an entry point that holds only the run, not the call that started it
        (an MCP task's result): what a call that waited for ``run`` answers."""
        spec = self.spec(run.tool)
        return await self.run_response(spec, await self._build_tool(spec), run)

    async def _run_tool(
        self, run: Run, scope: RunScope, report: Progress
    ) -> tuple[Envelope, str | None]:
        """One run's work: the call path without a call's deadline or slot (the run has its own)."""
        spec = self.spec(run.tool)
        try:
            compiled = await self._build_tool(spec)
            model = self._validate(spec, compiled, run.arguments)
            context = Context(self.services, session=run.session, progress=report, run=scope)
            return await self._invoke(spec, compiled, model, context)
        except ToolError as error:
            return self._fail(spec, error), None
        except Exception as exc:
            log.exception("run %s of %s raised", run.id, run.tool)
            return self._fail(
                spec, HandlerCrashed(f"{run.tool} failed: {type(exc).__name__}")
            ), None

    def _validate(self, spec: ToolSpec, compiled: _Compiled, arguments: Any) -> BaseModel:
        if not isinstance(arguments, Mapping):
            problem = Problem(
                "", "", f"the arguments must be a JSON object, not {json_type(arguments)}"
            )
            raise InvalidArguments(problem.message, detail={"errors": [problem.as_dict()]})
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode())
        if size > self.settings.max_argument_bytes:
            raise ArgumentsTooLarge(
                f"arguments are {size} bytes; the limit is {self.settings.max_argument_bytes}",
                detail={"bytes": size, "limit": self.settings.max_argument_bytes},
            )
        problems = compiled.inputs.problems(arguments) + choice_problems(
            spec.exactly_one_of, arguments
        )
        if not problems:
            try:
                return compiled.input_model.model_validate(arguments)
            except ValidationError as exc:
                problems = [_pydantic_problem(error) for error in exc.errors()]
        shown, more = report_problems(problems)
        message = f"invalid arguments for {spec.name}: " + "; ".join(p.message for p in shown)
        if more:
            message += f"; and {more} more problem(s)"
        if any(p.message.startswith("unknown argument") for p in shown) and compiled.inputs.hint():
            message += f" ({compiled.inputs.hint()})"
        detail: dict[str, Any] = {"errors": [p.as_dict() for p in shown]}
        if more:
            detail["more_errors"] = more
        raise InvalidArguments(message, detail=detail)

    def _finish(self, spec: ToolSpec, compiled: _Compiled, outcome: Outcome) -> Envelope:
        if not isinstance(outcome, Outcome):
            raise HandlerContractError(
                f"{spec.name} returned {type(outcome).__name__}, not an Outcome"
            )
        payload = outcome.payload
        data = (
            payload.model_dump(mode="json", by_alias=True, exclude_none=True)
            if isinstance(payload, BaseModel)
            else dict(payload)
        )
        # Every payload is cleaned: a target-origin tool's is what a target chose, and a local
        # tool's is what a caller chose (names, labels, variables, arguments), read back into
        # another caller's context.
        data, notice, guidance = untrusted.clean_tree(data), "", outcome.guidance
        if spec.origin == "target":
            notice = untrusted.PAYLOAD_NOTICE
            if guidance and not isinstance(guidance, Guidance):
                raise HandlerContractError(
                    f"{spec.name} gave plain-string guidance; a target-origin tool builds it "
                    "with netglean.say"
                )
        # a local tool's own sentence may name what it read
        elif guidance and not isinstance(guidance, Guidance):
            guidance = untrusted.clean(guidance)
        next_step = outcome.next_step or spec.next_step[0]
        if next_step not in spec.next_step:
            raise HandlerContractError(
                f"{spec.name} chose next step {next_step!r}, which its catalog entry does not "
                "declare"
            )
        # what JSON cannot hold (a date, a NaN, bytes) would break every entry point's answer after
        # validation
        try:
            written = json.dumps(data, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise HandlerContractError(
                f"{spec.name} produced a payload that is not JSON: {exc}"
            ) from None
        # a plain str: what validators and JSON take
        guidance = str(guidance) or _default_guidance(next_step)
        envelope = Envelope(True, next_step, guidance, data, notice, written)
        if not compiled.outputs.is_valid(envelope.as_dict()):
            problems = compiled.outputs.problems(envelope.as_dict())
            log.error(
                "tool %s broke its output schema: %s",
                spec.name,
                "; ".join(p.message for p in problems),
            )
            raise HandlerContractError(
                f"{spec.name} produced a result that breaks its declared output schema"
            )
        return envelope

    def _fail(self, spec: ToolSpec, error: ToolError) -> Envelope:
        if isinstance(error, HandlerContractError):
            log.error("%s", error.message)
        # The catalog's words for this tool first (netglean's own text, like the code's), then the
        # code's.
        guidance = spec.failure_guidance.get(error.code) or CODES[error.code].guidance.format(
            tool=spec.name
        )
        next_step = error.next_step if error.next_step in spec.next_step else spec.name
        compiled = self._compiled.get(spec.name)
        checks = compiled.beside if compiled is not None else {}
        # A detail field goes beside the error when it is what the tool declares there: another
        # code's detail may hold a field of the same name and another shape (invalid_arguments'
        # errors are not a config's).
        beside = {
            name: value
            for name, check in checks.items()
            if name in error.detail and check.is_valid(value := error.detail[name])
        }
        # A refusal can quote what a target chose (a redirect chain, a final URL) or what a caller
        # did (an argument, a stored name): cleaned like any payload.
        notice = untrusted.PAYLOAD_NOTICE if spec.origin == "target" else ""
        envelope = failure(
            error, next_step=next_step, guidance=guidance, notice=notice, beside=beside
        )
        return dataclasses.replace(envelope, payload=untrusted.clean_tree(envelope.payload))

    def render_text(
        self, name: str, envelope: Envelope, source: str | None, screenshots: int = 0
    ) -> str:
        """The text block: the envelope as JSON, with third-party payloads quarantined (and the
        ``screenshots`` of the source's page that an entry point sends beside it named as such in
        the frame's notice)."""
        spec = self.spec(name)
        control = {
            "ok": envelope.ok,
            "next_step": envelope.next_step,
            "guidance": envelope.guidance,
        }
        # No indent: CPython's C encoder only runs without one (indenting a 1 MB batch result costs
        # ~10 ms).
        # cleaned already
        content = envelope.payload_json or json.dumps(envelope.payload, ensure_ascii=False)
        # the envelope as JSON, its payload written once (by the runner, as a check)
        if spec.origin != "target":
            return json.dumps(control, ensure_ascii=False)[:-1] + ', "payload": ' + content + "}"
        framed = untrusted.frame(
            source or spec.name, content, cleaned=True, screenshots=screenshots
        )
        return json.dumps(control, ensure_ascii=False) + "\n" + framed


def _default_guidance(next_step: str) -> str:
    return "Done: no further call is needed." if next_step == DONE else f"Next, call {next_step}."


def _pydantic_problem(error: Mapping[str, Any]) -> Problem:
    """A model's objection as a problem, quoted as briefly as the schema's (a name or value the
    caller chose is cut by ``quote_name`` and ``shorten_message``)."""
    parts = [quote_name(str(p)) for p in error.get("loc", ())]
    where = ".".join(parts)
    return Problem(
        "/" + "/".join(parts),
        where,
        shorten_message(f"argument '{where}': {error.get('msg', 'invalid')}"),
    )
