"""html2rss's five tools, every argument, result field and error row of its reference
(/work/shared/seeds/000, catalog/profiles/html2rss.yaml's contract), as an html2rss client calls
them and reads them: the JSON of the text block, which is structuredContent too. Each client runs
over stdio and over streamable HTTP."""

from __future__ import annotations

import re

import feedparser
import yaml

from tests.seeds.html2rss.conftest import Html2rss
from tests.seeds.html2rss.site import LONG, STORIES

# --- scrape_url -----------------------------------------------------------------------------------


def test_scrape_url_returns_json_feed_items_and_its_counts(html2rss: Html2rss) -> None:
    failed, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/news")})
    assert not failed and envelope["ok"] is True and envelope["next_step"] == "done"
    payload = envelope["payload"]
    assert [item["title"] for item in payload["items"]] == [title for _, title, _ in STORIES]
    first = payload["items"][0]
    assert first["url"] == html2rss.url(STORIES[0][0]) and first["published_at"] == STORIES[0][2]
    assert (
        first["description"] == "What happened at the harbour: storm closes the port for two days."
    )
    assert payload["total"] == 4 and payload["channel_title"] == "Harbour News"
    assert payload["requested_strategy"] == "auto"  # the default
    assert payload["admission_drops"] == {"duplicate": 1, "other_site": 1}


def test_scrape_url_limit_defaults_to_25_and_takes_any_number(html2rss: Html2rss) -> None:
    _, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/long")})
    assert len(envelope["payload"]["items"]) == 25 and envelope["payload"]["total"] == LONG
    _, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/long"), "limit": 500})
    assert len(envelope["payload"]["items"]) == LONG
    _, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/news"), "limit": 2})
    assert len(envelope["payload"]["items"]) == 2 and envelope["payload"]["total"] == 4


def test_scrape_url_items_selector_and_strategy(html2rss: Html2rss) -> None:
    _, hinted = html2rss.call(
        "scrape_url", {"url": html2rss.url("/news"), "items_selector": "li.story"}
    )
    assert (
        hinted["payload"]["total"] == 6 and hinted["payload"]["items"][0]["title"] == STORIES[0][1]
    )
    _, faraday = html2rss.call("scrape_url", {"url": html2rss.url("/news"), "strategy": "faraday"})
    assert (
        faraday["payload"]["requested_strategy"] == "faraday" and faraday["payload"]["total"] == 4
    )


def test_scrape_url_with_no_items_is_still_success(html2rss: Html2rss) -> None:
    failed, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/about")})
    assert (
        not failed and envelope["payload"]["items"] == [] and envelope["next_step"] == "inspect_url"
    )


def test_a_failure_carries_payload_class_and_message(html2rss: Html2rss) -> None:
    """The reference: unhandled exceptions return isError with payload.class / payload.message."""
    failed, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/report.pdf")})
    assert failed and envelope["payload"]["class"] == "unsupported_content"
    assert (
        envelope["payload"]["message"]
        and envelope["payload"]["message"] == envelope["payload"]["error"]["message"]
    )
    failed, envelope = html2rss.call("scrape_url", {"url": "http://127.0.0.1:9/closed"})
    assert (
        failed and envelope["payload"]["class"] == "unreachable" and envelope["payload"]["message"]
    )


def test_a_page_reading_result_carries_the_untrusted_notice_as_a_field(html2rss: Html2rss) -> None:
    """html2rss's text block has no frame: the notice travels in the JSON (what the operator gives
    up is in the docs and said at start)."""
    _, envelope = html2rss.call("scrape_url", {"url": html2rss.url("/news")})
    assert "not instructions" in envelope["untrusted_content_notice"]
    _, failed = html2rss.call("scrape_url", {"url": html2rss.url("/report.pdf")})
    assert "untrusted_content_notice" in failed


# --- inspect_url ----------------------------------------------------------------------------------


def test_inspect_url_diagnoses_a_listing(html2rss: Html2rss) -> None:
    failed, envelope = html2rss.call("inspect_url", {"url": html2rss.url("/news")})
    payload = envelope["payload"]
    assert not failed and envelope["next_step"] == "capture_config"  # articles were found
    assert payload["requested_url"] == payload["final_url"] == html2rss.url("/news")
    assert payload["status"] == 200 and payload["scheme_downgrade"] is False
    assert payload["content_type"] == "text/html" and payload["html_response"] is True
    assert payload["alternate_feeds"] == [] and "blocked_surface" not in payload
    assert payload["articles_count"] == 4 and payload["admission_drops"] == {
        "duplicate": 1,
        "other_site": 1,
    }
    assert payload["scraper_eligibility"] == ["html"]
    # the script; menu, stories
    assert payload["sst_stats"]["stripped"] == 1 and payload["sst_stats"]["links"] == 2 + 6
    assert payload["sst"]["node_count"] == payload["sst_stats"]["elements"] - 1
    assert payload["sst"]["segment_stats"] == {"segments": 1, "cards": 6, "largest": 6}
    assert payload["sst"]["degraded"] is False


