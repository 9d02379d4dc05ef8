"""Extraction on hostile pages: nests thousands deep cost work in proportion to the page (counted,
never timed), and nested tables read as sensible blocks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from netglean.feeds import steps as feed_steps
from netglean.read import extract as extraction
from netglean.read.extract import extract
from netglean.read.html_tree import parse_html
from netglean.read.links import ContentLink
from netglean.read.render import render
from tests.support.paths import FIXTURES
from tests.support.work_counting import Counted, work

ARTICLE = FIXTURES / "article.html"

PER_NODE = 20
"""Work allowed per node of the page. Extraction runs about ten queries over the whole tree (title,
the two removals, articles, paragraphs, main, links, blocks), climbs from chosen nodes once, walks
the content once and reads each text once: 4-15 units a node on the pages below. The readers this
replaced did 75-15,000, and more the larger the page."""


def _assert_linear(make: Callable[[int], str], read: Callable[[Any], object], n: int = 300) -> None:
    """Doubling the page at most doubles the work (fixed costs only make it less; 5% for the depths
    past which the walk reads plain text), and the work stays within PER_NODE units a node."""
    small, _ = work(make(n), read)
    large, nodes = work(make(2 * n), read)
    assert large <= 2.1 * small, (small, large)
    assert large <= PER_NODE * nodes, (large, nodes)


def _markdown(main_content: bool) -> Callable[[Any], str]:
    return lambda tree: render(
        extract(tree, "https://example.test/", main_content=main_content), "markdown"
    )


NESTS: dict[str, Callable[[int], str]] = {
    "tables": lambda n: "<table><tr><td>cell words " * n,
    "links holding tables": lambda n: "<a href=/x>link words<table><tr><td>" * n,
    "quotes": lambda n: "<blockquote>quoted words " * n,
    "code in divs": lambda n: "<div><pre>code words\n" * n,
    "articles": lambda n: ("<article>" + "words " * 50) * n,
    "paragraphs in tables": lambda n: (
        "<p>words enough for a paragraph to count here<table><tr><td>" * n
    ),
    "inline levels over one paragraph": lambda n: (
        "<div><span>x</span><span>y</span>" * n + "<p>bottom</p>"
    ),
    "lists": lambda n: "<ul><li>item words " * n,
}


@pytest.mark.parametrize("main_content", [True, False], ids=["main", "whole"])
@pytest.mark.parametrize("nest", NESTS, ids=list(NESTS))
def test_nests_cost_work_in_proportion_to_the_page(nest: str, main_content: bool) -> None:
    """Nested tables had every row and cell of the tables below read again at every level (2,500
    tables in 82 KB: 51 s); every container was asked whether it holds a block by a query of its
    whole subtree; main-content scoring read each nested quote, code block and article's text again
    (50,000 quotes: 16 s)."""
    _assert_linear(NESTS[nest], _markdown(main_content))


def test_html_to_markdown_reads_nested_tables_in_proportion_to_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The feed step extracts a value's markup as a whole page: 2,500 nested tables in one value
    took 49 s."""
    trees: list[Counted] = []

    def counted(markup: str) -> Counted:
        trees.append(Counted(markup))
        return trees[-1]

    monkeypatch.setattr("netglean.read.html_tree.parse_html", counted)

    def step(n: int) -> tuple[int, int, str]:
        value = "<table><tr><td>" * n + "Bottom words" + "</td></tr></table>" * n
        [markdown] = feed_steps.apply_column(
            [{"name": "html_to_markdown"}],
            [value],
            base_url="https://e.test/",
            time_zone="UTC",
            columns=lambda _: None,
        )
        return trees[-1].work, trees[-1].nodes, str(markdown)

    small, _, _ = step(1_000)
    large, nodes, markdown = step(2_000)
    assert large <= 2.1 * small and large <= PER_NODE * nodes, (small, large, nodes)
    assert markdown == "| Bottom words |\n| --- |"


