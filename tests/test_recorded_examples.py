"""The docs' recorded examples are still what the tools answer: each runs again on the example site,
on a fresh server, and its envelope must equal the one in catalog/recorded/ (ids, times and
durations aside), and meet the example's expectation. The tool pages show exactly those
envelopes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from markupsafe import escape

from netglean.calls.registry import Registry, load_registry
from tests.support import recorded
from tests.support.contract import NEVER_SUCCEEDS, assert_matches_example
from tests.support.paths import PROJECT

EXAMPLES = recorded.examples()
BROWSER_FAMILY = "netglean.handlers.browser:"
"""The tools of the browser family (catalog/tools/browser/) always open a page in Chromium."""


DESCRIBES_CHROMIUM = {"engine_info"}
"""Tools whose recorded answer says whether the server has Chromium: recorded where it has."""


def _marked(example: recorded.Example) -> Any:
    uses_browser = load_registry().tools[example.tool].handler.startswith(BROWSER_FAMILY)
    uses_browser = uses_browser or example.tool in DESCRIBES_CHROMIUM
    return pytest.param(
        example,
        marks=[pytest.mark.browser] if uses_browser else [],
        id=f"{example.tool}-{example.title}",
    )


@pytest.fixture(scope="module")
def site(registry: Registry) -> Iterator[recorded.Site]:
    with recorded.site(registry) as opened:
        yield opened


def test_every_tool_has_a_recorded_success(registry: Registry) -> None:
    succeeding = {example.tool for example in EXAMPLES if example.expect["ok"]}
    assert succeeding == set(registry.tools) - NEVER_SUCCEEDS


@pytest.mark.parametrize("example", [_marked(example) for example in EXAMPLES])
def test_a_recorded_example_answers_as_recorded(
    site: recorded.Site, example: recorded.Example
) -> None:
    fresh = site.run(example)
    assert_matches_example(fresh["envelope"], example.expect)
    kept = recorded.recorded(example.tool).get(example.title)
    assert kept is not None, f"no recording: run {recorded.RECORD_COMMAND}"
    difference = recorded.differences(kept, fresh)
    assert not difference, (
        f"the answer changed; if that is meant, run {recorded.RECORD_COMMAND}\n{difference}"
    )


def test_each_tool_page_shows_its_recorded_envelope() -> None:
    for example in EXAMPLES:
        page = (
            PROJECT / "netglean" / "generated" / "docs" / "tools" / f"{example.tool}.html"
        ).read_text()
        envelope = recorded.recorded(example.tool)[example.title]["envelope"]
        shown = re.findall(r'<pre class="recorded">(.*?)</pre>', page, re.S)
        assert str(escape(json.dumps(envelope, indent=2, ensure_ascii=False))) in shown, (
            example.tool
        )


def test_only_what_changes_from_run_to_run_is_masked() -> None:
    """Ids the store drew, times and durations; not a count or a flag of the same name, nor an id or
    a time the site itself gave (a check's id, a tide's time, an item's published_at)."""
    answer = {
        "run_id": "ab12",
        "created": True,
        "updated": "2026-12-01T00:00:00Z",
        "datasets": {"items": {"updated": 3}},
        "steps": [{"ms": 40}],
        "checks": [{"id": "llms_txt"}],
        "tides": [{"time": "2026-12-01T04:12:00Z"}],
        "data": {"id": "b581", "published_at": "2026-11-28T09:30:00+00:00"},
    }
    assert recorded.masked(answer) == {
        **answer,
        "run_id": "<str>",
        "updated": "<str>",
        "steps": [{"ms": "<int>"}],
    }


def test_a_reference_to_nothing_names_the_call_it_points_into(site: recorded.Site) -> None:
    example = recorded.Example(
        "get_run_status",
        "a reference to nothing",
        ({"tool": "get_version", "arguments": {}},),
        {"run_id": {"given": 0, "pointer": "/payload/run_id"}},
        {"ok": True, "next_step": "done"},
    )
    with pytest.raises(
        recorded.Unfilled, match="given call 0 answered ok, with nothing at /payload/run_id"
    ):
        site.run(example)
