"""`netglean serve`: MCP over streamable HTTP and the REST API, with the guard in front of both."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.httpserver import HttpServer
from tests.support.lab import lab_environment
from tests.support.paths import PROJECT

TOKEN = "tok-5f0c9d1e-never-logged"


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    running = HttpServer("--log-level", "debug", "--resumable")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def guarded() -> Iterator[HttpServer]:
    running = HttpServer(
        "--log-level",
        "debug",
        "--max-body-bytes",
        "2000",
        "--max-client-calls",
        "1",
        "--request-timeout",
        "1",
        env={"NETGLEAN_TOKEN": TOKEN},
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def capped() -> Iterator[HttpServer]:
    """One call in flight per client, and a body may take a minute: a stalled request holds the
    slot."""
    running = HttpServer("--max-client-calls", "1", "--request-timeout", "60")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def hasty() -> Iterator[HttpServer]:
    """Request headers must arrive within a second."""
    running = HttpServer("--header-timeout", "1")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def few() -> Iterator[HttpServer]:
    """Three connections open at once per address, and a minute for headers (so idle ones stay)."""
    running = HttpServer("--max-client-connections", "3", "--header-timeout", "60")
    yield running
    running.stop()


def _connect(server: HttpServer) -> socket.socket:
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    # every read below: closed within 15 s or fail
    return socket.create_connection((host, int(port)), timeout=15)


def _read_to_close(sock: socket.socket) -> bytes:
    answer = b""
    while chunk := sock.recv(4096):
        answer += chunk
    return answer


def _post(base: str, tool: str, body: Any = None, **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{base}/v1/tools/{tool}", json=body, timeout=30, **kwargs)


# REST: status mapping -------------------------------------------------------------------------


def test_rest_call_returns_the_envelope(server: HttpServer) -> None:
    response = _post(
        server.base, "generate_citations", {"markdown": "[a](https://a.test)", "heading": ""}
    )
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert response.json()["payload"]["markdown"] == "a [1]\n\n[1]: https://a.test\n"
    # empty body: no arguments
    assert httpx.post(f"{server.base}/v1/tools/get_version").json()["ok"] is True


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        (b'{"markdown": 5}', "application/json", 422, "invalid_arguments"),
        (b'{"markdown": "x", "first_number": "50"}', "application/json", 422, "invalid_arguments"),
        (b"null", "application/json", 422, "invalid_arguments"),
        (b"{not json", "application/json", 400, "bad_request"),
        (b"[" * 50_000 + b"]" * 50_000, "application/json", 400, "bad_request"),
        (b'{"markdown": "x"}', "text/plain", 415, "unsupported_media_type"),
    ],
)
def test_rest_status_mapping(
    server: HttpServer, body: bytes, content_type: str, status: int, code: str
) -> None:
    response = httpx.post(
        f"{server.base}/v1/tools/generate_citations",
        content=body,
        headers={"content-type": content_type},
    )
    assert response.status_code == status
    data = response.json()
    found = data["payload"]["error"]["code"] if "payload" in data else data["error"]["code"]
    assert found == code


def test_unknown_tool_is_404_naming_the_closest_and_wrong_method_405(server: HttpServer) -> None:
    assert _post(server.base, "nope", {}).json() == {
        "error": {
            "code": "unknown_tool",
            "message": "There is no tool by that name. (GET /v1/tools lists them.)",
        }
    }
    assert _post(server.base, "scrap", {}).json()["error"]["message"] == (
        "There is no tool by that name. Did you mean scrape? (GET /v1/tools lists them.)"
    )
    assert (
        httpx.get(f"{server.base}/v1/tools/get_versoin")
        .json()["error"]["message"]
        .endswith("Did you mean get_version? (GET /v1/tools lists them.)")
    )
    assert httpx.put(f"{server.base}/v1/tools/get_version").status_code == 405


def test_the_root_is_a_landing_page_and_v1_tools_lists_the_tools(server: HttpServer) -> None:
    """For a person at a browser (issue 19): what the server is, its entry points, and how a client
    connects."""
    page = httpx.get(f"{server.base}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for link in ('href="/docs/"', 'href="/openapi.json"', 'href="/v1/tools"', f"{server.base}/mcp"):
        assert link in page.text, link
    assert '"type": "http"' in page.text and "claude_desktop_config.json" in page.text
    listed = httpx.get(f"{server.base}/v1/tools").json()["tools"]
    names = [tool["name"] for tool in listed]
    assert names == sorted(names) and "scrape" in names and len(names) == len(set(names))
    scrape = next(tool for tool in listed if tool["name"] == "scrape")
    assert (
        scrape["call"] == scrape["schema"] == f"{server.base}/v1/tools/scrape" and scrape["title"]
    )
    described = httpx.get(scrape["schema"]).json()
    assert (
        described["input_schema"]["properties"]["url"]
        and described["output_schema"]["type"] == "object"
    )
    assert httpx.get(scrape["docs"]).status_code == 200


def test_serve_says_where_its_docs_are(server: HttpServer) -> None:
    assert f"docs at {server.base}/docs/" in server.stderr


def test_openapi_docs_and_health(server: HttpServer) -> None:
    document = httpx.get(f"{server.base}/openapi.json").json()
    assert document == json.loads((PROJECT / "netglean/generated/openapi.json").read_text())
    # the landing page
    assert set(document["paths"]["/"]["get"]["responses"]["200"]["content"]) == {"text/html"}
    assert "netglean" in httpx.get(f"{server.base}/docs/").text
    assert httpx.get(f"{server.base}/docs/tools/get_version.html").status_code == 200
    assert httpx.get(f"{server.base}/healthz").json()["status"] == "ok"


# The guard -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/mcp", "/v1/tools/get_version", "/healthz"])
def test_foreign_host_and_origin_are_refused(server: HttpServer, path: str) -> None:
    method = "GET" if path == "/healthz" else "POST"
    host = httpx.request(method, server.base + path, headers={"host": "evil.example:80"}, json={})
    assert host.status_code == 421
    origin = httpx.request(
        method, server.base + path, headers={"origin": "http://evil.example"}, json={}
    )
    assert origin.status_code == 403 and origin.json()["error"]["code"] == "forbidden_origin"
    assert (
        httpx.request(method, server.base + path, headers={"origin": "null"}, json={}).status_code
        == 403
    )


def test_local_origins_are_accepted(server: HttpServer) -> None:
    port = server.base.rsplit(":", 1)[1]
    for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}"):
        assert _post(server.base, "get_version", {}, headers={"origin": origin}).status_code == 200


def test_token_is_required_and_compared_whole(guarded: HttpServer) -> None:
    for headers in (
        {},
        {"authorization": f"Bearer {TOKEN[:-1]}"},
        {"authorization": f"Basic {TOKEN}"},
        {"authorization": f"Bearer {TOKEN}x"},
    ):
        response = _post(guarded.base, "get_version", {}, headers=headers)
        assert response.status_code == 401 and response.headers["www-authenticate"].startswith(
            "Bearer"
        )
        assert TOKEN not in response.text
    assert (
        httpx.post(
            f"{guarded.base}/mcp", json={}, headers={"accept": "application/json"}
        ).status_code
        == 401
    )
    ok = _post(guarded.base, "get_version", {}, headers={"authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["ok"] is True
    assert httpx.get(f"{guarded.base}/healthz").status_code == 200  # liveness never needs the token


def test_body_size_cap(guarded: HttpServer) -> None:
    auth = {"authorization": f"Bearer {TOKEN}"}
    big = {"markdown": "x" * 3000}
    assert _post(guarded.base, "generate_citations", big, headers=auth).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap is counted while streaming
        yield b'{"markdown": "'
        for _ in range(30):
            yield b"y" * 100
        yield b'"}'

    response = httpx.post(
        f"{guarded.base}/v1/tools/generate_citations",
        content=chunks(),
        headers={**auth, "content-type": "application/json"},
    )
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def _stalled_request(base: str, path: str) -> socket.socket:
    """A POST whose body never finishes arriving: it stays in flight until the request timeout."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"mark'.encode()
    )
    return sock