def test_a_table_holding_tables_is_read_as_layout_its_tables_as_blocks_once() -> None:
    """A table that holds tables lays the page out (data tables do not nest): its cells are read in
    order as containers, so a table inside is its own block and every word appears once. Reading
    every row below made the inner rows outer rows too, and each outer cell held the inner table's
    text again."""
    page = (
        "<table><tr><td class=nav><a href='/'>Home page</a></td><td><h1>Tide tables</h1>"
        "<p>Heights by harbour.</p>"
        "<table><thead><tr><th>Harbour</th><th>Height</th></tr></thead><tbody><tr>"
        "<td>Fundy</td><td>16</td></tr>"
        "<tr><td>Severn</td><td>15</td></tr></tbody></table><p>Measured in metres.</p></td>"
        "</tr></table>"
    )
    blocks = json.loads(
        render(extract(parse_html(page), "https://example.test/", main_content=False), "json")
    )
    assert blocks == [
        {"type": "paragraph", "text": "[Home page](https://example.test/)"},
        {"type": "heading", "text": "Tide tables", "level": 1},
        {"type": "paragraph", "text": "Heights by harbour."},
        {"type": "table", "rows": [["Harbour", "Height"], ["Fundy", "16"], ["Severn", "15"]]},
        {"type": "paragraph", "text": "Measured in metres."},
    ]


def test_a_data_table_reads_its_own_rows_and_cells_in_order() -> None:
    page = (
        "<table><caption>Tides</caption><thead><tr><th>Place</th><th>Range</th></tr></thead>"
        "<tbody><tr><td>Fundy</td><td><b>16</b> m</td></tr></tbody><tr><td>Severn</td></tr>"
        "<tfoot><tr><td>Source: survey</td></tr></tfoot></table>"
    )
    [block] = extract(parse_html(page), "https://example.test/", main_content=False).blocks
    assert block.rows == (("Place", "Range"), ("Fundy", "16 m"), ("Severn",), ("Source: survey",))


def test_tables_nested_past_the_walks_depth_keep_their_text_once() -> None:
    page = "<table><tr><td>" * 2_500 + "Words at the bottom" + "</td></tr></table>" * 2_500
    markdown = render(
        extract(parse_html(page), "https://example.test/", main_content=False), "markdown"
    )
    assert markdown == "| Words at the bottom |\n| --- |"


