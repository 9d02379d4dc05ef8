"""Background runs when things race or fail: two resumes at once, a run whose end cannot be written,
resume_run and crawls where no transport hosts runs (the command line, an embedding), a store
failure under one seed of a batch_crawl, a resume that a forced cancel ends while it waits, what a
forced cancel of a crawl whose journal lags makes a resume read again, a start-up sweep that fails,
cancels asked through another server, a graceful cancel of a batch with seeds not yet begun, and
whose budget a resumed run spends.

Servers, sites and clients are those of tests/test_runs.py and tests/support/run_site.py; every wait
is a poll with an overall bound."""

from __future__ import annotations

import functools
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from netglean.calls import runs as runs_module
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.core.envelope import Envelope
from netglean.core.errors import StoreFailure
from netglean.scraping.crawl import JOURNAL_BACKLOG
from netglean.store.base import Run
from tests.support.clients import SyncClient
from tests.support.polling import until
from tests.support.run_site import Gate, RunSite, serve_run_site
from tests.test_runs import (
    SITE,
    envelope,
    finished,
    hosted,
    runs_client,
    runs_runner,
    started,
    status,
    tree,
    visits,
)

FULL = StoreFailure(
    "the run store's disk is full; nothing it had committed is lost (the operator must free space)"
)
RESUME_STEPS = ("get_run_status", "get_run_result", "resume_run", "list_runs", "done")
"""resume_run's declared next steps (catalog/tools/runs/resume_run.yaml)."""


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[RunSite, int]]:
    with serve_run_site() as site_and_port:
        yield site_and_port


@pytest.fixture
def gate(served: tuple[RunSite, int]) -> Iterator[Gate]:
    """The site's gate, shut for the test and opened after it (no page is left waiting)."""
    served[0].gate.shut()
    yield served[0].gate
    served[0].gate.open()


def call_alone(runner: ToolRunner, tool: str, arguments: dict[str, Any]) -> Envelope:
    """One call of a runner no transport hosts (as the command line and an embedding call it), its
    services closed after."""

    async def work() -> Envelope:
        try:
            return (await runner.call(tool, arguments))[0]
        finally:
            await runner.services.aclose()

    return anyio.run(work)


def stored(runner: ToolRunner, client: SyncClient, run_id: str) -> Run:
    """The run's row as the store holds it."""
    run = client.portal.call(runner.services.runs.store.get, run_id)
    assert run is not None
    return run


def interrupted_unbegun(port: int, registry: Registry, data_dir: Path, gate: Gate, url: str) -> str:
    """A crawl of ``url`` that never began: queued behind a run at the gate when its server stopped
    (interrupted)."""
    with runs_client(port, registry, data_dir, max_runs=1) as before:
        started(envelope(before, "crawl", {"url": f"{SITE}/gated/9/0", "wait": False}))
        until(lambda: gate.waiting, "the first run to reach the gate")
        run_id = started(
            envelope(
                before, "crawl", {"url": url, "max_depth": 10, "max_pages": 100, "wait": False}
            )
        )
        assert status(before, run_id)["status"] == "queued"
    return run_id


# Two resumes at once continue the run once --------------------------------------------------------


