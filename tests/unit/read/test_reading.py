"""A page to what the page tools return (netglean.read.reading): metadata read before extraction
prunes the tree, the content in each format and its slices (json's whole blocks), the content's
links and, when asked, every link of the page, and whether the page is a bot wall rather than
content."""

from __future__ import annotations

import json

from netglean.read.links import ContentLink, LinkFilter
from netglean.read.page_signals import bot_wall
from netglean.read.reading import WALL_TEXT, is_wall, read_html, read_text, signals_if_wall

URL = "https://harbour.test/news/tides"
PAGE = (
    '<html lang="en"><head><title>Tides</title><meta name="description" content="About tides">'
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": '
    '"Tides"}</script></head>'
    '<body><nav><a href="/">Home</a> <a href="/about#team">About</a></nav>'
    '<article><h1>Tides</h1><p>The moon pulls the <a href="/sea">sea</a> towards it, '
    "<b>twice</b> a day, as the earth "
    "turns beneath; the <code>range</code> is the height between high and low water.</p>\n"
    '<ul><li>Spring tides</li><li><a href="neap">Neap</a> tides</li></ul>\n'
    "<table><tr><th>Harbour</th><th>Range</th></tr><tr><td>Fundy</td><td>16 m</td></tr></table>\n"
    "<p>Heights &lt;in metres&gt; &amp; more.</p></article><footer>Copyright</footer></body></html>"
)


def test_markdown() -> None:
    reading = read_html(PAGE, URL, fmt="markdown", main_content=True)
    assert reading.content == (
        "# Tides\n\nThe moon pulls the [sea](https://harbour.test/sea) towards it, **twice** a "
        "day, as the earth turns beneath; the `range` is the height between high and low "
        "water.\n\n- Spring tides\n- [Neap](https://harbour.test/news/neap) tides\n\n| Harbour | "
        "Range |\n| --- | --- |\n| Fundy | 16 m |\n\nHeights <in metres> & more."
    )
    assert reading.title == "Tides"
    assert reading.links == [
        ContentLink("https://harbour.test/sea", "sea"),
        ContentLink("https://harbour.test/news/neap", "Neap"),
    ]


def test_text_has_no_marks_and_html_is_escaped() -> None:
    text = read_html(PAGE, URL, fmt="text", main_content=True).content
    assert (
        text.startswith("Tides\n\nThe moon pulls the sea towards it, twice a day")
        and "range is the height" in text
    )
    assert (
        "- Neap tides" in text
        and "Harbour\tRange\nFundy\t16 m" in text
        and "[" not in text
        and "*" not in text
    )
    html = read_html(PAGE, URL, fmt="html", main_content=True).content
    assert html.startswith("<h1>Tides</h1>\n<p>The moon pulls the sea towards it, twice a day")
    assert "<p>Heights &lt;in metres&gt; &amp; more.</p>" in html
    assert (
        "<table><tr><td>Harbour</td><td>Range</td></tr><tr><td>Fundy</td><td>16 m</td></tr></table>"
        in html
    )


def test_json_is_the_blocks() -> None:
    reading = read_html(PAGE, URL, fmt="json", main_content=True)
    blocks = json.loads(reading.content)
    assert (
        reading.title == "Tides"
        and reading.total_chars == len(reading.content)
        and reading.next_start is None
    )
    assert [block["type"] for block in blocks] == [
        "heading",
        "paragraph",
        "list",
        "table",
        "paragraph",
    ]
    assert blocks[0] == {"type": "heading", "text": "Tides", "level": 1}
    assert blocks[3]["rows"] == [["Harbour", "Range"], ["Fundy", "16 m"]]


def _json_slices(html: str, limit: int) -> list[list[dict[str, object]]]:
    """Every json slice of ``html`` at ``limit`` characters, following next_start from 0."""
    slices, start = [], 0
    while True:
        reading = read_html(html, URL, fmt="json", main_content=False, start=start, limit=limit)
        assert len(reading.content) <= limit and reading.start_index == start
        slices.append(json.loads(reading.content))  # each slice parses on its own
        if reading.next_start is None:
            return slices
        assert reading.next_start > start
        start = reading.next_start


def test_json_slices_are_whole_blocks_that_each_parse() -> None:
    whole = json.loads(read_html(PAGE, URL, fmt="json", main_content=False).content)
    slices = _json_slices(PAGE, 300)
    assert len(slices) > 2 and [block for part in slices for block in part] == whole


