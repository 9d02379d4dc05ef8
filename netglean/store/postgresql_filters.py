"""The filter language's tree (netglean.store.filters) compiled to PostgreSQL's SQL over JSONB: a
condition and an ORDER BY list with ``%s`` placeholders (psycopg's). Every value and every JSON key
is a bound parameter; the only text put into the SQL is a table's own column names and this
module's operators.

The language means what it means on SQLite (its tests run on both): a row's property is missing or
null, a number (a boolean as 1 or 0), or text (a string; an object or array as its JSON), and
every number orders before every text; text compares by its bytes (the columns are ``COLLATE
"C"``); a number compares exactly (``numeric``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from netglean.store.filters import And, Column, Compare, Condition, Property, Sort, Value


@dataclass(frozen=True, slots=True)
class Table:
    """The fields of a filter in one table: its text columns and its number columns (the store's
    name to the SQL column), and the JSONB column of a row's properties (None: it has none)."""

    text: Mapping[str, str]
    numbers: Mapping[str, str]
    properties: str | None = None


PROJECTS = Table(
    {"id": "id", "name": "name", "kind": "kind", "schedule": "schedule"},
    {"created": "created_at", "updated": "updated_at"},
)
ROWS = Table(
    {"key": "key", "run_id": "run_id"},
    {"created": "created_at", "updated": "updated_at"},
    "data",
)


@dataclass(slots=True)
class Clause:
    """SQL text with ``%s`` placeholders and the values bound to them, in order."""

    sql: str = ""
    params: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Typed:
    """A field as three SQL expressions: its number (NULL when it holds none), its text (NULL when
    it holds none) and whether it is missing; ``params`` are bound to each expression's
    placeholders (every one of them the JSON key, if any)."""

    number: str
    text: str
    missing: str
    key: str | None = None

    def bound(self, template: str) -> Clause:
        """``template`` with {number}, {text} and {missing} filled in, and its parameters."""
        sql = template.format(number=self.number, text=self.text, missing=self.missing)
        return Clause(sql, [self.key] * sql.count("%s") if self.key is not None else [])


_VALUE = "({column} -> %s::text)"
_NUMBER = (
    "(CASE jsonb_typeof({v}) WHEN 'number' THEN ({v})::numeric"
    + " WHEN 'boolean' THEN ({v})::boolean::int::numeric END)"
)
_TEXT = "(CASE WHEN jsonb_typeof({v}) IN ('string', 'object', 'array') THEN ({v}) #>> '{{}}' END)"
_MISSING = "(coalesce(jsonb_typeof({v}), 'null') = 'null')"
_NUMERIC_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
"""Text SQLite takes for a number where it compares it with a number column."""


def _typed(chosen: Column | Property, table: Table) -> _Typed:
    if isinstance(chosen, Column):
        if chosen.name in table.numbers:
            column = table.numbers[chosen.name]
            return _Typed(column, "NULL::text", f"({column} IS NULL)")
        column = table.text[chosen.name]
        return _Typed("NULL::numeric", column, f"({column} IS NULL)")
    if table.properties is None:
        raise ValueError(f"{chosen.key!r}: the table has no properties")
    v = _VALUE.format(column=table.properties)
    return _Typed(_NUMBER.format(v=v), _TEXT.format(v=v), _MISSING.format(v=v), chosen.key)


def condition_sql(condition: Condition | None, table: Table) -> Clause:
    """``condition`` as an SQL condition over ``table``; no condition is always true."""
    if condition is None:
        return Clause("TRUE")
    if isinstance(condition, Compare):
        return _compared(condition, table)
    left, right = condition_sql(condition.left, table), condition_sql(condition.right, table)
    joiner = "AND" if isinstance(condition, And) else "OR"
    return Clause(f"({left.sql} {joiner} {right.sql})", left.params + right.params)


