"""The benchmarks still run against the tree as it is: a layout change that breaks one fails here,
not on the day someone needs its figures. Nothing is timed (timings belong in bench/); only that
each finishes with its figures."""

from __future__ import annotations

import io
import json
import re
import sys
import tarfile
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import lxml.html
import pytest
from starlette.testclient import TestClient

from bench import (
    browser,
    crawl,
    devset,
    fleet,
    frontier,
    generator,
    projects,
    readability,
    runs,
    scrapy_crawl,
    startup,
)
from bench.http import _free_port, _start, session_flood
from bench.site import PAGES, SIZE, app
from netglean.read.links import LinkFilter, normal
from netglean.read.reading import read_html


def test_the_generator_benchmark_generates_the_real_and_a_synthetic_catalog() -> None:
    figures = generator.run(repeats=1, synthetic_tools=3)
    assert figures["synthetic_tools"] == 3 and figures["repeats"] == 1
    assert figures["real_catalog_s"] > 0 and figures["synthetic_catalog_s"] > 0


def test_the_crawl_benchmark_crawls_the_site_and_its_spider_follows_what_netglean_follows() -> None:
    """netglean's side of the Scrapy comparison runs as the benchmark runs it. The spider's side is
    checked without Scrapy (the suite installs nothing): its settings bound the crawl as netglean's
    arguments do, and its XPaths, run with lxml (which Scrapy's selectors run on), give each page's
    title and body text without scripts, and the same-host links netglean's frontier takes."""
    port = _free_port()
    site = _start([sys.executable, "-m", "bench.site", str(port)], port)
    try:
        with crawl._server(crawl.WIDTH) as client:
            crawled = crawl._full(crawl._crawl(client, f"http://127.0.0.1:{port}/news/0", 20), 20)
    finally:
        site.terminate()
    assert crawled.stopped == "max_pages"
    assert all(url.startswith(f"http://127.0.0.1:{port}/") for url in crawled.urls)

    feed = "file:///tmp/pages.jsonl"
    settings = scrapy_crawl.settings(
        pages=20, max_depth=crawl.MAX_DEPTH, width=crawl.WIDTH, feed=feed
    )
    assert settings["DEPTH_LIMIT"] == crawl.MAX_DEPTH and settings["CLOSESPIDER_PAGECOUNT"] == 20
    assert (
        settings["CONCURRENT_REQUESTS"] == settings["CONCURRENT_REQUESTS_PER_DOMAIN"] == crawl.WIDTH
    )
    assert settings["DEPTH_PRIORITY"] == 1 and "Fifo" in settings["SCHEDULER_MEMORY_QUEUE"]
    assert "Fifo" in settings["SCHEDULER_DISK_QUEUE"] and not settings["ROBOTSTXT_OBEY"]
    assert (
        settings["DOWNLOAD_DELAY"] == 0
        and not settings["AUTOTHROTTLE_ENABLED"]
        and feed in settings["FEEDS"]
    )

    for family, build in PAGES.items():
        url = f"http://127.0.0.1:{port}/{family}/3"
        html = build(3).decode()
        tree = lxml.html.fromstring(html)
        item = scrapy_crawl.page_item(
            url, tree.xpath(scrapy_crawl.TITLE)[0], tree.xpath(scrapy_crawl.BODY_TEXT), 300
        )
        assert (
            item["url"] == url
            and item["title"].startswith("Article 3")
            and len(item["text"]) == 300
        )
        whole = scrapy_crawl.page_item(url, None, tree.xpath(scrapy_crawl.BODY_TEXT), len(html))[
            "text"
        ]
        assert "Copyright. All rights reserved." in whole and "var tracking" not in whole
        # the app state and ad loader in <body>
        assert "flag_0" not in whole and "createElement" not in whole
        followed = {
            normal(link)
            for link in (
                urljoin(url, href) for href in scrapy_crawl.once(tree.xpath(scrapy_crawl.HREFS))
            )
            if urlsplit(link).hostname == "127.0.0.1"  # what Scrapy's offsite filter lets through
        }
        frontier = read_html(
            html, url, fmt="markdown", main_content=True, frontier=LinkFilter("127.0.0.1")
        ).frontier
        assert followed == set(frontier)


def test_a_larger_site_links_within_its_size_and_each_news_page_is_its_own_canonical() -> None:
    """bench.runs crawls 2,000 pages on bench.site at a larger size: its links must reach the pages
    past the default 1,000 and none past its size, and each news page must declare its own canonical
    URL, or the crawl would fold pages together. Built up front (every page of every family before
    the site is returned), its pages are the ones a lazily built site serves; the default site's are
    PAGES' own."""
    size = SIZE + 100
    built = {family: build.cache_info().currsize for family, build in PAGES.items()}
    wide_site = app(size, prebuild=True)
    assert all(
        build.cache_info().currsize - built[family] == size for family, build in PAGES.items()
    )
    with TestClient(wide_site) as wide, TestClient(app()) as default:
        for family in PAGES:
            targets: set[int] = set()
            for n in (0, 7, SIZE + 42):
                body = wide.get(f"/{family}/{n}").content
                assert body == PAGES[family](n, size)
                targets |= {int(m) for m in re.findall(rb"/%s/(\d+)" % family.encode(), body)}
                if family == "news":
                    assert b"<link rel='canonical' href='/news/%d'>" % n in body
                assert default.get(f"/{family}/{n}").content == PAGES[family](n)
            assert max(targets) < size and any(m >= SIZE for m in targets)
        assert wide.get("/other/1").status_code == 404


