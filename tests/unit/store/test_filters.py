"""The data tools' filter and sort language (netglean/store/filters.py), through each backend's
``rows``: what each form means, its errors by position, and fuzzing: no input makes the store fail,
injects into its query, or reaches past the project it is asked of."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st

from netglean.core.errors import InvalidQuery
from netglean.store.base import Project, RunStore
from netglean.store.filters import (
    LARGEST_WHOLE,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_TERMS,
    SMALLEST_WHOLE,
    Compare,
    Property,
    fields_of,
    parse_filter,
    parse_sort,
)
from tests.support.seed import REPLAY, SEED
from tests.support.stores import open_store

FIELDS = fields_of({"created": "created", "run": "run_id"}, properties=True)
DATASET = "d"
ROWS = [
    (
        1,
        "r1",
        1,
        {"name": "Scrape kit", "price": 12, "status": "new", "stock": None, "tags": "a_b"},
    ),
    (1, "r1", 2, {"name": "Crawler", "price": 8.5, "status": "sold", "stock": 3}),
    (1, "r2", 3, {"name": "scraper pro", "price": 40, "status": "new", "stock": 0, "fresh": True}),
    (1, "r2", 4, {"name": "100% cotton", "price": None, "status": "used"}),
    (2, "r9", 5, {"name": "Scrape kit", "price": 12, "status": "new"}),  # another project's
]


Written = tuple[int, str, int, dict[str, Any]]
"""A row as a test writes it: its project's number, its run, its place in order, its data."""


def _filled(folder: Path, backend: str, rows: Sequence[Written]) -> RunStore:
    """A store holding ``rows`` in dataset DATASET of projects p1, p2..., each keyed k<order> and
    written after the one before it, so that sorting by created sorts by order."""
    store = open_store(backend, folder)

    async def fill() -> None:
        projects = sorted({f"p{number}" for number, *_ in rows})
        for pid in projects:
            await store.save_project(Project(pid, pid, "extract", {}, {}, None, "secret", 1.0, 1.0))
        for project, run_id, order, data in rows:
            await store.write_rows(f"p{project}", run_id, {DATASET: [(f"k{order}", data)]})
        for pid in projects:
            kept, _ = await store.rows(pid, DATASET, where=None, order=(), offset=0, limit=99)
            stamps = [row.created_at for row in sorted(kept, key=lambda row: int(row.key[1:]))]
            assert stamps == sorted(set(stamps)), "rows written in order have rising times"

    anyio.run(fill)
    return store


def _found(store: RunStore, text: str, sort: str = "") -> list[dict[str, Any]]:
    """The data of project p1's rows that ``text`` selects, in ``sort`` (else by created)."""
    condition, ordering = parse_filter(text, FIELDS), parse_sort(sort, FIELDS, "created")

    async def page() -> list[dict[str, Any]]:
        rows, _ = await store.rows(
            "p1",
            DATASET,
            where=condition,
            order=ordering,
            offset=0,
            limit=99,
        )
        return [row.data for row in rows]

    return anyio.run(page)


@pytest.fixture(scope="module")
def db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    store = _filled(tmp_path_factory.mktemp("filters"), backend, ROWS)
    yield store
    store.close()


def _names(db: RunStore, text: str, sort: str = "") -> list[str]:
    return [data["name"] for data in _found(db, text, sort)]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("", ["Scrape kit", "Crawler", "scraper pro", "100% cotton"]),
        ('name ~ "scrape"', ["Scrape kit", "scraper pro"]),
        ('name !~ "scrape"', ["Crawler", "100% cotton"]),
        ("price > 10", ["Scrape kit", "scraper pro"]),
        ("price >= 8.5 && price <= 12", ["Scrape kit", "Crawler"]),
        (
            'name~"scrape" && price>10 || status!="new"',
            ["Scrape kit", "Crawler", "scraper pro", "100% cotton"],
        ),
        ('name ~ "scrape" && (price > 20 || status = "sold")', ["scraper pro"]),
        ("stock = null", ["Scrape kit", "100% cotton"]),
        ("stock != null", ["Crawler", "scraper pro"]),
        ("stock = 0", ["scraper pro"]),
        ("fresh = true", ["scraper pro"]),
        ('name ~ "100%"', ["100% cotton"]),  # % and _ are the text's, not LIKE's
        ('tags ~ "a_b"', ["Scrape kit"]),
        ('name ~ "0% c"', ["100% cotton"]),
        ("status != 'new'", ["Crawler", "100% cotton"]),
        # a missing price is not 12 either
        ("price != 12", ["Crawler", "scraper pro", "100% cotton"]),
        ('run = "r2"', ["scraper pro", "100% cotton"]),
        ('name = "Say \\"hi\\""', []),
        ("missing = null", ["Scrape kit", "Crawler", "scraper pro", "100% cotton"]),
    ],
)
def test_each_form_means_what_the_language_says(db: RunStore, text: str, names: list[str]) -> None:
    assert _names(db, text) == names


