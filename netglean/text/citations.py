"""Turn markdown links into numbered citations with a reference list.

A small CommonMark-aware scanner rather than a markdown renderer: the text must
come back byte-for-byte except where a link was, and parsers such as
markdown-it only report block-level positions. It understands code spans,
fenced and indented code, backslash escapes, inline links (angle-bracket
destinations, balanced parentheses, titles), full/collapsed/shortcut reference
links and their definitions, autolinks and images.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DEFINITION = re.compile(
    r"^ {0,3}\[(?P<label>(?:\\.|[^\\\[\]])+)\]:[ \t]*(?:<(?P<angle>[^<>\n]*)>|(?P<bare>\S+))"
    r"(?:[ \t]+(?:\"(?P<dq>(?:\\.|[^\"\\])*)\""
    r"|'(?P<sq>(?:\\.|[^'\\])*)'"
    r"|\((?P<pq>(?:\\.|[^()\\])*)\)))?[ \t]*$"
)
_BACKTICKS = re.compile(r"`+")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL = re.compile(
    r"<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9\-]+)+)>"
)


@dataclass(frozen=True, slots=True)
class Reference:
    number: int
    url: str
    title: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Citations:
    markdown: str
    references: tuple[Reference, ...]
    citation_count: int


def normalize_label(label: str) -> str:
    return " ".join(label.split()).casefold()


@dataclass
class _Numbering:
    first: int = 1
    by_url: dict[str, int] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    count: int = 0

    def cite(self, url: str, title: str | None, text: str) -> int:
        self.count += 1
        number = self.by_url.get(url)
        if number is None:
            number = self.first + len(self.references)
            self.by_url[url] = number
            self.references.append(Reference(number, url, title, text))
        elif title and self.references[number - self.first].title is None:
            old = self.references[number - self.first]
            self.references[number - self.first] = Reference(old.number, old.url, title, old.text)
        return number


@dataclass(frozen=True, slots=True)
class _Block:
    text: str
    is_code: bool


def _blocks(markdown: str) -> list[_Block]:
    """Split into code blocks (kept verbatim) and prose, keeping every character."""
    lines = markdown.splitlines(keepends=True)
    blocks: list[_Block] = []
    prose: list[str] = []
    index = 0
    in_list = False
    previous_blank = True

    def flush() -> None:
        if prose:
            blocks.append(_Block("".join(prose), False))
            prose.clear()

    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            end = index + 1
            while end < len(lines) and not re.match(
                rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", lines[end]
            ):
                end += 1
            flush()
            blocks.append(_Block("".join(lines[index : end + 1]), True))
            index = end + 1
            previous_blank = False
            continue
        stripped = line.strip()
        indented = line.startswith(("    ", "\t"))
        if indented and previous_blank and not in_list and stripped:
            end = index
            while end < len(lines) and (
                lines[end].startswith(("    ", "\t")) or not lines[end].strip()
            ):
                end += 1
            while end > index and not lines[end - 1].strip():
                end -= 1
            flush()
            blocks.append(_Block("".join(lines[index:end]), True))
            index = end
            previous_blank = False
            continue
        if stripped and not indented:
            in_list = bool(_LIST_ITEM.match(line)) or (in_list and not previous_blank)
        previous_blank = not stripped
        prose.append(line)
        index += 1
    flush()
    return blocks


def _unescape(text: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def _definitions(blocks: list[_Block]) -> dict[str, tuple[str, str | None]]:
    found: dict[str, tuple[str, str | None]] = {}
    for block in blocks:
        if block.is_code:
            continue
        for match in _definition_matches(block.text):
            label = normalize_label(match.group("label"))
            url = match.group("angle") if match.group("angle") is not None else match.group("bare")
            title = next(
                (match.group(g) for g in ("dq", "sq", "pq") if match.group(g) is not None), None
            )
            found.setdefault(
                label, (_unescape(url), _unescape(title) if title is not None else None)
            )
    return found


def _definition_matches(text: str) -> list[re.Match[str]]:
    matches = []
    for line_match in re.finditer(r"^.*$", text, re.MULTILINE):
        match = _DEFINITION.match(line_match.group(0))
        if match:
            matches.append(match)
    return matches


def _code_spans(text: str) -> dict[int, int]:
    """Start -> end of every code span: a backtick run closed by the next run of the same length.

    One pass over the runs (with a bisect per run), so hostile text full of
    backticks costs linear time, not a search to the end per run.
    """
    runs = [(m.start(), m.end() - m.start()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (_, length) in enumerate(runs):
        by_length.setdefault(length, []).append(index)
    spans: dict[int, int] = {}
    consumed = 0
    for index, (start, length) in enumerate(runs):
        if start < consumed or _escaped(text, start):
            continue
        candidates = by_length[length]
        position = bisect.bisect_right(candidates, index)
        if position < len(candidates):
            closer_start, closer_length = runs[candidates[position]]
            spans[start] = consumed = closer_start + closer_length
    return spans


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _bracket_pairs(text: str, spans: dict[int, int]) -> dict[int, int]:
    """Index of each ``[`` -> index of its matching ``]`` (escapes and code spans skipped), in one
    pass."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "`":
            index = spans.get(index, index + 1)
            continue
        if char == "[":
            stack.append(index)
        elif char == "]" and stack:
            pairs[stack.pop()] = index
        index += 1
    return pairs


_MAX_DESTINATION = 8192
_MAX_PAREN_DEPTH = 32
_TITLE = re.compile(
    r"[ "
    r"\t\n]+(?:\"((?:\\.|[^\"\\]){0,2048})\"|'((?:\\.|[^'\\]){0,2048})'|\(((?:\\.|[^()\\]){0,2048})\))"
)


def _inline_destination(text: str, start: int) -> tuple[str, str | None, int] | None:
    """Parse ``(dest "title")`` opening at ``start``; return url, title and the index after ``)``.

    Destinations and titles are bounded (8 KiB, 32 nested parentheses, 2 KiB titles) so
    that a page of unclosed ``[x](`` cannot make every attempt scan to the end of the text.
    """
    index = start + 1
    while index < len(text) and text[index] in " \t\n":
        index += 1
    limit = min(len(text), index + _MAX_DESTINATION)
    if index < len(text) and text[index] == "<":
        close = text.find(">", index, limit)
        if close < 0 or "\n" in text[index:close]:
            return None
        url = text[index + 1 : close]
        index = close + 1
    else:
        depth = 0
        begin = index
        while index < limit:
            char = text[index]
            if char == "\\" and index + 1 < len(text):
                index += 2
                continue
            if char in " \t\n" or ord(char) < 0x20:
                break
            if char == "(":
                depth += 1
                if depth > _MAX_PAREN_DEPTH:
                    return None
            elif char == ")":
                if depth == 0:
                    break
                depth -= 1
            index += 1
        url = text[begin:index]
    title = None
    match = _TITLE.match(text, index)
    if match:
        title = next(g for g in match.groups() if g is not None)
        index = match.end()
    while index < len(text) and text[index] in " \t\n":
        index += 1
    if index >= len(text) or text[index] != ")":
        return None
    return _unescape(url), (_unescape(title) if title is not None else None), index + 1


@dataclass(frozen=True, slots=True)
class _Link:
    end: int
    text: str
    url: str
    title: str | None
    label: str | None


def _parse_link(
    text: str, start: int, definitions: dict[str, tuple[str, str | None]], pairs: dict[int, int]
) -> _Link | None:
    close = pairs.get(start)
    if close is None:
        return None
    inner = text[start + 1 : close]
    after = close + 1
    if after < len(text) and text[after] == "(":
        parsed = _inline_destination(text, after)
        if parsed is not None:
            url, title, end = parsed
            return _Link(end, inner, url, title, None)
    if after < len(text) and text[after] == "[":
        label_end = pairs.get(after)
        if label_end is not None:
            label = text[after + 1 : label_end] or inner
            found = definitions.get(normalize_label(label))
            if found:
                return _Link(label_end + 1, inner, found[0], found[1], normalize_label(label))
    found = definitions.get(normalize_label(inner))
    if found and inner.strip():
        return _Link(after, inner, found[0], found[1], normalize_label(inner))
    return None


def _rewrite(
    text: str, definitions: dict[str, tuple[str, str | None]], numbering: _Numbering, used: set[str]
) -> str:
    spans = _code_spans(text)
    pairs = _bracket_pairs(text, spans)
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            out.append(text[index : index + 2])
            index += 2
        elif char == "`":
            end = spans.get(index) or _BACKTICKS.match(text, index).end()  # type: ignore[union-attr]
            out.append(text[index:end])
            index = end
        elif char == "<" and (match := _AUTOLINK.match(text, index) or _EMAIL.match(text, index)):
            target = match.group(1)
            url = target if match.re is _AUTOLINK else f"mailto:{target}"
            out.append(f"{target} [{numbering.cite(url, None, target)}]")
            index = match.end()
        elif char == "!" and text.startswith("![", index):
            image = _parse_link(text, index + 1, definitions, pairs)
            end = image.end if image else index + 2
            out.append(text[index:end])
            index = end
        elif char == "[" and (link := _parse_link(text, index, definitions, pairs)):
            if link.label:
                used.add(link.label)
            number = numbering.cite(link.url, link.title, link.text.strip())
            label = link.text.strip()
            out.append(f"{label} [{number}]" if label else f"[{number}]")
            if link.end < len(text) and text[link.end] in "([":
                out.append(" ")
            index = link.end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _definition_line(reference: Reference) -> str:
    url = (
        f"<{reference.url}>"
        if not reference.url or re.search(r"[\s()<>]", reference.url)
        else reference.url
    )
    line = f"[{reference.number}]: {url}"
    if reference.title is not None:
        escaped = reference.title.replace("\\", "\\\\").replace('"', '\\"')
        line += f' "{escaped}"'
    return line


