"""How a page's markup says to read it (netglean.read.page_signals): the feeds it announces, the
signs of a bot wall, and the groups of alike linked siblings a listing is made of."""

from __future__ import annotations

import pytest

from netglean.read.html_tree import parse_html
from netglean.read.page_signals import (
    AnnouncedFeed,
    ItemCounts,
    Segments,
    SemanticTree,
    TreeBuilt,
    blocked_surface,
    bot_wall,
    candidate_items,
    feeds,
    item_groups,
    semantic_tree,
)

LINKS = """<link rel="alternate" type="application/rss+xml; charset=utf-8" href="/rss"
  title=" All  \u202estories ">
<link rel="alternate feed" type="application/atom+xml" href="/atom">
<link rel="alternate" type="APPLICATION/FEED+JSON" href="feed.json">
<link rel="alternate" type="text/html" hreflang="fr" href="/fr">
<link rel="alternate" type="application/rss+xml" href="/rss" title="Again">
<link rel="alternates" type="application/rss+xml" href="/not-alternate">
<link rel="alternate" type="application/rss+xml">
<link rel="alternate" type="application/json" href="https://other.test/j">
<link rel="alternate" type="application/json" title="JSON Feed" href="/everything.json">
<link rel="alternate" type="application/json" href="/feeds/all.json">
<link rel="alternate" type="application/json" href="https://feedhouse.test/wp-json/wp/v2/pages/12">"""


def test_announced_feeds_once_each_absolute_and_typed() -> None:
    assert feeds(parse_html(LINKS), "https://harbour.test/news/") == [
        AnnouncedFeed("https://harbour.test/rss", "rss", "All stories"),
        AnnouncedFeed("https://harbour.test/atom", "atom"),
        AnnouncedFeed("https://harbour.test/news/feed.json", "json"),
        AnnouncedFeed("https://harbour.test/everything.json", "json", "JSON Feed"),
        AnnouncedFeed("https://harbour.test/feeds/all.json", "json"),
    ]


def test_an_api_link_typed_application_json_is_no_feed() -> None:
    """WordPress announces its REST route for every page as application/json: no title, a path that
    says no feed (even on a host whose name does)."""
    page = (
        '<link rel="alternate" type="application/json" '
        'href="https://feedhouse.test/wp-json/wp/v2/posts/7"><link rel="alternate" '
        'type="application/json" title="Feed" href="/wp-json/wp/v2/feed">'
    )
    assert feeds(parse_html(page), "https://feedhouse.test/") == []


def test_only_the_heads_announcements_count() -> None:
    page = (
        '<html><head><link rel="alternate" type="application/atom+xml" '
        'href="/atom"></head><body><p>Our feeds:</p><link rel="alternate" '
        'type="application/rss+xml" href="/in-the-body"></body></html>'
    )
    assert feeds(parse_html(page), "https://harbour.test/") == [
        AnnouncedFeed("https://harbour.test/atom", "atom")
    ]


def test_a_feeds_title_is_cut_short() -> None:
    [feed] = feeds(
        parse_html(f'<link rel=alternate type=application/rss+xml href=/f title="{"t" * 500}">'),
        "https://a.test/",
    )
    assert len(feed.title or "") == 200


@pytest.mark.parametrize(
    ("status", "headers", "markup", "signals"),
    [
        (200, {}, "<title>Just a moment...</title>", ["cloudflare-challenge"]),
        (
            403,
            {"server": "cloudflare", "cf-mitigated": "challenge"},
            "",
            ["cloudflare-403", "cloudflare-challenge-header"],
        ),
        (503, {"server": "AkamaiGHost"}, "", ["akamaighost-503"]),
        # served by a CDN is not blocked by it
        (200, {"server": "cloudflare"}, "<p>An ordinary page</p>", []),
        (
            200,
            {},
            '<div class="g-recaptcha"></div><p>Checking your browser</p>',
            ["browser-check", "captcha"],
        ),
        (200, {}, "<p>Access Denied</p>" + "x" * 100 + "Reference #18.2f", ["akamai"]),
        (200, {}, "x" * 20_001 + "g-recaptcha", []),  # only the first 20 kB are read
    ],
)
def test_bot_wall_signals(
    status: int, headers: dict[str, str], markup: str, signals: list[str]
) -> None:
    assert bot_wall(status, headers, markup) == signals


@pytest.mark.parametrize(
    ("markup", "signals"),
    [
        ("<TITLE>JUST A MOMENT...</TITLE>", ["cloudflare-challenge"]),
        ("<p>Access DENIED</p> <b>reference #9</b>", ["akamai"]),
        ("<p>Enable JavaScript and Cookies to continue</p>", ["browser-check"]),
        # Letters an ignore-case pattern takes for A to Z: the Kelvin sign, long s, dotless and
        # dotted i.
        ("<div id=\u212aeep>\u017felf: Ju\u017ft a moment...</div>", ["cloudflare-challenge"]),
        ("<div class='turnst\u0131le'></div>", ["captcha"]),
        (
            "<p>_INCAPSULA_RESOURCE</p><p>PERIMETERX</p><p>\u0130ncapsula \u0130ncident</p>",
            ["incapsula", "perimeterx"],
        ),
        # other non-ASCII text around
        ("<div class='g-recaptcha'>caf\u00e9 \u2019</div>", ["captcha"]),
        ("<p>Datadome</p>" + "\u00e9" * 19_990 + "<p>turnstile</p>", ["datadome"]),
    ],
)
def test_bot_wall_markup_is_matched_whatever_its_letter_case(
    markup: str, signals: list[str]
) -> None:
    assert bot_wall(200, {}, markup) == signals


