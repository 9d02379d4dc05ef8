"""Project runs across processes (issue 17: "kill -9 during a project run: restart, resume, rows
exactly once"): a `netglean serve` killed (-9) in the middle of a project's run leaves the run
interrupted; the server restarted on the same data directory resumes it — the run itself
(resume_run), or a new run from its checkpoint (run_project with resume) — to exactly the rows the
site holds, each once, counted once, and no page read twice but those in flight at the kill.

The servers are child processes spoken to over REST; the sites run in this process and count every
request: an extract project reads 500 listing pages of three rows each (its start URLs one
``{page}`` variable's values), a crawl project the 800-page tree of tests/support/run_site.py. A
crawl project's run started from an interrupted one is killed too, and resumed itself on a third
server: what it counts takes in the pages of both."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from netglean.scraping.crawl import JOURNAL_BACKLOG
from tests.support.fixture_site import serve as serve_site
from tests.support.httpserver import HttpServer
from tests.support.polling import until
from tests.support.run_site import RunSite, serve_run_site

LISTINGS = 500
"""Pages the extract project reads (its start URLs, one ``{page}`` value each)."""
ROWS_PER_PAGE = 3
WIDTH = 8
"""Pages a crawl reads at once (the servers' global_concurrency)."""
CRAWL_IN_FLIGHT = WIDTH + 2 * JOURNAL_BACKLOG
"""What a kill can make a resumed crawl read again: the pages being read, and those read but not yet
in its journal (a crawl may be JOURNAL_BACKLOG visits ahead of it, and one write keeps as many)."""
EXTRACT_IN_FLIGHT = 1
"""An extract project reads its start URLs one after another: at most one is in flight at a kill."""
KILL_AFTER = 150
"""Pages whose rows are committed before the server is killed (the run is then in its middle)."""
BOUND = 180.0
"""Seconds a run may take before the test fails (it takes seconds)."""
DATASET = "rows"
TREE = 800
"""Pages of the site the crawl project reads (/tree/800/: page n links to 2n+1 and 2n+2)."""


class ListingSite:
    """``/list/{n}``: three rows keyed ``{n}-0`` .. ``{n}-2``, each with its value; every request
    counted by path."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.app = Starlette(routes=[Route("/list/{n:int}", self.listing)])

    def asked(self) -> Counter[str]:
        with self._lock:
            return Counter(self.requests)

    async def listing(self, request: Request) -> Response:
        with self._lock:
            self.requests[request.url.path] += 1
        n = request.path_params["n"]
        items = "".join(
            f'<li class="row" data-key="{n}-{i}"><b class="value">{n * ROWS_PER_PAGE + i}</b></li>'
            for i in range(ROWS_PER_PAGE)
        )
        return HTMLResponse(
            f"<html><head><title>Listing {n}</title></head><body><ul>{items}</ul></body></html>"
        )


EXTRACT = {
    "start_urls": ["{origin}/list/{page}"],
    "strategy": "http",
    "datasets": [
        {
            "name": DATASET,
            "item_selector": "li.row",
            "key": "key",
            "properties": [
                {"key": "key", "type": "attribute", "attribute": "data-key"},
                {"key": "value", "type": "number", "selector": ".value"},
            ],
        }
    ],
}
EXPECTED_ROWS = {
    f"{n}-{i}": n * ROWS_PER_PAGE + i for n in range(LISTINGS) for i in range(ROWS_PER_PAGE)
}


def serve(data_dir: Path) -> HttpServer:
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
    )


def call(server: HttpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.post(
        f"{server.base}/v1/tools/{tool}", json=arguments, timeout=60
    ).json()
    return answer


def ok(server: HttpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = call(server, tool, arguments)
    assert answer["ok"], answer
    payload: dict[str, Any] = answer["payload"]
    return payload


def run_of(server: HttpServer, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = ok(server, "get_run_status", {"run_id": run_id})["run"]
    return run


def ended(server: HttpServer, run_id: str) -> dict[str, Any]:
    """The run once it has ended."""
    until(
        lambda: run_of(server, run_id)["status"] not in ("queued", "running"),
        f"run {run_id} to end",
        BOUND,
    )
    return run_of(server, run_id)


def started(server: HttpServer, project_id: str, **arguments: Any) -> str:
    answer = call(server, "run_project", {"project_id": project_id, "wait": False, **arguments})
    assert answer["ok"] and answer["next_step"] == "get_run_status", answer
    run_id: str = answer["payload"]["run"]["run_id"]
    return run_id


def result_of(server: HttpServer, run_id: str) -> dict[str, Any]:
    """What the run answered (run_project's payload), and each of its visits, paged through
    get_run_result."""
    visits: list[dict[str, Any]] = []
    page, result = 1, None
    while True:
        payload = ok(server, "get_run_result", {"run_id": run_id, "page": page, "per_page": 200})
        result = payload.get("result", result)
        visits += [item["item"] for item in payload["items"]]
        if not payload["has_more"]:
            assert result is not None, payload
            return {**result, "visits": visits}
        page += 1


def rows_of(server: HttpServer, project_id: str, dataset: str) -> list[dict[str, Any]]:
    """Every row of the dataset, paged through get_project_data."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        payload = ok(
            server,
            "get_project_data",
            {
                "project_id": project_id,
                "dataset": dataset,
                "sort": "key",
                "page": page,
                "per_page": 200,
            },
        )
        found += payload["rows"]
        if not payload["has_more"]:
            assert len(found) == payload["total"], payload
            return found
        page += 1


def rows_kept(server: HttpServer, project_id: str, dataset: str) -> int:
    datasets = ok(server, "list_datasets", {"project_id": project_id})["datasets"]
    return int(next(d["rows"] for d in datasets if d["name"] == dataset))


def killed(server: HttpServer) -> None:
    # -9: no shutdown, no interrupt_own; the run's owner lock goes with the process
    server.process.kill()
    server.process.wait(30)


def saved(server: HttpServer, arguments: dict[str, Any]) -> str:
    project_id: str = ok(server, "save_project", arguments)["project"]["project_id"]
    return project_id


def killed_in_the_middle(
    data_dir: Path, arguments: dict[str, Any], dataset: str, rows: int
) -> tuple[str, str]:
    """A project saved and run on a server killed once ``rows`` of its rows are kept: (project id,
    run id)."""
    first = serve(data_dir)
    try:
        project_id = saved(first, arguments)
        run_id = started(first, project_id)
        until(lambda: rows_kept(first, project_id, dataset) >= rows, f"{rows} rows kept", BOUND)
    finally:
        killed(first)
    return project_id, run_id


def interrupted(server: HttpServer, run_id: str) -> None:
    run = run_of(server, run_id)
    assert run["status"] == "interrupted" and run["resumable"] and run["attempts"] == 1, run


def summed(counts: Iterable[list[int]]) -> list[int]:
    """Visits' counts (new, updated, unchanged) added up."""
    total = [0, 0, 0]
    for each in counts:
        total = [kept + more for kept, more in zip(total, each, strict=True)]
    return total


def read_again(
    asked: Counter[str], before: Counter[str], pages: set[str], in_flight: int, kills: int = 1
) -> dict[str, int]:
    """Every page asked for; those asked more than once (no more than ``in_flight`` a kill, each
    asked before the last kill): them."""
    assert set(asked) == pages
    again = {path: count for path, count in asked.items() if count > 1}
    assert sum(asked.values()) - len(pages) <= in_flight * kills, again
    assert all(count <= 1 + kills for count in again.values()), again
    assert set(again) <= set(before)  # only pages a killed server had asked for were asked again
    return again


def resumed(server: HttpServer, project_id: str, run_id: str, how: str) -> str:
    """The interrupted run resumed (``how``: resume_run, or a run_project with resume): the run that
    goes on."""
    interrupted(server, run_id)
    if how == "resume_run":
        answer = call(server, "resume_run", {"run_id": run_id})
        assert answer["ok"] and answer["payload"]["run"]["status"] in ("queued", "running"), answer
        return run_id
    return started(server, project_id, resume=True)


def succeeded(server: HttpServer, run_id: str, attempts: int) -> dict[str, Any]:
    """The run ended well after ``attempts`` attempts: what it answered, with its visits."""
    run = ended(server, run_id)
    assert run["status"] == "succeeded" and run["attempts"] == attempts, run
    return result_of(server, run_id)


@pytest.fixture(scope="module")
def listings() -> Iterator[tuple[ListingSite, str]]:
    site = ListingSite()
    with serve_site(app=site.app) as port:
        yield site, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def crawl_site() -> Iterator[tuple[RunSite, str]]:
    with serve_run_site() as (site, port):
        yield site, f"http://127.0.0.1:{port}"


def extract_project(name: str, origin: str) -> dict[str, Any]:
    return {
        "name": name,
        "definition": EXTRACT,
        "variables": {"origin": origin, "page": [str(n) for n in range(LISTINGS)]},
    }


def assert_every_row_once(server: HttpServer, project_id: str, result: dict[str, Any]) -> None:
    """The dataset holds each of the site's rows once; the run read every page once and counted each
    row once."""
    rows = rows_of(server, project_id, DATASET)
    assert (
        len(rows) == len(EXPECTED_ROWS)
        and {row["key"]: row["data"]["value"] for row in rows} == EXPECTED_ROWS
    )
    assert rows_kept(server, project_id, DATASET) == len(EXPECTED_ROWS)
    assert result["pages_read"] == LISTINGS and result["pages_failed"] == 0, result
    assert result["datasets"] == {
        DATASET: {"new": len(EXPECTED_ROWS), "updated": 0, "unchanged": 0}
    }
    urls = [visit["url"] for visit in result["visits"]]
    assert len(urls) == LISTINGS and len(set(urls)) == LISTINGS
    assert summed(visit["datasets"][DATASET] for visit in result["visits"]) == [
        len(EXPECTED_ROWS),
        0,
        0,
    ]


@pytest.mark.parametrize("how", ["resume_run", "run_project resume"])
def test_an_extract_project_killed_in_its_middle_resumes_to_every_row_once(
    listings: tuple[ListingSite, str], tmp_path: Path, how: str
) -> None:
    site, origin = listings
    asked_earlier = site.asked()  # the other variant's requests: this one's are counted apart
    project_id, run_id = killed_in_the_middle(
        tmp_path, extract_project(f"listings ({how})", origin), DATASET, KILL_AFTER * ROWS_PER_PAGE
    )
    before = site.asked() - asked_earlier
    assert KILL_AFTER <= before.total() < LISTINGS, "the run was killed in its middle"

    with serve(tmp_path) as second:
        assert (
            KILL_AFTER * ROWS_PER_PAGE
            <= rows_kept(second, project_id, DATASET)
            < len(EXPECTED_ROWS)
        )
        going_on = resumed(second, project_id, run_id, how)
        if how == "resume_run":
            result = succeeded(second, run_id, attempts=2)
        else:
            assert going_on != run_id
            result = succeeded(second, going_on, attempts=1)
            assert result["started_from"] == run_id
            # the run it started from is left as it was
            assert run_of(second, run_id)["status"] == "interrupted"
        assert_every_row_once(second, project_id, result)
    asked = site.asked() - asked_earlier
    read_again(asked, before, {f"/list/{n}" for n in range(LISTINGS)}, EXTRACT_IN_FLIGHT)


@pytest.mark.parametrize("how", ["resume_run", "run_project resume"])
def test_a_crawl_project_killed_in_its_middle_resumes_to_every_page_once(
    crawl_site: tuple[RunSite, str], tmp_path: Path, how: str
) -> None:
    site, origin = crawl_site
    asked_earlier = site.asked("/tree/")
    arguments = {
        "name": f"the site ({how})",
        "definition": {
            "url": "{origin}/tree/{size}/0",
            "max_pages": TREE,
            "max_depth": 20,
            "strategy": "http",
        },
        "variables": {"origin": origin, "size": str(TREE)},
    }
    project_id, run_id = killed_in_the_middle(tmp_path, arguments, "pages", KILL_AFTER)
    before = site.asked("/tree/") - asked_earlier
    assert KILL_AFTER <= before.total() < TREE, "the crawl was killed in its middle"

    kills = 1
    if how == "resume_run":
        with serve(tmp_path) as second:
            resumed(second, project_id, run_id, how)
            result = succeeded(second, run_id, attempts=2)
            rows = rows_of(second, project_id, "pages")
    else:
        # The run started from the interrupted one is killed in its own middle, then resumed itself:
        # it holds the pages of both, and counts them all.
        second = serve(tmp_path)
        try:
            going_on = resumed(second, project_id, run_id, how)
            assert going_on != run_id
            until(
                lambda: rows_kept(second, project_id, "pages") >= 3 * KILL_AFTER,
                "more pages kept",
                BOUND,
            )
        finally:
            killed(second)
        kills += 1
        before = site.asked("/tree/") - asked_earlier
        assert before.total() < TREE, "the second crawl was killed in its middle"
        with serve(tmp_path) as third:
            # the run it started from is left as it was
            assert run_of(third, run_id)["status"] == "interrupted"
            resumed(third, project_id, going_on, "resume_run")
            result = succeeded(third, going_on, attempts=2)
            rows = rows_of(third, project_id, "pages")
    pages = {f"{origin}/tree/{TREE}/{n}" for n in range(TREE)}
    assert len(rows) == TREE and {row["data"]["url"] for row in rows} == pages
    assert {row["key"] for row in rows} == pages
    assert result["pages_read"] == TREE and result["pages_failed"] == 0, result
    assert result["datasets"] == {"pages": {"new": TREE, "updated": 0, "unchanged": 0}}, result[
        "datasets"
    ]
    read = [visit for visit in result["visits"] if visit.get("page")]
    assert len(read) == TREE and {visit["url"] for visit in read} == pages
    assert summed(visit["datasets"]["pages"] for visit in read) == [TREE, 0, 0]
    asked = site.asked("/tree/") - asked_earlier
    read_again(asked, before, {f"/tree/{TREE}/{n}" for n in range(TREE)}, CRAWL_IN_FLIGHT, kills)
