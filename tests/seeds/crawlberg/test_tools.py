"""Crawlberg's content tools, every argument and output form of its reference
(/work/shared/seeds/002, catalog/profiles/crawlberg.yaml's contract), as a Crawlberg client calls
them and reads them: the text block as markdown (title, metadata summary, content) or, with format
json, as pretty-printed JSON whose content is the markdown string. Each client runs over stdio and
over streamable HTTP."""

from __future__ import annotations

import hashlib

import pytest

from tests.seeds.crawlberg.conftest import INTERNAL_ERROR, INVALID_PARAMS, Crawlberg
from tests.seeds.crawlberg.site import PDF, WORDS

# --- scrape ---------------------------------------------------------------------------------------


@pytest.mark.browser
def test_scrape_markdown_is_the_title_a_metadata_summary_and_the_content(
    crawlberg: Crawlberg,
) -> None:
    text = crawlberg.text("scrape", {"url": crawlberg.url("/")})
    assert "# Harbour Guide\n\n- URL: " + crawlberg.url("/") + "\n- Status: 200\n" in text
    assert (
        "- Description: Tides, ferries and the harbour\n- Language: en\n- Author: Ada Quay\n"
        in text
    )
    # the content, as markdown
    assert WORDS in text and f"[/tides]({crawlberg.url('/tides')})" in text
    assert "- Published:" not in text  # a field the page has not is left out, not shown empty
    assert text == crawlberg.text("scrape", {"url": crawlberg.url("/"), "format": "markdown"})


def test_scrape_json_is_the_result_with_the_content_as_markdown(crawlberg: Crawlberg) -> None:
    result = crawlberg.json("scrape", {"url": crawlberg.url("/"), "format": "json"})
    assert result["url"] == result["final_url"] == crawlberg.url("/") and result["status"] == 200
    assert (
        result["title"] == "Harbour Guide"
        and result["metadata"]["description"] == "Tides, ferries and the harbour"
    )
    assert result["content"].startswith("# Harbour Guide\n\n") and WORDS in result["content"]
    assert "not instructions" in result["untrusted_content_notice"]


@pytest.mark.browser
def test_scrape_use_browser_renders_the_page(crawlberg: Crawlberg) -> None:
    result = crawlberg.json(
        "scrape", {"url": crawlberg.url("/more"), "use_browser": True, "format": "json"}
    )
    assert result["selected_strategy"] == "browser" and "Story one." in result["content"]


# --- crawl ----------------------------------------------------------------------------------------


@pytest.mark.browser
def test_crawl_follows_links_on_the_domain_to_max_depth(crawlberg: Crawlberg) -> None:
    text = crawlberg.text(
        "crawl", {"url": crawlberg.url("/"), "max_depth": 1, "stay_on_domain": True}
    )
    assert text.count("\n## ") == 3 and "- Pages read: 3\n" in text
    for title, path, depth in (
        ("Harbour Guide", "/", 0),
        ("Tides", "/tides", 1),
        ("Ferries", "/ferries", 1),
    ):
        assert (
            f"## {title}\n\n- URL: {crawlberg.url(path)}\n- Depth: {depth}\n- Status: 200\n" in text
        )
    assert "Spring tides" not in text and "elsewhere.invalid/\n" not in text


def test_crawl_json_returns_the_pages_and_max_pages_bounds_them(crawlberg: Crawlberg) -> None:
    result = crawlberg.json("crawl", {"url": crawlberg.url("/"), "max_pages": 2, "format": "json"})
    assert [page["url"] for page in result["pages"]] == [
        crawlberg.url("/"),
        crawlberg.url("/tides"),
    ]
    assert result["read"] == 2 and result["truncated"] is True and result["stopped"] == "max_pages"
    # markdown strings
    assert all(page["page"]["content"].startswith("# ") for page in result["pages"])
    deeper = crawlberg.json(
        "crawl", {"url": crawlberg.url("/"), "max_depth": 2, "max_pages": 100_000, "format": "json"}
    )
    assert crawlberg.url("/tides/spring") in {page["url"] for page in deeper["pages"]}


# --- map ------------------------------------------------------------------------------------------


def test_map_discovers_links_and_sitemap_urls(crawlberg: Crawlberg) -> None:
    result = crawlberg.json("map", {"url": crawlberg.url("/"), "format": "json"})
    assert result["urls"] == [crawlberg.url(p) for p in ("/tides", "/ferries", "/archive/2025")]
    text = crawlberg.text("map", {"url": crawlberg.url("/")})
    assert all(f"- {url}\n" in text + "\n" for url in result["urls"])


def test_map_limit_search_and_respect_robots_txt(crawlberg: Crawlberg) -> None:
    limited = crawlberg.json("map", {"url": crawlberg.url("/"), "limit": 1, "format": "json"})
    assert limited["urls"] == [crawlberg.url("/tides")]
    searched = crawlberg.json(
        "map", {"url": crawlberg.url("/"), "search": "TIDES", "format": "json"}
    )
    assert searched["urls"] == [crawlberg.url("/tides")]  # case-insensitive
    assert crawlberg.json(
        "map", {"url": crawlberg.url("/"), "respect_robots_txt": True, "format": "json"}
    )["urls"]


