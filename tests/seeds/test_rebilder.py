"""Rebilder's compare_agent_view contract (tests/seeds: /work/shared/seeds/001), held by netglean
over MCP: the seed's documented call against two fixture sites on 127.0.0.1 (one that negotiates by
Accept, markdown for agents and HTML for browsers, and one that does not), the seed's fields, the
quarantine frame (a BEGIN marker with its nonce and source=, the nonce the hash of the source and
the text), a probe failure as a result with isError and a sentence, never a throw, robots.txt read
once per origin, and zero telemetry: no request but to the target. Where netglean differs on purpose
(vantage, its envelope, its marker style), the test says so.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import SETTINGS, Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

KETTLE_MARKDOWN = b"# Kettle\n\nA 1.7 litre kettle. It boils water."
KETTLE_HTML = (
    b"<!doctype html><html><head><title>Kettle</title><script>var tracking = "
    b"1;</script></head><body><nav><a href='/'>Home</a> <a href='/products'>Products</a> <a "
    b"href='/basket'>Basket</a></nav><main><h1>Kettle</h1><p>A 1.7 litre kettle. It boils "
    b"water.</p></main><footer>Terms. Privacy. Cookies. Newsletter. Careers. Press. Contact "
    b"us.</footer></body></html>"
)
ROBOTS = "User-agent: *\nAllow: /\n\nUser-agent: netglean\nDisallow: /private\n"
BEGIN = re.compile(r"<<<BEGIN UNTRUSTED CONTENT (?P<nonce>[0-9a-f]{24}) source=(?P<source>\S*)>>>")


class Site:
    """A shop on 127.0.0.1 that records every request it gets (path, Accept, User-Agent).
    ``negotiates``: the kettle's page answers an Accept preferring markdown with markdown (and says
    Vary: Accept), else HTML."""

    def __init__(self, negotiates: bool) -> None:
        self.negotiates = negotiates
        self.seen: list[tuple[str, str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        accept = request.headers.get("accept", "")
        self.seen.append((request.url.path, accept, request.headers.get("user-agent", "")))
        response: Response
        if request.url.path == "/robots.txt":
            # a cold origin answers after a while: a batch's fetches all ask meanwhile
            await anyio.sleep(0.1)
            response = PlainTextResponse(ROBOTS)
        elif self.negotiates and accept.startswith("text/markdown"):
            response = Response(
                KETTLE_MARKDOWN, media_type="text/markdown", headers={"vary": "Accept"}
            )
        else:
            vary = {"vary": "Accept"} if self.negotiates else {}
            response = Response(KETTLE_HTML, media_type="text/html", headers=vary)
        await response(scope, receive, send)

    def paths(self) -> list[str]:
        return [path for path, _, _ in self.seen]


@pytest.fixture
def shop() -> Iterator[tuple[Site, str]]:
    """The shop that negotiates, fresh for each test (its record starts empty), and its origin."""
    site = Site(negotiates=True)
    with serve(app=site) as port:
        yield site, f"http://127.0.0.1:{port}"


@pytest.fixture
def plain() -> Iterator[tuple[Site, str]]:
    """A shop that does not negotiate: HTML for everyone."""
    site = Site(negotiates=False)
    with serve(app=site) as port:
        yield site, f"http://127.0.0.1:{port}"


def _settings(**overrides: Any) -> Settings:
    """The operator's settings for a server on this machine that may reach the fixtures (and may try
    the metadata address, which the address policy refuses whatever the operator lists), with no
    spacing between requests."""
    values = {
        "allow_private_hosts": True,
        "fetch_only_hosts": "127.0.0.1,169.254.169.254",
        "host_interval": 0.0,
        "read_workers": 0,
        **overrides,
    }
    return Settings.load(values, environ={})


@contextmanager
def _client(registry: Registry, **overrides: Any) -> Iterator[SyncClient]:
    """A fresh server (its own robots.txt cache and budgets) and an MCP client session on it."""
    runner = build_runner(registry, _settings(**overrides))
    with open_client(InMemoryTransport(build_server(runner)), runner) as client:
        yield client


def _payload(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.structured_content
    payload: dict[str, Any] = result.structured_content["payload"]
    return payload


def _error(result: Any) -> dict[str, Any]:
    """A failure as the seed promises it: a result with isError true and a sentence, inside the
    frame too."""
    assert result.is_error is True
    error: dict[str, Any] = result.structured_content["payload"]["error"]
    message = error["message"]
    # a sentence, not a bare code
    assert isinstance(message, str) and len(message.split()) >= 4, message
    # the framed text carries it
    assert json.dumps(message, ensure_ascii=False)[1:-1] in result.content[0].text
    return error


# --- the documented call and its fields -----------------------------------------------------------


def test_the_documented_call_answers_in_the_seeds_fields(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    site, origin = shop
    url = f"{origin}/products/kettle"
    with _client(registry) as client:
        result = client.call("compare_agent_view", {"url": url})
        again = _payload(client.call("compare_agent_view", {"url": url}))
    payload = _payload(result)
    assert {
        "target",
        "agent",
        "browser",
        "cost",
        "negotiated",
        "divergence",
        "untrustedContentNotice",
    } <= set(payload)
    assert payload["target"] == {"url": url, "origin": origin, "vantage": "public"}
    agent, browser = payload["agent"], payload["browser"]
    assert agent["content_type"] == "text/markdown" and agent["excerpt"].startswith("# Kettle")
    assert browser["content_type"] == "text/html" and "Kettle" in browser["excerpt"]
    assert (
        agent["vary"] == browser["vary"] == "Accept" and agent["status"] == browser["status"] == 200
    )
    assert agent["bytes"] == len(KETTLE_MARKDOWN) and browser["bytes"] == len(KETTLE_HTML)
    assert payload["negotiated"] is True
    assert payload["divergence"] == {
        "kind": "different_type",
        "content_type": True,
        "status": False,
        "final_url": False,
        "body": True,
        "byte_delta": len(KETTLE_MARKDOWN) - len(KETTLE_HTML),
    }
    cost = payload["cost"]
    # robots.txt, then the page twice: what the comparison spent of the budget
    assert cost["requests"] == 3
    assert (
        cost["agent_tokens"] == agent["approx_tokens"]
        and cost["browser_tokens"] == browser["approx_tokens"]
    )
    assert (
        cost["saved_tokens"] == cost["browser_tokens"] - cost["agent_tokens"]
        and cost["token_ratio"] < 1
    )
    assert again["cost"]["requests"] == 2  # robots.txt is cached for the origin now
    assert (
        payload["untrustedContentNotice"] == result.structured_content["untrusted_content_notice"]
    )
    markdown_first = "text/markdown;q=1.0, text/html;q=0.8, text/plain;q=0.5, */*;q=0.1"
    html_first = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    assert [(path, accept) for path, accept, _ in site.seen[:3]] == [
        ("/robots.txt", "text/plain"),
        ("/products/kettle", markdown_first),
        ("/products/kettle", html_first),
    ]
    # honestly named, each time
    assert {agent_name.split("/")[0] for _, _, agent_name in site.seen} == {"netglean"}
    assert agent["accept"] == markdown_first and browser["accept"] == html_first


def test_a_site_that_does_not_negotiate_gets_the_same_answer_both_ways(
    registry: Registry, plain: tuple[Site, str]
) -> None:
    site, origin = plain
    with _client(registry) as client:
        payload = _payload(client.call("compare_agent_view", {"url": f"{origin}/products/kettle"}))
    assert (
        payload["negotiated"] is False
        and payload["identical"] is True
        and payload["differences"] == []
    )
    assert payload["agent"]["content_type"] == payload["browser"]["content_type"] == "text/html"
    assert "vary" not in payload["agent"]
    assert payload["divergence"]["kind"] == "identical" and payload["divergence"]["byte_delta"] == 0
    assert payload["cost"]["requests"] == 3 and payload["cost"]["saved_tokens"] == 0
    assert site.paths() == ["/robots.txt", "/products/kettle", "/products/kettle"]


def test_the_answer_is_framed_with_its_source_and_a_nonce_anyone_can_recompute(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    """netglean's markers are <<<...>>> where Rebilder's are --...--; the BEGIN marker names source=
    as Rebilder's does, and the nonce is as netglean documents it: 24 hex digits of sha256(source,
    NUL, the framed text)."""
    _, origin = shop
    url = f"{origin}/products/kettle"
    with _client(registry) as client:
        result = client.call("compare_agent_view", {"url": url})
    control, notice, begin, *inside, end = result.content[0].text.split("\n")
    assert json.loads(control)["ok"] is True and url in notice and "not instructions" in notice
    marker = BEGIN.fullmatch(begin)
    assert marker is not None, begin
    assert marker["source"] == url and end == f"<<<END UNTRUSTED CONTENT {marker['nonce']}>>>"
    text = "\n".join(inside)
    assert (
        marker["nonce"] == hashlib.sha256(f"{marker['source']}\x00{text}".encode()).hexdigest()[:24]
    )
    assert json.loads(text) == result.structured_content["payload"]


# --- failures are results -------------------------------------------------------------------------


def test_an_unreachable_host_is_a_result_with_a_sentence(
    registry: Registry, closed_port: int
) -> None:
    with _client(registry) as client:
        error = _error(
            client.call("compare_agent_view", {"url": f"http://127.0.0.1:{closed_port}/"})
        )
    assert error["code"] == "unreachable" and error["retryable"] is True


@pytest.mark.parametrize(
    "url",
    ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "ftp://127.0.0.1/"],
    ids=["metadata-address", "not-the-operators-host", "not-http"],
)
def test_a_refused_target_is_a_result_with_a_sentence_and_never_contacted(
    registry: Registry, url: str
) -> None:
    with _recording() as connects, _client(registry) as client:
        error = _error(client.call("compare_agent_view", {"url": url}))
    assert error["code"] in {"blocked_address", "bad_url"} and error["retryable"] is False
    assert connects == []


def test_a_path_robots_txt_disallows_is_a_result_with_a_sentence(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    site, origin = shop
    with _client(registry) as client:
        error = _error(client.call("compare_agent_view", {"url": f"{origin}/private/kettle"}))
    # read first, and obeyed
    assert error["code"] == "robots_disallowed" and site.paths() == ["/robots.txt"]


def test_a_spent_budget_is_a_result_with_a_sentence(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    _, origin = shop
    with _client(registry, session_budget=4) as client:
        first = _payload(client.call("compare_agent_view", {"url": f"{origin}/products/kettle"}))
        half = _payload(client.call("compare_agent_view", {"url": f"{origin}/products/kettle"}))
        spent = client.call("compare_agent_view", {"url": f"{origin}/products/kettle"})
    # the fourth request was the last
    assert first["cost"]["requests"] == 3 and half["cost"]["requests"] == 1
    assert (
        half["browser"]["error"]["code"] == "budget_exhausted"
        and half["divergence"]["kind"] == "one_failed"
    )
    assert _error(spent)["code"] == "budget_exhausted"


def test_only_a_malformed_call_is_a_protocol_error(registry: Registry) -> None:
    """An unknown tool is a JSON-RPC error, as in Rebilder. A mistyped argument differs on purpose:
    a result with isError and invalid_arguments, naming the argument, where Rebilder answers a
    JSON-RPC error."""
    with _client(registry) as client:
        with pytest.raises(MCPError, match="Unknown tool"):
            client.call("scan_everything", {"url": "http://127.0.0.1/"})
        mistyped = client.call("compare_agent_view", {"url": 42})
    assert _error(mistyped)["detail"]["errors"][0]["argument"] == "url"


def test_rebilders_five_tools_are_here_by_their_names(registry: Registry) -> None:
    """scan_url, compare_agent_view, explain_check, get_index_entry and install_snippet, each
    answering as a result: an unknown check id is isError with a sentence, never a throw."""
    assert {
        "scan_url",
        "compare_agent_view",
        "explain_check",
        "get_index_entry",
        "install_snippet",
    } <= set(registry.tools)
    with _client(registry) as client:
        unknown = client.call("explain_check", {"check_id": "no_such_check"})
        known = client.call("explain_check", {"check_id": "negotiated_response"})
        worker = client.call(
            "install_snippet",
            {
                "framework": "cloudflare_worker",
                "site_name": "Kettles",
                "site_url": "https://shop.example",
            },
        )
    assert (
        unknown.is_error and _error(unknown)["code"] == "not_found" and _error(unknown)["message"]
    )
    assert (
        _payload(known)["weight"] == 9 and _payload(known)["dimension"] == "machine_representation"
    )
    assert not worker.is_error and _payload(worker)["files"]


# --- vantage: skipping robots.txt is the operator's switch ----------------------------------------


def test_vantage_self_is_refused_as_the_operators_switch(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    site, origin = shop
    url = f"{origin}/private/kettle"
    with _client(registry) as client:
        refused = client.call("compare_agent_view", {"url": url, "vantage": "self"})
        public = client.call(
            "compare_agent_view", {"url": f"{origin}/products/kettle", "vantage": "public"}
        )
    error = _error(refused)
    assert error["code"] == "operator_policy" and error["detail"]["setting"] == "ignore_robots"
    assert (
        "ignore_robots" in {setting.name for setting in SETTINGS}
        and "robots.txt" in error["message"]
    )
    assert "/private/kettle" not in site.paths()  # refused before anything was fetched
    assert _payload(public)["target"]["vantage"] == "public"  # what Rebilder does without vantage


def test_vantage_self_changes_nothing_where_the_operator_ignores_robots(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    site, origin = shop
    with _client(registry, ignore_robots=True) as client:
        payload = _payload(
            client.call(
                "compare_agent_view", {"url": f"{origin}/private/kettle", "vantage": "self"}
            )
        )
    assert payload["target"]["vantage"] == "self" and payload["cost"]["requests"] == 2
    # the operator's switch: robots.txt not read
    assert site.paths() == ["/private/kettle", "/private/kettle"]


# --- politeness: robots.txt once per origin, counted once -----------------------------------------


def test_robots_txt_is_read_once_for_a_batch_on_a_cold_origin(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    site, origin = shop
    urls = [f"{origin}/products/{n}" for n in range(4)]
    with _client(registry) as client:
        payload = _payload(client.call("batch_scrape", {"urls": urls}))
    assert (
        payload["succeeded"] == 4 and site.paths().count("/robots.txt") == 1 and len(site.seen) == 5
    )


@pytest.mark.parametrize(("budget", "read"), [(4, 3), (3, 2)])
def test_the_budget_counts_robots_txt_once_per_origin(
    registry: Registry, shop: tuple[Site, str], budget: int, read: int
) -> None:
    """Three cold URLs cost four requests, as Rebilder counts a cold scan's robots.txt read among
    its five."""
    site, origin = shop
    urls = [f"{origin}/products/{n}" for n in range(3)]
    with _client(registry, session_budget=budget) as client:
        payload = _payload(client.call("batch_scrape", {"urls": urls}))
    codes = sorted(entry["error"]["code"] for entry in payload["results"] if not entry["ok"])
    assert payload["succeeded"] == read and codes == ["budget_exhausted"] * (3 - read)
    assert site.paths().count("/robots.txt") == 1 and len(site.seen) == 1 + read


# --- zero telemetry -------------------------------------------------------------------------------


_RECORDS: list[list[Any]] = []
"""The recordings in progress: what the audit hook below appends each socket connect and name lookup
to."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _RECORDS and event in {"socket.connect", "socket.getaddrinfo"}:
        _RECORDS[-1].append((event, args[1] if event == "socket.connect" else args[0]))