def test_text_deep_in_inline_elements_is_sanitised_and_squeezed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each of 40 inline levels sanitised and squeezed everything below it again: 1 MB of text 40
    levels down took a second. Each text is now sanitised where it is read, and squeezed at the
    top."""
    read = {"sanitised": 0, "squeezed": 0}
    sanitize, spaces = extraction.sanitize, extraction._SPACES

    def counting_sanitize(text: str) -> str:
        read["sanitised"] += len(text)
        return sanitize(text)

    class CountingSpaces:
        def sub(self, replacement: str, text: str) -> str:
            read["squeezed"] += len(text)
            return spaces.sub(replacement, text)

    monkeypatch.setattr(extraction, "sanitize", counting_sanitize)
    monkeypatch.setattr(extraction, "_SPACES", CountingSpaces())
    words = "tide  and\tmoon " * 5_000
    page = "<p>" + "<span>" * 39 + words + "</span>" * 39 + "</p>"
    [block] = extract(parse_html(page), "https://example.test/", main_content=False).blocks
    assert block.text == ("tide and moon " * 5_000).strip()
    assert read["sanitised"] <= 3 * len(words) and read["squeezed"] <= 2 * len(words), read


def test_plain_text_is_written_as_read_whatever_brackets_and_stars_the_page_holds() -> None:
    """Text was markdown with its marks taken out afterwards: a link whose text held brackets ("the
    [1] note", "[edit]") came back as markdown, and the page's own stars and backticks were lost."""
    page = (
        "<article><p>See <a href='/x'>the [1] note</a>, <a href='/y'>[edit]</a>, <img alt='a "
        "[chart]' src=c.png> <a href='/z'><img alt='x]y' src=d.png></a>, <b>bold</b> "
        "<code>f(*args)</code> and 5 * 3 = [15](sic).</p><ul><li><a href='/w'>[w]</a> "
        "item</li></ul></article>"
    )
    plain = extract(parse_html(page), "https://e.test/", main_content=False, plain=True)
    assert render(plain, "text") == (  # pictures write nothing in text, their alt text included
        "See the [1] note, [edit], , bold f(*args) and 5 * 3 = [15](sic).\n\n- [w] item"
    )
    assert "<p>See the [1] note, [edit]," in render(plain, "html")
    marked = extract(parse_html(page), "https://e.test/", main_content=False)
    assert render(marked, "markdown").startswith(
        "See [the [1] note](https://e.test/x), [[edit]](https://e.test/y),"
    )
    assert [link.url for link in plain.links] == [link.url for link in marked.links] and len(
        plain.links
    ) == 4
    with pytest.raises(ValueError, match="plain"):
        render(marked, "text")


def test_a_ragged_table_is_as_long_in_markdown_as_on_the_page() -> None:
    """Every row was padded to the widest: one row of 4,000 cells over 4,000 one-cell rows (116 KB)
    made 48 MB."""
    page = (
        "<table><tr>" + "<td>x</td>" * 4_000 + "</tr>" + "<tr><td>y</td></tr>" * 4_000 + "</table>"
    )
    markdown = render(
        extract(parse_html(page), "https://example.test/", main_content=False), "markdown"
    )
    assert len(markdown) <= len(page)
    lines = markdown.split("\n")
    assert (
        lines[0] == "| " + " | ".join(["x"] * 4_000) + " |" and lines[1] == "|" + " --- |" * 4_000
    )
    assert lines[2:] == ["| y |"] * 4_000


WORDS = (
    "Tides rise and fall twice a day because the moon pulls the sea towards it as the earth turns. "
)
STORY = WORDS * 6
"""An article long enough (over 500 characters) that main-content selection takes its first,
strictest attempt."""


def _texts(page: str, main_content: bool = True) -> list[str]:
    blocks = extract(
        parse_html(page), "https://harbour.test/news/", main_content=main_content
    ).blocks
    return [block.text or " | ".join(block.items) for block in blocks]


def test_the_main_content_is_the_container_whose_paragraphs_score_best() -> None:
    page = (
        "<body><header><a href=/>Home</a></header><nav><a "
        f"href=/a>A</a></nav><article><h2>Short</h2><p>{WORDS}</p></article><article><h1>Tides</h1><p>{WORDS}</p><p>{STORY}</p></article><footer>Copyright</footer></body>"
    )
    assert _texts(page) == ["Tides", WORDS.strip(), STORY.strip()]


def test_paragraphs_full_of_links_lose_to_plain_ones() -> None:
    soup = (
        f"<body><div class=x1><p>{WORDS}<a href=/1>one link</a> <a href=/2>and another "
        f"link</a></p><p>{'<a href=/3>' + STORY + '</a>'}</p></div><div "
        f"class=x2><p>{WORDS}</p><p>{STORY}Chosen.</p></div></body>"
    )
    assert _texts(soup) == [WORDS.strip(), STORY + "Chosen."]


def test_furniture_is_dropped_from_the_main_content_and_kept_in_the_whole_page() -> None:
    page = (
        f"<body><article><h1>Tides</h1><p>{STORY}</p><div class='share-buttons'>Share "
        "this</div><div id='comments'><p>First comment</p></div><aside>Related "
        "reading</aside><div role='navigation'>Menu</div><div class='newsletter'>Subscribe "
        "now</div><p class='byline'>By A. Writer</p><p style='display: none'>Hidden words</p><p "
        "hidden>More hidden</p></article><script>steal()</script></body>"
    )
    extraction = extract(parse_html(page), "https://harbour.test/news/")
    assert [block.text for block in extraction.blocks] == ["Tides", STORY.strip()]
    assert extraction.byline == "By A. Writer" and extraction.readerable
    whole = _texts(page, main_content=False)
    assert "Share this" in whole and "First comment" in whole and "Related reading" in whole
    assert "steal()" not in whole  # scripts are never content


def test_blocks_keep_their_kind_level_items_rows_and_links() -> None:
    page = (
        "<article><h2>Tide <em>tables</em></h2><p>See <a href='/moon'>the moon</a>, <a "
        "href='#top'>top</a> and <a href='javascript:x()'>this</a>.</p><ol><li>first</li><li> "
        "</li><li>second</li></ol><blockquote>Quoted\n words</blockquote><pre>  code\n    "
        "indented\n</pre><hr><img src='c.png' alt='A chart'><img "
        "src='no-alt.png'><table><tr><th>Harbour</th><th>Range</th></tr><tr><td>Fundy</td><td>16 "
        "m</td></tr></table></article>"
    )
    extraction = extract(parse_html(page), "https://harbour.test/news/", main_content=False)
    kinds = [(b.kind, b.level) for b in extraction.blocks]
    assert kinds == [("heading", 2), ("paragraph", 0), ("list", 1), ("quote", 0), ("code", 0),
                     ("rule", 0), ("image", 0), ("table", 0)]  # fmt: skip
    heading, paragraph, listed, quote, code, _, image, table = extraction.blocks
    assert (
        heading.text == "Tide *tables*"
        and quote.text == "Quoted words"
        and code.text == "  code\n    indented"
    )
    # no link to nowhere
    assert paragraph.text == "See [the moon](https://harbour.test/moon), top and this."
    assert listed.items == ("first", "second") and image.items == (
        "https://harbour.test/news/c.png",
    )
    assert table.rows == (("Harbour", "Range"), ("Fundy", "16 m"))
    assert extraction.links == [ContentLink("https://harbour.test/moon", "the moon")]


def test_the_title_is_the_title_elements_cleaned() -> None:
    assert (
        extract(parse_html("<title> Tide\u202e \n tables </title>"), "https://a.test/").title
        == "Tide tables"
    )
    assert extract(parse_html("<title> </title><p>x</p>"), "https://a.test/").title is None
    assert extract(parse_html(""), "https://a.test/").blocks == []


def test_a_container_that_says_it_is_furniture_is_never_the_main_content() -> None:
    """Found by this test, as a bug: main-content scoring did not ask the boilerplate words, and the
    chosen root's own class was not checked: a sidebar's paragraph could win over the article."""
    page = (
        f"<body><div class='sidebar'><p>{STORY}Read our other "
        f"stories.</p></div><article><h1>Tides</h1><p>{STORY}<a "
        "href='/moon'>moon</a></p><ul><li>one</li></ul></article></body>"
    )
    assert "Tides" in _texts(page) and not any("other stories" in text for text in _texts(page))


LINKED = (
    "<body><p>See <a href='/wall'>the wall</a> and <a href='/pier'>the pier</a>, then"
    " <a href='/wall'>the wall again</a> <img src='/gull.png' alt='A gull'>.</p>"
    "<img src='/map.png' alt='The harbour map'></body>"
)


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        (
            "inline",
            "See [the wall](https://e.test/wall) and [the pier](https://e.test/pier), then"
            " [the wall again](https://e.test/wall) ![A gull](https://e.test/gull.png).\n\n"
            "![The harbour map](https://e.test/map.png)",
        ),
        (
            "references",
            "See the wall [1] and the pier [2], then the wall again [1] ![A gull][3].\n\n"
            "![The harbour map][4]\n\n## References\n\n[1]: https://e.test/wall\n"
            "[2]: https://e.test/pier\n[3]: https://e.test/gull.png\n[4]: https://e.test/map.png",
        ),
        ("none", "See the wall and the pier, then the wall again ."),
    ],
)
def test_markdown_writes_links_in_the_style_asked(style: str, expected: str) -> None:
    """Each URL is cited by one number however often it is linked, pictures included; with none,
    neither a link's URL nor a picture is written (the text format's words, with markdown's
    marks)."""
    extraction = extract(
        parse_html(LINKED), "https://e.test/", main_content=False, link_style=style
    )
    assert render(extraction, "markdown") == expected
    assert [link.url for link in extraction.links][:2] == [
        "https://e.test/wall",
        "https://e.test/pier",
    ]
