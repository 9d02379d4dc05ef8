"""The shared parse (netglean.read.html_tree): climbing to ancestors once, measuring nested text
once, and JSON a page carries read only up to a bounded depth."""

from __future__ import annotations

import operator
import random

import pytest

from netglean.read.html_tree import (
    MAX_JSON_DEPTH,
    TextMeasure,
    document_base,
    page_json,
    parse_html,
    script_json,
    with_ancestors,
)
from tests.support.work_counting import work

TREE = "<div id=a><p id=b><span id=c>x</span></p><p id=d>y</p></div><p id=e>z</p>"


def _named(tree: object, ids: set[int]) -> list[str]:
    return sorted(
        node.attributes.get("id") or node.tag for node in tree.root.traverse() if node.mem_id in ids
    )  # type: ignore[attr-defined]


def test_with_ancestors_holds_the_nodes_and_everything_above_them() -> None:
    tree = parse_html(TREE)
    ids = with_ancestors([tree.css_first("#c"), None, tree.css_first("#d")])
    assert _named(tree, ids) == ["a", "b", "body", "c", "d", "html"]
    assert with_ancestors([]) == set()


def test_with_ancestors_climbs_a_deep_page_once() -> None:
    """Every node of a 3,000-deep nest climbs to the top: each climb stops where an earlier one has
    been."""

    def climb(n: int) -> tuple[int, int]:
        return work("<div>" * n, lambda tree: with_ancestors(tree.css("div")))

    small, _ = climb(1_500)
    large, nodes = climb(3_000)
    assert large <= 2.1 * small and large <= 4 * nodes, (small, large, nodes)


def test_text_measure_is_each_nodes_whole_text_however_the_chosen_nodes_nest() -> None:
    rng = random.Random(5)
    pieces = ["<div>", "</div>", "<p>", "</p>", "<b>", "</b>", "ab", " ", "cde", "<br>"]
    for _ in range(40):
        tree = parse_html("".join(rng.choice(pieces) for _ in range(rng.randint(1, 80))))
        elements = [
            node for node in tree.root.traverse() if node.tag and not node.tag.startswith("-")
        ]
        chosen = [node for node in elements if rng.random() < 0.5]
        measure = TextMeasure(chosen, len, operator.add, 0)
        for node in rng.sample(elements, len(elements)):
            assert measure(node) == len(node.text(deep=True)), node.html


@pytest.mark.parametrize("opening", ["[", '{"k":'])
def test_json_is_read_to_the_depth_bound_and_refused_past_it(opening: str) -> None:
    closing = "]" if opening == "[" else "}"

    def nested(depth: int) -> str:
        return opening * depth + ("1" if opening != "[" else "") + closing * depth

    assert page_json(nested(MAX_JSON_DEPTH)) is not None
    for depth in (MAX_JSON_DEPTH + 1, 100_000):  # the last is past what the stack holds
        with pytest.raises(ValueError, match=f"the JSON nests deeper than {MAX_JSON_DEPTH} levels"):
            page_json(nested(depth))


def test_brackets_inside_strings_are_text_not_depth() -> None:
    assert page_json('["' + "[{" * 500 + '"]') == ["[{" * 500]


def test_broken_json_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        page_json("{broken")


def test_script_blocks_are_read_up_to_a_length_and_broken_ones_skipped() -> None:
    tree = parse_html(
        '<script type="application/ld+json">{"a": 1}</script><script '
        'type="application/ld+json">{bad</script><script type="application/ld+json">{"b": "'
        + "x" * 50
        + '"}</script><script>{"c": 3}</script>'
    )
    selector = 'script[type="application/ld+json"]'
    assert list(script_json(tree, selector, 1_000)) == [{"a": 1}, {"b": "x" * 50}]
    # the long one, cut, no longer parses
    assert list(script_json(tree, selector, 20)) == [{"a": 1}]


@pytest.mark.parametrize(
    ("head", "base"),
    [
        ("<base href='http://site.test/sub/'>", "http://site.test/sub/"),
        # the first, against the page
        ("<base href='sub/'><base href='/other/'>", "http://site.test/dir/sub/"),
        # the first with an href
        ("<base target=_blank><base href='/sub/'>", "http://site.test/sub/"),
        # not http(s): the page's own URL
        ("<base href='javascript:alert(1)'>", "http://site.test/dir/page"),
        ("<base href='  '>", "http://site.test/dir/page"),
        ("", "http://site.test/dir/page"),
    ],
)
def test_the_document_base_is_the_heads_first_base_href_when_it_is_http(
    head: str, base: str
) -> None:
    tree = parse_html(f"<html><head>{head}</head><body><a href=x>x</a></body></html>")
    assert document_base(tree, "http://site.test/dir/page") == base