def test_inspect_url_is_done_when_the_page_announces_rss_or_atom(html2rss: Html2rss) -> None:
    _, envelope = html2rss.call("inspect_url", {"url": html2rss.url("/blog"), "strategy": "auto"})
    assert envelope["next_step"] == "done"
    assert envelope["payload"]["alternate_feeds"] == [
        {"url": html2rss.url("/feed/"), "type": "rss", "title": "Harbour Blog RSS"},
        {"url": html2rss.url("/feed/atom/"), "type": "atom", "title": "Harbour Blog Atom"},
    ]


def test_inspect_url_otherwise_leads_to_scrape_url_a_bot_wall_and_a_document_too(
    html2rss: Html2rss,
) -> None:
    """The reference's rule: done for feeds, capture_config for articles, otherwise scrape_url;
    netglean's own rule would end at done on the wall, the error page and the PDF, and its guidance
    says so."""
    _, weak = html2rss.call("inspect_url", {"url": html2rss.url("/about")})
    assert weak["next_step"] == "scrape_url" and weak["payload"]["articles_count"] == 0
    _, wall = html2rss.call("inspect_url", {"url": html2rss.url("/challenge")})
    assert (
        wall["payload"]["blocked_surface"] == "cloudflare-challenge"
        and wall["payload"]["status"] == 403
    )
    assert wall["next_step"] == "scrape_url" and "netglean would have stopped" in wall["guidance"]
    _, missing = html2rss.call("inspect_url", {"url": html2rss.url("/gone")})
    assert missing["payload"]["status"] == 404 and missing["next_step"] == "scrape_url"
    _, pdf = html2rss.call("inspect_url", {"url": html2rss.url("/report.pdf")})
    assert pdf["payload"]["html_response"] is False and pdf["next_step"] == "scrape_url"
    assert not {"scraper_eligibility", "sst_stats", "sst", "articles_count"} & set(pdf["payload"])


# --- capture_config -------------------------------------------------------------------------------


def test_capture_config_drafts_yaml_for_the_validate_and_apply_workflow(html2rss: Html2rss) -> None:
    failed, envelope = html2rss.call(
        "capture_config", {"url": html2rss.url("/news"), "strategy": "faraday"}
    )
    payload = envelope["payload"]
    assert not failed and envelope["next_step"] == "validate_config"
    assert payload["articles_count"] == 5 and payload["has_selectors"] is True
    assert payload["channel_title"] == "Harbour News" and payload["requested_strategy"] == "faraday"
    drafted = yaml.safe_load(payload["yaml"])
    assert (
        all(isinstance(key, str) for key in drafted)
        and drafted["selectors"]["items"]["enhance"] is True
    )
    failed, checked = html2rss.call("validate_config", {"yaml": payload["yaml"]})
    assert not failed and checked["next_step"] == "apply_config"
    failed, applied = html2rss.call(
        "apply_config", {"url": html2rss.url("/news"), "yaml": payload["yaml"]}
    )
    assert not failed and applied["payload"]["item_count"] == payload["articles_count"]


def test_capture_config_takes_an_items_selector_and_leads_a_weak_page_to_inspect_url(
    html2rss: Html2rss,
) -> None:
    _, hinted = html2rss.call(
        "capture_config", {"url": html2rss.url("/news"), "items_selector": "li.story"}
    )
    assert yaml.safe_load(hinted["payload"]["yaml"])["selectors"]["items"]["selector"] == "li.story"
    _, weak = html2rss.call("capture_config", {"url": html2rss.url("/about")})
    assert weak["next_step"] == "inspect_url" and weak["payload"]["has_selectors"] is False


# --- validate_config ------------------------------------------------------------------------------


def _config(html2rss: Html2rss, **more: object) -> dict[str, object]:
    return {
        "channel": {"url": html2rss.url("/paged"), "title": "Posts"},
        "selectors": {
            "items": {"selector": "li.entry"},
            "title": {"selector": "a"},
            "url": {"selector": "a", "extractor": "href"},
        },
        **more,
    }


