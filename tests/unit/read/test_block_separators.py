"""Every block boundary writes a separator: in markdown and text, two words from different blocks
are never joined, whatever the page's nesting, even when its markup has no whitespace between tags
(a minified page).

A first-time user met glued words on a plain news site: list items and quotes whose paragraphs ran
into each other (``…repairs](url)The harbour bridge…``, ``> Quote one.Quote two.``). The property is
checked against the simplest reading there is: the parsed page's text nodes, cut at every block
element's edge."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from netglean.read.extract import LINK_STYLES, extract
from netglean.read.html_tree import parse_html
from netglean.read.render import render

BLOCKS = "p div li ul ol blockquote h2 pre table tr td section dl dd figure".split()
INLINE = ["span", "a", "b", "em", "code", "small"]
CLASSES = ["", "", "", "content", "share", "related", "byline", "comment", "caption"]
"""Class names that make main-content selection drop or keep a block (an inline element dropped is
one a browser may not show either, so only blocks are named)."""
SHOWN_AS_BLOCKS = frozenset(
    "address article aside blockquote dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
"""Elements a browser's default style sheet lays out as blocks (display: block, list-item, table
parts)."""
_WORD = re.compile(r"q\d+z")
_TOKEN = re.compile(r"\w+")


@st.composite
def trees(draw: Any, depth: int = 0) -> str:
    """Markup with no whitespace anywhere between tags, each text node one word (numbered apart
    later)."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["text", "block", "inline", "br"] if depth < 5 else ["text"]))
        if kind == "text":
            parts.append("q0z")
        elif kind == "br":
            parts.append("<br>")
        else:
            tag = draw(st.sampled_from(BLOCKS if kind == "block" else INLINE))
            attributes = ' href="/x"' if tag == "a" else ""
            if kind == "block" and (name := draw(st.sampled_from(CLASSES))):
                attributes = f' class="{name}"'
            parts.append(f"<{tag}{attributes}>{draw(trees(depth + 1))}</{tag}>")
    return "".join(parts)


def _rendered_words(node: Any) -> set[str]:
    """What a browser shows as words: text nodes run together until a block element's edge (or a
    line break)."""
    words: set[str] = set()
    run: list[str] = []

    def cut() -> None:
        words.update(_TOKEN.findall("".join(run)))
        run.clear()

    def visit(element: Any) -> None:
        child = element.child
        while child is not None:
            if child.tag == "-text":
                run.append(child.text_content or "")
            elif child.tag == "br":
                cut()
            elif child.tag is not None and not child.tag.startswith("-"):
                block = child.tag in SHOWN_AS_BLOCKS
                if block:
                    cut()
                visit(child)
                if block:
                    cut()
            child = child.next

    visit(node)
    cut()
    return words


def _joined(written: str, words: set[str]) -> list[str]:
    """The tokens of ``written`` holding page words that are no part of one word the page shows:
    words from two blocks run together. (Markdown may cut a shown word, as a link ending inside it:
    ``[q1z](/x)q2z``.)"""
    tokens = (token for token in _TOKEN.findall(written) if _WORD.search(token))
    return [token for token in tokens if not any(token in word for word in words)]


def _written(page: str, main_content: bool, fmt: str, link_style: str = "inline") -> str:
    plain = fmt == "text"
    extraction = extract(parse_html(page), "https://e.test/", main_content, plain, link_style)
    return render(extraction, fmt)


def _numbered(body: str) -> str:
    """The page with each word numbered apart: a token then says which text nodes it came from."""
    numbers = iter(range(10**6))
    return _WORD.sub(lambda _: f"q{next(numbers)}z", body)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=trees(), link_style=st.sampled_from(LINK_STYLES))
def test_no_two_words_from_different_blocks_are_ever_joined(body: str, link_style: str) -> None:
    """In every format and every way markdown writes links (a link's text alone, with links: none,
    must keep its edges as the link did)."""
    page = f"<html><head><title>t</title></head><body>{_numbered(body)}</body></html>"
    note(page)
    words = _rendered_words(parse_html(page).body)
    for main_content in (False, True):
        markdown = _written(page, main_content, "markdown", link_style)
        text = _written(page, main_content, "text")
        assert not _joined(markdown, words), markdown
        assert not _joined(text, words), text
        if not main_content:  # the whole page loses no word either
            assert set(_WORD.findall(text)) == set(_WORD.findall(" ".join(words))), text


def test_list_items_and_quotes_of_a_minified_page_keep_their_words_apart() -> None:
    """The two shapes the first-time user met, as the smallest pages that show them."""
    page = (
        "<body><article><ul><li><a href='/r'>Road repairs</a><div>The harbour bridge reopens.</div>"
        "</li></ul>"
        "<blockquote><p>Quote one.</p><p>Quote two.</p></blockquote></article></body>"
    )
    markdown = _written(page, False, "markdown")
    assert "- [Road repairs](https://e.test/r) The harbour bridge reopens." in markdown
    assert "> Quote one.\n>\n> Quote two." in markdown
    text = _written(page, False, "text")
    assert "- Road repairs The harbour bridge reopens." in text
    assert "Quote one.\n\nQuote two." in text
