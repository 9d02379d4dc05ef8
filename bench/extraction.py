"""Main-content extraction quality and speed: netglean against trafilatura, side by side on the same
pages.

Quality is the bag-of-words F1 between the extracted text and the page's gold text (the usual
article-body measure); speed is the median time per page. Pages: bench/pages.py.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.pages import samples

_TOKEN = re.compile(r"\w+", re.UNICODE)


def f1(extracted: str, gold: str) -> tuple[float, float, float]:
    return overlap_scores(
        Counter(_TOKEN.findall(extracted.lower())), Counter(_TOKEN.findall(gold.lower()))
    )


def overlap_scores(got: Counter[Any], want: Counter[Any]) -> tuple[float, float, float]:
    """Precision, recall and F1 of counted units (words, shingles) against the reference's; nothing
    shared, or nothing extracted, scores 0 on all three."""
    overlap = sum((got & want).values())
    if not overlap:
        return 0.0, 0.0, 0.0
    precision, recall = overlap / sum(got.values()), overlap / sum(want.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def _netglean(html: str) -> str:
    from netglean.read.extract import extract
    from netglean.read.html_tree import parse_html
    from netglean.read.render import render

    return render(extract(parse_html(html), "https://example.test/", plain=True), "text")


def _trafilatura(html: str) -> str:
    import trafilatura

    return trafilatura.extract(html) or ""


EXTRACTORS: dict[str, Callable[[str], str]] = {"netglean": _netglean, "trafilatura": _trafilatura}


def run(per_layout: int = 5, repeats: int = 3) -> dict[str, Any]:
    pages = samples(per_layout)
    results: dict[str, Any] = {"pages": len(pages), "extractors": {}}
    for name, extractor in EXTRACTORS.items():
        extractor(pages[0].html)  # warm-up (imports)
        scores = [f1(extractor(page.html), page.gold) for page in pages]
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            for page in pages:
                extractor(page.html)
            times.append((time.perf_counter() - started) / len(pages))
        by_layout: dict[str, list[float]] = {}
        for page, score in zip(pages, scores, strict=True):
            by_layout.setdefault(page.name.rsplit("-", 1)[0], []).append(score[2])
        results["extractors"][name] = {
            "precision": statistics.mean(s[0] for s in scores),
            "recall": statistics.mean(s[1] for s in scores),
            "f1": statistics.mean(s[2] for s in scores),
            "ms_per_page": statistics.median(times) * 1000,
            "f1_by_layout": {
                layout: round(statistics.mean(v), 3) for layout, v in sorted(by_layout.items())
            },
        }
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
