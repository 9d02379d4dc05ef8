"""Which part of a page is its main content: score paragraphs into their containers, take the best
container and the siblings that belong with it, then clean what it holds.

The method is Readability's (the Firefox Reader View extractor; readability-lxml is a port of its
ancestor), written here for lexbor trees so it runs at several times the speed of the Python
libraries that do the same job (README, "Main content"). In outline:

- Drop what is never read: hidden elements, bylines, and, on the first attempt, elements whose class
  or id says they are page furniture (comments, sidebars, menus) unless it also says they hold
  content ("sidebar-content").
- Score every paragraph-like element (p, td, pre, a section, a div of inline content, a run of
  inline content in a div) by its length and commas, and pass the score up to five ancestors, less
  at each level. A container's own class and id weigh for or against it; its score is cut by the
  share of its text inside links.
- Take the best container, move up while its parent scores nearly as well, and keep the siblings
  that score near it or read as prose.
- Clean it: remove blocks (divs, lists, tables, forms) that read as furniture by their links,
  images, inputs and headings; share bars; headings marked as furniture.
- If cleaning took most of it, clean again round the block that holds the article. If what is left
  is short, try again with the rules relaxed one at a time, keeping a longer attempt only when it
  finds the same article again, a little wider (``select``: the ladder).

Every measure comes from one walk of the tree per attempt (at most eight), so a page nested
thousands deep costs work in proportion to its size; attempts run on clones of the page, so each
starts from the page as it was.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from operator import add
from typing import Any

from netglean.read.html_tree import TextMeasure, flat_text

Attributes = dict[str, str | None]
"""An element's attributes, as lexbor gives them (a value is None for an attribute written without
one)."""

_UNLIKELY = re.compile(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote|newsletter|cookie|outbrain|taboola",
    re.IGNORECASE,
)
"""Class and id words of page furniture, matched anywhere in the names (so "comment-list",
"page-sidebar")."""
_CAPTION = re.compile(
    r"(?!tag-|category-)(?:[a-z0-9]+[-_]){0,3}(?:caption|credit)s?(?:[-_][a-z]+)?"
)
"""A class or id that names a caption or credit ("wp-caption-text", "photo-credit",
"image-caption"), matched whole: WordPress names a post "tag-tax-credits" after its tags."""
_CLUTTER = re.compile(
    r"related|share|sharing|social|newsletter|subscri|sign-?up|"
    r"author-?(?:bio|box|info|about|details|card)|about-?(?:the-)?author|\bbio(?:graphy)?\b|"
    r"\btags?\b|tag-?(?:list|cloud|links)|tagged|categor|hover-?card|popover|tooltip|promo|"
    r"recommend|read-?more|more-?(?:stories|articles|from)|outbrain|taboola|sponsor|advert|"
    r"(?:post|entry)-?meta|postmeta",
    re.IGNORECASE,
)
"""Class and id words of clutter inside an article (``_clutter``)."""
_POST_WRAPPER = re.compile(r"(?:^|\s)(?:hentry|entry|post|type-post|post-\d+)(?:\s|$)", re.I)
"""What a blog post's own wrapper is named, beside the tags and categories it is named after."""
EMBEDDED_POSTS = (
    "blockquote.twitter-tweet, blockquote.twitter-video, blockquote.instagram-media, "
    "blockquote.tiktok-embed, blockquote.bluesky-embed, blockquote.mastodon-embed, "
    "blockquote.reddit-embed-bq, blockquote.reddit-card, blockquote.text-post-media, div.fb-post"
)
"""How the social networks' embed codes mark a post (each stays a quote until their script runs)."""
_COMMENTS = re.compile(r"comment|disqus|replies|respond|shoutbox|remark", re.IGNORECASE)
"""Class and id words of a comment thread: readers' words, never the article, however long."""
_MAYBE = re.compile(r"and|article|body|column|content|main|mathjax|shadow", re.IGNORECASE)
"""Words that keep an element the furniture words would drop: "sidebar-content", "main-column" hold
content."""
_POSITIVE = re.compile(
    r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story", re.I
)
_NEGATIVE = re.compile(
    r"-ad-|hidden|^hid$| hid$| hid |^hid "
    r"|banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget",
    re.IGNORECASE,
)
_BYLINE = re.compile(r"byline|author|dateline|writtenby|p-author", re.IGNORECASE)
_ITEM = re.compile(r"story|post|entry|item|card|teaser|comment", re.IGNORECASE)
_SHARE = re.compile(r"(\b|_)(share|sharedaddy)(\b|_)", re.IGNORECASE)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_COMMAS = re.compile("[,\u060c\ufe50\ufe10\ufe11\u2e41\u2e34\u2e32\uff0c]")
_SENTENCE_END = re.compile(r"\.( |$)")
_HASH_ONLY = re.compile(r"^#.+")

