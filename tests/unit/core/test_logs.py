"""Log redaction (netglean.core.logs): whatever a log line quotes, no URL's query string or fragment
is written."""

from __future__ import annotations

import logging
import sys

import pytest

from netglean.core.logs import REDACTED, RedactQueries, redact


@pytest.mark.parametrize(
    ("line", "written"),
    [
        (
            '127.0.0.1:5 - "GET /feed?key=s3cret HTTP/1.1" 200',
            '127.0.0.1:5 - "GET /feed?*** HTTP/1.1" 200',
        ),
        (
            "reading https://a.test/p?token=t&page=2#frag, then",
            "reading https://a.test/p?***#*** then",
        ),
        ("http://a.test?x=1 and http://b.test/#top", "http://a.test?*** and http://b.test/#***"),
        ("'https://a.test/p?q=1' failed", "'https://a.test/p?***' failed"),
        ("/only/a/path and a question? yes", "/only/a/path and a question? yes"),
        ("GET /mcp HTTP/1.1", "GET /mcp HTTP/1.1"),
        ("an empty query /p? stays", "an empty query /p? stays"),
    ],
)
def test_redact(line: str, written: str) -> None:
    assert redact(line) == written


def test_a_log_call_whose_arguments_do_not_fit_neither_raises_nor_leaks() -> None:
    record = logging.LogRecord(
        "netglean", logging.ERROR, __file__, 1, "%s and %s", ("https://a.test/?k=Q9",), None
    )
    assert RedactQueries().filter(record) is True
    assert "Q9" not in record.getMessage() and "https://a.test/?***" in record.getMessage()


def _record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("netglean.test", logging.ERROR, __file__, 1, message, args, None)
    record.__dict__.update(extra)
    return record


def test_a_record_is_rewritten_once_before_any_formatter_sees_it() -> None:
    record = _record("fetching %s (%d of %d)", "https://a.test/p?key=Q1", 1, 2)
    RedactQueries().filter(record)
    assert (record.msg, record.args) == (f"fetching https://a.test/p?{REDACTED} (1 of 2)", None)
    assert logging.Formatter("%(message)s").format(record) == record.msg


def test_tracebacks_and_stacks_are_redacted_too() -> None:
    try:
        raise ValueError("could not read https://b.test/x?key=Q2#Q3")
    except ValueError:
        failed = _record(
            "reading failed", exc_info=sys.exc_info(), stack_info="at https://c.test/?Q4"
        )
    RedactQueries().filter(failed)
    written = logging.Formatter("%(message)s").format(failed)
    assert (
        "ValueError: could not read https://b.test/x?***#***" in written
        and "at https://c.test/?***" in written
    )
    assert not {"Q2", "Q3", "Q4"} & set(written.replace("?", " ").replace("#", " ").split())


def test_a_fragment_alone_and_several_urls_in_one_line() -> None:
    line = "moved /a#section to https://b.test/c?d=1 and https://e.test/#f, see /g"
    assert redact(line) == "moved /a#*** to https://b.test/c?*** and https://e.test/#*** see /g"


def test_a_query_holding_an_apostrophe_is_hidden_whole() -> None:
    """Found by this test, as a bug: ' is allowed unencoded in a query (RFC 3986 sub-delims); the
    query was hidden only up to the first quote, and what followed it, a key included, was
    written."""
    written = redact('127.0.0.1:5 - "GET /search?q=o\'brien&key=S3CRET HTTP/1.1" 200')
    assert "S3CRET" not in written
