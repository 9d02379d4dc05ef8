"""What `netglean call` prints for a person: a tool's content as it is (markdown, RSS, YAML), or its
rows as a table, as the tool's catalog entry says (its `cli` key); the JSON envelope stays
--envelope's."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from netglean.core.untrusted import sanitize

MAX_CELL = 60
"""Characters a table cell shows (the last column's whole): a long title or URL is cut with an
ellipsis (the envelope has it whole)."""
_PLACEHOLDER = re.compile(r"\{([\w.|]+)\}")


def render_payload(payload: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    """The payload as the tool's cli entry shows it: its first content field present, else its
    summary line and its table."""
    for name in spec.get("content", ()):
        value = payload.get(name)
        if value is not None:
            return (
                value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
            )
    table = spec.get("table")
    if table is None:
        return json.dumps(dict(payload), indent=2, ensure_ascii=False)
    summary = spec.get("summary")
    lines = (
        [_PLACEHOLDER.sub(lambda m: _text(_value(payload, m[1])) or "-", summary)]
        if summary
        else []
    )
    rows = _value(payload, table["rows"])
    lines.append(
        _table(
            rows if isinstance(rows, list) else [],
            table["columns"],
            table["rows"].rsplit(".", 1)[-1],
        )
    )
    return "\n".join(lines)


def row_errors(payload: Mapping[str, Any], spec: Mapping[str, Any]) -> list[str]:
    """A line for each table row that failed, its URL, code and message: what a table's code column
    cannot say."""
    table = spec.get("table")
    rows = _value(payload, table["rows"]) if table else None
    return [
        ": ".join(
            str(part)
            for part in (
                row.get("url"),
                row["error"].get("code", "error"),
                row["error"].get("message"),
            )
            if part
        )
        for row in (rows if isinstance(rows, list) else [])
        if isinstance(row, Mapping) and isinstance(row.get("error"), Mapping)
    ]


def is_failure(payload: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """Whether an ok result is still a failure for the exit code: a batch that read nothing, say."""
    return any(payload.get(name) == value for name, value in (spec.get("fails_when") or {}).items())


def describe_failure(payload: Mapping[str, Any]) -> str:
    """A failed call in a line or a few: its code and message, then each problem an invalid argument
    had."""
    error = payload.get("error") or {}
    lines = [f"{error.get('code', 'error')}: {error.get('message', '')}"]
    for problem in (error.get("detail") or {}).get("errors", [])[:20]:
        where = problem.get("path") or problem.get("pointer") or problem.get("argument") or ""
        said = problem.get("message", problem.get("problem", ""))
        if said not in lines[0]:  # a lone problem is the message already
            lines.append(f"  {where}: {said}")
    # validate_config's: ignored keys, beside the errors
    for warning in payload.get("warnings") or []:
        lines.append(f"  warning {warning.get('path', '')}: {warning.get('message', '')}")
    return "\n".join(lines)


def _value(item: Any, path: str) -> Any:
    """The value at a dotted path; ``a|b`` is b's where a has none."""
    for alternative in path.split("|"):
        value: Any = item
        for part in alternative.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if value is not None:
            return value
    return None


def _text(value: Any) -> str:
    return "" if value is None else " ".join(str(value).split())


def _cell(item: Any, column: str, whole: bool = False) -> str:
    text = _text(_value(item, column))
    return text if whole or len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _table(rows: Sequence[Any], columns: Sequence[str], named: str) -> str:
    """Rows under a header, columns padded to their widest cell; a row that is a string is its first
    column."""
    if not rows:
        return f"no {named}"
    last = len(columns) - 1
    cells = [
        [
            _cell(row if isinstance(row, Mapping) else {columns[0]: row}, c, n == last)
            for n, c in enumerate(columns)
        ]
        for row in rows
    ]
    # page.status is headed status
    headers = [column.split("|", 1)[0].rsplit(".", 1)[-1] for column in columns]
    widths = [max(len(h), *(len(line[n]) for line in cells)) for n, h in enumerate(headers)]
    lines = ["  ".join(c.ljust(widths[n]) for n, c in enumerate(headers)).rstrip()]
    lines += [
        "  ".join(cell.ljust(widths[n]) for n, cell in enumerate(line)).rstrip() for line in cells
    ]
    return "\n".join(lines)


def for_terminal(text: str) -> str:
    """``text`` as a terminal may show it: escape sequences, C0 controls but line breaks and tabs,
    DEL, C1 controls, bidi controls and isolates, zero-width and other invisible format characters
    and tag characters removed (as from third-party text), and carriage returns, with which what
    follows would overwrite a line, too."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "")
    return sanitize(text)


class TerminalText(io.TextIOBase):
    """A stream that writes ``for_terminal`` of all it is given: what the command line prints passes
    here, whatever printed it (a table, a tool's content, an error quoting an argument or a file's
    name, argparse, a log line)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        """The stream written to, for what draws with control characters of its own (the progress
        line)."""

    def write(self, text: str) -> int:
        self.stream.write(for_terminal(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is None: the stream's is the truth
        return str(getattr(self.stream, "encoding", None) or "utf-8")


@contextmanager
def terminal_streams() -> Iterator[None]:
    """stdout and stderr through ``TerminalText`` while a command runs (put back after, unless the
    command pointed one elsewhere, as at a closed pipe)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalText(sys.stdout), TerminalText(sys.stderr)
    try:
        yield
    finally:
        if isinstance(sys.stdout, TerminalText):
            sys.stdout = saved[0]
        if isinstance(sys.stderr, TerminalText):
            sys.stderr = saved[1]


class TerminalProgress:
    """The progress events a call reports (those MCP clients get: pages read, queued, failed) as one
    line redrawn on a terminal's stderr, at most ten times a second; nothing at all when stderr is
    no terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        stream = stream or sys.stderr
        # it draws with \r itself
        self._stream = stream.stream if isinstance(stream, TerminalText) else stream
        self._on = stream.isatty()
        self._drawn = 0.0
        self._shown = False

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        if not self._on or now - self._drawn < 0.1:
            return
        self._drawn = now
        width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
        count = f"{done:g}/{total:g}" if total else f"{done:g}"
        bar = ""
        if total:
            filled = int(20 * min(done / total, 1.0))
            bar = "[" + "#" * filled + "-" * (20 - filled) + "] "
        line = f"{bar}{count} {for_terminal(message or '')}"[:width]
        self._stream.write("\r" + line.ljust(width))
        self._stream.flush()
        self._shown = True

    def finish(self) -> None:
        """Clear the line, so what is printed next starts on a clean one."""
        if self._shown:
            width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
            self._stream.write("\r" + " " * width + "\r")
            self._stream.flush()
            self._shown = False
