"""scan_url, scan_site, explain_check and get_index_entry over MCP, against sites on 127.0.0.1 named
by a fake DNS: every outcome a scan can have, the evidence and its determinism, the local index and
the remote one."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.core.errors import ConfigurationError
from netglean.core.settings import Settings
from netglean.generated.readability import TABLE
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.read.readability.score import score
from netglean.serve.mcp import build_server
from netglean.snippets import options, render
from tests.support import installs, scan_site
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve
from tests.support.tls_fixture import make_tls

MAX_BYTES = 300_000


@pytest.fixture(scope="module")
def client(registry: Registry) -> Iterator[SyncClient]:
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        fetch_only_hosts=",".join([*scan_site.HOSTS, "nowhere.test"]),
        fetch_max_bytes=MAX_BYTES,
        host_interval=0.0,
        read_workers=0,
    )
    with serve(app=scan_site.APP) as port:
        names = {host: [PUBLIC] for host in scan_site.HOSTS}
        fetcher = Fetcher(
            FetchPolicy.from_settings(settings), resolver=FakeDNS(names), dial=LoopbackBackend(port)
        )
        runner = build_runner(registry, settings, fetcher=fetcher)
        RUNNERS["sites"] = runner
        with open_client(InMemoryTransport(build_server(runner)), runner) as opened:
            yield opened


RUNNERS: dict[str, ToolRunner] = {}
"""The runner behind the sites' client: its store holds what the scans kept."""


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


def _scan(client: SyncClient, url: str, **more: Any) -> dict[str, Any]:
    envelope = _call(client, "scan_url", {"url": url, **more})
    assert envelope["ok"] is True, envelope["payload"]
    return envelope


def _points(result: dict[str, Any]) -> dict[str, int]:
    return {
        check["id"]: check["points"]
        for dimension in result["dimensions"]
        for check in dimension["checks"]
    }


def test_a_product_page_is_graded_as_derived_by_hand(client: SyncClient) -> None:
    """The shop's kettle (scan_site.KETTLE_HTML, 4,443 bytes), by ARS 0.3's rules:

    retrievability 28: reachable 11 (2xx 5, no redirect 3, browsers at the same address 3);
    robots_policy 10 (assistants allowed 6, clean 2, no orphan rule 1, a sitemap 1);
    render_independence 7 (the 4 core facts of a product in the HTML). machine representation 0:
    HTML for every Accept, no alternate; Vary and parity count only with a machine copy. fact
    coverage 18: core_facts 12 (title, price, currency, availability each in two sources: 100%
    credit; 4 core and 3 extended facts, 475 x 1024 // 4443 = 109 per KiB x 100: 85% kept; 14 x 100%
    x 85% = 11.9, 12); context_cost 6 (under 8,192 bytes). fact position 10: the <title> at byte 59
    (5), the 4 core facts in the first 2,048 bytes (5). structured data 5: the JSON-LD parses (2),
    its Product has name and offers price, currency, availability (1 + 2); text_agreement 0 (the
    Brand node's name, Hearth, reads as a title and sorts before the product's: the JSON-LD's title
    is one the page does not show, which ARS calls a divergence and flags). contract and discovery
    1: no canonical, no cache headers, no llms.txt, a sitemap (1), no endpoint. evidence density 2:
    4 distinct quantities (1.7 L, 39.00 In, 1.2 L, 1.1 kg) 2, no labelled fact, one data row. 64:
    C."""
    envelope = _scan(client, "http://shop.test/products/kettle")
    payload, result = envelope["payload"], envelope["payload"]["result"]
    assert (result["outcome"], result["page_kind"], result["score"], result["grade"]) == (
        "scored",
        "product",
        64,
        "C",
    )
    assert len(scan_site.KETTLE_HTML.encode()) == 4443
    assert [d["points"] for d in result["dimensions"]] == [28, 0, 18, 10, 5, 1, 2]
    assert _points(result)["core_facts"] == 12 and _points(result)["text_agreement"] == 0
    assert [flag["id"] for flag in result["flags"]] == ["structured_data_divergence"]
    fixes = {fix["check"]: fix for fix in result["fixes"]}
    assert fixes["negotiated_response"]["points"] == 15  # its 9 and the 3 + 3 it unlocks
    assert "vary_accept" not in fixes and "substance_parity" not in fixes
    assert result["context_cost"]["html_bytes"] == len(scan_site.KETTLE_HTML.encode())
    # A cold scan: robots.txt, the page twice, /llms.txt and /.well-known/ucp (no markdown copy is
    # declared).
    assert payload["requests"] == 5
    assert envelope["next_step"] == "install_snippet"


