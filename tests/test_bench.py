"""The benchmarks still run against the tree as it is: a layout change that breaks one fails here, not on the day
someone needs its figures. Nothing is timed (timings belong in bench/); only that each finishes with its figures."""

from __future__ import annotations

import sys
from urllib.parse import urljoin, urlsplit

import lxml.html

from bench import crawl, generator, scrapy_crawl
from bench.http import _free_port, _start
from bench.site import PAGES
from netglean.read.reading import read_html
from netglean.sites.urls import normal, same_site


def test_the_generator_benchmark_generates_the_real_and_a_synthetic_catalog() -> None:
    figures = generator.run(repeats=1, synthetic_tools=3)
    assert figures["synthetic_tools"] == 3 and figures["repeats"] == 1
    assert figures["real_catalog_s"] > 0 and figures["synthetic_catalog_s"] > 0


def test_the_crawl_benchmark_crawls_the_site_and_its_spider_follows_what_netglean_follows() -> None:
    """netglean's side of the Scrapy comparison runs as the benchmark runs it. The spider's side is checked without
    Scrapy (the suite installs nothing): its settings bound the crawl as netglean's arguments do, and its XPaths,
    run with lxml (which Scrapy's selectors run on), give each page's title and body text without scripts, and
    the same-host links netglean's frontier takes."""
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
    settings = scrapy_crawl.settings(pages=20, max_depth=crawl.MAX_DEPTH, width=crawl.WIDTH, feed=feed)
    assert settings["DEPTH_LIMIT"] == crawl.MAX_DEPTH and settings["CLOSESPIDER_PAGECOUNT"] == 20
    assert settings["CONCURRENT_REQUESTS"] == settings["CONCURRENT_REQUESTS_PER_DOMAIN"] == crawl.WIDTH
    assert settings["DEPTH_PRIORITY"] == 1 and "Fifo" in settings["SCHEDULER_MEMORY_QUEUE"]
    assert "Fifo" in settings["SCHEDULER_DISK_QUEUE"] and not settings["ROBOTSTXT_OBEY"]
    assert settings["DOWNLOAD_DELAY"] == 0 and not settings["AUTOTHROTTLE_ENABLED"] and feed in settings["FEEDS"]

    for family, build in PAGES.items():
        url = f"http://127.0.0.1:{port}/{family}/3"
        html = build(3).decode()
        tree = lxml.html.fromstring(html)
        item = scrapy_crawl.page_item(url, tree.xpath(scrapy_crawl.TITLE)[0], tree.xpath(scrapy_crawl.BODY_TEXT), 300)
        assert item["url"] == url and item["title"].startswith("Article 3") and len(item["text"]) == 300
        whole = scrapy_crawl.page_item(url, None, tree.xpath(scrapy_crawl.BODY_TEXT), len(html))["text"]
        assert "Copyright. All rights reserved." in whole and "var tracking" not in whole
        assert "flag_0" not in whole and "createElement" not in whole  # the app state and ad loader in <body>
        followed = {
            normal(link)
            for link in (urljoin(url, href) for href in scrapy_crawl.once(tree.xpath(scrapy_crawl.HREFS)))
            if urlsplit(link).hostname == "127.0.0.1"  # what Scrapy's offsite filter lets through
        }
        frontier = read_html(html, url, fmt="markdown", main_content=True, frontier=True).frontier
        assert followed == {normal(link) for link in frontier if same_site(link, "127.0.0.1")}
