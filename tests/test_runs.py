"""Background runs through MCP, on an in-memory server that hosts them: every status and the moves
between them (queued, running, succeeded, failed, cancelled gracefully or by force, interrupted and
resumed), the run tools' paging, cuts and filters, the runs resources, and ids a model should not
get anywhere with.

Pages come from tests/support/run_site.py: trees a crawl reads whole, pages that wait at a gate the
test opens, pages too long for one answer, a page that fails once. Every wait is a poll with a
generous overall bound."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.core.errors import StoreFailure
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.serve.mcp import build_server
from netglean.store.base import Run
from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.polling import until
from tests.support.run_site import LONG_TEXT, Gate, RunSite, serve_run_site

SITE = "http://site.test"


def runs_runner(port: int, registry: Registry, data_dir: Path, **overrides: Any) -> ToolRunner:
    """A server whose run store is ``data_dir``, fetching site.test from the run site."""
    settings = Settings.load(
        {"data_dir": str(data_dir), "read_workers": 0, "session_budget": 1_000_000, **overrides},
        environ=TEST_ENVIRONMENT,
    )
    policy = dataclasses.replace(
        FetchPolicy.from_settings(settings), host_interval=0.0, only_hosts=frozenset()
    )
    fetcher = Fetcher(policy, resolver=FakeDNS({"site.test": [PUBLIC]}), dial=LoopbackBackend(port))
    return build_runner(registry, settings, fetcher=fetcher)


def hosted(runner: ToolRunner) -> AbstractContextManager[SyncClient]:
    """An MCP client of ``runner``, which hosts runs for as long as the client is open."""
    return open_client(InMemoryTransport(build_server(runner)), runner)


def runs_client(
    port: int, registry: Registry, data_dir: Path, **overrides: Any
) -> AbstractContextManager[SyncClient]:
    return hosted(runs_runner(port, registry, data_dir, **overrides))


def envelope(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.call(tool, arguments)
    answer: dict[str, Any] = result.structured_content
    return answer


def status(client: SyncClient, run_id: str) -> dict[str, Any]:
    answer = envelope(client, "get_run_status", {"run_id": run_id})
    assert answer["ok"], answer
    run: dict[str, Any] = answer["payload"]["run"]
    return run


def finished(client: SyncClient, run_id: str) -> dict[str, Any]:
    """The run once it has finished."""
    return until(
        lambda: (run := status(client, run_id))["status"] not in ("queued", "running") and run,
        run_id,
    )


def visits(client: SyncClient, run_id: str, per_page: int = 200) -> list[dict[str, Any]]:
    """Every item of a run, paged through get_run_result."""
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = envelope(
            client, "get_run_result", {"run_id": run_id, "page": page, "per_page": per_page}
        )
        assert answer["ok"], answer
        items += [item["item"] for item in answer["payload"]["items"]]
        if not answer["payload"]["has_more"]:
            assert answer["next_step"] == "done" and len(items) == answer["payload"]["total_items"]
            return items
        assert answer["next_step"] == "get_run_result"
        page += 1


def tree(prefix: str, size: int) -> list[str]:
    return [f"{SITE}/{prefix}/{size}/{n}" for n in range(size)]


def started(answer: dict[str, Any]) -> str:
    """The run id of a call that answered with its run (it did not wait for the end)."""
    assert answer["ok"] and answer["next_step"] == "get_run_status", answer
    run_id: str = answer["payload"]["run"]["run_id"]
    return run_id


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[RunSite, int]]:
    with serve_run_site() as site_and_port:
        yield site_and_port


@pytest.fixture(scope="module")
def site(served: tuple[RunSite, int]) -> RunSite:
    return served[0]


@pytest.fixture
def gate(site: RunSite) -> Iterator[Gate]:
    """The site's gate, shut for the test and opened after it (no page is left waiting)."""
    site.gate.shut()
    yield site.gate
    site.gate.open()


@pytest.fixture(scope="module")
def client(
    served: tuple[RunSite, int], registry: Registry, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SyncClient]:
    with runs_client(served[1], registry, tmp_path_factory.mktemp("runs")) as session:
        yield session


# Starting and waiting -----------------------------------------------------------------------------


def test_wait_false_answers_at_once_with_the_run_which_goes_on_to_succeed(
    client: SyncClient,
) -> None:
    answer = envelope(
        client, "crawl", {"url": f"{SITE}/tree/7/0", "wait": False, "label": "seven pages"}
    )
    run_id = started(answer)
    assert (
        answer["payload"]["run"]["status"] in ("queued", "running")
        and "pages" not in answer["payload"]
    )
    run = finished(client, run_id)
    assert run["status"] == "succeeded" and run["has_result"] and run["label"] == "seven pages", run
    assert (
        run["attempts"] == 1 and run["started_at"] and run["finished_at"] and not run["resumable"]
    )
    assert sorted(visit["url"] for visit in visits(client, run_id)) == sorted(tree("tree", 7))


