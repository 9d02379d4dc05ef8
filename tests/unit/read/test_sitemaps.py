"""Reading sitemaps (netglean.read.sitemaps): third-party XML read by a scan, never by a parser that
could expand entities."""

from __future__ import annotations

import gzip

import pytest

from netglean.core.errors import ResponseTooLarge, UnsupportedContent
from netglean.read.sitemaps import MAX_LOCATION_BYTES, read_sitemap


def test_locations_are_read_with_their_entities_whatever_the_case_of_the_tags() -> None:
    body = (
        b'<?xml version="1.0"?><urlset><url><loc>\n  https://a.example/one?x=1&amp;y=2 </loc></url>'
        b"<url><LOC>https://a.example/two</LOC></url></urlset>"
    )
    assert read_sitemap(body, 1_000_000).locations == (
        "https://a.example/one?x=1&y=2",
        "https://a.example/two",
    )
    index = read_sitemap(
        gzip.compress(b"<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap>"),
        10_000,
    )
    assert index.is_index and index.locations == ("https://a.example/s.xml",)


def test_broken_locations_are_skipped_and_the_rest_kept() -> None:
    long = b"https://a.example/" + b"x" * MAX_LOCATION_BYTES
    body = (
        b"<urlset><loc></loc><loc>" + long + b"</loc><loc>https://a.example/ok</loc>"
        b"<loc>unclosed <loc>https://a.example/reopened</loc><loc>never closed"
    )
    assert read_sitemap(body, 1_000_000).locations == (
        "https://a.example/ok",
        "https://a.example/reopened",
    )


def test_a_sitemap_of_unclosed_locations_is_read_in_one_pass() -> None:
    """A million bytes of <loc> with no end: a pattern looking ahead of each for its end took
    seconds."""
    hostile = b"<urlset>" + b"<loc>" * 200_000 + b"<loc>https://a.example/last</loc>"
    assert read_sitemap(hostile, 10_000_000).locations == ("https://a.example/last",)


def test_what_is_not_a_sitemap_or_inflates_too_far_is_refused() -> None:
    with pytest.raises(UnsupportedContent):
        read_sitemap(b"<html><body>hello</body></html>", 1_000)
    with pytest.raises(ResponseTooLarge):
        read_sitemap(gzip.compress(b"<urlset>" + b" " * 100_000), 1_000)


def test_a_corrupt_gzip_sitemap_is_unsupported_content() -> None:
    with pytest.raises(UnsupportedContent, match="a gzip sitemap is corrupt"):
        read_sitemap(b"\x1f\x8b" + b"not gzip at all", 10_000)


def test_a_sitemap_index_is_told_from_a_url_set() -> None:
    listed = read_sitemap(b"<urlset><url><loc>https://a.example/p</loc></url></urlset>", 1_000)
    assert not listed.is_index and listed.locations == ("https://a.example/p",)
    assert read_sitemap(
        b"<SITEMAPINDEX xmlns='x'><sitemap><loc>https://a.example/s</loc></sitemap>", 1_000
    ).is_index