def cite(markdown: str, heading: str = "References", first_number: int = 1) -> Citations:
    """Rewrite every link in ``markdown`` as ``text [n]`` and append the numbered reference list."""
    blocks = _blocks(markdown)
    definitions = _definitions(blocks)
    numbering = _Numbering(first=first_number)
    used: set[str] = set()
    # Pieces are verbatim text, rewritten prose, or a definition line kept only if unused.
    pieces: list[tuple[str, str | None]] = []
    for block in blocks:
        if block.is_code:
            pieces.append((block.text, None))
            continue
        chunk: list[str] = []
        for line in block.text.splitlines(keepends=True):
            match = _DEFINITION.match(line.rstrip("\r\n"))
            if match is None:
                chunk.append(line)
                continue
            pieces.append((_rewrite("".join(chunk), definitions, numbering, used), None))
            chunk.clear()
            pieces.append((line, normalize_label(match.group("label"))))
        pieces.append((_rewrite("".join(chunk), definitions, numbering, used), None))
    if not numbering.references:
        return Citations(markdown, (), 0)
    body = "".join(text for text, label in pieces if label is None or label not in used)
    parts = [body.rstrip("\n"), ""]
    if heading.strip():
        parts += [f"## {heading.strip()}", ""]
    parts += [_definition_line(r) for r in numbering.references]
    return Citations(
        "\n".join(parts).lstrip("\n") + "\n", tuple(numbering.references), numbering.count
    )
