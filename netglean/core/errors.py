"""Every error the netglean runtime raises, rooted at one base class.

Each runtime error maps to exactly one envelope error code (``code``); ``CODES`` holds
every fact of a code (whether retrying the same call could succeed, what to do next,
what a log says, the REST status), so no caller ever parses a message to decide what
to do, and no entry point keeps a table of its own. The tree (tests/unit/core/test_errors.py
redraws it from the classes and compares)::

    NetgleanError
    ├── ToolError                  tool_error          - a failed call; becomes an error envelope
    │   ├── InvalidArguments       invalid_arguments   - arguments break the input schema
    │   ├── ArgumentsTooLarge      arguments_too_large - arguments exceed the operator's cap
    │   ├── CallTimeout            timeout             - the call ran past the operator's deadline
    │   ├── HandlerContractError   internal_error      - a handler broke its declared contract
    │   ├── HandlerCrashed         internal_error      - a handler raised something unexpected
    │   ├── PolicyRefusal                              - the operator's network policy says no
    │   │   ├── BadUrl             bad_url             - not an http(s) URL with a host
    │   │   ├── BlockedAddress     blocked_address     - the host is or resolves to a non-global IP
    │   │   ├── RobotsDisallowed   robots_disallowed   - robots.txt forbids it, or could not be read
    │   │   ├── BudgetExhausted    budget_exhausted    - this session's request budget is spent
    │   │   ├── SchemeDowngrade    scheme_downgrade    - a redirect from https to http
    │   │   └── OperatorPolicy     operator_policy     - an argument would loosen operator policy
    │   ├── FetchError                                 - the target could not be read
    │   │   ├── Unreachable        unreachable         - DNS or connection failure
    │   │   ├── FetchTimeout       timeout             - connect/read/total deadline passed
    │   │   ├── TooManyRedirects   too_many_redirects  - more redirects than allowed
    │   │   ├── ResponseTooLarge   too_large           - the body (or decompressed) passed the cap
    │   │   ├── HttpStatus         http_status         - 4xx/5xx; 5xx and 429 are retryable
    │   │   ├── UnsupportedContent unsupported_content - a type or encoding the tool cannot use
    │   │   └── Blocked            blocked             - a bot wall or WAF challenge, not the page
    │   ├── InvalidFeedConfig      invalid_config      - a feed config breaks the html2rss format
    │   ├── NoItems                no_items            - a feed config found nothing on its page
    │   ├── ActionFailed           action_failed       - a browser action the page did not allow
    │   ├── NotAvailable           not_available       - not on this server (a browser, evaluate)
    │   ├── Unavailable            unavailable         - not now (shutting down, too busy)
    │   ├── RunNotFound            not_found           - no run of that id in this server's store
    │   ├── ProjectNotFound        not_found           - no project (or dataset) of that id
    │   ├── CheckNotFound          not_found           - no readability check or finding of that id
    │   ├── InvalidProject         invalid_config      - a project definition that cannot run
    │   ├── InvalidQuery           invalid_query       - a data filter or sort that cannot be read
    │   ├── NameTaken              conflict            - another project already has that name
    │   ├── AmbiguousName          conflict            - a name several projects match but for case
    │   └── StoreFailure           store_error         - the run store could not write (disk full)
    └── ConfigurationError                             - unusable settings or registry (start-up)

Catalog errors live in ``codegen.errors``: they belong to generation time, not run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

_READ_THE_ERROR = "Read payload.error and decide whether to call {tool} again."


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """What netglean says and does about one error code, at every entry point: the one home of these
    facts, read by the runner (guidance), the MCP entry point (sentence, log level), the REST entry
    point and the OpenAPI document (status), the generator's profile checks (quote_free) and the
    docs' error codes page."""

    sentence: str
    """What a log notification says of the failure: our own words, never the error's message (a log
    notification stands outside the untrusted frame, and a message can quote what a target
    chose)."""
    guidance: str = _READ_THE_ERROR
    """What to do next, for any tool ({tool} names it): a tool's catalog entry may say better for
    itself (``failure_guidance``), and which tool to call instead is the catalog's to say, never
    this."""
    retryable: bool = False
    """Whether the same call could succeed later, unless ``retryable_when`` says it depends."""
    retryable_when: str = ""
    """Where the error itself decides (HttpStatus.retryable), when it is retryable, in words."""
    rest_status: int = 200
    """The REST status of an error envelope of this code: 200 for a failure that is a fact about the
    world (an unreachable host: the call worked, the answer is "no")."""
    log_level: Literal["info", "warning", "error"] = "info"
    """The level a failed call is logged at to MCP clients that asked for logs."""
    quote_free: bool = False
    """The message quotes nothing a target chose (at most the caller's own argument): the only codes
    a target-origin tool's JSON-RPC error (a wire profile's) may carry netglean's message for."""


