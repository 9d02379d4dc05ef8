"""Agent-readability scoring (issue 18): the time ``score(evidence, table)`` takes per page, from
stored evidence, against one selectolax (lexbor) parse of the same page's HTML, the floor of any
reader of it.

The evidence is synthetic, built from real pages: each of a handful of the Readability test pages
(news, reference, blogs; 56 KB to 1.2 MB) answered both the agent and the browser probe with its
HTML, robots.txt allowing everyone and /llms.txt missing; and the product fixture of the scorer's
tests twice, as plain HTML and with the install snippet's changes (markdown on negotiation, Vary, a
Link alternate, an ETag, llms.txt). The score is pure, so it is timed in process: medians of
repeated runs, score and parse taking turns, the order swapped each repeat so the machine's noise
hits them alike. ``ratio`` is score / parse. For scale, the page tools' own reading of the same HTML
(netglean.read.reading.read_html, markdown of the main content: what read_page does per page) is
timed alongside, ``to_read`` being score / read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from netglean.read.html_tree import parse_html
from netglean.read.readability.evidence import FORMAT, Evidence, Probe
from netglean.read.readability.score import score
from netglean.read.reading import read_html

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
CORPUS = ROOT / "tests" / "corpora" / "readability-test-pages" / "pages"
PAGES = ("ars-1", "medium-1", "mozilla-1", "wikipedia", "nytimes-1", "guardian-1")
FIXTURES = ROOT / "tests" / "fixtures" / "readability"


def table() -> dict[str, Any]:
    """The readability table: the generated one when codegen emits it, else the catalog's YAML
    merged as it will."""
    try:
        from netglean.generated.readability import TABLE  # type: ignore[import-not-found,unused-ignore]

        return dict(TABLE)
    except ImportError:
        loaded: dict[str, Any] = yaml.safe_load(
            (ROOT / "catalog" / "readability" / "scale.yaml").read_text()
        )
        findings = ROOT / "catalog" / "readability" / "findings.yaml"
        loaded["findings"] = (
            yaml.safe_load(findings.read_text())["findings"] if findings.exists() else []
        )
        return loaded


def _probe(
    url: str, body: str, content_type: str, status: int = 200, headers: dict[str, str] | None = None
) -> Probe:
    return Probe(
        url=url,
        accept="*/*",
        final_url=url,
        status=status,
        headers={"content-type": content_type, **(headers or {})},
        redirects=[],
        body=body,
        bytes=len(body.encode()),
        error=None,
    )


def evidence(url: str, html: str, markdown: str | None = None) -> Evidence:
    """A scan's evidence of a page serving ``html`` (and ``markdown`` on negotiation, with the
    snippet's headers)."""
    origin = url.split("/", 3)[:3]
    root = "/".join(origin)
    extra = {
        "vary": "Accept",
        "etag": '"v1"',
        "link": f'<{url}.md>; rel="alternate"; type="text/markdown"',
    }
    headers = extra if markdown is not None else {}
    agent = (
        _probe(url, markdown, "text/markdown; charset=utf-8", headers=extra)
        if markdown is not None
        else _probe(url, html, "text/html; charset=utf-8")
    )
    llms = "# Site\n\n> What it is.\n" if markdown is not None else "not found"
    return Evidence(
        format=FORMAT,
        url=url,
        vantage="public",
        robots=_probe(f"{root}/robots.txt", "User-agent: *\nAllow: /\n", "text/plain"),
        robots_verdict="allowed",
        agent=agent,
        browser=_probe(url, html, "text/html; charset=utf-8", headers=headers),
        llms_txt=_probe(
            f"{root}/llms.txt", llms, "text/plain", status=200 if markdown is not None else 404
        ),
        alternate=None,
        ucp=None,
        well_known={},
        max_bytes=10_000_000,
    )


def cases() -> list[tuple[str, Evidence, str]]:
    """(name, evidence, the HTML parsed for the floor) of each page measured."""
    made = []
    for name in PAGES:
        source = CORPUS / name / "source.html"
        if source.exists():
            html = source.read_text(errors="replace")
            made.append((name, evidence(f"https://pages.example/{name}", html), html))
    product, markdown = (
        (FIXTURES / "product.html").read_text(),
        (FIXTURES / "product.md").read_text(),
    )
    made.append(
        ("product (plain)", evidence("https://shop.example/p/trailrunner-2", product), product)
    )
    made.append(
        (
            "product (snippet)",
            evidence("https://shop.example/p/trailrunner-2", product, markdown),
            product,
        )
    )
    return made


