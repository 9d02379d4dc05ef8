"""Runs in the store, on every backend: a run claimed once, cancelled, finished and resumed; a
crawl's journal (its frontier and visits, read back in slices); counts and paged lists; a run's log
and its bounds; retention."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import anyio

from netglean.store.base import LOG_LINES_STORED, TRIM_EVERY, Queued, RunStore
from tests.support.stores import OTHER, RUN, rows_in, visit

T = TypeVar("T")


def run(work: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(work)


# Claims, cancels and the crawl's journal ---------------------------------------------------------


def test_a_run_is_claimed_once_and_requeued_clean(store: RunStore) -> None:
    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        claimed = await store.claim(RUN)
        assert claimed is not None and claimed.status == "running" and claimed.attempts == 1
        assert await store.claim(RUN) is None
        asked = await store.ask_cancel(RUN, "graceful")
        assert asked is not None and asked.cancel == "graceful"
        failure = ("http_status", "it failed")
        ended = await store.finish(RUN, "failed", result='{"ok": false}', error=failure)
        assert ended is not None and ended.status == "failed" and ended.cancel is None
        assert ended.has_result and ended.error_code
        cancelled = await store.ask_cancel(RUN, "force")
        assert cancelled is not None and cancelled.cancel is None  # ended already
        again, forgotten = await store.requeue(RUN, session="peer:elsewhere", retry_failed=False)
        assert again is not None and forgotten == 0
        assert again.session == "peer:elsewhere"  # the resumer's budget
        assert again.status == "queued" and not again.has_result and again.error_code is None
        assert await store.requeue(RUN, session="", retry_failed=True) == (
            None,
            0,
        )  # resumed already: left as is
        assert again.finished_at is None and await store.result(RUN) is None
        assert (await store.claim(RUN)).attempts == 2  # type: ignore[union-attr]
        assert await store.ask_cancel("f" * 32, "force") is None

    run(work)


def test_a_resume_with_retry_failed_queues_the_failed_visits_again(store: RunStore) -> None:
    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        await store.seed(RUN, 0, "http://site.test/0")
        links = (Queued(1, "http://site.test/1", 1), Queued(2, "http://site.test/2", 1))
        await store.record_visits(RUN, 0, [visit(0, links=links)])
        await store.record_visits(RUN, 0, [visit(1, failed=True)])
        await store.record_visits(RUN, 0, [visit(2)])
        # begun already: the seed is not queued again
        await store.seed(RUN, 0, "http://site.test/other")
        point = await store.checkpoint(RUN, 0)
        assert point.waiting == 0 and (point.visited, point.read, point.failed) == (3, 2, 1)
        assert await store.requeue(RUN, session="", retry_failed=True) == (
            None,
            0,
        )  # still running: not resumable
        await store.finish(RUN, "succeeded")
        again, forgotten = await store.requeue(RUN, session="", retry_failed=True)
        assert again is not None and again.status == "queued" and forgotten == 1
        point = await store.checkpoint(RUN, 0)
        assert (point.waiting, point.failed, point.queued) == (1, 0, 3)
        assert [q.url for q in await store.queued_after(RUN, 0, -1, 10)] == ["http://site.test/1"]
        assert (await store.items(RUN, offset=0, limit=10))[1] == 2

    run(work)


def test_a_crawls_frontier_is_read_back_in_slices_and_asked_what_it_holds(store: RunStore) -> None:
    """What a crawl asks of the store once it holds a bounded part of its frontier in memory."""

    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        await store.seed(RUN, 0, "http://site.test/0")
        links = tuple(Queued(n, f"http://site.test/{n}", 1) for n in range(1, 1_201))
        first = dataclasses.replace(visit(0, links=links), dropped=7)
        await store.record_visits(RUN, 0, [first, visit(1, failed=True), visit(2)])
        point = await store.checkpoint(RUN, 0)
        assert (
            point.queued,
            point.waiting,
            point.visited,
            point.read,
            point.failed,
            point.dropped,
        ) == (
            1_201,
            1_198,
            3,
            2,
            1,
            7,
        )
        waiting = await store.queued_after(RUN, 0, -1, 2)
        assert [q.seq for q in waiting] == [3, 4]  # 0, 1 and 2 are visited
        assert [q.seq for q in await store.queued_after(RUN, 0, 1_198, 10)] == [1_199, 1_200]
        # past one statement's parameters
        asked = [f"http://site.test/{n}" for n in range(1_100, 1_300)] * 3
        known = {f"http://site.test/{n}" for n in range(1_100, 1_201)}
        assert await store.known_urls(RUN, 0, asked) == known
        assert await store.known_urls(RUN, 0, []) == set()
        assert await store.read_at(RUN, 0, "http://site.test/2") == "http://site.test/2"
        assert await store.read_at(RUN, 0, "http://site.test/1") is None  # failed: never read
        assert await store.read_at(RUN, 1, "http://site.test/2") is None  # another seed's

    run(work)


def test_counts_and_paged_lists_by_status_and_tool(store: RunStore) -> None:
    async def work() -> None:
        for n, tool in enumerate(("crawl", "crawl", "batch_crawl")):
            await store.create(f"{n:032x}", tool, {}, None, "")
        await store.finish(f"{0:032x}", "succeeded")
        assert await store.counts() == {"queued": 2, "succeeded": 1}
        page, total = await store.list_runs(statuses=[], tools=["crawl"], offset=1, limit=1)
        assert total == 2 and [r.id for r in page] == [f"{0:032x}"]
        tools = ["crawl", "batch_crawl"]
        page, total = await store.list_runs(statuses=["queued"], tools=tools, offset=0, limit=5)
        assert total == 2 and [r.id for r in page] == [f"{2:032x}", f"{1:032x}"]

    run(work)


# The log ----------------------------------------------------------------------------------------


def test_a_runs_log_keeps_its_last_2000_lines(
    store: RunStore,
    backend: str,
    tmp_path: Path,
) -> None:
    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        await store.create(OTHER, "crawl", {}, None, "")
        await store.log(OTHER, "info", "the other run's line")
        # the lines past the 2,000 go every TRIM_EVERY lines
        for n in range(1, LOG_LINES_STORED + TRIM_EVERY + 1):
            await store.log(RUN, "info", f"line {n}")
        lines, omitted = await store.log_lines(RUN, levels=["info"], tail_chars=1_000_000)
        assert len(lines) == LOG_LINES_STORED and omitted == 0
        first, last = TRIM_EVERY + 1, LOG_LINES_STORED + TRIM_EVERY
        assert lines[0].message == f"line {first}" and lines[-1].message == f"line {last}"
        assert [line.seq for line in lines] == list(range(first, last + 1))
        other, _ = await store.log_lines(OTHER, levels=["info"], tail_chars=1_000)
        assert [line.message for line in other] == ["the other run's line"]  # trimmed per run

    run(work)
    assert rows_in(backend, tmp_path, "run_log", RUN) == LOG_LINES_STORED


def test_log_lines_gives_the_latest_lines_that_fit_tail_chars_at_the_levels_asked(
    store: RunStore,
) -> None:
    async def work() -> None:
        await store.create(RUN, "crawl", {}, None, "")
        assert await store.log_lines(RUN, levels=["info"], tail_chars=100) == ([], 0)
        for level, message in (
            ("info", "a" * 10),
            ("warning", "b" * 20),
            ("debug", "d" * 5),
            ("info", "c" * 30),
        ):
            await store.log(RUN, level, message)

        async def shown(tail: int, *levels: str) -> tuple[list[str], int]:
            asked = levels or ("info", "warning")
            lines, omitted = await store.log_lines(RUN, levels=asked, tail_chars=tail)
            return [line.message[0] for line in lines], omitted

        assert await shown(60) == (["a", "b", "c"], 0)
        assert await shown(59) == (["b", "c"], 1)
        assert await shown(50) == (["b", "c"], 1)
        assert await shown(49) == (["c"], 2)
        assert await shown(29) == (
            ["…"],
            2,
        )  # the latest line alone is longer: its end, cut; nothing older
        cut, _ = await store.log_lines(RUN, levels=("info",), tail_chars=29)
        assert cut[0].message == "…" + "c" * 28
        assert await shown(100, "warning") == (["b"], 0)
        assert await shown(100, "debug", "info", "warning") == (["a", "b", "d", "c"], 0)
        assert await shown(35, "debug", "info", "warning") == (["d", "c"], 2)

    run(work)


# Retention --------------------------------------------------------------------------------------


def test_prune_deletes_only_finished_runs_past_retention_with_all_they_hold(
    store: RunStore, backend: str, tmp_path: Path
) -> None:
    statuses = ("succeeded", "failed", "cancelled", "interrupted")
    ids = {status: f"{n:032x}" for n, status in enumerate(statuses)}

    async def work() -> None:
        ends: dict[str, float] = {}
        for status, run_id in ids.items():
            await store.create(run_id, "crawl", {}, None, "")
            await store.log(run_id, "info", "a line")
            await store.seed(run_id, 0, "http://site.test/")
            await store.record_visits(run_id, 0, [visit(0)])
            result = "{}" if status == "succeeded" else None
            finished = await store.finish(run_id, status, result=result)
            assert finished.finished_at is not None
            ends[status] = finished.finished_at
            time.sleep(0.002)
        await store.create(RUN, "crawl", {}, None, "")  # queued
        await store.create(OTHER, "crawl", {}, None, "")
        await store.claim(OTHER)  # running
        old = ends["succeeded"]
        assert old < ends["failed"]
        assert await store.prune(old) == 0  # finished before ``older_than``, not at it
        assert await store.prune((old + ends["failed"]) / 2) == 1
        assert await store.get(ids["succeeded"]) is None
        assert await store.get(ids["failed"]) is not None
        assert await store.prune(time.time() + 3600) == 3
        left, total = await store.list_runs(statuses=[], tools=[], offset=0, limit=10)
        assert total == 2 and {r.id for r in left} == {RUN, OTHER}  # active runs are never pruned

    run(work)
    for table in ("run_log", "run_frontier", "run_items"):
        assert rows_in(backend, tmp_path, table) == 0, table