def test_slow_body_gets_408_and_a_busy_client_gets_429(guarded: HttpServer) -> None:
    sock = _stalled_request(guarded.base, "/v1/tools/generate_citations")
    try:
        # The stalled request occupies this client's only slot (max-client-calls 1).
        busy = _post(guarded.base, "get_version", {}, headers={"authorization": f"Bearer {TOKEN}"})
        assert busy.status_code == 429 and busy.headers["retry-after"] == "1"
        # which cap, and its setting
        assert "its cap (max_client_calls = 1)" in busy.json()["error"]["message"]
        sock.settimeout(10)
        answer = b""
        while b"request_timeout" not in answer and (chunk := sock.recv(4096)):
            answer += chunk  # headers and body may arrive in separate segments
        assert answer.startswith(b"HTTP/1.1 408") and b"request_timeout" in answer
    finally:
        sock.close()
    assert (
        _post(
            guarded.base, "get_version", {}, headers={"authorization": f"Bearer {TOKEN}"}
        ).status_code
        == 200
    )


def _until(status: int, request: Any, deadline: float = 10) -> None:
    """Repeat ``request`` until it answers ``status`` (a wait bounded by ``deadline`` seconds, not a
    timing)."""
    until = time.monotonic() + deadline
    while (found := request().status_code) != status:
        assert time.monotonic() < until, f"still {found}, not {status}"
        threading.Event().wait(0.05)


