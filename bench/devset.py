"""Main content and page metadata on the development set, netglean beside trafilatura and readability-lxml in one run.

The set is Mozilla Readability's test pages (``tests/corpora/readability-test-pages/``: each page's source, the
content Readability extracts, and its metadata), real pages the extractor was not written alongside, unlike
bench/pages.py's. Text is scored with word 4-gram shingles, page by page, averaged over pages: precision and recall
count shingles shared with the reference, so a right word in the wrong place (a sidebar repeating the headline)
earns nothing. Pages Readability marks ``readerable: false`` (no main content; its reference is whatever it fell
back to) are scored apart. Metadata is compared field by field, exactly after normalising whitespace and case (the
date part alone for the published time), over the pages whose reference gives the field. This measures; it is not
a target to tune netglean to (the corpus README says where Readability's own choices are debatable).

``uv run python -m bench.devset`` runs it alone (``--quick``: every fifth page, one timing pass).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.html

from bench.extraction import _netglean, _trafilatura, overlap_scores

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpora" / "readability-test-pages" / "pages"
"""The development set, as the repository keeps it (an unmodified copy of the team's shared corpus)."""
PAGE_URL = "https://example.test/"
"""The URL the pages are read as: none of them is fetched, and the corpus keeps no page's own address."""
SHINGLE = 4
EMPTY_CHARS = 50
"""Main content shorter than this (stripped) counts as an empty page."""
FIELDS = ("title", "byline", "lang", "excerpt", "siteName", "publishedTime")
"""The reference's metadata fields, in the order the table shows them."""

_WORD = re.compile(r"\w+", re.UNICODE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr li main "
    "nav ol p pre section table td th tr ul".split()
)
"""Elements whose edges separate words: stripping tags must not glue the last word of one paragraph to the next."""


@dataclass(frozen=True, slots=True)
class Page:
    name: str
    html: str
    reference: str
    """The text of Readability's extracted content."""
    metadata: dict[str, Any]

    @property
    def readerable(self) -> bool:
        return bool(self.metadata.get("readerable")) and bool(self.reference.strip())


def html_text(html: str) -> str:
    """The words of an HTML fragment or page, scripts and styles dropped, blocks kept apart."""
    if not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    for node in root.xpath("//script|//style|//noscript|//template"):
        node.drop_tree()
    for node in root.iter():
        if isinstance(node.tag, str) and node.tag.lower() in _BLOCKS:
            node.tail = "\n" + (node.tail or "")
            node.text = "\n" + (node.text or "")
    return str(root.text_content())


def load(every: int = 1, corpus: Path = CORPUS) -> list[Page]:
    """The corpus' pages in name order (every ``every``-th of them). Sources are decoded as UTF-8, as the
    corpus saved them, and each extractor is given the same string."""
    if not corpus.is_dir():
        raise FileNotFoundError(f"the development set is not at {corpus}")
    pages = []
    for folder in sorted(path for path in corpus.iterdir() if path.is_dir())[::every]:
        pages.append(
            Page(
                folder.name,
                (folder / "source.html").read_text(encoding="utf-8", errors="replace"),
                html_text((folder / "expected.html").read_text(encoding="utf-8", errors="replace")),
                json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8")),
            )
        )
    if not pages:
        raise FileNotFoundError(f"the development set at {corpus} holds no pages")
    return pages


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Word 4-grams, counted; a text shorter than four words is one shingle of all its words."""
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE:
        return Counter([tuple(words)] if words else [])
    return Counter(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def score(extracted: str, reference: str) -> tuple[float, float, float]:
    """Precision, recall and F1 of the extracted text's shingles against the reference's. Nothing extracted, or
    nothing shared, scores 0 on all three: an empty answer is not a precise one."""
    return overlap_scores(shingles(extracted), shingles(reference))


def _readability(html: str) -> str:
    from readability import Document

    return html_text(Document(html).summary())


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "netglean": _netglean,
    "trafilatura": _trafilatura,
    "readability-lxml": _readability,
}
"""Each extractor's main content as text: netglean's reader in-process (as bench.extraction calls it),
``trafilatura.extract`` with its defaults (text output, favor_precision off), readability-lxml's summary stripped
of its tags as the reference is."""


def _netglean_meta(html: str) -> dict[str, str | None]:
    """The metadata scrape returns (netglean/read/reading.py: the page's own, a byline from its markup when it
    names no author), under the reference's field names."""
    from netglean.read.reading import read_html

    found = read_html(html, PAGE_URL, fmt="text", main_content=True).metadata
    return {
        "title": found.get("title"),
        "byline": found.get("author"),
        "lang": found.get("language"),
        "excerpt": found.get("description"),
        "siteName": found.get("site_name"),
        "publishedTime": found.get("published"),
    }


def _trafilatura_meta(html: str) -> dict[str, str | None]:
    import trafilatura

    found = trafilatura.extract_metadata(html)
    if found is None:
        return dict.fromkeys(FIELDS)
    return {
        "title": found.title,
        "byline": found.author,
        "lang": found.language,
        "excerpt": found.description,
        "siteName": found.sitename,
        "publishedTime": found.date,
    }


def _readability_meta(html: str) -> dict[str, str | None]:
    """readability-lxml gives a title and nothing else: its other fields are not scored."""
    from readability import Document

    return {"title": Document(html).title()}


METADATA: dict[str, Callable[[str], dict[str, str | None]]] = {
    "netglean": _netglean_meta,
    "trafilatura": _trafilatura_meta,
    "readability-lxml": _readability_meta,
}


def _normal(value: Any, field: str) -> str:
    text = " ".join(str(value).split()).lower() if value is not None else ""
    if field == "publishedTime":
        date = _DATE.search(text)
        return date.group() if date else text
    return text


def _text_figures(extractor: Callable[[str], str], pages: Sequence[Page], repeats: int) -> dict[str, Any]:
    extractor(pages[0].html)  # warm-up (imports, caches)
    outputs = [extractor(page.html) for page in pages]
    passes = []
    for _ in range(repeats):
        started = time.perf_counter()
        for page in pages:
            extractor(page.html)
        passes.append(time.perf_counter() - started)
    readerable = [(page, out) for page, out in zip(pages, outputs, strict=True) if page.readerable]
    apart = [(page, out) for page, out in zip(pages, outputs, strict=True) if not page.readerable]
    scores = [score(out, page.reference) for page, out in readerable]
    empty = [page.name for page, out in readerable if len(out.strip()) < EMPTY_CHARS]
    zero = [
        page.name
        for (page, out), s in zip(readerable, scores, strict=True)
        if s[2] == 0 and len(out.strip()) >= EMPTY_CHARS
    ]
    apart_scores = [score(out, page.reference) for page, out in apart]
    return {
        "pages": len(readerable),
        "precision": statistics.mean(s[0] for s in scores) if scores else 0.0,
        "recall": statistics.mean(s[1] for s in scores) if scores else 0.0,
        "f1": statistics.mean(s[2] for s in scores) if scores else 0.0,
        "pages_per_s": len(pages) / statistics.median(passes),
        "empty": empty,
        "zero_overlap": zero,
        "not_readerable": {
            "pages": len(apart),
            "f1": statistics.mean(s[2] for s in apart_scores) if apart_scores else None,
            "empty": sum(len(out.strip()) < EMPTY_CHARS for _, out in apart),
            "mean_chars": statistics.mean(len(out.strip()) for _, out in apart) if apart else None,
        },
    }


def metadata_figures(reader: Callable[[str], dict[str, str | None]], pages: Sequence[Page]) -> dict[str, Any]:
    found = [reader(page.html) for page in pages]
    figures: dict[str, Any] = {}
    for field in FIELDS:
        if field not in found[0]:
            continue
        judged = [(page, got) for page, got in zip(pages, found, strict=True) if page.metadata.get(field)]
        right = sum(_normal(got.get(field), field) == _normal(page.metadata[field], field) for page, got in judged)
        figures[field] = {"accuracy": right / len(judged) if judged else None, "pages": len(judged)}
    return figures


def run(every: int = 1, repeats: int = 3, corpus: Path = CORPUS) -> dict[str, Any]:
    """Every extractor on the same pages (every ``every``-th of the set), timed over ``repeats`` passes."""
    pages = load(every, corpus)
    return {
        "pages": len(pages),
        "readerable_pages": sum(page.readerable for page in pages),
        "repeats": repeats,
        "extractors": {name: _text_figures(extractor, pages, repeats) for name, extractor in EXTRACTORS.items()},
        "metadata": {name: metadata_figures(reader, pages) for name, reader in METADATA.items()},
    }


def show(figures: dict[str, Any]) -> None:
    print(
        f"\ndevelopment set: {figures['pages']} Readability test pages, {figures['readerable_pages']} with main "
        f"content (word {SHINGLE}-gram shingles, per page, averaged; pages/s = median of {figures['repeats']} passes)"
    )
    print(f"{'extractor':<18}{'F1':>7}{'P':>7}{'R':>7}{'pages/s':>9}{'empty':>7}{'zero':>6}   not readerable")
    for name, row in figures["extractors"].items():
        apart = row["not_readerable"]
        aside = (
            f"{apart['pages']} pages: F1 {apart['f1']:.3f}, {apart['empty']} empty, {apart['mean_chars']:.0f} chars"
            if apart["pages"]
            else "none"
        )
        print(
            f"{name:<18}{row['f1']:>7.3f}{row['precision']:>7.3f}{row['recall']:>7.3f}{row['pages_per_s']:>9.1f}"
            f"{len(row['empty']):>7}{len(row['zero_overlap']):>6}   {aside}"
        )
    print("metadata accuracy (exact after normalising whitespace and case; date part of publishedTime)")
    print(f"{'':<18}" + "".join(f"{field:>15}" for field in FIELDS))
    for name, fields in figures["metadata"].items():
        cells = (
            f"{fields[field]['accuracy']:>10.3f} ({fields[field]['pages']:>3})" if field in fields else f"{'-':>15}"
            for field in FIELDS
        )
        print(f"{name:<18}" + "".join(cells))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="every fifth page, one timing pass (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON after the table")
    args = parser.parse_args()
    results = run(every=5 if args.quick else 1, repeats=1 if args.quick else 3)
    show(results)
    if args.json:
        print(json.dumps(results, indent=2))
