"""Which store the operator's settings name, and where."""

from __future__ import annotations

import os
from pathlib import Path

from netglean.store.base import RunStore


def data_dir(setting: str) -> Path:
    """The operator's data directory; by default under the XDG data home."""
    if setting:
        return Path(setting).expanduser()
    home = os.environ.get("XDG_DATA_HOME")
    return (Path(home) if home else Path("~/.local/share").expanduser()) / "netglean"


def open_store(setting: str) -> RunStore:
    """The store in the operator's data directory, ready (migrated); ConfigurationError when it cannot be."""
    from netglean.store.sqlite import SqliteStore  # the driver is imported when a store is first wanted

    return SqliteStore.open(data_dir(setting))
