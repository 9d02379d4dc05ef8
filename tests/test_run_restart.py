"""Runs across processes: a `netglean serve` killed (-9) in the middle of a 2,000-page crawl leaves
the run interrupted, and the restarted server resumes it to exactly the site's pages, none read
twice but those in flight at the kill; two servers on one data directory write runs at once and each
sees every run of both.

The servers are child processes spoken to over REST; the site (tests/support/run_site.py) runs in
this process and counts every request."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from netglean.scraping.crawl import JOURNAL_BACKLOG
from tests.support.httpserver import HttpServer
from tests.support.polling import until
from tests.support.run_site import SITE_PAGES, RunSite, serve_run_site

WIDTH = 8
"""Pages a crawl reads at once (the servers' global_concurrency)."""
READ_AGAIN = WIDTH + 2 * JOURNAL_BACKLOG
"""The most pages a kill can make the resumed crawl read again: those being read, and those read but
not yet in the journal (the crawl may be JOURNAL_BACKLOG visits ahead of its writer, and one write
keeps as many)."""
BOUND = 180.0
"""Seconds a crawl of the 2,000-page site may take before the test fails (it takes seconds)."""


def serve(data_dir: Path, *flags: str) -> HttpServer:
    return HttpServer(
        "--data-dir",
        str(data_dir),
        "--allow-private-hosts",
        "--host-interval",
        "0",
        "--session-budget",
        "100000000",
        "--global-concurrency",
        str(WIDTH),
        *flags,
    )


def call(server: HttpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.post(
        f"{server.base}/v1/tools/{tool}", json=arguments, timeout=60
    ).json()
    return answer


def run_of(server: HttpServer, run_id: str) -> dict[str, Any]:
    answer = call(server, "get_run_status", {"run_id": run_id})
    assert answer["ok"], answer
    run: dict[str, Any] = answer["payload"]["run"]
    return run


def start(server: HttpServer, tool: str, arguments: dict[str, Any]) -> str:
    answer = call(server, tool, {**arguments, "wait": False})
    assert answer["ok"] and answer["next_step"] == "get_run_status", answer
    run_id: str = answer["payload"]["run"]["run_id"]
    return run_id


def items(server: HttpServer, run_id: str) -> list[dict[str, Any]]:
    """Every stored visit of a run, paged through get_run_result."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = call(server, "get_run_result", {"run_id": run_id, "page": page, "per_page": 200})
        assert answer["ok"], answer
        found += [item["item"] for item in answer["payload"]["items"]]
        if not answer["payload"]["has_more"]:
            return found
        page += 1


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[RunSite, int]]:
    with serve_run_site() as site_and_port:
        yield site_and_port


def test_a_crawl_whose_server_was_killed_resumes_to_every_page_once(
    served: tuple[RunSite, int], tmp_path: Path
) -> None:
    site, port = served
    origin = f"http://127.0.0.1:{port}"
    crawl = {"url": f"{origin}/p/0", "max_pages": SITE_PAGES, "max_depth": 10}
    first = serve(tmp_path)
    try:
        run_id = start(first, "crawl", crawl)
        until(lambda: run_of(first, run_id)["done"] >= 300, "300 pages read", BOUND)
    finally:
        # -9: no shutdown, no interrupt_own; the run's owner lock goes with the process
        first.process.kill()
        first.process.wait(30)
    before = site.asked("/p/")
    assert 300 <= sum(before.values()) < SITE_PAGES, "the crawl was killed in its middle"

    with serve(tmp_path) as second:
        run = run_of(second, run_id)
        assert run["status"] == "interrupted" and run["resumable"] and run["attempts"] == 1, run
        resumed = call(second, "resume_run", {"run_id": run_id})
        assert resumed["ok"] and resumed["payload"]["run"]["status"] in ("queued", "running"), (
            resumed
        )
        until(
            lambda: run_of(second, run_id)["status"] not in ("queued", "running"),
            "the resumed crawl to end",
            BOUND,
        )
        run = run_of(second, run_id)
        assert (
            run["status"] == "succeeded" and run["attempts"] == 2 and run["done"] == SITE_PAGES
        ), run
        urls = [visit["url"] for visit in items(second, run_id)]
    assert len(urls) == SITE_PAGES and set(urls) == {f"{origin}/p/{n}" for n in range(SITE_PAGES)}
    asked = site.asked("/p/")
    assert set(asked) == {f"/p/{n}" for n in range(SITE_PAGES)}
    again = {path: count for path, count in asked.items() if count > 1}
    assert sum(asked.values()) - SITE_PAGES <= READ_AGAIN and all(
        count == 2 for count in again.values()
    ), again
    assert set(again) <= set(before)  # only pages the killed server had asked for were asked again


def test_two_servers_on_one_data_directory_keep_every_run_of_both(
    served: tuple[RunSite, int], tmp_path: Path
) -> None:
    site, port = served
    origin = f"http://127.0.0.1:{port}"
    with ExitStack() as stack, ThreadPoolExecutor(8) as pool:
        one, two = (stack.enter_context(server) for server in pool.map(serve, [tmp_path, tmp_path]))
        sizes = {one: [31, 32, 33, 34], two: [35, 36, 37, 38]}
        arguments = [
            (server, {"url": f"{origin}/tree/{size}/0", "max_depth": 10, "max_pages": 100})
            for server, chosen in sizes.items()
            for size in chosen
        ]
        runs = list(pool.map(lambda job: start(job[0], "crawl", job[1]), arguments))
        batch = start(
            two,
            "batch_crawl",
            {"urls": [f"{origin}/tree/{n}/0" for n in (39, 40)], "max_depth": 10, "max_pages": 100},
        )

        def listed(server: HttpServer) -> dict[str, str]:
            answer = call(server, "list_runs", {"per_page": 200})
            return {run["run_id"]: run["status"] for run in answer["payload"]["runs"]}

        def all_finished() -> bool:
            return all(status not in ("queued", "running") for status in listed(one).values())

        until(all_finished, "every run of both servers to end", BOUND)
        assert listed(one) == listed(two) == dict.fromkeys([*runs, batch], "succeeded")
        for (server, job), run_id in zip(arguments, runs, strict=True):
            other = two if server is one else one
            size = int(job["url"].split("/")[-2])
            # read through the server that did not run it
            urls = [visit["url"] for visit in items(other, run_id)]
            assert sorted(urls) == sorted(f"{origin}/tree/{size}/{n}" for n in range(size))
        assert len(items(one, batch)) == 39 + 40
        counts = call(two, "list_runs", {"tool": ["crawl"], "status": ["succeeded"]})["payload"][
            "total"
        ]
        assert counts == len(runs)
    assert all(count == 1 for count in site.asked("/tree/").values())
