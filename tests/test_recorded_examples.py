"""The docs' recorded examples are still what the tools answer: each runs again on the example site, on a fresh
server, and its envelope must equal the one in catalog/recorded/ (ids, times and durations aside), and meet the
example's expectation. The tool pages show exactly those envelopes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from markupsafe import escape

from netglean.calls.registry import Registry
from tests.support import recorded
from tests.support.contract import assert_matches_example
from tests.support.paths import PROJECT

EXAMPLES = recorded.examples()


@pytest.fixture(scope="module")
def site(registry: Registry) -> Iterator[recorded.Site]:
    with recorded.site(registry) as opened:
        yield opened


def test_every_tool_has_a_recorded_success(registry: Registry) -> None:
    succeeding = {example.tool for example in EXAMPLES if example.expect["ok"]}
    assert succeeding == set(registry.tools)


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.tool}-{e.title}" for e in EXAMPLES])
def test_a_recorded_example_answers_as_recorded(site: recorded.Site, example: recorded.Example) -> None:
    fresh = site.run(example)
    assert_matches_example(fresh["envelope"], example.expect)
    kept = recorded.recorded(example.tool).get(example.title)
    assert kept is not None, f"no recording: run {recorded.RECORD_COMMAND}"
    difference = recorded.differences(kept, fresh)
    assert not difference, f"the answer changed; if that is meant, run {recorded.RECORD_COMMAND}\n{difference}"


def test_each_tool_page_shows_its_recorded_envelope() -> None:
    for example in EXAMPLES:
        page = (PROJECT / "netglean" / "generated" / "docs" / "tools" / f"{example.tool}.html").read_text()
        envelope = recorded.recorded(example.tool)[example.title]["envelope"]
        shown = re.findall(r'<pre class="recorded">(.*?)</pre>', page, re.S)
        assert str(escape(json.dumps(envelope, indent=2, ensure_ascii=False))) in shown, example.tool


def test_volatile_values_are_masked_and_flags_are_not() -> None:
    masked = recorded.masked({"run_id": "ab12", "created": True, "updated": "2026-12-01T00:00:00Z", "done": 3})
    assert masked == {"run_id": "<str>", "created": True, "updated": "<str>", "done": 3}