def test_a_block_longer_than_a_slice_comes_in_numbered_parts_that_join_back() -> None:
    words = " ".join(f"word{n}" for n in range(300))
    rows = "".join(f"<tr><td>harbour {n}</td><td>{n} m</td></tr>" for n in range(60))
    items = "".join(f"<li>item {n} {'x' * 40}</li>" for n in range(30))
    page = f'<p>{words}</p><table>{rows}</table><ul>{items}</ul><p>"quoted" \\ end</p>'
    blocks = [block for part in _json_slices(page, 200) for block in part]
    paragraphs = [block for block in blocks if block["type"] == "paragraph" and "part" in block]
    assert [block["part"] for block in paragraphs] == list(range(1, len(paragraphs) + 1)) and len(
        paragraphs
    ) > 5
    assert "".join(str(block["text"]) for block in paragraphs) == words
    tables = [block for block in blocks if block["type"] == "table"]
    assert [row for table in tables for row in table["rows"]] == [
        [f"harbour {n}", f"{n} m"] for n in range(60)
    ]
    lists = [block for block in blocks if block["type"] == "list"]
    assert [item for block in lists for item in block["items"]] == [
        f"item {n} {'x' * 40}" for n in range(30)
    ]
    # no part: it fitted whole
    assert blocks[-1] == {"type": "paragraph", "text": '"quoted" \\ end'}


def test_a_json_slice_starts_at_the_block_its_index_falls_in_and_past_the_end_is_empty() -> None:
    first = read_html(PAGE, URL, fmt="json", main_content=False, limit=160)
    assert first.next_start is not None
    inside = read_html(
        PAGE, URL, fmt="json", main_content=False, start=first.next_start + 3, limit=160
    )
    assert inside.start_index == first.next_start
    past = read_html(PAGE, URL, fmt="json", main_content=False, start=10**6, limit=160)
    assert (past.content, past.next_start) == ("[]", None)


def test_metadata_is_read_from_the_whole_page() -> None:
    reading = read_html(PAGE, URL, fmt="markdown", main_content=True)
    assert reading.metadata.description == "About tides" and reading.metadata.language == "en"
    # scripts are pruned later
    assert reading.metadata.json_ld == [{"@type": "NewsArticle", "headline": "Tides"}]


def test_the_frontier_is_every_link_the_filter_takes_navigation_included_and_only_when_asked() -> (
    None
):
    assert read_html(PAGE, URL, fmt="markdown", main_content=True).frontier == []
    frontier = read_html(
        PAGE, URL, fmt="markdown", main_content=True, frontier=LinkFilter("harbour.test")
    ).frontier
    assert frontier == [
        "https://harbour.test/",
        "https://harbour.test/about",
        "https://harbour.test/sea",
        "https://harbour.test/news/neap",
    ]


def test_a_line_break_stays_a_line_break_in_markdown() -> None:
    """Found by this test, as a bug: the blank squeeze made the hard break's two spaces one: a soft
    break, which markdown joins into the line."""
    assert read_html(
        "<p>High water<br>Low water</p>", URL, fmt="markdown", main_content=False
    ).content == ("High water  \nLow water")


def test_sibling_divs_do_not_run_their_words_together() -> None:
    """Found by the quality gate's div page, as a bug: a container holding no p, list or table was
    read as inline text, so the divs in it ran together and the words at their edges merged ('Read
    nextThe last ferry')."""
    page = "<article><div>High water</div><div>Low water</div></article>"
    assert read_html(page, URL, fmt="text", main_content=False).content.split() == [
        "High",
        "water",
        "Low",
        "water",
    ]


CHALLENGE = (
    "<html><head><title>Just a moment...</title></head><body><div "
    "id='cf-chl-widget'></div><p>Checking if the site connection is secure. Enable JavaScript "
    "and cookies to continue.</p></body></html>"
)
ARTICLE = (
    "<html><head><title>Turnstiles</title><script "
    "src='https://www.google.com/recaptcha/api.js'></script></head><body><article><h1>How "
    "turnstiles count a crowd</h1>"
    + "<p>A turnstile lets one person through at a time, and every turn is counted by the gate.</p>"
    * 20
    + "<form><div class='g-recaptcha' "
    "data-sitekey='k'></div><textarea></textarea></form></article></body></html>"
)


def test_a_challenge_page_is_a_wall_whatever_its_status() -> None:
    for status in (200, 403, 503):
        reading = read_html(CHALLENGE, URL, fmt="markdown", main_content=True, status=status)
        assert "cloudflare-challenge" in reading.wall and "browser-check" in reading.wall, status


def test_a_page_with_a_captcha_in_its_comment_form_is_content() -> None:
    reading = read_html(ARTICLE, URL, fmt="markdown", main_content=True)
    assert reading.wall == () and "turnstile lets one person through" in reading.content
    assert bot_wall(200, {}, ARTICLE) == ["captcha"]  # the signs are there: the rule weighs them


