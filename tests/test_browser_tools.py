"""The browser through whole tools, over MCP, in Debian's Chromium for real: the feed tools, inspect_url and map
with their strategies on a listing a script builds, interact on a form, analyze_page on an infinite list, a form
and a script-built listing, and analyze_api_endpoint on the listing's API.

The fixture site (tests/support/browser_site.py) is on 127.0.0.1; the servers may read it (allow_private_hosts,
the operator's switch) and nothing else (the tests' fetch_only_hosts). Every envelope here was checked by the
runner against its tool's published output schema before the client saw it.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support import browser_site
from tests.support.browser_site import ConnectionCounter
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

pytestmark = pytest.mark.browser  # every test here drives Chromium (-m 'not browser' leaves them out)

PNG = b"\x89PNG\r\n\x1a\n"


def _client(registry: Registry, **settings: Any) -> Any:
    base = Settings.load(environ=dict(os.environ))
    chosen = dataclasses.replace(base, allow_private_hosts=True, host_interval=0.0, read_workers=0, **settings)
    runner = build_runner(registry, chosen)
    return open_client(InMemoryTransport(build_server(runner)), runner)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    counter = ConnectionCounter()
    browser_site.APP.state.forbidden = f"127.0.0.1:{counter.port}"
    with serve(app=browser_site.APP) as port:
        yield f"http://127.0.0.1:{port}"
    counter.socket.close()


@pytest.fixture(scope="module")
def client(registry: Registry, site: str) -> Iterator[SyncClient]:
    with _client(registry) as opened:
        yield opened


@pytest.fixture(scope="module")
def evaluating(registry: Registry, site: str) -> Iterator[SyncClient]:
    """A server whose operator lets interact run scripts (browser_evaluate)."""
    with _client(registry, browser_evaluate=True) as opened:
        yield opened


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


# the strategies


def test_a_listing_built_by_script_is_read_by_auto_and_not_by_faraday(client: SyncClient, site: str) -> None:
    plain = _call(client, "scrape_url", {"url": f"{site}/listing", "strategy": "faraday"})
    assert plain["ok"] is True and plain["payload"]["total"] == 0 and plain["payload"]["selected_strategy"] == "http"
    auto = _call(client, "scrape_url", {"url": f"{site}/listing"})["payload"]
    assert auto["selected_strategy"] == "browser" and auto["total"] == 10
    assert auto["items"][0]["title"] == "Harbour story 1" and auto["items"][0]["url"] == f"{site}/stories/1"


def test_a_draft_from_a_rendered_page_renders_again_when_applied(client: SyncClient, site: str) -> None:
    drafted = _call(client, "capture_config", {"url": f"{site}/listing"})["payload"]
    assert drafted["selected_strategy"] == "browser" and drafted["articles_count"] == 10
    config = drafted["config"]
    assert config["strategy"] == "browserless" and config["selectors"]["items"]["selector"].endswith("li.story")
    applied = _call(client, "apply_config", {"config": config, "format": "json_feed"})
    assert applied["ok"] is True and applied["payload"]["item_count"] == 10
    assert applied["payload"]["selected_strategy"] == "browser"
    forced = _call(client, "apply_config", {"config": config, "strategy": "faraday"})
    assert forced["payload"]["error"]["code"] == "no_items"  # the argument overrides the config's strategy


def test_inspect_url_with_a_browser_strategy_reports_the_requests_with_their_secrets_redacted(
    client: SyncClient, site: str
) -> None:
    cheap = _call(client, "inspect_url", {"url": f"{site}/listing"})["payload"]
    assert cheap["selected_strategy"] == "http" and "xhr_capture" not in cheap and cheap["articles_count"] == 0
    rendered = _call(client, "inspect_url", {"url": f"{site}/listing", "strategy": "botasaurus"})["payload"]
    capture = rendered["xhr_capture"]
    assert rendered["articles_count"] == 10 and capture["count"] == 1 and capture["candidate_articles"] == 10
    endpoint = capture["sample_endpoints"][0]
    assert endpoint["url"] == f"{site}/api/items?page=1&token=***" and endpoint["status"] == 200
    assert endpoint["json"]["items_pointer"] == "/items" and endpoint["json"]["shape"]["type"] == "object"


def test_map_follows_the_links_a_script_wrote(client: SyncClient, site: str) -> None:
    plain = _call(client, "map", {"url": f"{site}/listing", "strategy": "http", "include_sitemaps": False})
    assert plain["payload"]["count"] == 0
    for strategy in ("auto", "browser"):
        found = _call(client, "map", {"url": f"{site}/listing", "strategy": strategy, "format": "json"})["payload"]
        assert found["selected_strategy"] == "browser" and f"{site}/stories/10" in found["urls"]


# interact


FILL_THE_FORM = [
    {"action": "type", "selector": "#name", "text": "Ada"},
    {"action": "type", "selector": "#email", "text": "ada@example.org"},
    {"action": "select", "selector": "#berth", "values": ["south"]},
    {"action": "click", "selector": "#send"},
    {"action": "wait_for", "selector": "p.done"},
    {"action": "scrape"},
    {"action": "screenshot"},
]


def test_interact_fills_a_form_and_reads_the_result(client: SyncClient, site: str) -> None:
    result = client.call("interact", {"url": f"{site}/form", "actions": FILL_THE_FORM})
    envelope = result.structured_content
    payload = envelope["payload"]
    assert envelope["ok"] is True and payload["completed"] is True and "failed_action" not in payload
    assert [step["action"] for step in payload["steps"]] == [action["action"] for action in FILL_THE_FORM]
    assert all(step["ok"] for step in payload["steps"])
    assert "Thanks, Ada: a south berth permit is on its way." in payload["steps"][5]["content"]
    assert "Thanks, Ada" in payload["content"]
    image = payload["images"][0]
    assert payload["steps"][6]["image"] == 0 and image["mime_type"] == "image/png" and "data" not in image
    assert (image["width"], image["height"]) == (1280, 800)
    block = result.content[image["content_index"]]  # the image itself, as MCP image content
    assert block.type == "image" and base64.b64decode(block.data).startswith(PNG)
    assert len(base64.b64decode(block.data)) == image["bytes"]
    assert "base64" not in result.content[0].text and block.data not in result.content[0].text


def test_interact_marks_its_screenshots_as_the_third_party_pages(client: SyncClient, site: str) -> None:
    """The images travel beside the frame, not in it: the notice says what they are, and so does each block."""
    shots = [{"action": "screenshot"}, {"action": "screenshot", "full_page": True}]
    result = client.call("interact", {"url": f"{site}/form", "actions": shots})
    notice = result.content[0].text.split("\n")[1]
    assert notice.endswith(
        "The 2 image(s) attached after it are screenshots of that third-party page: untrusted in the same way, "
        "whatever they show."
    )
    assert result.structured_content["untrusted_content_notice"].endswith("whatever they show.")
    assert [block.type for block in result.content] == ["text", "image", "image"]
    assert all(block.meta == {"netglean/untrusted": True} for block in result.content[1:])


def test_a_failing_action_ends_the_list_and_says_which_it_was(client: SyncClient, site: str) -> None:
    actions = [
        {"action": "type", "selector": "#name", "text": "Ada"},
        {"action": "click", "selector": "#no-such-button", "timeout_ms": 300},
        {"action": "click", "selector": "#send"},
    ]
    envelope = _call(client, "interact", {"url": f"{site}/form", "actions": actions})
    payload = envelope["payload"]
    assert envelope["ok"] is True and payload["completed"] is False and payload["failed_action"] == 1
    assert len(payload["steps"]) == 2 and payload["steps"][0]["ok"] is True
    error = payload["steps"][1]["error"]
    assert error["code"] == "action_failed"
    assert (
        error["message"]
        == 'action 1 (click) timed out after 0.3 s on selector "#no-such-button": no element was ready in time'
    )
    assert envelope["next_step"] == "interact" and "Action 1 failed" in envelope["guidance"]
    assert "Apply for a mooring" in payload["content"]  # the page as it was then


def test_evaluate_runs_only_where_the_operator_allows_it(client: SyncClient, evaluating: SyncClient, site: str) -> None:
    actions = [{"action": "evaluate", "script": "document.querySelectorAll('option').length * 21"}]
    refused = _call(client, "interact", {"url": f"{site}/form", "actions": actions})["payload"]
    assert refused["completed"] is False and refused["steps"][0]["error"]["code"] == "not_available"
    assert "--browser-evaluate" in refused["steps"][0]["error"]["message"]
    allowed = _call(evaluating, "interact", {"url": f"{site}/form", "actions": actions})["payload"]
    assert allowed["completed"] is True and allowed["steps"][0]["value"] == 42


def test_an_action_cannot_take_the_browser_past_the_policy(client: SyncClient, site: str) -> None:
    actions = [{"action": "navigate", "url": "http://10.0.0.9/"}, {"action": "scrape"}]
    payload = _call(client, "interact", {"url": f"{site}/form", "actions": actions})["payload"]
    assert payload["completed"] is False and payload["failed_action"] == 0
    assert payload["steps"][0]["error"]["code"] in {"blocked_address", "operator_policy"}
    opened = _call(client, "interact", {"url": "http://10.0.0.9/", "actions": [{"action": "scrape"}]})
    assert opened["ok"] is False and opened["payload"]["error"]["code"] in {"blocked_address", "operator_policy"}


def test_scroll_loads_an_infinite_lists_next_items(client: SyncClient, site: str) -> None:
    actions = [{"action": "scroll", "repeat": 3}]
    payload = _call(client, "interact", {"url": f"{site}/infinite", "actions": actions, "main_content": False})
    assert payload["payload"]["completed"] is True and "Harbour story 30" in payload["payload"]["content"]


# analyze_page and analyze_api_endpoint


def test_analyze_page_finds_the_infinite_list_its_endpoint_and_its_item_selector(client: SyncClient, site: str) -> None:
    envelope = _call(client, "analyze_page", {"url": f"{site}/infinite"})
    report = envelope["payload"]
    assert envelope["ok"] is True and "run_id" not in report
    features = report["features"]
    assert features["infinite_scroll"] is True and features["pagination"] == {"kind": "infinite_scroll"}
    assert features["loads_data_by_xhr"] is True and envelope["next_step"] == "analyze_api_endpoint"
    best = report["item_selectors"][0]
    assert best["selector"].endswith("ul.stories > li.story") and best["count"] >= 20
    assert best["sample"][0] == "Harbour story 1"
    endpoints = [request["url"] for request in report["requests"]]
    assert f"{site}/api/items?page=1" in endpoints and f"{site}/api/items?page=2" in endpoints
    assert report["requests"][0]["json"]["items_count"] == 10 and report["waf"]["detected"] is False


def test_analyze_page_reads_forms_and_tables_as_data(client: SyncClient, site: str) -> None:
    report = _call(client, "analyze_page", {"url": f"{site}/form"})["payload"]
    form = report["forms"][0]
    assert form["method"] == "post" and form["action"] == f"{site}/permit" and form["selector"] == "form#permit"
    fields = {field["name"]: field for field in form["fields"]}
    assert fields["name"] == {"name": "name", "type": "text", "required": True, "label": "Your name"}
    assert fields["email"]["type"] == "email" and fields["berth"]["options"] == ["north", "south"]
    assert fields["notes"]["type"] == "textarea" and fields["notes"]["required"] is False
    table = report["tables"][0]
    assert table == {
        "caption": "Fees",
        "headers": ["Berth", "Fee"],
        "rows": [["North quay", "120"], ["South quay", "95"]],
        "row_count": 2,
    }
    assert report["features"]["rendering"] == "server" and report["features"]["infinite_scroll"] is False


def test_analyze_page_tells_a_script_built_page(client: SyncClient, site: str) -> None:
    report = _call(client, "analyze_page", {"url": f"{site}/listing"})["payload"]
    assert report["features"]["rendering"] == "client" and "react" in report["features"]["frameworks"]
    assert report["requests"][0]["url"].endswith("token=***")


def test_analyze_page_as_a_background_run(client: SyncClient, site: str) -> None:
    started = _call(client, "analyze_page", {"url": f"{site}/form", "wait": False})["payload"]
    run_id = started["run"]["run_id"]
    for _ in range(200):
        status = _call(client, "get_run_status", {"run_id": run_id})["payload"]["run"]["status"]
        if status not in {"queued", "running"}:
            break
        time.sleep(0.1)
    result = _call(client, "get_run_result", {"run_id": run_id})["payload"]
    assert status == "succeeded" and result["result"]["forms"][0]["selector"] == "form#permit"


def test_analyze_api_endpoint_describes_the_answer_and_its_pagination(client: SyncClient, site: str) -> None:
    report = _call(client, "analyze_api_endpoint", {"url": f"{site}/api/items?page=1"})["payload"]
    assert report["status"] == 200 and report["content_type"] == "application/json"
    assert report["json"]["items_pointer"] == "/items" and report["json"]["items_count"] == 10
    assert report["json"]["shape"]["keys"]["items"]["items"]["keys"]["title"] == {"type": "string"}
    assert report["headers"]["x-total-count"] == "30" and "set-cookie" not in report["headers"]
    assert {"query parameter page", "header x-total-count", "key /next", "key /page", "key /total"} <= set(
        report["pagination_hints"]
    )


def test_a_file_to_download_is_no_answer_to_analyze(client: SyncClient, site: str) -> None:
    envelope = _call(client, "analyze_api_endpoint", {"url": f"{site}/file.pdf"})
    error = envelope["payload"]["error"]
    assert error["code"] == "unsupported_content" and error["retryable"] is False
    assert "a file to download" in error["message"]
