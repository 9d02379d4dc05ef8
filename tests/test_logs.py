"""Logging set-up for every command: whatever a log line quotes, no URL's query string or fragment
is written (the filter itself: tests/unit/core/test_logs.py)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import PROJECT


def test_every_line_a_command_writes_is_redacted_tracebacks_included() -> None:
    """netglean's own loggers (here the line a reader's replacement writes) go through the same
    filter."""
    script = """
import logging
from netglean.cli.main import _settings, build_parser

_settings(build_parser(with_tools=False).parse_args(["mcp", "--log-level", "info"]))
logging.getLogger("netglean.workers.pool").error("a reader process is still on %s; replacing it", "https://a.test/p?feed=S1")
try:
    raise ValueError("could not read https://b.test/x?key=S2#S3")
except ValueError:
    logging.getLogger("netglean.calls.runner").exception("tool %s raised", "scrape")
logging.getLogger("uvicorn.access").info(
    '%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", "/x?S4", "1.1", 200
)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == ""
    assert "https://a.test/p?*** replacing it" in done.stderr  # the query runs to the next space
    # the traceback, redacted
    assert "ValueError: could not read https://b.test/x?***#***" in done.stderr
    assert '"GET /x?*** HTTP/1.1" 200' in done.stderr
    assert (
        "S1" not in done.stderr
        and "S2" not in done.stderr
        and "S3" not in done.stderr
        and "S4" not in done.stderr
    )
