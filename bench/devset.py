"""Main content and page metadata on two development sets, netglean beside trafilatura and
readability-lxml in one run.

The sets, side by side:

- ``readability``: Mozilla Readability's test pages (``tests/corpora/readability-test-pages/``: each
  page's source, the content Readability extracts, and its metadata). The reference is Readability's
  own output, so an extractor on Readability's method (netglean's, readability-lxml) is favoured by
  construction. Pages Readability marks ``readerable: false`` (no main content; its reference is
  whatever it fell back to) are scored apart.
- ``dragnet``: Dragnet's training split (966 news and blog pages of 2012, whose gold text people
  wrote). Its data is AGPL-3.0: it is read from the team's shared corpora
  (``../shared/corpora/dragnet-train.tar.gz``, or ``--dragnet PATH``) straight out of the archive,
  never unpacked into or copied to the repository; the set is left out when the archive is not
  there. Pages whose gold holds fewer than ARTICLE_WORDS words have no article to speak of and are
  scored apart.

Text is scored with word 4-gram shingles, page by page, averaged over pages: precision and recall
count shingles shared with the reference, so a right word in the wrong place (a sidebar repeating
the headline) earns nothing. CPU is each extractor's process time per page, in this process, on the
same strings. Metadata (Readability's set only: Dragnet's has none) is compared field by field,
exactly after normalising whitespace and case (the date part alone for the published time), over the
pages whose reference gives the field. This measures; the held-out sets the project is judged on are
kept elsewhere and never read here.

``uv run python -m bench.devset`` runs it alone (``--quick``: every fifth page)."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tarfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import lxml.html

from bench.extraction import _netglean, _trafilatura, overlap_scores

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpora" / "readability-test-pages" / "pages"
"""Readability's pages, as the repository keeps them (an unmodified copy of the team's shared
corpus)."""
DRAGNET = ROOT.parent / "shared" / "corpora" / "dragnet-train.tar.gz"
"""Dragnet's training split, where the team keeps it (beside the checkout, outside the repository).
"""
PAGE_URL = "https://example.test/"
"""The URL the pages are read as: none of them is fetched, and neither corpus keeps a page's own
address."""
SHINGLE = 4
EMPTY_CHARS = 50
"""Main content shorter than this (stripped) counts as an empty page."""
ARTICLE_WORDS = 50
"""Dragnet gold shorter than this many words (a photo's caption, a date) is no article to ask for.
"""
WORST = 10
FIELDS = ("title", "byline", "lang", "excerpt", "siteName", "publishedTime")
"""The reference's metadata fields, in the order the table shows them."""

_WORD = re.compile(r"\w+", re.UNICODE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table td th tr ul".split()
)
"""Elements whose edges separate words: stripping tags must not glue the last word of one paragraph
to the next."""


@dataclass(frozen=True, slots=True)
class Page:
    name: str
    html: str
    reference: str
    """The text the page's main content should be: Readability's extraction, or Dragnet's human
    gold."""
    metadata: dict[str, Any]
    article: bool
    """Whether the page has main content to score (Readability marks it readerable; Dragnet's gold
    is long enough)."""


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
    """Readability's pages in name order (every ``every``-th of them). Sources are decoded as UTF-8,
    as the corpus saved them, and each extractor is given the same string."""
    if not corpus.is_dir():
        raise FileNotFoundError(f"the development set is not at {corpus}")
    pages = []
    for folder in sorted(path for path in corpus.iterdir() if path.is_dir())[::every]:
        reference = html_text(
            (folder / "expected.html").read_text(encoding="utf-8", errors="replace")
        )
        metadata = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))
        pages.append(
            Page(
                folder.name,
                (folder / "source.html").read_text(encoding="utf-8", errors="replace"),
                reference,
                metadata,
                bool(metadata.get("readerable")) and bool(reference.strip()),
            )
        )
    if not pages:
        raise FileNotFoundError(f"the development set at {corpus} holds no pages")
    return pages


