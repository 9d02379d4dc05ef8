"""The filter and sort language of the data tools, parsed to parameterised SQL (never string-built from input).

A filter compares fields with values and joins the comparisons (PocketBase's shape)::

    name ~ "scrape" && price > 10 || (status != "sold" && stock = null)

- fields: a letter or ``_``, then letters, digits, ``_``, ``-`` and ``.``; which names exist is the caller's
  (``Fields``): a store column, or a key of a row's JSON properties.
- operators: ``=`` ``!=`` ``>`` ``>=`` ``<`` ``<=``, and ``~`` / ``!~`` (contains / does not contain, case-insensitive
  for ASCII); ``= null`` and ``!= null`` test for a missing value.
- values: strings in double or single quotes (backslash escapes the quote and itself), numbers, ``true``,
  ``false``, ``null``. A whole number is exact and SQLite's: 64 bits (``-9223372036854775808`` to
  ``9223372036854775807``); one with a point or an exponent is a double (to about ``1.8e308``).
  A number beyond either is refused, naming it, rather than compared as another; ``~`` looks
  for a whole number of any length.
- ``&&`` binds tighter than ``||``; parentheses group; at most MAX_TERMS comparisons and MAX_DEPTH nested groups.

A sort is fields separated by commas, each ascending or with a leading ``-`` descending (``-created,name``).

Every value and every JSON path reaches SQLite as a bound parameter; the only text put into the SQL is the
caller's own column expressions and the operators of this module. A filter that cannot be read is
``InvalidQuery`` naming the position and what was expected there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from netglean.core.errors import InvalidQuery

MAX_CHARS = 2_000
MAX_TERMS = 50
MAX_DEPTH = 10
MAX_SORT_FIELDS = 5
SMALLEST_WHOLE, LARGEST_WHOLE = -(2**63), 2**63 - 1
"""The whole numbers SQLite holds (64 bits): a filter's whole number is one, compared exactly."""

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<op>&&|\|\||!~|!=|>=|<=|[=<>~()])|(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    r"""|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<word>[A-Za-z_][\w.-]*)""",
    re.DOTALL,
)
_FIELD = re.compile(r"[A-Za-z_][\w.-]*")
_COMPARISONS = {"=": "=", "!=": "!=", ">": ">", ">=": ">=", "<": "<", "<=": "<="}

Fields = Callable[[str], "Column | None"]
"""What a field name stands for in SQL, or None for a name that does not exist."""


@dataclass(frozen=True, slots=True)
class Column:
    """A field's SQL: an expression of the caller's, with its own bound parameters (a JSON path)."""

    sql: str
    params: tuple[Any, ...] = ()


def json_property(column: str, key: str) -> Column:
    """A key of a row's JSON properties (``column``): its JSON path is a bound parameter."""
    return Column(f"json_extract({column}, ?)", ('$."' + key.replace('"', "") + '"',))


@dataclass(slots=True)
class Clause:
    """SQL text with ``?`` placeholders and the values bound to them, in order."""

    sql: str = ""
    params: list[Any] = field(default_factory=list)


def where(text: str, fields: Fields) -> Clause:
    """``text`` (a filter) as an SQL condition; an empty filter is always true."""
    if not text.strip():
        return Clause("1", [])
    if len(text) > MAX_CHARS:
        raise _problem(text, MAX_CHARS, f"a filter of at most {MAX_CHARS} characters")
    parser = _Parser(text, _tokens(text), fields)
    clause = parser.expression(0)
    if parser.at < len(parser.tokens):
        raise _problem(text, parser.tokens[parser.at][2], "&&, || or the end of the filter")
    return clause


def order_by(text: str, fields: Fields, default: str) -> Clause:
    """``text`` (a sort, else ``default``) as an SQL ORDER BY list."""
    wanted = text.strip() or default
    parts: list[str] = []
    params: list[Any] = []
    names = [name.strip() for name in wanted.split(",")]
    if len(names) > MAX_SORT_FIELDS:
        raise InvalidQuery(
            f"sort: at most {MAX_SORT_FIELDS} fields", detail={"argument": "sort", "expected": "fewer fields"}
        )
    for name in names:
        descending = name.startswith("-")
        bare = name[1:] if descending or name.startswith("+") else name
        column = fields(bare) if _FIELD.fullmatch(bare) else None
        if column is None:
            raise InvalidQuery(
                f"sort: {bare[:80]!r} is not a field to sort by",
                detail={"argument": "sort", "expected": "a field name, or -name for descending"},
            )
        parts.append(f"{column.sql} {'DESC' if descending else 'ASC'}")
        params += column.params
    return Clause(", ".join(parts), params)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    found: list[tuple[str, str, int]] = []
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise _problem(text, at, "a field, an operator, a value or a parenthesis")
        kind = match.lastgroup or ""
        if kind != "space":
            found.append((kind, match.group(), at))
        at = match.end()
    return found


