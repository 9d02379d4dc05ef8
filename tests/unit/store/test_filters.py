"""The data tools' filter and sort language (netglean/store/filters.py): what each form means, its errors by
position, and fuzzing: no input makes SQLite fail, injects SQL, or reaches past the project it is asked of."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netglean.core.errors import InvalidQuery
from netglean.store.filters import (
    LARGEST_WHOLE,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_TERMS,
    SMALLEST_WHOLE,
    fields_of,
    order_by,
    where,
)

FIELDS = fields_of({"created": "created", "run": "run_id"}, "data")
ROWS = [
    (1, "r1", 1, {"name": "Scrape kit", "price": 12, "status": "new", "stock": None, "tags": "a_b"}),
    (1, "r1", 2, {"name": "Crawler", "price": 8.5, "status": "sold", "stock": 3}),
    (1, "r2", 3, {"name": "scraper pro", "price": 40, "status": "new", "stock": 0, "fresh": True}),
    (1, "r2", 4, {"name": "100% cotton", "price": None, "status": "used"}),
    (2, "r9", 5, {"name": "Scrape kit", "price": 12, "status": "new"}),  # another project's
]


@pytest.fixture(scope="module")
def db() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute("CREATE TABLE rows (project INTEGER, run_id TEXT, created INTEGER, data TEXT)")
    connection.executemany("INSERT INTO rows VALUES (?, ?, ?, ?)", [(p, r, c, json.dumps(d)) for p, r, c, d in ROWS])
    yield connection
    connection.close()


def _names(db: sqlite3.Connection, text: str, sort: str = "") -> list[str]:
    condition, ordering = where(text, FIELDS), order_by(sort, FIELDS, "created")
    sql = (
        f"SELECT json_extract(data, '$.name') FROM rows WHERE project = ? AND ({condition.sql}) ORDER BY {ordering.sql}"
    )
    return [row[0] for row in db.execute(sql, [1, *condition.params, *ordering.params])]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("", ["Scrape kit", "Crawler", "scraper pro", "100% cotton"]),
        ('name ~ "scrape"', ["Scrape kit", "scraper pro"]),
        ('name !~ "scrape"', ["Crawler", "100% cotton"]),
        ("price > 10", ["Scrape kit", "scraper pro"]),
        ("price >= 8.5 && price <= 12", ["Scrape kit", "Crawler"]),
        ('name~"scrape" && price>10 || status!="new"', ["Scrape kit", "Crawler", "scraper pro", "100% cotton"]),
        ('name ~ "scrape" && (price > 20 || status = "sold")', ["scraper pro"]),
        ("stock = null", ["Scrape kit", "100% cotton"]),
        ("stock != null", ["Crawler", "scraper pro"]),
        ("stock = 0", ["scraper pro"]),
        ("fresh = true", ["scraper pro"]),
        ('name ~ "100%"', ["100% cotton"]),  # % and _ are the text's, not LIKE's
        ('tags ~ "a_b"', ["Scrape kit"]),
        ('name ~ "0% c"', ["100% cotton"]),
        ("status != 'new'", ["Crawler", "100% cotton"]),
        ('run = "r2"', ["scraper pro", "100% cotton"]),
        ('name = "Say \\"hi\\""', []),
        ("missing = null", ["Scrape kit", "Crawler", "scraper pro", "100% cotton"]),
    ],
)
def test_each_form_means_what_the_language_says(db: sqlite3.Connection, text: str, names: list[str]) -> None:
    assert _names(db, text) == names


def test_sorts_by_several_fields_each_way(db: sqlite3.Connection) -> None:
    assert _names(db, "price != null", "-price") == ["scraper pro", "Scrape kit", "Crawler"]
    assert _names(db, "", "status,-created") == ["scraper pro", "Scrape kit", "Crawler", "100% cotton"]


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
        where(text, FIELDS)
    assert refused.value.detail["position"] == position and refused.value.detail["argument"] == "filter"
    assert refused.value.detail["expected"].startswith(expected) and f"position {position}" in refused.value.message


def test_an_unknown_field_is_refused_where_fields_are_only_columns() -> None:
    columns_only = fields_of({"name": "name"}, None)
    with pytest.raises(InvalidQuery) as refused:
        where('nmae = "x"', columns_only)
    assert refused.value.detail == {"argument": "filter", "position": 0, "expected": "a field the data has"}
    with pytest.raises(InvalidQuery):
        order_by("-nmae", columns_only, "name")


def test_bounds_on_terms_and_nesting() -> None:
    with pytest.raises(InvalidQuery) as deep:
        where("(" * (MAX_DEPTH + 1) + "a = 1" + ")" * (MAX_DEPTH + 1), FIELDS)
    assert "nested parentheses" in deep.value.message
    with pytest.raises(InvalidQuery) as many:
        where(" || ".join(["a = 1"] * (MAX_TERMS + 1)), FIELDS)
    assert "comparisons" in many.value.message


def test_whole_numbers_compare_exactly_to_the_ends_of_64_bits() -> None:
    """Not through a double, which rounds 2**53 + 1 to 2**53 and 2**63 - 1 to 2**63 (beyond SQLite's
    integers)."""
    numbers = {"near": 2**53 + 1, "largest": LARGEST_WHOLE, "smallest": SMALLEST_WHOLE, "zero": 0}
    rows = [(json.dumps({"name": name, "n": n}),) for name, n in numbers.items()]
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE rows (data TEXT)")
        db.executemany("INSERT INTO rows VALUES (?)", rows)

        def named(text: str) -> list[str]:
            condition = where(text, FIELDS)
            sql = f"SELECT json_extract(data, '$.name') FROM rows WHERE {condition.sql}"
            return sorted(row[0] for row in db.execute(sql, condition.params))

        assert named(f"n = {2**53 + 1}") == ["near"]
        assert named(f"n = {LARGEST_WHOLE}") == named(f"n >= {LARGEST_WHOLE}") == ["largest"]
        assert named(f"n = {SMALLEST_WHOLE}") == ["smallest"]
        assert named(f"n < {SMALLEST_WHOLE}") == named(f"n > {LARGEST_WHOLE}") == []
        assert named("n > 1e300") == named("n < -1e300") == []  # a double as large as it likes
        assert named("n = -000") == ["zero"]
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
def test_a_number_sqlite_cannot_hold_is_refused_naming_it(number: str, expected: str) -> None:
    for text in (f"price > {number}", f"created = {number}", f"(price < 1 || price != {number})"):
        with pytest.raises(InvalidQuery) as refused:
            where(text, FIELDS)
        at, detail = text.index(number), refused.value.detail
        assert detail["argument"] == "filter" and detail["position"] == at
        assert detail["expected"].startswith(expected) and f"position {at}" in refused.value.message
        assert repr(number[:40]) in refused.value.message  # the number, as much as a message shows


def test_contains_looks_for_a_whole_number_of_any_length(db: sqlite3.Connection) -> None:
    """~ compares text: the digits of a whole number as written, however many (a number's sign and
    leading zeros as any number's: -007 is -7)."""
    digits = "123456789012345678901234567890"
    assert where(f"sku ~ {digits}", FIELDS).params[-1] == f"%{digits}%"
    assert where("sku !~ -007", FIELDS).params[-1] == "%-7%"
    assert _names(db, "price ~ 40") == ["scraper pro"]
    with pytest.raises(InvalidQuery):
        where("price ~ 1e400", FIELDS)


ALPHABET = st.sampled_from(
    ["name", "price", "status", "run", "created", "x.y", "(", ")", "&&", "||", "=", "!=", ">", "<=", "~", "!~", '"',
     "'", "\\", "10", "-2.5e3", "true", "null", ";", "--", "/*", "' OR 1=1 --", '" OR 1=1 --', "%", "_", " ", "$",
     "DROP", "UNION SELECT", "?", "\x00", "é",
     "99999999999999999999", "9223372036854775807", "1e400", "-"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(ALPHABET, max_size=25).map("".join) | st.text(max_size=60))
def test_no_input_breaks_sqlite_or_reaches_another_project(db: sqlite3.Connection, text: str) -> None:
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
    lambda inner: st.builds(lambda a, j, b: f"({a} {j} {b})", inner, st.sampled_from(["&&", "||"]), inner),
    max_leaves=12,
)


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(FILTERS)
def test_every_well_formed_filter_runs(db: sqlite3.Connection, text: str) -> None:
    try:
        names = _names(db, text)
    except InvalidQuery as refused:  # null in an order or a contains, a number SQLite cannot hold
        refusals = ("= null", "a value to look for", "a whole number from", "a number within")
        assert refused.detail["expected"].startswith(refusals), refused.detail
        return
    assert len(names) <= 4
