"""netglean: safe, fast, well-described web tools for AI agents.

The runtime the handlers stand on. What other packages may use is re-exported
here; everything else is private to its module.
"""

from netglean.context import Context
from netglean.envelope import DONE, Envelope, Outcome
from netglean.errors import (
    ArgumentsTooLarge,
    CallTimeout,
    ConfigurationError,
    HandlerContractError,
    HandlerCrashed,
    InvalidArguments,
    NetgleanError,
    ToolError,
)
from netglean.settings import SETTINGS, Settings

__version__ = "0.1.0"

__all__ = [
    "ArgumentsTooLarge",
    "CallTimeout",
    "ConfigurationError",
    "Context",
    "DONE",
    "Envelope",
    "HandlerContractError",
    "HandlerCrashed",
    "InvalidArguments",
    "NetgleanError",
    "Outcome",
    "SETTINGS",
    "Settings",
    "ToolError",
    "__version__",
]
