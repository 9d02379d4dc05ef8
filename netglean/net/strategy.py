"""Request strategies, in netglean's names and html2rss's.

html2rss's clients send ``strategy`` (``auto``, ``faraday``, ``botasaurus``, and ``browserless`` in
configs) and Crawlberg's send ``use_browser``; netglean's own names are ``auto`` (plain HTTP,
rendered in the browser when the page needs it), ``http`` and ``browser``. ``page_strategy`` maps
them all onto netglean's three.
"""

from __future__ import annotations

from typing import Final

PLAIN_HTTP: Final = ("auto", "faraday")
"""html2rss's strategies that start with the fetcher (auto renders only when it must)."""
BROWSER: Final = ("botasaurus", "browserless")
"""html2rss's strategies that render the page in a browser."""
STRATEGIES: Final = PLAIN_HTTP + BROWSER
PAGE_STRATEGIES: Final = ("auto", "http", "browser", *PLAIN_HTTP[1:], *BROWSER)
"""What the page tools take: netglean's names (auto, http, browser) and html2rss's for the same."""


def page_strategy(strategy: str, *, use_browser: bool = False) -> str:
    """The strategy a tool's arguments (or a feed config) ask for, in netglean's names: auto (HTTP,
    rendered when the page needs it), http, or browser (Crawlberg's use_browser, html2rss's
    botasaurus and browserless)."""
    if use_browser or strategy in BROWSER or strategy == "browser":
        return "browser"
    return "http" if strategy in {"http", "faraday"} else "auto"
