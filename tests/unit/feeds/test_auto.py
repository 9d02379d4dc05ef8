"""Drafting a config from a page (netglean.feeds.auto)."""

from __future__ import annotations

from collections import Counter

from netglean.feeds.auto import auto_items, auto_source_config, draft_config, hinted_config
from netglean.feeds.items import document, read_items


def test_a_drafted_title_finds_one_element_in_each_item() -> None:
    rows = "".join(
        f'<li class="row"><a class="story" href="/s/{n}">Story {n}</a> <a href="/s/{n}#c">{n} '
        "comments</a></li>"
        for n in range(4)
    )
    tree = document(f"<html><body><ul class='rows'>{rows}</ul></body></html>", is_json=False)
    drafted = draft_config(tree, "https://example.com/", None, None)
    assert drafted is not None
    config, count = drafted
    assert count == 4 and config["selectors"]["title"]["selector"] == "a.story[href]"
    items = read_items(document(tree.html, is_json=False), config, "https://example.com/")
    assert [item["title"] for item in items] == [f"Story {n}" for n in range(4)]


def test_detection_counts_each_candidate_it_leaves_out_by_why() -> None:
    """html2rss's cleanup drop reasons, counted as auto_items drops candidates (admission_drops)."""
    page = """<html><head><script type="application/ld+json">
    {"@type": "ItemList", "itemListElement": [
      {"@type": "ListItem", "item": {"name": "Tides this week", "url": "/tides"}},
      {"@type": "ListItem", "item": {"url": "/untitled"}},
      {"@type": "ListItem", "item": {"name": "The page itself", "url": "/news/"}},
      {"@type": "ListItem", "item": {"name": "Somewhere else entirely", "url": "https://other.test/x"}},
      {"@type": "ListItem", "item": {"name": "Short", "url": "/short"}},
      {"@type": "ListItem", "item": {"name": "Tides this week", "url": "/tides"}}
    ]}</script></head>
    <body><article><h2>No link in this one</h2><p>Words.</p></article></body></html>"""
    drops: Counter[str] = Counter()
    items = auto_items(document(page, is_json=False), "https://example.com/news/", drops=drops)
    assert [item["title"] for item in items] == ["Tides this week"]
    assert drops == {
        "no_title": 1,
        "same_page": 1,
        "other_site": 1,
        "short_title": 1,
        "duplicate": 1,
        "no_link": 1,
    }


def test_a_hinted_draft_reads_its_fields_off_the_hints_items() -> None:
    rows = "".join(
        f'<div class="card"><h3>Card {n} title</h3><a href="/c/{n}">more</a><p>About card '
        f"{n}.</p></div>"
        for n in range(3)
    )
    tree = document(f"<html><body><section>{rows}</section></body></html>", is_json=False)
    config = hinted_config(tree, "https://example.com/", "div.card", "Cards", None)
    assert config["channel"] == {
        "url": "https://example.com/",
        "time_zone": "UTC",
        "ttl": 360,
        "title": "Cards",
    }
    selectors = config["selectors"]
    assert selectors["items"] == {"selector": "div.card", "enhance": True}
    assert selectors["title"]["selector"] == "h3" and selectors["url"]["selector"] == "a[href]"
    assert selectors["description"]["selector"] == "p"
    # a hint that finds nothing is still the items selector of a draft (enhance fills the rest if it
    # ever matches)
    nothing = hinted_config(tree, "https://example.com/", "li.missing", None, "en")
    assert nothing["selectors"] == {"items": {"selector": "li.missing", "enhance": True}}
    assert nothing["channel"]["language"] == "en"


def test_a_page_without_a_repeated_structure_drafts_to_detection() -> None:
    assert auto_source_config("https://example.com/about", None, None) == {
        "channel": {"url": "https://example.com/about", "time_zone": "UTC", "ttl": 360},
        "auto_source": {},
    }


def test_detected_items_resolve_against_the_documents_base_url() -> None:
    stories = "".join(
        f"<article><h2><a href='story-{n}'>The harbour story {n}</a></h2><p>Words</p></article>"
        for n in range(3)
    )
    page = (
        f"<html><head><base href='https://example.com/news/'></head><body>{stories}</body></html>"
    )
    found = auto_items(document(page, is_json=False), "https://example.com/front")
    assert [item["url"] for item in found] == [
        f"https://example.com/news/story-{n}" for n in range(3)
    ]


