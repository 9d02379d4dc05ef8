"""Request strategies, under html2rss's names: which ones this build can serve.

html2rss's clients send ``strategy`` (``auto``, ``faraday``, ``botasaurus``, and ``browserless`` in configs) and
Crawlberg's send ``use_browser``. Until the browser layer lands, plain HTTP is the only way netglean reads a page:
``auto`` and ``faraday`` mean it, and asking for a browser is a clear ``not_available`` result, never an unknown
argument.
"""

from __future__ import annotations

from typing import Final

from netglean.core.errors import NotAvailable

PLAIN_HTTP: Final = ("auto", "faraday")
"""Strategies served by the fetcher: ``auto`` picks plain HTTP while no browser is built in."""
BROWSER: Final = ("botasaurus", "browserless")
"""Strategies that render the page in a browser."""
STRATEGIES: Final = PLAIN_HTTP + BROWSER
PAGE_STRATEGIES: Final = ("auto", "http", "browser", *PLAIN_HTTP[1:], *BROWSER)
"""What scrape takes: netglean's names (auto, http, browser) and html2rss's for the same."""


def page_strategy(strategy: str, *, use_browser: bool = False) -> str:
    """The strategy a page tool's arguments ask for, in netglean's names: auto (HTTP, rendered when the page
    needs it), http, or browser (Crawlberg's use_browser, html2rss's botasaurus and browserless)."""
    if use_browser or strategy in BROWSER or strategy == "browser":
        return "browser"
    return "http" if strategy in {"http", "faraday"} else "auto"


def require_plain_http(strategy: str = "auto", *, use_browser: bool = False) -> None:
    """Refuse a call that asks for browser rendering: this build reads pages over plain HTTP only."""
    if use_browser:
        raise NotAvailable(
            "use_browser: browser rendering is not in this build; call again without use_browser to read the page "
            "over plain HTTP",
            detail={"argument": "use_browser"},
        )
    if strategy not in PLAIN_HTTP:
        raise NotAvailable(
            f"strategy {strategy!r} renders the page in a browser, which is not in this build; call again with "
            "strategy 'auto' (plain HTTP)",
            detail={"argument": "strategy", "available": list(PLAIN_HTTP)},
        )
