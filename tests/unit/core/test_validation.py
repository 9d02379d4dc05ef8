"""Validation problems (netglean.core.validation): each says which argument is at fault, by pointer
and by name, in a sentence a model can act on, and quotes what was sent briefly."""

from __future__ import annotations

import pytest

from netglean.core.validation import (
    MAX_REPORTED,
    MESSAGE_CHARS,
    QUOTED_CHARS,
    Problem,
    SchemaValidator,
    json_type,
    quote_name,
    quote_value,
    report_problems,
    shorten_message,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "maxLength": 20},
        "limit": {"type": "integer", "minimum": 1},
        "format": {"enum": ["markdown", "text"]},
        "pages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "additionalProperties": False,
            },
        },
        "odd/key~": {"type": "boolean"},
    },
    "required": ["url"],
    "additionalProperties": False,
}
VALIDATOR = SchemaValidator(SCHEMA)


def _problems(instance: object) -> list[tuple[str, str, str]]:
    return [(p.pointer, p.argument, p.message) for p in VALIDATOR.problems(instance)]


def test_a_valid_instance_has_no_problems() -> None:
    assert (
        VALIDATOR.is_valid({"url": "https://a.test/"})
        and VALIDATOR.problems({"url": "https://a.test/"}) == []
    )


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        ({}, [("/url", "url", "missing required argument 'url'")]),
        (
            {"url": "u", "colour": "red"},
            [("/colour", "colour", "unknown argument 'colour'")],
        ),
        (
            {"url": "u", "limit": "50"},  # strict: a string of digits is no integer
            [("/limit", "limit", "argument 'limit' must be integer, got string \"50\"")],
        ),
        (
            {"url": "u", "limit": 0},
            [("/limit", "limit", "argument 'limit': 0 is less than the minimum of 1")],
        ),
        (
            {"url": "u", "format": "pdf"},
            [
                (
                    "/format",
                    "format",
                    'argument \'format\': "pdf" is not one of "markdown" or "text"',
                )
            ],
        ),
        (
            {"url": "u", "pages": [{"path": "/a"}, {"path": 3, "depth": 1}]},
            [
                ("/pages/1/depth", "pages[1].depth", "unknown argument 'pages[1].depth'"),
                (
                    "/pages/1/path",
                    "pages[1].path",
                    "argument 'pages[1].path' must be string, got integer 3",
                ),
            ],
        ),
        (  # RFC 6901: ~ is ~0 and / is ~1 in a pointer; the name is the key as sent
            {"url": "u", "odd/key~": "yes"},
            [
                (
                    "/odd~1key~0",
                    "odd/key~",
                    "argument 'odd/key~' must be boolean, got string \"yes\"",
                )
            ],
        ),
    ],
)
def test_each_problem_names_its_argument(
    instance: object, expected: list[tuple[str, str, str]]
) -> None:
    assert _problems(instance) == expected


def test_problems_come_in_pointer_order_once_each() -> None:
    found = _problems({"zeta": 1, "limit": "x", "alpha": 2})
    assert [pointer for pointer, _, _ in found] == ["/alpha", "/limit", "/url", "/zeta"]


def test_a_long_value_is_quoted_short() -> None:
    [(_, _, message)] = _problems({"url": "https://a.test/" + "x" * 100_000})
    assert (
        message.startswith("argument 'url': \"https://a.test/xxx")
        and "is longer than 20 characters" in message
    )
    assert "… (100015 characters)" in message and len(message) < 150


URLS = [f"https://example.org/page/{n}" for n in range(101)]
LISTS = SchemaValidator(
    {
        "type": "object",
        "properties": {
            "urls": {"type": "array", "maxItems": 100, "items": {"type": "string"}},
            "one": {"type": "string"},
            "ratio": {"type": "array", "maxItems": 1},
            "name": {"enum": ["a", "b"]},
        },
        "additionalProperties": False,
    }
)