def test_the_runs_benchmark_measures_each_of_its_four_parts_on_the_site() -> None:
    """bench.runs on the bench.site it starts (built up front), each part with the fewest calls that
    give figures."""
    figures = runs.run(
        pages=20,
        repeats=1,
        handle_pairs=2,
        memory_sizes=(5, 20),
        memory_repeats=1,
        store_visits=20,
        families=("lean",),
    )
    assert (
        figures["handle"]["crawl_handle_ms"] > 0
        and figures["throughput"]["families"]["lean"]["read"] >= 18
    )
    assert figures["memory"]["large"]["server_peak_mb"] > 0 and figures["store"]["rows_per_s"] > 0


def test_the_projects_benchmark_reads_a_dataset_and_a_listing_each_against_its_peer() -> None:
    """bench.projects at the smallest scale that has a deep page: each timed answer was checked
    against its peer's as it ran (the same keys and total; the same count of rows and items), so
    only that each figure is there."""
    figures = projects.run(rows=800, items=20, repeats=1, e2e_repeats=1)
    data, extraction, end_to_end = figures["data"], figures["extraction"], figures["end_to_end"]
    assert (
        data["first"]["page"] == 1
        and data["deep"]["page"] > 1
        and data["matches"] == data["first"]["total"] > 0
    )
    assert all(
        data[page][f"{side}_ms"] > 0
        for page in ("first", "deep")
        for side in ("tool", "store", "sql_columns")
    )
    assert (
        extraction["rows_per_s"] > 0 and extraction["items_per_s"] > 0 and extraction["items"] == 20
    )
    assert end_to_end["run_project_ms"] > 0 and end_to_end["apply_config_ms"] > 0


_ARTICLE = " ".join(
    f"Sentence {n} of the article says something about the harbour and its boats."
    for n in range(40)
)


def _devset_page(
    root: Path, name: str, source: str, expected: str, metadata: dict[str, object]
) -> None:
    folder = root / name
    folder.mkdir()
    (folder / "source.html").write_text(source)
    (folder / "expected.html").write_text(expected)
    (folder / "expected-metadata.json").write_text(json.dumps(metadata))


