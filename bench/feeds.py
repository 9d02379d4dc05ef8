"""Feed configs: apply_config on a 500-item listing and capture_config on a 300 KB page, against the
floor.

The floor is parsing the same page once with selectolax (netglean.read.html_tree.parse_html).
Both tools are timed on the work they do once the page is fetched (network excluded):
apply = parse, read every item by the config's selectors and post-processors, render RSS,
count its items; capture = parse, read the page's metadata, draft a config, dump it as YAML.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

import yaml

WORDS = (
    "tide moon ocean current harbour vessel coast storm wave reef salt depth chart signal beacon "
    "keel"
).split()
CONFIG: dict[str, Any] = {
    "channel": {
        "url": "https://news.example/latest",
        "title": "Latest",
        "time_zone": "Europe/Berlin",
        "ttl": 60,
    },
    "selectors": {
        "items": {"selector": "ol.stream > li.story"},
        "title": {"selector": "h3 a"},
        "url": {"selector": "h3 a", "extractor": "href"},
        "description": {
            "selector": "p.summary",
            "extractor": "html",
            "post_process": [{"name": "sanitize_html"}],
        },
        "published_at": {
            "selector": "time",
            "extractor": "attribute",
            "attribute": "datetime",
            "post_process": [{"name": "parse_time"}],
        },
        "section": {"selector": "a.section"},
        "author": {
            "selector": ".byline",
            "post_process": [{"name": "template", "string": "%{self} (%{section})"}],
        },
        "image": {"selector": "img", "extractor": "attribute", "attribute": "src"},
        "categories": ["section"],
    },
}


def listing(items: int, seed: int = 7) -> str:
    """A news listing page: a header menu, ``items`` stories with image, date, byline and summary, a
    footer."""
    rng = random.Random(seed)

    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    menu = "".join(f'<li><a href="/s/{i}">{words(1, 2)}</a></li>' for i in range(20))
    stories = "".join(
        f'<li class="story"><img src="/img/{n}.jpg" alt="{words(3, 6)}" loading="lazy"><h3><a '
        f'href="/story/{n}">{words(5, 11).capitalize()}</a></h3><a class="section" '
        f'href="/s/{n % 9}">{words(1, 1)}</a><span class="byline">By '
        f"{words(2, 2).title()}</span><time "
        f'datetime="2026-11-{1 + n % 28:02d}T{n % 24:02d}:15:00+01:00">{1 + n % 28} Nov</time><p '
        f'class="summary">{words(12, 30).capitalize()}. <em>{words(2, 4)}</em></p></li>'
        for n in range(items)
    )
    footer = "".join(f'<li><a href="/f/{i}">{words(1, 3)}</a></li>' for i in range(40))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Latest news</title>"
        "</head><body>"
        f"<header><nav><ul>{menu}</ul></nav></header><main><h1>Latest</h1><ol "
        f"class='stream'>{stories}</ol></main>"
        f"<footer><ul>{footer}</ul></footer></body></html>"
    )


def _apply(html: str) -> int:
    from netglean.feeds.items import document, read_items
    from netglean.feeds.output import count_items, rss

    items = read_items(document(html, is_json=False), CONFIG, CONFIG["channel"]["url"])
    return count_items(rss(CONFIG["channel"], items))


def _capture(html: str) -> int:
    from netglean.feeds.auto import draft_config
    from netglean.feeds.items import document
    from netglean.read.page_meta import page_metadata

    tree = document(html, is_json=False)
    metadata = page_metadata(tree, CONFIG["channel"]["url"])
    drafted = draft_config(tree, CONFIG["channel"]["url"], metadata.title, metadata.language)
    assert drafted is not None
    yaml.safe_dump(drafted[0], sort_keys=False)
    return drafted[1]


def _parse(html: str) -> None:
    """The floor. The tree must not outlive the call: one tree held while the others are timed
    changes where the C heap grows, and glibc then hands every later tree's memory back and faults
    it in again (2.4 ms against 0.9 ms a parse here), which timed a page fault storm, not the
    parser."""
    from netglean.read.html_tree import parse_html

    parse_html(html)


def _time(work: Any, html: str, repeats: int) -> tuple[float, Any]:
    result = work(html)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work(html)
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def run(repeats: int = 15) -> dict[str, Any]:
    figures: dict[str, Any] = {"repeats": repeats}
    for name, work, html in (
        ("apply_config", _apply, listing(500)),
        ("capture_config", _capture, listing(610)),
    ):
        # The work first: it warms the allocator, which a cold parse would otherwise be charged for
        # (page faults made a fresh process's parse look 2x slower than the same parse later on).
        seconds, items = _time(work, html, repeats)
        floor, _ = _time(_parse, html, repeats)
        figures[name] = {
            "page_bytes": len(html.encode()),
            "items": items,
            "ms_per_call": seconds * 1000,
            "items_per_s": items / seconds,
            "parse_floor_ms": floor * 1000,
            "ratio_to_floor": seconds / floor,
        }
    return figures


if __name__ == "__main__":
    print(run(int(sys.argv[1]) if len(sys.argv) > 1 else 15))