def test_sorts_by_several_fields_each_way(db: RunStore) -> None:
    assert _names(db, "price != null", "-price") == ["scraper pro", "Scrape kit", "Crawler"]
    assert _names(db, "", "status,-created") == [
        "scraper pro",
        "Scrape kit",
        "Crawler",
        "100% cotton",
    ]


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("price >", 7, "a value"),
        ("price 10", 6, "an operator"),
        ("(price > 1", 10, "a closing parenthesis"),
        ("price > 1 price", 10, "&&, || or the end"),
        ("&& price > 1", 0, "a field name"),
        ("price > 1 &&", 12, "a field name"),
        ('price > "open', 8, "a field, an operator"),
        ("price > 1; DROP TABLE rows", 9, "a field, an operator"),
        ("price > null", 8, "= null or != null"),
        ("name ~ null", 7, "a value to look for"),
        ("price > abc", 8, "a value"),
        ("1 = 1", 0, "a field name"),
    ],
)
def test_a_filter_that_cannot_be_read_names_the_position_and_what_was_expected(
    text: str, position: int, expected: str
) -> None:
    with pytest.raises(InvalidQuery) as refused:
        parse_filter(text, FIELDS)
    assert (
        refused.value.detail["position"] == position
        and refused.value.detail["argument"] == "filter"
    )
    assert (
        refused.value.detail["expected"].startswith(expected)
        and f"position {position}" in refused.value.message
    )


def test_an_unknown_field_is_refused_where_fields_are_only_columns() -> None:
    columns_only = fields_of({"name": "name"}, properties=False)
    with pytest.raises(InvalidQuery) as refused:
        parse_filter('nmae = "x"', columns_only)
    assert refused.value.detail == {
        "argument": "filter",
        "position": 0,
        "expected": "a field the data has",
    }
    with pytest.raises(InvalidQuery):
        parse_sort("-nmae", columns_only, "name")


def test_bounds_on_terms_and_nesting() -> None:
    with pytest.raises(InvalidQuery) as deep:
        parse_filter("(" * (MAX_DEPTH + 1) + "a = 1" + ")" * (MAX_DEPTH + 1), FIELDS)
    assert "nested parentheses" in deep.value.message
    with pytest.raises(InvalidQuery) as many:
        parse_filter(" || ".join(["a = 1"] * (MAX_TERMS + 1)), FIELDS)
    assert "comparisons" in many.value.message


def test_whole_numbers_compare_exactly_to_the_ends_of_64_bits(backend: str, tmp_path: Path) -> None:
    """Not through a double, which rounds 2**53 + 1 to 2**53 and 2**63 - 1 to 2**63 (beyond SQLite's
    integers)."""
    numbers = {"near": 2**53 + 1, "largest": LARGEST_WHOLE, "smallest": SMALLEST_WHOLE, "zero": 0}
    rows = [(1, "r", at, {"name": name, "n": n}) for at, (name, n) in enumerate(numbers.items())]
    db = _filled(tmp_path, backend, rows)
    try:

        def named(text: str) -> list[str]:
            return sorted(data["name"] for data in _found(db, text))

        assert named(f"n = {2**53 + 1}") == ["near"]
        assert named(f"n = {LARGEST_WHOLE}") == named(f"n >= {LARGEST_WHOLE}") == ["largest"]
        assert named(f"n = {SMALLEST_WHOLE}") == ["smallest"]
        assert named(f"n < {SMALLEST_WHOLE}") == named(f"n > {LARGEST_WHOLE}") == []
        assert named("n > 1e300") == named("n < -1e300") == []  # a double as large as it likes
        assert named("n = -000") == ["zero"]
    finally:
        db.close()


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("99999999999999999999", "a whole number from"),
        ("-99999999999999999999", "a whole number from"),
        (str(LARGEST_WHOLE + 1), "a whole number from"),
        (str(SMALLEST_WHOLE - 1), "a whole number from"),
        ("9" * (MAX_CHARS - 40), "a whole number from"),  # as long as a filter holds: not parsed
        ("1e400", "a number within"),
        ("-1e400", "a number within"),
        ("1" * 400 + ".5", "a number within"),
    ],
)
def test_a_number_a_filter_cannot_hold_is_refused_naming_it(number: str, expected: str) -> None:
    for text in (f"price > {number}", f"created = {number}", f"(price < 1 || price != {number})"):
        with pytest.raises(InvalidQuery) as refused:
            parse_filter(text, FIELDS)
        at, detail = text.index(number), refused.value.detail
        assert detail["argument"] == "filter" and detail["position"] == at
        assert detail["expected"].startswith(expected) and f"position {at}" in refused.value.message
        assert repr(number[:40]) in refused.value.message  # the number, as much as a message shows