def test_a_news_article_is_graded_as_derived_by_hand(client: SyncClient) -> None:
    """scan_site.NEWS_HTML, a NewsArticle served as HTML only:

    retrievability 28 (11 + 10 + 7: title, author and date are in the HTML). machine
    representation 0. fact coverage 20: core_facts 14 (title in <title>, h1 and JSON-LD; author in
    the author meta tag and JSON-LD; the date in article:published_time and JSON-LD: all
    corroborated, 3 facts in 880 bytes is well over 2 per KiB), context_cost 6. fact position 10
    (the <title> at byte 59; all three in the head). structured data 6: it parses (2), the
    NewsArticle has headline, author, datePublished (3), and its title is the page's (1; the author,
    Tom Reyes, is a Person node whose name ARS reads as a title too, but it sorts after the
    headline). contract and discovery 5: an absolute canonical (4) and a sitemap (1). evidence
    density 1: one quantity (14 m). 70: C."""
    result = _scan(client, "http://news.test/news/pontoon")["payload"]["result"]
    assert (result["page_kind"], result["score"], result["grade"]) == ("article", 70, "C")
    assert [d["points"] for d in result["dimensions"]] == [28, 0, 20, 10, 6, 5, 1]
    assert result["flags"] == []


def test_a_docs_page_is_graded_as_derived_by_hand(client: SyncClient) -> None:
    """scan_site.DOCS_HTML at /docs/install (its path makes it a document; its JSON-LD is a
    WebPage):

    retrievability 27: 11, robots_policy 9 (no sitemap), render_independence 7 (title, last update
    and publisher in the HTML). machine representation 0. fact coverage 19: core_facts 13 (title
    corroborated by og:title 4, the update date by dateModified 4, the publisher in JSON-LD alone 2,
    the description corroborated 1, the Download link alone 0: 11 of 12 quarters, 92%; all kept at
    345 per KiB x 100; 14 x 92% = 12.9), context 6. fact position 10. structured data 4: it parses
    (2); the WebPage is a type ARS knows, with dateModified and publisher but no name (1 + 2 x 2/3 =
    2.33, 2); the JSON-LD states no title, price or availability to compare (0). contract and
    discovery 7: canonical 4, llms.txt with a title and a link 1, an OpenAPI service-desc 2.
    evidence density 4: one quantity (50 MB) 1, two labelled facts (Requires:, Disk:) 1, three
    comparable rows
    2. 71: C."""
    result = _scan(client, "http://docs.test/docs/install")["payload"]["result"]
    assert (result["page_kind"], result["score"], result["grade"]) == ("document", 71, "C")
    assert [d["points"] for d in result["dimensions"]] == [27, 0, 19, 10, 4, 7, 4]


def test_a_pdf_answer_is_read_as_its_text_as_ars_reads_every_body(client: SyncClient) -> None:
    """ARS's probe decodes every answer as text, so a PDF's uncompressed text is what the agent
    received: its size is the context cost's and its quantities count (50 MB, 12%, 3 days and the
    ISO date: 4, 2 points)."""
    result = _scan(client, "http://docs.test/docs/tide.pdf")["payload"]["result"]
    checks = {c["id"]: c for d in result["dimensions"] for c in d["checks"]}
    assert checks["quantities"]["points"] == 2 and checks["quantities"]["evidence"]["count"] == 4
    assert checks["context_cost"]["evidence"]["bytes"] == len(scan_site.TIDE_PDF)
    assert checks["negotiated_response"]["points"] == 0


def test_blocking_only_training_crawlers_scores_as_the_same_open_site(client: SyncClient) -> None:
    """The kettle behind robots.txt that disallows GPTBot, ClaudeBot and Google-Extended and lets
    everyone else in: the assistants are allowed, so it scores as the same page on an open site (no
    sitemap on either: the shop's 64 less robots_policy's sitemap point and the sitemap check, 62:
    C), and says so in a flag."""
    blocked = _scan(client, "http://trainingonly.test/products/kettle")["payload"]["result"]
    open_site = _scan(client, "http://open.test/products/kettle")["payload"]["result"]
    assert (blocked["outcome"], blocked["score"], blocked["grade"]) == ("scored", 62, "C")
    assert _points(blocked) == _points(open_site)
    assert [flag["id"] for flag in blocked["flags"]] == [
        "structured_data_divergence",
        "training_opt_out",
    ]
    assert "training_opt_out" not in [flag["id"] for flag in open_site["flags"]]


