"""What a call may ask of the operator's policy (netglean.scraping.operator_limits): less is
honoured, more refused by name."""

from __future__ import annotations

import dataclasses

import pytest

from netglean.core.errors import OperatorPolicy
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.scraping.operator_limits import concurrency, robots_fetcher, size_cap


def _fetcher(**policy: object) -> Fetcher:
    return Fetcher(
        dataclasses.replace(FetchPolicy.from_settings(Settings.load(environ={})), **policy)
    )  # type: ignore[arg-type]


def test_concurrency_is_what_was_asked_up_to_the_operators_and_the_work() -> None:
    fetcher = _fetcher(global_concurrency=8)
    assert concurrency(None, fetcher, most=100) == 8 and concurrency(None, fetcher, most=3) == 3
    assert concurrency(2, fetcher, most=100) == 2 and concurrency(8, fetcher, most=100) == 8
    with pytest.raises(OperatorPolicy) as refused:
        concurrency(9, fetcher, most=100)
    assert refused.value.detail == {
        "argument": "concurrency",
        "setting": "global_concurrency",
        "env": "NETGLEAN_GLOBAL_CONCURRENCY",
        "flag": "--global-concurrency",
        "operator_value": 8,
        "asked": 9,
    }


def test_robots_txt_may_be_obeyed_by_a_call_never_ignored() -> None:
    obeying, ignoring = _fetcher(), _fetcher(obey_robots=False)
    assert robots_fetcher(obeying, None) is obeying and robots_fetcher(obeying, True) is obeying
    with pytest.raises(OperatorPolicy) as refused:
        robots_fetcher(obeying, False)
    assert (
        refused.value.detail["setting"] == "ignore_robots"
        and "NETGLEAN_IGNORE_ROBOTS" in refused.value.message
    )
    tightened = robots_fetcher(ignoring, True)
    # a view: the server's stays as set
    assert tightened.policy.obey_robots and not ignoring.policy.obey_robots
    assert robots_fetcher(ignoring, False) is ignoring


def test_a_size_cap_may_only_be_lower_than_the_operators() -> None:
    fetcher = _fetcher(max_bytes=1_000)
    assert size_cap(None, fetcher) is None and size_cap(1_000, fetcher) == 1_000
    with pytest.raises(OperatorPolicy) as refused:
        size_cap(1_001, fetcher)
    assert (
        refused.value.detail["setting"] == "fetch_max_bytes"
        and refused.value.detail["operator_value"] == 1_000
    )
