"""Several `netglean serve` processes behind one address (catalog/guide/65-scaling.md): two servers
with --stateless sharing one PostgreSQL store, nginx in front spreading requests over them in turn
(the guide's own configuration), and unchanged clients: the official SDK's MCP client at 2025-11-25
and at 2026-07-28, and REST. Each answer says which server gave it (the proxy's X-Upstream), so the
tests show a client's consecutive requests answered by different processes, and a run or task
started on one server followed, read and cancelled through the other."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from netglean.serve.tasks import EXTENSION
from netglean.store.base import ACTIVE
from tests.support.clients import SyncClient, open_client
from tests.support.environment import FUZZ_ENVIRONMENT
from tests.support.httpserver import HttpServer
from tests.support.round_robin import UPSTREAM_HEADER, round_robin
from tests.support.run_site import serve_run_site
from tests.support.stores import postgresql_url

CORE = "2025-11-25"
MODERN = "2026-07-28"

# A test may start two servers, nginx and (the process's first) a PostgreSQL cluster: generous on a
# loaded machine.
pytestmark = pytest.mark.timeout(600)


@dataclass
class Fleet:
    """Two servers behind one address (``base``), and the site their calls read (``site_base``)."""

    base: str
    servers: tuple[str, str]
    """Each server's ``host:port``, as the proxy's X-Upstream names it."""
    site_base: str


@contextmanager
def _fleet(
    tmp_path_factory: pytest.TempPathFactory,
    *options: str,
    environment: Mapping[str, str] | None = None,
) -> Iterator[Fleet]:
    store = postgresql_url(tmp_path_factory.mktemp("fleet-store"), fresh=True)
    served = {**FUZZ_ENVIRONMENT, "NETGLEAN_STORE": store, **(environment or {})}
    with serve_run_site() as (_, port):
        first = HttpServer(*options, env=served)
        try:
            second = HttpServer(*options, env=served)
            try:
                servers = (first.base.removeprefix("http://"), second.base.removeprefix("http://"))
                with round_robin(servers, tmp_path_factory.mktemp("nginx")) as base:
                    yield Fleet(base, servers, f"http://127.0.0.1:{port}")
            finally:
                second.stop()
        finally:
            first.stop()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """Servers as the guide runs them behind one address: --stateless."""
    with _fleet(tmp_path_factory, "--stateless") as servers:
        yield servers


@dataclass
class Answers:
    """Which server answered each POST /mcp a client made, with the JSON-RPC method it carried."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    async def record(self, response: httpx2.Response) -> None:
        if response.request.method != "POST":
            return
        body = json.loads(response.request.content)
        self.seen.append((body.get("method", ""), response.headers[UPSTREAM_HEADER]))

    def by(self, method: str) -> list[str]:
        """The servers that answered ``method``, in order."""
        return [server for sent, server in self.seen if sent == method]


@contextmanager
def mcp_client(
    fleet: Fleet,
    mode: str,
    extensions: Sequence[ClientExtension] = (),
    answers: Answers | None = None,
) -> Iterator[tuple[SyncClient, Answers]]:
    """The official SDK's client at the fleet's one address (``mode`` "legacy": 2025-11-25, the
    initialize handshake; "auto": 2026-07-28, as it picks by default), and what answered it."""
    answers = answers or Answers()
    http = httpx2.AsyncClient(event_hooks={"response": [answers.record]}, timeout=120)
    transport = streamable_http_client(f"{fleet.base}/mcp", http_client=http)
    with open_client(Client(transport, mode=mode, extensions=extensions)) as client:
        try:
            yield client, answers
        finally:
            client.portal.call(http.aclose)