def test_the_same_evidence_gives_the_same_result_byte_for_byte(client: SyncClient) -> None:
    """Each answer carries a new cookie and request id: the evidence leaves them out, so its hash
    holds."""
    first = _scan(client, "http://shop.test/products/kettle")["payload"]
    second = _scan(client, "http://shop.test/products/kettle")["payload"]
    assert first["scan_id"] != second["scan_id"]
    assert first["result"]["evidence_hash"] == second["result"]["evidence_hash"]
    assert json.dumps(first["result"], sort_keys=True) == json.dumps(
        second["result"], sort_keys=True
    )
    # Warm: robots.txt was read by the first scan of this session.
    assert second["requests"] == 4


def test_a_kept_scan_scored_again_from_its_stored_evidence_is_the_same_result(
    client: SyncClient,
) -> None:
    scanned = _scan(client, "http://shop.test/products/kettle")["payload"]
    store = RUNNERS["sites"].services.runs.store
    stored = anyio.run(store.scan_evidence, scanned["scan_id"])
    assert stored is not None and json.loads(stored)["url"] == "http://shop.test/products/kettle"
    again = score(json.loads(stored), TABLE)
    assert json.dumps(again, sort_keys=True) == json.dumps(scanned["result"], sort_keys=True)
    assert anyio.run(store.scan_evidence, "0" * 32) is None


@pytest.mark.parametrize(
    ("url", "outcome", "reason"),
    [
        ("http://optout.test/products/kettle", "opt_out", None),
        ("http://noscanner.test/products/kettle", "unscored", "robots_disallows_scanner"),
        ("http://robots503.test/products/kettle", "unscored", "robots_unavailable"),
        ("http://wall.test/products/kettle", "unscored", "blocked_at_edge"),
        ("http://gone.test/products/kettle", "unscored", "non_2xx"),
        ("http://loop.test/products/kettle", "unscored", "too_many_redirects"),
        ("http://big.test/products/kettle", "unscored", "truncated_evidence"),
        ("http://nowhere.test/products/kettle", "unscored", "unreachable"),
    ],
)
def test_every_outcome_besides_a_grade(
    client: SyncClient, url: str, outcome: str, reason: str | None
) -> None:
    result = _scan(client, url)["payload"]["result"]
    assert (result["outcome"], result["reason"]) == (outcome, reason)
    assert result["grade"] is None and result["score"] is None and result["dimensions"] == []


def test_a_robots_txt_that_cannot_be_read_is_the_scans_only_request(client: SyncClient) -> None:
    """Its page is not asked (the score could not be given): one request, robots.txt's (busy.test:
    no other test reads its robots.txt first, which this session's fetcher would keep)."""
    result = _scan(client, "http://busy.test/products/kettle")["payload"]
    assert result["requests"] == 1 and result["result"]["reason"] == "robots_unavailable"


def test_a_markdown_copy_off_the_page_s_origin_is_not_asked_for(client: SyncClient) -> None:
    """A page chooses its copy's URL: ARS asks only for one on the page's own origin (this one has
    no host), so the copy is declared (declared_alternates) but never fetched, and the scan is the
    usual five requests."""
    payload = _scan(client, "http://badalt.test/products/kettle")["payload"]
    result = payload["result"]
    assert result["outcome"] == "scored" and payload["requests"] == 5
    assert (
        _points(result)["declared_alternates"] == 3 and _points(result)["negotiated_response"] == 0
    )


def test_explain_check_reads_the_catalog(client: SyncClient) -> None:
    envelope = _call(client, "explain_check", {"check_id": "vary_accept"})
    assert envelope["ok"] is True
    payload = envelope["payload"]
    assert payload["dimension"] == "machine_representation" and payload["weight"] == 3
    assert payload["basis"] in {"measured", "heuristic"} and payload["rule"] and payload["fix"]
    unknown = _call(client, "explain_check", {"check_id": "no_such_check"})
    assert unknown["ok"] is False and unknown["payload"]["error"]["code"] == "not_found"
    assert "vary_accept" in unknown["payload"]["error"]["detail"]["known"]


def test_the_local_index_keeps_every_scan_latest_first(client: SyncClient) -> None:
    scanned = _scan(client, "http://shop.test/products/kettle")["payload"]
    entry = _call(client, "get_index_entry", {"domain": "shop.test"})
    assert entry["ok"] is True
    payload = entry["payload"]
    assert payload["scans"] >= 1 and payload["latest"]["scan_id"] == scanned["scan_id"]
    assert payload["latest"]["grade"] == scanned["result"]["grade"]
    assert "remote" not in payload  # no remote index is set: nothing else is asked
    assert (
        _call(client, "get_index_entry", {"domain": "http://SHOP.test/x"})["payload"]["domain"]
        == "shop.test"
    )