_UNLIKELY_ROLES = frozenset(
    {"menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"}
)
_FURNITURE_TAGS = frozenset({"nav", "aside", "footer"})
"""Dropped before scoring on every attempt: what they hold is never the article's own text."""
_BLOCKS = frozenset({"blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"})
"""Elements whose presence makes a div a container rather than a paragraph of inline text."""
_SCORED = frozenset({"section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"})
_EMPTY_DROPPED = frozenset({"div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_EMBEDS = frozenset({"object", "embed", "iframe", "video", "audio"})
_ALWAYS_DROPPED = frozenset(
    {
        "object",
        "embed",
        "footer",
        "link",
        "aside",
        "iframe",
        "input",
        "textarea",
        "select",
        "button",
    }
)
"""Removed from the chosen content whatever they hold."""
_CLEANED = frozenset({"div", "ul", "ol", "table", "form", "fieldset", "section"})
"""Blocks inside the chosen content that are removed when they read as furniture."""
_TAG_SCORE = {
    "div": 5,
    "article": 5,
    "main": 5,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "h1": -5,
    "h2": -5,
    "h3": -5,
    "h4": -5,
    "h5": -5,
    "h6": -5,
    "th": -5,
}
BYLINE_LINE_REST = 80
"""Characters of a byline's line besides the name ("Posted by ... on 28 November 2026 at 11:00 AM
EDT")."""
_HOLDERS = frozenset({"body", "article", "main", "section", "html"})
"""Elements that hold an article, never only a byline's line."""
_INLINE = frozenset("a span strong b em i cite abbr small font address".split())
_PROSE = frozenset({"p", "li", "td", "dd", "blockquote"})
NAMES_READ = 1_000
MIN_CHARS = 500
"""Content shorter than this after cleaning sends the selection round again with its rules
relaxed."""
CANDIDATES = 5
CLUTTER_SHARE = 4
"""Clutter by its name is at most a quarter of the content: more is the content, whatever it is
called."""
CLUTTER_ID = 25
"""Ids longer than this are slugs of a section's heading ("sharing-with-a-single-developer"), not
names."""
CAPTIONS_SHARE = 3
"""Captions that make up a third of the content or more are its text (a gallery), and stay."""
CAPTION_CHARS = 250
"""An element named as a caption or credit shorter than this is one wherever it stands."""
WIDER = 1.5
"""How much more text a relaxed attempt may add to a short article it found again: more is the page
around it."""
READERABLE_MIN_CHARS = 140
READERABLE_MIN_SCORE = 20.0
ARTICLE_LINKS = 4
"""An article's text is at most a quarter links; a listing's is mostly its links."""
ARTICLE_LONG_TEXT = 400
"""Characters of long paragraphs the chosen content holds that make it an article, whatever
Readability's test says (it looks for <p> alone: a post written as divs of text fails it)."""

# Tallies, one list per element: text characters, commas, characters inside links, then what
# cleaning counts, the characters of long paragraphs (what the page's article is made of, to check
# the content holds it) and of comments.
_CHARS, _COMMA, _LINK, _P, _IMG, _LI, _INPUT, _EMBED, _HEAD, _LIST, _BLOCK, _TABLE, _DATA, _ROWS = (
    range(14)
)
_LONG, _THREAD = 14, 15
_WIDTH = 16
_DATA_PARTS = frozenset({"th", "thead", "tfoot", "colgroup", "col", "caption"})


@dataclass(slots=True)
class _Rules:
    """What one attempt applies, and which of its rules changed anything: relaxing a rule that
    changed nothing would repeat the attempt exactly, so the next attempt relaxes the next rule
    too."""

    strip_unlikely: bool = True
    weigh_classes: bool = True
    clean: bool = True
    keep_holder: bool = False
    """Cleaning leaves a block holding most of the content, whatever its links say (the ladder's
    retry when cleaning took the article)."""
    stripped: bool = False
    weighed: bool = False
    cleaned: bool = False

    def relaxed(self) -> _Rules | None:
        """The next attempt's rules (Readability's order: furniture words, then class weights, then
        cleaning), or None when nothing is left to relax."""
        strip, weigh, clean = self.strip_unlikely, self.weigh_classes, self.clean
        changed = (self.stripped, self.weighed, self.cleaned)
        flags = [strip, weigh, clean]
        for index in range(3):
            if flags[index]:
                flags[index] = False
                if changed[index]:
                    return _Rules(*flags)
        return None


@dataclass(frozen=True, slots=True)
class MainContent:
    """The element holding a page's main content and nothing else, in ``tree``: a clone of the page
    the selection was asked about (the page itself is left as it was), pruned to it."""

    tree: Any
    root: Any
    chars: int
    byline: str | None = None
    cleaned_most: bool = False
    """Cleaning took a block that read as furniture by its links or shape but held more text than it
    left: the article itself, made to look like furniture by a box of links inside it."""
    long_text: int = 0
    """Characters of long paragraphs (READERABLE_MIN_CHARS or more) on the page, outside what this
    attempt dropped as furniture: the text an article is made of."""
    kept_long_text: int = 0
    """Of those, the characters the content kept."""
    thread: int = 0
    """Characters of the content inside elements named as comments."""
    whole: bool = True
    """Whether the content was checked to hold the page's article (``select`` says)."""
    clutter: int = 0
    """Characters cleaning took as clutter by its name (a tag list, an author's bio)."""
    link_chars: int = 0
    """Of ``chars``, those inside links."""

    @property
    def found(self) -> int:
        """The characters the attempt found, clutter included: what the ladder weighs attempts by
        (clutter taken from a short article must not send it looking wider)."""
        return self.chars + self.clutter


def _names(attributes: Attributes) -> str:
    """An element's class and id as the furniture and weight words are looked for in them: no real
    page names an element in more than NAMES_READ characters, and a hostile one could make every
    search read megabytes."""
    return (
        f"{(attributes.get('class') or '')[:NAMES_READ]} "
        f"{(attributes.get('id') or '')[:NAMES_READ]}"
    )


def is_hidden(attributes: Mapping[str, str | None], tag: str) -> bool:
    """Whether a browser would not show the element: hidden, aria-hidden, styled out of sight, a
    closed dialog. Its text is never content (hidden text is how a page speaks to a model behind its
    reader's back)."""
    if "hidden" in attributes or (tag == "dialog" and "open" not in attributes):
        return True
    if (attributes.get("aria-hidden") or "").strip().lower() == "true":
        return "fallback-image" not in (attributes.get("class") or "")
    style = attributes.get("style")
    return (
        style is not None
        and ("none" in style or "hidden" in style)
        and _HIDDEN_STYLE.search(style) is not None
    )


def _class_weight(attributes: Attributes, rules: _Rules) -> int:
    if not rules.weigh_classes:
        return 0
    weight = 0
    for value in (attributes.get("class"), attributes.get("id")):
        if value:
            name = value[:NAMES_READ]
            if _NEGATIVE.search(name):
                weight -= 25
            if _POSITIVE.search(name):
                weight += 25
    if weight:
        rules.weighed = True
    return weight


@dataclass
class _Walk:
    """One walk of a subtree: every element's tally, the elements dropped on the way, and what
    scoring needs."""

    tallies: dict[int, list[int]] = field(default_factory=dict)
    texts: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Each text node's characters and commas (blank ones left out)."""
    dropped: list[Any] = field(default_factory=list)
    paragraph_divs: set[int] = field(default_factory=set)
    """Divs holding no block: scored, and kept as siblings, as paragraphs."""
    scored: list[tuple[list[int], tuple[Any, ...]]] = field(default_factory=list)
    """What scores the containers above it, with those containers, nearest first: each
    paragraph-like element's tally and its five nearest ancestors; each run of inline content in a
    container div, the div and its four."""
    byline: Any = None
    """The first short element marked as the byline: dropped from the content, its visible text
    reported."""
    byline_tally: list[int] = field(default_factory=list)
    """What the byline held, added back if it turns out to be a name mentioned in a paragraph."""
    byline_line: list[int] = field(default_factory=list)
    """The elements above the byline (by mem_id, nearest first) that may hold the rest of its line
    ("By", a date), which goes with it."""
    items: dict[int, bool] = field(default_factory=dict)
    """Whether each element asked about is a listing's item (``_is_item``), by mem_id: each is asked
    once."""
    largest_guess: int = 0
    captions: list[Any] = field(default_factory=list)
    """The captions and credits the cleaning walk took, and their characters: put back when they are
    a good part of the content (a gallery whose captions are its text)."""
    caption_chars: int = 0
    clutter_chars: int = 0
    """What the cleaning walk took as clutter by its name (``_clutter``)."""


def _walk(root: Any, enter: Any, leave: Any) -> _Walk:
    """Tally ``root``'s subtree in one post-order pass. ``enter(node, walk)`` gives an element's
    attributes, or None to drop it before reading it (its subtree is not read); ``leave(node,
    attributes, tally, walk, flags, above)`` says whether to drop it once its children are counted
    (``above``: the frames of the elements above it, the nearest last). Dropped elements add nothing
    to the tallies above them, nor to what is scored."""
    walk = _Walk()
    tallies, texts = walk.tallies, walk.texts
    # Frames: [element, next child to read, its tally, flags (inside a figure, inside code), its
    # attributes, how much had been scored when it was entered].
    stack: list[list[Any]] = [[root, root.child, [0] * _WIDTH, 0, root.attributes, 0]]
    while stack:
        frame = stack[-1]
        child, tally = frame[1], frame[2]
        descended = False
        while child is not None:
            tag = child.tag
            if tag == "-text":
                text = child.text_content
                words = text.split() if text else None
                if words:
                    chars = (
                        sum(map(len, words))
                        + len(words)
                        - 1
                        + (text[0].isspace() or text[-1].isspace())
                    )
                    commas = text.count(",") if text.isascii() else len(_COMMAS.findall(text))
                    texts[child.mem_id] = (chars, commas)
                    tally[_CHARS] += chars
                    tally[_COMMA] += commas
                child = child.next
                continue
            if tag is None or tag[0] == "-":
                child = child.next
                continue
            attributes = enter(child, tag, walk)
            if attributes is None:
                child = child.next
                continue
            flags = frame[3]
            if tag == "figure":
                flags |= 1
            elif tag in {"code", "pre"}:
                flags |= 4
            frame[1] = child
            stack.append([child, child.child, [0] * _WIDTH, flags, attributes, len(walk.scored)])
            descended = True
            break
        if descended:
            continue
        node = frame[0]
        stack.pop()
        if leave(node, frame[4], tally, walk, frame[3], stack) and stack:
            walk.dropped.append(node)
            del walk.scored[frame[5] :]  # what it held scores nothing: it is gone
        else:
            tallies[node.mem_id] = tally
            if stack:
                parent = stack[-1]
                parent[2] = list(map(add, parent[2], tally))
        if stack:
            stack[-1][1] = stack[-1][1].next
    return walk


def _grab_rules(rules: _Rules, posts: set[int]) -> tuple[Any, Any]:
    """The enter and leave steps of the scoring walk (``posts``: embedded posts and their
    containers, never dropped for their names)."""

    def enter(node: Any, tag: str, walk: _Walk) -> Attributes | None:
        if tag in _FURNITURE_TAGS or (tag == "dialog" and "open" not in node.attributes):
            walk.dropped.append(node)
            return None
        attributes: Attributes = node.attributes
        if not attributes or tag == "body":
            return attributes
        if is_hidden(attributes, tag):
            walk.dropped.append(node)
            return None
        if rules.strip_unlikely and node.mem_id not in posts:
            names = _names(attributes)
            if (attributes.get("role") or "") in _UNLIKELY_ROLES or (
                len(names) > 1
                and tag != "a"
                and _UNLIKELY.search(names)
                and not _MAYBE.search(names)
            ):
                walk.dropped.append(node)
                rules.stripped = True
                return None
        return attributes

    def leave(  # noqa: PLR0917  # the walk's one step, called for every element: positional for speed
        node: Any,
        attributes: Attributes,
        tally: list[int],
        walk: _Walk,
        flags: int,
        above: list[list[Any]],
    ) -> bool:
        tag = node.tag
        _count(tag, attributes, tally)
        line = walk.byline_line
        if line and line[0] == node.mem_id and _byline_line(node, tally, walk):
            return True
        if tag in _EMPTY_DROPPED and not tally[_CHARS] and not tally[_IMG] and not tally[_EMBED]:
            return True
        if (
            walk.byline is None
            and tag != "body"
            and attributes
            and 0 < tally[_CHARS] < 100
            and _marks_byline(attributes)
            and not _in_listing_item(node, walk.items)
        ):
            walk.byline, walk.byline_tally = node, tally
            walk.byline_line = [frame[0].mem_id for frame in above[-1:-4:-1]]
            return True
        if tag == "div" and tally[_BLOCK]:
            holders = (node, *(frame[0] for frame in above[-1:-5:-1]))
            walk.scored.extend((run, holders) for run in _inline_runs(node, walk))
        elif tag in _SCORED or tag == "div":
            if tag == "div":
                walk.paragraph_divs.add(node.mem_id)
            walk.scored.append((tally, tuple(frame[0] for frame in above[-1:-6:-1])))
        _blocks(tag, tally)
        return False

    return enter, leave


def _blocks(tag: str, tally: list[int]) -> None:
    """An element counted, after its own rules, among the blocks and tables of those above it."""
    if tag in _BLOCKS:
        tally[_BLOCK] += 1
    if tag == "table":
        tally[_TABLE] += 1


def _byline_line(node: Any, tally: list[int], walk: _Walk) -> bool:
    """Whether ``node``, above the byline, holds only the rest of its line ("By", "on 28 November
    2026", "|"), so it goes too; the climb goes on to its parent while it does. An inline byline
    inside a paragraph is no byline but a name in a sentence: it is put back, and the next marked
    element may be the byline."""
    tag = node.tag
    is_line = (
        tag not in _HOLDERS
        and tally[_CHARS] <= BYLINE_LINE_REST
        and not tally[_HEAD]
        and tally[_P] <= (tag == "p")
        and not tally[_LIST]
    )
    if is_line:
        del walk.byline_line[0]
        return True
    byline = walk.byline
    in_prose = tag in _PROSE or not tally[_BLOCK]
    if len(walk.byline_line) == 3 and byline.tag in _INLINE and in_prose:
        for index in range(len(walk.dropped) - 1, -1, -1):
            if walk.dropped[index] is byline:
                del walk.dropped[index]
                break
        tally[:] = map(add, tally, walk.byline_tally)
        walk.tallies[byline.mem_id] = walk.byline_tally
        walk.byline = None
    walk.byline_line.clear()
    return False


def _marks_byline(attributes: Attributes) -> bool:
    if attributes.get("rel") == "author" or "author" in (attributes.get("itemprop") or ""):
        return True
    names = _names(attributes)
    return len(names) > 1 and bool(_BYLINE.search(names))


def _in_listing_item(node: Any, items: dict[int, bool]) -> bool:
    """Whether the element is inside one of a run of alike items with titles (a listing's stories, a
    thread's comments): there each item's author is its own, not the page's byline, so none is
    dropped."""
    for above in _ancestors(node, 4):
        found = items.get(above.mem_id)
        if found is None:
            found = items[above.mem_id] = _is_item(above)
        if found:
            return True
    return False


def _is_item(node: Any) -> bool:
    """One of a run of at least three alike elements (a tag and class of items) around a title of
    its own: two alike are an article and its "read next" teaser. Every look is bounded, so a page
    of nested candidates costs work in proportion to its size."""
    shape = (node.tag, node.attributes.get("class"))
    if not (node.tag in {"article", "li"} or _ITEM.search(shape[1] or "")):
        return False
    alike = sum(_alike_siblings(node, step, shape) for step in ("prev", "next"))
    return alike >= 2 and _has_title(node)


def _alike_siblings(node: Any, step: str, shape: tuple[str, str | None]) -> int:
    """How many of the next two elements on one side (past a little whitespace and comments) are
    alike."""
    count, sibling = 0, getattr(node, step)
    while count < 2:
        # past the whitespace and a comment between items; a flood of them is no listing
        for _ in range(3):
            if sibling is None or not sibling.tag.startswith("-"):  # lexbor: "-text", "-comment"
                break
            sibling = getattr(sibling, step)
        if sibling is None or (sibling.tag, sibling.attributes.get("class")) != shape:
            break
        count, sibling = count + 1, getattr(sibling, step)
    return count


def _has_title(node: Any) -> bool:
    """A heading within the item's first 40 nodes, two levels down at most (an item's title is near
    its top)."""
    looked, level = 0, [node]
    for _ in range(2):
        below = []
        for element in level:
            # text and comments counted too: a flood of them ends the look
            for child in _all_children(element):
                looked += 1
                if looked > 40:
                    return False
                if child.tag in _HEADINGS:
                    return True
                if child.tag is not None and not child.tag.startswith("-"):
                    below.append(child)
        level = below
    return False


def _count(tag: str, attributes: Attributes, tally: list[int]) -> None:
    """What an element adds to its own tally once its children are counted."""
    if tag == "a":
        href = attributes.get("href") or ""
        tally[_LINK] = tally[_CHARS] * 3 // 10 if _HASH_ONLY.match(href) else tally[_CHARS]
    elif tag == "p":
        tally[_P] += 1
        if tally[_CHARS] >= READERABLE_MIN_CHARS:
            tally[_LONG] = tally[_CHARS]
    elif tag == "img":
        tally[_IMG] += 1
    elif tag == "li":
        tally[_LI] += 1
    elif tag in {"input", "select", "textarea", "button"}:
        tally[_INPUT] += 1
    elif tag in _EMBEDS:
        tally[_EMBED] += 1
    elif tag in _HEADINGS:
        tally[_HEAD] = tally[_CHARS]
    elif tag in {"ul", "ol"}:
        tally[_LIST] = tally[_CHARS]
    elif tag == "tr":
        tally[_ROWS] += 1
    elif tag in {"pre", "div"} and tally[_CHARS] >= READERABLE_MIN_CHARS and not tally[_BLOCK]:
        # a div of inline text (lines broken with <br>) is a paragraph too
        tally[_LONG] = tally[_CHARS]
    elif tag in _DATA_PARTS:
        tally[_DATA] += 1


def _inline_runs(node: Any, walk: _Walk) -> Iterator[list[int]]:
    """The tallies of each run of inline content among a container div's children (text, and
    elements holding no block): what a browser lays out as one paragraph. A section or heading in a
    run is scored as itself too; counting it once (as Readability does) was measured: the
    development set's mean fell (buzzfeed-1 1.000 -> 0.934)."""
    run: list[int] | None = None
    child = node.child
    while child is not None:
        if child.tag == "-text":
            text = walk.texts.get(child.mem_id)
            if text is not None:
                run = run or [0] * _WIDTH
                run[_CHARS] += text[0]
                run[_COMMA] += text[1]
        elif (counted := walk.tallies.get(child.mem_id)) is not None:
            if child.tag in _BLOCKS or counted[_BLOCK]:
                if run is not None and run[_CHARS]:
                    yield run
                run = None
            else:
                run = run or [0] * _WIDTH
                run[_CHARS] += counted[_CHARS]
                run[_COMMA] += counted[_COMMA]
        child = child.next
    if run is not None and run[_CHARS]:
        yield run


def _ancestors(node: Any, levels: int) -> Iterator[Any]:
    node = node.parent
    while (
        levels
        and node is not None
        and node.tag not in {"html", None}
        and not node.tag.startswith("-")
    ):
        yield node
        node = node.parent
        levels -= 1


def _score(walk: _Walk, rules: _Rules) -> dict[int, list[Any]]:
    """Each container's score, as [score, node], from the paragraphs below it."""
    scores: dict[int, list[Any]] = {}

    def add(holder: Any, level: int, points: float) -> None:
        entry = scores.get(holder.mem_id)
        if entry is None:
            base = _TAG_SCORE.get(holder.tag, 0) + _class_weight(holder.attributes, rules)
            entry = scores[holder.mem_id] = [float(base), holder]
        entry[0] += points / (1 if level == 0 else 2 if level == 1 else level * 3)

    def points(tally: list[int]) -> float | None:
        chars = tally[_CHARS]
        if chars < 25:
            return None
        return 1 + tally[_COMMA] + min(chars // 100, 3)

    for tally, holders in walk.scored:
        gained = points(tally)
        if gained is not None:
            for level, holder in enumerate(holders):
                add(holder, level, gained)
    return scores


def _link_density(tally: list[int] | None) -> float:
    if not tally or not tally[_CHARS]:
        return 0.0
    return min(1.0, tally[_LINK] / tally[_CHARS])


def _element_children(node: Any) -> Iterator[Any]:
    return (
        child
        for child in _all_children(node)
        if child.tag is not None and not child.tag.startswith("-")
    )


def _all_children(node: Any) -> Iterator[Any]:
    child = node.child
    while child is not None:
        yield child
        child = child.next


def _top(scores: dict[int, list[Any]], walk: _Walk, tree: Any) -> tuple[Any, float]:
    """The best container and its score, moved up where its parent belongs with it."""
    tallies = walk.tallies
    ranked = sorted(
        (
            (entry[0] * (1 - _link_density(tallies.get(key))), entry[1])
            for key, entry in scores.items()
        ),
        key=lambda pair: -pair[0],
    )[:CANDIDATES]
    body = tree.body
    if not ranked or ranked[0][1].tag == "body":
        return body, 0.0
    best_score, top = ranked[0]

    def score_of(node: Any) -> float | None:
        entry = scores.get(node.mem_id)
        return (
            entry[0] * (1 - _link_density(tallies.get(node.mem_id))) if entry is not None else None
        )

    # Several near-best candidates under one ancestor: that ancestor is the content (a story split
    # in columns).
    close = (
        [node for score, node in ranked[1:] if score / best_score >= 0.75] if best_score > 0 else []
    )
    if len(close) >= 3:
        close_ids = [{a.mem_id for a in _ancestors(node, 1_000)} for node in close]
        for ancestor in _ancestors(top, 1_000):
            if ancestor.tag == "body":
                break
            if sum(ancestor.mem_id in ids for ids in close_ids) >= 3:
                top = ancestor
                break
    # A parent scoring better than the candidate, before scores fall away, holds more of the
    # content.
    last = score_of(top) or best_score
    threshold = last / 3
    for parent in _ancestors(top, 1_000):
        if parent.tag == "body":
            break
        parent_score = score_of(parent)
        if parent_score is None:
            continue
        if parent_score < threshold:
            break
        if parent_score > last:
            top = parent
            break
        last = parent_score
    # An only child: its parent is the same content, and the parent's siblings are the ones to
    # weigh.
    parent = top.parent
    while parent is not None and parent.tag != "body" and len(list(_element_children(parent))) == 1:
        top, parent = parent, parent.parent
    return top, score_of(top) or best_score


def _with_siblings(
    top: Any, top_score: float, scores: dict[int, list[Any]], walk: _Walk
) -> list[Any]:
    """The top candidate and the siblings that belong with it: those scoring near it, and prose."""
    parent = top.parent
    if parent is None or top.tag == "body":
        return [top]
    tallies = walk.tallies
    threshold = max(10.0, top_score * 0.2)
    top_class = top.attributes.get("class") or ""
    kept = []
    for sibling in _element_children(parent):
        if sibling.mem_id == top.mem_id:
            kept.append(sibling)
            continue
        tally = tallies.get(sibling.mem_id)
        if tally is None:
            continue
        bonus = (
            top_score * 0.2 if top_class and sibling.attributes.get("class") == top_class else 0.0
        )
        entry = scores.get(sibling.mem_id)
        if entry is not None and entry[0] * (1 - _link_density(tally)) + bonus >= threshold:
            kept.append(sibling)
        elif sibling.tag == "p" or sibling.mem_id in walk.paragraph_divs:
            density, chars = _link_density(tally), tally[_CHARS]
            prose = chars > 80 and density < 0.25
            if prose or (
                0 < chars < 80
                and density == 0
                and _SENTENCE_END.search(" ".join(sibling.text().split()))
            ):
                kept.append(sibling)
    return kept


def _data_table(attributes: Attributes, tally: list[int]) -> bool:
    """Whether a table holds data (kept whole) rather than laying the page out: tables that hold
    tables lay it out; a summary, headers, a caption or ten rows say data."""
    if (
        attributes.get("role") == "presentation"
        or attributes.get("datatable") == "0"
        or tally[_TABLE]
    ):
        return False
    return bool(attributes.get("summary")) or bool(tally[_DATA]) or tally[_ROWS] >= 10


def _clean_rules(rules: _Rules, roots: set[int], content: int, posts: set[int]) -> tuple[Any, Any]:
    """The enter and leave steps of the cleaning walk over the chosen content (``content``
    characters of it before cleaning). The walk's ``largest_guess`` is the most text one block taken
    by its look (not its name) held."""

    def enter(node: Any, tag: str, walk: _Walk) -> Attributes | None:
        if tag in _ALWAYS_DROPPED:
            walk.dropped.append(node)
            return None
        attributes: Attributes = node.attributes
        if tag in {"h1", "h2"} and attributes and _class_weight(attributes, rules) < 0:
            walk.dropped.append(node)
            return None
        return attributes

    def leave(  # noqa: PLR0917  # the walk's one step, called for every element: positional for speed
        node: Any,
        attributes: Attributes,
        tally: list[int],
        walk: _Walk,
        flags: int,
        above: list[list[Any]],
    ) -> bool:
        tag = node.tag
        _count(tag, attributes, tally)
        names = _names(attributes) if attributes else ""
        if names and _COMMENTS.search(names):
            tally[_THREAD] = tally[_CHARS]
        if node.mem_id in roots or node.mem_id in posts:
            return False
        if names and tally[_CHARS] < MIN_CHARS and _SHARE.search(names):
            return True
        small = tally[_CHARS] * CLUTTER_SHARE < content
        if names and small and _clutter(attributes, names, tally):
            walk.clutter_chars += tally[_CHARS]
            return True
        if _caption(tag, names, tally, flags, above[-1][2]):
            walk.captions.append(node)
            walk.caption_chars += tally[_CHARS]
            return True
        drop = (
            rules.clean
            and tag in _CLEANED
            and not flags & 4
            and not (tag == "table" and _data_table(attributes, tally))
            and _furniture(tag, attributes, tally, flags, rules)
        )
        if drop and _class_weight(attributes, rules) >= 0:  # taken by its look, not its name
            if rules.keep_holder and tally[_CHARS] * 2 > content:
                drop = False
            else:
                walk.largest_guess = max(walk.largest_guess, tally[_CHARS])
        if drop:
            rules.cleaned = True
        _blocks(tag, tally)
        return drop

    return enter, leave


def _clutter(attributes: Attributes, names: str, tally: list[int]) -> bool:
    """Whether a small element inside the article is clutter by its class (or short id): a
    related-links box, a hover card, an author's bio, a newsletter sign-up, a tag or category list,
    a share bar, the post's meta line. A post's own wrapper (WordPress names it after its tags and
    categories) and a section that is mostly its heading are not."""
    if not _CLUTTER.search(names) or _POST_WRAPPER.search(names):
        return False
    if tally[_HEAD] * 2 > tally[_CHARS]:
        return False
    own_id = attributes.get("id") or ""
    return len(own_id) <= CLUTTER_ID or bool(_CLUTTER.search(attributes.get("class") or ""))


def _caption(tag: str, names: str, tally: list[int], flags: int, beside: list[int]) -> bool:
    """Whether an element is a picture's caption or credit ("Photo: Ana Lopes/AP"): a figure's
    <figcaption>, or an element named as a caption or credit that is in a figure, holds the picture,
    follows one (``beside``: what its parent held before it) or is short. A caption describes a
    picture the reader of the text never sees; a slideshow named "caption" that holds the article's
    text is none of these."""
    if tag == "figcaption":
        return bool(flags & 1 or beside[_IMG] or tally[_IMG])
    lowered = names.lower()
    if "capt" not in lowered and "credit" not in lowered:
        return False
    if not any(_CAPTION.fullmatch(word) for word in lowered.split()):
        return False
    return bool(flags & 1 or tally[_IMG] or beside[_IMG]) or tally[_CHARS] < CAPTION_CHARS


def _furniture(
    tag: str, attributes: Attributes, tally: list[int], flags: int, rules: _Rules
) -> bool:
    """Whether a block inside the content reads as furniture: by its class, or, when it is short on
    commas, by its links, images, inputs, list items and headings."""
    weight = _class_weight(attributes, rules)
    if weight < 0:
        return True
    if tally[_COMMA] >= 10:
        return False
    chars = tally[_CHARS]
    paragraphs, images, inputs, embeds = tally[_P], tally[_IMG], tally[_INPUT], tally[_EMBED]
    items = tally[_LI] - 100
    is_list = tag in {"ul", "ol"} or (chars > 0 and tally[_LIST] / chars > 0.9)
    density = _link_density(tally)
    heading_density = tally[_HEAD] / chars if chars else 0.0
    in_figure = bool(flags & 1)
    return (
        (images > 1 and paragraphs / images < 0.5 and not in_figure)
        or (not is_list and items > paragraphs)
        or (inputs > paragraphs // 3)
        or (
            not is_list
            and heading_density < 0.9
            and chars < 25
            and (images == 0 or images > 2)
            and not in_figure
            and density > 0
        )
        or (not is_list and weight < 25 and density > 0.2)
        or (weight >= 25 and density > 0.5)
        or (embeds == 1 and chars < 75)
        or embeds > 1
    )


def _posts(body: Any) -> set[int]:
    """Embedded posts (a tweet, an Instagram, Bluesky, Mastodon, Reddit, TikTok or Facebook post)
    and the three elements nearest above each, by mem_id: what the article quotes is content,
    whatever its container is named ("social-embed") and however many links it holds."""
    held: set[int] = set()
    for post in body.css(EMBEDDED_POSTS):
        held.add(post.mem_id)
        held.update(above.mem_id for above in _ancestors(post, 3))
    return held


def _drop(node: Any) -> None:
    """Take an element out of the page, leaving a blank behind, so the words on either side of it (a
    paragraph's last and the next one's, "By" and the date around a byline's name) do not run
    together."""
    node.replace_with(" ")


def _attempt(tree: Any, rules: _Rules, embeds: bool = False) -> MainContent:
    body = tree.body
    if body is None:
        return MainContent(tree, tree.root, 0)
    posts = _posts(body) if embeds else set()
    enter, leave = _grab_rules(rules, posts)
    walk = _walk(body, enter, leave)
    byline = None
    # in the order dropped: what the byline held out of sight is gone before it is read
    for node in walk.dropped:
        if node is walk.byline:
            lines = (" ".join(line.split()) for line in flat_text(node, "\n").splitlines())
            byline = "\n".join(line for line in lines if line)
        _drop(node)
    scores = _score(walk, rules)
    top, top_score = _top(scores, walk, tree)
    kept = _with_siblings(top, top_score, scores, walk)
    kept_ids = {node.mem_id for node in kept}
    chars = largest_guess = kept_long = thread = clutter = link_chars = 0
    content = sum(walk.tallies[node.mem_id][_CHARS] for node in kept)
    enter, leave = _clean_rules(rules, kept_ids, content, posts)
    for root in kept:
        cleaned = _walk(root, enter, leave)
        kept_chars = cleaned.tallies[root.mem_id][_CHARS]
        if cleaned.caption_chars * CAPTIONS_SHARE >= kept_chars + cleaned.caption_chars:
            captions = {id(node) for node in cleaned.captions}
            cleaned.dropped = [node for node in cleaned.dropped if id(node) not in captions]
            kept_chars += cleaned.caption_chars
        for node in cleaned.dropped:
            _drop(node)
        chars += kept_chars
        kept_long += cleaned.tallies[root.mem_id][_LONG]
        thread += cleaned.tallies[root.mem_id][_THREAD]
        link_chars += cleaned.tallies[root.mem_id][_LINK]
        largest_guess = max(largest_guess, cleaned.largest_guess)
        clutter += cleaned.clutter_chars
    holder = top.parent if top.tag != "body" and top.parent is not None else top
    if holder is not top:
        for child in list(_all_children(holder)):
            if child.mem_id not in kept_ids:
                child.decompose()
    return MainContent(
        tree,
        holder,
        chars,
        byline,
        cleaned_most=largest_guess > chars,
        long_text=walk.tallies[body.mem_id][_LONG],
        kept_long_text=kept_long,
        thread=thread,
        clutter=clutter,
        link_chars=link_chars,
    )


def select(tree: Any, embeds: bool | None = None) -> MainContent:
    """The main content of ``tree``, which is left as it was, by a ladder of attempts, each on a
    clone:

    - The strictest rules first. If cleaning took a block that held more text than it left (the
      article, whose box of related links made it look like furniture), the same rules again,
      cleaning round the block that holds most of the content.
    - While what is kept is under MIN_CHARS, the rules relaxed one at a time (Readability's
      retries). A relaxed attempt that keeps more replaces what an earlier one found only when that
      was next to nothing or blocks strewn in the body, or when it holds it and widens it modestly
      (at most WIDER times): more text from elsewhere on the page (a comment thread, the whole body)
      is not a short article found again.
    - The content is whole unless cleaning still took most of it, or it is short while the page
      holds MIN_CHARS more of long paragraphs than it kept: then nothing checked says it is the
      article, and the answer must not say so either.

    The cyclic garbage collector waits meanwhile: a walk holds a frame, a tally and attributes per
    level of nesting, none of them in a cycle, and on a page nested hundreds of thousands deep the
    collector's passes over them took most of the time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        # whether the page embeds posts (most have none: no attempt looks for them then)
        if embeds is None:
            embeds = tree.css_first(EMBEDDED_POSTS) is not None
        best: MainContent | None = None
        rules: _Rules | None = _Rules()
        while rules is not None:
            found = _attempt(tree.clone(), rules, embeds)
            if found.cleaned_most:
                rules = replace(rules, keep_holder=True)
                found = _attempt(tree.clone(), rules, embeds)
            if best is None:
                page_long = found.long_text  # outside all the strictest rules call furniture
            if best is None or (found.found > best.found and _widens(found, best)):
                best = found
            if best.found >= MIN_CHARS:
                break
            rules = rules.relaxed()
        assert best is not None
        short = best.found < MIN_CHARS and page_long - best.kept_long_text >= MIN_CHARS
        return replace(best, whole=not short and not best.cleaned_most)
    finally:
        if collecting:
            gc.enable()


def _widens(found: MainContent, best: MainContent) -> bool:
    """Whether a relaxed attempt's content may replace an earlier one: that one kept next to
    nothing; or the new content is not mostly a comment thread, and the earlier one is blocks strewn
    in the body (no container holds them) or the new content holds its longest line and is at most
    WIDER times as long (the same article found again, wider)."""
    if best.found < READERABLE_MIN_CHARS:
        return True
    if found.thread * 2 > found.chars:
        return False
    if best.root.tag == "body":
        return True
    if found.found > WIDER * best.found:
        return False
    lines = (" ".join(line.split()) for line in flat_text(best.root, "\n").splitlines())
    longest = max(lines, key=len, default="")
    return longest in " ".join(flat_text(found.root).split())


def found_article(found: MainContent) -> bool:
    """Whether the content selection found reads as an article although the page fails
    ``readerable``: its long paragraphs (divs of text and lines broken with <br> too) hold
    ARTICLE_LONG_TEXT characters, or it holds MIN_CHARS of text little of it in links (a news story
    written in one-sentence paragraphs, each too short for Readability's test; a listing's text is
    its links)."""
    if found.kept_long_text >= ARTICLE_LONG_TEXT:
        return True
    return found.chars >= MIN_CHARS and found.link_chars * ARTICLE_LINKS < found.chars


def readerable(tree: Any) -> bool:
    """Whether the page reads as an article at all: enough long, visible paragraphs outside page
    furniture. A page that is not (a home page, a search form, a list of links) has no main content
    to return."""
    score = 0.0
    nodes = tree.css("p, pre, article")
    seen = {node.mem_id for node in nodes}
    for br in tree.css("div > br"):  # a div of text broken into lines reads as paragraphs too
        if br.parent.mem_id not in seen:
            seen.add(br.parent.mem_id)
            nodes.append(br.parent)
    # Nested candidates (articles, divs of lines) are measured from their parts: each character read
    # once.
    length = TextMeasure(nodes, lambda text: len(" ".join(text.split())), add, 0)
    for node in nodes:
        attributes = node.attributes
        names = _names(attributes)
        if len(names) > 1 and _UNLIKELY.search(names) and not _MAYBE.search(names):
            continue
        if is_hidden(attributes, node.tag):
            continue
        if node.tag != "article" and node.parent is not None and node.parent.tag == "li":
            continue
        chars = length(node)
        if chars < READERABLE_MIN_CHARS:
            continue
        score += (chars - READERABLE_MIN_CHARS) ** 0.5
        if score > READERABLE_MIN_SCORE:
            return True
    return False
