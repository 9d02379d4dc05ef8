"""Every error the netglean runtime raises, rooted at one base class.

Each runtime error maps to exactly one envelope error code (``code``) and says
whether retrying the same call could succeed (``retryable``), so no caller ever
parses a message to decide what to do::

    NetgleanError
    ├── ToolError                      a tool call failed; becomes an error envelope
    │   ├── InvalidArguments           invalid_arguments  - arguments break the input schema
    │   ├── ArgumentsTooLarge          arguments_too_large - arguments exceed the operator's cap
    │   ├── CallTimeout                timeout            - the call ran past the operator's deadline
    │   ├── HandlerContractError       internal_error     - a handler broke its declared contract
    │   ├── HandlerCrashed             internal_error     - a handler raised something unexpected
    │   ├── PolicyRefusal              the operator's network policy says no (never retried as-is)
    │   │   ├── BadUrl                 bad_url            - not an http(s) URL with a host
    │   │   ├── BlockedAddress         blocked_address    - the host is (or resolves to) a non-global address
    │   │   ├── RobotsDisallowed       robots_disallowed  - robots.txt forbids it, or could not be read
    │   │   ├── BudgetExhausted        budget_exhausted   - this session's request budget is spent
    │   │   ├── SchemeDowngrade        scheme_downgrade   - a redirect from https to http
    │   │   └── OperatorPolicy         operator_policy    - an argument would loosen what the operator set
    │   └── FetchError                 the target could not be read
    │       ├── Unreachable            unreachable        - DNS or connection failure (retryable)
    │       ├── FetchTimeout           timeout            - connect/read/total deadline passed (retryable)
    │       ├── TooManyRedirects       too_many_redirects
    │       ├── ResponseTooLarge       too_large          - the body (or its decompressed form) passed the cap
    │       ├── HttpStatus             http_status        - 4xx/5xx; 5xx and 429 are retryable
    │       ├── UnsupportedContent     unsupported_content - a content type or encoding the tool cannot use
    │       └── Blocked                blocked            - a bot wall or WAF challenge answered, not the page
    │   ├── InvalidFeedConfig          invalid_config     - a feed config breaks the html2rss format
    │   ├── NoItems                    no_items           - a feed config found nothing on its page
    │   ├── ActionFailed               action_failed      - a browser action the page did not let happen
    │   ├── NotAvailable               not_available      - not on this server (a browser, evaluate)
    │   ├── Unavailable                unavailable        - the server cannot take it now (shutting down, busy)
    │   ├── RunNotFound                not_found          - no run of that id in this server's store
    │   ├── ProjectNotFound            not_found          - no project (or dataset) of that id in the store
    │   ├── CheckNotFound              not_found          - no readability check or finding of that id
    │   ├── InvalidProject             invalid_config     - a project definition the schema allows but that cannot run
    │   ├── InvalidQuery               invalid_query      - a data filter or sort that cannot be read
    │   ├── NameTaken                  conflict           - another project already has that name
    │   ├── AmbiguousName              conflict           - a name that matches several projects (but for case)
    │   └── StoreFailure               store_error        - the run store could not write (disk full, read-only)
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

    def __init__(self, message: str, *, detail: Mapping[str, Any] | None = None, next_step: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail: dict[str, Any] = dict(detail or {})
        self.next_step = next_step
        """A better next tool than retrying this one (used when the tool's catalog entry declares it)."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (detail and next step kept): reader processes raise these and the server re-raises them."""
        return _rebuilt, (type(self), self.message, self.detail, self.next_step, self.__dict__)


class InvalidArguments(ToolError):
    """Arguments that do not validate against the tool's input schema."""

    code = "invalid_arguments"


class ArgumentsTooLarge(ToolError):
    """The call's own arguments are past the operator's cap: the caller's fault (REST 413), unlike a document
    past the fetch cap (ResponseTooLarge, too_large), which is a fact about the world."""

    code = "arguments_too_large"


class CallTimeout(ToolError):
    code = "timeout"
    retryable = True


class HandlerContractError(ToolError):
    """The handler returned something its catalog entry does not allow."""

    code = "internal_error"


class HandlerCrashed(ToolError):
    code = "internal_error"


class PolicyRefusal(ToolError):
    """The operator's network policy refuses the request; retrying the same request cannot help."""


class BadUrl(PolicyRefusal):
    code = "bad_url"


class BlockedAddress(PolicyRefusal):
    code = "blocked_address"


class RobotsDisallowed(PolicyRefusal):
    code = "robots_disallowed"


class BudgetExhausted(PolicyRefusal):
    code = "budget_exhausted"


class SchemeDowngrade(PolicyRefusal):
    code = "scheme_downgrade"


class OperatorPolicy(PolicyRefusal):
    """An argument asks for more than the operator allows (``detail.setting`` names the setting): arguments may
    only tighten the operator's policy, never loosen it."""

    code = "operator_policy"


class FetchError(ToolError):
    """The target could not be read."""


class Unreachable(FetchError):
    code = "unreachable"
    retryable = True


class FetchTimeout(FetchError):
    code = "timeout"
    retryable = True


class TooManyRedirects(FetchError):
    code = "too_many_redirects"


class ResponseTooLarge(FetchError):
    code = "too_large"


class HttpStatus(FetchError):
    code = "http_status"

    def __init__(self, message: str, *, status: int, detail: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, detail={"status": status, **(detail or {})})
        self.status = status

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.status >= 500 or self.status == 429


class UnsupportedContent(FetchError):
    code = "unsupported_content"


class Blocked(FetchError):
    """The target answered with a bot wall or WAF challenge instead of its page (``detail.signals`` says what was
    seen): its text is not the content asked for."""

    code = "blocked"


class InvalidFeedConfig(ToolError):
    """A feed config that breaks the html2rss format; ``detail.errors`` lists each problem with its path."""

    code = "invalid_config"


class NoItems(ToolError):
    """A feed config that found no items on its page."""

    code = "no_items"


class ActionFailed(ToolError):
    """A browser action (interact) the page did not let happen: no element for its selector in time, an element
    that does not take it. Said in netglean's words (the action, the caller's selector), never the page's."""

    code = "action_failed"


class NotAvailable(ToolError):
    """Something this server cannot do: render without a Chromium, run a script the operator has not allowed."""

    code = "not_available"


class Unavailable(ToolError):
    """The server cannot do the work now (it is shutting down, or holds too much in flight); the same call
    can succeed later, here or on another server."""

    code = "unavailable"
    retryable = True


class RunNotFound(ToolError):
    """A run id this server's store does not hold (never made here, or past the operator's retention)."""

    code = "not_found"


class ProjectNotFound(ToolError):
    """A project id this server's store does not hold (never saved here, or deleted)."""

    code = "not_found"


class CheckNotFound(ToolError):
    """A check id the readability scale does not have."""

    code = "not_found"


class InvalidProject(ToolError):
    """A project definition its schema allows but that cannot run (a selector no reader can use, an unknown parent
    dataset); ``detail.errors`` lists each problem with its path."""

    code = "invalid_config"


class InvalidQuery(ToolError):
    """A data tool's filter or sort that cannot be read: ``detail`` names the argument, the position and what was
    expected there."""

    code = "invalid_query"


class NameTaken(ToolError):
    """Another project of the store already has the name asked for."""

    code = "conflict"


class AmbiguousName(ToolError):
    """A project name that matches several projects but for case; ``detail.project_ids`` lists them."""

    code = "conflict"


class StoreFailure(ToolError):
    """The run store could not take a write (its disk is full, it became read-only): nothing it had committed
    is lost, and the same call can succeed once the operator makes room."""

    code = "store_error"
    retryable = True


class ConfigurationError(NetgleanError):
    """Bad operator settings or an unusable generated registry; raised at start-up."""


def _rebuilt(
    cls: type[ToolError], message: str, detail: dict[str, Any], next_step: str | None, state: dict[str, Any]
) -> ToolError:
    error = ToolError.__new__(cls)
    ToolError.__init__(error, message, detail=detail, next_step=next_step)
    error.__dict__.update(state)
    return error


def _codes(cls: type[ToolError]) -> set[str]:
    return {cls.code}.union(*(_codes(sub) for sub in cls.__subclasses__()))


ERROR_CODES: tuple[str, ...] = tuple(sorted(_codes(ToolError)))
"""Every code an error envelope may carry; published in each tool's output schema."""
