"""A page's HTML to what the page tools return, from one parse: metadata, links, the content
rendered and sliced, and whether the page is a bot wall rather than content.

This is the CPU-bound half of reading a page, kept free of I/O so it can run off the event
loop, and so the benchmark's in-process floor times exactly what the server does per page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from netglean.read.extract import Block, Extraction, extract
from netglean.read.html_tree import parse_html
from netglean.read.links import ContentLink, LinkFilter, content_links, page_links, take
from netglean.read.page_meta import PageMeta, byline, page_metadata
from netglean.read.page_signals import bot_wall
from netglean.read.render import PLAIN_FORMATS, Slice, format_blocks, text_slice

WALL_STATUSES = frozenset({401, 403, 429, 503})
"""The statuses bot walls and WAF challenges answer with: with any sign of one, the answer is the
wall."""
WALL_TEXT = 1_500
"""Characters of readable text (the whole page's, navigation included) under which a page that
answered 2xx and carries signs of a wall is the wall. Challenge and block pages are small
(Cloudflare's block page is ~900 characters); a page that embeds a captcha in its comment form, or
names DataDome or a turnstile, carries its own text, and stays content."""
_CONCLUSIVE = frozenset({"cloudflare-challenge-header"})
"""Signs that are walls whatever the page says: the vendor's own header marking the answer a
challenge."""
_PARAGRAPHS = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class HtmlReading:
    metadata: PageMeta
    content: str
    """This slice of the formatted content (all of it unless a limit was given)."""
    title: str | None
    links: list[ContentLink]
    """The links of the content (what ``include_links`` returns): each once, the first
    LINKS_PER_PAGE."""
    frontier: list[str]
    """The links of the page a crawl follows, navigation included (those its filter takes); empty
    unless asked for."""
    start_index: int = 0
    total_chars: int = 0
    next_start: int | None = None
    wall: tuple[str, ...] = ()
    """The bot-wall signals, when they say the page is a wall rather than content (else empty)."""
    readerable: bool | None = None
    """Whether the page reads as an article (asked only for its main content)."""
    frontier_dropped: int = 0
    """Links the crawl's filter wanted past the most it takes from one page."""
    links_unlisted: int = 0
    """Links of the content past the first LINKS_PER_PAGE, which ``links`` leaves out."""
    whole: bool = True
    """False when the main content could not be checked to hold the page's article
    (Extraction.whole)."""


def read_html(
    html: str,
    url: str,
    *,
    fmt: str,
    main_content: bool,
    link_style: str = "inline",
    frontier: LinkFilter | None = None,
    start: int = 0,
    limit: int | None = None,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HtmlReading:
    tree = parse_html(html)
    taken = take(page_links(tree, url), frontier) if frontier is not None else None
    metadata = page_metadata(tree, url)  # before extraction, which prunes the tree
    signals = bot_wall(status, headers or {}, html)
    # json's blocks keep theirs: it lists them too
    style = link_style if fmt == "markdown" else "inline"
    plain = fmt in PLAIN_FORMATS
    extraction = extract(tree, url, main_content=main_content, plain=plain, link_style=style)
    if metadata.author is None and extraction.byline and (author := byline(extraction.byline)):
        metadata = replace(metadata, author=author)
    text = format_blocks(extraction, fmt, start, limit)
    wall = signals_if_wall(
        signals, status, html, url, whole=extraction if not main_content else None
    )
    links, unlisted = content_links(extraction.links)
    return HtmlReading(
        metadata,
        text.content,
        extraction.title,
        links,
        taken.links if taken is not None else [],
        text.start_index,
        text.total_chars,
        text.next_start,
        wall,
        extraction.readerable,
        taken.dropped if taken is not None else 0,
        unlisted,
        extraction.whole,
    )


def is_wall(signals: Sequence[str], status: int, text_chars: int) -> bool:
    """Whether an answer with these bot-wall ``signals`` is the wall, not the page: on a wall's
    status, or with a conclusive sign, it is; on any other answer only when the page holds little
    text of its own (WALL_TEXT).

    Signs are read from the raw markup, so a page can carry one without being a wall: a reCAPTCHA in
    its comment form, an article naming a vendor. A wall never carries an article."""
    if not signals:
        return False
    if status in WALL_STATUSES or _CONCLUSIVE.intersection(signals):
        return True
    return text_chars < WALL_TEXT


def signals_if_wall(
    signals: Sequence[str], status: int, html: str, url: str, *, whole: Extraction | None = None
) -> tuple[str, ...]:
    """``signals`` (``bot_wall``'s, for this answer) when is_wall says they make the answer the
    wall, else (): the one rule every tool that reports a wall applies. The page's whole text
    (``whole``, its extraction with navigation kept, else read from ``html``) is measured only when
    the rule needs it."""
    if not signals:
        return ()
    if status in WALL_STATUSES or _CONCLUSIVE.intersection(signals):
        return tuple(signals)
    if whole is None:
        whole = extract(parse_html(html), url, main_content=False)
    return tuple(signals) if is_wall(signals, status, _text_chars(whole.blocks)) else ()


def _text_chars(blocks: Sequence[Block]) -> int:
    return sum(
        len(block.text)
        + sum(map(len, block.items))
        + sum(len(cell) for row in block.rows for cell in row)
        for block in blocks
    )


def read_text(text: str, *, fmt: str, start: int = 0, limit: int | None = None) -> Slice:
    """A text body as the page tools return it: as it is, or for json its paragraphs (split at blank
    lines) as paragraph blocks."""
    if fmt != "json":
        return text_slice(text, start, limit)
    paragraphs = [
        Block("paragraph", part.strip()) for part in _PARAGRAPHS.split(text) if part.strip()
    ]
    return format_blocks(Extraction(None, paragraphs), fmt, start, limit)
