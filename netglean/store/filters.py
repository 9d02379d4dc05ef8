"""The filter and sort language of the data tools, parsed to a small tree every backend compiles
to its own query (never string-built from input).

A filter compares fields with values and joins the comparisons (PocketBase's shape)::

    name ~ "scrape" && price > 10 || (status != "sold" && stock = null)

- fields: a letter or ``_``, then letters, digits, ``_``, ``-`` and ``.``; which names exist is the
  caller's (``Fields``): a field the store keeps for every record (``Column``), or a key of a row's
  JSON properties (``Property``).
- operators: ``=`` ``!=`` ``>`` ``>=`` ``<`` ``<=``, and ``~`` / ``!~`` (contains / does not
  contain, case-insensitive for ASCII); ``= null`` and ``!= null`` test for a missing value; a
  missing value is unequal to every value.
- values: strings in double or single quotes (backslash escapes the quote and itself), numbers,
  ``true``, ``false``, ``null``. A whole number is exact and 64 bits (``-9223372036854775808`` to
  ``9223372036854775807``); one with a point or an exponent is a double (to about ``1.8e308``). A
  number beyond either is refused, naming it, rather than compared as another; ``~`` looks for a
  whole number of any length.
- ``&&`` binds tighter than ``||``; parentheses group; at most MAX_TERMS comparisons and MAX_DEPTH
  nested groups.

A sort is fields separated by commas, each ascending or with a leading ``-`` descending
(``-created,name``).

The tree (``Compare``, ``And``, ``Or``; ``Sort``) names fields and holds values, never a query
language's text: each backend compiles it, binding every value and JSON path as a parameter
(SQLite's: netglean.store.sqlite_filters). A filter that cannot be read is ``InvalidQuery`` naming
the position and what was expected there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from netglean.core.errors import InvalidQuery

MAX_CHARS = 2_000
MAX_TERMS = 50
MAX_DEPTH = 10
MAX_SORT_FIELDS = 5
SMALLEST_WHOLE, LARGEST_WHOLE = -(2**63), 2**63 - 1
"""The whole numbers a filter holds (64 bits: SQLite's, PostgreSQL's bigint): compared exactly."""

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<op>&&|\|\||!~|!=|>=|<=|[=<>~()])|(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    r"""|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<word>[A-Za-z_][\w.-]*)""",
    re.DOTALL,
)
_FIELD = re.compile(r"[A-Za-z_][\w.-]*")
COMPARISONS = ("=", "!=", ">", ">=", "<", "<=")
CONTAINS = ("~", "!~")


@dataclass(frozen=True, slots=True)
class Column:
    """A field the store keeps for every record, by the store's name for it (a project's
    ``updated``, a row's ``run_id``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Property:
    """A key of a row's JSON properties (its data)."""

    key: str


Field = Column | Property
Value = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Compare:
    """``field operator value``: an operator of COMPARISONS or CONTAINS; a value None for null
    (with ``=`` and ``!=`` only); for CONTAINS the text looked for (a whole number's digits)."""

    field: Field
    operator: str
    value: Value