def test_the_in_flight_cap_is_the_peers_whatever_session_or_address_the_client_claims(
    capped: HttpServer,
) -> None:
    def plain() -> httpx.Response:
        return _post(capped.base, "get_version", {})

    sock = _stalled_request(capped.base, "/v1/tools/generate_citations")
    try:
        _until(429, plain)  # the stalled request now holds this address's only slot
        for _ in range(10):
            claimed = {"mcp-session-id": uuid.uuid4().hex}
            assert _post(capped.base, "get_version", {}, headers=claimed).status_code == 429
            assert httpx.post(f"{capped.base}/mcp", json={}, headers=claimed).status_code == 429
            forwarded = {
                "x-forwarded-for": f"198.51.100.{uuid.uuid4().int % 250}",
                "forwarded": "for=192.0.2.9",
            }
            assert _post(capped.base, "get_version", {}, headers=forwarded).status_code == 429
    finally:
        sock.close()
    _until(200, plain)  # the slot is freed when the stalled client goes away


def test_headers_that_dribble_in_get_408_and_the_connection_is_closed(hasty: HttpServer) -> None:
    """Slowloris: a byte of header every 0.2 s, forever. The server ends it at its header
    deadline."""
    sock = _connect(hasty)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    sock.settimeout(0.2)
    answer = b""
    until = time.monotonic() + 15
    try:
        while time.monotonic() < until:
            try:
                sock.sendall(b"a")
                chunk = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:  # reset: the server has closed, and our last bytes were unread
                break
            if not chunk:
                break
            answer += chunk
        else:
            raise AssertionError("the connection was still open after 15 s")
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 408") and b'"code": "request_timeout"' in answer


def test_a_connection_that_never_speaks_is_closed_and_one_that_does_is_served(
    hasty: HttpServer,
) -> None:
    silent = _connect(hasty)
    assert _read_to_close(silent) == b""  # closed without a word: it never began a request
    silent.close()
    sock = _connect(hasty)
    request = "POST /v1/tools/get_version HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n"
    sock.sendall(request.encode())
    # the body comes after the header deadline: that is the body's deadline, not this
    threading.Event().wait(1.5)
    sock.sendall(b"{}")
    answer = _read_to_close(sock)  # the response, then (idle past the deadline) the close
    sock.close()
    assert answer.startswith(b"HTTP/1.1 200") and b'"ok":true' in answer


def test_connections_past_the_per_address_cap_get_429_and_a_freed_slot_is_reused(
    few: HttpServer,
) -> None:
    held = [_connect(few) for _ in range(3)]
    try:
        refused = _connect(few)
        answer = _read_to_close(refused)
        refused.close()
        assert answer.startswith(b"HTTP/1.1 429") and b"retry-after: 1" in answer.lower()
        assert b'"code": "too_many_requests"' in answer
        # which cap, and its setting
        assert b"it holds 3, its cap (max_client_connections = 3)" in answer
        held.pop().close()
        _until(200, lambda: httpx.get(f"{few.base}/healthz"))  # once the server has seen the close
    finally:
        for sock in held:
            sock.close()