def _envelope(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.mark.parametrize(("mode", "version"), [("legacy", CORE), ("auto", MODERN)])
def test_one_clients_consecutive_requests_are_answered_by_either_server(
    fleet: Fleet, mode: str, version: str
) -> None:
    with mcp_client(fleet, mode) as (client, answers):
        assert client.client.protocol_version == version
        tools = client.run("list_tools")
        assert {"scrape", "crawl", "get_run_status"} <= {tool.name for tool in tools.tools}
        page = _envelope(client.call("scrape", {"url": f"{fleet.site_base}/tree/3/0"}))
        assert page["payload"]["title"] == "Tree page 0"
        again = _envelope(client.call("scrape", {"url": f"{fleet.site_base}/tree/3/1"}))
        assert again["payload"]["title"] == "Tree page 1"
    served = [server for _, server in answers.seen]
    assert set(served) == set(fleet.servers)
    assert all(one != following for one, following in itertools.pairwise(served)), served


class Caller(Protocol):
    def __call__(self, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The tool's payload (its call succeeded) and the server that answered."""
        ...


@contextmanager
def _caller(fleet: Fleet, entry: str) -> Iterator[Caller]:
    """Tool calls at the fleet's address: over REST, or through the SDK's client at either
    version."""
    if entry == "rest":

        def rest(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
            answer = httpx2.post(f"{fleet.base}/v1/tools/{tool}", json=arguments, timeout=120)
            assert answer.status_code == 200, answer.text
            envelope = answer.json()
            assert envelope["ok"] is True, envelope
            return envelope["payload"], answer.headers[UPSTREAM_HEADER]

        yield rest
        return
    with mcp_client(fleet, entry) as (client, answers):

        def mcp(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
            payload = _envelope(client.call(tool, arguments))["payload"]
            return payload, answers.by("tools/call")[-1]

        yield mcp


def _elsewhere(call: Caller, started_on: str, run_id: str) -> None:
    """Make the proxy's next turn the other server's than ``started_on``: a status read until one
    is answered by ``started_on`` (the proxy takes the servers in turn)."""
    while call("get_run_status", {"run_id": run_id})[1] != started_on:
        pass


def _settled(call: Caller, run_id: str, started_on: str) -> dict[str, Any]:
    """The run once it is no longer queued or running, as the other server than ``started_on``
    tells it."""
    while True:
        payload, server = call("get_run_status", {"run_id": run_id})
        if server != started_on and payload["run"]["status"] not in ACTIVE:
            return dict(payload["run"])
        time.sleep(0.05)


@pytest.mark.parametrize("entry", ["rest", "legacy", "auto"])
def test_a_run_started_on_one_server_is_read_and_cancelled_through_the_other(
    fleet: Fleet, entry: str
) -> None:
    with _caller(fleet, entry) as call:
        started, started_on = call("crawl", {"url": f"{fleet.site_base}/tree/5/0", "wait": False})
        run_id = started["run"]["run_id"]
        assert _settled(call, run_id, started_on)["status"] == "succeeded"
        _elsewhere(call, started_on, run_id)
        result, server = call("get_run_result", {"run_id": run_id})
        assert server != started_on
        assert sorted(entry["item"]["url"] for entry in result["items"]) == sorted(
            f"{fleet.site_base}/tree/5/{n}" for n in range(5)
        )

        gated, gated_on = call("crawl", {"url": f"{fleet.site_base}/gated/40/0", "wait": False})
        gated_id = gated["run"]["run_id"]
        # it has read its first page and waits at the gate: working, not queued
        while call("get_run_status", {"run_id": gated_id})[0]["run"]["done"] < 1:
            time.sleep(0.05)
        _elsewhere(call, gated_on, gated_id)
        _, server = call("cancel_run", {"run_id": gated_id})
        assert server != gated_on
        assert _settled(call, gated_id, gated_on)["status"] == "cancelled"


class _Raw:
    """2025-11-25 JSON-RPC at the fleet's address, one POST a request, as the SDK's client sends it
    (its client has no task-augmented calls at 2025-11-25, so task calls are made by hand here)."""

    def __init__(self, fleet: Fleet) -> None:
        self._url = f"{fleet.base}/mcp"
        self._ids = itertools.count(1)
        self.headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        }
        opened, _ = self.request("initialize", _initialize())
        assert opened["protocolVersion"] == CORE
        self.headers["mcp-protocol-version"] = CORE
        httpx2.post(
            self._url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.headers,
            timeout=120,
        )

    def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The request's result, and the server that answered."""
        request_id = next(self._ids)
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        answer = httpx2.post(self._url, json=body, headers=self.headers, timeout=120)
        if answer.headers.get("content-type", "").startswith("application/json"):
            message = answer.json()
        else:
            events = [
                json.loads(line[5:])
                for line in answer.text.splitlines()
                if line.startswith("data:")
            ]
            message = next(event for event in events if event.get("id") == request_id)
        assert "result" in message, (method, message)
        return dict(message["result"]), answer.headers[UPSTREAM_HEADER]


def _initialize() -> dict[str, Any]:
    return {
        "protocolVersion": CORE,
        "capabilities": {"tasks": {}},
        "clientInfo": {"name": "several-servers", "version": "1"},
    }


def _task_settled(raw: _Raw, task_id: str, started_on: str) -> dict[str, Any]:
    """The task once it no longer works, as the other server than ``started_on`` tells it."""
    while True:
        task, server = raw.request("tasks/get", {"taskId": task_id})
        if server != started_on and task["status"] != "working":
            return task
        time.sleep(0.05)


def _raw_elsewhere(raw: _Raw, started_on: str, task_id: str) -> None:
    while raw.request("tasks/get", {"taskId": task_id})[1] != started_on:
        pass


def test_a_2025_task_started_on_one_server_is_followed_and_cancelled_through_the_other(
    fleet: Fleet,
) -> None:
    raw = _Raw(fleet)
    arguments = {"url": f"{fleet.site_base}/tree/6/0"}
    created, started_on = raw.request(
        "tools/call", {"name": "crawl", "arguments": arguments, "task": {"ttl": 60_000}}
    )
    task_id = created["task"]["taskId"]
    assert _task_settled(raw, task_id, started_on)["status"] == "completed"
    _raw_elsewhere(raw, started_on, task_id)
    result, server = raw.request("tasks/result", {"taskId": task_id})
    assert server != started_on
    pages = result["structuredContent"]["payload"]["pages"]
    assert sorted(page["url"] for page in pages) == sorted(
        f"{fleet.site_base}/tree/6/{n}" for n in range(6)
    )

    gated = {"name": "crawl", "arguments": {"url": f"{fleet.site_base}/gated/30/0"}}
    created, gated_on = raw.request("tools/call", {**gated, "task": {"ttl": 60_000}})
    gated_id = created["task"]["taskId"]
    status = {"name": "get_run_status", "arguments": {"run_id": gated_id}}
    # it has read its first page and waits at the gate: working, not queued
    while raw.request("tools/call", status)[0]["structuredContent"]["payload"]["run"]["done"] < 1:
        time.sleep(0.05)
    _raw_elsewhere(raw, gated_on, gated_id)
    _, server = raw.request("tasks/cancel", {"taskId": gated_id})
    assert server != gated_on
    assert _task_settled(raw, gated_id, gated_on)["status"] == "cancelled"


class _Handle(types.Result):
    result_type: Literal["task"]
    task_id: str
    status: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class _Polled(types.Result):
    task_id: str
    status: str
    result: dict[str, Any] | None = None


class TaskEnded(Exception):
    """A task followed to its end had no result (it was cancelled)."""


class _FollowingTasks(ClientExtension):
    """The SDK client's side of the 2026-07-28 tasks extension: a task handed for a call is
    followed with tasks/get to its result, or (``cancel``) cancelled first with tasks/cancel."""

    identifier = EXTENSION

    def __init__(self, answers: Answers, *, cancel: bool) -> None:
        self.answers = answers
        self.cancel = cancel
        self.statuses: list[str] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=_Handle, resolve=self._follow)]

    async def _follow(self, handle: _Handle, ctx: ClaimContext) -> types.CallToolResult:
        get = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=handle.task_id))
        if self.cancel:
            started_on = self.answers.by("tools/call")[-1]
            await ctx.session.send_request(get, _Polled)
            while self.answers.seen[-1][1] != started_on:  # the proxy's next turn: the other's
                await ctx.session.send_request(get, _Polled)
            params = types.CancelTaskRequestParams(task_id=handle.task_id)
            await ctx.session.send_request(types.CancelTaskRequest(params=params), types.Result)
        polled = await ctx.session.send_request(get, _Polled)
        while polled.status == "working":
            await anyio.sleep(0.05)
            polled = await ctx.session.send_request(get, _Polled)
        self.statuses.append(polled.status)
        if polled.result is None:  # a cancelled task has no result: the call ends without one
            raise TaskEnded(polled.status)
        return types.CallToolResult.model_validate(polled.result, by_name=False)