def test_the_wall_rule_weighs_the_status_the_header_and_the_text() -> None:
    assert is_wall(["captcha"], 200, 200) and not is_wall(["captcha"], 200, WALL_TEXT)
    assert is_wall(["captcha"], 403, 10_000) and is_wall(["cloudflare-403"], 403, 10_000)
    assert is_wall(["cloudflare-challenge-header"], 200, 10_000)  # the vendor says so itself
    assert not is_wall(["captcha"], 404, 10_000) and not is_wall([], 403, 0)
    walled = read_html(
        ARTICLE, URL, fmt="text", main_content=True, headers={"cf-mitigated": "challenge"}
    )
    assert walled.wall == ("captcha", "cloudflare-challenge-header")


def test_a_text_body_is_its_paragraphs_as_json() -> None:
    text = read_text("High water.\n\n  \nLow water,\nand the range.", fmt="json")
    assert json.loads(text.content) == [
        {"type": "paragraph", "text": "High water."},
        {"type": "paragraph", "text": "Low water,\nand the range."},
    ]
    assert read_text("High water.\n\nLow water.", fmt="html", start=5, limit=5).content == "water"


def test_links_images_and_the_canonical_url_resolve_against_the_documents_base_url() -> None:
    page = (
        "<html><head><base href='http://site.test/sub/'><link rel=canonical "
        "href='here'></head><body><article><p>Read <a href='a.html'>the story</a> and <a "
        "href='#top'>go up</a>.</p><p><img src='i.png' alt='A photo'></p></article></body></html>"
    )
    reading = read_html(
        page,
        "http://site.test/",
        fmt="markdown",
        main_content=False,
        frontier=LinkFilter("site.test"),
    )
    assert reading.links[0] == ContentLink("http://site.test/sub/a.html", "the story")
    assert "(http://site.test/sub/i.png)" in reading.content
    assert reading.metadata.canonical == "http://site.test/sub/here"
    assert reading.frontier == ["http://site.test/sub/a.html", "http://site.test/sub/"]


def test_a_listing_that_names_a_wall_in_passing_is_content() -> None:
    """A noscript notice, a script comment naming a turnstile, articles quoting a challenge: signs,
    not a wall."""
    listing = (
        "<html><head><script>/* no turnstile here */</script></head><body>"
        "<noscript>Please enable JavaScript and cookies to comment.</noscript><main>"
        + "".join(
            f"<article><h2><a href='/n/{n}'>Story {n}</a></h2><p>Checking your browser is what a "
            f"wall says; this story {n} tells of the harbour instead.</p><div "
            "class='challenge-platform'></div></article>"
            for n in range(30)
        )
        + "</main></body></html>"
    )
    assert {"browser-check", "captcha", "cloudflare-challenge"} <= set(bot_wall(200, {}, listing))
    for main_content in (True, False):
        assert read_html(listing, URL, fmt="text", main_content=main_content).wall == ()
    assert signals_if_wall(bot_wall(200, {}, listing), 200, listing, URL) == ()
    # a wall's status: the signs count
    assert signals_if_wall(bot_wall(403, {}, listing), 403, listing, URL) != ()


def test_pictures_and_the_date_line_are_no_lines_of_the_text() -> None:
    """A picture's alt text came out as a line of the text ("A chart of the tides"), and so did the
    date line above the article ("Published: 24 November 2026 at 7:37 AM GMT"), which the metadata
    already gives. Markdown still shows the picture; a date inside the article (a timeline's) stays.
    """
    story = (
        "The moon pulls the sea towards it, twice a day, as the earth turns beneath; the range "
        "varies. " * 3
    )
    page = (
        "<article><h1>Tides</h1><p>Published: 24 November 2026 at 7:37 AM GMT | Updated 25 Nov. "
        f"2026</p><p><img src='/chart.png' alt='A chart of the tides'></p><p>{story}</p><p>The "
        "tide <img src='/icon.png' alt='rising arrow'> turns at noon.</p><p>3 March "
        f"1953</p><p>{story}</p></article>"
    )
    text = read_html(page, URL, fmt="text", main_content=True).content
    assert (
        text.startswith("Tides\n\nThe moon pulls") and "chart" not in text and "arrow" not in text
    )
    assert "The tide turns at noon.\n\n3 March 1953" in text
    markdown = read_html(page, URL, fmt="markdown", main_content=True).content
    assert (
        "![A chart of the tides](https://harbour.test/chart.png)" in markdown
        and "Published" not in markdown
    )
