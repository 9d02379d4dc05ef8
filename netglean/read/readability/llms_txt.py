"""An llms.txt read against llmstxt.org's structure: what it holds and which of the rules it breaks.

The rules, in the file's order: an H1 with the site's or project's name (the only required part); an
optional blockquote summary; optional detail (paragraphs, lists) without headings; then sections
under H2 headings, each a markdown list of ``[name](url)`` links with optional ``: notes``. A
section named "Optional" holds links an agent may skip when its context is short.

The file is third-party text. What it says (title, summary, names, URLs, notes) is kept, bounded,
for the caller to frame; a problem is named by an id and a message of ours, with a line number, and
never quotes the file, so problems may be shown outside the untrusted frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from netglean.read.document import HTML_TYPES

MAX_CHARS = 1 << 20
"""Characters read from the file (a hostile one may be much longer): the rest is left unread."""
MAX_LINES = 20_000
"""Lines read from the file."""
MAX_SECTIONS = 200
"""Sections kept; more are counted, not kept."""
MAX_LINKS = 2_000
"""Links kept over all sections; more are counted, not kept."""
MAX_LINE_CHARS = 4_096
"""The most of one line read (a longer line is a long link's note or no markdown structure at
all)."""
_TEXT_LIMIT = 1_000
_URL_LIMIT = 2_048

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_SETEXT_H1 = re.compile(r" {0,3}=+[ \t]*$")
_FENCE = re.compile(r" {0,3}(```|~~~)")
_BLOCKQUOTE = re.compile(r" {0,3}>[ \t]?(.*)$")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_LINK_ITEM = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)\s*(?::\s*(.*))?$")
_HTML_START = re.compile(r"\s*<(?:!doctype\s+html|html|head|body)\b", re.I)

_MESSAGES = {
    "empty": "the file is empty",
    "html": "the answer is an HTML page, not a markdown file",
    "missing_h1": "there is no H1 title, the one part llmstxt.org requires",
    "h1_not_first": "the H1 title is not the first thing in the file",
    "multiple_h1": "there is more than one H1 heading",
    "deep_heading": "a heading deeper than H2 (file lists go under H2 headings, detail takes no "
    "headings)",
    "non_link_item": "a list item in a file list is not a markdown link [name](url)",
    "relative_url": "a link's URL is relative, not absolute",
    "invalid_url": "a link's URL is not a valid http(s) URL",
    "empty_section": "an H2 section lists no links",
    "truncated": "the file is longer than is read: only its beginning was checked",
}
"""Every problem id and what it means: ours, never the file's text."""
FATAL = frozenset({"empty", "html", "missing_h1"})
"""Problems that make the file no llms.txt at all (the others are rules broken by one that is)."""


@dataclass(frozen=True, slots=True)
class Link:
    name: str
    url: str
    notes: str | None


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    optional: bool
    """Named "Optional": its links may be skipped."""
    links: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    id: str
    message: str
    line: int | None
    """The first line (1-based) where it was seen; None when it is the file's as a whole."""
    count: int


@dataclass(frozen=True, slots=True)
class LlmsTxt:
    title: str | None
    summary: str | None
    sections: tuple[Section, ...]
    links: int
    """Links in every section, counted past MAX_LINKS too."""
    problems: tuple[Problem, ...]
    """At most one per id, in the order first seen."""

    @property
    def valid(self) -> bool:
        """Whether it is an llms.txt at all: markdown with its H1 title (other rules may still be
        broken)."""
        return not any(problem.id in FATAL for problem in self.problems)


class _Problems:
    """Problems by id, each with the line it was first seen on and a count, in the order first
    seen."""

    def __init__(self) -> None:
        self._first: dict[str, int | None] = {}
        self._count: dict[str, int] = {}

    def add(self, problem_id: str, line: int | None) -> None:
        self._first.setdefault(problem_id, line)
        self._count[problem_id] = self._count.get(problem_id, 0) + 1

    def frozen(self) -> tuple[Problem, ...]:
        return tuple(
            Problem(key, _MESSAGES[key], line, self._count[key])
            for key, line in self._first.items()
        )


class _Sections:
    """The H2 sections as they are read: at most MAX_SECTIONS kept, at most MAX_LINKS links in all;
    every link and every section without one counted all the same."""

    def __init__(self, problems: _Problems) -> None:
        self.kept: list[Section] = []
        self.links = 0
        self.started = False
        self._problems = problems
        # the section being read
        self._name, self._line, self._links, self._count = "", 0, list[Link](), 0

    def start(self, name: str, line: int) -> None:
        self.close()
        self.started = True
        self._name, self._line, self._links, self._count = name, line, [], 0

    def add(self, link: Link) -> None:
        self.links += 1
        self._count += 1
        if self.links <= MAX_LINKS:
            self._links.append(link)

    def close(self) -> None:
        if not self.started:
            return
        if not self._count:
            self._problems.add("empty_section", self._line)
        if len(self.kept) < MAX_SECTIONS:
            self.kept.append(
                Section(self._name, self._name.strip().lower() == "optional", tuple(self._links))
            )


