"""What a JSON document looks like, briefly: its keys and their types, array lengths, and a bounded
sample.

analyze_page describes the XHR and fetch answers a page loads its items from, and
analyze_api_endpoint describes one endpoint's answer, in the same terms: enough to write a config's
selectors or a client without reading the whole document (which may be megabytes) into a model's
context.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 4
"""How deep the shape goes; deeper values are described by their type alone."""
MAX_KEYS = 30
"""The most keys of one object the shape lists."""
SAMPLE_STRING = 120
"""The most characters of a string in a sample."""
SAMPLE_ITEMS = 2
"""The most items of an array in a sample."""
PAGINATION_KEYS = frozenset(
    {
        "next",
        "next_page",
        "nextpage",
        "next_url",
        "nextcursor",
        "next_cursor",
        "cursor",
        "page",
        "pages",
        "total_pages",
        "totalpages",
        "per_page",
        "perpage",
        "page_size",
        "pagesize",
        "limit",
        "offset",
        "total",
        "total_count",
        "totalcount",
        "has_more",
        "hasmore",
        "has_next",
        "hasnext",
        "after",
        "before",
        "links",
    }
)
"""Key names that say an answer is one page of several (compared lower-cased, without hyphens)."""


def type_name(value: Any) -> str:
    """The JSON type of ``value``: object, array, string, number, integer, boolean or null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def shape(value: Any, depth: int = 0) -> dict[str, Any]:
    """``value``'s shape: its type; an object's keys (the first MAX_KEYS) with theirs; an array's
    length and the shape of its first item."""
    kind = type_name(value)
    described: dict[str, Any] = {"type": kind}
    if depth >= MAX_DEPTH:
        return described
    if isinstance(value, dict):
        keys = list(value)[:MAX_KEYS]
        described["keys"] = {str(key): shape(value[key], depth + 1) for key in keys}
        if len(value) > MAX_KEYS:
            described["more_keys"] = len(value) - MAX_KEYS
    elif isinstance(value, list):
        described["length"] = len(value)
        if value:
            described["items"] = shape(value[0], depth + 1)
    return described


def sample(value: Any, depth: int = 0) -> Any:
    """``value`` cut down: strings to SAMPLE_STRING characters, arrays to SAMPLE_ITEMS items,
    objects to MAX_KEYS keys, nothing deeper than MAX_DEPTH."""
    if isinstance(value, str):
        return value if len(value) <= SAMPLE_STRING else value[:SAMPLE_STRING] + "…"
    if depth >= MAX_DEPTH and isinstance(value, dict | list):
        return f"<{type_name(value)}>"
    if isinstance(value, list):
        return [sample(item, depth + 1) for item in value[:SAMPLE_ITEMS]]
    if isinstance(value, dict):
        return {str(key): sample(value[key], depth + 1) for key in list(value)[:MAX_KEYS]}
    return value


def items_path(value: Any, depth: int = 0) -> tuple[str, int] | None:
    """Where the document keeps its list of items: the JSON pointer of its longest array of objects
    and its length (``("", n)`` for a top-level array), or None when it has none."""
    if isinstance(value, list):
        return (
            ("", len(value))
            if value and all(isinstance(item, dict) for item in value[:5])
            else None
        )
    if not isinstance(value, dict) or depth >= MAX_DEPTH:
        return None
    best: tuple[str, int] | None = None
    for key, child in value.items():
        found = items_path(child, depth + 1)
        if found is not None and (best is None or found[1] > best[1]):
            best = (_pointer(key) + found[0], found[1])
    return best


def pagination_hints(value: Any, depth: int = 0) -> list[str]:
    """The JSON pointers of keys that look like pagination (next, cursor, page, total, has_more …),
    shallowest first, at most ten."""
    if not isinstance(value, dict) or depth >= MAX_DEPTH:
        return []
    found = [_pointer(key) for key in value if str(key).lower().replace("-", "") in PAGINATION_KEYS]
    for key, child in value.items():
        found += [_pointer(key) + deeper for deeper in pagination_hints(child, depth + 1)]
    return found[:10]


def _pointer(key: object) -> str:
    """One JSON pointer step (RFC 6901)."""
    return "/" + str(key).replace("~", "~0").replace("/", "~1")
