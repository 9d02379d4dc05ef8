"""MCP over stdin/stdout, answering malformed input the way JSON-RPC 2.0 says.

The SDK's stdio transport drops a line it cannot parse, a batch, and a request
whose id is not a string or an integer, without a word; the client then waits
forever. Here each line is classified by netglean.serve.jsonrpc: an unparsable line
gets a -32700 parse error, anything else that is not a request, notification or
response gets -32600 invalid request, and the server keeps serving. While
serving, fd 1 is pointed at stderr and fd 0 at the null device, so a stray print
or a child process can never corrupt the protocol stream.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from netglean.serve.jsonrpc import classify


def _claim_standard_streams() -> tuple[BinaryIO, BinaryIO, Any]:
    """Private duplicates of fd 0/1 for the wire; fd 0 -> /dev/null, fd 1 -> stderr until
    released."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    saved = (os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)

    def release() -> None:
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in saved:
            os.close(fd)

    return wire_in, wire_out, release


@asynccontextmanager
async def stdio_streams(
    stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    release = None
    if stdin is None or stdout is None:
        stdin, stdout, release = _claim_standard_streams()
    reader = anyio.wrap_file(stdin)
    writer = anyio.wrap_file(stdout)
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = outgoing.clone()

    async def read_lines() -> None:
        async with incoming_send, answers:
            async for line in reader:
                message = classify(line)
                if message is None:
                    continue
                if isinstance(message.message, types.JSONRPCError):
                    await answers.send(message)
                else:
                    await incoming_send.send(message)

    written = anyio.Event()

    async def write_lines() -> None:
        async with outgoing_receive:
            async for message in outgoing_receive:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await writer.write(data.encode() + b"\n")
        written.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_lines)
            tasks.start_soon(write_lines)
            yield incoming, outgoing
            # Let the last answers reach the wire before stopping the (thread-blocked) reader.
            await outgoing.aclose()
            with anyio.move_on_after(2):
                await written.wait()
            tasks.cancel_scope.cancel()
    finally:
        if release is not None:
            release()
