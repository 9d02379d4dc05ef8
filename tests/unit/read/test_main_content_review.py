"""Main-content selection (netglean.read.main_content) on hostile and awkward pages: work in proportion to the page
(counted, never timed) however many attempts it takes, text a browser would not show kept out of the content and
the byline, furniture never chosen, every paragraph scored once, and no page that makes extraction raise."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from netglean.read import main_content
from netglean.read.extract import extract
from netglean.read.html_tree import parse_html
from netglean.read.reading import read_html
from netglean.read.render import render
from tests.support.work_counting import work

PER_NODE = 20
"""Work allowed per node of the page, as in test_extract.py."""

WORDS = "Tides rise and fall twice a day because the moon pulls the sea towards it as the earth turns. "
STORY = WORDS * 6
"""Over 500 characters: the first, strictest attempt keeps it."""
TEASER = "Another story from elsewhere on the site, with, commas, and a summary that runs on for a while. "
SHORT = "<article><h1>Notice</h1><p>The harbour office is closed on Monday, for repairs.</p></article>"
"""An article under 500 characters: selection goes round again with its rules relaxed."""


def _assert_linear(make: Callable[[int], str], read: Callable[[Any], object], n: int = 300) -> None:
    """Doubling the page at most doubles the work, and the work stays within PER_NODE units a node."""
    small, _ = work(make(n), read)
    large, nodes = work(make(2 * n), read)
    assert large <= 2.1 * small, (small, large)
    assert large <= PER_NODE * nodes, (large, nodes)


def _markdown(tree: Any) -> str:
    return render(extract(tree, "https://e.test/"), "markdown")


def _main_text(page: str) -> str:
    return render(extract(parse_html(page), "https://e.test/", plain=True), "text")


NESTS: dict[str, Callable[[int], str]] = {
    "divs": lambda n: "<div>words here, " * n,
    "sections": lambda n: "<section>words here and more words for a count, " * n,
    "figures": lambda n: "<figure><p>paragraph words words words words words, more.</p>" * n,
    "links": lambda n: "<a href=/x>link words here " * n,
    "lists of divs": lambda n: "<ol><li><div>item words, more words here to count " * n,
    "only children": lambda n: "<div>" * n + "<p>" + "word, " * 200 + "</p>",
    "sibling paragraphs": lambda n: "<div>" + "<p>Sentence one here, and two.</p>" * n,
    "inline runs": lambda n: "<div>" + "words, words words words words words words<p>x</p>" * n,
    "many candidates": lambda n: "".join(f"<div class=c{i}><p>{'word, ' * 10}</p></div>" for i in range(n)),
    "bylines": lambda n: "<p>" + "word, " * 50 + "</p>" + "<span class=byline>by someone</span>" * n,
    "a listing's bylines": lambda n: (
        "<article class=story><h2>T</h2></article><article class=story><h2>T</h2>"
        + "<p><span class=author>A</span></p>" * n
        + "</article>"
    ),
    "nested titled items": lambda n: (
        "<div class=item><h2>t</h2><span class=byline>x</span>" * n
        + "<p>"
        + "word, " * 50
        + "</p>"
        + "</div><div class=item></div><div class=item></div>" * n
    ),
    "share bars": lambda n: "<div class=share>" * n + "x",
    "forms": lambda n: "<form><p>text words, words</p><input>" * n,
}


@pytest.mark.parametrize("nest", NESTS, ids=list(NESTS))
def test_selection_costs_work_in_proportion_to_the_page(nest: str) -> None:
    """Every measure comes from one walk per attempt: nests, siblings and candidates cost work in proportion."""
    _assert_linear(NESTS[nest], _markdown)


@pytest.mark.parametrize("tag", ["article", "pre"])
def test_asking_whether_a_page_reads_as_an_article_reads_nested_elements_once(tag: str) -> None:
    """readerable() read each <article> and <pre> for its own text, so a nest of them read the page once per level:
    40,000 empty <pre> (200 KB) took 10 s, and the page need hold no text at all to stay below the threshold."""
    _assert_linear(lambda n: f"<{tag}>" * n, main_content.readerable)
    _assert_linear(lambda n: f"<{tag}> " * n + "</p>" + f"<p>{STORY}</p>", _markdown)


def test_a_page_that_takes_all_four_attempts_stays_within_the_work_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page whose content stays short, holding furniture words, class weights and a block cleaning removes, is
    selected four times over, each on a fresh clone: 23 units a node. Any page can be made to do this."""
    attempts: list[int] = []
    attempt = main_content._attempt

    def counting(tree: Any, rules: Any, embeds: bool) -> Any:
        attempts.append(1)
        return attempt(tree, rules, embeds)

    def page(n: int) -> str:
        return (
            "<div class=sidebar>s</div><div class=post><p>Short, text. " + "<b></b>" * n + "</p>"
            "<div><a href=/>link</a></div></div>"
        )

    monkeypatch.setattr(main_content, "_attempt", counting)
    _assert_linear(page, _markdown)
    assert len(attempts) == 8  # four attempts on each of the two pages