def test_an_author_inside_a_byline_and_a_plain_tag_list_are_read_and_drafted() -> None:
    """Found on the docs' example site: a byline holding the name and the date ("By <span
    class=author>Mara Quinn</span>, <time>…") gave the author "Mara Quinn , 2026-11-28", and a tag
    list without links (<ul class=tags><li>) gave no categories."""
    story = (
        '<article class="story"><h2><a href="/news/{0}">Story number {0} of the week</a></h2>'
        '<p class="byline">By <span class="author">Writer {0}</span>, <time '
        'datetime="2026-11-2{0}">2{0} Nov</time></p>'
        '<p class="summary">What happened, in a sentence.</p><ul '
        'class="tags"><li>Harbour</li><li>Tag {0}</li></ul>'
        "</article>"
    )
    page = (
        "<html><body><main>" + "".join(story.format(n) for n in range(3)) + "</main></body></html>"
    )
    items = auto_items(document(page, is_json=False), "https://example.com/news/")
    assert [(item["author"], item["categories"]) for item in items] == [
        (f"Writer {n}", ["Harbour", f"Tag {n}"]) for n in range(3)
    ]
    drafted = draft_config(document(page, is_json=False), "https://example.com/news/", None, None)
    assert drafted is not None
    selectors = drafted[0]["selectors"]
    assert (selectors["author"]["selector"], selectors["tags"]["selector"]) == (
        "span.author",
        ".tags li",
    )
    read = read_items(document(page, is_json=False), drafted[0], "https://example.com/news/")
    assert [(item["author"], item["categories"]) for item in read] == [
        (f"Writer {n}", ["Harbour", f"Tag {n}"]) for n in range(3)
    ]
    # no class of its own
    itemprop = page.replace('<span class="author">', '<span itemprop="author">')
    drafted = draft_config(
        document(itemprop, is_json=False), "https://example.com/news/", None, None
    )
    assert drafted is not None
    read = read_items(document(itemprop, is_json=False), drafted[0], "https://example.com/news/")
    assert [item["author"] for item in read] == [f"Writer {n}" for n in range(3)]


def test_a_drafted_author_drops_the_bylines_lead_word() -> None:
    """Found by a first-time user: a draft from "<p class=byline>By Reporter 1</p>" fed "By Reporter
    1" as the author, where scrape_url gave "Reporter 1"."""
    story = (
        '<article class="story"><h2><a href="/s/{0}">A story told at length {0}</a></h2>'
        '<p class="byline">By Reporter {0}</p></article>'
    )
    page = (
        "<html><body><main>" + "".join(story.format(n) for n in range(3)) + "</main></body></html>"
    )
    drafted = draft_config(document(page, is_json=False), "https://example.com/news/", None, None)
    assert drafted is not None
    read = read_items(document(page, is_json=False), drafted[0], "https://example.com/news/")
    assert [item["author"] for item in read] == [f"Reporter {n}" for n in range(3)]


def test_detection_names_the_scrapers_that_found_candidates() -> None:
    """html2rss's scraper eligibility (inspect_url): the detectors with candidates, in the order
    they are trusted, whether or not cleanup keeps what they found."""
    posts = ", ".join(f'{{"title": "Tide table {n}", "url": "/tides/{n}"}}' for n in range(3))
    state = f'{{"props": {{"pageProps": {{"posts": [{posts}]}}}}}}'
    articles = "".join(
        f"<article><h2><a href='/a/{n}'>Article number {n}</a></h2></article>" for n in range(2)
    )
    rows = "".join(f"<li><a href='/r/{n}'>Listed story {n}</a></li>" for n in range(3))
    script = f'<script id="__NEXT_DATA__" type="application/json">{state}</script>'
    page = f"<html><head>{script}</head><body>{articles}<ul>{rows}</ul>"
    found_by: list[str] = []
    auto_items(
        document(page + "</body></html>", is_json=False), "https://example.com/", found_by=found_by
    )
    assert found_by == ["json_state", "semantic_html", "html"]
    nothing: list[str] = []
    auto_items(
        document("<p>Just words.</p>", is_json=False), "https://example.com/", found_by=nothing
    )
    assert nothing == []
