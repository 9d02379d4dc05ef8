"""Feed config selectors as html2rss writes them, rewritten into what lexbor reads.

html2rss runs selectors through Nokogiri, whose CSS dialect has jQuery-style additions that configs
use (``a:first``, ``span:last``, ``li:eq(2)``, ``p:contains("Read")``) and reads a field's selector
from inside its item, so a field may start with a combinator (``> div``). JSON pages are read as
html2rss's markup (see feed_items.json_markup), where a type selector names a key.
``lexbor_selector`` does these rewrites in one walk over the selector, quotes and brackets kept
whole.
"""

from __future__ import annotations

import re

from netglean.core.validation import quote_value

_KEEP_TYPES = frozenset({"object", "array"})
_NESTED = frozenset({"has", "not", "is", "where"})
_PSEUDO = re.compile(r"::?([\w-]+)(\()?")
# CSS identifiers: ASCII word characters, -, and any non-ASCII one
_WORD = re.compile(r"(?:[\w-]|[^\x00-\x7f])+|\*")


def lexbor_selector(selector: str, *, scope: str = "", json_keys: bool = False) -> str:
    """``selector`` in lexbor's CSS. With ``scope``, the items' selector, it is read inside the
    items as Nokogiri's ``item.css`` reads it: every alternative finds descendants of an item (``h3
    a, > p`` in items of ``li.story`` is ``*:is(li.story) h3 a, *:is(li.story) > p``). ``json_keys``
    makes type selectors keys of a JSON page's markup (``items > array`` is ``[data-k="items"] >
    array``)."""
    out: list[str] = []
    i, n = 0, len(selector)
    compound_start, typed, selector_start = True, False, True
    while i < n:
        ch = selector[i]
        if selector_start and scope and not ch.isspace():
            # lexbor reads a complex selector inside :is() only on the left, and a bare leading
            # :is() followed by a descendant combinator as if it were a child combinator: hence
            # "*:is(...) "
            out.append(f"*:is({scope}) ")
        if not ch.isspace():
            selector_start = False
        if ch in "\"'[":
            end = selector.find("]" if ch == "[" else ch, i + 1)
            end = n - 1 if end < 0 else end
            out.append(selector[i : end + 1])
            i = end + 1
            compound_start = False
        elif ch == ":":
            match = _PSEUDO.match(selector, i)
            if match is None:
                out.append(ch)
                i += 1
                continue
            i = match.end()
            name, inner = match.group(1).lower(), None
            if match.group(2):  # up to the matching parenthesis
                depth, start = 1, i
                while i < n and depth:
                    depth += {"(": 1, ")": -1}.get(selector[i], 0)
                    i += 1
                inner = selector[start : i - 1]
            out.append(_pseudo(match.group(0), name, inner, typed, json_keys))
            compound_start = False
        elif ch in " >+~,\t\n":
            out.append(ch)
            i += 1
            compound_start, typed = True, False
            selector_start = selector_start or ch == ","
        elif compound_start and (word := _WORD.match(selector, i)) is not None:
            name = word.group(0)
            typed = name != "*"
            keyed = json_keys and typed and name.lower() not in _KEEP_TYPES
            out.append(f'[data-k="{name}"]' if keyed else name)
            i = word.end()
            compound_start = False
        else:
            out.append(ch)
            i += 1
            compound_start = False
    return "".join(out)


def _pseudo(written: str, name: str, inner: str | None, typed: bool, json_keys: bool) -> str:
    """One pseudo-class. Nokogiri's positional ones count among siblings of the compound's type when
    it has one (``a:first`` is the first ``a`` of its parent), else among all siblings."""
    of = "of-type" if typed else "child"
    if inner is None:
        if name in {"first", "last"}:
            return f":{name}-{of}"
        if name == "parent":  # Nokogiri: has any child node
            return ":not(:empty)"
        return written
    argument = inner.strip()
    if name in {"eq", "nth"} and argument.isdigit():
        return f":nth-{of}({argument})"
    if name == "gt" and argument.isdigit():
        return f":nth-{of}(n+{int(argument) + 1})"
    if name == "contains":
        quoted = (
            argument if argument[:1] in {'"', "'"} else '"' + argument.replace('"', '\\"') + '"'
        )
        return f":lexbor-contains({quoted})"
    if name in _NESTED:
        return f"{written}{lexbor_selector(inner, json_keys=json_keys)})"
    return f"{written}{inner})"


def selector_problem(selector: str, *, items: str = "") -> str | None:
    """Why lexbor cannot use ``selector`` (as html2rss writes it, a field read inside ``items`` when
    given), on an HTML page or on a JSON page's markup, or None when it can on both."""
    from netglean.read.html_tree import parse_html

    stripped = selector.lstrip()
    if items and stripped[:1] in {"+", "~"}:
        return (
            f"{quote_value(selector)} starts at the item's siblings; a field is read from inside "
            "its item"
        )
    empty = parse_html("")
    for json_keys in (False, True):  # a config does not say which its page is: it must read either
        if items:  # a field, read inside its item
            forms = [
                lexbor_selector(
                    selector, scope=lexbor_selector(items, json_keys=json_keys), json_keys=json_keys
                )
            ]
        # an items selector, read on the page and inside its own items (items nested in items)
        else:
            alone = lexbor_selector(selector, json_keys=json_keys)
            forms = [alone, lexbor_selector(selector, scope=alone, json_keys=json_keys)]
        for written in forms:
            try:
                empty.css(written)
            # selectolax raises its own SelectolaxError, imported only with the parser
            except Exception:
                return f"{quote_value(selector)} is not a CSS selector netglean can read"
    return None
