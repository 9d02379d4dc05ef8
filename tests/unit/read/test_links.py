"""A page's links and which of them a crawl or a map takes (netglean.read.links): links absolute,
http(s) only, once each; those a filter wants, spelled once, bounded per page with the rest
counted."""

from __future__ import annotations

import pickle
import re

from netglean.read.html_tree import parse_html
from netglean.read.links import (
    LINKS_PER_PAGE,
    ContentLink,
    LinkFilter,
    content_links,
    normal,
    page_links,
    same_site,
    take,
)


def test_page_links_are_absolute_without_fragments_once_each_in_order() -> None:
    page = (
        '<a href=" /a#top ">a</a><a href="/a">again</a><a href="JavaScript:alert(1)">j</a><a '
        'href="MAILTO:x@y">m</a><a href="tel:1">t</a><a href="data:text/html,x">d</a><a '
        'href="ftp://files.test/x">f</a><a href="">empty</a><a href="//other.test/p">other</a><a '
        'href="?q=1">query</a><a>no href</a><a href="https://h.test/a">abs</a>'
    )
    assert page_links(parse_html(page), "https://h.test/dir/page") == [
        "https://h.test/a",
        "https://other.test/p",
        "https://h.test/dir/page?q=1",
    ]


def test_page_links_resolve_against_the_documents_base_url() -> None:
    page = (
        "<head><base href='http://site.test/sub/'></head><body><a href='a.html'>a</a><a "
        "href='/b'>b</a></body>"
    )
    assert page_links(parse_html(page), "http://site.test/") == [
        "http://site.test/sub/a.html",
        "http://site.test/b",
    ]


def test_a_site_is_its_host_and_subdomains_and_a_url_has_one_spelling() -> None:
    assert same_site("https://www.h.test/a", "h.test") and same_site(
        "https://news.h.test/", "www.h.test"
    )
    assert not same_site("https://h.test.evil/", "h.test") and not same_site(
        "https://xh.test/", "h.test"
    )
    assert normal("HTTPS://H.Test?q=1#frag") == "https://h.test/?q=1"


def test_the_links_taken_are_the_wanted_ones_spelled_once_in_order() -> None:
    wanted = LinkFilter(
        "h.test",
        include=(re.compile(r"https://h\.test/news/.*"),),
        exclude=(re.compile(r".*/skip.*"),),
    )
    links = [
        "https://h.test/news/1",
        "HTTPS://H.TEST/news/1#again",
        "https://other.test/news/2",
        "https://h.test/about",
        "https://h.test/news/skip-me",
        "https://sub.h.test/news/3",
        "https://h.test/news/2",
    ]
    taken = take(links, wanted)
    assert taken.links == ["https://h.test/news/1", "https://h.test/news/2"] and taken.dropped == 0
    assert taken.of == len(links)
    anywhere = take(links, LinkFilter("h.test", stay_on_domain=False, search="NEWS".lower()))
    assert (
        "https://other.test/news/2" in anywhere.links
        and "https://h.test/about" not in anywhere.links
    )


def test_a_page_gives_at_most_its_first_wanted_links_and_the_rest_are_counted_once_each() -> None:
    links = [f"https://h.test/{n}" for n in range(LINKS_PER_PAGE + 300)]
    # unwanted, and repeats of dropped
    links += [f"https://elsewhere.test/{n}" for n in range(50)] + links[-10:]
    taken = take(links, LinkFilter("h.test"))
    assert taken.links == links[:LINKS_PER_PAGE] and taken.dropped == 300
    small = take(links, LinkFilter("h.test", most=3))
    assert small.links == links[:3] and small.dropped == LINKS_PER_PAGE + 297


def test_a_filter_crosses_to_a_reader_process_whole() -> None:
    wanted = LinkFilter("h.test", include=(re.compile("x.*"),), search="news", most=5)
    assert pickle.loads(pickle.dumps(wanted)) == wanted


def test_a_pages_content_links_are_listed_once_each_up_to_the_bound_and_the_rest_counted() -> None:
    found = [ContentLink(f"https://h.test/{n}", f"link {n}") for n in range(LINKS_PER_PAGE + 5)]
    found.insert(1, ContentLink("https://h.test/0", "the same, again"))
    listed, unlisted = content_links(found)
    assert len(listed) == LINKS_PER_PAGE and unlisted == 5
    assert (
        listed[0] == ContentLink("https://h.test/0", "the same, again")
        and listed[1].url == "https://h.test/1"
    )
    assert content_links(found[:3]) == (found[1:3], 0)