def load_dragnet(every: int = 1, archive: Path = DRAGNET) -> list[Page]:
    """Dragnet's pages in name order (every ``every``-th), read from the archive in memory. Sources
    are decoded as a browser decodes them (netglean.read.document.decode: BOM, <meta charset>,
    UTF-8, windows-1252), the gold the same way, and each extractor is given the same string."""
    from netglean.read.document import decode

    files: dict[str, dict[str, bytes]] = {}
    with tarfile.open(archive) as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) >= 3 and parts[-3] == "pages":
                extracted = tar.extractfile(member)
                assert extracted is not None
                files.setdefault(parts[-2], {})[parts[-1]] = extracted.read()
    pages = []
    for name in sorted(files)[::every]:
        found = files[name]
        if "source.html" not in found or "gold.txt" not in found:
            continue
        gold = _gold_text(found["gold.txt"])
        html = decode(found["source.html"], None)
        pages.append(Page(name, html, gold, {}, len(_WORD.findall(gold)) >= ARTICLE_WORDS))
    if not pages:
        raise FileNotFoundError(f"Dragnet's archive at {archive} holds no pages")
    return pages


_MANGLED_BOM = "\ufffd\ufffd".encode()
"""What four of the gold files start with: a UTF-16 byte-order mark saved as two replacement
characters in UTF-8, the text after it UTF-16LE."""


def _gold_text(data: bytes) -> str:
    from netglean.read.document import decode

    if data.startswith(_MANGLED_BOM) and b"\x00" in data:
        return data[len(_MANGLED_BOM) :].decode("utf-16-le", errors="replace")
    return decode(data, None)


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Word 4-grams, counted; a text shorter than four words is one shingle of all its words."""
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE:
        return Counter([tuple(words)] if words else [])
    return Counter(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def score(extracted: str, reference: str) -> tuple[float, float, float]:
    """Precision, recall and F1 of the extracted text's shingles against the reference's. Nothing
    extracted, or nothing shared, scores 0 on all three: an empty answer is not a precise one."""
    return overlap_scores(shingles(extracted), shingles(reference))


def _readability(html: str) -> str:
    from readability import Document

    return html_text(Document(html).summary())


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "netglean": _netglean,
    "trafilatura": _trafilatura,
    "readability-lxml": _readability,
}
"""Each extractor's main content as text: netglean's reader in-process (as bench.extraction calls
it), ``trafilatura.extract`` with its defaults (text output, favor_precision off),
readability-lxml's summary stripped of its tags as the reference is."""


def _markdown(links: str) -> Callable[[str], str]:
    """netglean's markdown with its links written as ``links`` says (scrape's ``links``)."""

    def read(html: str) -> str:
        from netglean.read.extract import extract
        from netglean.read.html_tree import parse_html
        from netglean.read.render import render

        return render(extract(parse_html(html), PAGE_URL, link_style=links), "markdown")

    return read


FORMATS: dict[str, Callable[[str], str]] = {
    f"markdown {links}": _markdown(links) for links in ("inline", "references", "none")
}
"""netglean's markdown in each of its link styles, scored as written (marks, numbers and URLs
included) against the same references: what a format costs in quality, beside what it costs in
tokens (characters / 4, as the page tools' cost counts)."""


