"""Prices read as ARS reads them: amounts in minor units, a currency only when the text says
which."""

from __future__ import annotations

import pytest

from netglean.read.readability.money import Money, money_phrases, parse_money


@pytest.mark.parametrize(
    ("text", "currency", "read"),
    [
        ("$1,499.00", None, Money(149900, "USD")),
        ("1.499,00 €", None, Money(149900, "EUR")),
        ("1 499,00 €", None, Money(149900, "EUR")),
        ("1'499.00 CHF", None, Money(149900, "CHF")),
        ("49 zł", None, Money(4900, "PLN")),
        ("USD 1499", None, Money(149900, "USD")),
        ("¥4,900", None, Money(4900, "JPY")),
        ("$25", "CAD", Money(2500, "CAD")),  # the page's currency says which dollar
        ("kr 100", "SEK", Money(10000, "SEK")),
        ("1499", "EUR", Money(149900, "EUR")),  # a bare number takes the page's currency
        ("-$5.00", None, Money(-500, "USD")),
        ("$148.00 – $198.00", None, Money(14800, "USD", qualified=True)),
        ("$148 to 198", None, Money(14800, "USD", qualified=True)),
        ("From $9", None, Money(900, "USD", qualified=True)),
        ("$9+", None, Money(900, "USD", qualified=True)),
    ],
)
def test_prices_are_read(text: str, currency: str | None, read: Money) -> None:
    assert parse_money(text, currency) == read


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("20% off", None),
        ("kr 100", None),  # SEK, NOK, DKK or ISK
        ("1,500", "KWD"),  # 1500 or 1.5 in a three-decimal currency
        ("4.5 stars", "USD"),  # letters beside a bare number
        ("$5 €", None),  # two currencies
        ("$49.00 EUR", None),
        ("TRY 2 FOR 1", None),  # two numbers
        ("1-800-555-1212", "USD"),
        ("$0.001", None),  # below a cent
        ("$" + "9" * 16, None),  # past exact integers
        ("x" * 257, None),
    ],
)
def test_what_could_mean_two_things_is_no_price(text: str, currency: str | None) -> None:
    assert parse_money(text, currency) is None


def test_phrases_are_found_with_their_qualifier_and_range() -> None:
    text = "Now $149.00, was $199 - $249. Starting from EUR 39.00."
    assert money_phrases(text) == [
        ("$149.00", 4),
        ("$199 - $249", 17),
        ("Starting from EUR 39.00", 30),
    ]


def test_a_number_after_a_blank_or_opening_a_text_starts_no_phrase() -> None:
    """ARS's scanner: a digit right after a space, a separator or the text's start opens nothing, so
    a price written with its currency after ("39.00 EUR") is found only through the code."""
    assert money_phrases("39.00 EUR") == [("EUR", 6)]
    assert money_phrases("(39.00 EUR)") == [("39.00 EUR", 1)]
    assert parse_money("EUR") is None


def test_long_texts_are_searched_in_linear_time() -> None:
    assert money_phrases("1" * 200_000 + " $5") == [("$5", 200_001)]
    assert len(money_phrases("A1 " * 100_000)) == 0
