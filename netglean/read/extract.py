"""From an HTML page to the content a model wants: main-content selection, then blocks, then a
format.

Pipeline: drop what is never content (scripts, styles, embeds, form controls); pick the main content
(netglean.read.main_content: paragraphs scored into their containers, Readability's method); walk it
into blocks (headings, paragraphs, lists, quotes, code, tables, images), their inline content as
markdown or plain text. netglean.read.render writes the blocks as markdown, text, html or json.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from netglean.core.untrusted import sanitize
from netglean.read.html_tree import BLOCK_ELEMENTS, document_base, flat_text, with_ancestors
from netglean.read.links import ContentLink
from netglean.read.main_content import EMBEDDED_POSTS, found_article, readerable, select

_NEVER = (
    "script, style, noscript, template, svg, canvas, iframe, object, embed, button, select, "
    "input, textarea"
)
_NEVER_TAGS = frozenset(_NEVER.split(", "))
_BLOCK_TAGS = {
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "blockquote",
    "pre",
    "table",
    "figure",
    "img",
    "hr",
    "dl",
}
_FLOW_TAGS = {
    "address",
    "article",
    "aside",
    "details",
    "div",
    "footer",
    "header",
    "main",
    "nav",
    "section",
}
"""Containers a browser lays out as blocks: one holding another is walked, so sibling divs are
paragraphs of their own rather than one run of inline text whose edge words merge ("Read nextThe
last ferry")."""
_HOLDS_BLOCKS = ", ".join(sorted(_BLOCK_TAGS | _FLOW_TAGS))
MAX_BLOCK_DEPTH = 100
MAX_INLINE_DEPTH = 40
"""Nesting past which elements are read as their plain text. Real pages nest a few dozen levels; a
hostile one can nest thousands in a few kilobytes, and every level here is a Python frame."""
_SPACES = re.compile(r"[ \t\r\f\v]{2,}|[\t\r\f\v]")
"""Runs of blanks other than newlines, squeezed to one space (a lone space is left as it is:
matching every space costs a regex match a word)."""
_BREAK_MARK = "\x00"
"""A <br> until blanks are squeezed, then a markdown hard break: written as two spaces and a newline
at once, the squeeze took one of the spaces and left a soft break. Page text never holds it:
sanitize removes NUL."""
_BREAK = re.compile(r"[ ]*\x00[ ]*")
_BLOCK_MARK = "\x01"
"""A block element's edge met inside inline content (a paragraph in a list item or a quote, a div in
a link): a space once blanks are squeezed, a paragraph break in a quote. Page text never holds it:
sanitize removes it."""
_EDGES = " \t\n\r\f\v" + _BLOCK_MARK
LINK_STYLES = ("inline", "references", "none")
"""How markdown writes a link: "[text](url)" where it stands; "text [1]", the URLs numbered once
each and listed at the end (``Extraction.references``); or its text alone."""


@dataclass(frozen=True, slots=True)
class Block:
    kind: str  # heading | paragraph | list | quote | code | table | image | rule
    text: str
    level: int = 0
    items: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass
class Extraction:
    title: str | None
    blocks: list[Block] = field(default_factory=list)
    links: list[ContentLink] = field(default_factory=list)
    plain: bool = False
    """Inline content is plain text, not markdown (render writes text and html only from such
    blocks)."""
    link_style: str = "inline"
    """How the markdown blocks write links (LINK_STYLES)."""
    references: dict[str, int] = field(default_factory=dict)
    """The URLs cited "[n]" (link_style references), with their numbers, in order."""
    readerable: bool | None = None
    """Whether the page reads as an article (asked only when main content is): if not, its main
    content is a best guess at a page that has none."""
    byline: str | None = None
    """The byline found in the page's markup, left out of the content."""
    whole: bool = True
    """False when main-content selection could not check that the content holds the page's article
    (it kept little while the page holds more long paragraphs, or cleaning took most of it): say so,
    never "the whole"."""


def _clean(text: str) -> str:
    return " ".join(sanitize(text).split())


def _inline(node: Any, scope: _Scope, depth: int = 0) -> str:
    """A node's inline content: text, links, emphasis, code, line breaks, as markdown or
    (``scope.plain``) plain text. Text is sanitised where it is read and blanks are squeezed once,
    at the top (``depth`` 0): a nest of inline elements is not re-scanned at every level (1 MB of
    text 40 levels down had taken a second)."""
    if depth > MAX_INLINE_DEPTH:
        return sanitize(flat_text(node))
    parts: list[str] = []
    child = node.child
    while child is not None:
        parts.append(_inline_one(child, scope, depth))
        child = child.next
    joined = "".join(parts)
    return joined if depth else _squeeze_spaces(joined, scope)


def _squeeze_spaces(joined: str, scope: _Scope) -> str:
    """A block's inline text once read: block edges and blanks squeezed to a space, line breaks
    written (a hard break in markdown)."""
    if _BLOCK_MARK in joined:
        joined = joined.replace(_BLOCK_MARK, " ")
    joined = _SPACES.sub(" ", joined)
    return _BREAK.sub("\n" if scope.plain else "  \n", joined) if _BREAK_MARK in joined else joined


def _inline_one(node: Any, scope: _Scope, depth: int = 0) -> str:
    """One inline node (and what it contains), ``depth`` levels inside the block. Plain text is
    written as it is read, not by taking marks out of markdown: a link's text holding brackets, or a
    star in the page's own text, would be misread."""
    tag = node.tag
    if tag == "-text":
        return sanitize(str(node.text_content or ""))
    if tag == "a":
        head, text, tail = _span(_inline(node, scope, depth + 1))
        href = (node.attributes.get("href") or "").strip()
        if href and not href.lower().startswith(("javascript:", "data:", "#")):
            url = urljoin(scope.base_url, href)
            scope.links.append(ContentLink(url, " ".join(text.replace(_BREAK_MARK, " ").split())))
            if text and not scope.plain:
                text = _link(text, sanitize(url), scope)
        return f"{head}{text}{tail}"
    if tag in {"strong", "b", "em", "i"}:
        head, inner, tail = _span(_inline(node, scope, depth + 1))
        if inner and not scope.plain:
            inner = f"**{inner}**" if tag in {"strong", "b"} else f"*{inner}*"
        return f"{head}{inner}{tail}"
    if tag == "code":
        head, code, tail = _span(flat_text(node, _BLOCK_MARK))
        code = _clean(code)
        return f"{head}{code if scope.plain or not code else f'`{code}`'}{tail}"
    if tag == "br":
        return _BREAK_MARK
    if tag == "img":  # a picture's alt text is no line of the text: only markdown shows the picture
        alt = _clean(node.attributes.get("alt") or "")
        if scope.plain or not alt or scope.out.link_style == "none":
            return ""
        src = sanitize(urljoin(scope.base_url, node.attributes.get("src") or ""))
        if scope.out.link_style == "references":
            return f"![{alt}][{cite(scope.out, src)}]"
        return f"![{alt}]({src})"
    if tag in {"-comment", "script", "style"}:
        return ""
    if tag in BLOCK_ELEMENTS:
        return f"{_BLOCK_MARK}{_inline(node, scope, depth + 1)}{_BLOCK_MARK}"
    return _inline(node, scope, depth + 1)


def _link(text: str, url: str, scope: _Scope) -> str:
    """A link's text as markdown writes it in the extraction's link style."""
    style = scope.out.link_style
    if style == "inline":
        return f"[{text}]({url})"
    if style == "references":
        return f"{text} [{cite(scope.out, url)}]"
    return text


def cite(out: Extraction, url: str) -> int:
    """The number ``url`` is cited by in ``out``'s references: its own when it was cited before."""
    return out.references.setdefault(url, len(out.references) + 1)


def _span(inner: str) -> tuple[str, str, str]:
    """Inline content marked as one span (a link's text, emphasis): what its edges were (a block
    edge, else a blank, else nothing), kept outside the marks so the words beside it stay apart; and
    its text, block edges inside it made spaces so a quote's paragraphs never split it."""
    text = inner.strip(_EDGES)
    if not text:
        return ("", "", _BLOCK_MARK) if _BLOCK_MARK in inner else ("", "", " " if inner else "")
    lead = inner[: len(inner) - len(inner.lstrip(_EDGES))]
    trail = inner[len(inner.rstrip(_EDGES)) :]
    return _edge(lead), text.replace(_BLOCK_MARK, " "), _edge(trail)


def _edge(blanks: str) -> str:
    return _BLOCK_MARK if _BLOCK_MARK in blanks else " " if blanks else ""


def _quote(node: Any, scope: _Scope) -> str:
    """A quote's text: its paragraphs (the runs between block edges) apart, each on one line."""
    parts = _inline(node, scope, 1).split(_BLOCK_MARK)
    paragraphs = (" ".join(part.replace(_BREAK_MARK, " ").split()) for part in parts)
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a walk asks of the elements below its root, answered for all of them before it
    starts."""

    base_url: str
    plain: bool
    """Inline content written as plain text (the text and html formats) rather than markdown."""
    links: list[ContentLink]
    """The extraction's links, appended to as they are read."""
    out: Extraction
    """The extraction being written: its link style and the references cited so far."""
    blocks: set[int]
    """Elements that are, or hold, a block element (was a css_first query per container: O(subtree)
    each)."""
    tables: set[int]
    """Elements holding a table: a table among them is a layout table."""


def _scope(root: Any, base_url: str, out: Extraction) -> _Scope:
    blocks = root.css(_HOLDS_BLOCKS)
    tables = with_ancestors(node.parent for node in blocks if node.tag == "table")
    return _Scope(base_url, out.plain, out.links, out, with_ancestors(blocks), tables)


def _rows(table: Any) -> Iterator[Any]:
    """A table's own rows: its tr children and those of its thead, tbody and tfoot, never a nested
    table's."""
    for part in table.iter():
        if part.tag == "tr":
            yield part
        elif part.tag in {"thead", "tbody", "tfoot"}:
            yield from (row for row in part.iter() if row.tag == "tr")


def _cells(row: Any) -> Iterator[Any]:
    """A row's own cells."""
    return (cell for cell in row.iter() if cell.tag in {"th", "td"})


def _layout(table: Any, scope: _Scope, out: Extraction, depth: int) -> None:
    """A table that holds tables lays the page out: its cells are read in order as containers, so
    the tables they hold (and the text around them) are blocks of their own, each read once."""
    for row in _rows(table):
        _row(row, scope, out, depth)


def _row(row: Any, scope: _Scope, out: Extraction, depth: int) -> None:
    """A layout row's cells, each a container or a paragraph of its own (never one run of text)."""
    for cell in _cells(row):
        if cell.mem_id in scope.blocks:
            _walk(cell, scope, out, depth + 1)
            continue
        text = _inline(cell, scope).strip()
        if len(_clean(text)) >= 2:
            out.blocks.append(Block("paragraph", text))


def _items(node: Any, scope: _Scope) -> tuple[str, ...]:
    """A list's items: its <li> children, and each run of anything else a page put in the list
    itself (text, a link, a nested list) as an item of its own, so nothing in a list is lost."""
    items: list[str] = []
    run: list[str] = []

    def end_run() -> None:
        text = "".join(run)
        if text.strip():
            items.append(_squeeze_spaces(text, scope).strip())
        run.clear()

    child = node.child
    while child is not None:
        if child.tag == "li":
            end_run()
            items.append(_inline(child, scope).strip())
        else:
            run.append(_inline_one(child, scope))
        child = child.next
    end_run()
    return tuple(item for item in items if _clean(item))


def _walk(node: Any, scope: _Scope, out: Extraction, depth: int = 0) -> None:
    """Append ``node``'s blocks to ``out``. Containers past MAX_BLOCK_DEPTH are one paragraph of
    their text."""
    base_url = scope.base_url
    child = node.child
    while child is not None:
        tag = child.tag
        blank_text = tag == "-text" and not (child.text_content or "").strip()
        if tag == "-comment" or blank_text:
            child = child.next
            continue
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            text = _clean(_inline(child, scope))
            if text:
                out.blocks.append(Block("heading", text, level=int(tag[1])))
        elif tag == "p":
            text = _inline(child, scope).strip()
            if _clean(text):
                out.blocks.append(Block("paragraph", text))
        elif tag in {"ul", "ol"}:
            items = _items(child, scope)
            if items:
                out.blocks.append(Block("list", "", level=1 if tag == "ol" else 0, items=items))
        elif tag == "blockquote":
            text = _quote(child, scope)
            if text:
                out.blocks.append(Block("quote", text))
        elif tag == "pre":
            out.blocks.append(Block("code", sanitize(flat_text(child, "\n")).strip("\n")))
        elif tag == "table" and child.mem_id in scope.tables and depth < MAX_BLOCK_DEPTH:
            _layout(child, scope, out, depth)
        elif tag == "table":
            # A data table, or one nested past MAX_BLOCK_DEPTH: each of its own cells is one read of
            # its text.
            rows = tuple(
                tuple(_clean(flat_text(cell)) for cell in _cells(tr)) for tr in _rows(child)
            )
            rows = tuple(row for row in rows if any(row))
            if rows:
                out.blocks.append(Block("table", "", rows=rows))
        elif tag == "img":
            alt = _clean(child.attributes.get("alt") or "")
            if alt and (scope.plain or out.link_style != "none"):
                src = sanitize(urljoin(base_url, child.attributes.get("src") or ""))
                if out.link_style == "references" and not scope.plain:
                    cite(out, src)
                out.blocks.append(Block("image", alt, items=(src,)))
        elif tag == "hr":
            out.blocks.append(Block("rule", ""))
        elif tag in {"tbody", "thead", "tfoot", "tr"} and depth < MAX_BLOCK_DEPTH:
            # Rows outside their table: the main content can be a table's rows (a chosen cell's
            # siblings).
            for row in (
                (child,) if tag == "tr" else (part for part in child.iter() if part.tag == "tr")
            ):
                _row(row, scope, out, depth)
        elif depth >= MAX_BLOCK_DEPTH:
            text = _clean(flat_text(child))
            if text:
                out.blocks.append(Block("paragraph", text))
        elif child.mem_id in scope.blocks:
            _walk(child, scope, out, depth + 1)  # a container: its blocks are inside
        else:
            # Inline content sitting directly in a container (a bare link, a span): gather the run
            # of such siblings into one paragraph, so links are kept and the text is not split word
            # by word.
            run = [child]
            while (
                child.next is not None
                and child.next.tag not in _BLOCK_TAGS
                and (
                    child.next.tag
                    in {
                        "-text",
                        "a",
                        "span",
                        "strong",
                        "b",
                        "em",
                        "i",
                        "code",
                        "br",
                        "img",
                        "small",
                    }
                )
            ):
                child = child.next
                run.append(child)
            text = _squeeze_spaces("".join(_inline_one(n, scope) for n in run), scope)
            if len(_clean(text)) >= 2:
                out.blocks.append(Block("paragraph", text.strip()))
        child = child.next


def extract(
    tree: Any,
    page_url: str,
    main_content: bool = True,
    plain: bool = False,
    link_style: str = "inline",
) -> Extraction:
    """The blocks of the page at ``page_url``, links resolved against its base URL, their inline
    content as markdown (its links written as ``link_style`` says: LINK_STYLES) or, with ``plain``,
    as plain text (what the text and html formats write). Prunes ``tree`` as it goes: read metadata
    and links from it first."""
    base_url = document_base(tree, page_url)
    title_node = tree.css_first("title")
    title = _clean(title_node.text()) if title_node is not None else None
    embeds = False
    for node in tree.css(f"{_NEVER}, {EMBEDDED_POSTS}"):  # one look for both
        if node.tag in _NEVER_TAGS:
            node.decompose()
        else:
            embeds = True
    out = Extraction(title or None, plain=plain, link_style=link_style)
    root = tree.body or tree.root
    if main_content:
        page_readerable = readerable(tree)
        found = select(tree, embeds)
        out.readerable = page_readerable or found_article(found)
        root, out.byline, out.whole = found.root, found.byline, found.whole
    if root is not None:
        _walk(root, _scope(root, base_url, out), out)
    if main_content:
        out.blocks = _without_datelines(out.blocks)
    return out


_DATE_WORDS = frozenset(
    "january february march april may june july august september october november december jan "
    "feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday "
    "saturday sunday mon tue tues wed thu thur thurs fri sat sun posted published updated last "
    "modified on at date am pm a.m p.m et edt est ct cdt cst mt mdt mst pt pdt pst gmt utc bst "
    "cet cest ago hour hours minute minutes day days".split()
)
_DATE_TOKEN = re.compile(r"[^\s,|•·/:–—-]+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)?")
DATELINE_CHARS = 100


def _without_datelines(blocks: list[Block]) -> list[Block]:
    """The blocks without the date lines above the article's first long paragraph ("Published: 24
    July 2012 at 7:37 AM ET", "Posted on July 18th, 2012"): the date is the page's metadata, not a
    line of its text."""
    first = next(
        (n for n, b in enumerate(blocks) if b.kind == "paragraph" and len(b.text) >= 140),
        len(blocks),
    )
    return [
        b
        for n, b in enumerate(blocks)
        if n >= first or b.kind != "paragraph" or not _dateline(b.text)
    ]


def _dateline(text: str) -> bool:
    """Whether a short line is a date and nothing else: its words are dates, times, days, months and
    the words that announce them, and it holds a number."""
    if len(text) > DATELINE_CHARS or not any(char.isdigit() for char in text):
        return False
    words = (token.strip(".()") for token in _DATE_TOKEN.findall(text.lower()))
    return all(not word or _ORDINAL.fullmatch(word) or word in _DATE_WORDS for word in words)
