"""Errors found in the catalog, each pinned to a file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegen.yaml_source import SourceFile


@dataclass(frozen=True, slots=True, order=True)
class CatalogProblem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class CatalogError(Exception):
    """The catalog is invalid; nothing was generated. Carries every problem found, sorted."""

    def __init__(self, problems: list[CatalogProblem]) -> None:
        self.problems = sorted(set(problems))
        super().__init__("\n".join(str(p) for p in self.problems))


def relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root.parent).as_posix()
    except ValueError:
        return path.as_posix()


class Collector:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[CatalogProblem] = []

    def add(self, source: SourceFile | Path, pointer_or_line: str | int, message: str) -> None:
        if isinstance(source, SourceFile):
            line = (
                source.line(pointer_or_line)
                if isinstance(pointer_or_line, str)
                else pointer_or_line
            )
            self.problems.append(CatalogProblem(source.label, line, message))
        else:
            assert isinstance(pointer_or_line, int)
            self.problems.append(
                CatalogProblem(relative(source, self.root), pointer_or_line, message)
            )
