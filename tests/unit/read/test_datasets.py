"""An extract project's datasets read off a page (netglean/read/datasets.py): items by selector,
typed properties, transformations in order, parent datasets, and keys for incremental runs."""

from __future__ import annotations

import pytest

from netglean.read.datasets import MAX_ROWS, _number, extract
from netglean.read.html_tree import parse_html

PAGE = """<html><head><base href="https://shop.test/c/"></head><body>
<ul class="products">
  <li class="product" data-sku="A1"><h2> Kettle  <small>steel</small></h2>
    <span class="price">1.234,50 €</span>
    <a href="kettle">more</a><img src="/img/k.png">
    <time datetime="2026-11-29T07:30:00+01:00">29 Nov</time>
    <ul class="reviews"><li class="review">Great</li><li class="review">Loud</li></ul></li>
  <li class="product" data-sku="B2"><h2>Teapot</h2><span class="price">$1,099.00</span>
    <a href="/teapot">more</a>
    <time>November 3, 2026</time></li>
  <li class="product"><h2>Mug</h2><span class="price">free</span></li>
</ul></body></html>"""

PRODUCTS = {
    "name": "products",
    "item_selector": "li.product",
    "key": "sku",
    "properties": [
        {"key": "sku", "type": "attribute", "attribute": "data-sku"},
        {"key": "title", "type": "text", "selector": "h2"},
        {"key": "price", "type": "number", "selector": ".price"},
        {"key": "link", "type": "url", "selector": "a"},
        {"key": "image", "type": "url", "selector": "img"},
        {"key": "when", "type": "date", "selector": "time"},
        {"key": "shout", "type": "text", "selector": "h2",
         "transformations": [
             {"name": "regex_replace", "pattern": "/\\s*steel/i", "replacement": ""},
             {"name": "uppercase"},
         ]},
    ],
}  # fmt: skip
REVIEWS = {
    "name": "reviews",
    "parent": "products",
    "item_selector": "li.review",
    "properties": [{"key": "text", "type": "text"}],
}


def test_each_type_reads_what_it_says() -> None:
    rows = extract(parse_html(PAGE), "https://shop.test/c/page", [PRODUCTS])
    first, second, third = (data for _, _, data in rows)
    assert first == {
        "sku": "A1",
        "title": "Kettle steel",
        "price": 1234.5,
        "link": "https://shop.test/c/kettle",
        "image": "https://shop.test/img/k.png",
        "when": "2026-11-29T07:30:00+01:00",
        "shout": "KETTLE",
    }
    assert second["price"] == 1099.0 and second["link"] == "https://shop.test/teapot"
    assert second["when"] == "2026-11-03T00:00:00+00:00" and second["image"] is None
    assert third["price"] is None and third["sku"] is None and third["link"] is None


def test_rows_are_keyed_by_their_declared_property_else_by_their_content() -> None:
    keys = [key for _, key, _ in extract(parse_html(PAGE), "https://shop.test/", [PRODUCTS])]
    assert keys[:2] == ["A1", "B2"] and keys[2].startswith("sha1:")
    again = [key for _, key, _ in extract(parse_html(PAGE), "https://shop.test/", [PRODUCTS])]
    assert again == keys  # the same page gives the same keys: a re-run writes nothing new


def test_a_child_dataset_is_read_inside_each_parent_item_and_names_it() -> None:
    rows = extract(parse_html(PAGE), "https://shop.test/", [REVIEWS, PRODUCTS])  # given child first
    reviews = [data for name, _, data in rows if name == "reviews"]
    assert reviews == [{"text": "Great", "_parent": "A1"}, {"text": "Loud", "_parent": "A1"}]


def test_a_dataset_takes_at_most_max_rows_from_a_page() -> None:
    page = "<ul>" + "<li>x</li>" * (MAX_ROWS + 5) + "</ul>"
    rows = extract(
        parse_html(page),
        "https://a.test/",
        [{"name": "d", "item_selector": "li", "properties": []}],
    )
    assert len(rows) == MAX_ROWS


@pytest.mark.parametrize(
    ("text", "number"),
    [("1.234,50 €", 1234.5), ("$1,099.00", 1099.0), ("1,234", 1234), ("12.5 kg", 12.5),
     ("-3 °C", -3), ("1 234 567", 1234567), ("none", None)],
)  # fmt: skip
def test_numbers_are_read_in_either_convention(text: str, number: float | None) -> None:
    assert _number(text) == number
