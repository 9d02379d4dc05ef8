"""Shared fixtures: the real registry, and real MCP clients (in-memory and spawned stdio), under the tests'
policy and, for the contract fuzzer, under a policy that reaches the fuzz site on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from mcp import StdioServerParameters
from mcp.client._memory import InMemoryTransport

from netglean.app import build_runner
from netglean.calls.registry import Registry, load_registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from netglean.serve.versions import spoken
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
    """A session that runs no test marked browser (``-m "not browser"``, or a file without one) has no Chromium, in
    this process and in every server it spawns: a test that needs it and is not marked fails (not_available) instead
    of starting Chromium unseen."""
    if any(item.get_closest_marker("browser") for item in items):
        return
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
    runner = build_runner(registry, settings, protocol_versions=spoken)
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


@pytest.fixture(scope="session")
def stdio_client() -> Iterator[SyncClient]:
    """The official client talking to a spawned `netglean mcp` process."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "netglean", "mcp"], cwd=str(PROJECT), env=dict(os.environ)
    )
    with open_client(params) as client:
        yield client


@pytest.fixture(scope="session")
def fuzz_port() -> Iterator[int]:
    """The fuzz site (tests/support/fuzz_site.py) on a free 127.0.0.1 port."""
    from tests.support import fuzz_site
    from tests.support.fixture_site import serve

    with serve(app=fuzz_site.APP) as port:
        yield port


@pytest.fixture(scope="session")
def closed_port() -> Iterator[int]:
    """A 127.0.0.1 port bound and not listening for the whole session: every connection to it is refused."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as bound:
        bound.bind(("127.0.0.1", 0))
        yield int(bound.getsockname()[1])


@pytest.fixture(scope="session")
def fuzz_world(fuzz_port: int, closed_port: int, request: pytest.FixtureRequest) -> World:
    """What the fuzzer draws from; every fuzz test uses it, so the project is imported whole here first (see
    tests.support.contract.import_project_modules: a seed then generates the same inputs whatever ran before).
    Its runs are made through the fuzz client: finished crawls with items, and cancelled ones to resume."""
    from tests.support import fuzz_site
    from tests.support.contract import import_project_modules

    import_project_modules()
    built = fuzz_site.world(fuzz_port, closed_port)
    client: SyncClient = request.getfixturevalue("fuzz_client")
    origin = f"http://127.0.0.1:{fuzz_port}"
    runs = []
    for arguments in ({"url": f"{origin}/crawl/", "max_pages": 3}, {"url": f"{origin}/article", "max_depth": 0}):
        runs.append(client.call("crawl", arguments).structured_content["payload"]["run_id"])
    batch = client.call("batch_crawl", {"urls": [f"{origin}/crawl/", "ftp://x/"], "max_pages": 2})
    runs.append(batch.structured_content["payload"]["crawls"][0]["run_id"])
    for _ in range(3):
        started = client.call("crawl", {"url": f"{origin}/crawl/", "wait": False}).structured_content["payload"]
        runs.append(started["run"]["run_id"])
        client.call("cancel_run", {"run_id": runs[-1], "force": True})
    projects = []
    for n, page in enumerate(built.listings[:2]):
        saved = {
            "project_id": f"{n:032x}",
            "name": f"fuzz project {n}",
            "definition": {
                "start_urls": [page],
                "datasets": [{"name": "items", "item_selector": "li, article", "properties": [{"key": "text"}]}],
            },
        }
        assert client.call("save_project", saved).structured_content["ok"]
        projects.append((saved["project_id"], saved))
    return dataclasses.replace(built, runs=tuple(runs), projects=tuple(projects))


@pytest.fixture(scope="session")
def fuzz_client(registry: Registry, fuzz_port: int) -> Iterator[SyncClient]:
    """The official client over the in-memory transport, to a server under the fuzzer's policy."""
    settings = Settings.load(environ=FUZZ_ENVIRONMENT)
    runner = build_runner(registry, settings, protocol_versions=spoken)
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


@pytest.fixture(scope="session")
def fuzz_browser_client(registry: Registry, fuzz_port: int) -> Iterator[SyncClient]:
    """The same, to a server with Chromium, for the tools that drive it (each action waits 0.2 s at most)."""
    environment = {**FUZZ_ENVIRONMENT, **BROWSER_FUZZ_ENVIRONMENT}
    environment.pop("NETGLEAN_BROWSER_PATH")
    runner = build_runner(registry, Settings.load(environ=environment), protocol_versions=spoken)
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


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """What the contract fuzzer saw: the seed, and per test and tool the calls, the share of ok and the codes."""
    contract = sys.modules.get("tests.support.contract")
    if contract is None or not contract.STATS:
        return
    terminalreporter.section("contract fuzzing")
    terminalreporter.write_line(f"seed {SEED} (NETGLEAN_FUZZ_SEED={SEED} replays this run)")
    for test, tools in sorted(contract.STATS.items()):
        terminalreporter.write_line(f"{test}:")
        for tool, codes in sorted(tools.items()):
            calls = sum(codes.values())
            shown = ", ".join(f"{code} {count}" for code, count in codes.most_common())
            terminalreporter.write_line(f"  {tool:20} {calls:4} calls, ok {codes['ok'] / calls:4.0%}: {shown}")
    checked, named = contract.NONCE_CHECKS["checked"], contract.NONCE_CHECKS["named"]
    terminalreporter.write_line(f"frame nonces recomputed from the BEGIN marker's source: {checked} ({named} as named)")