CODES: dict[str, ErrorCode] = {
    "action_failed": ErrorCode(
        "A browser action did not happen.",
        "A browser action did not happen (payload.error names the action); fix it and call {tool} "
        "again.",
    ),
    "arguments_too_large": ErrorCode(
        "The arguments were larger than the operator's limit.",
        "Send smaller arguments to {tool}; the operator's limit is in payload.error.detail.",
        rest_status=413,
        quote_free=True,
    ),
    "bad_url": ErrorCode("The URL is not one netglean fetches."),
    "blocked": ErrorCode(
        "The target answered with a bot wall or challenge page, not the page.",
        "The site answered with a bot wall or challenge page, not the page asked for; its text is "
        "not content.",
    ),
    "blocked_address": ErrorCode("The operator's network policy refused the address."),
    "budget_exhausted": ErrorCode("This server's fetch budget is spent."),
    "conflict": ErrorCode(
        "Another project already has that name.",
        "Another project of this store has that name: choose another, or update that project by "
        "its id.",
    ),
    "http_status": ErrorCode(
        "The target answered with an HTTP error status.", retryable_when="for 5xx and 429"
    ),
    "internal_error": ErrorCode(
        "The call failed inside the server.",
        "{tool} failed inside the server, not because of your arguments; try again later.",
        rest_status=500,
        log_level="error",
    ),
    "invalid_arguments": ErrorCode(
        "The arguments did not validate.",
        "Fix the arguments listed in payload.error.detail.errors and call {tool} again.",
        rest_status=422,
        quote_free=True,
    ),
    "invalid_config": ErrorCode(
        "The feed config or project definition did not validate.",
        "Fix every problem in payload.error.detail.errors (each names its path) and call {tool} "
        "again.",
    ),
    "invalid_query": ErrorCode(
        "The filter or sort could not be read.",
        "Fix the filter or sort at the position payload.error.detail names and call {tool} again.",
    ),
    "no_items": ErrorCode(
        "The feed config found no items.",
        "{tool} found no items to work with (payload.error says where it looked).",
    ),
    "not_available": ErrorCode(
        "This server cannot do what was asked.",
        "This server cannot do what the call asks (payload.error says what, and who can change "
        "it).",
    ),
    "not_found": ErrorCode(
        "Nothing of that id is in this server's store.",
        "Nothing of that id is in this server's store (an id from another server, a deleted "
        "project, or a run past the operator's retention).",
    ),
    "operator_policy": ErrorCode(
        "An argument asked for more than the operator's settings allow.",
        "The operator's settings do not allow what the call asks (payload.error.detail names the "
        "setting); call {tool} again without asking for it.",
        quote_free=True,
    ),
    "robots_disallowed": ErrorCode("robots.txt does not allow the fetch."),
    "scheme_downgrade": ErrorCode(
        "A redirect went from https to http, which the operator does not allow."
    ),
    "store_error": ErrorCode(
        "The run store could not take a write.",
        "The server's run store could not take a write (payload.error says why); call {tool} again "
        "once the operator has fixed it.",
        retryable=True,
    ),
    "timeout": ErrorCode(
        "The call ran past a deadline.",
        "{tool} ran past the operator's deadline; try again, perhaps with a smaller request.",
        retryable=True,
        rest_status=504,
        log_level="warning",
    ),
    "too_large": ErrorCode(
        "The document was larger than the operator's limit.",
        "The document is larger than the operator's limit (payload.error.detail); it cannot be "
        "read whole.",
    ),
    "too_many_redirects": ErrorCode("The target redirected more times than allowed."),
    "tool_error": ErrorCode("The call failed."),
    "unavailable": ErrorCode(
        "The server cannot take the call now.",
        "The server cannot take this call now (see payload.error); call {tool} again shortly.",
        retryable=True,
        rest_status=503,
    ),
    "unreachable": ErrorCode("The target could not be reached.", retryable=True),
    "unsupported_content": ErrorCode("The target sent content the tool cannot read."),
}
"""Every code an error envelope may carry, with its facts; each ToolError class names one."""

ERROR_CODES: tuple[str, ...] = tuple(sorted(CODES))
"""Every code an error envelope may carry; published in each tool's output schema."""


class NetgleanError(Exception):
    """Root of every error the runtime raises."""


