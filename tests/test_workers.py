"""Runs handed to `netglean worker` processes (run_workers on): the workers share the queued runs
and work each once, 1,000 runs queued at once by 50 clients are each worked once, a crawl whose
worker was killed (-9), or stopped, or whose database restarted under it, is finished with every
page in its result once, a due project starts once across two workers, and a run is cancelled from
the server whether queued or running.

Every process is a child (a `netglean serve` that hands runs over, `netglean worker`s) on one
PostgreSQL store (the test's own schema of the throwaway cluster); the sites run in this process
and count every request."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import anyio
import pytest

from netglean.app import build_runner
from netglean.calls.context import Services
from netglean.calls.registry import load_registry
from netglean.calls.runs import JOINS, RunScope, register_join
from netglean.cli.main import main
from netglean.core.settings import Settings
from netglean.queue.jobs import TEND_SECONDS
from netglean.serve.worker import WorkerFleet
from netglean.store.base import Run
from tests.support.paths import PROJECT
from tests.support.polling import until
from tests.support.run_site import SITE_PAGES, RunSite, serve_run_site
from tests.support.stores import postgresql_url
from tests.support.workers import (
    WorkerProcess,
    call,
    dispatching_server,
    fleet_env,
    items,
    query,
    run_of,
    start,
)

WIDTH = 8
BOUND = 300.0
"""Seconds a test's runs may take before it fails (they take seconds; recovery waits for the
fleet's next tend, every few seconds)."""
POLICY = (
    "--allow-private-hosts",
    "--host-interval",
    "0",
    "--session-budget",
    "100000000",
    "--global-concurrency",
    str(WIDTH),
)
"""The operator's policy, on the server and each worker alike: the workers' is the one that
holds."""
SLOW = pytest.mark.timeout(900)
"""Several child processes each (each starts in seconds on a busy machine), and a run's recovery."""


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[RunSite, int]]:
    with serve_run_site() as site_and_port:
        yield site_and_port


@pytest.fixture
def store(tmp_path: Path) -> str:
    return postgresql_url(tmp_path, fresh=True)


def worker(store: str, *flags: str) -> WorkerProcess:
    return WorkerProcess(*POLICY, *flags, env=fleet_env(store))


def finished(store: str, count: int) -> bool:
    """Whether ``count`` runs have ended for good (an interrupted one is the fleet's to resume)."""
    rows = query(store, "SELECT count(*) FROM runs WHERE status IN ('succeeded', 'failed')")
    return int(rows[0][0]) >= count


def test_handing_runs_to_workers_needs_a_postgresql_store(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], store: str
) -> None:
    monkeypatch.delenv("NETGLEAN_STORE", raising=False)
    monkeypatch.delenv("NETGLEAN_RUN_WORKERS", raising=False)
    assert main(["serve", "--run-workers"]) == 2
    said = capsys.readouterr().err
    assert "--run-workers (NETGLEAN_RUN_WORKERS)" in said and "--store postgresql://" in said
    monkeypatch.setenv("NETGLEAN_RUN_WORKERS", "1")
    assert main(["mcp"]) == 2
    assert "--store postgresql://" in capsys.readouterr().err
    monkeypatch.delenv("NETGLEAN_RUN_WORKERS")
    assert main(["worker"]) == 2
    assert "netglean worker takes runs from the job queue" in capsys.readouterr().err
    assert main(["worker", "--store", store, "--concurrency", "0"]) == 2
    assert "--concurrency: 0 is below the minimum 1" in capsys.readouterr().err
    assert main(["worker", "--store", "postgresql://nobody@127.0.0.1:1/none"]) == 2
    assert "cannot open the PostgreSQL run store" in capsys.readouterr().err


@SLOW
def test_two_workers_share_the_queued_runs_and_work_each_once(
    served: tuple[RunSite, int], store: str
) -> None:
    site, port = served
    site.requests.clear()
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        for _ in range(2):
            stack.enter_context(worker(store, "--concurrency", "2"))
        runs = [
            start(server, "crawl", {"url": f"http://127.0.0.1:{port}/tree/{100 + n}/0"})
            for n in range(20)
        ]
        until(lambda: finished(store, len(runs)), "every run to end", BOUND)
        ended = [run_of(server, run_id) for run_id in runs]
    assert all(r["status"] == "succeeded" and r["attempts"] == 1 for r in ended), ended
    # each tree /tree/SIZE/... is one run's: a page asked twice would be a run worked twice
    asked = site.asked("/tree/")
    assert sum(asked.values()) == sum(r["done"] for r in ended) and set(asked.values()) == {1}
    assert {path.split("/")[2] for path in asked} == {str(100 + n) for n in range(20)}
    owners = query(store, "SELECT count(DISTINCT owner) FROM runs")
    assert owners == [(2,)], "both workers took runs"