def test_scan_site_reports_each_page_and_the_fixes_across_the_site(client: SyncClient) -> None:
    envelope = _call(
        client, "scan_site", {"url": "http://shop.test/", "sitemap": "http://shop.test/sitemap.xml"}
    )
    assert envelope["ok"] is True, envelope["payload"]
    payload = envelope["payload"]
    assert payload["found"] == 3 and payload["scanned"] == 3
    assert [page["outcome"] for page in payload["pages"]] == ["scored"] * 3
    assert sum(payload["grades"].values()) == 3 and 0 <= payload["median_score"] <= 100
    top = payload["fixes"][0]
    assert top["pages"] == 3 and top["points"] == pytest.approx(top["mean_points"] * 3, abs=0.2)


ASKED: list[tuple[str, str, bytes, dict[str, str]]] = []
"""What the remote index was asked: method, path with query, body, headers."""


async def _index_entry(request: Request) -> Response:
    ASKED.append(
        (
            request.method,
            str(request.url.path) + "?" + request.url.query,
            await request.body(),
            dict(request.headers),
        )
    )
    if request.path_params["domain"] == "shop.test":
        return JSONResponse({"domain": "shop.test", "grade": "B", "score": 81})
    # an index answering JSON nested past what is read
    if request.path_params["domain"] == "deep.test":
        return Response("[" * 5_000 + "]" * 5_000, media_type="application/json")
    if request.path_params["domain"] == "moved.test":  # a redirect would carry the domain elsewhere
        return Response(
            status_code=302, headers={"location": "https://index.test/v1/index/shop.test"}
        )
    return JSONResponse({"error": "unknown domain"}, status_code=404)


INDEX = Starlette(routes=[Route("/v1/index/{domain}", _index_entry)])


@pytest.fixture(scope="module")
def indexed(registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncClient]:
    """A server whose operator set a remote index (https, its certificate from a test CA)."""
    tls = make_tls(tmp_path_factory.mktemp("index-tls"), hostname="index.test")
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        fetch_only_hosts="index.test",
        index_url="https://index.test/v1/index",
        host_interval=0.0,
        read_workers=0,
    )
    with serve((tls.cert_file, tls.key_file), app=INDEX) as tls_port:
        fetcher = Fetcher(
            FetchPolicy.from_settings(settings),
            resolver=FakeDNS({"index.test": [PUBLIC]}),
            dial=LoopbackBackend(tls_port, tls_port=tls_port),
            ssl_context=tls.client_context(),
        )
        runner = build_runner(registry, settings, fetcher=fetcher)
        with open_client(InMemoryTransport(build_server(runner)), runner) as opened:
            yield opened


def test_a_remote_index_is_sent_the_domain_and_nothing_else(indexed: SyncClient) -> None:
    ASKED.clear()
    envelope = _call(indexed, "get_index_entry", {"domain": "shop.test"})
    assert envelope["ok"] is True, envelope["payload"]
    remote = envelope["payload"]["remote"]
    assert remote == {
        "url": "https://index.test/v1/index/shop.test",
        "status": 200,
        "entry": {"domain": "shop.test", "grade": "B", "score": 81},
    }
    requests = [asked for asked in ASKED if asked[1].startswith("/v1/")]
    assert [(method, path, body) for method, path, body, _ in requests] == [
        ("GET", "/v1/index/shop.test?", b"")
    ]
    headers = requests[0][3]
    assert not {"cookie", "authorization", "referer"} & set(headers)
    unknown = _call(indexed, "get_index_entry", {"domain": "other.test"})["payload"]["remote"]
    assert unknown["status"] == 404 and "entry" not in unknown
    deep = _call(indexed, "get_index_entry", {"domain": "deep.test"})
    assert (
        deep["ok"] is True
        and "entry" not in deep["payload"]["remote"]
        and deep["payload"]["remote"]["error"]
    )
    moved = _call(indexed, "get_index_entry", {"domain": "moved.test"})["payload"]["remote"]
    assert moved["error"]["code"] == "too_many_redirects" and "entry" not in moved


