"""Request strategies: every name a client sends (netglean's, html2rss's, Crawlberg's use_browser)
means one of auto, http or browser."""

from __future__ import annotations

import pytest

from netglean.net.strategy import PAGE_STRATEGIES, page_strategy


@pytest.mark.parametrize(
    ("strategy", "meant"),
    [("auto", "auto"), ("http", "http"), ("faraday", "http"), ("browser", "browser"),
     ("botasaurus", "browser"), ("browserless", "browser")],
)  # fmt: skip
def test_each_name_means_one_of_netgleans_three(strategy: str, meant: str) -> None:
    assert strategy in PAGE_STRATEGIES
    assert page_strategy(strategy) == meant


@pytest.mark.parametrize("strategy", PAGE_STRATEGIES)
def test_use_browser_renders_whatever_the_strategy(strategy: str) -> None:
    assert page_strategy(strategy, use_browser=True) == "browser"
