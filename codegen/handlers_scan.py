"""Find the handler functions in handlers/ without importing them.

Generation must not run handler code (a handler may open sockets or import
heavy libraries), so handlers are found by reading their syntax tree: every
public, top-level ``async def`` in a public module is a handler.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class HandlerDef:
    ref: str
    path: Path
    line: int
    params: tuple[str, ...]


def scan(handlers_dir: Path) -> tuple[dict[str, HandlerDef], list[tuple[Path, int, str]]]:
    """Every handler by ``module.function``, and syntax errors as (path, line, message)."""
    found: dict[str, HandlerDef] = {}
    broken: list[tuple[Path, int, str]] = []
    for path in sorted(handlers_dir.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as exc:
            broken.append((path, exc.lineno or 1, f"handler module does not parse: {exc.msg}"))
            continue
        for node in tree.body:
            if isinstance(node, ast.AsyncFunctionDef) and not node.name.startswith("_"):
                params = tuple(
                    a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                )
                ref = f"{path.stem}.{node.name}"
                found[ref] = HandlerDef(ref, path, node.lineno, params)
    return found, broken
