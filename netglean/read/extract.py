"""From an HTML page to the content a model wants: main-content selection, then blocks, then a format.

Pipeline: drop what is never content (scripts, styles, forms, navigation, ads, comment
threads, cookie banners - by element, ARIA role and class/id words); pick the main
container (the largest <article>, else <main>, else the element whose paragraphs carry
the most text with the fewest links); walk it into blocks (headings, paragraphs, lists,
quotes, code, tables, images). netglean.read.render writes the blocks as markdown, text, html or json.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from netglean.core.untrusted import sanitize
from netglean.read.html_tree import TextMeasure, document_base, with_ancestors

_NEVER = "script, style, noscript, template, svg, canvas, iframe, object, embed, form, button, select, input, textarea"
_CHROME = "nav, aside, footer, header, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]"
_BOILERPLATE = re.compile(
    r"(^|[\s_-])(ad|ads|advert\w*|banner|breadcrumbs?|comments?|cookie\w*|disqus|footer|menu|modal|navbar|"
    r"newsletter|outbrain|paywall|popup|promo\w*|related|share|sharing|sidebar|social|sponsor\w*|subscribe|"
    r"taboola|toolbar|widget)($|[\s_-])",
    re.IGNORECASE,
)
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
_FLOW_TAGS = {"address", "article", "aside", "details", "div", "footer", "header", "main", "nav", "section"}
"""Containers a browser lays out as blocks: one holding another is walked, so sibling divs are paragraphs of
their own rather than one run of inline text whose edge words merge ("Read nextThe last ferry")."""
_HOLDS_BLOCKS = ", ".join(sorted(_BLOCK_TAGS | _FLOW_TAGS))
MAX_BLOCK_DEPTH = 100
MAX_INLINE_DEPTH = 40
"""Nesting past which elements are read as their plain text. Real pages nest a few dozen levels; a hostile
one can nest thousands in a few kilobytes, and every level here is a Python frame."""
_SPACES = re.compile(r"[ \t\r\f\v]{2,}|[\t\r\f\v]")
"""Runs of blanks other than newlines, squeezed to one space (a lone space is left as it is: matching every
space costs a regex match a word)."""
_BREAK_MARK = "\x00"
"""A <br> until blanks are squeezed, then a markdown hard break: written as two spaces and a newline at once,
the squeeze took one of the spaces and left a soft break. Page text never holds it: sanitize removes NUL."""
_BREAK = re.compile(r"[ ]*\x00[ ]*")


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
    links: list[dict[str, str]] = field(default_factory=list)


def _clean(text: str) -> str:
    return " ".join(sanitize(text).split())


def _inline(node: Any, base_url: str, links: list[dict[str, str]], depth: int = 0) -> str:
    """Markdown for a node's inline content: text, links, emphasis, code, line breaks. Text is sanitised where
    it is read and blanks are squeezed once, at the top (``depth`` 0): a nest of inline elements is not
    re-scanned at every level (1 MB of text 40 levels down had taken a second)."""
    if depth > MAX_INLINE_DEPTH:
        return sanitize(node.text(deep=True) or "")
    parts: list[str] = []
    child = node.child
    while child is not None:
        parts.append(_inline_one(child, base_url, links, depth))
        child = child.next
    joined = "".join(parts)
    if depth:
        return joined
    joined = _SPACES.sub(" ", joined)
    return _BREAK.sub("  \n", joined) if _BREAK_MARK in joined else joined


def _inline_one(node: Any, base_url: str, links: list[dict[str, str]], depth: int = 0) -> str:
    """Markdown for one inline node (and what it contains), ``depth`` levels inside the block."""
    tag = node.tag
    if tag == "-text":
        return sanitize(str(node.text_content or ""))
    if tag == "a":
        text = _inline(node, base_url, links, depth + 1).strip()
        href = (node.attributes.get("href") or "").strip()
        if href and not href.lower().startswith(("javascript:", "data:", "#")):
            url = urljoin(base_url, href)
            links.append({"url": url, "text": " ".join(text.replace(_BREAK_MARK, " ").split())})
            return f"[{text}]({sanitize(url)})" if text else ""
        return text
    if tag in {"strong", "b"}:
        inner = _inline(node, base_url, links, depth + 1).strip()
        return f"**{inner}**" if inner else ""
    if tag in {"em", "i"}:
        inner = _inline(node, base_url, links, depth + 1).strip()
        return f"*{inner}*" if inner else ""
    if tag == "code":
        return f"`{_clean(node.text(deep=True))}`"
    if tag == "br":
        return _BREAK_MARK
    if tag == "img":
        alt = _clean(node.attributes.get("alt") or "")
        return f"![{alt}]({sanitize(urljoin(base_url, node.attributes.get('src') or ''))})" if alt else ""
    if tag in {"-comment", "script", "style"}:
        return ""
    return _inline(node, base_url, links, depth + 1)


def _remove(tree: Any, selector: str) -> None:
    for node in tree.css(selector):
        node.decompose()


def _is_boilerplate(node: Any) -> bool:
    names = f"{node.attributes.get('class') or ''} {node.attributes.get('id') or ''}"
    return bool(names.strip()) and bool(_BOILERPLATE.search(names))


_Span = tuple[int, bool, bool] | None
"""Text as _clean reads it: its length, whether it starts and ends inside a word; None for no text at all."""


def _span(text: str) -> _Span:
    clean = sanitize(text)
    if not clean:
        return None
    words = clean.split()
    if not words:
        return (0, False, False)
    return (sum(map(len, words)) + len(words) - 1, not clean[0].isspace(), not clean[-1].isspace())


def _joined(left: _Span, right: _Span) -> _Span:
    """The span of two texts one after the other (their words meet, or a space parts them)."""
    if left is None:
        return right
    if right is None:
        return left
    if not left[0]:
        return (right[0], False, right[2]) if right[0] else (0, False, False)
    if not right[0]:
        return (left[0], left[1], False)
    return (left[0] + right[0] + (0 if left[2] and right[1] else 1), left[1], right[2])


def _lengths(chosen: list[Any]) -> Callable[[Any], int]:
    """len(_clean(node.text(deep=True))) for the chosen nodes and any node above one, each character read once
    however they nest (an escape sequence split across elements is measured as the pieces sanitise)."""
    measure = TextMeasure(chosen, _span, _joined, None)

    def length(node: Any) -> int:
        span = measure(node)
        return span[0] if span else 0

    return length


def _main(tree: Any) -> Any:
    articles = tree.css("article")
    paragraphs = tree.css("p, pre, blockquote")
    length = _lengths([*articles, *paragraphs])
    boilerplate = _within_boilerplate()
    long_articles = [a for a in articles if length(a) > 200 and not boilerplate(a)]
    if long_articles:
        return max(long_articles, key=length)
    main = tree.css_first("main, [role=main]")
    if main is not None and length(main) > 200:
        return main
    scores: dict[int, tuple[float, Any]] = {}
    for paragraph in paragraphs:
        chars = length(paragraph)
        if chars < 25 or boilerplate(paragraph):
            continue
        score = 1 + chars / 100
        parent = paragraph.parent
        for share in (1.0, 0.5):  # the paragraph's parent, then its grandparent
            if parent is None or parent.tag in {"html", "body"}:
                break
            key = parent.mem_id
            previous = scores.get(key, (0.0, parent))[0]
            scores[key] = (previous + score * share, parent)
            parent = parent.parent
    if not scores:
        return tree.body or tree.root
    density = _link_densities(tree, {key: node for key, (_, node) in scores.items()}, length)
    best = max(scores.items(), key=lambda item: item[1][0] * (1 - density[item[0]]))
    return best[1][1]


def _within_boilerplate() -> Callable[[Any], bool]:
    """Whether a node or an element above it says by its class or id that it is boilerplate (a sidebar, a
    comment thread): such text is never the main content, however long. Answers are remembered per element, so
    the paragraphs of one container climb its ancestors once."""
    known: dict[int, bool] = {}

    def within(node: Any) -> bool:
        path: list[int] = []
        found = False
        while node is not None and node.tag not in {"html", "body"}:
            if node.mem_id in known:
                found = known[node.mem_id]
                break
            path.append(node.mem_id)
            if _is_boilerplate(node):
                found = True
                break
            node = node.parent
        for key in path:
            known[key] = found
        return found

    return within


def _link_densities(tree: Any, nodes: dict[int, Any], length: Callable[[Any], int]) -> dict[int, float]:
    """Each node's share of text inside links (its own included, as node.css("a") finds them), from one pass
    over the links: each link counts toward the nearest node at or above it, and each node's sum is passed up
    to the nearest one above it. Asking every node for its links read every nested one again."""
    nearest: dict[int, int | None] = {}  # an element -> the nearest of ``nodes`` at or above it

    def owner(start: Any) -> int | None:
        path: list[int] = []
        node, found = start, None
        while node is not None:
            if node.mem_id in nearest:
                found = nearest[node.mem_id]
                break
            path.append(node.mem_id)
            if node.mem_id in nodes:
                found = node.mem_id
                break
            node = node.parent
        for key in path:
            nearest[key] = found
        return found

    owned = [(key, anchor) for anchor in tree.css("a") if (key := owner(anchor)) is not None]
    anchor_length = _lengths([anchor for _, anchor in owned])
    linked = dict.fromkeys(nodes, 0)
    for key, anchor in owned:
        linked[key] += anchor_length(anchor)
    above = {key: owner(node.parent) for key, node in nodes.items()}
    waiting = dict.fromkeys(nodes, 0)  # how many nodes below each have yet to pass their sums up
    for up in above.values():
        if up is not None:
            waiting[up] += 1
    ready = [key for key, count in waiting.items() if not count]
    while ready:
        key = ready.pop()
        up = above[key]
        if up is not None:
            linked[up] += linked[key]
            waiting[up] -= 1
            if not waiting[up]:
                ready.append(up)
    densities: dict[int, float] = {}
    for key, node in nodes.items():
        total = length(node)
        densities[key] = linked[key] / total if total else 1.0
    return densities


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a walk asks of the elements below its root, answered for all of them before it starts."""

    base_url: str
    prune: bool
    blocks: set[int]
    """Elements that are, or hold, a block element (was a css_first query per container: O(subtree) each)."""
    tables: set[int]
    """Elements holding a table: a table among them is a layout table."""