def test_a_2026_task_started_on_one_server_is_followed_and_cancelled_through_the_other(
    fleet: Fleet,
) -> None:
    answers = Answers()
    following = _FollowingTasks(answers, cancel=False)
    with mcp_client(fleet, "auto", [following], answers) as (client, _):
        arguments = {"url": f"{fleet.site_base}/tree/4/0", "wait": False}
        result = client.call("crawl", arguments)
    (started_on,) = answers.by("tools/call")
    assert following.statuses == ["completed"]
    # the first look at the task is the other server's (the proxy takes them in turn)
    assert answers.by("tasks/get")[0] != started_on, answers.seen
    pages = _envelope(result)["payload"]["pages"]
    assert sorted(page["url"] for page in pages) == sorted(
        f"{fleet.site_base}/tree/4/{n}" for n in range(4)
    )

    answers = Answers()
    cancelling = _FollowingTasks(answers, cancel=True)
    with mcp_client(fleet, "auto", [cancelling], answers) as (client, _):
        arguments = {"url": f"{fleet.site_base}/gated/30/0", "wait": False}
        with pytest.raises(TaskEnded, match="cancelled"):
            client.call("crawl", arguments)
    (started_on,) = answers.by("tools/call")
    assert answers.by("tasks/cancel") == [
        server for server in fleet.servers if server != started_on
    ], answers.seen
    assert cancelling.statuses == ["cancelled"]


