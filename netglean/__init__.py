"""netglean: safe, fast, well-described web tools for AI agents.

The Python API (``await netglean.scrape(url)``, ``netglean.Client``: netglean.api) and the runtime
the handlers stand on. What other packages may use is re-exported
here; everything else is private to its module. The re-exports are imported on
first use, so a process that needs none of them (a reader process, which only
parses pages) starts without pydantic and the rest of the runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from netglean.api import (
        CallFailed,
        Client,
        apply_config,
        batch_scrape,
        crawl,
        map,
        scan_url,
        scrape,
    )
    from netglean.calls.context import Context
    from netglean.core.envelope import DONE, Envelope, Guidance, Outcome, say
    from netglean.core.errors import (
        ArgumentsTooLarge,
        CallTimeout,
        ConfigurationError,
        HandlerContractError,
        HandlerCrashed,
        InvalidArguments,
        NetgleanError,
        ToolError,
    )
    from netglean.core.settings import SETTINGS, Settings

from netglean._version import __version__

__all__ = [
    "ArgumentsTooLarge",
    "CallFailed",
    "CallTimeout",
    "Client",
    "ConfigurationError",
    "Context",
    "DONE",
    "Envelope",
    "Guidance",
    "HandlerContractError",
    "HandlerCrashed",
    "InvalidArguments",
    "NetgleanError",
    "Outcome",
    "SETTINGS",
    "Settings",
    "ToolError",
    "__version__",
    "apply_config",
    "batch_scrape",
    "crawl",
    "map",
    "say",
    "scan_url",
    "scrape",
]

_HOMES = {
    **dict.fromkeys(
        [
            "CallFailed",
            "Client",
            "apply_config",
            "batch_scrape",
            "crawl",
            "map",
            "scan_url",
            "scrape",
        ],
        "netglean.api",
    ),
    "Context": "netglean.calls.context",
    **dict.fromkeys(["DONE", "Envelope", "Guidance", "Outcome", "say"], "netglean.core.envelope"),
    **dict.fromkeys(
        [
            "ArgumentsTooLarge",
            "CallTimeout",
            "ConfigurationError",
            "HandlerContractError",
            "HandlerCrashed",
            "InvalidArguments",
            "NetgleanError",
            "ToolError",
        ],
        "netglean.core.errors",
    ),
    **dict.fromkeys(["SETTINGS", "Settings"], "netglean.core.settings"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'netglean' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