def _scope(root: Any, base_url: str, prune: bool) -> _Scope:
    blocks = root.css(_HOLDS_BLOCKS)
    tables = with_ancestors(node.parent for node in blocks if node.tag == "table")
    return _Scope(base_url, prune, with_ancestors(blocks), tables)


def _rows(table: Any) -> Iterator[Any]:
    """A table's own rows: its tr children and those of its thead, tbody and tfoot, never a nested table's."""
    for part in table.iter():
        if part.tag == "tr":
            yield part
        elif part.tag in {"thead", "tbody", "tfoot"}:
            yield from (row for row in part.iter() if row.tag == "tr")


def _cells(row: Any) -> Iterator[Any]:
    """A row's own cells."""
    return (cell for cell in row.iter() if cell.tag in {"th", "td"})


def _layout(table: Any, scope: _Scope, out: Extraction, depth: int) -> None:
    """A table that holds tables lays the page out: its cells are read in order as containers, so the tables
    they hold (and the text around them) are blocks of their own, each read once."""
    for row in _rows(table):
        if scope.prune and _is_boilerplate(row):
            continue
        for cell in _cells(row):
            if scope.prune and _is_boilerplate(cell):
                continue
            if cell.mem_id in scope.blocks:
                _walk(cell, scope, out, depth + 1)
                continue
            text = _inline(cell, scope.base_url, out.links).strip()
            if len(_clean(text)) >= 2:
                out.blocks.append(Block("paragraph", text))


