"""The extraction-quality gate: netglean's main-content extraction scored on the project's own
offline pages, against a recorded minimum CI refuses to drop below.

The pages (tests/fixtures/quality/NAME.html) were written for this gate, each with the text a reader
wants from it (NAME.txt: the headline and the body — subheadings, paragraphs, lists, tables, code —
without navigation, bylines, date lines, pictures' captions, credits and alt text, share bars,
related links, comments, ads or footers). Layouts: a news article in heavy boilerplate, a blog post
with a sidebar, a documentation page with a long table of contents, a forum thread, a product page,
a reference page of tables, lists and code, a German and a Japanese page, a page of nondescript divs
with hashed class names; and one page for each thing the held-out human-gold pages showed main
content getting wrong: a feature full of captioned pictures, a news story under its date lines, a
blog post quoting a tweet and an Instagram post from containers named "social", an article whose
container holds a share bar, a meta line, a related-links box, a hover card, a newsletter sign-up, a
tag list and the author's bio, a news story in one-sentence paragraphs (each too short for
Readability's test of an article).

The score is bench/extraction.py's: the same extractor (the page as ``scrape`` reads it, as text)
and the same bag-of-words F1 against the gold text, so the gate and the benchmark measure one thing.

The second gate is the development set (tests/corpora/readability-test-pages, bench/devset.py): 130
real pages with Mozilla Readability's extraction and metadata, scored as that benchmark scores them.
"""

from __future__ import annotations

import re
import statistics

import pytest

from bench import devset
from bench.extraction import EXTRACTORS, f1
from netglean.read.html_tree import parse_html
from netglean.read.reading import read_html
from tests.support.paths import FIXTURES

PAGES = FIXTURES / "quality"

MINIMUM_F1 = {
    "blog": 0.98,  # 0.987: the headline sits outside the post's body and is lost
    # 1.000: captions, credits and the pictures' alt text dropped (0.848 with them, 0.944 with alt)
    "captions": 0.99,
    "clutter": 0.99,  # 1.000: a share bar, a related box, a hover card, a sign-up, the tags and
    # the author's bio inside the article's container go (0.898)
    # 1.000: the date lines above the story and the pictures' alt text are no lines of it (0.910)
    "dateline": 0.99,
    "divsoup": 0.99,  # 0.994: no <p> anywhere; the divs of inline text are scored as paragraphs
    "docs": 0.99,  # 1.000
    # 0.982: the tweet and the Instagram post the article quotes are kept (0.810 when their
    "embeds": 0.98,
    # "social" containers were dropped); the headline sits outside the post's body and is lost, as
    # in blog
    "forum": 0.85,  # 0.856: posts are divs, not paragraphs: the user cards come along
    "german": 0.99,  # 1.000 (0.934 before the byline and share links were dropped)
    "japanese": 0.94,  # 0.950: the headline sits outside the entry's body and is lost
    "news": 0.99,  # 1.000 since captions are dropped (0.972 when the photo caption was kept)
    # 0.966: the price and stock line are kept, which the gold text leaves out (0.974 when they
    "product": 0.96,
    # were dropped with the rest of the product's header): an agent reading a product page wants
    # them
    "reference": 0.99,  # 1.000
    "shortnews": 0.99,  # 1.000: a news story in one-sentence paragraphs
}
"""Each page's F1 on 2026-12-01 (after main-content selection became Readability's method), rounded
down to the hundredth below it.

Why just under today's score: extraction is deterministic — the same page gives the same text — so a
score moves only when the code does. The hundredth of room lets a change that moves a word or two
between blocks pass; losing or adding a paragraph on any layout costs more than that and fails here.
A change that raises a score should raise its minimum in the same commit, so the gate keeps what was
gained."""
MINIMUM_MEAN_F1 = 0.97
"""The mean over the pages was 0.969 on 2026-12-01, 0.981 on 2026-12-05: rounded down to the
hundredth, for the same reason."""

DEVSET_MINIMUM_F1 = 0.97
"""The mean main-content F1 over the development set's 122 pages with an article (bench.devset:
Mozilla Readability's test pages, word 4-gram shingles against Readability's own extraction) was
0.969 on 2026-12-01 and 0.978 on 2026-12-05, beside trafilatura's 0.916 and readability-lxml's 0.961
in the same run: rounded down to the hundredth, as above."""
DEVSET_MINIMUM_METADATA = {
    "title": 0.95,
    "byline": 0.88,
    "lang": 0.99,
    "siteName": 0.99,
    "publishedTime": 0.99,
}
"""Metadata accuracy on the development set on 2026-12-01 (title 0.961, language, site name and
published time 1.000), rounded down; the byline's 0.882 (as names: bench.devset reads the name out
of Readability's whole byline line, as netglean's author is a name, not the line) since 2026-12-05.
The excerpt is not held to a floor: Readability falls back to the first paragraph where a page
declares no description, and netglean reports only what the page declares."""
DEVSET_MINIMUM_READERABLE = 126
"""Pages of the 130 on which scrape's readerable flag agrees with Readability's, on 2026-12-01."""

