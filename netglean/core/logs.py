"""Logging for every command: one handler on stderr, and no URL's query string or fragment in any
line.

A query can carry a token or a feed secret, and log lines quote URLs: uvicorn's access log, a
page a reader process was replaced on, an exception's message in a traceback. Every record
passes ``RedactQueries`` on its way out, whichever logger wrote it; uvicorn is told to add no
handlers of its own (``log_config=None``), so its lines come through here too. What follows a
``?`` or ``#`` after a path, up to the next space or quote, becomes ``***``.
"""

from __future__ import annotations

import logging
import re
import sys

REDACTED = "***"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_URL_TAIL = re.compile(r"(/[^\s\"'<>?#]*)([?#][^\s\"<>]*?)(?='?(?:[\s\"<>]|$))")
"""A path (anything from a slash on) and the query and/or fragment right after it, to the next
blank, double quote or angle bracket: a query may hold an apostrophe (RFC 3986 allows it unencoded),
so one ends the query only where it closes a quoted URL, right before a blank or the end."""


def _hidden(match: re.Match[str]) -> str:
    query, mark, fragment = match.group(2).partition("#")
    return (
        match.group(1)
        + (query[0] + REDACTED if len(query) > 1 else query)
        + (mark + REDACTED if fragment else mark)
    )


def redact(text: str) -> str:
    """``text`` with every URL's query string and fragment replaced by ``***``."""
    if "?" not in text and "#" not in text:
        return text
    return _URL_TAIL.sub(_hidden, text)


class RedactQueries(logging.Filter):
    """Rewrites each record's message, traceback and stack before any formatter sees them."""

    _tracebacks = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        # arguments that do not fit: written as given (redacted), not raised at the caller
        except Exception:
            message = f"{record.msg} {record.args}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._tracebacks.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def configure(level: str) -> None:
    """Send log lines at ``level`` and above to stderr, redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactQueries())
    logging.basicConfig(level=level.upper(), format=FORMAT, handlers=[handler])
