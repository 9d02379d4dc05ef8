"""Which store the operator's settings name, and where."""

from __future__ import annotations

import os
from pathlib import Path

from netglean.core.errors import ConfigurationError
from netglean.store.base import RunStore


def data_dir(setting: str) -> Path:
    """The operator's data directory; by default under the XDG data home."""
    if setting:
        return Path(setting).expanduser()
    home = os.environ.get("XDG_DATA_HOME")
    return (Path(home) if home else Path("~/.local/share").expanduser()) / "netglean"


def open_store(setting: str, store: str = "") -> RunStore:
    """The store the operator chose, ready (migrated): the PostgreSQL database ``store`` names, or
    else the SQLite file in the data directory ``setting``; ConfigurationError when it cannot be.
    A backend's driver is imported when a store is first wanted."""
    if store:
        try:
            from netglean.store.postgresql import PostgresStore
        except ImportError:
            raise ConfigurationError(
                "--store names a PostgreSQL database, but its driver is not installed: "
                "pip install 'netglean[postgresql]'"
            ) from None
        return PostgresStore.open(store)
    from netglean.store.sqlite import SqliteStore

    return SqliteStore.open(data_dir(setting))
