"""What a page says about itself (netglean.read.page_meta): each field from where pages put it, in
order of preference, sanitised and bounded; a field is present only when the page gives it."""

from __future__ import annotations

import pytest

from netglean.read.html_tree import parse_html
from netglean.read.page_meta import PageMeta, byline, page_metadata
from netglean.read.reading import read_html

BASE = "https://harbour.test/news/tides"
PAGE = """<html lang=" en-GB "><head><title> Tide\u202e  tables </title>
<meta property="og:title" content="Tide tables for the harbour">
<meta name="description" content="">
<meta property="og:description" content="When the water comes and goes.">
<meta name="author" content="Ana\x1b[31m Lopes">
<meta property="og:site_name" content="Harbour News">
<meta property="og:image" content="/tides.png"><meta property="og:image" content="/second.png">
<link rel="canonical" href="/news/tides?page=1">
<script type="application/ld+json">{"@graph": [
  {"@type": "NewsArticle", "datePublished": "2026-11-29"},
  {"@type": "Person", "name": "Ana"}, 3]}</script>
<script type="application/ld+json">[{"@type": "WebSite"}, "not an object"]</script>
<script type="application/ld+json">{broken</script>
</head><body><time datetime="2020-01-01">long ago</time></body></html>"""


def test_every_field_from_where_pages_put_it() -> None:
    assert page_metadata(parse_html(PAGE), BASE) == PageMeta(
        title="Tide tables for the harbour",  # og:title before <title>
        # an empty description gives way to og:description
        description="When the water comes and goes.",
        language="en-GB",
        canonical="https://harbour.test/news/tides?page=1",  # absolute
        site_name="Harbour News",
        author="Ana Lopes",  # the escape is gone
        published="2026-11-29",  # JSON-LD's datePublished before a <time>
        opengraph={
            "title": "Tide tables for the harbour",
            "description": "When the water comes and goes.",
            "site_name": "Harbour News",
            "image": "/tides.png",  # the first of two, as written
        },
        json_ld=[  # @graph members and list items, objects only; the broken block skipped
            {"@type": "NewsArticle", "datePublished": "2026-11-29"},
            {"@type": "Person", "name": "Ana"},
            {"@type": "WebSite"},
        ],
    )


def test_a_page_that_says_nothing_gives_nothing() -> None:
    assert page_metadata(parse_html("<p>Just words.</p>"), BASE) == PageMeta()


@pytest.mark.parametrize(
    ("head", "published"),
    [
        (
            '<meta property="article:published_time" content="2026-01-02"><meta name="date" '
            'content="2025">',
            "2026-01-02",
        ),
        ('<meta name="date" content="2026-01-03"><time datetime="2020">x</time>', "2026-01-03"),
        ('<meta name="pubdate" content="2026-01-04">', "2026-01-04"),
        (
            '<time datetime="2026-01-05T08:00">x</time><time datetime="2020">y</time>',
            "2026-01-05T08:00",
        ),
    ],
)
def test_the_publication_date_in_order_of_preference(head: str, published: str) -> None:
    assert page_metadata(parse_html(head), BASE).published == published


def test_the_title_falls_back_to_the_title_element_cleaned() -> None:
    assert (
        page_metadata(parse_html("<title> Tide\u202e \n tables </title>"), BASE).title
        == "Tide tables"
    )


def test_every_field_is_bounded() -> None:
    long = "w" * 5_000
    page = (
        f'<html lang="{long}"><title>{long}</title><meta name="description" content="{long}">'
        f'<meta name="author" content="{long}"><meta name="date" content="{long}">'
        + "".join(f'<meta property="og:p{n}" content="v">' for n in range(60))
        + '<script type="application/ld+json">['
        + ",".join(['{"@type": "Thing"}'] * 30)
        + "]</script>"
    )
    found = page_metadata(parse_html(page), BASE)
    assert [
        len(text or "")
        for text in (found.title, found.description, found.author, found.published, found.language)
    ] == [
        500,
        1000,
        500,
        64,
        35,
    ]
    assert len(found.opengraph) == 40 and len(found.json_ld) == 10


def test_the_tree_is_read_not_changed() -> None:
    tree = parse_html(PAGE)
    before = tree.html
    page_metadata(tree, BASE)
    assert tree.html == before


def test_opengraph_keys_are_sanitised_bounded_and_first_one_wins() -> None:
    """Found by this test, as a bug: a key that cleaned to nothing was kept as sent (a
    100,000-character key of zero-width spaces came back whole), and first-one-wins compared raw
    keys, so a look-alike with a hidden character replaced the first value."""
    hidden = '<meta property="og:' + "\u200b" * 100_000 + '" content="v">'
    assert page_metadata(parse_html(hidden), BASE).opengraph == {}
    twice = (
        '<meta property="og:title" content="First"><meta property="og:ti\u200btle" '
        'content="Second">'
    )
    assert page_metadata(parse_html(twice), BASE).opengraph == {"title": "First"}


