"""The agent-readability score: outcomes, checks, fixes and the catalog's rules held to the code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from netglean.read.readability import checks, page
from netglean.read.readability.evidence import FORMAT, Evidence, Probe
from netglean.read.readability.score import grade_of, score

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "readability"
CORPUS = ROOT / "tests" / "corpora" / "readability-test-pages" / "pages"
URL = "https://shop.example/p/trailrunner-2"
PRODUCT_HTML = (FIXTURES / "product.html").read_text()
PRODUCT_MD = (FIXTURES / "product.md").read_text()


def load_table() -> dict[str, Any]:
    """The readability table as codegen will emit it: scale.yaml with the findings (findings.yaml's, if there)."""
    table = yaml.safe_load((ROOT / "catalog" / "readability" / "scale.yaml").read_text())
    findings = ROOT / "catalog" / "readability" / "findings.yaml"
    table["findings"] = yaml.safe_load(findings.read_text())["findings"] if findings.exists() else []
    return table


TABLE = load_table()
SCHEMA = yaml.safe_load((ROOT / "catalog" / "schemas" / "ArsResult.yaml").read_text())


def probe(
    url: str,
    body: str = "",
    *,
    content_type: str = "text/html; charset=utf-8",
    status: int = 200,
    headers: dict[str, str] | None = None,
    error: str | None = None,
    redirects: int = 0,
) -> Probe:
    if error is not None:
        return Probe(
            url=url,
            accept="*/*",
            final_url=None,
            status=None,
            headers={},
            redirects=[],
            body="",
            bytes=0,
            error={"code": error, "message": "failed"},
        )
    return Probe(
        url=url,
        accept="*/*",
        final_url=url,
        status=status,
        headers=dict(sorted({"content-type": content_type, **(headers or {})}.items())),
        redirects=[{"url": f"{url}?hop={n}", "status": 301} for n in range(redirects)],
        body=body,
        bytes=len(body.encode()),
        error=None,
    )


def evidence(
    html: str = PRODUCT_HTML,
    *,
    robots: Probe | str | None = "User-agent: *\nAllow: /\n",
    verdict: str = "allowed",
    agent: Probe | None = None,
    browser: Probe | None = None,
    llms_txt: Probe | None = None,
    alternate: Probe | None = None,
    url: str = URL,
) -> Evidence:
    if isinstance(robots, str):
        robots = probe("https://shop.example/robots.txt", robots, content_type="text/plain")
    return Evidence(
        format=FORMAT,
        url=url,
        vantage="public",
        robots=robots,
        robots_verdict=verdict,
        agent=agent if agent is not None else probe(url, html),
        browser=browser if browser is not None else probe(url, html),
        llms_txt=llms_txt if llms_txt is not None else probe("https://shop.example/llms.txt", "gone", status=404),
        alternate=alternate,
        well_known={},
        max_bytes=10_000_000,
    )


def improved() -> Evidence:
    """The product page with the install snippet's changes: markdown on negotiation, Vary, a Link alternate,
    validators, llms.txt and a sitemap in robots.txt."""
    extra = {"vary": "Accept", "etag": '"v1"', "link": '</p/trailrunner-2.md>; rel="alternate"; type="text/markdown"'}
    return evidence(
        robots="User-agent: *\nAllow: /\nSitemap: https://shop.example/sitemap.xml\n",
        agent=probe(URL, PRODUCT_MD, content_type="text/markdown; charset=utf-8", headers=extra),
        browser=probe(URL, PRODUCT_HTML, headers=extra),
        llms_txt=probe(
            "https://shop.example/llms.txt", "# Example Outfitters\n\n> Boots.\n", content_type="text/plain"
        ),
    )


def checks_of(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {check["id"]: check for dimension in result["dimensions"] for check in dimension["checks"]}


def assert_consistent(result: dict[str, Any]) -> None:
    """What every result must hold: the schema, sums, statuses, fixes within their gaps and ranked."""
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    if result["outcome"] != "scored":
        assert result["dimensions"] == [] and result["fixes"] == [] and result["score"] is None
        return
    tenths = 0
    for dimension in result["dimensions"]:
        dimension_tenths = sum(round(check["points"] * 10) for check in dimension["checks"])
        assert round(dimension["points"] * 10) == dimension_tenths
        assert dimension["weight"] == sum(check["weight"] for check in dimension["checks"])
        tenths += dimension_tenths
    assert result["score"] == (tenths + 5) // 10
    by_id = checks_of(result)
    for check in by_id.values():
        assert 0 <= check["points"] <= check["weight"]
        expected = "pass" if check["points"] == check["weight"] else "fail" if check["points"] == 0 else "partial"
        assert check["status"] == expected
    assert {fix["check"] for fix in result["fixes"]} == {c["id"] for c in by_id.values() if c["status"] != "pass"}
    for fix in result["fixes"]:
        check = by_id[fix["check"]]
        assert 0 < fix["points"] == round(check["weight"] - check["points"], 1) <= check["weight"]
    order = [
        (-f["points"], ("config", "template", "engineering").index(f["effort"]), f["check"]) for f in result["fixes"]
    ]
    assert order == sorted(order)
    split = result["split"]
    assert split["measured"]["weight"] + split["heuristic"]["weight"] == 100
    assert round((split["measured"]["points"] + split["heuristic"]["points"]) * 10) == tenths
    band = next(b["grade"] for b in TABLE["grades"] if result["score"] >= b["min"])
    assert result["grade"] == band


# The catalog and the code


def test_the_catalog_lists_the_checks_and_weights_the_code_implements() -> None:
    declared = {d["id"]: {c["id"]: c["weight"] for c in d["checks"]} for d in TABLE["dimensions"]}
    assert declared == checks.DIMENSIONS
    assert [d["weight"] for d in TABLE["dimensions"]] == [28, 18, 20, 10, 6, 10, 8]
    implemented = set(checks.CHECKS) | {"context_cost"}
    assert {c for d in declared.values() for c in d} == implemented
    assert len(implemented) == 22
    for dimension in TABLE["dimensions"]:
        assert sum(c["weight"] for c in dimension["checks"]) == dimension["weight"]
        for check in dimension["checks"]:
            assert check["basis"] in {"measured", "heuristic"} and check["effort"] in {
                "config",
                "template",
                "engineering",
            }
            assert all(check[key].strip() for key in ("title", "measures", "rule", "fix"))


def test_the_catalog_page_kinds_and_facts_are_the_code_s() -> None:
    kinds = TABLE["page_kinds"]
    assert list(kinds) == ["product", "collection", "article", "place", "service", "faq", "document", "unknown"]
    assert {kind: tuple(entry["core_facts"]) for kind, entry in kinds.items()} == page.CORE_FACTS
    assert {fact for facts in page.CORE_FACTS.values() for fact in facts} == set(TABLE["facts"])
    assert all(entry["reference_bytes"] > 0 for entry in kinds.values())
    assert list(TABLE["outcomes"]["unscored"]) == [
        "robots_unavailable",
        "robots_disallows_scanner",
        "unreachable",
        "too_many_redirects",
        "truncated_evidence",
        "non_2xx",
        "blocked_at_edge",
    ]


def test_a_table_that_disagrees_with_the_code_is_refused() -> None:
    table = json.loads(json.dumps(TABLE))
    table["dimensions"][0]["checks"][0]["weight"] = 12
    with pytest.raises(ValueError, match="weights"):
        score(evidence(), table)


# Outcomes


@pytest.mark.parametrize(
    ("ev", "reason"),
    [
        (evidence(robots=probe("https://shop.example/robots.txt", "oops", status=503)), "robots_unavailable"),
        (evidence(robots=probe("https://shop.example/robots.txt", error="too_large")), "robots_unavailable"),
        (evidence(robots=probe("https://shop.example/robots.txt", error="timeout")), "robots_unavailable"),
        (evidence(robots=probe("https://shop.example/robots.txt", error="unreachable")), "unreachable"),
        (evidence(robots=probe("https://shop.example/robots.txt", "moved", status=301)), "robots_unavailable"),
        (evidence(robots=None, verdict="unreadable"), "robots_unavailable"),
        (evidence(verdict="unreadable"), "robots_unavailable"),
        (evidence(robots="User-agent: netglean\nDisallow: /\n", verdict="disallowed"), "robots_disallows_scanner"),
        (evidence(agent=probe(URL, error="unreachable"), browser=probe(URL, error="timeout")), "unreachable"),
        (
            evidence(agent=probe(URL, error="blocked_address"), browser=probe(URL, error="blocked_address")),
            "unreachable",
        ),
        (
            evidence(agent=probe(URL, error="too_many_redirects"), browser=probe(URL, error="too_many_redirects")),
            "too_many_redirects",
        ),
        (evidence(agent=probe(URL, error="too_large"), browser=probe(URL, error="too_large")), "truncated_evidence"),
        (evidence(agent=probe(URL, "missing", status=404), browser=probe(URL, "missing", status=404)), "non_2xx"),
        (
            evidence(agent=probe(URL, error="too_large"), browser=probe(URL, "missing", status=500)),
            "truncated_evidence",
        ),
    ],
)
def test_each_unscored_reason(ev: Evidence, reason: str) -> None:
    result = score(ev, TABLE)
    assert (result["outcome"], result["reason"], result["grade"], result["page_kind"]) == (
        "unscored",
        reason,
        None,
        None,
    )
    assert_consistent(result)


def test_a_bot_wall_is_blocked_at_the_edge_whatever_its_status() -> None:
    wall = "<html><head><title>Just a moment...</title></head><body><div id='cf-chl-widget'></div></body></html>"
    challenged = probe(URL, wall, status=403, headers={"server": "cloudflare", "cf-mitigated": "challenge"})
    for ev in (
        evidence(agent=challenged, browser=challenged),
        evidence(agent=probe(URL, wall), browser=probe(URL, wall)),  # a 200 that is the wall
    ):
        result = score(ev, TABLE)
        assert (result["outcome"], result["reason"]) == ("unscored", "blocked_at_edge")
        assert_consistent(result)


def test_opt_out_when_every_assistant_is_disallowed_before_the_scanner_s_own_verdict() -> None:
    everyone = score(evidence(robots="User-agent: *\nDisallow: /\n", verdict="disallowed"), TABLE)
    assert (everyone["outcome"], everyone["reason"], everyone["score"]) == ("opt_out", None, None)
    agents = "".join(f"User-agent: {agent}\n" for agent in checks.ASSISTANTS) + "Disallow: /p/\n"
    named = score(evidence(robots=agents), TABLE)
    assert named["outcome"] == "opt_out"
    assert_consistent(named)


def test_some_assistants_disallowed_cost_robots_policy_points() -> None:
    result = score(evidence(robots="User-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /\n"), TABLE)
    robots = checks_of(result)["robots_policy"]
    assert (robots["points"], robots["status"], robots["evidence"]["refused"]) == (9.0, "partial", ["GPTBot"])


def test_a_missing_robots_txt_allows_everyone() -> None:
    result = score(evidence(robots=probe("https://shop.example/robots.txt", "nope", status=404)), TABLE)
    assert result["outcome"] == "scored" and checks_of(result)["robots_policy"]["status"] == "pass"


def test_an_agent_refused_where_a_browser_is_served_is_scored_unreachable_for_agents() -> None:
    result = score(evidence(agent=probe(URL, "no", status=406)), TABLE)
    assert result["outcome"] == "scored"
    assert checks_of(result)["reachable"]["points"] == 0
    assert_consistent(result)


def test_an_agent_stopped_by_a_wall_a_browser_passes_is_not_reached() -> None:
    wall = "<html><head><title>Just a moment...</title></head><body><div id='cf-chl-widget'></div></body></html>"
    result = score(evidence(agent=probe(URL, wall)), TABLE)
    assert result["outcome"] == "scored" and result["page_kind"] == "product"
    assert checks_of(result)["reachable"]["points"] == 0
    assert checks_of(result)["core_facts"]["status"] == "pass"  # read from the browser's answer


def test_redirects_cost_reachable_points() -> None:
    result = score(evidence(agent=probe(URL, PRODUCT_HTML, redirects=2)), TABLE)
    assert checks_of(result)["reachable"]["points"] == 7.0


# Scores


def test_the_snippet_s_changes_raise_the_grade_and_close_the_fixes_they_address() -> None:
    plain, better = score(evidence(), TABLE), score(improved(), TABLE)
    assert_consistent(plain)
    assert_consistent(better)
    assert plain["page_kind"] == better["page_kind"] == "product"
    assert better["score"] > plain["score"]
    assert "ABCDF".index(better["grade"]) < "ABCDF".index(plain["grade"])
    closed = {
        "negotiated_response",
        "declared_alternates",
        "vary_accept",
        "substance_parity",
        "cache_validators",
        "llms_txt",
        "sitemap",
        "machine_endpoint",
    }
    before = {fix["check"] for fix in plain["fixes"]}
    after = {fix["check"] for fix in better["fixes"]}
    assert closed <= before
    assert not closed & after
    assert after <= before
    context = better["context_cost"]
    assert context["negotiated_type"] == "text/markdown"
    assert context["negotiated_tokens"] < context["html_tokens"]
    assert plain["context_cost"]["negotiated_bytes"] is None


def test_a_declared_alternate_is_compared_with_the_html() -> None:
    link = '<link rel="alternate" type="text/markdown" href="/p/trailrunner-2.md">'
    html = PRODUCT_HTML.replace("<style>", link + "<style>")
    md = probe(URL + ".md", PRODUCT_MD, content_type="text/markdown")
    result = checks_of(score(evidence(html, alternate=md), TABLE))
    assert result["declared_alternates"]["status"] == "pass"
    assert result["substance_parity"]["points"] >= 2.5
    assert result["negotiated_response"]["status"] == "fail"
    broken = checks_of(score(evidence(html, alternate=probe(URL + ".md", "no", status=404)), TABLE))
    assert broken["declared_alternates"]["points"] == 1.0


def test_plain_text_negotiation_earns_part_of_the_weight() -> None:
    agent = probe(URL, PRODUCT_MD, content_type="text/plain", headers={"vary": "accept"})
    result = checks_of(score(evidence(agent=agent), TABLE))
    assert result["negotiated_response"]["points"] == 5.0
    assert result["vary_accept"]["points"] == 1.5  # the agent's answer says Vary: Accept, the browser's does not


def test_fact_offsets_count_the_markup_an_agent_reads_before_them() -> None:
    script = "<script>var state = " + "[" + "0," * 40_000 + "0];</script>"
    body = "<h1>Trailrunner 2</h1><p>Price: $149.00, in stock.</p><button>Add to cart</button>"
    html = f'<html><head><meta property="og:type" content="product">{script}</head><body>{body}</body></html>'
    plain = checks_of(score(evidence(html), TABLE))
    assert plain["first_fact_offset"]["evidence"]["offset_chars"] > 80_000
    assert plain["first_fact_offset"]["points"] == 0 and plain["front_window"]["points"] == 0
    markdown = probe(URL, "# Trailrunner 2\n\nPrice: $149.00, in stock.\n", content_type="text/markdown")
    negotiated = checks_of(score(evidence(html, agent=markdown), TABLE))
    assert negotiated["first_fact_offset"]["points"] == 5
    assert negotiated["front_window"]["points"] > 0


def test_canonical_partial_credit() -> None:
    def canonical_points(href: str) -> float:
        html = PRODUCT_HTML.replace('href="https://shop.example/p/trailrunner-2"', f'href="{href}"')
        return float(checks_of(score(evidence(html), TABLE))["canonical"]["points"])

    assert canonical_points("https://shop.example/p/trailrunner-2/#top") == 4.0
    assert canonical_points("https://shop.example/p/other") == 2.0
    assert canonical_points("https://elsewhere.example/p/trailrunner-2") == 1.0
    assert canonical_points("") == 0.0  # an empty href declares nothing
    assert (
        float(
            checks_of(score(evidence(PRODUCT_HTML.replace('rel="canonical"', 'rel="x"')), TABLE))["canonical"]["points"]
        )
        == 0
    )


def test_link_headers_declare_canonical_and_machine_endpoints() -> None:
    headers = {"link": f'<{URL}>; rel=canonical, </openapi.json>; rel="service-desc"; type="application/json"'}
    html = PRODUCT_HTML.replace('rel="canonical"', 'rel="x"')
    result = checks_of(score(evidence(html, agent=probe(URL, html, headers=headers)), TABLE))
    assert result["canonical"]["points"] == 4.0
    assert result["machine_endpoint"]["evidence"]["declared_in"] == ["link_header"]
    known = evidence()
    known["well_known"] = {"api_catalog": probe("https://shop.example/.well-known/api-catalog", "{}")}
    assert checks_of(score(known, TABLE))["machine_endpoint"]["evidence"]["well_known"] == ["api_catalog"]


def test_an_html_llms_txt_is_no_llms_txt() -> None:
    soft = probe("https://shop.example/llms.txt", "# Not found page")  # a 200 HTML page
    assert checks_of(score(evidence(llms_txt=soft), TABLE))["llms_txt"]["points"] == 0
    real = probe("https://shop.example/llms.txt", "\ufeff# Shop\n", content_type="text/markdown")
    assert checks_of(score(evidence(llms_txt=real), TABLE))["llms_txt"]["points"] == 1


def test_summaries_and_titles_never_carry_page_text() -> None:
    for result in (score(evidence(), TABLE), score(improved(), TABLE)):
        outside = [c["summary"] for c in checks_of(result).values()] + [
            f"{fix['title']} {fix['fix']}" for fix in result["fixes"]
        ]
        for text in outside:
            assert "Trailrunner" not in text and "shop.example" not in text and "Outfitters" not in text


def test_the_same_evidence_gives_the_same_bytes() -> None:
    first = json.dumps(score(improved(), TABLE), sort_keys=True)
    shuffled = improved()
    assert shuffled["agent"] is not None
    shuffled["agent"]["headers"] = dict(reversed(list(shuffled["agent"]["headers"].items())))
    assert json.dumps(score(shuffled, TABLE), sort_keys=True) == first
    assert json.dumps(score(improved(), TABLE), sort_keys=True) == first


# Page kinds


def _kind_of(html: str) -> str:
    result = score(evidence(html, url="https://site.example/x"), TABLE)
    assert_consistent(result)
    return str(result["page_kind"])


def _ld(data: dict[str, Any]) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_page_kinds_from_json_ld_og_type_and_shape() -> None:
    prose = "<p>" + "Ferries run across the bay every hour, and the crossing takes forty minutes. " * 30 + "</p>"
    article = _ld({"@type": "NewsArticle", "headline": "Ferries", "author": {"name": "A. Writer"}})
    assert _kind_of(f"<html><head>{article}</head><body><h1>Ferries</h1>{prose}</body></html>") == "article"
    graph = _ld({"@graph": [{"@type": "WebPage"}, {"@type": "ItemList", "itemListElement": []}, {"@type": "Product"}]})
    assert _kind_of(f"<html><head>{graph}</head><body>{prose}</body></html>") == "product"
    place = _ld({"@type": "Restaurant", "name": "Harbour Grill", "telephone": "+44 20 7946 0000"})
    assert _kind_of(f"<html><head>{place}</head><body>{prose}</body></html>") == "place"
    og = '<meta property="og:type" content="article">'
    assert _kind_of(f"<html><head>{og}</head><body>{prose}</body></html>") == "article"
    faq = "".join(f"<h2>Question {n}?</h2><p>Answer number {n} is plain and short.</p>" for n in range(4))
    assert _kind_of(f"<html><body><main>{faq}</main></body></html>") == "faq"
    cards = "".join(f'<li class="card"><a href="/i/{n}">Item {n}</a></li>' for n in range(8))
    assert _kind_of(f"<html><body><main><h1>All</h1><ul>{cards}</ul></main></body></html>") == "collection"
    assert _kind_of(f"<html><body>{prose}</body></html>") == "unknown"


def test_faq_facts_from_json_ld() -> None:
    faq = _ld(
        {
            "@type": "FAQPage",
            "name": "Help",
            "mainEntity": [
                {
                    "@type": "Question",
                    "name": "How long is delivery?",
                    "acceptedAnswer": {"text": "Three to five working days."},
                }
            ],
        }
    )
    shown = "<h2>How long is delivery?</h2><p>Three to five working days.</p>"
    html = f"<html><head><title>Help</title>{faq}</head><body>{shown}</body></html>"
    result = score(evidence(html, url="https://site.example/help"), TABLE)
    assert result["page_kind"] == "faq"
    core = checks_of(result)["core_facts"]
    assert core["status"] == "pass" and checks_of(result)["required_properties"]["status"] == "pass"


# Hostile evidence


def test_a_json_ld_bomb_is_read_within_its_caps() -> None:
    deep: Any = {"@type": "Thing", "name": "leaf"}
    for _ in range(95):  # under the parser's depth limit, far past the checks'
        deep = {"@type": "Thing", "child": [deep]}
    wide = {"@type": "Product", "name": "Bomb", "offers": [{"@type": "Offer", "price": str(n)} for n in range(60_000)]}
    html = f"<html><head>{_ld(deep)}{_ld(wide)}</head><body><h1>Bomb</h1></body></html>"
    tree_nodes = page.ld_nodes([deep, wide])
    assert len(tree_nodes) <= page.MAX_LD_NODES
    result = score(evidence(html, url="https://site.example/bomb"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)
    assert len(json.dumps(checks_of(result)["structured_data_present"]["evidence"])) < 2_000


def test_a_2_mib_page_with_many_links_is_scored_and_bounded() -> None:
    links = "".join(f'<a href="/l/{n}">link {n}</a> ' for n in range(20_000))
    heads = "".join(f'<link rel="alternate" type="application/json" href="/j/{n}">' for n in range(5_000))
    body = "<p>" + "A boot weighs 540 g and costs $149. " * 40_000 + "</p>"
    html = f"<html><head>{heads}</head><body><nav>{links}</nav><main>{body}</main></body></html>"
    assert len(html) > 2 * 1024 * 1024
    result = score(evidence(html, url="https://site.example/huge"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)
    assert len(json.dumps(result)) < 50_000  # evidence is clipped, not the page echoed


# Real pages


@pytest.mark.parametrize("name", ["001", "ars-1", "aclu", "archive-of-our-own"])
def test_real_pages_score_consistently(name: str) -> None:
    html = (CORPUS / name / "source.html").read_text(errors="replace")
    result = score(evidence(html, url=f"https://pages.example/{name}"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)


@pytest.mark.timeout(60)
def test_text_built_to_make_the_fact_patterns_backtrack_is_read_in_linear_time() -> None:
    """Found by review: opening hours after a run of spaces were cubic (600 spaces, 13 s), a price in a run of
    digits quadratic (40,000 digits, 31 s a search), llms.txt's line patterns quadratic on a long line. Each such
    input is now far past where it took minutes, and the scan is scored (pytest-timeout ends a hang)."""
    place = {"@type": "LocalBusiness", "name": "Tea room"}
    body = f"<p>mon{' ' * 20_000}x</p><p>{'1' * 50_000}</p><p>€{'9' * 50_000}</p>"
    html = f"<html><head>{_ld(place)}</head><body><main><h1>Tea room</h1>{body}</main></body></html>"
    llms = probe(
        "https://shop.example/llms.txt",
        f"# Tea\n#{' ' * 1_000_000}x\n- [a]({' ' * 100_000}\n",
        content_type="text/plain",
    )
    result = score(evidence(html, llms_txt=llms), TABLE)
    assert result["outcome"] == "scored" and result["page_kind"] == "place"
    structure = next(item for item in result["findings"] if item["id"] == "llms_txt_structure")
    assert structure["status"] in {"partial", "invalid"}


# Grades


PUBLISHED_BANDS = [("A", 90), ("B", 75), ("C", 60), ("D", 40), ("F", 0)]
"""ARS's grade bands as Rebilder publishes them (packages/agent-readability, src/ruleset.ts, BANDS: A 90-100,
B 75-89, C 60-74, D 40-59, F 0-39; unchanged from ARS 0.2 to 0.3), written here rather than read from the catalog,
so that a band moved in scale.yaml fails a test instead of changing every grade."""


def test_the_scale_s_grade_bands_are_ars_s_published_ones() -> None:
    assert [(band["grade"], band["min"]) for band in TABLE["grades"]] == PUBLISHED_BANDS


@pytest.mark.parametrize(
    ("value", "grade"),
    [(100, "A"), (90, "A"), (89, "B"), (75, "B"), (74, "C"), (60, "C"), (59, "D"), (40, "D"), (39, "F"), (0, "F")],
)
def test_a_score_on_a_band_s_floor_is_in_that_band(value: int, grade: str) -> None:
    assert grade_of(value, TABLE["grades"]) == grade