def test_wait_true_answers_with_the_pages_and_the_run_counts_every_page(client: SyncClient) -> None:
    answer = envelope(
        client, "crawl", {"url": f"{SITE}/tree/40/0", "max_depth": 10, "max_pages": 100}
    )
    assert answer["ok"] and answer["next_step"] == "done", answer
    payload = answer["payload"]
    assert (
        sorted(page["url"] for page in payload["pages"]) == sorted(tree("tree", 40))
        and payload["read"] == 40
    )
    run = status(client, payload["run_id"])
    assert run["status"] == "succeeded" and run["done"] == 40 and run["total"] == 100, run


def test_a_wait_that_times_out_answers_with_the_run_whose_result_comes_later(
    client: SyncClient, gate: Gate
) -> None:
    answer = envelope(
        client, "crawl", {"url": f"{SITE}/gated/5/0", "wait": True, "timeout_ms": 200}
    )
    run_id = started(answer)
    assert answer["payload"]["run"]["status"] in ("queued", "running"), answer
    early = envelope(client, "get_run_result", {"run_id": run_id})
    assert (
        early["ok"] and early["next_step"] == "get_run_status" and "result" not in early["payload"]
    ), early
    gate.open()
    assert finished(client, run_id)["status"] == "succeeded"
    result = envelope(client, "get_run_result", {"run_id": run_id})["payload"]
    assert (
        result["result"]["read"] == 5
        and result["total_items"] == 5
        and "pages" not in result["result"]
    )


# Cancelling, interrupting, resuming ---------------------------------------------------------------


def test_a_graceful_cancel_keeps_the_result_so_far_and_resume_reads_the_rest_once(
    client: SyncClient, gate: Gate, site: RunSite
) -> None:
    run_id = started(
        envelope(
            client,
            "crawl",
            {"url": f"{SITE}/gated/40/0", "max_depth": 10, "max_pages": 100, "wait": False},
        )
    )
    until(lambda: gate.waiting, "the crawl to reach the gate")
    cancelling = client.portal.start_task_soon(
        client.client.call_tool, "cancel_run", {"run_id": run_id}
    )
    # a graceful cancel stops at the next page: let pages through one at a time
    while not cancelling.done():
        gate.allow()
        time.sleep(0.05)
    answer = cancelling.result().structured_content
    run = answer["payload"]["run"]
    assert run["status"] == "cancelled" and run["has_result"] and run["resumable"], answer
    assert answer["next_step"] == "get_run_result"
    kept = envelope(client, "get_run_result", {"run_id": run_id})["payload"]
    assert 1 <= kept["total_items"] < 40 and kept["result"]["stopped"] == "cancelled", kept
    assert kept["result"]["unvisited"] > 0

    gate.open()
    resumed = envelope(client, "resume_run", {"run_id": run_id, "wait": True})
    assert resumed["ok"] and resumed["payload"]["run"]["status"] == "succeeded", resumed
    assert resumed["payload"]["run"]["attempts"] == 2 and resumed["next_step"] == "get_run_result"
    urls = [visit["url"] for visit in visits(client, run_id, per_page=7)]
    assert sorted(urls) == sorted(tree("gated", 40))  # every page of the site, each once
    assert envelope(client, "get_run_result", {"run_id": run_id})["payload"]["result"]["read"] == 40
    assert set(site.asked("/gated/40/")) == {url.removeprefix(SITE) for url in urls}


def test_a_forced_cancel_ends_the_run_at_once_and_resume_goes_on_from_its_checkpoint(
    client: SyncClient, gate: Gate
) -> None:
    run_id = started(
        envelope(client, "crawl", {"url": f"{SITE}/gated/10/0", "max_depth": 10, "wait": False})
    )
    until(lambda: gate.waiting, "the crawl to reach the gate")
    # the gate stays shut
    answer = envelope(client, "cancel_run", {"run_id": run_id, "force": True})
    run = answer["payload"]["run"]
    assert (
        run["status"] == "cancelled"
        and not run["has_result"]
        and run["error"]["code"] == "cancelled"
    ), answer
    assert answer["next_step"] == "done"
    # again
    assert (
        envelope(client, "cancel_run", {"run_id": run_id})["payload"]["run"]["status"]
        == "cancelled"
    )
    assert status(client, run_id)["status"] == "cancelled"

    gate.open()
    resumed = envelope(client, "resume_run", {"run_id": run_id, "wait": True})
    assert resumed["payload"]["run"]["status"] == "succeeded", resumed
    assert sorted(visit["url"] for visit in visits(client, run_id)) == sorted(tree("gated", 10))
    # succeeded, nothing to retry: left as it is
    again = envelope(client, "resume_run", {"run_id": run_id})
    assert (
        again["ok"]
        and again["payload"]["run"]["attempts"] == 2
        and again["next_step"] == "get_run_result"
    )