ARTICLE_LD = """<script type="application/ld+json">
<![CDATA[{"@context": "https://schema.org", "@type": ["NewsArticle"],
"headline": "Tide tables for 2027",
"name": "Harbour news", "description": "When the water comes and goes next year.",
"author": [{"@type": "Person", "name": "Ana Lopes"}, {"@type": "Person", "name": " Ben Ng "},
"nobody"],
"publisher": {"@type": "Organization", "name": "Harbour Press"}, "datePublished": "2026-11-30"}]]>
</script>"""


def test_the_pages_json_ld_article_comes_first_cdata_and_all() -> None:
    """Readability's order: a schema.org article's own fields before any meta tag; its headline or
    name, whichever is nearer the <title>; all of its authors; the CDATA wrapper some pages put
    around the JSON is not JSON."""
    head = (
        "<title>Tide tables for 2027 | Harbour</title><meta property='og:title' content='OG "
        "title'><meta name='author' content='Meta Author'><meta property='og:site_name' "
        f"content='Harbour News'><meta name='description' content='Meta description'>{ARTICLE_LD}"
    )
    found = page_metadata(parse_html(f"<html><head>{head}</head></html>"), BASE)
    assert (found.title, found.author) == ("Tide tables for 2027", "Ana Lopes, Ben Ng")
    assert (found.description, found.site_name) == (
        "When the water comes and goes next year.",
        "Harbour Press",
    )
    assert found.published == "2026-11-30"


@pytest.mark.parametrize(
    ("head", "field", "value"),
    [
        (
            "<meta name='author' content='Plain'><meta name='DC.creator' content='Dublin Core'>",
            "author",
            "Dublin Core",
        ),
        ("<meta name='parsely-author' content='Parsely'>", "author", "Parsely"),
        # a URL, not a name
        ("<meta property='article:author' content='https://social.test/ana'>", "author", None),
        ("<meta property='article:author' content='Ana Lopes'>", "author", "Ana Lopes"),
        (
            "<meta property='dc:title og:title' content='Both at once'><title>Element</title>",
            "title",
            "Both at once",
        ),
        (
            "<meta name='twitter:title' content='Twitter'><meta property='og:title' content='OG'>",
            "title",
            "OG",
        ),
        ("<meta name='parsely-title' content='Parsely title'>", "title", "Parsely title"),
        ("<meta name='parsely-pub-date' content='2026-02-03'>", "published", "2026-02-03"),
        (
            "<meta name='twitter:description' content='Tw'><meta name='dcterm:description' "
            "content='DC'>",
            "description",
            "DC",
        ),
    ],
)
def test_each_field_prefers_the_keys_readability_does(
    head: str, field: str, value: str | None
) -> None:
    found = page_metadata(parse_html(f"<html><head>{head}</head></html>"), BASE)
    assert getattr(found, field) == value


def test_a_byline_in_the_markup_names_the_author_when_the_metadata_does_not() -> None:
    story = "<p>" + "Tides rise and fall twice a day because the moon pulls the sea. " * 10 + "</p>"
    page = f"<article><h1>Tides</h1><p class='byline'>By Ana Lopes</p>{story}</article>"
    read = read_html(page, BASE, fmt="markdown", main_content=True)
    assert read.metadata.author == "Ana Lopes" and "Ana Lopes" not in read.content
    named = read_html(
        f"<meta name='author' content='Ben Ng'>{page}", BASE, fmt="markdown", main_content=True
    )
    assert named.metadata.author == "Ben Ng"


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("By Ana Lopes", "Ana Lopes"),
        ("By\nAna Lopes", "Ana Lopes"),
        ("Posted by: Ana Lopes | 28.11.2026", "Ana Lopes"),
        ("Ana Lopes, 28 November 2026", "Ana Lopes"),
        ("by Ana Lopes on November 28, 2026 at 11:00 AM EDT", "Ana Lopes"),
        ("Written by Ana Lopes\nEdited by Ben Ng", "Ana Lopes"),
        ("Par Sébastien Farcis", "Sébastien Farcis"),
        ("Ana Lopes - Harbour desk", "Ana Lopes"),
        ("Theresa May", "Theresa May"),
        ("Ana Lopes, MA", "Ana Lopes, MA"),
        ("Ana Lopes, Ben Ng", "Ana Lopes, Ben Ng"),
        ("Updated 28 November 2026", None),
    ],
)
def test_a_byline_gives_the_authors_name_alone(line: str, name: str | None) -> None:
    """A whole byline line had become metadata.author ("By Ana Lopes, 28 November 2026"): the name
    is its first line without its lead words, up to a separator or the date."""
    assert byline(line) == name


@pytest.mark.parametrize(
    ("declared", "published"),
    [("2026-11-30T10:00:00Z", "2026-11-30T10:00:00Z"), ("2026-12-25", "2026-11-30")],
    ids=["the meta tag says the same day, with its time", "the meta tag says another day"],
)
def test_the_articles_date_comes_before_the_meta_tags_unless_that_says_it_more_precisely(
    declared: str, published: str
) -> None:
    head = f"<meta property='article:published_time' content='{declared}'>{ARTICLE_LD}"
    assert (
        page_metadata(parse_html(f"<html><head>{head}</head></html>"), BASE).published == published
    )
