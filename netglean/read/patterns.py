"""Ruby regular expressions as html2rss reads them (a feed step's gsub, a dataset property's
regex_replace), bounded before they are compiled (a config's pattern runs against third-party text,
and a few bytes can stand for a gigabyte), run by the ``regex`` module, whose matching takes a
deadline."""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

_RUBY_REFERENCE = re.compile(r"\\(\d|&|\\)|\\k<(\w+)>|%(\d)")
MAX_PATTERN_CHARS = 2_000
"""Longest gsub pattern read (the html2rss-configs corpus's longest is under 100)."""
MAX_PATTERN_GROUPS = 32
"""Deepest nesting of groups in a pattern; the regex compiler recurses once per level (900 exhaust
its stack)."""
MAX_PATTERN_SIZE = 100_000
"""Most atoms a pattern may stand for once its counted repeats are multiplied out: the regex module
compiles ``(?:a{2000}){2000}`` (18 bytes) into 4 million nodes, a gigabyte."""
_COUNT = re.compile(r"\{(\d*)(,(\d*))?\}")
# \p{Letter}, \N{name}, \x{41}: their braces are not a repeat count
_BRACED_ESCAPES = frozenset("pPNx")


def pattern_problem(source: str) -> str | None:
    """Why a gsub pattern will not be compiled, found by reading it: too long, nested too deep, or
    standing for too many atoms once its counted repeats are multiplied out. None when it may be
    compiled (which can still find it invalid)."""
    if len(source) > MAX_PATTERN_CHARS:
        return f"the pattern is {len(source)} characters; the limit is {MAX_PATTERN_CHARS}"
    sizes = [0]  # atoms inside each open group, the pattern itself first
    last = 0  # atoms in what a repeat count right here would repeat
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "\\":
            i += 2
            if i - 1 < n and source[i - 1] in _BRACED_ESCAPES and i < n and source[i] == "{":
                i = source.find("}", i) + 1 or n
            last = 1
        elif char == "[":  # a set is one atom: skip to its end (a leading ] or ^] is part of it)
            i += 2 if source.startswith("[^", i) else 1
            i += 1 if source.startswith("]", i) else 0
            while i < n and source[i] != "]":
                i += 2 if source[i] == "\\" else 1
            i += 1
            last = 1
        elif char == "(" and source.startswith("(?#", i):
            i = source.find(")", i) + 1 or n
            continue
        elif char == "(":
            sizes.append(0)
            if len(sizes) > MAX_PATTERN_GROUPS + 1:
                return f"the pattern nests groups deeper than {MAX_PATTERN_GROUPS} levels"
            i += 1
            continue
        elif char == ")" and len(sizes) > 1:
            last = max(sizes.pop(), 1)
            sizes[-1] += last
            i += 1
            continue
        elif char == "{" and last and (count := _COUNT.match(source, i)) is not None:
            low, high = int(count[1] or 0), int(count[3] or 0) if count[2] else int(count[1] or 0)
            times = max(low, high, 1)
            sizes[-1] += last * (times - 1)
            last *= times
            if sizes[-1] > MAX_PATTERN_SIZE:
                return f"the pattern's repeats stand for more than {MAX_PATTERN_SIZE} atoms"
            i = count.end()
            continue
        else:
            i += 1
            last = 0 if char in "*+?|" else 1
        sizes[-1] += 1 if last else 0
    return None


def ruby_regex(pattern: str) -> Any:
    """A gsub pattern as html2rss reads it: a Ruby regular expression, one pair of surrounding
    slashes taken off (``/^\\d+/`` and ``^\\d+`` are the same); netglean also reads flags after the
    slashes (``/x/i``).

    Compiled with the ``regex`` module, whose matching can be given a deadline: a config's pattern
    runs against third-party text, and a backtracking bomb must not hold a worker thread. A pattern
    that would compile into too much (``pattern_problem``) is refused before the compiler sees it,
    as a ``regex.error``.
    """
    import regex

    match = regex.fullmatch(r"/(.+)/([imx]*)", pattern, regex.DOTALL)
    source, letters = (match.group(1), match.group(2)) if match else (pattern, "")
    if (problem := pattern_problem(source)) is not None:
        raise regex.error(problem)
    flags = regex.MULTILINE  # Ruby's ^ and $ always match at line ends
    for flag in letters:
        # Ruby's m is DOTALL
        flags |= {"i": regex.IGNORECASE, "m": regex.DOTALL, "x": regex.VERBOSE}[flag]
    try:
        return regex.compile(source.replace(r"\z", r"\Z"), flags)
    # past what pattern_problem reads (nesting in a set, say): still the config's fault
    except RecursionError:
        raise regex.error("the pattern nests too deeply to compile") from None


