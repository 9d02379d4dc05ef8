"""The jobs reader processes run (netglean.read.jobs): each takes a Document (or bytes) by keyword
and returns plain data, decoding where it reads."""

from __future__ import annotations

import pickle
import re

import pytest

from netglean.core.errors import UnsupportedContent
from netglean.read import jobs
from netglean.read.document import Document
from netglean.read.links import LinkFilter
from netglean.read.page_meta import PageMeta
from netglean.read.page_signals import AnnouncedFeed, ItemCounts

PAGE = (
    "<html><head><title>Tides</title><link rel=alternate type=application/rss+xml "
    "href=/feed></head><body><ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li><li><a "
    "href=/c>C</a></li></ul></body></html>"
)
DOCUMENT = Document("https://harbour.test/", PAGE.encode("windows-1252"), "windows-1252")


def test_the_jobs_are_what_the_module_names() -> None:
    assert jobs.__all__ == sorted(jobs.__all__)
    for name in jobs.__all__:
        assert hasattr(jobs, name)


def test_a_diagnosis_of_an_html_page_and_of_anything_else() -> None:
    diagnosis = jobs.diagnosis(document=DOCUMENT, status=200, headers={})
    assert diagnosis.feeds == [AnnouncedFeed("https://harbour.test/feed", "rss")]
    assert diagnosis.counts == ItemCounts(articles=0, repeated_items=3)
    assert diagnosis.signals == []
    walled = jobs.diagnosis(document=DOCUMENT, status=403, headers={"cf-mitigated": "challenge"})
    assert walled.signals == walled.wall == ["cloudflare-challenge-header"]
    pdf = Document(
        "https://harbour.test/r.pdf", b"%PDF-1.7 <link rel=alternate>", None, "application/pdf"
    )
    nothing = jobs.diagnosis(document=pdf, status=200, headers={})
    assert (nothing.feeds, nothing.counts) == ([], ItemCounts(articles=0, repeated_items=0))
    assert pickle.loads(pickle.dumps(diagnosis)) == diagnosis


def test_a_diagnosis_reports_a_walls_signs_and_whether_they_make_the_page_one() -> None:
    """Scrape's rule: on a 2xx page with text of its own, signs are facts, not a wall; on a wall's
    status they are."""
    text = "<p>" + "A story of the harbour and its ferries. " * 60 + "</p>"
    page = (
        f"<html><body><noscript>Please enable JavaScript and cookies</noscript>{text}</body></html>"
    ).encode()
    listing = Document("https://harbour.test/", page, "utf-8")
    content = jobs.diagnosis(document=listing, status=200, headers={})
    assert content.signals == ["browser-check"] and content.wall == []
    assert jobs.diagnosis(document=listing, status=503, headers={}).wall == ["browser-check"]


def test_page_facts_links_and_plain_text() -> None:
    assert jobs.page_facts(document=DOCUMENT) == PageMeta(title="Tides")
    taken = jobs.page_links(
        document=DOCUMENT, wanted=LinkFilter("harbour.test", exclude=(re.compile(".*/b"),))
    )
    assert (taken.links, taken.of) == (["https://harbour.test/a", "https://harbour.test/c"], 3)
    text = Document(
        "https://harbour.test/n.txt", "notes \x1b[2J\u202eon tides".encode(), None, "text/plain"
    )
    assert jobs.plain_text(document=text) == "notes on tides"


def test_a_page_is_read_as_the_page_tools_return_it() -> None:
    reading = jobs.read_page(
        document=DOCUMENT,
        fmt="text",
        main_content=False,
        frontier=LinkFilter("harbour.test", most=2),
    )
    assert reading.content == "- A\n- B\n- C" and reading.title == "Tides"
    assert (
        reading.frontier == ["https://harbour.test/a", "https://harbour.test/b"]
        and reading.frontier_dropped == 1
    )
    assert (
        jobs.read_page(document=DOCUMENT, fmt="text", main_content=False, frontier=None).frontier
        == []
    )


def test_a_sitemap_job_raises_what_a_reader_raises() -> None:
    assert jobs.sitemap(
        body=b"<urlset><loc>https://h.test/a</loc></urlset>", max_bytes=1_000
    ).locations == ("https://h.test/a",)
    listed = b"<urlset><loc>https://h.test/a</loc><loc>https://x.test/b</loc><loc>https://h.test/c</loc></urlset>"
    taken = jobs.sitemap(body=listed, max_bytes=1_000, wanted=LinkFilter("h.test", most=1))
    assert (taken.locations, taken.listed) == (("https://h.test/a",), 3)
    with pytest.raises(UnsupportedContent):
        jobs.sitemap(body=b"<html></html>", max_bytes=1_000)
