"""Where things are: the checkout, and the tests' own data (offline fixtures, the config corpus)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
PROJECT = TESTS.parent
"""The checkout: catalog/, netglean/, README.md."""
FIXTURES = TESTS / "fixtures"
"""Pages and feed configs written for the tests."""
CORPUS = TESTS / "corpora" / "html2rss-configs"
"""The 56 real html2rss configs (a copy of ../shared/corpora's, MIT)."""
