"""A page to what the page tools return (netglean.read.reading): metadata read before extraction prunes the tree,
the content in each format, the content's links and, when asked, every link of the page."""

from __future__ import annotations

import json

from netglean.read.reading import read_html

URL = "https://harbour.test/news/tides"
PAGE = (
    '<html lang="en"><head><title>Tides</title><meta name="description" content="About tides">'
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Tides"}</script></head>'
    '<body><nav><a href="/">Home</a> <a href="/about#team">About</a></nav>'
    '<article><h1>Tides</h1><p>The moon pulls the <a href="/sea">sea</a> towards it, <b>twice</b> a day, as the earth '
    "turns beneath; the <code>range</code> is the height between high and low water.</p>\n"
    '<ul><li>Spring tides</li><li><a href="neap">Neap</a> tides</li></ul>\n'
    "<table><tr><th>Harbour</th><th>Range</th></tr><tr><td>Fundy</td><td>16 m</td></tr></table>\n"
    "<p>Heights &lt;in metres&gt; &amp; more.</p></article><footer>Copyright</footer></body></html>"
)


def test_markdown() -> None:
    reading = read_html(PAGE, URL, fmt="markdown", main_content=True)
    assert reading.content == (
        "# Tides\n\n"
        "The moon pulls the [sea](https://harbour.test/sea) towards it, **twice** a day, as the earth turns beneath; "
        "the `range` is the height between high and low water.\n\n"
        "- Spring tides\n- [Neap](https://harbour.test/news/neap) tides\n\n"
        "| Harbour | Range |\n| --- | --- |\n| Fundy | 16 m |\n\n"
        "Heights <in metres> & more."
    )
    assert reading.title == "Tides"
    assert reading.links == [
        {"url": "https://harbour.test/sea", "text": "sea"},
        {"url": "https://harbour.test/news/neap", "text": "Neap"},
    ]


def test_text_has_no_marks_and_html_is_escaped() -> None:
    text = read_html(PAGE, URL, fmt="text", main_content=True).content
    assert text.startswith("Tides\n\nThe moon pulls the sea towards it, twice a day") and "range is the height" in text
    assert "- Neap tides" in text and "Harbour\tRange\nFundy\t16 m" in text and "[" not in text and "*" not in text
    html = read_html(PAGE, URL, fmt="html", main_content=True).content
    assert html.startswith("<h1>Tides</h1>\n<p>The moon pulls the sea towards it, twice a day")
    assert "<p>Heights &lt;in metres&gt; &amp; more.</p>" in html
    assert "<table><tr><td>Harbour</td><td>Range</td></tr><tr><td>Fundy</td><td>16 m</td></tr></table>" in html


def test_json_is_the_blocks() -> None:
    content = json.loads(read_html(PAGE, URL, fmt="json", main_content=True).content)
    assert content["title"] == "Tides"
    assert [block["type"] for block in content["blocks"]] == ["heading", "paragraph", "list", "table", "paragraph"]
    assert content["blocks"][0] == {"type": "heading", "text": "Tides", "level": 1}
    assert content["blocks"][3]["rows"] == [["Harbour", "Range"], ["Fundy", "16 m"]]


def test_metadata_is_read_from_the_whole_page() -> None:
    reading = read_html(PAGE, URL, fmt="markdown", main_content=True)
    assert reading.metadata["description"] == "About tides" and reading.metadata["language"] == "en"
    assert reading.metadata["json_ld"] == [{"@type": "NewsArticle", "headline": "Tides"}]  # scripts are pruned later


def test_the_frontier_is_every_link_and_only_when_asked() -> None:
    assert read_html(PAGE, URL, fmt="markdown", main_content=True).frontier == []
    frontier = read_html(PAGE, URL, fmt="markdown", main_content=True, frontier=True).frontier
    assert frontier == [
        "https://harbour.test/",
        "https://harbour.test/about",
        "https://harbour.test/sea",
        "https://harbour.test/news/neap",
    ]


def test_a_line_break_stays_a_line_break_in_markdown() -> None:
    """Found by this test, as a bug: the blank squeeze made the hard break's two spaces one: a soft break, which
    markdown joins into the line."""
    assert read_html("<p>High water<br>Low water</p>", URL, fmt="markdown", main_content=False).content == (
        "High water  \nLow water"
    )


def test_sibling_divs_do_not_run_their_words_together() -> None:
    """Found by the quality gate's div page, as a bug: a container holding no p, list or table was read as inline
    text, so the divs in it ran together and the words at their edges merged ('Read nextThe last ferry')."""
    page = "<article><div>High water</div><div>Low water</div></article>"
    assert read_html(page, URL, fmt="text", main_content=False).content.split() == ["High", "water", "Low", "water"]
