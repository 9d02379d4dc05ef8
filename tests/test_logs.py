"""Logging set-up: whatever a log line quotes, no URL's query string or fragment is written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import PROJECT


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ('127.0.0.1:5 - "GET /feed?key=s3cret HTTP/1.1" 200', '127.0.0.1:5 - "GET /feed?*** HTTP/1.1" 200'),
        ("reading https://a.test/p?token=t&page=2#frag, then", "reading https://a.test/p?***#*** then"),
        ("http://a.test?x=1 and http://b.test/#top", "http://a.test?*** and http://b.test/#***"),
        ("'https://a.test/p?q=1' failed", "'https://a.test/p?***' failed"),
        ("/only/a/path and a question? yes", "/only/a/path and a question? yes"),
        ("GET /mcp HTTP/1.1", "GET /mcp HTTP/1.1"),
        ("an empty query /p? stays", "an empty query /p? stays"),
    ],
)
def test_redact(line: str, written: str) -> None:
    from netglean.core.logs import redact

    assert redact(line) == written


def test_every_line_a_command_writes_is_redacted_tracebacks_included() -> None:
    """netglean's own loggers (here the line a reader's replacement writes) go through the same filter."""
    script = """
import logging
from netglean.cli.main import _settings, build_parser

_settings(build_parser(with_tools=False).parse_args(["mcp", "--log-level", "info"]))
logging.getLogger("netglean.workers.pool").error("a reader process is still on %s; replacing it", "https://a.test/p?feed=S1")
try:
    raise ValueError("could not read https://b.test/x?key=S2#S3")
except ValueError:
    logging.getLogger("netglean.calls.runner").exception("tool %s raised", "scrape")
logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", "/x?S4", "1.1", 200)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == ""
    assert "https://a.test/p?*** replacing it" in done.stderr  # the query runs to the next space
    assert "ValueError: could not read https://b.test/x?***#***" in done.stderr  # the traceback, redacted
    assert '"GET /x?*** HTTP/1.1" 200' in done.stderr
    assert "S1" not in done.stderr and "S2" not in done.stderr and "S3" not in done.stderr and "S4" not in done.stderr


def test_a_log_call_whose_arguments_do_not_fit_neither_raises_nor_leaks() -> None:
    import logging

    from netglean.core.logs import RedactQueries

    record = logging.LogRecord("netglean", logging.ERROR, __file__, 1, "%s and %s", ("https://a.test/?k=Q9",), None)
    assert RedactQueries().filter(record) is True
    assert "Q9" not in record.getMessage() and "https://a.test/?***" in record.getMessage()
