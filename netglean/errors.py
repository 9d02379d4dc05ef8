"""Every error the netglean runtime raises, rooted at one base class.

Each runtime error maps to exactly one envelope error code (``code``) and says
whether retrying the same call could succeed (``retryable``), so no caller ever
parses a message to decide what to do::

    NetgleanError
    ├── ToolError                      a tool call failed; becomes an error envelope
    │   ├── InvalidArguments           invalid_arguments  - arguments break the input schema
    │   ├── ArgumentsTooLarge          too_large          - arguments exceed the operator's cap
    │   ├── CallTimeout                timeout            - the call ran past the operator's deadline
    │   ├── HandlerContractError       internal_error     - a handler broke its declared contract
    │   └── HandlerCrashed             internal_error     - a handler raised something unexpected
    └── ConfigurationError             a setting or the generated registry is unusable (start-up)

Catalog errors live in ``codegen.errors``: they belong to generation time, not run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class NetgleanError(Exception):
    """Root of every error the runtime raises."""


class ToolError(NetgleanError):
    """A tool call that ends in an error envelope rather than a payload."""

    code: ClassVar[str] = "tool_error"
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, *, detail: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail: dict[str, Any] = dict(detail or {})


class InvalidArguments(ToolError):
    """Arguments that do not validate against the tool's input schema."""

    code = "invalid_arguments"


class ArgumentsTooLarge(ToolError):
    code = "too_large"


class CallTimeout(ToolError):
    code = "timeout"
    retryable = True


class HandlerContractError(ToolError):
    """The handler returned something its catalog entry does not allow."""

    code = "internal_error"


class HandlerCrashed(ToolError):
    code = "internal_error"


class ConfigurationError(NetgleanError):
    """Bad operator settings or an unusable generated registry; raised at start-up."""


ERROR_CODES: tuple[str, ...] = tuple(
    sorted({cls.code for cls in (ToolError, InvalidArguments, ArgumentsTooLarge, CallTimeout, HandlerCrashed)})
)
"""Every code an error envelope may carry; published in each tool's output schema."""
