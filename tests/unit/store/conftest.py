"""The store's backends: the suite here is written against the store's Protocols
(netglean.store.base) and runs once per backend (tests/support/stores.py), so a second backend
passes the same tests unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from netglean.store.base import RunStore
from tests.support.stores import BACKENDS, open_store


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def store(backend: str, tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(backend, tmp_path)
    yield opened
    opened.close()
