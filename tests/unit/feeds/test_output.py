"""Feed output (netglean.feeds.output): RSS escaped, dated in the channel's zone and read by
feedparser."""

from __future__ import annotations

from xml.etree import ElementTree

import feedparser
import pytest

from netglean.feeds.output import count_items, rss


def test_rss_output_is_escaped_dated_in_the_channel_zone_and_accepted_by_feedparser() -> None:
    items = [
        {
            "id": "abc",
            "title": "Tides & <currents>",
            "url": "https://example.com/t?a=1&b=2",
            "description": "<p>Hello</p>",
            "published_at": "2026-11-29T07:30:00+00:00",
            "author": "Ana",
            "categories": ["sea", "sea2"],
            "enclosure": {"url": "https://example.com/t.mp3", "type": "audio/mpeg"},
        }
    ]
    channel = {
        "url": "https://example.com/",
        "title": "Harbour",
        "time_zone": "Europe/Berlin",
        "ttl": 60,
    }
    xml = rss(channel, items)
    assert count_items(xml) == 1 and "<pubDate>Sun, 29 Nov 2026 08:30:00 +0100</pubDate>" in xml
    parsed = feedparser.parse(xml)
    assert not parsed.bozo, parsed.get("bozo_exception")
    entry = parsed.entries[0]
    assert entry.title == "Tides & <currents>" and entry.link == "https://example.com/t?a=1&b=2"
    assert (
        entry.id == "abc" and entry.enclosures[0]["type"] == "audio/mpeg" and entry.author == "Ana"
    )
    assert [t.term for t in entry.tags] == ["sea", "sea2"]


@pytest.mark.parametrize(
    ("zone", "date"),
    [
        ("America/St_Johns", "Sun, 29 Nov 2026 04:00:00 -0330"),
        ("Asia/Kathmandu", "Sun, 29 Nov 2026 13:15:00 +0545"),
        ("UTC", "Sun, 29 Nov 2026 07:30:00 +0000"),
    ],
)
def test_rss_dates_in_any_zone_and_text_xml_cannot_hold(zone: str, date: str) -> None:
    item = {
        "id": "a\x01b",
        "title": "Bell\x07 \ud800\ufffe tolls",
        "published_at": "2026-11-29T07:30:00+00:00",
    }
    xml = rss(
        {"url": "https://example.com/", "time_zone": zone}, [item], [{"href": "/s.xsl?\x01>x"}]
    )
    assert (
        f"<pubDate>{date}</pubDate>" in xml
        and "<title>Bell  tolls</title>" in xml
        and ">ab</guid>" in xml
    )
    # a stripped control cannot close the instruction
    assert '<?xml-stylesheet href="/s.xsl?&gt;x"?>' in xml
    assert not feedparser.parse(xml).bozo


def test_an_items_image_is_in_the_rss_as_media_content_and_as_its_enclosure_when_it_has_none() -> (
    None
):
    """Found as a new user would: JSON Feed kept an item's image and RSS dropped it."""
    items = [
        {"id": "a", "title": "Kettle", "image": "https://example.com/img/kettle.jpg?w=600"},
        {
            "id": "b",
            "title": "Podcast",
            "image": "https://example.com/cover",
            "enclosure": {"url": "https://example.com/e.mp3", "type": "audio/mpeg"},
        },
    ]
    parsed = feedparser.parse(rss({"url": "https://example.com/"}, items))
    assert not parsed.bozo, parsed.get("bozo_exception")
    kettle, podcast = parsed.entries
    assert kettle.media_content[0]["url"] == "https://example.com/img/kettle.jpg?w=600"
    assert [(e["href"], e["type"]) for e in kettle.enclosures] == [
        ("https://example.com/img/kettle.jpg?w=600", "image/jpeg")
    ]
    assert podcast.media_content[0]["url"] == "https://example.com/cover"
    # its own enclosure stays the one
    assert [e["type"] for e in podcast.enclosures] == ["audio/mpeg"]
    assert "xmlns:media" not in rss(
        {"url": "https://example.com/"}, [{"id": "c", "title": "No image"}]
    )


MARKUP = "Q&A <b>bold</b> ]]> \"quoted\" 'single' </category><category>injected&amp;"
"""Text that breaks XML unescaped, or closes its element and opens another."""


def test_every_text_of_the_feed_is_escaped_so_xml_reads_it_as_written() -> None:
    channel = {
        "url": "https://example.com/?a=1&b=<2>",
        "title": MARKUP,
        "description": MARKUP,
        "image": MARKUP,
    }
    item = {
        "id": MARKUP,
        "title": MARKUP,
        "url": "https://example.com/t?a=1&b=</link>",
        "description": MARKUP,
        "author": MARKUP,
        "categories": [MARKUP, "sea & sky", "<plain>"],
        "enclosure": {
            "url": 'https://example.com/e.mp3?a=1&b="2"',
            "type": "audio/mpeg",
            "length": 3,
        },
        "image": "https://example.com/i.jpg?a=1&b=<2>",
    }
    root = ElementTree.fromstring(rss(channel, [item]))
    read = root.find("channel")
    assert read is not None
    assert [read.findtext(tag) for tag in ("title", "link", "description")] == [
        MARKUP,
        channel["url"],
        MARKUP,
    ]
    assert read.findtext("image/url") == MARKUP
    (entry,) = read.findall("item")
    assert [category.text for category in entry.findall("category")] == item["categories"]
    assert [entry.findtext(tag) for tag in ("title", "link", "description", "guid")] == [
        MARKUP, item["url"], MARKUP, MARKUP,
    ]  # fmt: skip
    assert entry.findtext("{http://purl.org/dc/elements/1.1/}creator") == MARKUP
    enclosure = entry.find("enclosure")
    assert enclosure is not None and enclosure.attrib["url"] == item["enclosure"]["url"]  # type: ignore[index]
    media = entry.find("{http://search.yahoo.com/mrss/}content")
    assert media is not None and media.attrib["url"] == item["image"]