@SLOW
def test_a_thousand_runs_queued_at_once_by_fifty_clients_are_each_worked_once(
    served: tuple[RunSite, int], store: str
) -> None:
    site, port = served
    site.requests.clear()
    limits = ("--max-client-calls", "100", "--max-concurrent-calls", "64")
    with ExitStack() as stack, ThreadPoolExecutor(50) as clients:
        server = stack.enter_context(dispatching_server(store, *POLICY, *limits))
        for _ in range(2):
            stack.enter_context(worker(store, "--concurrency", "8"))

        def queue(n: int) -> str:
            url = f"http://127.0.0.1:{port}/tree/{10_000 + n}/0"
            return start(server, "crawl", {"url": url, "max_pages": 1})

        runs = list(clients.map(queue, range(1000)))
        until(lambda: finished(store, 1000), "the thousand runs to end", BOUND * 2)
    assert len(set(runs)) == 1000
    rows = query(store, "SELECT status, attempts, done, count(*) FROM runs GROUP BY 1, 2, 3")
    assert rows == [("succeeded", 1, 1, 1000)]
    asked = site.asked("/tree/")
    assert len(asked) == 1000 and set(asked.values()) == {1}


def _crawl_of_the_site(server_port: int) -> dict[str, object]:
    return {"url": f"http://127.0.0.1:{server_port}/p/0", "max_pages": SITE_PAGES, "max_depth": 10}


def _every_page_once(
    site: RunSite, store: str, run: dict[str, object], urls: list[str], recorded: list[str]
) -> None:
    """The crawl ended with every page of the site in its result once; the pages it had recorded
    when its worker stopped (``recorded``) were not read again, and none more than twice (those in
    flight at the stop); no run is left running."""
    origin = urls[0].rsplit("/p/", 1)[0]
    assert run["status"] == "succeeded" and run["done"] == SITE_PAGES, run
    assert len(urls) == SITE_PAGES and set(urls) == {f"{origin}/p/{n}" for n in range(SITE_PAGES)}
    asked = site.asked("/p/")
    assert set(asked) == {f"/p/{n}" for n in range(SITE_PAGES)} and set(asked.values()) <= {1, 2}
    assert recorded and all(asked[url.removeprefix(origin)] == 1 for url in recorded)
    assert query(store, "SELECT count(*) FROM runs WHERE status = 'running'") == [(0,)]


@SLOW
def test_a_crawl_whose_worker_was_killed_is_finished_by_the_fleet(
    served: tuple[RunSite, int], store: str
) -> None:
    site, port = served
    site.requests.clear()
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        first = stack.enter_context(worker(store))
        run_id = start(server, "crawl", _crawl_of_the_site(port))
        until(lambda: run_of(server, run_id)["done"] >= 300, "300 pages read", BOUND)
        stack.enter_context(worker(store))
        first.kill()
        recorded = [visit["url"] for visit in items(server, run_id)]
        assert len(recorded) < SITE_PAGES, "the worker was killed in the crawl's middle"
        stack.enter_context(worker(store))  # the killed one, started again
        until(lambda: run_of(server, run_id)["status"] != "running", "the run not to be running")
        until(lambda: finished(store, 1), "the resumed crawl to end", BOUND)
        run = run_of(server, run_id)
        urls = [visit["url"] for visit in items(server, run_id)]
    assert run["attempts"] >= 2, run
    _every_page_once(site, store, run, urls, recorded)


