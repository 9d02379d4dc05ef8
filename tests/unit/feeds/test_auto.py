"""Drafting a config from a page (netglean.feeds.auto)."""

from __future__ import annotations

from netglean.feeds.auto import draft_config
from netglean.feeds.items import document, read_items


def test_a_drafted_title_finds_one_element_in_each_item() -> None:
    rows = "".join(
        f'<li class="row"><a class="story" href="/s/{n}">Story {n}</a> <a href="/s/{n}#c">{n} comments</a></li>'
        for n in range(4)
    )
    tree = document(f"<html><body><ul class='rows'>{rows}</ul></body></html>", is_json=False)
    drafted = draft_config(tree, "https://example.com/", None, None)
    assert drafted is not None
    config, count = drafted
    assert count == 4 and config["selectors"]["title"]["selector"] == "a.story[href]"
    items = read_items(document(tree.html, is_json=False), config, "https://example.com/")
    assert [item["title"] for item in items] == [f"Story {n}" for n in range(4)]
