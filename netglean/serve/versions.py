"""The MCP protocol versions this build speaks: the SDK's, read when asked.

The SDK keeps them in ``mcp_types/version.py``, a module of constants that imports nothing of its
package; importing it through ``mcp_types`` would build every protocol type first (~0.2 CPU s, a
third of a one-shot ``netglean call``, which speaks no MCP). So the file is run alone, as written.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType


@functools.cache
def supported_versions() -> tuple[str, ...]:
    """Every protocol version a client may ask for, the handshake's and the modern ones."""
    table = _version_table()
    return (*table.HANDSHAKE_PROTOCOL_VERSIONS, *table.MODERN_PROTOCOL_VERSIONS)


def _version_table() -> ModuleType:
    """The SDK's ``mcp_types.version``, run without its package (else imported the usual way: an SDK
    that lays it out otherwise costs time, not the answer)."""
    package = importlib.util.find_spec("mcp_types")  # finds the package without importing it
    folders = package.submodule_search_locations if package is not None else None
    if folders:
        path = Path(next(iter(folders)), "version.py")
        found = importlib.util.spec_from_file_location("mcp_types.version", path)
        if found is not None and found.loader is not None:
            table = importlib.util.module_from_spec(found)
            try:
                found.loader.exec_module(table)
                return table
            except (ImportError, OSError):
                pass
    from mcp_types import version

    return version
