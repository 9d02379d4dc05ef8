"""The stdio transport: JSON-RPC errors for malformed input, protocol frames only on stdout."""

from __future__ import annotations

from collections.abc import Iterator

import mcp_types as types
import pytest

from netglean.serve.jsonrpc import classify
from tests.support.jsonrpc import BAD_IDS
from tests.support.paths import PROJECT
from tests.support.rawserver import RawServer


@pytest.fixture
def server() -> Iterator[RawServer]:
    raw = RawServer(PROJECT, env={"NETGLEAN_LOG_LEVEL": "debug"})
    yield raw
    if raw.process.poll() is None:
        raw.process.kill()


def test_parse_error_batch_and_invalid_request_are_answered_and_serving_goes_on(
    server: RawServer,
) -> None:
    assert server.initialize()["result"]["serverInfo"]["name"] == "netglean"
    server.send_raw(b"{this is not json\n")
    answer = server.receive()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    server.send_raw(b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}]\n')
    answer = server.receive()
    assert (
        answer["id"] is None
        and answer["error"]["code"] == -32600
        and "batch" in answer["error"]["message"]
    )
    server.send_raw(b'{"jsonrpc": "2.0", "id": 6, "method": 42}\n')
    answer = server.receive()
    assert answer["id"] == 6 and answer["error"]["code"] == -32600
    server.send_raw(b'"just a string"\n\n   \n')
    assert server.receive()["error"]["code"] == -32600
    server.send_raw(b"\xff\xfe not utf-8\n")
    assert server.receive()["error"]["code"] == -32700
    server.send({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    assert server.receive() == {"jsonrpc": "2.0", "id": 7, "result": {}}
    result = server.call_tool(8, "get_version", {})["result"]
    assert result["isError"] is False and result["structuredContent"]["ok"] is True


def test_stdout_carries_only_protocol_frames_and_logs_go_to_stderr(server: RawServer) -> None:
    server.initialize()
    for request_id in range(1, 4):
        assert "result" in server.call_tool(
            request_id, "generate_citations", {"markdown": "[a](https://a.test)"}
        )
    rest, stderr = server.close()
    assert rest == b""  # nothing on stdout beyond the answers already parsed as JSON
    assert server.process.returncode == 0
    assert "DEBUG" in stderr  # debug logging was on, and it went to stderr


def test_unknown_tool_and_unknown_method_are_protocol_errors(server: RawServer) -> None:
    server.initialize()
    assert server.call_tool(1, "nope", {})["error"]["code"] == -32602
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/frobnicate"})
    assert server.receive()["error"]["code"] == -32601


def test_a_request_with_an_id_of_the_wrong_type_is_answered_and_a_notification_is_not(
    server: RawServer,
) -> None:
    server.initialize()
    for bad in BAD_IDS:
        server.send_raw(f'{{"jsonrpc": "2.0", "id": {bad}, "method": "ping"}}\n'.encode())
        answer = server.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32600, bad
    server.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
    )
    server.send({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    # nothing came for the notification
    assert server.receive() == {"jsonrpc": "2.0", "id": 7, "result": {}}


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"{", -32700),
        # nested past what the stack holds: still an answer, not a dead reader
        (b"[" * 100_000, -32700),
        (b"\xff", -32700),
        (b"[]", -32600),
        (b"[1, 2]", -32600),
        (b"{}", -32600),
        (b"null", -32600),
        (b"7", -32600),
        *(
            (f'{{"jsonrpc": "2.0", "id": {bad}, "method": "ping"}}'.encode(), -32600)
            for bad in BAD_IDS
        ),
        (b'{"jsonrpc": "2.0", "id": true, "method": "notifications/initialized"}', -32600),
    ],
)
def test_classify(line: bytes, code: int) -> None:
    message = classify(line)
    assert message is not None
    assert message.message.error.code == code  # type: ignore[union-attr]


def test_classify_passes_valid_messages_and_skips_blank_lines() -> None:
    assert classify(b"  \n") is None
    message = classify(b'{"jsonrpc": "2.0", "id": "a", "method": "ping"}')
    assert message is not None and message.message.method == "ping"  # type: ignore[union-attr]
    notification = classify(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    assert notification is not None and isinstance(notification.message, types.JSONRPCNotification)
    answer = classify(b'{"jsonrpc": "2.0", "id": null, "error": {"code": 1, "message": "x"}}')
    # a client's error reply may say null
    assert answer is not None and isinstance(answer.message, types.JSONRPCError)


def test_a_pathological_document_cannot_hold_the_server_past_its_deadline() -> None:
    raw = RawServer(PROJECT, args=("--call-timeout", "0.05"))
    try:
        raw.initialize()
        hostile = "[a](" * 220_000  # unclosed links: seconds of scanning, far past the deadline
        error = raw.call_tool(1, "generate_citations", {"markdown": hostile})["result"][
            "structuredContent"
        ]
        assert error["payload"]["error"]["code"] == "timeout"
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert raw.receive() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        raw.process.kill()