def test_contains_looks_for_a_whole_number_of_any_length(db: RunStore) -> None:
    """~ compares text: the digits of a whole number as written, however many (a number's sign and
    leading zeros as any number's: -007 is -7)."""
    digits = "123456789012345678901234567890"
    assert parse_filter(f"sku ~ {digits}", FIELDS) == Compare(Property("sku"), "~", digits)
    assert parse_filter("sku !~ -007", FIELDS) == Compare(Property("sku"), "!~", "-7")
    assert _names(db, "price ~ 40") == ["scraper pro"]
    with pytest.raises(InvalidQuery):
        parse_filter("price ~ 1e400", FIELDS)


ALPHABET = st.sampled_from(
    ["name", "price", "status", "run", "created", "x.y", "(", ")", "&&", "||", "=", "!=", ">",
     "<=", "~", "!~", '"', "'", "\\", "10", "-2.5e3", "true", "null", ";", "--", "/*",
     "' OR 1=1 --", '" OR 1=1 --', "%", "_", " ", "$",
     "DROP", "UNION SELECT", "?", "\x00", "é",
     "99999999999999999999", "9223372036854775807", "1e400", "-"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@seed(SEED)
@given(st.lists(ALPHABET, max_size=25).map("".join) | st.text(max_size=60))
def test_no_input_breaks_the_store_or_reaches_another_project(db: RunStore, text: str) -> None:
    note(REPLAY)
    try:
        names = _names(db, text)
    except InvalidQuery:
        return
    assert set(names) <= {"Scrape kit", "Crawler", "scraper pro", "100% cotton"}
    assert len(names) <= 4  # project 2's row is never among them


VALUES = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.integers().map(str),  # beyond 64 bits too
    st.floats(allow_nan=False, allow_infinity=False).map(repr),  # up to 1.7976931348623157e+308
    st.sampled_from(["1e400", "-1e400", "1" * 30]),
    st.text(max_size=12).map(json.dumps),
    st.sampled_from(["true", "false", "null"]),
)
COMPARISON = st.builds(
    lambda f, o, v: f"{f} {o} {v}",
    st.sampled_from(["name", "price", "status", "stock", "run", "created", "absent"]),
    st.sampled_from(["=", "!=", ">", ">=", "<", "<=", "~", "!~"]),
    VALUES,
)
FILTERS = st.recursive(
    COMPARISON,
    lambda inner: st.builds(
        lambda a, j, b: f"({a} {j} {b})", inner, st.sampled_from(["&&", "||"]), inner
    ),
    max_leaves=12,
)


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@seed(SEED)
@given(FILTERS)
def test_every_well_formed_filter_runs(db: RunStore, text: str) -> None:
    note(REPLAY)
    try:
        names = _names(db, text)
    except InvalidQuery as refused:  # null in an order or a contains, a number a filter cannot hold
        refusals = ("= null", "a value to look for", "a whole number from", "a number within")
        assert refused.detail["expected"].startswith(refusals), refused.detail
        return
    assert len(names) <= 4


# What each filter selects, against a model of the language in Python: every operator, on numbers,
# on text with quotes and backslashes, on missing values, combined; a value pasted into the SQL
# instead of bound shows here.

MISSING = object()
"""A row without the property: SQLite's json_extract gives NULL, as for a JSON null."""
MODEL_ROWS = [
    {"name": "O'Brien's \"best\" kit", "price": 12, "status": "new", "stock": 2},
    {"name": "Crawler", "price": 8.5, "status": "sold", "stock": None},
    {"name": "back\\slash 12", "price": -3, "status": "it's new"},
    {"name": 'Say "hi"', "price": 40, "status": 'say "sold"', "stock": 0},
    {"name": "12", "price": None, "status": "12"},
    {"name": "Free", "price": 0, "stock": True},
]
OPERATORS = ["=", "!=", ">", ">=", "<", "<=", "~", "!~"]
MODEL_FIELDS = ["name", "price", "status", "stock", "absent"]
MODEL_VALUES: list[object] = sorted(
    {
        value
        for row in MODEL_ROWS
        for value in row.values()
        if value is not None and not isinstance(value, bool)
    }
    | {13, 1.5, 0.0, "o'brien", 'say "', "\\", "'", '"', "sold", "NEW"},
    key=repr,
)


@pytest.fixture(scope="module")
def model_db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    rows = [(1, "r", order, row) for order, row in enumerate(MODEL_ROWS)]
    store = _filled(tmp_path_factory.mktemp("model"), backend, rows)
    yield store
    store.close()


def _literal(value: object, quote: str = '"') -> str:
    """``value`` as a filter writes it: a number as is, text quoted with its quote and backslashes
    escaped."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return quote + value.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote
    return repr(value)


def _ordered(value: object) -> tuple[int, object]:
    """SQLite's order across types: every number before every text."""
    return (1, value) if isinstance(value, str) else (0, value)


def _holds(row: dict[str, object], field: str, operator: str, value: object) -> bool:
    """Whether ``row`` matches ``field operator value`` as the README's filter language says."""
    actual = row.get(field, MISSING)
    actual = None if actual is MISSING else int(actual) if isinstance(actual, bool) else actual
    if operator in {"~", "!~"}:
        text = "" if actual is None else str(actual).lower()
        found = str(value).lower() in text
        return found if operator == "~" else not found
    if value is None:
        return (actual is None) == (operator == "=")
    if actual is None:
        return operator == "!="  # a missing value equals nothing, and is unequal to everything
    left, right = _ordered(actual), _ordered(value)
    return {
        "=": left == right,
        "!=": left != right,
        ">": left > right,  # type: ignore[operator]
        ">=": left >= right,  # type: ignore[operator]
        "<": left < right,  # type: ignore[operator]
        "<=": left <= right,  # type: ignore[operator]
    }[operator]


def _selected(db: RunStore, text: str) -> list[int]:
    """The places in MODEL_ROWS of the rows ``text`` selects, in order."""
    return [MODEL_ROWS.index(data) for data in _found(db, text)]


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize(
    "value", [12, 8.5, -3, 0, "12", "O'Brien's \"best\" kit", 'say "sold"', "it's new"]
)
def test_every_operator_selects_what_it_says_on_numbers_and_quoted_text(
    model_db: RunStore, operator: str, value: object
) -> None:
    for field in MODEL_FIELDS:
        for quote in "\"'":
            text = f"{field} {operator} {_literal(value, quote)}"
            expected = [
                n for n, row in enumerate(MODEL_ROWS) if _holds(row, field, operator, value)
            ]
            assert _selected(model_db, text) == expected, text


COMPARED = st.builds(
    lambda field, operator, value, quote: (field, operator, value, quote),
    st.sampled_from(MODEL_FIELDS),
    st.sampled_from(OPERATORS),
    st.sampled_from([*MODEL_VALUES, None])
    | st.integers(-50, 50)
    | st.text(alphabet="aB'\" 1_%\\", max_size=6),
    st.sampled_from("\"'"),
).filter(lambda term: term[2] is not None or term[1] in {"=", "!="})
MODELLED = st.recursive(
    COMPARED,
    lambda inner: st.tuples(inner, st.sampled_from(["&&", "||"]), inner),
    max_leaves=6,
)


def _written(term: tuple[object, ...]) -> str:
    if len(term) == 3:
        left, joiner, right = term
        return f"({_written(left)} {joiner} {_written(right)})"  # type: ignore[arg-type]
    field, operator, value, quote = term
    return f"{field} {operator} {_literal(value, str(quote))}"


def _model(row: dict[str, object], term: tuple[object, ...]) -> bool:
    if len(term) == 3:
        left, joiner, right = term
        if joiner == "&&":
            return _model(row, left) and _model(row, right)  # type: ignore[arg-type]
        return _model(row, left) or _model(row, right)  # type: ignore[arg-type]
    field, operator, value, _ = term
    return _holds(row, str(field), str(operator), value)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@seed(SEED)
@given(MODELLED)
def test_every_filter_selects_the_rows_the_language_says(
    model_db: RunStore,
    term: tuple[object, ...],
) -> None:
    text = _written(term)
    note(f"{REPLAY}; filter {text}")
    expected = [n for n, row in enumerate(MODEL_ROWS) if _model(row, term)]
    assert _selected(model_db, text) == expected, text