@pytest.fixture(scope="module")
def ignoring(registry: Registry) -> Iterator[SyncClient]:
    """A server whose operator ignores robots.txt (--ignore-robots): for the operator's own
    sites."""
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        fetch_only_hosts="noscanner.test",
        ignore_robots=True,
        host_interval=0.0,
        read_workers=0,
    )
    with serve(app=scan_site.APP) as port:
        fetcher = Fetcher(
            FetchPolicy.from_settings(settings),
            resolver=FakeDNS({"noscanner.test": [PUBLIC]}),
            dial=LoopbackBackend(port),
        )
        runner = build_runner(registry, settings, fetcher=fetcher)
        with open_client(InMemoryTransport(build_server(runner)), runner) as opened:
            yield opened


def test_vantage_public_obeys_robots_txt_even_where_the_operator_ignores_it(
    ignoring: SyncClient,
) -> None:
    url = "http://noscanner.test/products/kettle"
    public = _scan(ignoring, url)["payload"]["result"]
    assert (public["outcome"], public["reason"]) == ("unscored", "robots_disallows_scanner")
    own = _scan(ignoring, url, vantage="self")["payload"]["result"]
    # the operator's claim to operate the site, which only the operator can make
    assert own["outcome"] == "scored"


def test_the_index_url_is_https_without_credentials() -> None:
    for bad in (
        "http://index.test/",
        "https://user:secret@index.test/",
        "https://index.test/?key=1",
        "index.test",
    ):
        with pytest.raises(ConfigurationError):
            Settings.load({"index_url": bad})


SHOP_APP = """\
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
{install}
app = FastAPI()
{mount}

@app.get("/products/kettle")
def kettle():
    return HTMLResponse({html!r})


@app.get("/robots.txt")
def robots():
    return HTMLResponse("User-agent: *\\nAllow: /\\n", media_type="text/plain")
"""


@contextmanager
def _shop(root: Path, *, installed: bool) -> Iterator[str]:
    """The shop's FastAPI app on 127.0.0.1, plain or with install_snippet's FastAPI install applied;
    its origin."""
    root.mkdir()
    port = installs.free_port()
    install, mount = "", ""
    if installed:
        snippet = render(
            "fastapi",
            options(
                "fastapi",
                {
                    "site_name": "Hearth",
                    "site_url": f"http://127.0.0.1:{port}",
                    "summary": "Kettles and pots.",
                    "pages": [{"path": "/products/kettle", "title": "Stovetop Kettle"}],
                },
            ),
        )
        installs.write(snippet, root)
        (root / "markdown" / "products").mkdir(parents=True)
        (root / "markdown" / "products" / "kettle.md").write_text(scan_site.KETTLE_MARKDOWN)
        install, mount = (
            "from netglean_agent import AgentReadable",
            "app.add_middleware(AgentReadable)",
        )
    (root / "shop.py").write_text(
        SHOP_APP.format(install=install, mount=mount, html=scan_site.KETTLE_HTML)
    )
    log = root / "server.log"
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "shop:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=root,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
        )
    try:
        installs.wait(port, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def loopback(registry: Registry) -> Iterator[SyncClient]:
    """A server whose operator lets it read 127.0.0.1 (the shop runs there as a real FastAPI
    app)."""
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
    )
    runner = build_runner(registry, settings)
    with open_client(InMemoryTransport(build_server(runner)), runner) as opened:
        yield opened


def test_scan_apply_the_fastapi_install_rescan_and_its_fixes_are_gone(
    loopback: SyncClient, tmp_path: Path
) -> None:
    with _shop(tmp_path / "plain", installed=False) as origin:
        before = _scan(loopback, f"{origin}/products/kettle")["payload"]["result"]
    with _shop(tmp_path / "installed", installed=True) as origin:
        after = _scan(loopback, f"{origin}/products/kettle")["payload"]["result"]
    assert before["outcome"] == after["outcome"] == "scored"
    assert after["score"] > before["score"] and after["grade"] <= before["grade"]

    def short(result: dict[str, Any]) -> set[str]:
        return {ident for fix in result["fixes"] for ident in (fix["check"], *fix["unlocks"])}

    closed = short(before) - short(after)
    # What the install does: markdown on negotiation, Vary, the Link alternate, llms.txt (validators
    # on markdown).
    assert {"negotiated_response", "vary_accept", "declared_alternates", "llms_txt"} <= closed
    was, now = _points(before), _points(after)
    assert all(now[check] >= was[check] for check in was), "the install made a check worse"
    assert {check for check in was if now[check] > was[check]} <= short(before), (
        "points no fix had promised"
    )