def test_a_cancelled_batch_crawl_resumes_every_seed_from_its_own_checkpoint(
    client: SyncClient, gate: Gate
) -> None:
    seeds = [f"{SITE}/gated/11/0", f"{SITE}/gated/12/0", "ftp://not-crawled/"]
    run_id = started(
        envelope(client, "batch_crawl", {"urls": seeds, "max_depth": 10, "wait": False})
    )
    until(lambda: gate.waiting, "the crawls to reach the gate")
    assert (
        envelope(client, "cancel_run", {"run_id": run_id, "force": True})["payload"]["run"][
            "status"
        ]
        == "cancelled"
    )
    gate.open()
    resumed = envelope(client, "resume_run", {"run_id": run_id, "wait": True})["payload"]["run"]
    assert resumed["status"] == "succeeded", resumed
    answer = envelope(client, "get_run_result", {"run_id": run_id, "per_page": 200})["payload"]
    by_part: dict[int, list[str]] = {0: [], 1: []}
    for item in answer["items"]:
        by_part[item["part"]].append(item["item"]["url"])
    assert sorted(by_part[0]) == sorted(tree("gated", 11)) and sorted(by_part[1]) == sorted(
        tree("gated", 12)
    )
    crawls = answer["result"]["crawls"]
    assert [crawl["read"] for crawl in crawls] == [11, 12, 0] and crawls[2]["error"][
        "code"
    ] == "bad_url"