class _Parser:
    def __init__(self, text: str, tokens: list[tuple[str, str, int]], fields: Fields) -> None:
        self.text, self.tokens, self.fields = text, tokens, fields
        self.at = 0
        self.terms = 0

    def _peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _where(self) -> int:
        token = self._peek()
        return token[2] if token is not None else len(self.text)

    def expression(self, depth: int) -> Clause:
        """or: and-terms joined by ||."""
        return self._joined(depth, "||", "OR", self._conjunction)

    def _conjunction(self, depth: int) -> Clause:
        return self._joined(depth, "&&", "AND", self._primary)

    def _joined(self, depth: int, token: str, sql: str, operand: Callable[[int], Clause]) -> Clause:
        """Operands joined by ``token`` (SQL's ``sql``), left to right."""
        left = operand(depth)
        while (found := self._peek()) is not None and found[1] == token:
            self.at += 1
            right = operand(depth)
            left = Clause(f"({left.sql} {sql} {right.sql})", left.params + right.params)
        return left

    def _primary(self, depth: int) -> Clause:
        token = self._peek()
        if token is not None and token[1] == "(":
            if depth >= MAX_DEPTH:
                raise _problem(self.text, token[2], f"at most {MAX_DEPTH} nested parentheses")
            self.at += 1
            inner = self.expression(depth + 1)
            closing = self._peek()
            if closing is None or closing[1] != ")":
                raise _problem(self.text, self._where(), "a closing parenthesis")
            self.at += 1
            return Clause(f"({inner.sql})", inner.params)
        return self._comparison()

    def _comparison(self) -> Clause:
        name = self._peek()
        if name is None or name[0] != "word" or name[1] in {"true", "false", "null"}:
            raise _problem(self.text, self._where(), "a field name or an opening parenthesis")
        column = self.fields(name[1])
        if column is None:
            raise _problem(self.text, name[2], "a field the data has", found=name[1])
        self.at += 1
        operator = self._peek()
        if operator is None or operator[0] != "op" or operator[1] not in {*_COMPARISONS, "~", "!~"}:
            raise _problem(self.text, self._where(), "an operator (= != > >= < <= ~ !~)")
        self.at += 1
        value = self._value(as_text=operator[1] in {"~", "!~"})
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise _problem(self.text, name[2], f"at most {MAX_TERMS} comparisons")
        params = list(column.params)
        if operator[1] in {"~", "!~"}:
            if value is None:
                raise _problem(self.text, self.tokens[self.at - 1][2], "a value to look for (not null)")
            pattern = "%" + _escaped(str(value).lower()) + "%"
            negated = "NOT " if operator[1] == "!~" else ""
            sql = f"(COALESCE(LOWER(CAST({column.sql} AS TEXT)), '') {negated}LIKE ? ESCAPE '\\')"
            return Clause(sql, [*params, pattern])
        if value is None:
            if operator[1] not in {"=", "!="}:
                raise _problem(self.text, self.tokens[self.at - 1][2], "= null or != null (null has no order)")
            return Clause(f"({column.sql} IS {'NOT ' if operator[1] == '!=' else ''}NULL)", params)
        if operator[1] == "!=":  # a missing value is not equal to any value either
            return Clause(f"({column.sql} IS NOT ?)", [*params, value])
        return Clause(f"({column.sql} {_COMPARISONS[operator[1]]} ?)", [*params, value])

    def _value(self, *, as_text: bool = False) -> Any:
        """The value token's; with ``as_text`` (what ``~`` looks for) a whole number's digits, any
        length."""
        token = self._peek()
        if token is None:
            raise _problem(self.text, len(self.text), "a value (a quoted string, a number, true, false or null)")
        kind, text, at = token
        self.at += 1
        if kind == "string":
            return re.sub(r"\\(.)", r"\1", text[1:-1], flags=re.DOTALL)
        if kind == "number":
            whole = text.lstrip("-").isdigit()
            return str(int(text)) if as_text and whole else self._number(text, at)
        if kind == "word" and text in {"true", "false"}:
            return 1 if text == "true" else 0  # as SQLite's JSON functions give booleans
        if kind == "word" and text == "null":
            return None
        raise _problem(self.text, at, "a value (a quoted string, a number, true, false or null)", found=text)

    def _number(self, text: str, at: int) -> int | float:
        """A number token's value: a whole number exactly (not through a double, which rounds past
        2**53), within SQLite's 64 bits; any other a finite double."""
        if text.lstrip("-").isdigit():
            digits = text.lstrip("-").lstrip("0")
            # One with more digits than the largest is out of range: not parsed at all.
            whole = int(text) if len(digits) <= len(str(LARGEST_WHOLE)) else None
            if whole is None or not SMALLEST_WHOLE <= whole <= LARGEST_WHOLE:
                raise _problem(
                    self.text,
                    at,
                    f"a whole number from {SMALLEST_WHOLE} to {LARGEST_WHOLE} "
                    "(write a larger one as 1e20, or quote it to compare as text)",
                    found=text,
                )
            return whole
        number = float(text)
        if math.isinf(number):
            raise _problem(self.text, at, "a number within about -1.8e308 to 1.8e308", found=text)
        return number


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _problem(text: str, at: int, expected: str, *, found: str | None = None) -> InvalidQuery:
    seen = (
        f"found {found[:40]!r}" if found is not None else ("the end" if at >= len(text) else f"{text[at : at + 20]!r}")
    )
    return InvalidQuery(
        f"filter: at position {at}, expected {expected} ({seen})",
        detail={"argument": "filter", "position": at, "expected": expected},
    )


def fields_of(columns: Mapping[str, str], properties: str | None) -> Fields:
    """Field names as the data tools read them: ``columns`` (a name to its column), and, with ``properties`` (a
    JSON column), any other name as a key of it."""

    def column(name: str) -> Column | None:
        if name in columns:
            return Column(columns[name])
        return json_property(properties, name) if properties is not None else None

    return column
