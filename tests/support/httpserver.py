"""A `netglean serve` child process on a free loopback port, for the HTTP tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.paths import PROJECT

_LISTENING = re.compile(r"netglean serving on (http://\S+?) ")


class HttpServer:
    """``netglean serve`` (or ``command``, e.g. ``("mcp", "--transport", "http")``) on a free
    port."""

    def __init__(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        cwd: Path = PROJECT,
        command: Sequence[str] = ("serve",),
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "netglean", *command, "--port", "0", *args],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._stderr: list[str] = []
        self._stdout: list[str] = []
        self._ready = threading.Event()
        self.base = ""
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stdout_thread.start()
        # generous: start-up on a busy machine is slow; a server that exits ends the wait at once
        # (_pump)
        if not self._ready.wait(120) or not self.base:
            self.process.kill()
            raise AssertionError("netglean serve did not start:\n" + "".join(self._stderr))

    def _pump(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)
            match = _LISTENING.search(line)
            if match:
                self.base = match.group(1)
                self._ready.set()
        self._ready.set()

    def _pump_stdout(self) -> None:
        assert self.process.stdout is not None
        self._stdout.extend(self.process.stdout)

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    @property
    def stdout(self) -> str:
        """Everything written to stdout (read in full once the server has stopped)."""
        return "".join(self._stdout)

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM (a graceful shutdown), then wait; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        self._pump_thread.join(5)  # everything the server wrote to stderr and stdout has been read
        self._stdout_thread.join(5)
        return code
