"""The exception tree (netglean.core.errors): one root, one published code each, retry facts as fields, the tree in
the docstring the tree in the code, and every tool error pickled whole (reader processes raise them, the server
raises them again)."""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator

import pytest

from netglean.core import errors
from netglean.core.envelope import ERROR_SCHEMA
from netglean.core.errors import ERROR_CODES, HttpStatus, NetgleanError, ToolError


def _below(cls: type[ToolError]) -> Iterator[type[ToolError]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _below(sub)


TOOL_ERRORS = [ToolError, *_below(ToolError)]


def _made(cls: type[ToolError]) -> ToolError:
    if cls is HttpStatus:
        return HttpStatus("https://a.test/ answered 503", status=503, detail={"url": "https://a.test/"})
    return cls(f"{cls.__name__} happened", detail={"url": "https://a.test/", "tries": [1, 2]}, next_step="scrape")


@pytest.mark.parametrize("cls", TOOL_ERRORS, ids=lambda cls: cls.__name__)
def test_every_tool_error_pickles_whole(cls: type[ToolError]) -> None:
    error = _made(cls)
    error.seen_by = "a reader process"  # type: ignore[attr-defined]  # what a raiser adds comes along too
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls
    assert (again.message, again.detail, again.next_step) == (error.message, error.detail, error.next_step)
    assert (again.code, again.retryable, str(again), again.args) == (
        error.code,
        error.retryable,
        str(error),
        error.args,
    )
    assert again.seen_by == "a reader process"  # type: ignore[attr-defined]


def test_an_http_status_keeps_its_status_and_says_from_it_whether_to_retry() -> None:
    for status, retryable in ((404, False), (403, False), (429, True), (500, True), (503, True)):
        error = pickle.loads(pickle.dumps(HttpStatus("x", status=status)))
        assert (error.status, error.detail["status"], error.retryable) == (status, status, retryable)


def test_every_code_is_published_and_every_error_has_one_root() -> None:
    published = ERROR_SCHEMA["properties"]["code"]["enum"]
    assert list(ERROR_CODES) == sorted(set(ERROR_CODES)) == published
    assert {cls.code for cls in TOOL_ERRORS} == set(ERROR_CODES)
    for cls in TOOL_ERRORS:
        assert issubclass(cls, NetgleanError)
    assert issubclass(errors.ConfigurationError, NetgleanError) and not issubclass(errors.ConfigurationError, ToolError)


def test_policy_refusals_are_never_retried_and_transport_failures_apart() -> None:
    refusals = set(_below(errors.PolicyRefusal))
    assert refusals == {errors.BadUrl, errors.BlockedAddress, errors.RobotsDisallowed, errors.BudgetExhausted,
                        errors.SchemeDowngrade, errors.OperatorPolicy}  # fmt: skip
    assert not any(cls("x").retryable for cls in refusals)
    assert not refusals & set(_below(errors.FetchError))
    assert errors.Unreachable("x").retryable and errors.FetchTimeout("x").retryable


_DRAWN = re.compile(r"^(?P<indent>[ │]*)[├└]── (?P<name>\w+)", re.MULTILINE)
_ROOT_INDENT = 4
"""The docstring's drawing is indented as a literal block, under its root (NetgleanError)."""


def test_the_tree_in_the_docstring_is_the_tree_in_the_code() -> None:
    """The module's docstring draws the tree; a class moved or added without redrawing it shows here."""
    drawn: dict[str, str] = {}
    parents = ["NetgleanError"]
    for match in _DRAWN.finditer(errors.__doc__ or ""):
        depth = (len(match["indent"]) - _ROOT_INDENT) // 4 + 1
        del parents[depth:]
        drawn[match["name"]] = parents[-1]
        parents.append(match["name"])
    in_code = {cls.__name__: cls.__base__.__name__ for cls in [*TOOL_ERRORS, errors.ConfigurationError]}
    assert drawn == in_code


def test_each_drawn_code_is_the_class_code() -> None:
    drawn = {}
    for line in (errors.__doc__ or "").splitlines():
        match = re.match(r"^[ │├└─]*(\w+)\s{2,}(\w+)(\s+-|$)", line)
        if match:
            drawn[match[1]] = match[2]
    coded = {cls.__name__: cls.code for cls in TOOL_ERRORS if cls.code != ToolError.code}
    assert drawn == coded