def test_tokens_and_bodies_never_reach_the_log(guarded: HttpServer) -> None:
    marker = "body-marker-3c7e"
    _post(
        guarded.base,
        "generate_citations",
        {"markdown": marker},
        headers={"authorization": f"Bearer {TOKEN}"},
    )
    _post(
        guarded.base,
        "generate_citations",
        {"markdown": marker},
        headers={"authorization": "Bearer wrong"},
    )
    assert "DEBUG" in guarded.stderr or "INFO" in guarded.stderr  # logging was on
    assert (
        TOKEN not in guarded.stderr
        and marker not in guarded.stderr
        and "wrong" not in guarded.stderr
    )


def test_query_strings_never_reach_the_log() -> None:
    """A URL's query (a token, a feed secret) is redacted in every line, uvicorn's access log
    included."""
    with HttpServer("--log-level", "info") as running:
        for method, path in (
            ("POST", "/v1/tools/get_version?token=QS1"),
            ("POST", "/v1/tools/nope?key=QS2&page=2"),
            ("GET", "/healthz?QS3"),
            ("GET", "/docs/?k=QS4#QS5"),
            ("POST", "/mcp?session=QS6"),
            ("GET", "/missing?a=QS7"),
        ):
            # a first call builds its tool
            httpx.request(method, running.base + path, json={}, timeout=30)
    written = running.stderr + running.stdout
    assert "QS" not in written
    # the access log was on, and redacted
    assert '"POST /v1/tools/get_version?*** HTTP/1.1" 200' in written


def test_binding_beyond_loopback_needs_a_token() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={"PATH": ""},
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without a bearer token" in done.stderr


def test_graceful_shutdown_finishes_in_flight_calls(lab: Path) -> None:
    running = HttpServer("--log-level", "debug", cwd=lab, env=lab_environment(lab))
    results: list[httpx.Response] = []
    call = threading.Thread(
        target=lambda: results.append(_post(running.base, "misbehave", {"mode": "nap"}))
    )
    call.start()
    while "call misbehave" not in running.stderr and call.is_alive():
        threading.Event().wait(0.02)  # until the tool is running (it naps 1.5 s)
    assert call.is_alive(), "the call finished before shutdown began; the test proves nothing"
    # uvicorn finishes in-flight requests, then re-raises SIGTERM so the parent sees a signal exit.
    assert running.stop() == -signal.SIGTERM
    call.join(10)
    assert (
        results and results[0].status_code == 200 and results[0].json()["payload"] == {"fine": True}
    )


_MCP = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
_SLEEP = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "misbehave", "arguments": {"mode": "sleep"}},
}