@pytest.mark.parametrize(
    ("arguments", "pointer", "size", "says"),
    [
        ({"urls": URLS}, "/urls", "(101 items)", "has more than 100 items"),
        ({"one": URLS}, "/one", "(101 items)", "argument 'one' must be string, got array"),
        ({"name": "n" * 100_000}, "/name", "(100000 characters)", 'is not one of "a" or "b"'),
        (
            {"one": {str(n): n for n in range(500)}},
            "/one",
            "(500 keys)",
            "must be string, got object",
        ),
    ],
    ids=["101-url-array", "array-for-a-string", "100-kB-string", "object-for-a-string"],
)
def test_an_argument_value_is_quoted_in_80_characters_and_its_size(
    arguments: dict[str, object], pointer: str, size: str, says: str
) -> None:
    [problem] = LISTS.problems(arguments)
    assert problem.pointer == pointer and says in problem.message and size in problem.message
    # the quote, its size and the sentence around it
    assert len(problem.message) < QUOTED_CHARS + 80


def test_a_long_unknown_name_is_cut_in_the_message_the_pointer_and_the_argument() -> None:
    [problem] = LISTS.problems({"k" * 100_000: 1})
    cut = "k" * QUOTED_CHARS + "… (100000 characters)"
    assert problem.message == f"unknown argument '{cut}'"
    assert (problem.pointer, problem.argument) == (f"/{cut}", cut)


def test_a_value_the_validator_spells_its_own_way_still_makes_a_bounded_sentence() -> None:
    # the validator writes 1.5e+300, JSON 1.5e300
    [problem] = LISTS.problems({"ratio": [1.5e300] * 5_000})
    assert len(problem.message) <= MESSAGE_CHARS and problem.message.endswith(
        "has more than 1 item"
    )


def test_quoting_keeps_short_values_whole_and_counts_long_ones() -> None:
    assert quote_value(URLS[:2]) == '["https://example.org/page/0", "https://example.org/page/1"]'
    assert quote_value(URLS) == f"{quote_value(URLS[:3])[:QUOTED_CHARS]}… (101 items)"
    assert quote_value(["x" * 200]).endswith("… (1 item)") and quote_value("é" * 81).endswith(
        "… (81 characters)"
    )
    assert quote_name("short") == "short" and quote_name("n" * 81) == "n" * 80 + "… (81 characters)"
    long = "a" * 300 + " has more than 1 item"
    assert shorten_message("fine") == "fine" and shorten_message(long).endswith(
        "has more than 1 item"
    )
    assert shorten_message(long).startswith("a" * QUOTED_CHARS + "… (321 characters) …")


def test_what_is_not_an_object_is_the_arguments_fault() -> None:
    [(pointer, argument, message)] = _problems(["https://a.test/"])
    assert (pointer, argument) == ("", "") and message.startswith(
        "the arguments must be object, got array"
    )


def test_the_hint_lists_what_a_closed_schema_accepts() -> None:
    assert VALIDATOR.hint() == "expected arguments: format, limit, odd/key~, pages, url"
    assert SchemaValidator({"type": "object", "properties": {"a": {}}}).hint() == ""


def test_many_problems_are_counted_beyond_the_first_few() -> None:
    problems = [Problem(f"/{n}", str(n), "bad") for n in range(MAX_REPORTED + 5)]
    assert report_problems(problems) == (problems[:MAX_REPORTED], 5)
    assert report_problems(problems[:3]) == (problems[:3], 0)


def test_json_types_are_named_as_json_names_them() -> None:
    assert [json_type(v) for v in (None, True, 0, 1.5, "s", [], {})] == [
        "null",
        "boolean",
        "integer",
        "number",
        "string",
        "array",
        "object",
    ]


def test_a_problem_reads_as_argument_pointer_problem() -> None:
    problem = Problem("/pages/0", "pages[0]", "bad")
    assert problem.as_dict() == {"argument": "pages[0]", "pointer": "/pages/0", "problem": "bad"}
