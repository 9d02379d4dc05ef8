"""Shared fixtures: the real registry, and real MCP clients (in-memory and spawned stdio), under the
tests' policy and, for the contract fuzzer, under a policy that reaches the fuzz site on
127.0.0.1."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mcp import StdioServerParameters
from mcp.client._memory import InMemoryTransport

from netglean.app import build_runner
from netglean.calls.registry import Registry, load_registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from netglean.serve.versions import supported_versions
from tests.support.clients import SyncClient, open_client
from tests.support.environment import BROWSER_FUZZ_ENVIRONMENT, FUZZ_ENVIRONMENT, TEST_ENVIRONMENT
from tests.support.paths import PROJECT
from tests.support.seed import SEED

if TYPE_CHECKING:
    from tests.support.fuzz_site import World

os.environ.update(TEST_ENVIRONMENT)  # see tests.support.environment

NO_CHROMIUM = "netglean-tests-run-no-browser-test"
"""The browser path of a session that runs no test marked browser: no such program."""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """What runs, in what order, and with what: see _covered_by_full_depth, _longest_first and
    _no_chromium."""
    covered = _covered_by_full_depth(items)
    if covered:
        config.hook.pytest_deselected(items=covered)
        items[:] = [item for item in items if item not in covered]
    items.sort(key=_longest_first)
    if not any(item.get_closest_marker("browser") for item in items):
        _no_chromium(config)


def _covered_by_full_depth(items: list[pytest.Item]) -> list[pytest.Item]:
    """The fuzz tests at fast depth whose full-depth twin runs too: the same seed, four times the
    examples, so a run of both (CI's) does the fast one's work once."""
    ids = {item.nodeid for item in items}
    return [item for item in items if (twin := _full_depth_twin(item)) is not None and twin in ids]


def _full_depth_twin(item: pytest.Item) -> str | None:
    """The node id of the same test at full depth, for a test at fast depth (its parameter id says
    "fast")."""
    callspec = getattr(item, "callspec", None)
    parts = callspec.id.split("-") if callspec is not None else []
    if "fast" not in parts:
        return None
    twin = "-".join("full" if part == "fast" else part for part in parts)
    return f"{item.nodeid.removesuffix(f'[{callspec.id}]')}[{twin}]"


def _longest_first(item: pytest.Item) -> tuple[bool, float]:
    """The slow set's long tests start first, and the longest-bounded first among them (a timeout
    marker is what a test's author expects at worst), so parallel workers (pytest -n) do not wait on
    one at the end: schemathesis at full depth (some 5 minutes of one worker) started last of the
    slow set, after the contract fuzzing. A stable sort: modules keep their order."""
    bound = item.get_closest_marker("timeout")
    return item.get_closest_marker("slow") is None, -float(
        bound.args[0]
    ) if bound and bound.args else 0.0


def _no_chromium(config: pytest.Config) -> None:
    """A session that runs no test marked browser (``-m "not browser"``, or a file without one) has
    no Chromium, in this process and in every server it spawns: a test that needs it and is not
    marked fails (not_available) instead of starting Chromium unseen."""
    from netglean.browser import pool

    guard = pytest.MonkeyPatch()
    guard.setenv("NETGLEAN_BROWSER_PATH", NO_CHROMIUM)
    guard.setattr(pool, "find_browser", lambda path: None)
    config.add_cleanup(guard.undo)


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load_registry()


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.load(environ=TEST_ENVIRONMENT)


@pytest.fixture(scope="session")
def memory_client(registry: Registry, settings: Settings) -> Iterator[SyncClient]:
    """The official client over the SDK's in-memory JSON-RPC transport."""
    runner = build_runner(registry, settings, protocol_versions=supported_versions)
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


@pytest.fixture(scope="session")
def stdio_client() -> Iterator[SyncClient]:
    """The official client talking to a spawned `netglean mcp` process."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "netglean", "mcp"],
        cwd=str(PROJECT),
        env=dict(os.environ),
    )
    with open_client(params) as client:
        yield client


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tool pack of tests/support/lab.py, generated once a session (3.4 CPU s a generation): the
    servers that tests/test_add_tool.py and tests/test_http.py start on it only read it."""
    from tests.support.lab import make_lab

    return make_lab(tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="session")
def fuzz_port() -> Iterator[int]:
    """The fuzz site (tests/support/fuzz_site.py) on a free 127.0.0.1 port."""
    from tests.support import fuzz_site
    from tests.support.fixture_site import serve

    with serve(app=fuzz_site.APP) as port:
        yield port


@pytest.fixture(scope="session")
def closed_port() -> Iterator[int]:
    """A 127.0.0.1 port bound and not listening for the whole session: every connection to it is
    refused."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as bound:
        bound.bind(("127.0.0.1", 0))
        yield int(bound.getsockname()[1])


@pytest.fixture(scope="session")
def fuzz_world(fuzz_port: int, closed_port: int, request: pytest.FixtureRequest) -> World:
    """What the fuzzer draws from; every fuzz test uses it, so the project is imported whole here
    first (see tests.support.contract.import_project_modules: a seed then generates the same inputs
    whatever ran before). Its runs are made through the fuzz client: finished crawls with items, and
    cancelled ones to resume."""
    from tests.support import fuzz_site
    from tests.support.contract import import_project_modules

    import_project_modules()
    built = fuzz_site.world(fuzz_port, closed_port)
    client: SyncClient = request.getfixturevalue("fuzz_client")
    origin = f"http://127.0.0.1:{fuzz_port}"
    runs = []
    for arguments in (
        {"url": f"{origin}/crawl/", "max_pages": 3},
        {"url": f"{origin}/article", "max_depth": 0},
    ):
        runs.append(client.call("crawl", arguments).structured_content["payload"]["run_id"])
    batch = client.call("batch_crawl", {"urls": [f"{origin}/crawl/", "ftp://x/"], "max_pages": 2})
    runs.append(batch.structured_content["payload"]["crawls"][0]["run_id"])
    for _ in range(3):
        started = client.call(
            "crawl", {"url": f"{origin}/crawl/", "wait": False}
        ).structured_content["payload"]
        runs.append(started["run"]["run_id"])
        client.call("cancel_run", {"run_id": runs[-1], "force": True})
    projects = []
    for n, page in enumerate(built.listings[:2]):
        saved = {
            "project_id": f"{n:032x}",
            "name": f"fuzz project {n}",
            "definition": {
                "start_urls": [page],
                "datasets": [
                    {
                        "name": "items",
                        "item_selector": "li, article",
                        "properties": [{"key": "text"}],
                    }
                ],
            },
        }
        assert client.call("save_project", saved).structured_content["ok"]
        projects.append((saved["project_id"], saved))
    return dataclasses.replace(built, runs=tuple(runs), projects=tuple(projects))


@pytest.fixture(scope="session")
def fuzz_client(registry: Registry, fuzz_port: int) -> Iterator[SyncClient]:
    """The official client over the in-memory transport, to a server under the fuzzer's policy."""
    settings = Settings.load(environ=FUZZ_ENVIRONMENT)
    runner = build_runner(registry, settings, protocol_versions=supported_versions)
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


@pytest.fixture(scope="session")
def fuzz_browser_client(registry: Registry, fuzz_port: int) -> Iterator[SyncClient]:
    """The same, to a server with Chromium, for the tools that drive it (each action waits 0.2 s at
    most)."""
    environment = {**FUZZ_ENVIRONMENT, **BROWSER_FUZZ_ENVIRONMENT}
    environment.pop("NETGLEAN_BROWSER_PATH")
    runner = build_runner(
        registry, Settings.load(environ=environment), protocol_versions=supported_versions
    )
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


@pytest.fixture(scope="session")
def fuzz_stdio_client(fuzz_port: int) -> Iterator[SyncClient]:
    """The official client talking to a spawned `netglean mcp` process under the fuzzer's policy."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "netglean", "mcp"],
        cwd=str(PROJECT),
        env={**os.environ, **FUZZ_ENVIRONMENT},
    )
    with open_client(params) as client:
        yield client


def pytest_report_header() -> str:
    return f"property tests seeded {SEED} (NETGLEAN_FUZZ_SEED={SEED} replays this run)"


FuzzCounts = dict[str, dict[str, dict[str, int]]]
"""Result codes counted by fuzz test and tool (tests.support.contract.STATS), plus the frame checks
("" test)."""
_REPORTED: FuzzCounts = {}
"""What this process has reported of its fuzzing so far (a pytest-xdist worker reports through its
test reports)."""
_SEEN: FuzzCounts = {}
"""What the whole run's fuzzing saw, gathered from every test report: printed after the run."""


def _fuzz_counts() -> FuzzCounts:
    contract = sys.modules.get("tests.support.contract")
    if contract is None:
        return {}
    counts = {
        test: {tool: dict(codes) for tool, codes in tools.items()}
        for test, tools in contract.STATS.items()
    }
    return {**counts, "": {"": dict(contract.NONCE_CHECKS)}}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A test's teardown report carries what its fuzzing counted, so the counts reach the run's
    report from any process the test ran in."""
    outcome = yield
    if call.when != "teardown":
        return
    delta: FuzzCounts = {}
    for test, tools in _fuzz_counts().items():
        for tool, codes in tools.items():
            before = _REPORTED.setdefault(test, {}).setdefault(tool, {})
            new = {
                code: count - before.get(code, 0)
                for code, count in codes.items()
                if count > before.get(code, 0)
            }
            if new:
                delta.setdefault(test, {})[tool] = new
                before.update(codes)
    if delta:
        report = outcome.get_result()
        report.user_properties = [*report.user_properties, ("fuzz", delta)]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in report.user_properties if report.when == "teardown" else ():
        if name != "fuzz":
            continue
        for test, tools in value.items():
            for tool, codes in tools.items():
                seen = _SEEN.setdefault(test, {}).setdefault(tool, {})
                for code, count in codes.items():
                    seen[code] = seen.get(code, 0) + count


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """What the contract fuzzer saw: the seed, and per test and tool the calls, the share of ok and
    the codes."""
    frames = _SEEN.get("", {}).get("", {})
    if not any(test for test in _SEEN if test):
        return
    terminalreporter.section("contract fuzzing")
    terminalreporter.write_line(f"seed {SEED} (NETGLEAN_FUZZ_SEED={SEED} replays this run)")
    for test, tools in sorted((test, tools) for test, tools in _SEEN.items() if test):
        terminalreporter.write_line(f"{test}:")
        for tool, codes in sorted(tools.items()):
            calls = sum(codes.values())
            shown = ", ".join(f"{code} {count}" for code, count in Counter(codes).most_common())
            terminalreporter.write_line(
                f"  {tool:20} {calls:4} calls, ok {codes.get('ok', 0) / calls:4.0%}: {shown}"
            )
    checked, named = frames.get("checked", 0), frames.get("named", 0)
    terminalreporter.write_line(
        f"frame nonces recomputed from the BEGIN marker's source: {checked} ({named} as named)"
    )