def order_sql(sort: Sequence[Sort], table: Table) -> Clause:
    """``sort`` as an SQL ORDER BY list (empty for no keys): missing values first, then numbers,
    then text (SQLite's order), the other way round when descending."""
    parts: list[str] = []
    params: list[Any] = []
    for key in sort:
        way = "DESC" if key.descending else "ASC"
        nulls = "LAST" if key.descending else "FIRST"
        typed = _typed(key.field, table)
        if isinstance(key.field, Column):
            column = typed.number if key.field.name in table.numbers else typed.text
            parts.append(f"{column} {way} NULLS {nulls}")
            continue
        clause = typed.bound(
            "(CASE WHEN {missing} THEN 0 WHEN {number} IS NOT NULL THEN 1 ELSE 2 END) "
            + way
            + f', {{number}} {way}, {{text}} COLLATE "C" {way}'
        )
        parts.append(clause.sql)
        params += clause.params
    return Clause(", ".join(parts), params)


def _compared(compare: Compare, table: Table) -> Clause:
    typed = _typed(compare.field, table)
    value: Value = int(compare.value) if isinstance(compare.value, bool) else compare.value
    operator = compare.operator
    if operator in {"~", "!~"}:
        return _contains(typed, str(value), negated=operator == "!~")
    if value is None:
        return typed.bound("{missing}" if operator == "=" else "(NOT {missing})")
    if operator not in {"=", "!=", ">", ">=", "<", "<="}:
        raise ValueError(f"{operator!r} is no operator of the filter language")
    if isinstance(compare.field, Column):
        value = _as_column_compares(value, number=compare.field.name in table.numbers)
    if isinstance(value, str):
        return _text_compared(typed, operator, value)
    return _number_compared(typed, operator, str(value) if isinstance(value, int) else repr(value))


def _as_column_compares(value: str | int | float, *, number: bool) -> str | int | float:
    """A value as SQLite compares it with a column: a number as text for a text column, a
    number's text as the number for a number column (SQLite's affinities)."""
    if not number and not isinstance(value, str):
        return str(value) if isinstance(value, int) else repr(value)
    if number and isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value):
        whole = value.strip().lstrip("+-").isdigit()
        return int(value) if whole else float(value)
    return value


def _number_compared(typed: _Typed, operator: str, number: str) -> Clause:
    """Against a number: numbers compare by value; text is greater than any number."""
    compared = "({number} %s %%s::numeric)"
    if operator == "!=":
        template = f"(NOT coalesce({compared % '='}, FALSE))"
    elif operator in {">", ">="}:
        template = f"coalesce({compared % operator}, {{text}} IS NOT NULL)"
    else:
        template = f"coalesce({compared % operator}, FALSE)"
    return _with_value(typed, template, number)


def _text_compared(typed: _Typed, operator: str, text: str) -> Clause:
    """Against text: text compares by its bytes; any number is less. No stored text holds NUL
    (PostgreSQL's text cannot), so a value with one compares as its part before the NUL would,
    but for equality: "a" < "a\\0" as "a" <= "a"."""
    if "\x00" in text:
        if operator in {"=", "!="}:
            return Clause("FALSE" if operator == "=" else "TRUE")
        text = text[: text.index("\x00")]
        operator = {"<": "<=", "<=": "<=", ">": ">", ">=": ">"}[operator]
    compared = '({text} COLLATE "C" %s %%s::text)'
    if operator == "!=":
        template = f"(NOT coalesce({compared % '='}, FALSE))"
    elif operator in {"<", "<="}:
        template = f"coalesce({compared % operator}, {{number}} IS NOT NULL)"
    else:
        template = f"coalesce({compared % operator}, FALSE)"
    return _with_value(typed, template, text)


def _with_value(typed: _Typed, template: str, value: str) -> Clause:
    """``template`` bound, the one ``%s::`` placeholder of the value among the field's own."""
    head, tail = template.split("%s::", 1)
    first, second = typed.bound(head), typed.bound(tail)
    return Clause(f"{first.sql}%s::{second.sql}", [*first.params, value, *second.params])


def _contains(typed: _Typed, text: str, *, negated: bool) -> Clause:
    """Whether the field's text (a number's digits) holds ``text``, ASCII case aside; a missing
    field holds nothing."""
    if "\x00" in text:  # no stored text holds NUL
        return Clause("TRUE" if negated else "FALSE")
    template = "(strpos(lower(coalesce({text}, {number}::text, '') COLLATE \"C\"), %s::text) > 0)"
    found = _with_value(typed, template, text.lower())
    return Clause(f"(NOT {found.sql})", found.params) if negated else found