def parse_llms_txt(text: str, content_type: str | None = None) -> LlmsTxt:
    """``text`` (an /llms.txt answer's body, ``content_type`` its Content-Type) read against
    llmstxt.org."""
    problems = _Problems()
    media_type = (content_type or "").split(";")[0].strip().lower()
    if not text.strip():
        problems.add("empty", None)
        return LlmsTxt(None, None, (), 0, problems.frozen())
    if media_type in HTML_TYPES or _HTML_START.match(text[:1024]):
        problems.add("html", None)
        return LlmsTxt(None, None, (), 0, problems.frozen())
    read = (
        text if len(text) <= MAX_CHARS else text[: text.rfind("\n", 0, MAX_CHARS) + 1 or MAX_CHARS]
    )
    # whole lines only: a cut one would read as a broken item
    lines = read.lstrip("\ufeff").splitlines()
    if len(text) > MAX_CHARS or len(lines) > MAX_LINES:
        problems.add("truncated", None)
    # A line is read as far as MAX_LINE_CHARS: the patterns below are linear only within a bounded
    # line.
    lines = [line[:MAX_LINE_CHARS] for line in lines[:MAX_LINES]]

    title: str | None = None
    summary: list[str] = []
    sections = _Sections(problems)
    seen_content = False  # anything before the H1, which must come first
    in_summary = False  # just after the H1, where the blockquote summary goes
    # the fence of the code block being read, whose lines are no markdown structure
    fence: str | None = None
    for number, line in enumerate(lines, 1):
        if fence is not None:
            if line.lstrip().startswith(fence):
                fence = None
            continue
        opened = _FENCE.match(line)
        if opened:
            fence, seen_content, in_summary = opened[1], True, False
            continue
        level, heading = _heading(line, lines[number] if number < len(lines) else "")
        if level:
            if level == 1 and title is None:
                title, in_summary = _bounded(heading), True
                if seen_content:
                    problems.add("h1_not_first", number)
            else:
                in_summary = False
                if level == 1:
                    problems.add("multiple_h1", number)
                elif level == 2:
                    sections.start(_bounded(heading), number)
                else:
                    problems.add("deep_heading", number)
            seen_content = True
            continue
        if not line.strip() or _SETEXT_H1.match(line):
            continue
        quoted = _BLOCKQUOTE.match(line)
        if in_summary and quoted:
            summary.append(quoted[1].strip())
            continue
        in_summary, seen_content = False, True
        item = _LIST_ITEM.match(line)
        if not sections.started or not item:
            continue  # detail before the first H2, or text in a section besides its list
        found = _LINK_ITEM.fullmatch((item[1] or "").strip())
        if not found:
            problems.add("non_link_item", number)
            continue
        _check_url(found[2], number, problems)
        notes = _bounded((found[3] or "").strip()) or None
        sections.add(Link(_bounded(found[1].strip()), found[2][:_URL_LIMIT], notes))
    sections.close()
    if title is None:
        problems.add("missing_h1", None)
    brief = _bounded(" ".join(part for part in summary if part)) or None
    return LlmsTxt(title, brief, tuple(sections.kept), sections.links, problems.frozen())


def _heading(line: str, following: str) -> tuple[int, str]:
    """The heading ``line`` is (its level and text; level 0 when it is none): ATX (``# Title``), or
    setext H1 (a line underlined with ``=``; setext H2 is left out, its underline being a thematic
    break's too)."""
    atx = _HEADING.match(line)
    if atx:
        return len(atx[1]), _CLOSING_HASHES.sub("", atx[2] or "").strip()
    if (
        line.strip()
        and _SETEXT_H1.match(following)
        and not _LIST_ITEM.match(line)
        and not _BLOCKQUOTE.match(line)
    ):
        return 1, line.strip()
    return 0, ""


def _check_url(url: str, line: int, problems: _Problems) -> None:
    try:
        parts = urlsplit(url)
    except ValueError:
        problems.add("invalid_url", line)
        return
    if not parts.scheme and not parts.netloc:
        problems.add("relative_url" if url else "invalid_url", line)
    elif parts.scheme not in {"http", "https"} or not parts.hostname:
        problems.add("invalid_url", line)


def _bounded(text: str) -> str:
    return text[:_TEXT_LIMIT]
