"""What `netglean call` prints for a person: a tool's content as it is (markdown, RSS, YAML), or its rows as a
table, as the tool's catalog entry says (its `cli` key); the JSON envelope stays --envelope's."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

MAX_CELL = 60
"""Characters a table cell shows: a long title or URL is cut with an ellipsis (the envelope has it whole)."""


def shown(payload: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    """The payload as the tool's cli entry shows it: its first content field present, else its table."""
    for name in spec.get("content", ()):
        value = payload.get(name)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    table = spec.get("table")
    if table is not None:
        return _table(payload.get(table["rows"]) or [], table["columns"], table["rows"])
    return json.dumps(dict(payload), indent=2, ensure_ascii=False)


def failed(payload: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """Whether an ok result is still a failure for the exit code: a batch that read nothing, say."""
    return any(payload.get(name) == value for name, value in (spec.get("fails_when") or {}).items())


def failure(payload: Mapping[str, Any]) -> str:
    """A failed call in a line or a few: its code and message, then each problem an invalid argument had."""
    error = payload.get("error") or {}
    lines = [f"{error.get('code', 'error')}: {error.get('message', '')}"]
    for problem in (error.get("detail") or {}).get("errors", [])[:20]:
        where = problem.get("path") or problem.get("pointer") or problem.get("argument") or ""
        lines.append(f"  {where}: {problem.get('message', problem.get('problem', ''))}")
    return "\n".join(lines)


def _cell(item: Any, column: str) -> str:
    value: Any = item
    for part in column.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if value is None:
        return ""
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _table(rows: Sequence[Any], columns: Sequence[str], named: str) -> str:
    """Rows under a header, columns padded to their widest cell; a row that is a string is its first column."""
    if not rows:
        return f"no {named}"
    cells = [[_cell(row if isinstance(row, Mapping) else {columns[0]: row}, c) for c in columns] for row in rows]
    headers = [column.rsplit(".", 1)[-1] for column in columns]  # page.status is headed status
    widths = [max(len(h), *(len(line[n]) for line in cells)) for n, h in enumerate(headers)]
    lines = ["  ".join(c.ljust(widths[n]) for n, c in enumerate(headers)).rstrip()]
    lines += ["  ".join(cell.ljust(widths[n]) for n, cell in enumerate(line)).rstrip() for line in cells]
    return "\n".join(lines)


class TerminalProgress:
    """The progress events a call reports (those MCP clients get: pages read, queued, failed) as one line redrawn
    on a terminal's stderr, at most ten times a second; nothing at all when stderr is no terminal."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self._stream = stream
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
        line = f"{bar}{count} {message or ''}"[:width]
        self._stream.write("\r" + line.ljust(width))
        self._stream.flush()
        self._shown = True

    def finish(self) -> None:
        """Clear the line, so what is printed next starts on a clean one."""
        if self._shown:
            width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
            self._stream.write("\r" + " " * width + "\r")
            self._stream.flush()