def _walk(node: Any, scope: _Scope, out: Extraction, depth: int = 0) -> None:
    """Append ``node``'s blocks to ``out``; with ``scope.prune``, skip elements whose class or id says
    boilerplate. Containers past MAX_BLOCK_DEPTH are one paragraph of their text."""
    base_url = scope.base_url
    child = node.child
    while child is not None:
        tag = child.tag
        blank_text = tag == "-text" and not (child.text_content or "").strip()
        if tag == "-comment" or blank_text or (scope.prune and tag != "-text" and _is_boilerplate(child)):
            child = child.next
            continue
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            text = _clean(_inline(child, base_url, out.links))
            if text:
                out.blocks.append(Block("heading", text, level=int(tag[1])))
        elif tag == "p":
            text = _inline(child, base_url, out.links).strip()
            if _clean(text):
                out.blocks.append(Block("paragraph", text))
        elif tag in {"ul", "ol"}:
            items = tuple(_inline(li, base_url, out.links).strip() for li in child.iter() if li.tag == "li")
            items = tuple(item for item in items if _clean(item))
            if items:
                out.blocks.append(Block("list", "", level=1 if tag == "ol" else 0, items=items))
        elif tag == "blockquote":
            text = _clean(_inline(child, base_url, out.links))
            if text:
                out.blocks.append(Block("quote", text))
        elif tag == "pre":
            out.blocks.append(Block("code", sanitize(child.text(deep=True)).strip("\n")))
        elif tag == "table" and child.mem_id in scope.tables and depth < MAX_BLOCK_DEPTH:
            _layout(child, scope, out, depth)
        elif tag == "table":
            # A data table, or one nested past MAX_BLOCK_DEPTH: each of its own cells is one read of its text.
            rows = tuple(tuple(_clean(cell.text(deep=True)) for cell in _cells(row)) for row in _rows(child))
            rows = tuple(row for row in rows if any(row))
            if rows:
                out.blocks.append(Block("table", "", rows=rows))
        elif tag == "img":
            alt = _clean(child.attributes.get("alt") or "")
            if alt:
                out.blocks.append(Block("image", alt, items=(urljoin(base_url, child.attributes.get("src") or ""),)))
        elif tag == "hr":
            out.blocks.append(Block("rule", ""))
        elif depth >= MAX_BLOCK_DEPTH:
            text = _clean(child.text(deep=True))
            if text:
                out.blocks.append(Block("paragraph", text))
        elif child.mem_id in scope.blocks:
            _walk(child, scope, out, depth + 1)  # a container: its blocks are inside
        else:
            # Inline content sitting directly in a container (a bare link, a span): gather the run of such
            # siblings into one paragraph, so links are kept and the text is not split word by word.
            run = [child]
            while (
                child.next is not None
                and child.next.tag not in _BLOCK_TAGS
                and (child.next.tag in {"-text", "a", "span", "strong", "b", "em", "i", "code", "br", "img", "small"})
            ):
                child = child.next
                run.append(child)
            text = _SPACES.sub(" ", "".join(_inline_one(n, base_url, out.links) for n in run))
            if len(_clean(text)) >= 2:
                out.blocks.append(Block("paragraph", text.strip()))
        child = child.next


def extract(tree: Any, page_url: str, main_content: bool = True) -> Extraction:
    """The blocks of the page at ``page_url``, links resolved against its base URL. Prunes ``tree`` as it goes:
    read metadata and links from it first."""
    base_url = document_base(tree, page_url)
    title_node = tree.css_first("title")
    title = _clean(title_node.text()) if title_node is not None else None
    _remove(tree, _NEVER)
    root = tree.body or tree.root
    if main_content:
        _remove(tree, _CHROME)
        root = _main(tree)
    out = Extraction(title or None)
    if root is not None:
        _walk(root, _scope(root, base_url, main_content), out)
    return out
