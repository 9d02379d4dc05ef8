"""An extract project's start URLs (netglean.projects.extract.start_urls): every combination of its
variables' values, counted before any is built, so no argument can make a run build more than it
reads."""

from __future__ import annotations

import pytest

from netglean.core.errors import InvalidArguments, InvalidProject
from netglean.projects.extract import MAX_URLS, start_urls


def test_each_value_of_each_variable_gives_a_url_in_order_each_once() -> None:
    urls = start_urls(
        ["https://shop.test/{kind}/{page}", "https://shop.test/{kind}/1"],
        {"kind": ["mugs", "jugs"], "page": "1\n 2 "},
    )
    assert urls == [
        "https://shop.test/mugs/1",
        "https://shop.test/mugs/2",
        "https://shop.test/jugs/1",
        "https://shop.test/jugs/2",
    ]


def test_combinations_up_to_the_cap_are_built() -> None:
    pages = "\n".join(str(n) for n in range(MAX_URLS // 2))
    urls = start_urls(["https://shop.test/{side}/{page}"], {"side": ["a", "b"], "page": pages})
    assert len(urls) == MAX_URLS


def test_combinations_past_the_cap_are_refused_naming_the_variables_without_building_one() -> None:
    """Five variables of 1,000 values each make 10**15 URLs: building them (what a run did before
    counting) would take the whole machine's memory; counting them takes none."""
    lines = "\n".join(f"v{n}" for n in range(1_000))
    names = ["a", "b", "c", "d", "e"]
    url = "https://shop.test/" + "/".join("{" + name + "}" for name in names)
    with pytest.raises(InvalidArguments) as refused:
        start_urls([url], {**dict.fromkeys(names, lines), "unused": lines})
    error = refused.value
    assert error.code == "invalid_arguments" and error.detail["argument"] == "variables"
    assert error.detail["combinations"] == 1_000**5 and error.detail["most"] == MAX_URLS
    # the variables that multiply, not "unused"
    assert error.detail["values"] == dict.fromkeys(names, 1_000)
    assert "1,000,000,000,000,000 combinations" in error.message
    assert "1000 'a' x 1000 'b' x 1000 'c' x 1000 'd' x 1000 'e'" in error.message


def test_urls_past_the_cap_summed_over_start_urls_are_refused() -> None:
    half = [str(n) for n in range(MAX_URLS // 2 + 1)]
    with pytest.raises(InvalidArguments, match="1,002 combinations"):
        start_urls(["https://a.test/{n}", "https://b.test/{n}"], {"n": half})


def test_a_variable_neither_the_call_nor_the_project_gives_is_named_first_as_the_url_has_it() -> (
    None
):
    with pytest.raises(InvalidProject) as missing:
        start_urls(["https://shop.test/{zone}/{area}"], {})
    assert "'zone'" in missing.value.message and missing.value.detail["missing"] == ["zone", "area"]