@SLOW
def test_a_crawl_spread_over_two_workers_reads_each_page_once(
    served: tuple[RunSite, int], store: str
) -> None:
    """--crawl-workers 2: the worker that takes the crawl asks one more to join it, and the two
    read the run's frontier in the store; each page is read and kept once."""
    site, port = served
    site.requests.clear()
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        for _ in range(2):
            stack.enter_context(worker(store, "--crawl-workers", "2"))
        run_id = start(server, "crawl", _crawl_of_the_site(port))
        until(lambda: finished(store, 1), "the crawl to end", BOUND)
        run = run_of(server, run_id)
        urls = [visit["url"] for visit in items(server, run_id)]
        joined = query(
            store,
            "SELECT message FROM run_log WHERE run_id = %s AND message LIKE %s",
            (run_id, "a worker that joined the crawl read %"),
        )
    assert run["status"] == "succeeded" and run["done"] == SITE_PAGES, run
    assert len(urls) == SITE_PAGES == len(set(urls))
    asked = site.asked("/p/")
    assert set(asked) == {f"/p/{n}" for n in range(SITE_PAGES)} and set(asked.values()) == {1}
    assert len(joined) == 1, "the second worker joined the crawl"


@SLOW
def test_a_worker_stopped_by_sigterm_leaves_its_run_to_the_next(
    served: tuple[RunSite, int], store: str
) -> None:
    site, port = served
    site.requests.clear()
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        first = stack.enter_context(worker(store))
        run_id = start(server, "crawl", _crawl_of_the_site(port))
        until(lambda: run_of(server, run_id)["done"] >= 300, "300 pages read", BOUND)
        assert first.stop() == 0
        left = run_of(server, run_id)
        assert left["status"] in ("queued", "interrupted") and left["done"] < SITE_PAGES, left
        recorded = [visit["url"] for visit in items(server, run_id)]
        stack.enter_context(worker(store))
        until(lambda: finished(store, 1), "the resumed crawl to end", BOUND)
        run = run_of(server, run_id)
        urls = [visit["url"] for visit in items(server, run_id)]
    _every_page_once(site, store, run, urls, recorded)