@pytest.mark.parametrize(
    ("signals", "surface"),
    [
        ([], None),
        (
            ["cloudflare-403", "cloudflare-challenge", "cloudflare-challenge-header"],
            "cloudflare-challenge",
        ),
        (["browser-check", "captcha"], "captcha"),  # the vendor's page before the generic words
        (["akamaighost-503"], "akamaighost-503"),  # only the headers said it
    ],
)
def test_the_blocked_surface_is_the_signal_that_names_the_wall(
    signals: list[str], surface: str | None
) -> None:
    assert blocked_surface(signals) == surface


LISTING = """<nav><ul>{menu}</ul></nav><footer><ul>{menu}</ul></footer>
<main><ul class="list">
  <li class="item big"><a href="/a">Storm closes the port for two days</a></li>
  <li class="big item"><a href="/b">Ferry timetable changes</a></li>
  <li class="item big"><a href="/c">New lighthouse keeper</a></li>
  <li class="other"><a href="/d">Different</a></li>
  <li class="item big">No link in this one</li>
</ul>
<div><p><a href="/x">one</a></p><p><a href="/y">two</a></p>
     <p><a href="/z">three</a></p><p><a href="/w">four</a></p></div>
<article>a</article><article>b</article></main>""".format(menu="<li><a href=/m>m</a></li>" * 5)


def test_item_groups_are_alike_linked_siblings_outside_the_sites_chrome() -> None:
    groups = item_groups(parse_html(LISTING))
    assert [(group.tag, group.classes, len(group.nodes)) for group in groups] == [
        ("p", (), 4),  # largest first
        # classes in any order are one shape; an item without a link is no item
        ("li", ("big", "item"), 3),
    ]
    assert all(group.parent.tag in {"div", "ul"} for group in groups)


def test_a_group_needs_three_by_default() -> None:
    two = "<ul><li><a href=/a>a</a></li><li><a href=/b>b</a></li></ul>"
    assert item_groups(parse_html(two)) == [] and len(item_groups(parse_html(two), minimum=2)) == 1


def test_candidate_items_count_articles_and_the_largest_group() -> None:
    assert candidate_items(parse_html(LISTING)) == ItemCounts(articles=2, repeated_items=4)
    assert candidate_items(parse_html("<p>nothing listed</p>")) == ItemCounts(
        articles=0, repeated_items=0
    )


def test_only_http_links_other_than_the_page_itself_are_feeds() -> None:
    """A javascript: or data: link, or an empty or fragment-only href (which resolves to the page),
    is no feed."""
    page = (
        "<head><link rel=alternate type=application/rss+xml href='javascript:void(0)'>"
        "<link rel=alternate type=application/rss+xml href='data:text/xml,<x/>'>"
        "<link rel=alternate type=application/atom+xml href=''>"
        "<link rel=alternate type=application/atom+xml href='#feed'>"
        "<link rel=alternate type=application/feed+json href='https://harbour.test/news/'>"
        "<link rel=alternate type=application/rss+xml href='ftp://harbour.test/rss'>"
        "<link rel=alternate type=application/rss+xml href='/rss'></head>"
    )
    assert feeds(parse_html(page), "https://harbour.test/news/") == [
        AnnouncedFeed("https://harbour.test/rss", "rss")
    ]


def test_feeds_resolve_against_the_documents_base_url() -> None:
    page = (
        "<head><base href='http://site.test/sub/'><link rel=alternate type=application/rss+xml "
        "href='a.rss'></head>"
    )
    assert feeds(parse_html(page), "http://site.test/") == [
        AnnouncedFeed("http://site.test/sub/a.rss", "rss")
    ]


def test_the_semantic_tree_leaves_out_scripts_styles_and_embeds_with_what_they_hold() -> None:
    """html2rss's SST: the page's elements without script, style, noscript, iframe and svg (and
    their insides); its segments are the groups of alike linked siblings."""
    tree = parse_html(
        "<html><head><title>T</title><style>p{}</style><script>var a = '<a "
        "href=/s>';</script></head><body><nav><a href='/'>Home</a></nav><ul>"
        + "".join(f"<li><a href='/{n}'>Story {n}</a></li>" for n in range(3))
        + "</ul><svg><g><path/></g></svg><noscript><p>Enable it</p></noscript><iframe "
        "src='/ad'></iframe><p>Plain   words here.</p></body></html>"
    )
    groups = item_groups(tree)
    built, sst = semantic_tree(tree, groups, deepest=100)
    # the body's text, its runs of blanks as one
    text = "Home Story 0 Story 1 Story 2 Plain words here."
    assert built == TreeBuilt(elements=22, stripped=8, text_chars=len(text), links=4)
    assert sst == SemanticTree(
        node_count=14,
        degraded=False,
        segment_stats=Segments(segments=1, cards=3, largest=3),
    )


def test_a_tree_nested_past_what_netglean_reads_as_structure_is_degraded() -> None:
    deep = "<html><body>" + "<div>" * 150 + "<p>Bottom</p>" + "</div>" * 150 + "</body></html>"
    _, sst = semantic_tree(parse_html(deep), [], deepest=100)
    assert sst.degraded is True and sst.segment_stats == Segments(
        segments=0,
        cards=0,
        largest=0,
    )
    _, shallow = semantic_tree(parse_html("<p>x</p>"), [], deepest=100)
    assert shallow.degraded is False