_HOOKED: list[bool] = []


@contextmanager
def _recording() -> Iterator[list[Any]]:
    """Every socket connect and name lookup this process makes meanwhile, from any thread (a Python
    audit hook, installed once: hooks cannot be removed, so it records only while a recording is
    open)."""
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED.append(True)
    record: list[Any] = []
    _RECORDS.append(record)
    try:
        yield record
    finally:
        _RECORDS.remove(record)


def test_zero_telemetry_the_server_asks_nothing_of_anyone_but_the_target(
    registry: Registry, shop: tuple[Site, str]
) -> None:
    """From start-up to shutdown, the server's only connections are to the target, and the target
    sees only what the comparison needs: its robots.txt and the page twice. No scan, URL or count
    goes anywhere else."""
    site, origin = shop
    port = int(origin.rsplit(":", 1)[1])
    with _recording() as record, _client(registry) as client:
        _payload(client.call("compare_agent_view", {"url": f"{origin}/products/kettle"}))
    connects = [
        address
        for event, address in record
        if event == "socket.connect" and isinstance(address, tuple)
    ]
    assert connects and set(connects) == {("127.0.0.1", port)}
    assert {host for event, host in record if event == "socket.getaddrinfo"} <= {"127.0.0.1"}
    assert site.paths() == ["/robots.txt", "/products/kettle", "/products/kettle"]