def test_map_caps_and_robots_txt_are_refused_as_invalid_params_naming_them(
    crawlberg: Crawlberg,
) -> None:
    code, message = crawlberg.error("map", {"url": crawlberg.url("/"), "limit": 5001})
    assert code == INVALID_PARAMS and "limit" in message
    code, message = crawlberg.error("map", {"url": crawlberg.url("/"), "respect_robots_txt": False})
    assert code == INVALID_PARAMS and "ignore_robots" in message  # the operator's setting, named


# --- batch_scrape and batch_crawl -----------------------------------------------------------------


def test_batch_scrape_reads_each_url_and_reports_a_wall_as_its_error(crawlberg: Crawlberg) -> None:
    urls = [crawlberg.url("/tides"), crawlberg.url("/challenge"), crawlberg.url("/ferries")]
    result = crawlberg.json("batch_scrape", {"urls": urls, "format": "json", "concurrency": 2})
    assert [entry["url"] for entry in result["results"]] == urls
    assert (result["succeeded"], result["failed"]) == (2, 1)
    assert result["results"][1]["error"]["code"] == "blocked"
    assert result["results"][0]["page"]["content"].startswith("# Tides")
    text = crawlberg.text("batch_scrape", {"urls": urls})
    assert text.count("\n## ") == 2 and "# Batch scrape: 2 succeeded, 1 failed" in text


def test_batch_scrape_and_batch_crawl_caps_are_invalid_params_naming_them(
    crawlberg: Crawlberg,
) -> None:
    many = [crawlberg.url(f"/page/{n}") for n in range(101)]
    assert crawlberg.error("batch_scrape", {"urls": many})[0] == INVALID_PARAMS
    code, message = crawlberg.error("batch_scrape", {"urls": [crawlberg.url("/")] * 2})
    assert code == INVALID_PARAMS and "urls" in message
    code, message = crawlberg.error("batch_crawl", {"urls": many[:11]})
    assert code == INVALID_PARAMS and "urls" in message
    code, message = crawlberg.error(
        "batch_scrape", {"urls": [crawlberg.url("/")], "concurrency": 10_000}
    )
    assert code == INVALID_PARAMS and "concurrency" in message


def test_batch_crawl_crawls_each_seed(crawlberg: Crawlberg) -> None:
    arguments = {
        "urls": [crawlberg.url("/tides"), crawlberg.url("/ferries")],
        "max_depth": 1,
        "concurrency": 2,
    }
    result = crawlberg.json(
        "batch_crawl", {**arguments, "format": "json", "stay_on_domain": True, "max_pages": 5}
    )
    assert [crawl["url"] for crawl in result["crawls"]] == arguments["urls"]
    assert crawlberg.url("/tides/spring") in {page["url"] for page in result["crawls"][0]["pages"]}
    text = crawlberg.text("batch_crawl", arguments)
    assert "## Spring tides\n\n- URL: " + crawlberg.url("/tides/spring") + "\n- Depth: 1\n" in text


# --- download -------------------------------------------------------------------------------------


def test_download_returns_the_documents_facts_or_the_pages_metadata(crawlberg: Crawlberg) -> None:
    document = crawlberg.json("download", {"url": crawlberg.url("/report.pdf")})
    assert (
        document["url"] == crawlberg.url("/report.pdf")
        and document["mime_type"] == "application/pdf"
    )
    assert document["size"] == len(PDF) and document["filename"] == "report.pdf"
    assert document["content_hash"] == "sha256:" + hashlib.sha256(PDF).hexdigest()
    page = crawlberg.json("download", {"url": crawlberg.url("/")})
    assert page["mime_type"] == "text/html" and page["page"]["title"] == "Harbour Guide"


def test_download_max_size_refuses_a_larger_document(crawlberg: Crawlberg) -> None:
    code, message = crawlberg.error(
        "download", {"url": crawlberg.url("/report.pdf"), "max_size": 10}
    )
    assert code == INTERNAL_ERROR and "max_size" in message


# --- interact -------------------------------------------------------------------------------------


@pytest.mark.browser
def test_interact_carries_out_crawlbergs_actions_and_returns_each_result_and_the_final_dom(
    crawlberg: Crawlberg,
) -> None:
    actions = [
        {"type": "click", "selector": "#load-more"},
        {"type": "wait", "milliseconds": 50},
        {"type": "scrape"},
    ]
    result = crawlberg.json("interact", {"url": crawlberg.url("/more"), "actions": actions})
    assert result["completed"] is True and [step["ok"] for step in result["steps"]] == [
        True,
        True,
        True,
    ]
    assert "<p>Story two.</p>" in result["content"]  # the final page, as HTML
    assert "Story two." in result["steps"][2]["content"]
    ours = crawlberg.json(
        "interact", {"url": crawlberg.url("/more"), "actions": [{"action": "scrape"}]}
    )
    assert ours["completed"] is True  # netglean's own form, beside Crawlberg's