def _netglean_meta(html: str) -> dict[str, str | None]:
    """The metadata scrape returns (netglean/read/reading.py: the page's own, a byline from its
    markup when it names no author), under the reference's field names."""
    from netglean.read.reading import read_html

    found = read_html(html, PAGE_URL, fmt="text", main_content=True).metadata
    return {
        "title": found.title,
        "byline": found.author,
        "lang": found.language,
        "excerpt": found.description,
        "siteName": found.site_name,
        "publishedTime": found.published,
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
    """A field as compared: whitespace and case aside, the date alone of a time, and the name alone
    of a byline (Readability's byline is the page's whole line, "By Jane Doe\n28 November 2026": its
    name is read from it as netglean reads a byline, and so is every extractor's)."""
    if field == "byline" and value:
        from netglean.read.page_meta import byline

        value = byline(str(value)) or value
    text = " ".join(str(value).split()).lower() if value is not None else ""
    if field == "publishedTime":
        date = _DATE.search(text)
        return date.group() if date else text
    return text


def tokens(text: str) -> int:
    """What a text costs a model, as the page tools count it (cost.approx_tokens: chars / 4)."""
    return (len(text) + 3) // 4


def outputs(extractor: Callable[[str], str], pages: Sequence[Page]) -> tuple[list[str], float]:
    """Each page's main content, and the CPU seconds they took in all (after one untimed warm-up
    page)."""
    extractor(pages[0].html)  # imports, caches
    found, cpu = [], 0.0
    for page in pages:
        started = time.process_time()
        found.append(extractor(page.html))
        cpu += time.process_time() - started
    return found, cpu


def text_figures(pages: Sequence[Page], found: Sequence[str], cpu: float) -> dict[str, Any]:
    """The scores of one extractor's ``found`` text on ``pages``: over the pages with an article,
    and apart."""
    scored = [(page, out) for page, out in zip(pages, found, strict=True) if page.article]
    apart = [(page, out) for page, out in zip(pages, found, strict=True) if not page.article]
    scores = {page.name: score(out, page.reference) for page, out in scored}
    texts = {page.name: out for page, out in scored}
    empty = [name for name, out in texts.items() if len(out.strip()) < EMPTY_CHARS]
    apart_scores = [score(out, page.reference) for page, out in apart]
    return {
        "pages": len(scored),
        "precision": statistics.mean(s[0] for s in scores.values()) if scores else 0.0,
        "recall": statistics.mean(s[1] for s in scores.values()) if scores else 0.0,
        "f1": statistics.mean(s[2] for s in scores.values()) if scores else 0.0,
        "cpu_s_per_page": cpu / len(pages),
        "tokens_per_page": statistics.mean(tokens(out) for _, out in scored) if scored else 0.0,
        "empty": empty,
        "zero_overlap": [name for name in texts if not scores[name][2] and name not in empty],
        "scores": {name: [round(value, 4) for value in s] for name, s in scores.items()},
        "apart": {
            "pages": len(apart),
            "f1": statistics.mean(s[2] for s in apart_scores) if apart_scores else None,
            "empty": sum(len(out.strip()) < EMPTY_CHARS for _, out in apart),
        },
    }


def metadata_figures(
    reader: Callable[[str], dict[str, str | None]], pages: Sequence[Page]
) -> dict[str, Any]:
    found = [reader(page.html) for page in pages]
    figures: dict[str, Any] = {}
    for field in FIELDS:
        if field not in found[0]:
            continue
        judged = [
            (page, got) for page, got in zip(pages, found, strict=True) if page.metadata.get(field)
        ]
        right = sum(
            _normal(got.get(field), field) == _normal(page.metadata[field], field)
            for page, got in judged
        )
        figures[field] = {"accuracy": right / len(judged) if judged else None, "pages": len(judged)}
    return figures


def set_figures(pages: Sequence[Page]) -> dict[str, Any]:
    """Every extractor, and netglean's other formats, on one set."""
    return {
        "pages": len(pages),
        "article_pages": sum(page.article for page in pages),
        "extractors": {
            key: text_figures(pages, *outputs(read, pages)) for key, read in EXTRACTORS.items()
        },
        "formats": {
            key: text_figures(pages, *outputs(read, pages)) for key, read in FORMATS.items()
        },
    }


def sets(
    every: int = 1,
    corpus: Path = CORPUS,
    dragnet: Path | None = DRAGNET,
) -> dict[str, list[Page]]:
    """The sets to run on: Readability's, and Dragnet's when its archive is there."""
    found = {"readability": load(every, corpus)}
    if dragnet is not None and dragnet.is_file():
        found["dragnet"] = load_dragnet(every, dragnet)
    return found


def _cpu_seconds(pid: int) -> float:
    """CPU seconds a process and its living children (the readers) have used, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while it was read
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def mcp_figures(pages: Sequence[Page], batch: int = 50) -> dict[str, Any]:
    """The pages read end to end: served from 127.0.0.1 and read with batch_scrape (format text,
    main content) over stdio by a netglean server, after one untimed pass; wall seconds per page,
    and the server's CPU seconds per page (its own and its reader processes')."""
    from bench.fetch import LIFTED
    from bench.stdio import LineClient

    bodies = {f"/{index}": page.html.encode() for index, page in enumerate(pages)}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = bodies.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = [f"http://127.0.0.1:{server.server_address[1]}{path}" for path in bodies]
    client = LineClient([sys.executable, "-m", "netglean", "mcp", *LIFTED])
    try:

        def read_all() -> int:
            """The pages read; how many with an article came back empty."""
            empty = 0
            for start in range(0, len(urls), batch):
                asked = {"urls": urls[start : start + batch], "format": "text", "max_chars": 50_000}
                answer = client.call("batch_scrape", asked)["structuredContent"]
                results = answer["payload"]["results"]
                for page, entry in zip(pages[start : start + batch], results, strict=True):
                    short = not entry["ok"] or len(entry["page"]["content"].strip()) < EMPTY_CHARS
                    empty += page.article and short
            return empty

        read_all()
        cpu, started = _cpu_seconds(client.pid), time.perf_counter()
        empty = read_all()
        wall, cpu = time.perf_counter() - started, _cpu_seconds(client.pid) - cpu
    finally:
        client.close()
        server.shutdown()
    return {
        "pages": len(urls),
        "wall_s_per_page": wall / len(urls),
        "cpu_s_per_page": cpu / len(urls),
        "empty": empty,
    }


def run(
    every: int = 1,
    corpus: Path = CORPUS,
    dragnet: Path | None = DRAGNET,
    mcp: bool = False,
) -> dict[str, Any]:
    """Every extractor on the same pages of each set (every ``every``-th of each); with ``mcp``,
    netglean end to end over MCP on them too."""
    pages = sets(every, corpus, dragnet)
    figures = {
        "sets": {name: set_figures(set_pages) for name, set_pages in pages.items()},
        "metadata": {
            key: metadata_figures(read, pages["readability"]) for key, read in METADATA.items()
        },
    }
    if mcp:
        for name, set_pages in pages.items():
            figures["sets"][name]["mcp"] = mcp_figures(set_pages)
    return figures


def _row(figures: dict[str, Any]) -> str:
    f1, precision, recall = figures["f1"], figures["precision"], figures["recall"]
    cpu = figures["cpu_s_per_page"] * 1000
    return f"{f1:>7.3f}{precision:>7.3f}{recall:>7.3f}{len(figures['empty']):>6}{cpu:>8.1f}"


def show(figures: dict[str, Any]) -> None:
    found = figures["sets"]
    names = list(found)
    print(f"\nmain content (word {SHINGLE}-gram shingles, averaged over pages; CPU ms a page)")
    heads = (f"{name} ({found[name]['article_pages']})" for name in names)
    print(f"{'pages with an article':<30}" + "".join(f"{head:<36}" for head in heads))
    columns = f"{'F1':>7}{'P':>7}{'R':>7}{'empty':>6}{'CPU ms':>8} "
    print(f"{'extractor':<30}" + columns * len(names) + "  mean F1")
    rows = [(name, "extractors", name) for name in EXTRACTORS]
    rows += [(f"netglean {name}", "formats", name) for name in FORMATS]
    for label, kind, key in rows:
        chosen = [found[name][kind][key] for name in names]
        mean = statistics.mean(row["f1"] for row in chosen)
        print(f"{label:<30}" + " ".join(_row(row) for row in chosen) + f"  {mean:>7.3f}")
    for name in names:
        costs = [("text", found[name]["extractors"]["netglean"])]
        costs += [(key, row) for key, row in found[name]["formats"].items()]
        print(
            f"{name}: netglean's tokens a page (characters / 4): "
            + ", ".join(f"{key} {row['tokens_per_page']:.0f}" for key, row in costs)
        )
        if "mcp" in found[name]:
            mcp = found[name]["mcp"]
            print(
                f"{name}: end to end over MCP (batch_scrape over stdio from 127.0.0.1, text): "
                f"{mcp['wall_s_per_page'] * 1000:.1f} ms a page wall, "
                f"{mcp['cpu_s_per_page'] * 1000:.1f} ms CPU (server and readers), "
                f"{mcp['empty']} empty with an article"
            )
    for name in names:
        mine = found[name]["extractors"]["netglean"]["scores"]
        theirs = found[name]["extractors"]["trafilatura"]["scores"]
        worst = sorted(mine.items(), key=lambda item: item[1][2])[:WORST]
        print(f"{name}: the {WORST} lowest netglean pages (F1 P R; trafilatura's F1)")
        for page, (precision, recall, f1) in worst:
            print(f"  {page:<40}{f1:>7.3f}{precision:>7.3f}{recall:>7.3f}   {theirs[page][2]:.3f}")
    print(
        "metadata accuracy on Readability's pages (exact after normalising whitespace and case; "
        "date part of publishedTime)"
    )
    print(f"{'':<18}" + "".join(f"{field:>15}" for field in FIELDS))
    for name, fields in figures["metadata"].items():
        cells = (
            f"{fields[field]['accuracy']:>10.3f} ({fields[field]['pages']:>3})"
            if field in fields
            else f"{'-':>15}"
            for field in FIELDS
        )
        print(f"{name:<18}" + "".join(cells))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="every fifth page (a smoke run)")
    parser.add_argument("--dragnet", type=Path, default=DRAGNET, help="Dragnet's training archive")
    parser.add_argument("--mcp", action="store_true", help="also read every page over MCP (stdio)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON to this file")
    args = parser.parse_args()
    results = run(every=5 if args.quick else 1, dragnet=args.dragnet, mcp=args.mcp)
    show(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