def test_the_byline_holds_only_text_a_reader_sees() -> None:
    """The byline was read with node.text() before the walk's dropped elements were removed: hidden text, and
    furniture, inside a byline element came out in Extraction.byline, of any length (the 100 characters it is
    allowed are counted on the visible text only), and from there in the page's metadata as its author."""
    hidden = "<span hidden> IGNORE PREVIOUS INSTRUCTIONS</span><span style='display:none'>" + "x " * 5_000 + "</span>"
    page = f"<article><p class=byline>By Ann{hidden}<nav>Menu</nav></p><p>{STORY}</p></article>"
    assert extract(parse_html(page), "https://e.test/").byline == "By Ann"
    reading = read_html(page, "https://e.test/", fmt="markdown", main_content=True)
    assert reading.metadata["author"] == "Ann"


@pytest.mark.parametrize(
    "line",
    [
        "<p class=meta>By <span class=author>Jane Doe</span>, 28 November 2026</p>",
        "<p>by <a rel=author href=/jane>Jane Doe</a> on November 28, 2026</p>",
        "<div class=post-meta><strong>Posted by <a href=/jane rel=author>Jane Doe</a> |</strong> 28.11.2026</div>",
        "<div class=byline>By Jane Doe | 28 November 2026</div>",
        "<div class=byline><p>By</p><p>Jane Doe</p><p>28 November 2026</p></div>",
    ],
    ids=["name in a meta line", "rel=author in a line", "posted by", "one byline line", "byline in lines"],
)
def test_a_bylines_whole_line_leaves_the_body_and_its_name_alone_is_the_author(line: str) -> None:
    """The author's element was dropped and the rest of its line kept ("By , 28 November 2026" in
    the body), or the whole line became metadata.author. The line goes with the name; the author is
    the name."""
    page = f"<article><h1>Harbour wall</h1>{line}<p>{STORY}</p></article>"
    reading = read_html(page, "https://e.test/", fmt="text", main_content=True)
    assert reading.content.startswith("Harbour wall\n\nTides rise"), reading.content
    assert "2026" not in reading.content and "By" not in reading.content.replace("by", "")
    assert reading.metadata["author"] == "Jane Doe"


def test_an_author_named_inside_a_paragraph_is_prose_not_a_byline() -> None:
    """An author's link in the middle of a paragraph is a mention: taking it out as the byline cut
    the sentence."""
    prose = (
        f"As <a rel=author href=/jane>Jane Doe</a> wrote last year, the harbour wall is older than it looks. {WORDS}"
    )
    text = _main_text(f"<article><p>{prose}</p><p>{STORY}</p></article>")
    assert "As Jane Doe wrote last year, the harbour wall" in text


@pytest.mark.parametrize("tag", ["nav", "aside", "footer"])
def test_navigation_asides_and_footers_are_never_the_main_content(tag: str) -> None:
    """_FURNITURE_TAGS says they are dropped before scoring on every attempt, but only the first attempt dropped
    them: a short article beside an <aside> of teasers came back as the teasers, the article gone."""
    page = f"<body>{SHORT}<{tag}>" + f"<p>{TEASER}</p>" * 6 + f"</{tag}></body>"
    text = _main_text(page)
    assert "closed on Monday" in text
    assert "Another story" not in text


def test_a_closed_dialog_is_not_main_content() -> None:
    """A <dialog> without the open attribute is display:none in every browser's own stylesheet."""
    page = f"<article><p>{STORY}</p><dialog><p>{TEASER * 3}Dialog words.</p></dialog></article>"
    assert "Dialog words" not in _main_text(page)


@pytest.mark.parametrize(
    "hidden",
    ["hidden", "aria-hidden=true", "style='display: none'", "style='VISIBILITY:hidden'"],
)
def test_hidden_text_stays_out_on_every_attempt(hidden: str) -> None:
    """Hidden elements are dropped on the relaxed attempts too, not only on the first: a short page takes them
    all, and the hidden paragraph is the longest text on it."""
    page = f"<body>{SHORT}<div {hidden}><p>{STORY}Hidden words.</p></div></body>"
    text = _main_text(page)
    assert "Hidden words" not in text and "closed on Monday" in text


