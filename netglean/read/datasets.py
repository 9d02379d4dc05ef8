"""Rows from a page, as an extract project's datasets define them (issue 17): each dataset's items
found by its item selector (inside each item of its parent dataset, when it has one), each property
read off an item by its selector and type, then its transformations, and each row keyed for
incremental runs.

A dataset definition has been checked before it reaches here (its selectors readable by lexbor, its
patterns bounded): what can still go wrong is the page's, and it is bounded too: MAX_ROWS a page,
all datasets together; MAX_VALUE characters a value; and, as for a feed's steps, the page's
allowance (netglean.read.patterns): the characters all its values may produce, and the time all its
regular expressions may run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from netglean.read.html_tree import document_base
from netglean.read.patterns import Allowance, ruby_regex, ruby_replacement, substitute

MAX_ROWS = 10_000
"""The most rows one page gives, all its datasets together."""
MAX_VALUE = 20_000
"""The most characters one property's value keeps."""
TYPES = ("text", "number", "url", "date", "html", "attribute")
TRANSFORMATIONS = (
    "trim",
    "collapse_whitespace",
    "lowercase",
    "uppercase",
    "regex_replace",
    "parse_number",
    "absolute_url",
    "parse_date",
)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:[ ,.\u00a0\u202f]\d{3})+|\d+)(?:[.,]\d+)?")


def extract(
    tree: Any, url: str, datasets: Sequence[Mapping[str, Any]]
) -> list[tuple[str, str, dict[str, Any]]]:
    """Every dataset's rows on the page, parents before their children: (dataset, key,
    properties)."""
    base = document_base(tree, url)
    allowance = Allowance.for_page()
    rows: list[tuple[str, str, dict[str, Any]]] = []
    scopes: dict[str, list[tuple[Any, str]]] = {}
    for dataset in _parents_first(datasets):
        parent = dataset.get("parent")
        within = scopes.get(parent, []) if parent else [(tree, "")]
        found: list[tuple[Any, str]] = []
        for scope, parent_key in within:
            for node in scope.css(dataset["item_selector"]):
                if len(rows) >= MAX_ROWS:
                    break
                values = allowance.take(
                    [_value(node, prop, base, allowance) for prop in dataset["properties"]]
                )
                data = {
                    prop["key"]: value
                    for prop, value in zip(dataset["properties"], values, strict=True)
                }
                if parent:
                    data["_parent"] = parent_key
                key = _key(data, dataset.get("key"))
                found.append((node, key))
                rows.append((dataset["name"], key, data))
        scopes[dataset["name"]] = found
    return rows


def _parents_first(datasets: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The datasets, each after its parent (a checked definition has no cycle and no unknown
    parent)."""
    ordered: list[Mapping[str, Any]] = []
    placed: set[str] = set()
    waiting = list(datasets)
    while waiting:
        ready = [d for d in waiting if not d.get("parent") or d["parent"] in placed]
        # an unknown or circular parent: left out, as the checked definition never has one
        if not ready:
            break
        for dataset in ready:
            ordered.append(dataset)
            placed.add(dataset["name"])
            waiting.remove(dataset)
    return ordered


def _key(data: Mapping[str, Any], declared: str | None) -> str:
    """The row's key: its declared property's value, else a hash of all its properties."""
    if declared and data.get(declared) not in (None, ""):
        return str(data[declared])[:500]
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return "sha1:" + hashlib.sha1(canonical.encode("utf-8")).hexdigest()


def _value(item: Any, prop: Mapping[str, Any], base: str, allowance: Allowance) -> Any:
    selector = prop.get("selector")
    node = item.css_first(selector) if selector else item
    if node is None:
        return None
    kind = prop.get("type", "text")
    if kind == "html":
        raw: str | None = node.html
    elif kind == "attribute":
        raw = node.attributes.get(prop.get("attribute") or "")
    elif kind == "url":
        raw = node.attributes.get(
            prop.get("attribute") or ("src" if node.tag in {"img", "source"} else "href")
        )
    # <time datetime>: the machine's date, not the words
    elif kind == "date" and node.attributes.get("datetime"):
        raw = node.attributes.get("datetime")
    else:
        raw = node.text(separator=" ")
    if raw is None:
        return None
    value: Any = raw[:MAX_VALUE]
    if kind in {"text", "number", "date"}:
        value = " ".join(value.split())
    for step in prop.get("transformations") or ():
        value = _transform(value, step, base, allowance)
        if value is None:
            return None
    return _typed(value, kind, base)


def _transform(value: Any, step: Mapping[str, Any], base: str, allowance: Allowance) -> Any:
    name = step["name"]
    text = value if isinstance(value, str) else str(value)
    if name == "trim":
        return text.strip()
    if name == "collapse_whitespace":
        return " ".join(text.split())
    if name == "lowercase":
        return text.lower()
    if name == "uppercase":
        return text.upper()
    if name == "regex_replace":
        pattern, replace = _compile_pattern(step["pattern"], step.get("replacement", ""))
        replaced = substitute(pattern, replace, text, allowance)
        return None if replaced is None else replaced[:MAX_VALUE]
    if name == "parse_number":
        return _number(text)
    if name == "absolute_url":
        return urljoin(base, text.strip())
    if name == "parse_date":
        return _date(text)
    return value


@functools.lru_cache(maxsize=256)
def _compile_pattern(pattern: str, replacement: str) -> tuple[Any, Callable[[Any], str]]:
    """A regex_replace step's pattern and replacement, compiled once for every value of a page (and
    of the next)."""
    return ruby_regex(pattern), ruby_replacement(replacement)


def _typed(value: Any, kind: str, base: str) -> Any:
    if kind == "number":
        return value if isinstance(value, int | float) else _number(str(value))
    if kind == "url":
        return urljoin(base, str(value).strip()) if value else None
    if kind == "date":
        return _date(str(value)) if value else None
    return value


def _number(text: str) -> int | float | None:
    """The first number in ``text``: thousands grouped by space, comma or dot, decimals after a
    comma or a dot (``1.234,50`` and ``1,234.50`` are both 1234.5)."""
    found = _NUMBER.search(text)
    if found is None:
        return None
    digits = re.sub(r"[ \u00a0\u202f]", "", found.group())
    last = max(digits.rfind(","), digits.rfind("."))
    whole, fraction = (
        (digits[:last], digits[last + 1 :])
        if last >= 0 and len(digits) - last - 1 != 3
        else (digits, "")
    )
    whole = re.sub(r"[,.]", "", whole)
    if fraction:
        return float(f"{whole}.{fraction}")
    number = int(whole) if whole.lstrip("+-") else None
    return number


def _date(text: str) -> str | None:
    """``text`` as an ISO 8601 date-time (UTC when it names no zone), or None when it is no date.
    ISO text (a ``<time datetime>``, a parse_date step's output) is read as it is: the fuzzy parser
    is ten times slower."""
    from dateutil import parser

    try:
        stamp = datetime.fromisoformat(text.strip())
    except ValueError:
        pass
    else:
        return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).isoformat()
    try:
        stamp = parser.parse(text[:200], fuzzy=True)  # 200 characters: fuzzy parsing stays bounded
    except (ValueError, OverflowError):
        return None
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).isoformat()
