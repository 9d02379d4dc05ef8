"""A call's context (netglean.calls.context): its session's budget, its progress channel, and when a
tool that can answer with what it has must stop working."""

from __future__ import annotations

import math

import anyio
import pytest

from netglean.calls.context import RESPONSE_RESERVE, Context
from tests.support.toy_tools import toy_services


def test_a_context_spends_its_sessions_budget_and_shares_the_rest() -> None:
    services = toy_services()
    one, other, default = (
        Context(services, session="a"),
        Context(services, session="b"),
        Context(services),
    )
    assert (one.fetcher.budget, other.fetcher.budget) == ("budget of a", "budget of b")  # type: ignore[attr-defined]
    assert default.fetcher.budget == "budget of the default session"  # type: ignore[attr-defined]
    assert one.fetcher is not services.fetcher  # a view: the server's own fetcher spends nothing
    assert (one.readers, one.settings, one.registry) == (
        services.readers,
        services.settings,
        services.registry,
    )


def test_progress_reaches_the_client_only_when_it_asked() -> None:
    reported: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        reported.append((done, total, message))

    async def run() -> None:
        # no channel: nothing happens, nothing fails
        await Context(toy_services()).report(1, 2, "ignored")
        await Context(toy_services(), progress=progress).report(1, 3, "page 1 of 3")
        await Context(toy_services(), progress=progress).report(2)

    anyio.run(run)
    assert reported == [(1, 3, "page 1 of 3"), (2, None, None)]


def _reserve(left: float) -> float:
    """How long before the call's deadline work stops, with ``left`` seconds to go."""

    async def run() -> float:
        with anyio.CancelScope(deadline=anyio.current_time() + left):
            deadline = anyio.current_effective_deadline()
            return deadline - Context(toy_services()).work_until()

    return anyio.run(run)


@pytest.mark.parametrize(
    ("left", "reserve"),
    [(100.0, 100.0 * RESPONSE_RESERVE), (10.0, 2.0), (3.0, 1.0), (1.5, 0.75), (0.2, 0.1)],
    ids=[
        "a fifth of 100 s",
        "a fifth of 10 s",
        "at least a second",
        "at most half of 1.5 s",
        "at most half of 0.2 s",
    ],
)
def test_work_stops_early_enough_to_answer(left: float, reserve: float) -> None:
    assert _reserve(left) == pytest.approx(reserve, abs=0.01)


def test_a_call_without_a_deadline_works_until_done() -> None:
    async def run() -> float:
        return Context(toy_services()).work_until()

    assert anyio.run(run) == math.inf
