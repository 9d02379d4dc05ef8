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
from netglean.store.filters import MAX_DEPTH, MAX_TERMS, fields_of, order_by, where

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


ALPHABET = st.sampled_from(
    ["name", "price", "status", "run", "created", "x.y", "(", ")", "&&", "||", "=", "!=", ">", "<=", "~", "!~", '"',
     "'", "\\", "10", "-2.5e3", "true", "null", ";", "--", "/*", "' OR 1=1 --", '" OR 1=1 --', "%", "_", " ", "$",
     "DROP", "UNION SELECT", "?", "\x00", "é"]
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
    except InvalidQuery as refused:  # only null in an order or a contains is refused by the language
        assert "null" in refused.message or "value to look for" in refused.message, refused.message
        return
    assert len(names) <= 4
