"""The Scrapy side of the crawl benchmark: a minimal breadth-first spider, run by bench.crawl with
the Scrapy environment's python (``python -I bench/scrapy_crawl.py CONFIG``, CONFIG a JSON object),
never by netglean's.

The spider reads what netglean's crawl reads: from one start URL, breadth-first (DEPTH_PRIORITY 1,
FIFO queues), every ``<a href>`` of each page once, same host only, up to ``max_depth`` links away
and ``pages`` responses (CLOSESPIDER_PAGECOUNT), ``width`` requests at once, robots.txt and delays
off; each page's title and body text, cut at ``max_chars``, goes to a JSON-lines feed (as netglean's
pages go to its client). It prints one JSON object: pages exported, responses, the close reason and
the seconds from engine_started to spider_closed (interpreter and Scrapy start-up excluded;
bench.crawl times the whole process besides), and its CPU seconds over them.

Only ``main`` imports Scrapy: the settings and the page logic below are plain Python (XPath strings
and functions on what they select), so the test suite checks them with lxml, without installing
Scrapy.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from typing import Any

SCRAPY_VERSION = "2.19.0"
SCRAPY = f"scrapy=={SCRAPY_VERSION}"
"""The Scrapy the benchmark installs into its own environment (bench/.scrapy-venv)."""

TITLE = "//title/text()"
BODY_TEXT = "//body//text()[not(ancestor::script or ancestor::style)]"
HREFS = "//a/@href"


def settings(*, pages: int, max_depth: int, width: int, feed: str) -> dict[str, Any]:
    """Scrapy settings for a crawl netglean's crawl can be set side by side with."""
    return {
        "DEPTH_LIMIT": max_depth,
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "CLOSESPIDER_PAGECOUNT": pages,
        "CONCURRENT_REQUESTS": width,
        "CONCURRENT_REQUESTS_PER_DOMAIN": width,
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "FEEDS": {feed: {"format": "jsonlines", "encoding": "utf-8"}},
        # Scrapy logs every request at its DEBUG default; netglean logs none of them
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
    }


def page_item(url: str, title: str | None, texts: Iterable[str], max_chars: int) -> dict[str, str]:
    """A page's title and body text (its text nodes outside scripts and styles, one space between
    them)."""
    text = " ".join(stripped for stripped in (t.strip() for t in texts) if stripped)
    return {"url": url, "title": (title or "").strip(), "text": text[:max_chars]}


def once(hrefs: Iterable[str]) -> list[str]:
    """A page's links in document order, each once (netglean's frontier lists each link of a page
    once)."""
    return list(dict.fromkeys(href.strip() for href in hrefs if href.strip()))


def main(config: dict[str, Any]) -> None:
    from scrapy import Request, Spider, signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.http import Response

    timed: dict[str, float] = {}
    counted = {"pages": 0, "responses": 0}
    closed: dict[str, str] = {}
    max_chars = int(config["max_chars"])

    class BreadthFirst(Spider):
        name = "breadth_first"
        # OffsiteMiddleware matches the host name, whatever the port
        allowed_domains = (config["host"],)
        start_urls = (config["start"],)

        def parse(self, response: Response) -> Iterable[dict[str, str] | Request]:
            yield page_item(
                response.url,
                response.xpath(TITLE).get(),
                response.xpath(BODY_TEXT).getall(),
                max_chars,
            )
            yield from response.follow_all(
                once(response.xpath(HREFS).getall()), callback=self.parse
            )

    def started() -> None:
        timed["started"] = time.perf_counter()
        timed["cpu_started"] = time.process_time()

    def scraped() -> None:
        counted["pages"] += 1

    def received() -> None:
        counted["responses"] += 1

    def spider_closed(reason: str) -> None:
        timed["closed"] = time.perf_counter()
        timed["cpu_closed"] = time.process_time()
        closed["reason"] = reason

    process = CrawlerProcess(
        settings(
            pages=config["pages"],
            max_depth=config["max_depth"],
            width=config["width"],
            feed=config["feed"],
        )
    )
    crawler = process.create_crawler(BreadthFirst)
    crawler.signals.connect(started, signal=signals.engine_started)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    crawler.signals.connect(received, signal=signals.response_received)
    crawler.signals.connect(spider_closed, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    print(
        json.dumps(
            {
                **counted,
                "reason": closed.get("reason"),
                "engine_s": timed["closed"] - timed["started"],
                "engine_cpu_s": timed["cpu_closed"] - timed["cpu_started"],
                "scrapy": __import__("scrapy").__version__,
            }
        )
    )


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
