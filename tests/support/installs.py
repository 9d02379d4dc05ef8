"""A rendered install_snippet written out and served: what the snippet tests and the scan tests
run."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from netglean.snippets import Snippet


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write(snippet: Snippet, root: Path) -> None:
    """The install's files, under ``root`` unless a file's path is absolute (nginx's
    directories)."""
    for file in snippet.files:
        target = Path(file.path) if Path(file.path).is_absolute() else root / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.content)


def wait(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until the served install listens on ``port``; its log in the failure when it exits or never
    listens."""
    deadline = time.monotonic() + 120  # generous: an exit is reported at once
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited ({process.returncode}):\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the server did not listen:\n{log.read_text()}")