def _take_turns(sides: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Median seconds of each side over ``repeats`` runs (after one untimed run each), the order
    swapped each repeat."""
    for work in sides.values():
        work()
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for k in range(repeats):
        for name in names if k % 2 == 0 else reversed(names):
            started = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def run(*, repeats: int = 15) -> dict[str, Any]:
    scale = table()
    rows = []
    for name, ev, html in cases():
        result = score(ev, scale)
        medians = _take_turns(
            {
                "score": lambda ev=ev: score(ev, scale),  # type: ignore[misc]
                "parse": lambda html=html: parse_html(html),  # type: ignore[misc]
                "read": lambda html=html, url=ev["url"]: read_html(
                    html, url, fmt="markdown", main_content=True
                ),  # type: ignore[misc]
            },
            repeats,
        )
        rows.append(
            {
                "page": name,
                "html_bytes": len(html.encode()),
                "kind": result["page_kind"],
                "score": result["score"],
                "grade": result["grade"],
                "score_ms": round(medians["score"] * 1000, 3),
                "parse_ms": round(medians["parse"] * 1000, 3),
                "read_ms": round(medians["read"] * 1000, 3),
                "ratio": round(medians["score"] / medians["parse"], 1),
                "to_read": round(medians["score"] / medians["read"], 2),
            }
        )
    ratios = [row["ratio"] for row in rows]
    return {
        "repeats": repeats,
        "pages": rows,
        "median_ratio": statistics.median(ratios),
        "max_ratio": max(ratios),
        "median_to_read": statistics.median(row["to_read"] for row in rows),
    }


COLD_SITES = {
    "plain.test": "an HTML page, no llms.txt",
    "alternate.test": "an HTML page linking a markdown copy, and an llms.txt",
    "negotiated.test": "markdown on negotiation, an llms.txt",
}
"""The sites a cold scan is counted on: each a way of serving a page that changes what a scan
asks."""


def _cold_site() -> Any:
    """The three sites of COLD_SITES, one per Host, counting the requests each gets."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    html, markdown = (FIXTURES / "product.html").read_text(), (FIXTURES / "product.md").read_text()
    counted: dict[str, int] = {}

    async def answer(request: Request) -> Response:
        host, path = request.url.hostname or "", request.url.path
        counted[host] = counted.get(host, 0) + 1
        if path == "/robots.txt":
            return PlainTextResponse("User-agent: *\nAllow: /\n")
        if path == "/llms.txt":
            if host == "plain.test":
                return PlainTextResponse("not here", status_code=404)
            return PlainTextResponse("# Shop\n\n- [Kettle](https://shop.example/kettle)\n")
        if path.endswith(".md"):
            return Response(markdown, media_type="text/markdown")
        if host == "negotiated.test" and "text/markdown" in request.headers.get("accept", ""):
            return Response(markdown, media_type="text/markdown", headers={"vary": "Accept"})
        link = (
            {"link": '<kettle.md>; rel="alternate"; type="text/markdown"'}
            if host == "alternate.test"
            else {}
        )
        return Response(html, media_type="text/html", headers=link)

    app = Starlette(routes=[Route("/{path:path}", answer)])
    app.state.counted = counted
    return app


def cold_scans() -> dict[str, Any]:
    """Requests a cold scan makes (a fresh fetcher: robots.txt not cached), by what it reported and
    by what the site counted, on each of COLD_SITES; Rebilder documents 5 for its cold scan (ARS 0.3
    adds the linked copy)."""
    import anyio

    from netglean.core.settings import Settings
    from netglean.net.fetcher import Fetcher
    from netglean.net.policy import FetchPolicy
    from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
    from netglean.scraping.scan import scan
    from netglean.workers.pool import Readers
    from tests.support.fixture_site import serve  # requests are counted here, not timed

    app = _cold_site()
    policy = FetchPolicy.from_settings(
        Settings.load({"host_interval": 0.0, "fetch_only_hosts": ",".join(COLD_SITES)})
    )
    rows = []
    with serve(app=app) as port:
        for host, what in COLD_SITES.items():

            async def one(host: str = host) -> int:
                fetcher = Fetcher(
                    policy, resolver=FakeDNS({host: [PUBLIC]}), dial=LoopbackBackend(port)
                )
                try:
                    return (
                        await scan(fetcher, Readers(0), f"http://{host}/kettle", table())
                    ).requests
                finally:
                    await fetcher.aclose()

            reported = anyio.run(one)
            rows.append(
                {"site": what, "reported": reported, "served": app.state.counted.get(host, 0)}
            )
    return {"scans": rows, "most": max(row["served"] for row in rows), "rebilder_documented": 5}


def show(r: dict[str, Any]) -> None:
    """The figures of ``run`` as a table."""
    print(
        "\nreadability: score(evidence, table) against one lexbor parse of the page (medians of "
        f"{r['repeats']})"
    )
    print(
        f"  {'page':<20}{'KB':>7}{'kind':>10}{'score':>7}"
        f"{'score ms':>10}{'parse ms':>10}{'ratio':>7}"
        f"{'read ms':>9}{'/read':>7}"
    )
    for row in r["pages"]:
        print(
            "  "
            f"{row['page']:<20}{row['html_bytes'] / 1024:>7.0f}{row['kind']:>10}{row['score']:>5} "
            f"{row['grade']}{row['score_ms']:>10.2f}{row['parse_ms']:>10.2f}{row['ratio']:>7.1f}{row['read_ms']:>9.2f}{row['to_read']:>7.2f}"
        )
    print(
        f"  score / parse: median {r['median_ratio']:.1f}, worst {r['max_ratio']:.1f}; "
        f"score / read_page's reading: median {r['median_to_read']:.2f}"
    )
    cold = r["cold_scans"]
    print(f"\nrequests per cold scan (Rebilder documents {cold['rebilder_documented']})")
    for row in cold["scans"]:
        print(f"  {row['site']:<64}{row['reported']:>3} reported{row['served']:>3} served")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 repeats (a smoke run, not for figures)"
    )
    args = parser.parse_args()
    figures = run(repeats=3 if args.quick else 15)
    figures["cold_scans"] = cold_scans()
    show(figures)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "readability.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nwritten to {RESULTS / 'readability.json'}")


if __name__ == "__main__":
    main()