def _mcp_session(base: str) -> dict[str, str]:
    """Raw /mcp headers for an initialized session."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session = httpx.post(f"{base}/mcp", headers=_MCP, json=initialize).headers["mcp-session-id"]
    headers = _MCP | {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    httpx.post(
        f"{base}/mcp",
        headers=headers,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
    )
    return headers


def _sse_result(stream: str, request_id: int) -> dict[str, Any]:
    for line in stream.splitlines():
        if line.startswith("data: {"):
            message = json.loads(line.removeprefix("data: "))
            if message.get("id") == request_id:
                return dict(message)
    raise AssertionError(f"no answer to {request_id} in {stream!r}")


def _background(target: Any) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_calls_still_running_when_the_grace_ends_get_unavailable_and_the_log_one_line(
    lab: Path,
) -> None:
    running = HttpServer(
        "--log-level", "debug", "--shutdown-grace", "1", cwd=lab, env=lab_environment(lab)
    )
    headers = _mcp_session(running.base)
    results: dict[str, Any] = {}

    def listen() -> None:  # the standalone stream an MCP client keeps open: it never ends by itself
        with httpx.stream("GET", f"{running.base}/mcp", headers=headers, timeout=30) as stream:
            results["stream"] = stream.status_code
            for _ in stream.iter_bytes():
                pass

    threads = [
        _background(
            lambda: results.update(rest=_post(running.base, "misbehave", {"mode": "sleep"}))
        ),
        _background(
            lambda: results.update(
                mcp=httpx.post(f"{running.base}/mcp", headers=headers, json=_SLEEP)
            )
        ),
        _background(listen),
    ]
    until = time.monotonic() + 20
    while running.stderr.count("call misbehave") < 2 or "stream" not in results:
        assert time.monotonic() < until, "the calls did not start"
        threading.Event().wait(0.02)
    assert running.stop() == -signal.SIGTERM
    for thread in threads:
        thread.join(20)
        assert not thread.is_alive()
    rest = results["rest"]
    assert rest.status_code == 503 and rest.headers["content-type"] == "application/json"
    assert rest.json()["ok"] is False and rest.json()["next_step"] == "misbehave"
    assert (
        rest.json()["payload"]["error"]["code"] == "unavailable"
        and rest.json()["payload"]["error"]["retryable"]
    )
    answer = _sse_result(results["mcp"].text, 2)["result"]
    assert (
        answer["isError"] is True
        and answer["structuredContent"]["payload"]["error"]["code"] == "unavailable"
    )
    lines = running.stderr.splitlines()
    assert [line for line in lines if "ERROR" in line or "Traceback" in line] == []
    assert len([line for line in lines if "end as unavailable" in line]) == 1


def test_calls_that_arrive_during_shutdown_get_unavailable(lab: Path) -> None:
    running = HttpServer(
        "--log-level", "debug", "--shutdown-grace", "20", cwd=lab, env=lab_environment(lab)
    )
    late = _connect(running)
    body = b'{"mode": "fine"}'
    late.sendall(
        b"POST /v1/tools/misbehave HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        b"application/json\r\n"
    )
    # headers in before the signal, the body after
    late.sendall(b"Content-Length: %d\r\n\r\n" % len(body))
    running.process.send_signal(signal.SIGTERM)
    until = time.monotonic() + 20
    while "Shutting down" not in running.stderr:
        assert time.monotonic() < until, "the server did not begin to shut down"
        threading.Event().wait(0.02)
    late.sendall(body)
    answer = _read_to_close(late)
    late.close()
    assert running.stop() == -signal.SIGTERM
    assert answer.startswith(b"HTTP/1.1 503")
    envelope = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert envelope["ok"] is False and envelope["payload"]["error"]["code"] == "unavailable"


def test_streams_are_resumable_with_last_event_id(server: HttpServer) -> None:
    url = f"{server.base}/mcp"
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session = httpx.post(url, headers=headers, json=initialize).headers["mcp-session-id"]
    headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "get_version", "arguments": {}},
    }
    stream = httpx.post(url, headers=headers, json=call).text.replace("\r\n", "\n")
    priming, result = stream.split("\n\n")[:2]
    assert (
        priming.startswith("id: ") and "\ndata: \n" in priming + "\n" and "retry: 1000" in priming
    )
    # A client that lost the stream after the priming event gets the result replayed.
    primed = priming.split("\n")[0].removeprefix("id: ")
    with httpx.stream(
        "GET", url, headers={**headers, "last-event-id": primed}, timeout=10
    ) as replay:
        for line in replay.iter_lines():
            if line.startswith("data: {"):
                assert json.loads(line.removeprefix("data: "))["id"] == 2
                break
        else:
            raise AssertionError("nothing was replayed")
    assert '"id":2' in result


def test_event_store_is_bounded() -> None:
    import anyio

    from netglean.serve.events import BoundedEventStore

    async def run() -> list[str]:
        store = BoundedEventStore(capacity=3)
        first = await store.store_event("a", None)
        for _ in range(5):
            await store.store_event("a", None)
        replayed: list[str] = []
        # evicted
        assert await store.replay_events_after(first, lambda e: replayed.append(e.event_id)) is None
        assert (
            await store.replay_events_after("not-a-number", lambda e: replayed.append(e.event_id))
            is None
        )
        return replayed

    assert anyio.run(run) == []