def test_two_resumes_at_once_through_one_server_continue_the_run_once(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    site, port = served
    run_id = interrupted_unbegun(port, registry, tmp_path, gate, f"{SITE}/tree/61/0")
    runner = runs_runner(port, registry, tmp_path)
    with hosted(runner) as client:
        answers: list[Envelope] = []

        async def both() -> None:
            async def one(retry_failed: bool) -> None:
                arguments = {"run_id": run_id, "retry_failed": retry_failed}
                answers.append((await runner.call("resume_run", arguments))[0])

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(one, False)
                tasks.start_soon(one, True)

        client.portal.call(both)
        assert all(answer.ok for answer in answers), answers
        run = finished(client, run_id)
        assert run["status"] == "succeeded" and run["attempts"] == 1, run
        assert sorted(visit["url"] for visit in visits(client, run_id)) == sorted(tree("tree", 61))
    assert site.asked("/tree/61/") == Counter({f"/tree/61/{n}": 1 for n in range(61)})


def test_two_resumes_at_once_through_two_servers_on_one_store_continue_the_run_once(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    site, port = served
    run_id = interrupted_unbegun(port, registry, tmp_path, gate, f"{SITE}/tree/62/0")
    first, second = runs_runner(port, registry, tmp_path), runs_runner(port, registry, tmp_path)
    with hosted(first) as one, hosted(second) as other:
        asked = [
            client.portal.start_task_soon(
                runner.call, "resume_run", {"run_id": run_id, "retry_failed": retry}
            )
            for client, runner, retry in ((one, first, False), (other, second, True))
        ]
        answers = [future.result()[0] for future in asked]
        assert all(answer.ok for answer in answers), answers
        run = finished(one, run_id)
        assert run["status"] == "succeeded" and run["attempts"] == 1, run
        assert sorted(visit["url"] for visit in visits(other, run_id)) == sorted(tree("tree", 62))
    assert site.asked("/tree/62/") == Counter({f"/tree/62/{n}": 1 for n in range(62)})


# A run whose end cannot be written ----------------------------------------------------------------


@pytest.mark.parametrize("failures", [1, 2], ids=["marked-at-once", "marked-by-the-sweep"])
def test_a_run_whose_end_cannot_be_written_is_interrupted_and_resumes(
    served: tuple[RunSite, int],
    registry: Registry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failures: int,
) -> None:
    """The write of the run's end fails once (the run is marked interrupted at once), or so does the
    write marking it interrupted (then the sweep of the runs this process lost track of marks
    it)."""
    monkeypatch.setattr(runs_module, "LOST_SWEEP_EVERY", 0.2, raising=False)
    runner = runs_runner(served[1], registry, tmp_path)
    store = runner.services.runs.store
    finish = store.finish
    left = [failures]

    async def failing(run_id: str, status: str, **outcome: Any) -> Run | None:
        if left[0]:
            left[0] -= 1
            raise FULL
        return await finish(run_id, status, **outcome)

    monkeypatch.setattr(store, "finish", failing)
    with hosted(runner) as client:
        run_id = started(envelope(client, "crawl", {"url": f"{SITE}/tree/5/0", "wait": False}))
        run = until(
            lambda: (run := status(client, run_id))["status"] == "interrupted" and run,
            "the run interrupted",
            30,
        )
        assert run["resumable"] and not run["has_result"], run
        resumed = envelope(client, "resume_run", {"run_id": run_id, "wait": True})
        assert resumed["ok"] and resumed["payload"]["run"]["status"] == "succeeded", resumed
        assert sorted(visit["url"] for visit in visits(client, run_id)) == sorted(tree("tree", 5))


# resume_run where no transport hosts runs ------------------------------------------------------


def test_resume_run_where_no_transport_hosts_runs_hosts_the_run_for_the_call_and_waits(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    site, port = served
    with runs_client(port, registry, tmp_path) as client:
        crawled = envelope(client, "crawl", {"url": f"{SITE}/flaky/alone"})["payload"]
        assert crawled["failed"] == 1 and crawled["read"] == 2, crawled
    run_id = crawled["run_id"]
    answer = call_alone(
        runs_runner(port, registry, tmp_path),
        "resume_run",
        {"run_id": run_id, "retry_failed": True},
    )
    assert answer.ok and answer.payload["run"]["status"] == "succeeded", answer
    assert answer.payload["run"]["attempts"] == 2 and answer.next_step == "get_run_result", answer
    with runs_client(port, registry, tmp_path) as client:
        run = status(client, run_id)
        assert run["status"] == "succeeded" and run["has_result"], run
        result = envelope(client, "get_run_result", {"run_id": run_id})["payload"]["result"]
        assert result["read"] == 3 and result["failed"] == 0, result
    assert site.asked("/flaky/alone") == {
        "/flaky/alone": 1,
        "/flaky/alone/page": 2,
        "/flaky/alone/steady": 1,
    }


# A store failure under one seed of a batch_crawl --------------------------------------------------


def test_a_store_failure_under_one_seed_fails_the_batch_run_which_resumes_that_seed(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = runs_runner(served[1], registry, tmp_path)
    store = runner.services.runs.store
    record_visits = store.record_visits
    failed: list[int] = []

    async def failing(run_id: str, part: int, kept: Any) -> None:
        if part == 1 and not failed:  # the second seed's first write
            failed.append(part)
            raise FULL
        await record_visits(run_id, part, kept)

    monkeypatch.setattr(store, "record_visits", failing)
    seeds = [f"{SITE}/tree/23/0", f"{SITE}/tree/24/0"]
    with hosted(runner) as client:
        answer = envelope(client, "batch_crawl", {"urls": seeds, "max_depth": 10})
        assert (
            failed and not answer["ok"] and answer["payload"]["error"]["code"] == "store_error"
        ), answer
        (run,) = envelope(client, "list_runs", {"tool": ["batch_crawl"]})["payload"]["runs"]
        assert (
            run["status"] == "failed" and run["resumable"] and run["error"]["code"] == "store_error"
        ), run
        resumed = envelope(client, "resume_run", {"run_id": run["run_id"], "wait": True})[
            "payload"
        ]["run"]
        assert resumed["status"] == "succeeded", resumed
        result = envelope(client, "get_run_result", {"run_id": run["run_id"], "per_page": 200})[
            "payload"
        ]
        assert [crawl["read"] for crawl in result["result"]["crawls"]] == [23, 24], result["result"]
        assert all("error" not in crawl for crawl in result["result"]["crawls"])
        parts = [
            [item["item"]["url"] for item in result["items"] if item["part"] == part]
            for part in (0, 1)
        ]
        assert sorted(parts[0]) == sorted(tree("tree", 23)) and sorted(parts[1]) == sorted(
            tree("tree", 24)
        )


# A resume that a forced cancel ends while it waits ------------------------------------------------


def test_resume_run_waiting_on_a_run_a_forced_cancel_ends_answers_with_a_declared_next_step(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    with runs_client(served[1], registry, tmp_path) as client:
        run_id = started(
            envelope(client, "crawl", {"url": f"{SITE}/gated/30/0", "max_pages": 30, "wait": False})
        )
        until(lambda: gate.waiting, "the crawl to reach the gate")
        assert envelope(client, "cancel_run", {"run_id": run_id, "force": True})["payload"]["run"][
            "status"
        ] == ("cancelled")
        waiting = client.portal.start_task_soon(
            client.client.call_tool,
            "resume_run",
            {"run_id": run_id, "wait": True, "timeout_ms": 60_000},
        )
        until(
            lambda: status(client, run_id)["status"] == "running" and gate.waiting,
            "the resumed crawl at the gate",
        )
        assert envelope(client, "cancel_run", {"run_id": run_id, "force": True})["payload"]["run"][
            "status"
        ] == ("cancelled")
        answer = waiting.result().structured_content
        assert answer["ok"] and answer["next_step"] in RESUME_STEPS, answer
        assert (
            answer["payload"]["run"]["status"] == "cancelled"
            and answer["next_step"] == "resume_run"
        ), answer


# A forced cancel of a crawl whose journal lags behind its reading ---------------------------------


def test_a_forced_cancel_with_a_slow_store_leaves_done_as_written_and_little_to_read_again(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    """Another process holds the store's write lock while the crawl reads on and the cancel comes:
    the journal's write waits in its thread, and commits once the lock is let go, after the
    cancel."""
    site, port = served
    runner = runs_runner(port, registry, tmp_path)
    pages = 400
    with hosted(runner) as client:

        def written(run_id: str) -> int:
            total: int = envelope(client, "get_run_result", {"run_id": run_id, "per_page": 1})[
                "payload"
            ]["total_items"]
            return total

        arguments = {"url": f"{SITE}/p/0", "max_pages": pages, "max_depth": 10, "wait": False}
        run_id = started(envelope(client, "crawl", arguments))
        until(lambda: written(run_id) >= 2 * JOURNAL_BACKLOG, "two journal writes")
        other = sqlite3.connect(tmp_path / "runs.sqlite3", isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            time.sleep(0.5)  # the crawl reads on, its journal behind
            cancelling = client.portal.start_task_soon(
                client.client.call_tool, "cancel_run", {"run_id": run_id, "force": True}
            )
            time.sleep(0.5)  # the cancel comes while the journal's write waits for the lock
            other.execute("ROLLBACK")
        finally:
            other.close()
        cancelled = cancelling.result().structured_content["payload"]["run"]
        assert (
            cancelled["status"] == "cancelled" and cancelled["done"] == written(run_id) < pages
        ), cancelled
        resumed = envelope(client, "resume_run", {"run_id": run_id, "wait": True})["payload"]["run"]
        assert resumed["status"] == "succeeded" and resumed["done"] == written(run_id) == pages, (
            resumed
        )
        assert len({visit["url"] for visit in visits(client, run_id)}) == pages
    again = [path for path, count in site.asked("/p/").items() if count > 1]
    assert len(again) <= 2 * JOURNAL_BACKLOG + runner.settings.global_concurrency, again


# A start-up sweep that fails ----------------------------------------------------------------------


def test_hosting_starts_when_the_start_up_sweep_fails(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = runs_runner(served[1], registry, tmp_path)
    sweeps: list[bool] = []

    async def busy() -> int:
        sweeps.append(True)
        raise FULL

    monkeypatch.setattr(runner.services.runs.store, "interrupt_orphans", busy)
    with hosted(runner) as client:
        answer = envelope(client, "crawl", {"url": f"{SITE}/tree/3/0"})
        assert sweeps and answer["ok"] and answer["payload"]["read"] == 3, answer


# Cancels asked through another server -------------------------------------------------------------


def test_a_graceful_cancel_through_another_server_is_forced_when_the_page_never_finishes(
    served: tuple[RunSite, int],
    registry: Registry,
    tmp_path: Path,
    gate: Gate,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runs_module, "CANCEL_GRACE", 0.5)
    port = served[1]
    with (
        runs_client(port, registry, tmp_path) as owner,
        runs_client(port, registry, tmp_path) as other,
    ):
        run_id = started(
            envelope(owner, "crawl", {"url": f"{SITE}/gated/13/0", "max_depth": 10, "wait": False})
        )
        until(lambda: gate.waiting, "the crawl to reach the gate")
        assert envelope(other, "cancel_run", {"run_id": run_id})["ok"]  # the gate stays shut
        run = until(
            lambda: (run := status(other, run_id))["status"] == "cancelled" and run,
            "the cancel forced",
            30,
        )
        assert not run["has_result"] and "cancel_requested" not in run, run


def test_a_cancel_through_another_server_of_a_queued_run_ends_it_before_it_begins(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    site, port = served
    with (
        runs_client(port, registry, tmp_path, max_runs=1) as owner,
        runs_client(port, registry, tmp_path) as other,
    ):
        first = started(envelope(owner, "crawl", {"url": f"{SITE}/gated/14/0", "wait": False}))
        until(lambda: gate.waiting, "the first run to reach the gate")
        queued = started(envelope(owner, "crawl", {"url": f"{SITE}/tree/63/0", "wait": False}))
        assert status(owner, queued)["status"] == "queued"
        envelope(other, "cancel_run", {"run_id": queued})
        run = until(
            lambda: (run := status(other, queued))["status"] == "cancelled" and run,
            "the queued run cancelled",
        )
        assert run["attempts"] == 0 and run["error"]["code"] == "cancelled", run
        assert envelope(owner, "cancel_run", {"run_id": first, "force": True})["payload"]["run"][
            "status"
        ] == ("cancelled")
        # one slot: the cancelled run's turn came first
        after = envelope(owner, "crawl", {"url": f"{SITE}/tree/2/0"})
        assert after["ok"], after
        assert (
            status(owner, queued)["status"] == "cancelled"
            and status(owner, queued)["attempts"] == 0
        )
    assert site.asked("/tree/63/") == Counter()


# A graceful cancel of a batch_crawl with seeds not yet begun --------------------------------------


def test_a_graceful_cancel_of_a_batch_crawl_reads_no_start_page_of_the_seeds_still_waiting(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    site, port = served
    sizes = range(70, 76)
    seeds = [f"{SITE}/gated/15/0", *(f"{SITE}/tree/{size}/0" for size in sizes)]
    with runs_client(port, registry, tmp_path) as client:
        arguments = {"urls": seeds, "max_pages": 15, "concurrency": 1, "wait": False}
        run_id = started(envelope(client, "batch_crawl", arguments))
        until(lambda: gate.waiting, "the first seed's crawl to reach the gate")
        cancelling = client.portal.start_task_soon(
            client.client.call_tool, "cancel_run", {"run_id": run_id}
        )
        # a graceful cancel stops at the next page: let pages through one at a time
        while not cancelling.done():
            gate.allow()
            time.sleep(0.05)
        run = cancelling.result().structured_content["payload"]["run"]
        assert run["status"] == "cancelled" and run["has_result"], run
    assert sum(sum(site.asked(f"/tree/{size}/").values()) for size in sizes) == 0


# A crawl through a runner no transport hosts --------------------------------------------------


def test_a_crawl_with_wait_false_where_no_transport_hosts_runs_answers_with_the_run_as_it_stands(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    port = served[1]
    arguments = {"url": f"{SITE}/gated/16/0", "max_depth": 10, "wait": False, "timeout_ms": 300}
    answer = call_alone(runs_runner(port, registry, tmp_path), "crawl", arguments)
    run = answer.payload["run"]
    assert answer.ok and run["status"] == "interrupted" and run["resumable"], answer
    assert "resume_run" in answer.guidance and "background" not in answer.guidance, answer.guidance
    with runs_client(port, registry, tmp_path) as client:
        assert status(client, run["run_id"])["status"] == "interrupted"


def crawls_at_once(
    runner: ToolRunner,
    gate: Gate,
    first: dict[str, Any],
    second: dict[str, Any],
    *,
    open_once_interrupted: bool,
) -> list[Envelope]:
    """Two crawls through a runner no transport hosts, the second called once the first's run is at
    the gate (which opens, when asked, once a run is interrupted)."""
    answers: dict[int, Envelope] = {}

    async def both() -> None:
        async def one(index: int, arguments: dict[str, Any]) -> None:
            answers[index] = (
                await runner.call("crawl", {"max_depth": 10, "wait": False, **arguments})
            )[0]

        try:
            with anyio.fail_after(60):  # the overall bound of the polls below
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(one, 0, first)
                    while not gate.waiting:
                        await anyio.sleep(0.01)
                    tasks.start_soon(one, 1, second)
                    if open_once_interrupted:
                        store = runner.services.runs.store
                        while not (
                            await store.list_runs(
                                statuses=["interrupted"], tools=[], offset=0, limit=1
                            )
                        )[1]:
                            await anyio.sleep(0.01)
                        gate.open()
        finally:
            await runner.services.aclose()

    anyio.run(both)
    return [answers[0], answers[1]]


def test_crawls_at_once_where_no_transport_hosts_runs_each_answer_with_their_run_as_it_stands(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    """The second call finds runs hosted for the first call (no transport's): its run still ends
    with its own call."""
    port = served[1]
    runner = runs_runner(port, registry, tmp_path)
    first = {"url": f"{SITE}/gated/17/0", "timeout_ms": 3_000}
    second = {"url": f"{SITE}/gated/18/0", "timeout_ms": 300}
    answers = crawls_at_once(runner, gate, first, second, open_once_interrupted=False)
    with runs_client(port, registry, tmp_path) as client:
        for answer in answers:
            run = answer.payload["run"]
            assert answer.ok and run["status"] == "interrupted", answer
            assert "resume_run" in answer.guidance and "background" not in answer.guidance, (
                answer.guidance
            )
            assert status(client, run["run_id"])["status"] == "interrupted"


def test_a_call_hosting_runs_for_itself_lasts_until_the_calls_sharing_it_have_ended(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    """The first call ends first (its run interrupted); the second's run, hosted by the first's
    call, goes on to its end, which the second call waited for."""
    runner = runs_runner(served[1], registry, tmp_path)
    first = {"url": f"{SITE}/gated/19/0", "timeout_ms": 300}
    second = {"url": f"{SITE}/gated/20/0", "timeout_ms": 60_000}
    answers = crawls_at_once(runner, gate, first, second, open_once_interrupted=True)
    assert answers[0].payload["run"]["status"] == "interrupted", answers[0]
    assert answers[1].ok and answers[1].payload["read"] == 20, answers[1]


# A resumed run spends the resuming session's budget -----------------------------------------------


def test_a_resumed_run_spends_the_budget_of_the_session_that_resumed_it(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    runner = runs_runner(served[1], registry, tmp_path, session_budget=6)
    with hosted(runner) as client:

        def call(tool: str, arguments: dict[str, Any], session: str) -> Envelope:
            return client.portal.call(
                functools.partial(runner.call, tool, arguments, session=session)
            )[0]

        crawled = call("crawl", {"url": f"{SITE}/tree/30/0", "max_depth": 10}, "first")
        assert crawled.ok and 0 < crawled.payload["read"] < 30 and crawled.payload["failed"], (
            crawled
        )
        run_id = crawled.payload["run_id"]
        resumed = call(
            "resume_run", {"run_id": run_id, "retry_failed": True, "wait": True}, "second"
        )
        assert resumed.ok and resumed.payload["run"]["status"] == "succeeded", resumed
        assert stored(runner, client, run_id).session == "second"
        result = envelope(client, "get_run_result", {"run_id": run_id})["payload"]["result"]
        assert result["read"] > crawled.payload["read"], result
