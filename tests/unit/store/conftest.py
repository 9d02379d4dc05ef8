"""The store's backends: the suite here is written against the store's Protocols (netglean.store.base)
and runs once per backend, so a second backend passes the same tests unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from netglean.store.base import RunStore

BACKENDS = ["sqlite"]


def open_store(backend: str, folder: Path) -> RunStore:
    """A new, empty store of ``backend`` kept in ``folder``."""
    if backend == "sqlite":
        from netglean.store.sqlite import SqliteStore

        return SqliteStore.open(folder)
    raise ValueError(f"no store backend {backend!r}")


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def store(backend: str, tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(backend, tmp_path)
    yield opened
    opened.close()