def ruby_replacement(replacement: str | Mapping[str, Any]) -> Callable[[Any], str]:
    """What gsub puts for each match, read as Ruby's String#gsub reads a replacement: ``\\1`` to
    ``\\9``, ``\\0`` and ``\\&`` (the whole match), ``\\k<name>`` and ``\\\\`` (a backslash); any
    other text as written (``%1`` names a group too). A mapping puts the value the match's text
    keys, nothing when none does."""
    if isinstance(replacement, Mapping):
        return lambda match: str(replacement.get(match.group(0), ""))
    literals: list[str] = []  # the text before each reference, then the text after the last
    groups: list[int | str | None] = []  # what each reference names; None for an escaped backslash
    position = 0
    for reference in _RUBY_REFERENCE.finditer(replacement):
        literals.append(replacement[position : reference.start()])
        named = reference.group(1) or reference.group(2) or reference.group(3)
        groups.append(
            None
            if named == "\\"
            else 0
            if named == "&"
            else int(named)
            if named.isdigit()
            else named
        )
        position = reference.end()
    literals.append(replacement[position:])

    def fill(match: Any) -> str:
        out = [literals[0]]
        for group, literal in zip(groups, literals[1:], strict=True):
            if group is None:
                out.append("\\")
            else:
                # a group the pattern does not have: nothing, as in Ruby
                with contextlib.suppress(IndexError):
                    out.append(match.group(group) or "")
            out.append(literal)
        return "".join(out)

    return fill


REGEX_SECONDS = 0.25
"""Longest one gsub may run on one value; past it the value is dropped (the item keeps its other
fields)."""
GSUB_SECONDS = 2.0
"""Longest all of a page's gsubs may run together: 0.25 s a value over 200 items would be 50 s."""


MAX_VALUE_CHARS = 100_000
"""Longest a field's value may grow; longer values are cut. A config's template or gsub repeats
text: a few kilobytes of ``%{self}`` could otherwise make every item of a page hundreds of
megabytes."""
PAGE_CHARS = 50_000_000
"""Most characters reading one page may produce, every field and step of every item together: the
cap on each value alone still let ``%{self}`` x 2,000 over 2,000 items build 38 s and 875 MB of
text."""


class _TooLong(Exception):
    """A substitution whose replacements passed MAX_VALUE_CHARS: the value is dropped, as for one
    that runs too long."""


@dataclass
class Allowance:
    """What reading one page may still spend: characters produced (read values and every step's
    output), and time for its patterns (a ``time.monotonic()`` deadline, which reader processes
    share with the server)."""

    chars: int = PAGE_CHARS
    gsub_deadline: float = math.inf

    @classmethod
    def for_page(cls, deadline: float = math.inf) -> Allowance:
        """A page's allowance; its patterns stop at GSUB_SECONDS from now, or at ``deadline`` if
        sooner."""
        return cls(gsub_deadline=min(deadline, time.monotonic() + GSUB_SECONDS))

    def take(self, values: list[Any]) -> list[Any]:
        """``values`` with every string cut to MAX_VALUE_CHARS and to what the allowance has left,
        which they spend; once it is spent, strings are None (the item keeps what it already
        has)."""
        cut = [value[:MAX_VALUE_CHARS] if isinstance(value, str) else value for value in values]
        spent = sum(len(value) for value in cut if isinstance(value, str))
        if spent <= self.chars:  # the usual case, at comprehension speed
            self.chars -= spent
            return cut
        out: list[Any] = []
        for value in cut:
            if not isinstance(value, str):
                out.append(value)
            elif self.chars <= 0:
                out.append(None)
            else:
                kept = value[: self.chars]
                self.chars -= len(kept)
                out.append(kept)
        return out


def substitute(
    pattern: Any, replacement: Callable[[Any], str], text: str, allowance: Allowance
) -> str | None:
    """``pattern``'s matches in ``text`` replaced, within the page's allowance: None (the value
    dropped) once the page's patterns have had their time, when this one runs past REGEX_SECONDS, or
    when its replacements would pass MAX_VALUE_CHARS."""
    left = allowance.gsub_deadline - time.monotonic()
    if left <= 0:
        return None
    produced = 0

    def counted(match: Any) -> str:
        nonlocal produced
        text = replacement(match)
        produced += len(text)
        if produced > MAX_VALUE_CHARS:
            raise _TooLong
        return text

    try:
        return str(pattern.sub(counted, text, timeout=min(REGEX_SECONDS, left)))
    except (TimeoutError, _TooLong):
        return None
