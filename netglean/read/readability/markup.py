"""A page's markup as ARS reads it: a tolerant tokenizer that runs nothing, keeps every tag and text
with its byte offset, and says which text counts.

Why not the HTML5 parser the page tools use: ARS scores positions (the byte at which a fact first
appears) and counts text by its own recovery rules (which start tags close what, what is read as
text), and those rules are part of the standard; another parser gives another score. They are
written out here:

- ``<!-- -->``, ``<!...>`` and end tags are markup; an end tag closes the innermost open element of
  exactly its name (``</div class=x>`` names nothing) and is otherwise ignored; a ``<`` not followed
  by ``!``, ``/`` or a letter is text.
- ``script`` and ``style`` hold raw text and ``title`` and ``textarea`` text with entities decoded,
  each to the next ``</name``; void elements and ``<x/>`` hold nothing; elements past 256 levels
  hold nothing either.
- A start tag closes what it implies (``li`` an open ``li``; ``dt``/``dd`` each other; ``tr``,
  ``td``, ``th``, ``tbody``, ``tfoot``, ``option``, ``optgroup`` as HTML does), and a block start
  tag closes an open ``p``.
- Entities: numeric ones, and a pinned table of named ones, each only with its ``;``.
- Counted text is every text but that of ``script``, ``style`` and ``template`` and of hidden
  elements. Hidden is what the main-content reader calls hidden
  (netglean.read.main_content.is_hidden: the hidden attribute, aria-hidden, an inline display:none
  or visibility:hidden, a closed dialog), which is wider than ARS's own rule (the hidden attribute
  and an inline display:none): text a browser does not show states nothing.

Offsets are UTF-8 byte offsets into the decoded body, the unit ARS's sizes are in. Everything is
linear in the page's size: element text is read from one joined string, at most TEXT_READ characters
of it per element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netglean.read.main_content import is_hidden

SPACES = (
    "\t\n\x0b\x0c\r "
    "\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029"
)
SPACES += "\u202f\u205f\u3000\ufeff"
"""The characters ARS (JavaScript's \\s and trim) treats as blank."""
_BLANKS = re.compile(f"[{SPACES}]+")
MAX_DEPTH = 256
"""Open elements nested deeper than this hold nothing (they are kept, not opened)."""
TEXT_READ = 8_192
"""Characters of an element's text read at most (a name, a price, a link's words are far
shorter)."""

VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
RAW_TEXT = frozenset({"script", "style"})
ESCAPABLE_TEXT = frozenset({"textarea", "title"})
IMPLIED_ENDS: dict[str, frozenset[str]] = {
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "option": frozenset({"option"}),
    "optgroup": frozenset({"option", "optgroup"}),
    "tr": frozenset({"td", "th", "tr"}),
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tbody": frozenset({"td", "th", "tr", "thead", "tbody"}),
    "tfoot": frozenset({"td", "th", "tr", "thead", "tbody"}),
}
"""What a start tag closes while it is the innermost open element."""
CLOSE_P = frozenset(
    "address article aside blockquote details div dl fieldset figcaption figure footer form h1 "
    "h2 h3 h4 h5 h6 header hr main nav ol p pre section table ul".split()
)
"""Start tags that close an open ``p``."""
NAMED = {
    "amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'", "nbsp": "\xa0", "ensp": "\u2002",
    "emsp": "\u2003", "thinsp": "\u2009", "shy": "\xad", "zwnj": "\u200c", "zwj": "\u200d",
    "cent": "¢", "pound": "£", "curren": "¤", "yen": "¥", "euro": "€", "dollar": "$",
    "ndash": "–", "mdash": "—", "hellip": "…", "lsquo": "‘", "rsquo": "’", "sbquo": "‚",
    "ldquo": "“", "rdquo": "”", "bdquo": "„", "laquo": "«", "raquo": "»", "lsaquo": "‹",
    "rsaquo": "›", "bull": "•", "middot": "·", "dagger": "†", "Dagger": "‡", "prime": "′",
    "Prime": "″", "copy": "©", "reg": "®", "trade": "™", "sect": "§", "para": "¶", "deg": "°",
    "plusmn": "±", "times": "×", "divide": "÷", "minus": "−", "permil": "‰", "frac12": "½",
    "frac14": "¼", "frac34": "¾", "sup2": "²", "sup3": "³", "le": "≤", "ge": "≥", "ne": "≠",
    "lrm": "\u200e", "rlm": "\u200f",
}  # fmt: skip
"""The named character references decoded (ARS pins this set; any other is left as written)."""
WINDOWS_1252 = {
    0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020,
    0x87: 0x2021, 0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152,
    0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022,
    0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
    0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
}  # fmt: skip
"""Numeric references in 0x80-0x9F mean what windows-1252 puts there, as HTML says."""

_ENTITY = re.compile(r"&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{0,31});")
_TAG_NAME = re.compile(r"[^ \t\n\r\f/>]*")
_HTML_SPACE = re.compile(r"[ \t\n\r\f]*")
_ATTRIBUTE_NAME = re.compile(r"[^ \t\n\r\f=>/]+")
_BARE_VALUE = re.compile(r"[^ \t\n\r\f>]*")


def collapse(text: str) -> str:
    """Each run of blanks one space, none at either end."""
    return _BLANKS.sub(" ", text).strip(SPACES)


def _reference(match: re.Match[str]) -> str:
    body = match.group(1)
    if body[0] != "#":
        return NAMED.get(body, match.group(0))
    code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
    code = WINDOWS_1252.get(code, code)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return chr(code)


def decode_entities(text: str) -> str:
    """``text`` with its character references decoded (those ARS decodes)."""
    return _ENTITY.sub(_reference, text) if "&" in text else text


@dataclass(slots=True)
class Element:
    tag: str
    attrs: dict[str, str]
    """Names in lower case, values with entities decoded; the first of a name wins."""
    offset: int
    """UTF-8 byte offset of its ``<``."""
    parent: int
    """Index of the element it is in (-1 at the top)."""
    excluded: str | None
    """Why its text does not count (its own reason or an ancestor's), or None."""
    first_text: int
    """Index of the first text inside it."""
    end_text: int = -1
    """One past the last text inside it (-1 while it is open)."""


@dataclass(slots=True)
class Text:
    text: str
    offset: int
    parent: int
    excluded: str | None


@dataclass(slots=True)
class Link:
    rel: tuple[str, ...]
    """Lower case, in order, each once."""
    href: str | None
    type: str | None
    """Lower case; "" when given empty, None when not given."""


@dataclass(slots=True)
class Meta:
    prop: str | None
    """The property attribute, lower case (as the name is)."""
    name: str | None
    content: str | None
    offset: int

    @property
    def key(self) -> str | None:
        """What the tag is read as: its property, else its name."""
        return self.prop if self.prop is not None else self.name


@dataclass(slots=True)
class Markup:
    """A tokenized page."""

    elements: list[Element] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    json_ld: list[tuple[str, int]] = field(default_factory=list)
    """Each ``<script type=application/ld+json>``'s content as written, and its offset."""
    metas: list[Meta] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    joined: str = ""
    """The counted texts joined by one space: the page's counted text before its blanks are
    folded."""
    begins: list[int] = field(default_factory=list)
    """For each text index (and one past the last), where in ``joined`` the counted text from it on
    begins."""
    ends: list[int] = field(default_factory=list)
    """For each text index (and one past the last), where in ``joined`` the counted text before it
    ends."""

    def counted_text(self) -> str:
        """All the page's counted text, blanks folded."""
        return collapse(self.joined)

    def element_text(self, index: int, limit: int = TEXT_READ) -> str:
        """The counted text inside an element, blanks folded (at most ``limit`` characters of it
        read)."""
        element = self.elements[index]
        begin, end = self.begins[element.first_text], self.ends[element.end_text]
        return collapse(self.joined[begin : min(end, begin + limit)]) if begin < end else ""

    def element_text_end(self, index: int) -> str:
        """The last characters of an element's counted text (its end, where a question mark is
        looked for)."""
        element = self.elements[index]
        begin, end = self.begins[element.first_text], self.ends[element.end_text]
        return collapse(self.joined[max(begin, end - TEXT_READ) : end]) if begin < end else ""


class _Offsets:
    """Character index -> UTF-8 byte offset, read forwards in one pass."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.ascii = source.isascii()
        self.index = self.byte = 0

    def at(self, index: int) -> int:
        if self.ascii:
            return index
        if index < self.index:
            self.index = self.byte = 0
        self.byte += len(self.source[self.index : index].encode("utf-8", "surrogatepass"))
        self.index = index
        return self.byte


def _exclusion(tag: str, attrs: dict[str, str]) -> str | None:
    if tag == "script":
        kind = attrs.get("type", "").lower().split(";")[0].strip(SPACES)
        return "json_ld" if kind == "application/ld+json" else "script"
    if tag in {"style", "template"}:
        return tag
    return "hidden" if is_hidden(attrs, tag) else None


def _start_tag(html: str, start: int) -> tuple[str, dict[str, str], bool, int]:
    """The start tag at ``start`` (its ``<``): name, attributes, whether it closes itself, where it
    ends."""
    size = len(html)
    name = _TAG_NAME.match(html, start + 1)
    assert name is not None  # the pattern matches the empty string
    tag, at = name.group(0).lower(), name.end()
    attrs: dict[str, str] = {}
    closed = False
    while True:
        at = _HTML_SPACE.match(html, at).end()  # type: ignore[union-attr]
        if at >= size:
            return tag, attrs, closed, at
        char = html[at]
        if char == ">":
            return tag, attrs, closed, at + 1
        if char == "/":
            closed, at = True, at + 1
            continue
        attribute = _ATTRIBUTE_NAME.match(html, at)
        if attribute is None:  # a stray '=': skip it
            at += 1
            continue
        key, at = attribute.group(0).lower(), attribute.end()
        value = ""
        at = _HTML_SPACE.match(html, at).end()  # type: ignore[union-attr]
        if at < size and html[at] == "=":
            at = _HTML_SPACE.match(html, at + 1).end()  # type: ignore[union-attr]
            quote = html[at] if at < size else ""
            if quote in {'"', "'"}:
                close = html.find(quote, at + 1)
                value, at = (
                    (html[at + 1 :], size) if close < 0 else (html[at + 1 : close], close + 1)
                )
            else:
                bare = _BARE_VALUE.match(html, at)
                assert bare is not None
                value, at = bare.group(0), bare.end()
        if key not in attrs:
            attrs[key] = decode_entities(value)


def _side_tables(markup: Markup, element: Element) -> None:
    attrs = element.attrs
    if element.tag == "meta":
        prop, name = attrs.get("property"), attrs.get("name")
        markup.metas.append(
            Meta(
                prop.lower() if prop is not None else None,
                name.lower() if name is not None else None,
                attrs.get("content"),
                element.offset,
            )
        )
    elif element.tag == "link":
        rel = tuple(dict.fromkeys(token for token in attrs.get("rel", "").lower().split() if token))
        kind = attrs.get("type")
        markup.links.append(
            Link(rel, attrs.get("href"), kind.lower() if kind is not None else None)
        )


def tokenize(html: str) -> Markup:
    """``html`` (a decoded body) read as ARS reads it; never fails, whatever the bytes."""
    markup = Markup()
    elements, texts = markup.elements, markup.texts
    stack: list[int] = []
    offsets = _Offsets(html)
    lowered: str | None = None
    size = len(html)

    def close_above(depth: int) -> None:
        for index in stack[depth:]:
            elements[index].end_text = len(texts)
        del stack[depth:]

    def add_text(start: int, end: int, decode: bool) -> None:
        if end > start:
            parent = stack[-1] if stack else -1
            raw = html[start:end]
            excluded = elements[parent].excluded if parent >= 0 else None
            texts.append(
                Text(decode_entities(raw) if decode else raw, offsets.at(start), parent, excluded)
            )

    at = text_start = 0
    while True:
        lt = html.find("<", at)
        if lt < 0:
            break
        after = html[lt + 1 : lt + 2]
        if after not in {"!", "/"} and not (after.isascii() and after.isalpha()):
            at = lt + 1  # not markup: the '<' is text
            continue
        add_text(text_start, lt, True)
        if after == "!":
            close = (
                html.find("-->", lt + 4) if html.startswith("<!--", lt) else html.find(">", lt + 2)
            )
            at = size if close < 0 else close + (3 if html.startswith("<!--", lt) else 1)
        elif after == "/":
            close = html.find(">", lt + 2)
            name = html[lt + 2 : size if close < 0 else close].strip(SPACES).lower()
            at = size if close < 0 else close + 1
            for depth in range(len(stack) - 1, -1, -1):
                if name and elements[stack[depth]].tag == name:
                    close_above(depth)
                    break
        else:
            tag, attrs, closed, at = _start_tag(html, lt)
            implied = IMPLIED_ENDS.get(tag)
            while implied is not None and stack and elements[stack[-1]].tag in implied:
                close_above(len(stack) - 1)
            if tag in CLOSE_P and stack and elements[stack[-1]].tag == "p":
                close_above(len(stack) - 1)
            parent = stack[-1] if stack else -1
            own = _exclusion(tag, attrs)
            inherited = elements[parent].excluded if parent >= 0 else None
            element = Element(tag, attrs, offsets.at(lt), parent, inherited or own, len(texts))
            elements.append(element)
            _side_tables(markup, element)
            index = len(elements) - 1
            if tag in RAW_TEXT or tag in ESCAPABLE_TEXT:
                lowered = html.lower() if lowered is None else lowered
                close = lowered.find(f"</{tag}", at)
                end = size if close < 0 else close
                stack.append(index)
                add_text(at, end, tag in ESCAPABLE_TEXT)
                close_above(len(stack) - 1)
                if own == "json_ld" and end > at:
                    markup.json_ld.append((html[at:end], offsets.at(at)))
                gt = html.find(">", close) if close >= 0 else -1
                at = size if gt < 0 else gt + 1
            elif tag in VOID or closed or len(stack) >= MAX_DEPTH:
                element.end_text = len(texts)
            else:
                stack.append(index)
        text_start = at
    add_text(text_start, size, True)
    close_above(0)
    _join(markup)
    return markup


def _join(markup: Markup) -> None:
    """The counted texts joined, and for each text index where the counted text from it begins and
    where the counted text before it ends: an element's text is then one slice."""
    parts: list[str] = []
    begins: list[int] = []
    ends: list[int] = []
    length = 0
    for text in markup.texts:
        ends.append(length)
        begins.append(length + (1 if parts else 0))
        if text.excluded is None:
            length += len(text.text) + (1 if parts else 0)
            parts.append(text.text)
    ends.append(length)
    begins.append(length + 1)
    # A text that does not count begins where the next counted one does.
    following = length + 1
    for index in range(len(markup.texts) - 1, -1, -1):
        if markup.texts[index].excluded is None:
            following = begins[index]
        else:
            begins[index] = following
    markup.joined = " ".join(parts)
    markup.begins, markup.ends = begins, ends