class ToolError(NetgleanError):
    """A tool call that ends in an error envelope rather than a payload."""

    code: ClassVar[str] = "tool_error"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A class naming a code the table does not hold fails at import, not in a failing call."""
        super().__init_subclass__(**kwargs)
        if cls.code not in CODES:
            raise TypeError(
                f"{cls.__name__}.code {cls.code!r} is not in netglean.core.errors.CODES"
            )

    def __init__(
        self, message: str, *, detail: Mapping[str, Any] | None = None, next_step: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail: dict[str, Any] = dict(detail or {})
        self.next_step = next_step
        """A better next tool than retrying this one (used when the tool's catalog entry declares
        it)."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (detail and next step kept): reader processes raise these and the server
        re-raises them."""
        return _rebuilt, (type(self), self.message, self.detail, self.next_step, self.__dict__)

    @property
    def retryable(self) -> bool:
        """Whether the same call could succeed later: the code's fact (CODES)."""
        return CODES[self.code].retryable


class InvalidArguments(ToolError):
    """Arguments that do not validate against the tool's input schema."""

    code = "invalid_arguments"


class ArgumentsTooLarge(ToolError):
    """The call's own arguments are past the operator's cap: the caller's fault (REST 413), unlike a
    document past the fetch cap (ResponseTooLarge, too_large), which is a fact about the world."""

    code = "arguments_too_large"


class CallTimeout(ToolError):
    code = "timeout"


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
    """An argument asks for more than the operator allows (``detail.setting`` names the setting):
    arguments may only tighten the operator's policy, never loosen it."""

    code = "operator_policy"


class FetchError(ToolError):
    """The target could not be read."""


class Unreachable(FetchError):
    code = "unreachable"


class FetchTimeout(FetchError):
    code = "timeout"


class TooManyRedirects(FetchError):
    code = "too_many_redirects"


class ResponseTooLarge(FetchError):
    code = "too_large"


class HttpStatus(FetchError):
    code = "http_status"

    def __init__(
        self, message: str, *, status: int, detail: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message, detail={"status": status, **(detail or {})})
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.status >= 500 or self.status == 429


class UnsupportedContent(FetchError):
    code = "unsupported_content"


class Blocked(FetchError):
    """The target answered with a bot wall or WAF challenge instead of its page (``detail.signals``
    says what was seen): its text is not the content asked for."""

    code = "blocked"


class InvalidFeedConfig(ToolError):
    """A feed config that breaks the html2rss format; ``detail.errors`` lists each problem with its
    path."""

    code = "invalid_config"


class NoItems(ToolError):
    """A feed config that found no items on its page."""

    code = "no_items"


class ActionFailed(ToolError):
    """A browser action (interact) the page did not let happen: no element for its selector in time,
    an element that does not take it. Said in netglean's words (the action, the caller's selector),
    never the page's."""

    code = "action_failed"


class NotAvailable(ToolError):
    """Something this server cannot do: render without a Chromium, run a script the operator has not
    allowed."""

    code = "not_available"


class Unavailable(ToolError):
    """The server cannot do the work now (it is shutting down, or holds too much in flight); the
    same call can succeed later, here or on another server."""

    code = "unavailable"


class RunNotFound(ToolError):
    """A run id this server's store does not hold (never made here, or past the operator's
    retention)."""

    code = "not_found"


class ProjectNotFound(ToolError):
    """A project id this server's store does not hold (never saved here, or deleted)."""

    code = "not_found"


class CheckNotFound(ToolError):
    """A check id the readability scale does not have."""

    code = "not_found"


class InvalidProject(ToolError):
    """A project definition its schema allows but that cannot run (a selector no reader can use, an
    unknown parent dataset); ``detail.errors`` lists each problem with its path."""

    code = "invalid_config"


class InvalidQuery(ToolError):
    """A data tool's filter or sort that cannot be read: ``detail`` names the argument, the position
    and what was expected there."""

    code = "invalid_query"


class NameTaken(ToolError):
    """Another project of the store already has the name asked for."""

    code = "conflict"


class AmbiguousName(ToolError):
    """A project name that matches several projects but for case; ``detail.project_ids`` lists
    them."""

    code = "conflict"


class StoreFailure(ToolError):
    """The run store could not take a write (its disk is full, it became read-only): nothing it had
    committed is lost, and the same call can succeed once the operator makes room."""

    code = "store_error"


class ConfigurationError(NetgleanError):
    """Bad operator settings or an unusable generated registry; raised at start-up."""


def _rebuilt(
    cls: type[ToolError],
    message: str,
    detail: dict[str, Any],
    next_step: str | None,
    state: dict[str, Any],
) -> ToolError:
    error = ToolError.__new__(cls)
    ToolError.__init__(error, message, detail=detail, next_step=next_step)
    error.__dict__.update(state)
    return error
