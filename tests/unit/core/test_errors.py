"""The exception tree (netglean.core.errors): one root, one published code each, retry facts as
fields, the tree in the docstring the tree in the code, and every tool error pickled whole (reader
processes raise them, the server raises them again)."""

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
        return HttpStatus(
            "https://a.test/ answered 503", status=503, detail={"url": "https://a.test/"}
        )
    return cls(
        f"{cls.__name__} happened",
        detail={"url": "https://a.test/", "tries": [1, 2]},
        next_step="scrape",
    )


@pytest.mark.parametrize("cls", TOOL_ERRORS, ids=lambda cls: cls.__name__)
def test_every_tool_error_pickles_whole(cls: type[ToolError]) -> None:
    error = _made(cls)
    error.seen_by = "a reader process"  # type: ignore[attr-defined]  # what a raiser adds comes along too
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls
    assert (again.message, again.detail, again.next_step) == (
        error.message,
        error.detail,
        error.next_step,
    )
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
        assert (error.status, error.detail["status"], error.retryable) == (
            status,
            status,
            retryable,
        )


def test_every_code_is_published_and_every_error_has_one_root() -> None:
    published = ERROR_SCHEMA["properties"]["code"]["enum"]
    assert list(ERROR_CODES) == sorted(set(ERROR_CODES)) == published
    assert {cls.code for cls in TOOL_ERRORS} == set(ERROR_CODES)
    for cls in TOOL_ERRORS:
        assert issubclass(cls, NetgleanError)
    assert issubclass(errors.ConfigurationError, NetgleanError) and not issubclass(
        errors.ConfigurationError, ToolError
    )


def test_policy_refusals_are_never_retried_and_transport_failures_apart() -> None:
    refusals = set(_below(errors.PolicyRefusal))
    assert refusals == {errors.BadUrl, errors.BlockedAddress, errors.RobotsDisallowed,
                        errors.BudgetExhausted, errors.SchemeDowngrade,
                        errors.OperatorPolicy}  # fmt: skip
    assert not any(cls("x").retryable for cls in refusals)
    assert not refusals & set(_below(errors.FetchError))
    assert errors.Unreachable("x").retryable and errors.FetchTimeout("x").retryable


_DRAWN = re.compile(r"^([│ ]*(?:[├└]── )?\w+)(.*)$")
"""A line of the drawing: the glyphs and the class name, then its code (if it sets one)."""


def _drawn_from_the_classes(cls: type[NetgleanError], glyphs: str = "") -> Iterator[str]:
    """Each class below ``cls`` as the docstring draws it: the tree's glyphs, the name, the code a
    class sets itself. Only the module's own: a subclass elsewhere (netglean.api's CallFailed) is
    drawn where it is defined, and is among the subclasses only once its module is imported."""
    below = [sub for sub in cls.__subclasses__() if sub.__module__ == errors.__name__]
    for position, sub in enumerate(below):
        last = position == len(below) - 1
        code = vars(sub).get("code", "")
        yield f"{glyphs}{'└── ' if last else '├── '}{sub.__name__} {code}".rstrip()
        yield from _drawn_from_the_classes(sub, glyphs + ("    " if last else "│   "))


def test_the_tree_in_the_docstring_is_the_tree_in_the_code() -> None:
    """The module's docstring draws the tree, glyph for glyph; a class moved or added without
    redrawing it, or a code changed, shows here (the text after ' - ' is the drawing's own)."""
    drawing = (errors.__doc__ or "").split("::\n\n", 1)[1].split("\n\n", 1)[0]
    drawn = []
    for line in drawing.splitlines():
        parts = _DRAWN.match(line.removeprefix("    ").split(" - ")[0])
        assert parts, line
        drawn.append(f"{parts[1]} {parts[2].strip()}".rstrip())
    assert drawn == ["NetgleanError", *_drawn_from_the_classes(NetgleanError)]


def test_every_code_has_its_facts_and_a_class_that_raises_it() -> None:
    assert set(errors.CODES) == {cls.code for cls in TOOL_ERRORS}
    for code, facts in errors.CODES.items():
        assert facts.sentence and facts.guidance, code
        assert set(re.findall(r"{(\w*)}", facts.guidance)) <= {"tool"}, code
        assert facts.rest_status in {200, 413, 422, 500, 503, 504}, code


def test_an_error_class_naming_a_code_without_facts_fails_where_it_is_defined() -> None:
    with pytest.raises(TypeError, match=r"'not_a_code' is not in netglean\.core\.errors\.CODES"):
        type("Misspelt", (ToolError,), {"code": "not_a_code"})
