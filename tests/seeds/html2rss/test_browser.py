"""html2rss's strategies that render, as its client sees them: auto falls back from Faraday to the
browser in scrape_url and capture_config (one call), inspect_url's auto stays a cheap diagnostic and
botasaurus renders and reports xhr_capture. The listing here is built by a script from a JSON API
(tests/support/browser_site.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.seeds.html2rss.conftest import Html2rss
from tests.support.browser_site import APP
from tests.support.fixture_site import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def scripted() -> Iterator[str]:
    with serve(app=APP) as port:
        yield f"http://127.0.0.1:{port}/listing"


def test_auto_falls_back_to_the_browser_in_one_call(html2rss: Html2rss, scripted: str) -> None:
    failed, faraday = html2rss.call("scrape_url", {"url": scripted, "strategy": "faraday"})
    assert not failed and faraday["payload"]["items"] == []
    failed, auto = html2rss.call("scrape_url", {"url": scripted})
    assert (
        not failed
        and len(auto["payload"]["items"]) == 10
        and auto["payload"]["requested_strategy"] == "auto"
    )
    failed, drafted = html2rss.call("capture_config", {"url": scripted})
    assert not failed and drafted["payload"]["articles_count"] == 10
    assert (
        drafted["payload"]["selected_strategy"] == "browser"
        and drafted["next_step"] == "validate_config"
    )


def test_inspect_url_auto_is_cheap_and_botasaurus_reports_xhr_capture(
    html2rss: Html2rss, scripted: str
) -> None:
    _, cheap = html2rss.call("inspect_url", {"url": scripted})
    assert "xhr_capture" not in cheap["payload"] and cheap["payload"]["articles_count"] == 0
    _, rendered = html2rss.call("inspect_url", {"url": scripted, "strategy": "botasaurus"})
    capture = rendered["payload"]["xhr_capture"]
    assert capture["count"] == 1 and capture["candidate_articles"] == 10
    assert capture["sample_endpoints"][0]["url"].endswith("/api/items?page=1&token=***")  # redacted
    assert rendered["next_step"] == "capture_config"
