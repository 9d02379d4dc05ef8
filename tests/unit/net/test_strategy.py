"""Request strategies: the plain-HTTP ones pass, a browser one is a clear not_available naming its argument."""

from __future__ import annotations

import pytest

from netglean.core.errors import NotAvailable
from netglean.net.strategy import BROWSER, PLAIN_HTTP, require_plain_http


@pytest.mark.parametrize("strategy", PLAIN_HTTP)
def test_plain_http_strategies_are_served(strategy: str) -> None:
    require_plain_http(strategy)


@pytest.mark.parametrize("strategy", BROWSER)
def test_a_browser_strategy_is_not_available_and_says_what_to_send(strategy: str) -> None:
    with pytest.raises(NotAvailable) as refused:
        require_plain_http(strategy)
    assert refused.value.detail == {"argument": "strategy", "available": ["auto", "faraday"]}
    assert "strategy 'auto'" in refused.value.message


def test_use_browser_is_not_available_whatever_the_strategy() -> None:
    with pytest.raises(NotAvailable) as refused:
        require_plain_http("auto", use_browser=True)
    assert refused.value.detail == {"argument": "use_browser"}