_TOKEN = re.compile(r"\w+")


def _pages() -> list[str]:
    return sorted(path.stem for path in PAGES.glob("*.html"))


def _score(name: str) -> float:
    html = (PAGES / f"{name}.html").read_text(encoding="utf-8")
    gold = (PAGES / f"{name}.txt").read_text(encoding="utf-8")
    return f1(EXTRACTORS["netglean"](html), gold)[2]


def test_every_page_has_its_gold_text_and_a_recorded_minimum() -> None:
    assert _pages() == sorted(MINIMUM_F1)
    assert sorted(path.stem for path in PAGES.glob("*.txt")) == _pages()


@pytest.mark.parametrize("name", sorted(MINIMUM_F1))
def test_the_gold_text_is_the_pages_own(name: str) -> None:
    """A word in the gold text that the page does not hold would be a fixture written wrong, scored
    for ever."""
    page = parse_html((PAGES / f"{name}.html").read_text(encoding="utf-8")).body.text(separator=" ")
    gold = (PAGES / f"{name}.txt").read_text(encoding="utf-8")
    assert set(_TOKEN.findall(gold.lower())) <= set(_TOKEN.findall(page.lower()))


@pytest.mark.parametrize("name", sorted(MINIMUM_F1))
def test_each_layout_keeps_its_extraction_quality(name: str) -> None:
    score = _score(name)
    assert score >= MINIMUM_F1[name], (
        f"{name}: F1 {score:.3f} is below the recorded minimum {MINIMUM_F1[name]}"
    )


NO_ARTICLE = frozenset({"japanese"})
"""Pages scrape calls readerable: false. Every other page holds an article, a thread, a product's
description or a reference's text, so it must say readerable: true (a story in one-sentence
paragraphs, or divs of text, was called a guess). The Japanese article fails: its paragraphs hold
fewer characters than the same text in English."""


@pytest.mark.parametrize("name", sorted(MINIMUM_F1))
def test_each_article_is_called_an_article(name: str) -> None:
    html = (PAGES / f"{name}.html").read_text(encoding="utf-8")
    found = read_html(html, devset.PAGE_URL, fmt="text", main_content=True).readerable
    assert found is (name not in NO_ARTICLE)


def test_the_mean_extraction_quality_holds() -> None:
    scores = {name: round(_score(name), 3) for name in MINIMUM_F1}
    assert statistics.mean(scores.values()) >= MINIMUM_MEAN_F1, scores


def test_the_gate_can_fail() -> None:
    """The minimum is a real bar: losing two paragraphs, or reading the whole page instead of its
    main content, falls below it."""
    gold = (PAGES / "news.txt").read_text(encoding="utf-8")
    whole = parse_html((PAGES / "news.html").read_text(encoding="utf-8")).body.text(separator=" ")
    assert f1(gold, gold)[2] == 1.0
    assert f1("\n\n".join(gold.split("\n\n")[:-2]), gold)[2] < MINIMUM_F1["news"]
    assert f1(whole, gold)[2] < MINIMUM_F1["news"]


@pytest.fixture(scope="module")
def development_set() -> list[devset.Page]:
    return devset.load()


def test_the_development_set_keeps_its_main_content_quality(
    development_set: list[devset.Page],
) -> None:
    """The gate on real pages the extractor was not written alongside: every page with an article
    has main content, and the mean F1 holds."""
    pages = [page for page in development_set if page.article]
    outputs = {page.name: EXTRACTORS["netglean"](page.html) for page in pages}
    scores = {page.name: devset.score(outputs[page.name], page.reference)[2] for page in pages}
    empty = [name for name, text in outputs.items() if len(text.strip()) < devset.EMPTY_CHARS]
    assert len(pages) == 122 and not empty, empty
    mean = statistics.mean(scores.values())
    worst = sorted(scores.items(), key=lambda item: item[1])[:5]
    assert mean >= DEVSET_MINIMUM_F1, (
        f"mean F1 {mean:.3f} is below {DEVSET_MINIMUM_F1}; the lowest: {worst}"
    )


def test_the_development_set_keeps_its_metadata_accuracy(
    development_set: list[devset.Page],
) -> None:
    figures = devset.metadata_figures(devset.METADATA["netglean"], development_set)
    below = {
        field: figures[field]["accuracy"]
        for field, minimum in DEVSET_MINIMUM_METADATA.items()
        if figures[field]["accuracy"] < minimum
    }
    assert not below, below


def test_the_development_set_keeps_its_readerable_flags(development_set: list[devset.Page]) -> None:

    agree = sum(
        read_html(page.html, devset.PAGE_URL, fmt="text", main_content=True).readerable
        == bool(page.metadata.get("readerable"))
        for page in development_set
    )
    assert agree >= DEVSET_MINIMUM_READERABLE, agree