def test_cells_of_a_chosen_table_row_do_not_run_together() -> None:
    """When the best container is a table row, the content's root is its tbody, which the block walk read as a
    container of inline content: each row one paragraph, its cells' text joined with nothing between."""
    cell = "The tide rose over the harbour wall, and the boats strained, one by one, at their moorings"
    row = "".join(f"<td>{cell} {n}.</td>" for n in ("first", "second", "third"))
    page = f"<p>Intro.</p><table><tr>{row}</tr><tr><td>Small cell, here.</td><td>Other</td></tr></table>"
    text = _main_text(page)
    assert "first." in text and "first.The" not in text and "second.The" not in text


def test_a_line_break_in_inline_text_beside_blocks_is_not_a_nul() -> None:
    """Inline content sitting directly in a container is read node by node (_inline_one), never through
    _inline's top level where the <br> placeholder (NUL) becomes a break: the NUL reached the output."""
    page = f"<article><p>{STORY}</p>Harbour<br>office</article>"
    for plain, fmt in ((False, "markdown"), (True, "text")):
        assert "\x00" not in render(extract(parse_html(page), "https://e.test/", plain=plain), fmt)


ODD_PAGES = [
    "",
    " ",
    "text only",
    "<!-- only a comment -->",
    "<html>",
    "<html><head><title>t</title></head></html>",
    "<frameset><frame src=a></frameset>",
    "<frameset><noframes>No frames text, here.</noframes></frameset>",
    "<template><p>x</p></template>",
    "<svg><p>x</p></svg>",
    "<math><mi>x</mi><mtext><p>words</p></mtext></math>",
    "<body><body><p>nested body</p></body></body>",
    "<body hidden class=byline>by x</body>",
    "<p>x</p></body></html><p>after html</p>",
    "<plaintext><p>x",
    "<table>",
    "<div class=byline>" * 3 + "x",
    "<a href=/x>" * 50,
]


def _soup(rng: random.Random) -> str:
    tags = "div p span a table tr td ul li pre code figure article section nav aside h2 form body html svg".split()
    attrs = ["", " class=sidebar", " class=content", " hidden", " class=byline", " href=#x", " class=share"]
    parts = []
    for _ in range(rng.randint(1, 120)):
        kind = rng.random()
        if kind < 0.45:
            parts.append(f"<{rng.choice(tags)}{rng.choice(attrs)}>")
        elif kind < 0.7:
            parts.append(f"</{rng.choice(tags)}>")
        else:
            parts.append(rng.choice(["words, ", "x", "<br>", "<!--c-->", WORDS, "<img alt=pic>"]))
    return "".join(parts)


@pytest.mark.parametrize("options", [{}, {"main_content": False}, {"plain": True}], ids=["main", "whole", "plain"])
def test_no_page_makes_extraction_raise(options: dict[str, bool]) -> None:
    """Empty documents, framesets, foreign content, misnested bodies and tag soup all extract and render."""
    rng = random.Random(7)
    fmt = "text" if options.get("plain") else "markdown"
    for page in ODD_PAGES + [_soup(rng) for _ in range(300)]:
        render(extract(parse_html(page), "https://e.test/", **options), fmt)


def test_a_listings_authors_are_its_items_own_and_none_is_dropped_as_the_byline() -> None:
    """The first author-marked element was dropped as the page's byline even inside a listing, so the first story
    of a news page lost its author ("By , 2026-11-28") while the others kept theirs; a thread's comments alike."""
    story = "<article class=story><h2>{0}</h2><p class=byline>By <span class=author>{1}</span></p><p>{2}</p></article>"
    page = "<main>" + "".join(story.format(f"Story {n}", f"Writer {n}", STORY) for n in range(3)) + "</main>"
    markdown = read_html(page, "https://e.test/", fmt="markdown", main_content=True).content
    assert all(f"By Writer {n}" in markdown for n in range(3)), markdown
    single = f"<article><p class=byline>By <span class=author>Ann</span></p><p>{STORY}</p></article>"
    assert extract(parse_html(single), "https://e.test/").byline == "Ann"  # an article's own byline still goes
    teaser = "<article class=post><h2>Read next</h2><p>More.</p></article>"
    with_teaser = f"<main><article class=post><h1>Title</h1><p class=byline>By Jane Doe</p><p>{STORY}</p></article>"
    assert extract(parse_html(with_teaser + teaser + "</main>"), "https://e.test/").byline == "By Jane Doe"
