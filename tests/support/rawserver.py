"""A `netglean mcp` child process spoken to line by line, for what a high-level client hides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from queue import Empty, Queue
from typing import Any


class RawServer:
    def __init__(
        self, cwd: Path, env: Mapping[str, str] | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "netglean", "mcp", *args],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._lines: Queue[bytes] = Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        """Every stdout line, then b"" once stdout closes: a server that exits is reported at
        once."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def receive(self, timeout: float = 120) -> dict[str, Any]:
        """The next frame; the bound is generous (the first answer waits for start-up on a busy
        machine), and a server that exited fails at once with its stderr."""
        try:
            line = self._lines.get(timeout=timeout)
        except Empty:
            raise AssertionError(f"no answer from the server in {timeout} s") from None
        if not line:
            self._lines.put(b"")  # the next receive fails at once too
            assert self.process.stderr is not None
            code = self.process.wait()
            raise AssertionError(
                f"the server exited ({code}):\n{self.process.stderr.read().decode()}"
            )
        return json.loads(line)  # every stdout line must be one JSON-RPC frame

    def initialize(self) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "tests", "version": "1"},
                },
            }
        )
        answer = self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call_tool(self, request_id: int, name: str, arguments: Any) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        return self.receive()

    def close(self) -> tuple[bytes, str]:
        """End the session; return whatever stdout still held and all of stderr."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
        rest = b""
        while not self._lines.empty():
            rest += self._lines.get()  # the end's b"" adds nothing
        assert self.process.stderr is not None
        return rest, self.process.stderr.read().decode()