def test_a_run_waits_queued_for_a_slot_and_a_cancel_before_it_begins_holds(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    with runs_client(served[1], registry, tmp_path, max_runs=1) as one:
        first = started(
            envelope(one, "crawl", {"url": f"{SITE}/gated/6/0", "max_depth": 10, "wait": False})
        )
        until(lambda: gate.waiting, "the first run to reach the gate")
        second = started(envelope(one, "crawl", {"url": f"{SITE}/tree/3/0", "wait": False}))
        assert status(one, second)["status"] == "queued"
        queued = envelope(one, "list_runs", {"status": ["queued"]})["payload"]
        assert [run["run_id"] for run in queued["runs"]] == [second]
        cancelled = envelope(one, "cancel_run", {"run_id": second})["payload"]["run"]
        assert (
            cancelled["status"] == "cancelled"
            and cancelled["attempts"] == 0
            and cancelled["error"]["code"]
        )

        gate.open()
        assert finished(one, first)["status"] == "succeeded"
        # the slot came free: the cancel still holds
        assert status(one, second)["status"] == "cancelled"
        resumed = envelope(one, "resume_run", {"run_id": second, "wait": True})["payload"]["run"]
        assert resumed["status"] == "succeeded" and resumed["attempts"] == 1
        assert sorted(visit["url"] for visit in visits(one, second)) == sorted(tree("tree", 3))


def test_a_run_cancelled_while_queued_and_resumed_is_the_one_a_later_cancel_stops(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    with runs_client(served[1], registry, tmp_path, max_runs=1) as one:
        first = started(envelope(one, "crawl", {"url": f"{SITE}/gated/5/0", "wait": False}))
        until(lambda: gate.waiting, "the first run to reach the gate")
        second = started(
            envelope(one, "crawl", {"url": f"{SITE}/gated/7/0", "max_depth": 10, "wait": False})
        )
        assert (
            envelope(one, "cancel_run", {"run_id": second})["payload"]["run"]["status"]
            == "cancelled"
        )
        assert (
            envelope(one, "resume_run", {"run_id": second})["payload"]["run"]["status"] == "queued"
        )
        assert (
            envelope(one, "cancel_run", {"run_id": first, "force": True})["payload"]["run"][
                "status"
            ]
            == "cancelled"
        )
        until(
            lambda: status(one, second)["status"] == "running" and gate.waiting,
            "the second run to reach the gate",
        )
        stopped = envelope(one, "cancel_run", {"run_id": second, "force": True})["payload"]["run"]
        assert stopped["status"] == "cancelled", stopped
        gate.open()
        resumed = envelope(one, "resume_run", {"run_id": second, "wait": True})["payload"]["run"]
        assert resumed["status"] == "succeeded", resumed
        assert sorted(visit["url"] for visit in visits(one, second)) == sorted(tree("gated", 7))


def test_a_cancel_that_finds_a_run_queued_holds_when_the_run_takes_a_slot_meanwhile(
    served: tuple[RunSite, int],
    registry: Registry,
    tmp_path: Path,
    gate: Gate,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runner = runs_runner(served[1], registry, tmp_path, max_runs=1)
    store = runner.services.runs.store
    finish = store.finish
    second: list[str] = []

    async def claimed_first(run_id: str, status: str, **outcome: Any) -> Run:
        """The cancel has seen the run queued; before it writes, the slot frees and the run's task
        claims it."""
        if (
            second
            and run_id == second[0]
            and status == "cancelled"
            and (await store.get(run_id)).status == "queued"
        ):  # type: ignore[union-attr]
            gate.open()
            while (await store.get(run_id)).status == "queued":  # type: ignore[union-attr]
                await anyio.sleep(0.01)
        return await finish(run_id, status, **outcome)

    monkeypatch.setattr(store, "finish", claimed_first)
    with hosted(runner) as one:
        first = started(envelope(one, "crawl", {"url": f"{SITE}/gated/5/0", "wait": False}))
        until(lambda: gate.waiting, "the first run to reach the gate")
        second.append(
            started(
                envelope(one, "crawl", {"url": f"{SITE}/tree/60/0", "max_depth": 10, "wait": False})
            )
        )
        cancelled = envelope(one, "cancel_run", {"run_id": second[0]})["payload"]["run"]
        assert cancelled["status"] == "cancelled", cancelled

        def ended() -> list[str]:
            lines = envelope(one, "get_run_log", {"run_id": second[0]})["payload"]["lines"]
            return [
                line["message"] for line in lines if line["message"] != "crawl started (attempt 1)"
            ]

        assert until(ended, "the second run's task to end") in (
            ["crawl cancelled"],
            ["cancelled (forced)"],
        )
        assert status(one, second[0])["status"] == "cancelled"
        assert finished(one, first)["status"] == "succeeded"


def test_a_cancel_asked_through_another_server_is_carried_out_by_the_server_working_the_run(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate
) -> None:
    with (
        runs_client(served[1], registry, tmp_path) as owner,
        runs_client(served[1], registry, tmp_path) as other,
    ):
        run_id = started(
            envelope(owner, "crawl", {"url": f"{SITE}/gated/8/0", "max_depth": 10, "wait": False})
        )
        until(lambda: gate.waiting, "the crawl to reach the gate")
        # Graceful: the owner stops at the run's next page, which waits at the gate; the ask is
        # still pending.
        asked = envelope(other, "cancel_run", {"run_id": run_id})
        run = asked["payload"]["run"]
        # still pending when the asker's wait ended (the owner forces it after 5 s)
        if run["status"] == "running":
            assert (
                run["cancel_requested"] == "graceful" and asked["next_step"] == "get_run_status"
            ), asked
            forced = envelope(other, "cancel_run", {"run_id": run_id, "force": True})["payload"][
                "run"
            ]
            assert forced["status"] == "cancelled" and "cancel_requested" not in forced, forced
        else:
            assert run["status"] == "cancelled" and "cancel_requested" not in run, asked
        assert status(owner, run_id)["status"] == "cancelled"
        gate.open()
        resumed = envelope(other, "resume_run", {"run_id": run_id, "wait": True})["payload"]["run"]
        assert resumed["status"] == "succeeded", resumed
        assert sorted(visit["url"] for visit in visits(owner, run_id)) == sorted(tree("gated", 8))


def test_runs_their_server_stopped_are_interrupted_and_resume_from_their_checkpoints(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, gate: Gate, site: RunSite
) -> None:
    with runs_client(served[1], registry, tmp_path, max_runs=1) as before:
        working = started(
            envelope(before, "crawl", {"url": f"{SITE}/gated/9/0", "max_depth": 10, "wait": False})
        )
        until(lambda: gate.waiting, "the crawl to reach the gate")
        waiting = started(
            envelope(before, "crawl", {"url": f"{SITE}/tree/5/0", "max_depth": 10, "wait": False})
        )
        assert status(before, waiting)["status"] == "queued"
    with runs_client(served[1], registry, tmp_path) as after:
        answer = envelope(after, "get_run_status", {"run_id": working})
        run = answer["payload"]["run"]
        assert run["status"] == "interrupted" and run["resumable"] and not run["has_result"], answer
        assert answer["next_step"] == "resume_run" and run["attempts"] == 1
        assert (
            status(after, waiting)["status"] == "interrupted"
            and status(after, waiting)["attempts"] == 0
        )
        interrupted = envelope(after, "list_runs", {"status": ["interrupted"]})["payload"]["runs"]
        assert [r["run_id"] for r in interrupted] == [waiting, working]
        gate.open()
        for run_id, pages, attempts in (
            (working, tree("gated", 9), 2),
            (waiting, tree("tree", 5), 1),
        ):
            resumed = envelope(after, "resume_run", {"run_id": run_id, "wait": True})["payload"][
                "run"
            ]
            assert resumed["status"] == "succeeded" and resumed["attempts"] == attempts, resumed
            assert sorted(visit["url"] for visit in visits(after, run_id)) == sorted(pages)
    assert site.asked("/gated/9/")["/gated/9/0"] == 1  # read before the stop, not again


def test_a_crawl_refused_as_a_whole_is_a_failed_run_with_its_error_code(client: SyncClient) -> None:
    # would loosen the operator's robots.txt
    refused = {"url": f"{SITE}/tree/3/0", "respect_robots_txt": False}
    waited = envelope(client, "crawl", refused)
    assert not waited["ok"] and waited["payload"]["error"]["code"] == "operator_policy", waited
    run_id = started(envelope(client, "crawl", {**refused, "wait": False}))
    run = finished(client, run_id)
    assert (
        run["status"] == "failed" and run["error"]["code"] == "operator_policy" and run["resumable"]
    ), run
    answer = envelope(client, "get_run_result", {"run_id": run_id})
    assert (
        answer["payload"]["result"]["error"]["code"] == "operator_policy"
        and answer["payload"]["items"] == []
    )
    log = envelope(client, "get_run_log", {"run_id": run_id, "level": "error"})["payload"]["lines"]
    assert [line["message"] for line in log] == ["crawl failed"]
    again = envelope(client, "resume_run", {"run_id": run_id, "wait": True})["payload"]["run"]
    assert (
        again["status"] == "failed"
        and again["attempts"] == 2
        and again["error"]["code"] == "operator_policy"
    )


def test_a_failed_runs_status_and_result_carry_its_stderr_tail_with_the_error(
    client: SyncClient,
) -> None:
    refused = {"url": f"{SITE}/tree/3/1", "respect_robots_txt": False, "wait": False}
    run_id = started(envelope(client, "crawl", refused))
    finished(client, run_id)
    tail = envelope(client, "get_run_status", {"run_id": run_id})["payload"]["stderr_tail"]
    assert tail.endswith("\noperator_policy: " + status(client, run_id)["error"]["message"]), tail
    assert tail.startswith("ERROR crawl failed\n")
    assert envelope(client, "get_run_result", {"run_id": run_id})["payload"]["stderr_tail"] == tail
    streams = envelope(client, "get_run_log", {"run_id": run_id})["payload"]
    assert streams["stderr"] == tail and streams["stdout"] == "INFO crawl started (attempt 1)"


# Keeping runs -------------------------------------------------------------------------------------


def test_runs_finished_before_the_retention_are_pruned_when_a_server_starts_hosting(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    with runs_client(served[1], registry, tmp_path) as first:
        made = [
            envelope(first, "crawl", {"url": f"{SITE}/tree/1/0"})["payload"]["run_id"]
            for _ in range(3)
        ]
    days_ago = dict(zip(made, (70, 40, 0), strict=True))
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        for run_id, days in days_ago.items():
            db.execute(
                "UPDATE runs SET finished_at = finished_at - ? WHERE id = ?",
                (days * 86_400, run_id),
            )
    with runs_client(served[1], registry, tmp_path, run_retention_days=60) as later:

        def gone(run_id: str) -> bool:
            answer = envelope(later, "get_run_status", {"run_id": run_id})
            return not answer["ok"] and answer["payload"]["error"]["code"] == "not_found"

        until(lambda: gone(made[0]), "the 70-day-old run to be pruned")
        assert not gone(made[1]) and not gone(made[2])
        assert envelope(later, "list_runs", {})["payload"]["total"] == 2


def test_a_store_failure_in_the_background_sweep_leaves_the_server_hosting_runs(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = runs_runner(served[1], registry, tmp_path)
    sweeps: list[float] = []

    async def full(older_than: float) -> int:
        sweeps.append(older_than)
        raise StoreFailure(
            "the run store's disk is full; nothing it had committed is lost (the operator must "
            "free space)"
        )

    monkeypatch.setattr(runner.services.runs.store, "prune", full)
    with hosted(runner) as session:
        until(lambda: sweeps, "the sweep to prune")
        answer = envelope(session, "crawl", {"url": f"{SITE}/tree/3/0"})
        assert answer["ok"] and answer["payload"]["read"] == 3, answer
        assert status(session, answer["payload"]["run_id"])["status"] == "succeeded"


# Reading what runs did ----------------------------------------------------------------------------


def test_list_runs_this_session_lists_only_the_runs_this_clients_session_started(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    runner = runs_runner(served[1], registry, tmp_path)
    with hosted(runner) as fresh:
        mine = envelope(fresh, "crawl", {"url": f"{SITE}/tree/1/0"})["payload"]["run_id"]
        fresh.portal.call(
            runner.services.runs.store.create, "f" * 32, "crawl", {}, None, "mcp:another"
        )
        listed = envelope(fresh, "list_runs", {"this_session": True})["payload"]["runs"]
        assert [run["run_id"] for run in listed] == [mine]
        assert envelope(fresh, "list_runs", {})["payload"]["total"] == 2


def test_list_runs_pages_newest_first_and_filters_by_status_and_tool(
    served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    with runs_client(served[1], registry, tmp_path) as fresh:
        assert envelope(fresh, "list_runs", {})["next_step"] == "done"
        made = [
            envelope(fresh, "crawl", {"url": f"{SITE}/tree/1/0"})["payload"]["run_id"]
            for _ in range(4)
        ]
        failed = started(
            envelope(
                fresh,
                "crawl",
                {"url": f"{SITE}/tree/1/0", "respect_robots_txt": False, "wait": False},
            )
        )
        finished(fresh, failed)
        batch = envelope(fresh, "batch_crawl", {"urls": [f"{SITE}/tree/1/0"]})["payload"]["crawls"][
            0
        ]["run_id"]
        everything = [*made, failed, batch]
        listed, page = [], 1
        while True:
            answer = envelope(fresh, "list_runs", {"page": page, "per_page": 4})
            payload = answer["payload"]
            assert payload["total"] == 6 and len(payload["runs"]) == (4 if page == 1 else 2)
            listed += payload["runs"]
            if not payload["has_more"]:
                break
            assert answer["next_step"] == "list_runs"
            page += 1
        assert [run["run_id"] for run in listed] == everything[::-1]  # newest first
        assert [run["created_at"] for run in listed] == sorted(
            (run["created_at"] for run in listed), reverse=True
        )

        def ids(**filters: Any) -> list[str]:
            return [
                run["run_id"] for run in envelope(fresh, "list_runs", filters)["payload"]["runs"]
            ]

        assert ids(status=["failed"]) == [failed]
        assert ids(status=["succeeded"], tool=["crawl"]) == made[::-1]
        assert ids(tool=["batch_crawl"]) == [batch]
        assert (
            ids(status=["failed", "succeeded"], tool=["batch_crawl", "crawl"]) == everything[::-1]
        )
        assert ids(status=["running"]) == [] and ids(tool=["scrape"]) == []
        beyond = envelope(fresh, "list_runs", {"page": 9})
        assert (
            beyond["payload"]["runs"] == []
            and not beyond["payload"]["has_more"]
            and beyond["next_step"] == "done"
        )


def test_get_run_log_keeps_the_tail_that_fits_and_filters_by_level(client: SyncClient) -> None:
    run_id = envelope(client, "crawl", {"url": f"{SITE}/flaky/log"})["payload"]["run_id"]
    every = envelope(client, "get_run_log", {"run_id": run_id, "level": "debug"})["payload"]
    failed_page = f"failed {SITE}/flaky/log/page: http_status"
    lines = [(line["level"], line["message"]) for line in every["lines"]]
    assert lines[0] == ("info", "crawl started (attempt 1)") and lines[-1] == (
        "info",
        "crawl succeeded",
    )
    assert ("warning", failed_page) in lines and every["omitted"] == 0
    assert {message for level, message in lines if level == "debug"} == {
        f"read {SITE}/flaky/log",
        f"read {SITE}/flaky/log/steady",
    }
    # info and above by default
    shown = envelope(client, "get_run_log", {"run_id": run_id})["payload"]
    assert [line["message"] for line in shown["lines"]] == [
        "crawl started (attempt 1)",
        failed_page,
        "crawl succeeded",
    ]
    warnings = envelope(client, "get_run_log", {"run_id": run_id, "level": "warning"})["payload"]
    assert [line["message"] for line in warnings["lines"]] == [failed_page] and warnings[
        "omitted"
    ] == 0
    fits = len(failed_page) + len("crawl succeeded")
    tail = envelope(client, "get_run_log", {"run_id": run_id, "tail_chars": fits})["payload"]
    assert [line["message"] for line in tail["lines"]] == [failed_page, "crawl succeeded"] and tail[
        "omitted"
    ] == 1
    short = envelope(client, "get_run_log", {"run_id": run_id, "tail_chars": fits - 1})["payload"]
    assert [line["message"] for line in short["lines"]] == ["crawl succeeded"] and short[
        "omitted"
    ] == 2
    # it succeeded
    assert "stderr_tail" not in envelope(client, "get_run_status", {"run_id": run_id})["payload"]
    streams = envelope(client, "get_run_log", {"run_id": run_id, "tail_chars": 200000})["payload"]
    assert streams["stderr"] == f"WARNING {failed_page}" and streams["stdout"].endswith(
        "\nINFO crawl succeeded"
    )
    text = client.call("get_run_log", {"run_id": run_id}).content[0].text
    assert "BEGIN UNTRUSTED CONTENT" in text  # messages quote URLs: framed


def test_get_run_result_pages_through_the_items_and_gives_the_result_on_page_one(
    client: SyncClient,
) -> None:
    run_id = envelope(client, "crawl", {"url": f"{SITE}/tree/7/0", "max_depth": 5})["payload"][
        "run_id"
    ]
    pages = [
        envelope(client, "get_run_result", {"run_id": run_id, "page": n, "per_page": 3})
        for n in (1, 2, 3, 4)
    ]
    payloads = [answer["payload"] for answer in pages]
    assert [len(p["items"]) for p in payloads] == [3, 3, 1, 0] and all(
        p["total_items"] == 7 for p in payloads
    )
    assert [p["has_more"] for p in payloads] == [True, True, False, False]
    assert [answer["next_step"] for answer in pages] == [
        "get_run_result",
        "get_run_result",
        "done",
        "done",
    ]
    assert payloads[0]["result"]["read"] == 7 and "pages" not in payloads[0]["result"]
    assert all("result" not in p for p in payloads[1:])
    seqs = [item["seq"] for p in payloads for item in p["items"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == 7  # breadth order, each once


def test_long_strings_of_a_result_are_cut_at_20000_characters_unless_full_response(
    client: SyncClient,
) -> None:
    run_id = envelope(client, "crawl", {"url": f"{SITE}/long", "max_chars": 20_000})["payload"][
        "run_id"
    ]
    cut = envelope(client, "get_run_result", {"run_id": run_id})["payload"]
    page = cut["items"][0]["item"]["page"]
    assert (
        cut["cut_strings"] >= 1
        and page["title"].startswith("Long Long")
        and "[cut: " in page["title"]
    )
    assert len(page["title"]) < 20_100 and len(page["content"]) <= 20_100
    whole = envelope(client, "get_run_result", {"run_id": run_id, "full_response": True})["payload"]
    assert (
        whole["cut_strings"] == 0
        and len(whole["items"][0]["item"]["page"]["title"]) >= LONG_TEXT - 10
    )


def test_a_crawl_too_big_for_one_answer_names_its_run_and_paging_gives_every_visit(
    client: SyncClient,
) -> None:
    answer = envelope(
        client,
        "crawl",
        {"url": f"{SITE}/big/30/0", "max_chars": 20_000, "max_depth": 10, "max_pages": 30},
    )
    payload = answer["payload"]
    assert answer["ok"] and answer["next_step"] == "get_run_result" and payload["read"] == 30, (
        answer["guidance"]
    )
    assert payload["unreturned"] == 30 - len(payload["pages"]) > 0 and payload["run_id"]
    assert len(json.dumps(payload["pages"])) <= 400_000
    urls = [visit["url"] for visit in visits(client, payload["run_id"], per_page=4)]
    assert sorted(urls) == sorted(tree("big", 30))
    # the answer's are the first
    assert [page["url"] for page in payload["pages"]] == urls[: len(payload["pages"])]


def test_retry_failed_reads_again_only_the_page_that_failed(
    client: SyncClient, site: RunSite
) -> None:
    crawled = envelope(client, "crawl", {"url": f"{SITE}/flaky/retry"})["payload"]
    assert crawled["failed"] == 1 and crawled["read"] == 2
    run_id = crawled["run_id"]
    # succeeded: nothing to resume without retry_failed
    plain = envelope(client, "resume_run", {"run_id": run_id})
    assert plain["payload"]["run"]["attempts"] == 1 and plain["next_step"] == "get_run_result"
    retried = envelope(
        client, "resume_run", {"run_id": run_id, "retry_failed": True, "wait": True}
    )["payload"]["run"]
    assert retried["status"] == "succeeded" and retried["attempts"] == 2, retried
    assert site.asked("/flaky/retry") == {
        "/flaky/retry": 1,
        "/flaky/retry/page": 2,
        "/flaky/retry/steady": 1,
    }
    items = visits(client, run_id)
    assert sorted(item["url"] for item in items) == [
        f"{SITE}/flaky/retry{end}" for end in ("", "/page", "/steady")
    ]
    assert all(item["ok"] for item in items)
    result = envelope(client, "get_run_result", {"run_id": run_id})["payload"]["result"]
    assert result["read"] == 3 and result["failed"] == 0
    # nothing failed: left as it is
    again = envelope(client, "resume_run", {"run_id": run_id, "retry_failed": True})
    run = again["payload"]["run"]
    assert (
        again["ok"] and run["status"] == "succeeded" and run["attempts"] == 2 and run["has_result"]
    ), again
    assert again["next_step"] == "get_run_result"


def test_the_runs_resources_list_and_show_runs_framed(client: SyncClient) -> None:
    run_id = envelope(client, "crawl", {"url": f"{SITE}/tree/1/0", "label": "for the resource"})[
        "payload"
    ]["run_id"]
    listing = client.run("read_resource", "netglean://runs").contents[0].text
    assert (
        "BEGIN UNTRUSTED CONTENT" in listing and run_id in listing and "for the resource" in listing
    )
    one = client.run("read_resource", f"netglean://runs/{run_id}").contents[0].text
    assert (
        "BEGIN UNTRUSTED CONTENT" in one
        and f'"run_id": "{run_id}"' in one
        and '"status": "succeeded"' in one
    )
    for missing in ("0" * 32, run_id.upper(), "../../etc/passwd", run_id + "0"):
        with pytest.raises(MCPError, match="Resource not found"):
            client.run("read_resource", f"netglean://runs/{missing}")


# Ids and arguments a model should not get anywhere with -------------------------------------------

RUN_TOOLS = ("get_run_status", "get_run_result", "get_run_log", "cancel_run", "resume_run")


def test_unknown_ids_and_ids_of_another_store_are_not_found(
    client: SyncClient, served: tuple[RunSite, int], registry: Registry, tmp_path: Path
) -> None:
    with runs_client(served[1], registry, tmp_path) as elsewhere:
        foreign = envelope(elsewhere, "crawl", {"url": f"{SITE}/tree/1/0"})["payload"]["run_id"]
        assert status(elsewhere, foreign)["status"] == "succeeded"
    ours = envelope(client, "crawl", {"url": f"{SITE}/tree/1/0"})["payload"]["run_id"]
    for tool in RUN_TOOLS:
        for run_id in ("0" * 32, "f" * 32, foreign):
            answer = envelope(client, tool, {"run_id": run_id})
            assert not answer["ok"] and answer["payload"]["error"]["code"] == "not_found", (
                tool,
                answer,
            )
            assert answer["next_step"] == "list_runs" and run_id not in answer["guidance"], (
                tool,
                answer,
            )
    with runs_client(served[1], registry, tmp_path) as elsewhere:
        assert (
            envelope(elsewhere, "get_run_status", {"run_id": ours})["payload"]["error"]["code"]
            == "not_found"
        )


@pytest.mark.parametrize(
    "run_id",
    [
        "",
        "../../etc/passwd",
        "A" * 32,
        "0" * 31,
        "0" * 33,
        "0" * 31 + "g",
        "0" * 16 + "\x00" + "0" * 15,
        7,
    ],
)
def test_malformed_run_ids_are_invalid_arguments(client: SyncClient, run_id: Any) -> None:
    for tool in RUN_TOOLS:
        answer = envelope(client, tool, {"run_id": run_id})
        assert not answer["ok"] and answer["payload"]["error"]["code"] == "invalid_arguments", (
            tool,
            answer,
        )
        assert answer["next_step"] == tool


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_run_log", {"tail_chars": 10_000_000}),
        ("get_run_log", {"tail_chars": 0}),
        ("get_run_log", {"level": "trace"}),
        ("get_run_result", {"per_page": 201}),
        ("get_run_result", {"page": 0}),
        ("resume_run", {"timeout_ms": 0}),
        ("list_runs", {"status": ["lost"]}),
        ("list_runs", {"per_page": 500}),
        ("crawl", {"url": f"{SITE}/tree/1/0", "timeout_ms": 0}),
        ("crawl", {"url": f"{SITE}/tree/1/0", "label": ""}),
    ],
)
def test_out_of_range_arguments_of_the_run_tools_are_invalid(
    client: SyncClient, tool: str, arguments: dict[str, Any]
) -> None:
    given = arguments if tool in ("list_runs", "crawl") else {"run_id": "0" * 32, **arguments}
    answer = envelope(client, tool, given)
    assert not answer["ok"] and answer["payload"]["error"]["code"] == "invalid_arguments", answer