def _dragnet_archive(root: Path, pages: dict[str, tuple[bytes, bytes]]) -> Path:
    """A tar.gz laid out as Dragnet's training split is: dragnet-train/pages/NAME/source.html and
    gold.txt."""
    archive = root / "dragnet-train.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, (source, gold) in pages.items():
            for file, data in (("source.html", source), ("gold.txt", gold)):
                info = tarfile.TarInfo(f"dragnet-train/pages/{name}/{file}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return archive


def test_the_devset_benchmark_scores_every_extractor_and_reader_on_both_sets(
    tmp_path: Path,
) -> None:
    """Two pages laid out as the Readability corpus is: one article (scored), one page Readability
    marks not readerable (scored apart); two laid out as Dragnet's archive is: an article whose gold
    is UTF-16 behind the mangled byte-order mark four real gold files carry, and a page whose gold
    is too short to be an article. Every extractor, format and metadata reader runs on them."""
    article = (
        '<html lang="en"><head><title>Harbour news</title><meta name="author" content="Ann Lee">'
        '<meta property="og:site_name" content="The Harbour"><meta name="description" '
        'content="Boats.">'
        '<meta property="article:published_time" content="2024-05-01T10:00:00Z"></head>'
        "<body><nav><a href='/'>Home</a></nav><article><h1>Harbour "
        f"news</h1><p>{_ARTICLE}</p></article></body></html>"
    )
    meta = {
        "title": "Harbour news",
        "byline": "Ann Lee",
        "lang": "en",
        "excerpt": "Boats.",
        "siteName": "The Harbour",
    }
    readability_pages = tmp_path / "readability"
    readability_pages.mkdir()
    _devset_page(
        readability_pages,
        "001",
        article,
        f"<div><p>{_ARTICLE}</p></div>",
        {**meta, "publishedTime": "2024-05-01", "readerable": True},
    )
    _devset_page(
        readability_pages,
        "002",
        "<html><body><ul><li>a</li></ul></body></html>",
        "<p>a</p>",
        {"readerable": False},
    )
    archive = _dragnet_archive(
        tmp_path,
        {
            "1": (article.encode(), "\ufffd\ufffd".encode() + _ARTICLE.encode("utf-16-le")),
            "2": (b"<html><body><p>A photo.</p></body></html>", b"A photo."),
        },
    )
    for page in devset.load(corpus=readability_pages):
        assert page.article == (page.name == "001")
    assert [
        (page.name, page.article, page.reference) for page in devset.load_dragnet(archive=archive)
    ] == [
        ("1", True, _ARTICLE),
        ("2", False, "A photo."),
    ]

    figures = devset.run(corpus=readability_pages, dragnet=archive)
    assert set(figures["sets"]) == {"readability", "dragnet"}
    for found in figures["sets"].values():
        assert found["pages"] == 2 and found["article_pages"] == 1
        assert set(found["extractors"]) == {"netglean", "trafilatura", "readability-lxml"}
        assert set(found["formats"]) == set(devset.FORMATS)
        for row in [*found["extractors"].values(), *found["formats"].values()]:
            assert row["pages"] == 1 and row["apart"]["pages"] == 1 and row["cpu_s_per_page"] > 0
            assert 0 <= row["f1"] <= 1 and row["empty"] == [] and row["zero_overlap"] == []
    assert figures["metadata"]["netglean"] == {
        field: {"accuracy": 1.0, "pages": 1} for field in devset.FIELDS
    }
    assert set(figures["metadata"]["readability-lxml"]) == {"title"}
    assert set(
        devset.run(corpus=readability_pages, dragnet=tmp_path / "absent.tar.gz")["sets"]
    ) == {"readability"}


def test_devset_shingles_score_word_order_and_tag_stripping_keeps_blocks_apart() -> None:
    text = "one two three four five six"
    assert devset.score(text, text) == (1.0, 1.0, 1.0)
    # same words, no shared 4-gram
    assert devset.score("six five four three two one", text) == (0.0, 0.0, 0.0)
    assert devset.score("", text) == (0.0, 0.0, 0.0)
    assert devset.html_text("<p>end</p><p>start</p><script>x()</script>").split() == [
        "end",
        "start",
    ]


@pytest.mark.browser
def test_the_browser_benchmark_renders_the_app_warm_cold_and_without_the_proxy() -> None:
    """bench.browser on the bench.site it starts: every reading holds its page's content (the run
    checks), and each figure is there."""
    figures = browser.run(pages=2, repeats=1)
    assert set(figures["ms_per_page"]) == {"warm", "cold", "http", "no_proxy"}
    assert (
        figures["warm_vs_cold"] > 0
        and figures["render_vs_http"] > 0
        and figures["proxy_overhead"] > 0
    )


def test_the_readability_benchmark_scores_its_pages_and_counts_cold_scans() -> None:
    figures = readability.run(repeats=1)
    assert len(figures["pages"]) == 8 and all(row["score"] is not None for row in figures["pages"])
    cold = readability.cold_scans()
    assert (
        [row["reported"] for row in cold["scans"]]
        == [row["served"] for row in cold["scans"]]
        == [5, 6, 5]
    )


def test_the_fleet_benchmark_crawls_the_site_embedded_and_with_each_count_of_workers() -> None:
    figures = fleet.measure(pages=120, repeats=1)
    assert set(figures["medians"]) == {
        "sqlite_embedded", "postgresql_1_workers", "postgresql_2_workers", "postgresql_4_workers"
    }  # fmt: skip
    # each configuration fetched the whole site, each page once (no worker died)
    assert all(m["fetched"] == 120 for m in figures["medians"].values())
    assert figures["scaling"]["1_workers"] == 1.0


def test_the_frontier_benchmark_crawls_pages_of_many_links_and_a_long_site(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = frontier.run(hostile_pages=2, links=1_500, flat_pages=60)
    crawled = figures["hostile"]["crawl"]
    assert (
        crawled["status"] == "succeeded" and crawled["read"] == 2 and crawled["links_dropped"] > 0
    )
    assert crawled["get_version"]["calls"] > 0 and figures["hostile"]["map"]["ok"] is True
    assert figures["flat"]["status"] == "succeeded" and figures["flat"]["visited"] == 60
    assert figures["flat"]["rss_mib_at"]
    frontier.show(figures)
    assert "frontier: 2 pages of 1,500 new links each" in capsys.readouterr().out


def test_the_session_flood_opens_past_the_cap_and_a_second_address_still_gets_in() -> None:
    figures = session_flood(sessions=30, width=4, flags=("--max-client-sessions", "5"))
    assert figures["sessions"] == 30 and figures["second_address_status"] == 200
    assert figures["rss_after_mb"] > 0 and figures["sessions_per_s"] > 0


def test_the_startup_benchmark_measures_each_subject_against_its_target(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """bench.startup spawns netglean's server to its tools/list, the SDK's minimal server and a
    one-shot call (with the bytecode cache: the uncached regime only compiles more): each has its
    figure and its verdict."""
    figures = startup.run(runs=1, regimes=("cached",))
    row = figures["regimes"]["cached"]
    assert set(row["cpu_s"]) == {*startup.SERVERS, *startup.ONE_SHOTS}
    assert all(seconds > 0 for seconds in row["cpu_s"].values())
    assert isinstance(row["server_within"], bool) and isinstance(row["call_within"], bool)
    startup.show(figures)
    assert "target netglean call get_version: <= 0.60 s" in capsys.readouterr().out