@dataclass(frozen=True, slots=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Or:
    left: Condition
    right: Condition


Condition = Compare | And | Or
"""A parsed filter; an empty filter is None (every record)."""


@dataclass(frozen=True, slots=True)
class Sort:
    """One key of an order, ascending unless ``descending``."""

    field: Field
    descending: bool = False


Fields = Callable[[str], Field | None]
"""What a field name of the language stands for, or None for a name that does not exist."""


def parse_filter(text: str, fields: Fields) -> Condition | None:
    """``text`` (a filter) as a tree; None for an empty filter (always true)."""
    if not text.strip():
        return None
    if len(text) > MAX_CHARS:
        raise _problem(text, MAX_CHARS, f"a filter of at most {MAX_CHARS} characters")
    parser = _Parser(text, _tokens(text), fields)
    condition = parser.expression(0)
    if parser.at < len(parser.tokens):
        raise _problem(text, parser.tokens[parser.at][2], "&&, || or the end of the filter")
    return condition


def parse_sort(text: str, fields: Fields, default: str) -> tuple[Sort, ...]:
    """``text`` (a sort, else ``default``) as the keys of an order."""
    wanted = text.strip() or default
    keys: list[Sort] = []
    names = [name.strip() for name in wanted.split(",")]
    if len(names) > MAX_SORT_FIELDS:
        raise InvalidQuery(
            f"sort: at most {MAX_SORT_FIELDS} fields",
            detail={"argument": "sort", "expected": "fewer fields"},
        )
    for name in names:
        descending = name.startswith("-")
        bare = name[1:] if descending or name.startswith("+") else name
        field = fields(bare) if _FIELD.fullmatch(bare) else None
        if field is None:
            raise InvalidQuery(
                f"sort: {bare[:80]!r} is not a field to sort by",
                detail={"argument": "sort", "expected": "a field name, or -name for descending"},
            )
        keys.append(Sort(field, descending))
    return tuple(keys)


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

    def expression(self, depth: int) -> Condition:
        """or: and-terms joined by ||."""
        return self._joined(depth, "||", Or, self._conjunction)

    def _conjunction(self, depth: int) -> Condition:
        return self._joined(depth, "&&", And, self._primary)

    def _joined(
        self,
        depth: int,
        token: str,
        join: type[And] | type[Or],
        operand: Callable[[int], Condition],
    ) -> Condition:
        """Operands joined by ``token`` (``join``), left to right."""
        left = operand(depth)
        while (found := self._peek()) is not None and found[1] == token:
            self.at += 1
            left = join(left, operand(depth))
        return left

    def _primary(self, depth: int) -> Condition:
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
            return inner
        return self._comparison()

    def _comparison(self) -> Compare:
        name = self._peek()
        if name is None or name[0] != "word" or name[1] in {"true", "false", "null"}:
            raise _problem(self.text, self._where(), "a field name or an opening parenthesis")
        field = self.fields(name[1])
        if field is None:
            raise _problem(self.text, name[2], "a field the data has", found=name[1])
        self.at += 1
        operator = self._peek()
        if operator is None or operator[0] != "op" or operator[1] not in {*COMPARISONS, *CONTAINS}:
            raise _problem(self.text, self._where(), "an operator (= != > >= < <= ~ !~)")
        self.at += 1
        value = self._value(as_text=operator[1] in CONTAINS)
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise _problem(self.text, name[2], f"at most {MAX_TERMS} comparisons")
        if value is None and operator[1] in CONTAINS:
            raise _problem(self.text, self.tokens[self.at - 1][2], "a value to look for (not null)")
        if value is None and operator[1] not in {"=", "!="}:
            expected = "= null or != null (null has no order)"
            raise _problem(self.text, self.tokens[self.at - 1][2], expected)
        return Compare(field, operator[1], value)

    def _value(self, *, as_text: bool = False) -> Value:
        """The value token's; with ``as_text`` (what ``~`` looks for) a whole number's digits, any
        length."""
        token = self._peek()
        if token is None:
            raise _problem(
                self.text,
                len(self.text),
                "a value (a quoted string, a number, true, false or null)",
            )
        kind, text, at = token
        self.at += 1
        if kind == "string":
            return re.sub(r"\\(.)", r"\1", text[1:-1], flags=re.DOTALL)
        if kind == "number":
            whole = text.lstrip("-").isdigit()
            return str(int(text)) if as_text and whole else self._number(text, at)
        if kind == "word" and text in {"true", "false"}:
            return text == "true"
        if kind == "word" and text == "null":
            return None
        raise _problem(
            self.text, at, "a value (a quoted string, a number, true, false or null)", found=text
        )

    def _number(self, text: str, at: int) -> int | float:
        """A number token's value: a whole number exactly (not through a double, which rounds past
        2**53), within 64 bits; any other a finite double."""
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


def _problem(text: str, at: int, expected: str, *, found: str | None = None) -> InvalidQuery:
    seen = (
        f"found {found[:40]!r}"
        if found is not None
        else ("the end" if at >= len(text) else f"{text[at : at + 20]!r}")
    )
    return InvalidQuery(
        f"filter: at position {at}, expected {expected} ({seen})",
        detail={"argument": "filter", "position": at, "expected": expected},
    )


def fields_of(columns: Mapping[str, str], *, properties: bool) -> Fields:
    """Field names as the data tools read them: ``columns`` (a name to the store's name of a
    field every record has), and, with ``properties``, any other name as a key of a row's JSON
    properties."""

    def field(name: str) -> Field | None:
        if name in columns:
            return Column(columns[name])
        return Property(name) if properties else None

    return field
