"""A copy of the checkout's catalog and handlers to break on purpose: catalog tests edit the copy
and assert the problem the generator reports, with its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegen.catalog import load_catalog
from codegen.errors import CatalogError
from tests.support.paths import PROJECT


def copy_project(into: Path) -> Path:
    """``into`` holding ``catalog/`` and ``handlers/`` as the checkout has them."""
    shutil.copytree(PROJECT / "catalog", into / "catalog")
    shutil.copytree(
        PROJECT / "netglean" / "handlers",
        into / "handlers",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return into


def edit(project: Path, relative: str, old: str, new: str) -> None:
    """Replace the first ``old`` in a copied file; the test's premise fails loudly if the text
    moved."""
    path = project / relative
    text = path.read_text()
    assert old in text, f"fixture text not found in {relative}: {old!r}"
    path.write_text(text.replace(old, new, 1))


def line_of(project: Path, relative: str, needle: str) -> int:
    for number, line in enumerate((project / relative).read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {relative}")


def catalog_problems(project: Path) -> list[str]:
    """Every problem the copy's catalog has; it must have some."""
    with pytest.raises(CatalogError) as caught:
        load_catalog(project / "catalog", project / "handlers")
    return [str(p) for p in caught.value.problems]


def assert_problem(project: Path, relative: str, line: int, fragment: str) -> None:
    found = catalog_problems(project)
    assert any(p.startswith(f"{relative}:{line}: ") and fragment in p for p in found), found