def test_without_stateless_a_2025_session_is_lost_on_the_other_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Why the guide asks for --stateless: a 2025 session lives in the server that opened it, and
    the proxy's next turn is another server's, which does not know it. A 2026 client keeps no
    session, and is answered either way."""
    with _fleet(tmp_path_factory) as fleet:
        with (
            mcp_client(fleet, "legacy") as (client, answers),
            pytest.raises(MCPError, match="Session not found"),
        ):
            client.run("list_tools")
        (opened_on,) = answers.by("initialize")
        assert answers.by("tools/list") == [
            server for server in fleet.servers if server != opened_on
        ]
        with mcp_client(fleet, "auto") as (client, answers):
            assert len(client.run("list_tools").tools) > 0
            assert set(answers.by("tools/list") + answers.by("server/discover")) == set(
                fleet.servers
            )


def _scrape_as(fleet: Fleet, client: str, url: str) -> tuple[dict[str, Any], str]:
    """A scrape over REST by ``client``, an address the proxy passes on (after one it was handed:
    X-Forwarded-For, to which nginx adds the address it saw)."""
    answer = httpx2.post(
        f"{fleet.base}/v1/tools/scrape",
        json={"url": url},
        headers={"x-forwarded-for": client},
        timeout=120,
    )
    return answer.json(), answer.headers[UPSTREAM_HEADER]


def test_behind_trusted_proxies_each_client_spends_a_budget_of_its_own(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Without trusted_proxies every client is the proxy, and all of them spend one budget: one
    client's crawl would leave the others budget_exhausted on every server. Named as a proxy, its
    X-Forwarded-For names the client."""
    budget = {"NETGLEAN_SESSION_BUDGET": "3", "NETGLEAN_TRUSTED_PROXIES": "127.0.0.1, ::1"}
    with _fleet(tmp_path_factory, "--stateless", environment=budget) as fleet:
        url = f"{fleet.site_base}/tree/3/0"
        spent: set[str] = set()
        for _ in range(40):  # 3 fetches a server, robots.txt included: far fewer calls than this
            envelope, server = _scrape_as(fleet, "192.0.2.1", url)
            if not envelope["ok"]:
                assert envelope["payload"]["error"]["code"] == "budget_exhausted", envelope
                spent.add(server)
                if spent == set(fleet.servers):
                    break
        assert spent == set(fleet.servers)
        answered = set()
        for _ in fleet.servers:
            envelope, server = _scrape_as(fleet, "192.0.2.2", url)
            assert envelope["ok"] is True, envelope
            answered.add(server)
        assert answered == set(fleet.servers)