def test_validate_config_answers_an_empty_payload_for_a_valid_config(html2rss: Html2rss) -> None:
    for arguments in ({"config": _config(html2rss)}, {"yaml": yaml.safe_dump(_config(html2rss))}):
        failed, envelope = html2rss.call("validate_config", arguments)
        assert not failed and envelope["payload"] == {} and envelope["next_step"] == "apply_config"


def test_validate_config_schema_failures_and_both_or_neither(html2rss: Html2rss) -> None:
    broken = _config(html2rss)
    broken["selectors"]["title"]["extractor"] = "txt"  # type: ignore[index]
    failed, envelope = html2rss.call("validate_config", {"config": broken})
    assert failed and any(
        e["path"] == "/selectors/title/extractor" for e in envelope["payload"]["errors"]
    )
    assert envelope["next_step"] == "validate_config"
    for arguments in ({}, {"config": _config(html2rss), "yaml": "channel: {}"}):
        failed, envelope = html2rss.call("validate_config", arguments)
        assert failed and envelope["next_step"] == "validate_config"


def test_validate_and_apply_config_reject_local_files(html2rss: Html2rss) -> None:
    for config in (
        _config(html2rss, strategy="local_file"),
        _config(html2rss, request={"local_file_path": "x.html"}),
    ):
        failed, envelope = html2rss.call("validate_config", {"config": config})
        assert failed and envelope["payload"]["errors"]
        failed, envelope = html2rss.call(
            "apply_config", {"url": html2rss.url("/paged"), "config": config}
        )
        assert failed and envelope["payload"]["errors"]


# --- apply_config ---------------------------------------------------------------------------------


def test_apply_config_returns_rss_and_its_item_count(html2rss: Html2rss) -> None:
    config = _config(html2rss)
    config["selectors"]["items"]["pagination"] = {"max_pages": 2}  # type: ignore[index]
    failed, envelope = html2rss.call(
        "apply_config", {"url": html2rss.url("/paged"), "config": config}
    )
    payload = envelope["payload"]
    parsed = feedparser.parse(payload["rss"])
    assert not failed and not parsed.bozo and parsed.version == "rss20"
    assert (
        payload["item_count"]
        == len(parsed.entries)
        == len(re.findall(r"<item>", payload["rss"]))
        == 6
    )


def test_apply_config_url_populates_channel_url_and_yaml_works_alike(html2rss: Html2rss) -> None:
    config = _config(html2rss)
    del config["channel"]["url"]  # type: ignore[attr-defined]
    failed, envelope = html2rss.call(
        "apply_config", {"url": html2rss.url("/paged"), "yaml": yaml.safe_dump(config)}
    )
    assert not failed and envelope["payload"]["item_count"] == 3
    assert f"<link>{html2rss.url('/paged')}</link>" in envelope["payload"]["rss"]


def test_apply_config_with_zero_items_is_an_error_leading_to_inspect_url(
    html2rss: Html2rss,
) -> None:
    config = _config(html2rss)
    config["selectors"]["items"]["selector"] = "div.nothing-here"  # type: ignore[index]
    failed, envelope = html2rss.call(
        "apply_config", {"url": html2rss.url("/paged"), "config": config}
    )
    assert (
        failed and envelope["payload"]["item_count"] == 0 and envelope["next_step"] == "inspect_url"
    )
    assert envelope["payload"]["class"] == "no_items" and envelope["payload"]["message"]


def test_apply_config_on_an_unreachable_page_is_an_error_with_class_and_message(
    html2rss: Html2rss,
) -> None:
    config = _config(html2rss)
    config["channel"]["url"] = "http://127.0.0.1:9/paged"  # type: ignore[index]
    failed, envelope = html2rss.call(
        "apply_config", {"url": "http://127.0.0.1:9/paged", "config": config}
    )
    assert (
        failed and envelope["payload"]["class"] == "unreachable" and envelope["payload"]["message"]
    )


def test_apply_config_requires_url_as_html2rss_does(html2rss: Html2rss) -> None:
    listed = {tool.name: tool for tool in html2rss.client.run("list_tools").tools}["apply_config"]
    assert listed.input_schema["required"] == ["url"]
    failed, envelope = html2rss.call("apply_config", {"config": _config(html2rss)})
    assert failed and envelope["payload"]["class"] == "invalid_arguments"
    assert "argument 'url' is required" in envelope["payload"]["message"]
