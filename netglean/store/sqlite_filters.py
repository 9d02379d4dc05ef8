"""The filter language's tree (netglean.store.filters) compiled to SQLite's SQL: a condition and an
ORDER BY list with ``?`` placeholders. Every value and every JSON path is a bound parameter; the
only text put into the SQL is a table's own column expressions and the operators of this module."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from netglean.store.filters import And, Column, Compare, Condition, Field, Property, Sort, Value


@dataclass(frozen=True, slots=True)
class Table:
    """What the fields of a filter are in one SQL source: a column's name (the store's) to its SQL,
    and the JSON column of a row's properties (None: it has none)."""

    columns: Mapping[str, str]
    properties: str | None = None


PROJECTS = Table(
    {
        "id": "id",
        "name": "name",
        "kind": "kind",
        "schedule": "schedule",
        "created": "created_at",
        "updated": "updated_at",
    }
)
ROWS = Table({"key": "key", "run_id": "run_id", "created": "created", "updated": "updated"}, "data")
"""Over the rows as the store's ``_ROWS`` shows them: run_id, created and updated by those names."""


@dataclass(slots=True)
class Clause:
    """SQL text with ``?`` placeholders and the values bound to them, in order."""

    sql: str = ""
    params: list[Any] = field(default_factory=list)


def condition_sql(condition: Condition | None, table: Table) -> Clause:
    """``condition`` as an SQL condition over ``table``; no condition is always true."""
    if condition is None:
        return Clause("1", [])
    if isinstance(condition, Compare):
        return _compared(condition, table)
    left, right = condition_sql(condition.left, table), condition_sql(condition.right, table)
    joiner = "AND" if isinstance(condition, And) else "OR"
    return Clause(f"({left.sql} {joiner} {right.sql})", left.params + right.params)


def order_sql(sort: Sequence[Sort], table: Table) -> Clause:
    """``sort`` as an SQL ORDER BY list (empty for no keys)."""
    parts: list[str] = []
    params: list[Any] = []
    for key in sort:
        column = _field(key.field, table)
        parts.append(f"{column.sql} {'DESC' if key.descending else 'ASC'}")
        params += column.params
    return Clause(", ".join(parts), params)


def _field(chosen: Field, table: Table) -> Clause:
    if isinstance(chosen, Column):
        return Clause(table.columns[chosen.name])
    if table.properties is None:
        raise ValueError(f"{chosen.key!r}: the table has no properties")
    return _json_property(table.properties, chosen)


def _json_property(column: str, chosen: Property) -> Clause:
    """A key of a row's JSON properties (``column``): its JSON path is a bound parameter."""
    return Clause(f"json_extract({column}, ?)", ['$."' + chosen.key.replace('"', "") + '"'])


def _compared(compare: Compare, table: Table) -> Clause:
    column = _field(compare.field, table)
    params = list(column.params)
    value = _bound(compare.value)
    if compare.operator in {"~", "!~"}:
        pattern = "%" + _escaped(str(value).lower()) + "%"
        negated = "NOT " if compare.operator == "!~" else ""
        sql = f"(COALESCE(LOWER(CAST({column.sql} AS TEXT)), '') {negated}LIKE ? ESCAPE '\\')"
        return Clause(sql, [*params, pattern])
    if value is None:
        return Clause(f"({column.sql} IS {'NOT ' if compare.operator == '!=' else ''}NULL)", params)
    if compare.operator == "!=":  # a missing value is not equal to any value either
        return Clause(f"({column.sql} IS NOT ?)", [*params, value])
    if compare.operator not in {"=", ">", ">=", "<", "<="}:
        raise ValueError(f"{compare.operator!r} is no operator of the filter language")
    return Clause(f"({column.sql} {compare.operator} ?)", [*params, value])


def _bound(value: Value) -> Value:
    """A value as SQLite compares it: a boolean as SQLite's JSON functions give one (1 or 0)."""
    return int(value) if isinstance(value, bool) else value


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
