"""Only the store builds SQL, read off the source: no string outside netglean/store holds SQL text.

The store's interface speaks no SQL dialect (a second backend, PostgreSQL, implements the same
Protocols): callers ask for what they want (a project by name but for case, a page of rows by a
filter tree), never pass SQL fragments. A string with a statement's shape, a JSON function or a
case-folded comparison anywhere else in the runtime is SQL leaking out, and this test fails on it.
lint-imports keeps the store's backend modules to the store (pyproject.toml).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import PROJECT

RUNTIME = PROJECT / "netglean"
STORE = RUNTIME / "store"
SQL = re.compile(
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b|\bCREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\b|\bPRAGMA\s+\w+"
    r"|\bIS\s+(?:NOT\s+)?NULL\b|\bORDER\s+BY\b|\b\w+\s+(?:ASC|DESC)\b"
    r"|\b(?i:json_extract|json_each)\s*\("
    r"|\b(?i:lower|upper)\s*\([^)]*\)\s*=\s*(?i:lower|upper)\s*\("
)
"""SQL's shapes: statements (their keywords in capitals, as SQL is written here and prose is not),
NULL tests, an order or its keys, JSON functions, a comparison case-folded on both sides."""


def strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each string of a module with its line: an f-string whole (``{}`` for what it formats)."""
    parts: set[int] = set()  # an f-string's pieces, read with it
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts.update(id(value) for value in node.values)
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            yield node.lineno, text
        elif isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in parts:
            yield node.lineno, node.value


def sql_outside_the_store(runtime: Path) -> list[str]:
    """Where a module of ``runtime`` outside its store holds SQL text: path:line and the text."""
    found = []
    for path in sorted(runtime.rglob("*.py")):
        if path.is_relative_to(runtime / "store"):
            continue
        for line, text in strings(ast.parse(path.read_text(encoding="utf-8"))):
            if SQL.search(text):
                found.append(f"{path.relative_to(runtime.parent)}:{line}: {text[:80]!r}")
    return found


def test_no_module_outside_the_store_holds_sql() -> None:
    assert sql_outside_the_store(RUNTIME) == []


def test_each_shape_of_sql_is_found_and_prose_is_not(tmp_path: Path) -> None:
    runtime = tmp_path / "netglean"
    (runtime / "store").mkdir(parents=True)
    (runtime / "store" / "sqlite.py").write_text('Q = "SELECT id FROM runs WHERE status IS NULL"\n')
    leaks = [
        '"SELECT id FROM projects"',
        'f"SELECT {columns} FROM projects WHERE id = ?"',
        '"INSERT OR IGNORE INTO project_runs VALUES (?, ?)"',
        '"UPDATE runs SET status = ?"',
        '"DELETE FROM scans"',
        '"schedule IS NOT NULL"',
        '"ORDER BY name"',
        '"updated_at DESC, id"',
        'f"json_extract({column}, ?)"',
        '"lower(name) = lower(?)"',
        '"PRAGMA user_version"',
    ]
    prose = [
        '"Select a project from the list; update it, then delete it."',
        '"the DELETE method, an UPDATE of the page"',
        '"name: no project is named x (list_projects names them), in lower case"',
    ]
    lines = [f"LEAK_{n} = {text}" for n, text in enumerate(leaks)]
    lines += [f"PROSE_{n} = {text}" for n, text in enumerate(prose)]
    (runtime / "handlers.py").write_text("\n".join(lines) + "\n")
    found = sql_outside_the_store(runtime)
    assert [entry.split(":")[1] for entry in found] == [str(n + 1) for n in range(len(leaks))]