@pytest.fixture
def own_cluster() -> Iterator[tuple[str, Path, int]]:
    """A PostgreSQL cluster of this test's own (its URL, folder and port), to stop and start."""
    script = PROJECT / "dev" / "postgresql"
    folder = Path(tempfile.mkdtemp(prefix="netglean-test-restart-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = subprocess.run(
        [str(script), "start", str(folder), str(port)], capture_output=True, text=True, check=True
    )
    try:
        yield started.stdout.strip(), folder, port
    finally:
        subprocess.run([str(script), "stop", str(folder)], capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


@SLOW
def test_workers_go_on_after_the_database_restarts_in_a_run(
    served: tuple[RunSite, int], own_cluster: tuple[str, Path, int]
) -> None:
    site, port = served
    site.requests.clear()
    store, folder, pg_port = own_cluster
    script = str(PROJECT / "dev" / "postgresql")
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        stack.enter_context(worker(store))
        run_id = start(server, "crawl", _crawl_of_the_site(port))
        until(lambda: run_of(server, run_id)["done"] >= 300, "300 pages read", BOUND)
        recorded = [visit["url"] for visit in items(server, run_id)]  # at least these
        subprocess.run([script, "stop", str(folder)], check=True)
        assert sum(site.asked("/p/").values()) < SITE_PAGES, "the database stopped mid-crawl"
        subprocess.run([script, "start", str(folder), str(pg_port)], check=True)
        until(lambda: finished(store, 1), "the crawl to end after the restart", BOUND)
        run = run_of(server, run_id)
        urls = [visit["url"] for visit in items(server, run_id)]
    _every_page_once(site, store, run, urls, recorded)


@SLOW
def test_a_due_project_starts_once_across_two_workers(
    served: tuple[RunSite, int], store: str
) -> None:
    _, port = served
    with ExitStack() as stack:
        server = stack.enter_context(dispatching_server(store, *POLICY))
        for _ in range(2):
            stack.enter_context(worker(store))
        definition = {"url": f"http://127.0.0.1:{port}/tree/3/0", "max_pages": 3}
        saved = call(
            server, "save_project", {"name": "nightly", "definition": definition, "schedule": "1h"}
        )
        assert saved["ok"], saved
        until(lambda: finished(store, 1), "the due project's run to end", BOUND)
        latest = "SELECT max(defer_timestamp) FROM procrastinate_periodic_defers"
        first = query(store, latest)[0][0]
        # several more ticks of the fleet's tend, each taken by one worker or the other
        until(lambda: query(store, latest)[0][0] >= first + 3 * TEND_SECONDS, "3 more ticks", BOUND)
    assert query(store, "SELECT tool, status FROM runs") == [("run_project", "succeeded")]


@SLOW
def test_a_run_is_cancelled_from_the_server_queued_or_running(
    served: tuple[RunSite, int], store: str
) -> None:
    site, port = served
    with dispatching_server(store, *POLICY) as server:
        queued = start(server, "crawl", {"url": f"http://127.0.0.1:{port}/tree/5/0"})
        assert run_of(server, queued)["status"] == "queued"  # no worker yet
        answer = call(server, "cancel_run", {"run_id": queued})
        assert answer["ok"] and answer["payload"]["run"]["status"] == "cancelled", answer
        site.gate.shut()
        with worker(store):
            gated = start(server, "crawl", {"url": f"http://127.0.0.1:{port}/gated/50/0"})
            until(lambda: run_of(server, gated)["status"] == "running", "the gated crawl to run")
            call(server, "cancel_run", {"run_id": gated})
            until(
                lambda: run_of(server, gated)["status"] == "cancelled", "the crawl to be cancelled"
            )
            site.gate.open()
            resumed = call(server, "resume_run", {"run_id": gated})
            assert resumed["ok"], resumed
            until(lambda: run_of(server, gated)["status"] == "succeeded", "the resumed crawl's end")
            log = call(server, "get_run_log", {"run_id": gated})
        assert [line["message"] for line in log["payload"]["lines"]][-1] == "crawl succeeded"
        assert any("started (attempt 2)" in line["message"] for line in log["payload"]["lines"])
    assert site.asked("/tree/5/") == {}  # the queued run was never worked


def test_a_running_run_asks_for_workers_and_they_join_it_through_its_tool(
    served: tuple[RunSite, int], store: str
) -> None:
    """The seam a shared crawl frontier plugs into: Runs.ask_help defers netglean.join_run jobs,
    and a worker takes each to the join function registered for the run's tool (in this process:
    the worker loop runs in it)."""
    site, port = served
    site.gate.shut()
    settings = Settings.load(
        {"store": store, "run_workers": True, "allow_private_hosts": True, "read_workers": 1}
    )
    runner = build_runner(load_registry(settings.registry), settings)
    runs = runner.services.runs
    joined: list[tuple[str, str]] = []

    async def join(run: Run, scope: RunScope, services: Services) -> None:
        joined.append((run.id, run.status))

    async def scenario() -> None:
        async with runs.hosting(), anyio.create_task_group() as tasks:
            stopping = anyio.Event()
            tasks.start_soon(runs.queue.work, WorkerFleet(runner), 2, stopping)
            url = f"http://127.0.0.1:{port}/gated/30/0"
            envelope, _ = await runner.call("crawl", {"url": url, "wait": False})
            assert envelope.ok, envelope.payload
            run_id = envelope.payload["run"]["run_id"]
            while (await runs.get(run_id)).status != "running":
                await anyio.sleep(0.05)
            assert await runs.ask_help(run_id, 3) == 3
            while len(joined) < 3:
                await anyio.sleep(0.05)
            await runs.cancel(run_id, force=True)
            stopping.set()
        assert joined == [(run_id, "running")] * 3

    register_join("crawl", join)
    try:
        anyio.run(scenario)
    finally:
        JOINS.pop("crawl")
        anyio.run(runner.services.aclose)
        site.gate.open()


@SLOW
def test_a_run_written_queued_without_its_job_is_worked_all_the_same(
    served: tuple[RunSite, int], store: str
) -> None:
    """A server that dies between the run's row and its job (the two are not one transaction):
    the fleet's tend finds the run queued with no job waiting and queues one."""
    from netglean.store.postgresql import PostgresStore

    _, port = served
    writer = PostgresStore.open(store)  # its owner lock held: the run is not an orphan's
    try:
        url = f"http://127.0.0.1:{port}/tree/4/0"
        anyio.run(writer.create, "c" * 32, "crawl", {"url": url}, None, "a session")
        query(store, "UPDATE runs SET updated_at = updated_at - %s RETURNING id", (60.0,))
        with worker(store):
            until(lambda: finished(store, 1), "the run without a job to be worked", BOUND)
        assert query(store, "SELECT status, attempts, done FROM runs") == [("succeeded", 1, 4)]
    finally:
        writer.close()
