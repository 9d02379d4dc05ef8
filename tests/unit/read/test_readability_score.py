"""The agent-readability score (ARS 0.3): outcomes, every check at the edges of its bands, fixes,
and the catalog's numbers held to ARS's published ones."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from netglean.read.readability import checks
from netglean.read.readability.evidence import FORMAT, Evidence, Probe
from netglean.read.readability.facts import JSON_LD_NODES, json_ld
from netglean.read.readability.markup import SPACES
from netglean.read.readability.score import grade_of, score

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "readability"
CORPUS = ROOT / "tests" / "corpora" / "readability-test-pages" / "pages"
URL = "https://shop.example/p/trailrunner-2"
ORIGIN = "https://shop.example"
PRODUCT_HTML = (FIXTURES / "product.html").read_text()
PRODUCT_MD = (FIXTURES / "product.md").read_text()
OPEN = "User-agent: *\nAllow: /\n"
MAPPED = OPEN + "Sitemap: https://shop.example/sitemap.xml\n"


def load_table() -> dict[str, Any]:
    """The readability table as codegen emits it: scale.yaml with the findings."""
    table = yaml.safe_load((ROOT / "catalog" / "readability" / "scale.yaml").read_text())
    table["findings"] = yaml.safe_load(
        (ROOT / "catalog" / "readability" / "findings.yaml").read_text()
    )["findings"]
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
    final_url: str | None = None,
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
        final_url=final_url or url,
        status=status,
        headers=dict(sorted({"content-type": content_type, **(headers or {})}.items())),
        redirects=[{"url": f"{url}?hop={n}", "status": 301} for n in range(redirects)],
        body=body,
        bytes=len(body.encode()),
        error=None,
    )


def markdown(body: str, url: str = URL, **headers: str) -> Probe:
    return probe(url, body, content_type="text/markdown; charset=utf-8", headers=headers)


def evidence(
    html: str = PRODUCT_HTML,
    *,
    robots: Probe | str | None = OPEN,
    verdict: str = "allowed",
    agent: Probe | None = None,
    browser: Probe | None = None,
    llms_txt: Probe | None = None,
    alternate: Probe | None = None,
    ucp: Probe | None = None,
    url: str = URL,
) -> Evidence:
    origin = "/".join(url.split("/")[:3])
    if isinstance(robots, str):
        robots = probe(f"{origin}/robots.txt", robots, content_type="text/plain")
    return Evidence(
        format=FORMAT,
        url=url,
        vantage="public",
        robots=robots,
        robots_verdict=verdict,
        agent=agent if agent is not None else probe(url, html),
        browser=browser if browser is not None else probe(url, html),
        llms_txt=llms_txt
        if llms_txt is not None
        else probe(f"{origin}/llms.txt", "gone", status=404),
        alternate=alternate,
        ucp=ucp if ucp is not None else probe(f"{origin}/.well-known/ucp", "gone", status=404),
        well_known={},
        max_bytes=10_000_000,
    )


def checks_of(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        check["id"]: check for dimension in result["dimensions"] for check in dimension["checks"]
    }


def points(ev: Evidence, check: str) -> int:
    result = score(ev, TABLE)
    assert_consistent(result)
    return int(checks_of(result)[check]["points"])


ORDER = [check["id"] for dimension in TABLE["dimensions"] for check in dimension["checks"]]


def assert_consistent(result: dict[str, Any]) -> None:
    """What every result must hold: the schema, sums, statuses, and fixes that together promise
    exactly the points missing, each gap once."""
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    if result["outcome"] != "scored":
        assert result["dimensions"] == [] and result["fixes"] == [] and result["score"] is None
        return
    total = 0
    for dimension in result["dimensions"]:
        assert dimension["points"] == sum(check["points"] for check in dimension["checks"])
        assert dimension["weight"] == sum(check["weight"] for check in dimension["checks"])
        total += dimension["points"]
    assert result["score"] == total
    by_id = checks_of(result)
    for check in by_id.values():
        assert 0 <= check["points"] <= check["weight"]
        expected = (
            "pass"
            if check["points"] == check["weight"]
            else "fail"
            if check["points"] == 0
            else "partial"
        )
        assert check["status"] == expected
    claimed = [ident for fix in result["fixes"] for ident in (fix["check"], *fix["unlocks"])]
    assert sorted(claimed) == sorted(c["id"] for c in by_id.values() if c["status"] != "pass")
    for fix in result["fixes"]:
        gaps = [
            by_id[ident]["weight"] - by_id[ident]["points"]
            for ident in (fix["check"], *fix["unlocks"])
        ]
        assert fix["points"] == sum(gaps) > 0
    assert sum(fix["points"] for fix in result["fixes"]) == 100 - result["score"]
    efforts = ("config", "template", "engineering")
    order = [
        (-f["points"], efforts.index(f["effort"]), ORDER.index(f["check"])) for f in result["fixes"]
    ]
    assert order == sorted(order)
    split = result["split"]
    assert (split["measured"]["weight"], split["heuristic"]["weight"]) == (63, 37)
    assert split["measured"]["points"] + split["heuristic"]["points"] == total
    assert result["grade"] == grade_of(result["score"], TABLE["grades"])


# The catalog and ARS


ARS_WEIGHTS = {
    "retrievability": {"reachable": 11, "robots_policy": 10, "render_independence": 7},
    "machine_representation": {
        "negotiated_response": 9,
        "declared_alternates": 3,
        "vary_accept": 3,
        "substance_parity": 3,
    },
    "fact_coverage": {"core_facts": 14, "context_cost": 6},
    "fact_position": {"first_fact_offset": 5, "front_window": 5},
    "structured_data": {
        "structured_data_present": 2,
        "required_properties": 3,
        "text_agreement": 1,
    },
    "contract_discovery": {
        "canonical": 4,
        "cache_validators": 2,
        "llms_txt": 1,
        "sitemap": 1,
        "machine_endpoint": 2,
    },
    "evidence_density": {"quantities": 4, "definitions": 2, "comparisons": 2},
}
"""ARS 0.3's weights (ruleset.ts WEIGHTS, check ids in netglean's spelling: structured-data.present
is structured_data_present, fact-position.first-core-fact-offset is first_fact_offset), written here
so that a weight moved in the catalog or the code fails a test."""
ARS_HEURISTIC = {
    "render_independence",
    "substance_parity",
    "core_facts",
    "first_fact_offset",
    "front_window",
    "text_agreement",
    "definitions",
}
"""The checks ARS labels heuristic (ruleset.ts CHECK_META): 37 points; the other 63 are measured."""
ARS_PROFILES = {
    "product": ("title price currency availability", "brand sku shipping returns description"),
    "collection": ("title item_count item_link", "price availability description"),
    "article": ("title author published", "updated section description"),
    "place": ("org_name address hours phone", "email service_area primary_action_url description"),
    "service": (
        "title price primary_action_url",
        "duration eligibility service_area description updated",
    ),
    "faq": ("title question_answer", "updated description"),
    "document": ("title updated authority", "description primary_action_url section"),
    "unknown": ("title description primary_action_url", "updated org_name"),
}
ARS_REFERENCES = {
    "product": 8192, "collection": 16384, "article": 40960, "place": 8192, "service": 8192,
    "faq": 16384, "document": 24576, "unknown": 16384,
}  # fmt: skip
"""ARS's page-kind profiles (profiles.ts PROFILE_BY_KIND): core facts and extended facts, and
(ARS_REFERENCES) the bytes a page of the kind reasonably costs."""
PUBLISHED_BANDS = [("A", 90), ("B", 75), ("C", 60), ("D", 40), ("F", 0)]
"""ARS's grade bands as Rebilder publishes them (ruleset.ts BANDS: A 90-100, B 75-89, C 60-74, D
40-59, F 0-39; unchanged from ARS 0.2 to 0.3), written here rather than read from the catalog, so
that a band moved in scale.yaml fails a test instead of changing every grade."""


def test_the_scale_is_ars_0_3_with_its_published_weights_and_bases() -> None:
    assert TABLE["name"] == "ARS 0.3"
    declared = {d["id"]: {c["id"]: c["weight"] for c in d["checks"]} for d in TABLE["dimensions"]}
    assert declared == checks.DIMENSIONS == ARS_WEIGHTS
    assert [d["weight"] for d in TABLE["dimensions"]] == [28, 18, 20, 10, 6, 10, 8]
    assert set(checks.CHECKS) == {c for d in declared.values() for c in d}
    heuristic = {
        c["id"] for d in TABLE["dimensions"] for c in d["checks"] if c["basis"] == "heuristic"
    }
    assert heuristic == ARS_HEURISTIC
    assert (
        sum(c["weight"] for d in TABLE["dimensions"] for c in d["checks"] if c["id"] in heuristic)
        == 37
    )
    for dimension in TABLE["dimensions"]:
        for check in dimension["checks"]:
            assert check["effort"] in {"config", "template", "engineering"}
            assert all(check[key].strip() for key in ("title", "measures", "rule", "fix"))


def test_the_page_kinds_are_ars_s_profiles() -> None:
    kinds = TABLE["page_kinds"]
    profiles = {
        kind: (" ".join(e["core_facts"]), " ".join(e["extended_facts"]))
        for kind, e in kinds.items()
    }
    assert profiles == ARS_PROFILES
    assert {kind: entry["reference_bytes"] for kind, entry in kinds.items()} == ARS_REFERENCES
    assert {
        fact for entry in kinds.values() for fact in entry["core_facts"] + entry["extended_facts"]
    } == set(TABLE["facts"])
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


def test_the_scale_s_grade_bands_are_ars_s_published_ones() -> None:
    assert [(band["grade"], band["min"]) for band in TABLE["grades"]] == PUBLISHED_BANDS


@pytest.mark.parametrize(
    ("value", "grade"),
    [
        (100, "A"),
        (90, "A"),
        (89, "B"),
        (75, "B"),
        (74, "C"),
        (60, "C"),
        (59, "D"),
        (40, "D"),
        (39, "F"),
        (0, "F"),
    ],
)
def test_a_score_on_a_band_s_floor_is_in_that_band(value: int, grade: str) -> None:
    assert grade_of(value, TABLE["grades"]) == grade


# Outcomes


@pytest.mark.parametrize(
    ("ev", "reason"),
    [
        (evidence(robots=probe(f"{ORIGIN}/robots.txt", "oops", status=503)), "robots_unavailable"),
        (evidence(robots=probe(f"{ORIGIN}/robots.txt", error="too_large")), "robots_unavailable"),
        (evidence(robots=probe(f"{ORIGIN}/robots.txt", error="timeout")), "robots_unavailable"),
        (evidence(robots=probe(f"{ORIGIN}/robots.txt", error="unreachable")), "unreachable"),
        (evidence(robots=probe(f"{ORIGIN}/robots.txt", "moved", status=301)), "robots_unavailable"),
        (evidence(robots=None, verdict="unreadable"), "robots_unavailable"),
        (evidence(verdict="unreadable"), "robots_unavailable"),
        (
            evidence(robots="User-agent: netglean\nDisallow: /\n", verdict="disallowed"),
            "robots_disallows_scanner",
        ),
        (evidence(agent=probe(URL, error="unreachable")), "unreachable"),
        (evidence(agent=probe(URL, error="blocked_address")), "unreachable"),
        (evidence(agent=probe(URL, error="too_many_redirects")), "too_many_redirects"),
        (evidence(agent=probe(URL, PRODUCT_HTML, redirects=4)), "too_many_redirects"),
        (evidence(agent=probe(URL, error="too_large")), "truncated_evidence"),
        (evidence(browser=probe(URL, error="too_large")), "truncated_evidence"),
        (evidence(agent=probe(URL, "missing", status=404)), "non_2xx"),
        # the browser's 200 does not make it scored
        (evidence(agent=probe(URL, "no", status=406)), "non_2xx"),
        (evidence(agent=probe(URL, "no", status=403)), "blocked_at_edge"),
        (evidence(agent=probe(URL, "slow down", status=429)), "blocked_at_edge"),
        (evidence(agent=probe(URL, "who?", status=401)), "blocked_at_edge"),
    ],
)
def test_each_unscored_reason_is_read_from_robots_txt_and_the_agent_s_answer(
    ev: Evidence, reason: str
) -> None:
    result = score(ev, TABLE)
    assert (result["outcome"], result["reason"], result["grade"], result["page_kind"]) == (
        "unscored",
        reason,
        None,
        None,
    )
    assert_consistent(result)


def test_a_bot_wall_is_blocked_at_the_edge_whatever_its_status() -> None:
    wall = (
        "<html><head><title>Just a moment...</title></head><body><div "
        "id='cf-chl-widget'></div></body></html>"
    )
    challenged = probe(
        URL, wall, status=503, headers={"server": "cloudflare", "cf-mitigated": "challenge"}
    )
    # the second a 200 that is the wall
    for ev in (evidence(agent=challenged), evidence(agent=probe(URL, wall))):
        result = score(ev, TABLE)
        assert (result["outcome"], result["reason"]) == ("unscored", "blocked_at_edge")


def test_a_named_assistant_group_disallowing_the_page_is_an_opt_out() -> None:
    result = score(
        evidence(robots="User-agent: ChatGPT-User\nUser-agent: Claude-User\nDisallow: /p/\n"), TABLE
    )
    assert (result["outcome"], result["reason"], result["score"]) == ("opt_out", None, None)
    assert_consistent(result)


def test_blocking_only_training_crawlers_scores_as_an_open_site_does() -> None:
    training = "".join(
        f"User-agent: {bot}\nDisallow: /\n\n" for bot in ("GPTBot", "ClaudeBot", "Google-Extended")
    )
    blocked, open_site = (
        score(evidence(robots=training + OPEN), TABLE),
        score(evidence(robots=OPEN), TABLE),
    )
    assert blocked["outcome"] == open_site["outcome"] == "scored"
    assert blocked["score"] == open_site["score"]
    assert checks_of(blocked)["robots_policy"]["points"] == 9  # open, clean, no sitemap
    assert [flag["id"] for flag in blocked["flags"]] == [
        "structured_data_divergence",
        "training_opt_out",
    ]


def test_a_blanket_disallow_is_scored_with_robots_at_zero_and_flagged() -> None:
    """User-agent: * / Disallow: / names no assistant, so it is no opt-out: where netglean may read
    the page (the operator's own site), the page is scored and the contradiction flagged; elsewhere
    netglean obeys it."""
    blanket = "User-agent: *\nDisallow: /\n"
    ours = score(evidence(robots=blanket, verdict="ignored"), TABLE)
    assert ours["outcome"] == "scored" and checks_of(ours)["robots_policy"]["points"] == 0
    assert "robots_contradiction" in [flag["id"] for flag in ours["flags"]]
    assert_consistent(ours)
    public = score(evidence(robots=blanket, verdict="disallowed"), TABLE)
    assert (public["outcome"], public["reason"]) == ("unscored", "robots_disallows_scanner")


def test_a_named_opt_out_in_a_malformed_file_is_scored_not_excused() -> None:
    messy = "User-agent: ChatGPT-User\nDisallow: /\nthis line means nothing\n"
    result = score(evidence(robots=messy), TABLE)
    assert result["outcome"] == "scored" and checks_of(result)["robots_policy"]["points"] == 0


# Retrievability


@pytest.mark.parametrize(
    ("robots", "expected"),
    [
        (MAPPED, 10),  # allowed 6 + clean 2 + no orphan 1 + sitemap 1
        (OPEN, 9),
        (MAPPED + "Content-Signal: ai-train=no\n", 8),  # a line ARS cannot read
        ("Disallow: /private\n" + MAPPED, 9),  # a rule before any User-agent
        (probe(f"{ORIGIN}/robots.txt", "none", status=404), 9),  # no robots.txt: clean, no sitemap
        ("User-agent: GPTBot\nDisallow: /\n", 9),  # training only
    ],
)
def test_robots_policy_points(robots: str | Probe, expected: int) -> None:
    assert points(evidence(robots=robots), "robots_policy") == expected


def test_reachable_points() -> None:
    assert points(evidence(), "reachable") == 11
    assert points(evidence(agent=probe(URL, PRODUCT_HTML, redirects=3)), "reachable") == 11
    elsewhere = probe(URL, PRODUCT_HTML, final_url=URL + "?view=html")
    assert points(evidence(browser=elsewhere), "reachable") == 8  # an Accept-conditional redirect
    # nothing to compare
    assert points(evidence(browser=probe(URL, error="timeout")), "reachable") == 8


SHOP = "https://shop.example/products/kettle"


def _kettle(body: str) -> str:
    return f"<html><head><title>Kettle</title></head><body>{body}</body></html>"


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        # title, price, currency, availability: 4 of 4
        (_kettle("<p>Now only $39.00</p><p>In stock</p>"), 7),
        (_kettle("<p>Now only $39.00</p>"), 5),  # 3 of 4 (75%)
        (_kettle("<p>In stock</p>"), 3),  # 2 of 4
        (_kettle("<p>A kettle.</p>"), 1),  # 1 of 4
        ("<html><body><p>A kettle.</p></body></html>", 0),
        # the noscript floor
        ("<html><body><noscript>Turn scripts on.</noscript></body></html>", 1),
    ],
)
def test_render_independence_bands(html: str, expected: int) -> None:
    assert points(evidence(html, url=SHOP), "render_independence") == expected


# Machine representation


def _declaring(href: str) -> str:
    return PRODUCT_HTML.replace(
        "<style>", f'<link rel="alternate" type="text/markdown" href="{href}"><style>'
    )


def test_negotiated_response_points() -> None:
    assert points(evidence(agent=markdown(PRODUCT_MD)), "negotiated_response") == 9
    plain = probe(URL, PRODUCT_MD, content_type="text/plain")
    assert points(evidence(agent=plain), "negotiated_response") == 9
    assert (
        points(
            evidence(agent=probe(URL, "{}", content_type="application/json")), "negotiated_response"
        )
        == 9
    )
    mislabelled = markdown(PRODUCT_HTML)  # typed markdown, but an HTML page
    assert points(evidence(agent=mislabelled), "negotiated_response") == 0
    assert points(evidence(), "negotiated_response") == 0


def test_a_linked_markdown_copy_earns_six_when_it_loads_and_costs_its_link_when_it_does_not() -> (
    None
):
    html = _declaring("/p/trailrunner-2.md")
    copy = URL + ".md"
    loaded = checks_of(score(evidence(html, alternate=markdown(PRODUCT_MD, copy)), TABLE))
    assert (loaded["negotiated_response"]["points"], loaded["declared_alternates"]["points"]) == (
        6,
        3,
    )
    assert loaded["substance_parity"]["points"] == 3  # compared with the HTML
    assert loaded["vary_accept"]["points"] == 0  # only the page's own URL negotiating counts
    broken = checks_of(score(evidence(html, alternate=probe(copy, "no", status=404)), TABLE))
    assert (broken["negotiated_response"]["points"], broken["declared_alternates"]["points"]) == (
        0,
        0,
    )
    refused = checks_of(
        score(evidence(html, alternate=probe(copy, error="robots_disallowed")), TABLE)
    )
    assert (refused["negotiated_response"]["points"], refused["declared_alternates"]["points"]) == (
        0,
        3,
    )
    elsewhere = checks_of(score(evidence(_declaring("https://cdn.example/x.md")), TABLE))
    assert (
        elsewhere["negotiated_response"]["points"],
        elsewhere["declared_alternates"]["points"],
    ) == (0, 3)


def test_declared_alternates_points() -> None:
    feed = {"link": '</feed.xml>; rel="alternate"; type="application/rss+xml"'}
    assert (
        points(evidence(agent=probe(URL, PRODUCT_HTML, headers=feed)), "declared_alternates") == 3
    )
    language = PRODUCT_HTML.replace(
        "<style>", '<link rel="alternate" hreflang="de" href="/de/p"><style>'
    )
    # a language, not another representation
    assert points(evidence(language), "declared_alternates") == 0
    assert points(evidence(), "declared_alternates") == 0


def test_vary_accept_counts_only_once_the_page_negotiates() -> None:
    varied = {"vary": "Accept"}
    html = probe(URL, PRODUCT_HTML, headers=varied)
    html_only = evidence(agent=html, browser=html)
    assert points(html_only, "vary_accept") == 0
    browser_says = evidence(
        agent=markdown(PRODUCT_MD), browser=probe(URL, PRODUCT_HTML, headers=varied)
    )
    assert points(browser_says, "vary_accept") == 3
    silent = score(evidence(agent=markdown(PRODUCT_MD)), TABLE)
    assert checks_of(silent)["vary_accept"]["points"] == 0
    assert "vary_missing" in [flag["id"] for flag in silent["flags"]]


def test_substance_parity_points() -> None:
    assert points(evidence(agent=markdown(PRODUCT_MD)), "substance_parity") == 3
    cheaper = PRODUCT_MD.replace("$149.00", "$139.00")
    assert points(evidence(agent=markdown(cheaper)), "substance_parity") == 0
    assert points(evidence(agent=markdown("Nothing to compare here.\n")), "substance_parity") == 0
    assert (
        points(
            evidence(agent=markdown(PRODUCT_MD), browser=probe(URL, error="timeout")),
            "substance_parity",
        )
        == 0
    )


# Fact coverage


KETTLE_LD = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Kettle",
    "offers": {
        "@type": "Offer",
        "price": "10.00",
        "priceCurrency": "USD",
        "availability": "https://schema.org/InStock",
    },
}
KETTLE_HTML = (
    "<html><head><title>Kettle</title><script "
    f'type="application/ld+json">{json.dumps(KETTLE_LD)}</script></head>'
    "<body><h1>Kettle</h1><p>$10.00, in stock.</p></body></html>"
)
KETTLE_MD = "# Kettle\n\nPrice: $10.00\n\nIn stock\n\n"


def _sized(text: str, size: int) -> str:
    """``text`` padded with letters that state nothing to ``size`` bytes."""
    return text + "x" * (size - len(text.encode()))


def kettle(agent_text: str, html: str = KETTLE_HTML) -> Evidence:
    return evidence(html, url=SHOP, agent=markdown(agent_text, SHOP))


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        # 4 core facts, each corroborated by the HTML (100% credit); kept by facts per KiB: 4 x 1024
        # / size.
        (2048, 14),  # 2 per KiB: 100% kept
        (2049, 12),  # 85%
        (4096, 12),
        (4097, 10),  # 70%
        (8192, 10),
        (8193, 7),  # 50%
        (20480, 7),
        (20481, 4),  # 30%
        (81920, 4),
        (81921, 2),  # 15%
    ],
)
def test_core_facts_keep_less_credit_as_the_answer_grows(size: int, expected: int) -> None:
    assert points(kettle(_sized(KETTLE_MD, size)), "core_facts") == expected


def test_core_facts_count_a_fact_said_once_for_half() -> None:
    bare = "<html><body><p>Nothing here.</p></body></html>"  # the HTML corroborates nothing
    assert points(kettle(_sized(KETTLE_MD, 1000), bare), "core_facts") == 7  # 50% x 100%
    no_stock = "# Kettle\n\nPrice: $10.00\n\n"
    assert points(kettle(_sized(no_stock, 1000)), "core_facts") == 11  # 3 of 4 corroborated: 75%
    result = score(kettle(_sized(no_stock, 1000)), TABLE)
    core = next(fix for fix in result["fixes"] if fix["check"] == "core_facts")
    assert core["fix"].startswith("State the availability in what agents receive")


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (8273, 6),
        (8274, 5),
        (16465, 5),
        (16466, 3),
        (41041, 3),
        (41042, 1),
        (122961, 1),
        (122962, 0),
    ],
)
def test_context_cost_bands_against_the_kind_s_reference(size: int, expected: int) -> None:
    """A product's reference is 8,192 bytes; the ratio is 100 x size // 8192 (100 up to 8,273
    bytes)."""
    assert points(kettle(_sized(KETTLE_MD, size)), "context_cost") == expected


# Fact position


@pytest.mark.parametrize(
    ("offset", "expected"),
    [(512, 5), (513, 4), (2048, 4), (2049, 2), (8192, 2), (8193, 1), (32768, 1), (32769, 0)],
)
def test_first_fact_offset_bands(offset: int, expected: int) -> None:
    text = "x" * (offset - 1) + "\n" + KETTLE_MD
    assert points(kettle(text), "first_fact_offset") == expected


def test_no_core_fact_leaves_no_position_to_score() -> None:
    result = score(kettle("Nothing to say.\n", "<html><body><p>Nothing.</p></body></html>"), TABLE)
    assert (
        checks_of(result)["first_fact_offset"]["points"]
        == checks_of(result)["front_window"]["points"]
        == 0
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (KETTLE_MD + "x" * 3000, 5),  # all 4 of 4 in the first 2,048 bytes
        ("# Kettle\n\nPrice: $10.00\n" + "x" * 3000 + "\nIn stock\n", 4),  # 3 of 4 (75%)
        ("# Kettle\n\nIn stock\n" + "x" * 3000 + "\nPrice: $10.00\n", 3),  # 2 of 4
        ("# Kettle\n" + "x" * 3000 + "\nPrice: $10.00\n\nIn stock\n", 1),  # 1 of 4
        ("x" * 3000 + "\n" + KETTLE_MD, 0),
        ("x" * 2046 + "\n# Kettle\n", 5),  # the window's last byte
        ("x" * 2047 + "\n# Kettle\n", 0),  # its first byte past
        # a 20 KiB answer's window is a fifth of it: 4,096
        (_sized("x" * 4094 + "\n# Kettle\n", 20480), 5),
    ],
)
def test_front_window_bands(text: str, expected: int) -> None:
    assert (
        points(kettle(text, "<html><body><p>Nothing.</p></body></html>"), "front_window")
        == expected
    )


# Structured data


def _ld(data: Any) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def _with_head(head: str, body: str = "<h1>Kettle</h1><p>$10.00, in stock.</p>") -> str:
    return f"<html><head><title>Kettle</title>{head}</head><body>{body}</body></html>"


def test_structured_data_present_points() -> None:
    assert points(kettle(KETTLE_MD), "structured_data_present") == 2
    broken = '<script type="application/ld+json">{"@type": "Product",</script>'
    assert (
        points(kettle(KETTLE_MD, _with_head(_ld(KETTLE_LD) + broken)), "structured_data_present")
        == 1
    )
    assert points(kettle(KETTLE_MD, _with_head(broken)), "structured_data_present") == 0
    microdata = _with_head(
        "", '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">K</h1></div>'
    )
    assert points(kettle(KETTLE_MD, microdata), "structured_data_present") == 2
    assert points(kettle(KETTLE_MD, _with_head("")), "structured_data_present") == 0


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (KETTLE_LD, 3),  # 1 for a Product, 2 x 4/4
        # 3/4: 2 x 0.75 = 1.5, half up
        ({**KETTLE_LD, "offers": {"price": "10.00", "priceCurrency": "USD"}}, 3),
        ({**KETTLE_LD, "offers": {"price": "10.00"}}, 2),  # 2/4
        ({"@type": "Product", "name": "Kettle"}, 2),  # 1/4: 0.5, half up
        ({"@type": "Product"}, 1),
        # no Product: any type ARS knows is scored, 1 + 2 x 1/4
        ({"@type": "Thing", "name": "Kettle"}, 2),
        ({"@type": "Gadget", "name": "Kettle"}, 0),  # a type ARS does not know
    ],
)
def test_required_properties_points(item: dict[str, Any], expected: int) -> None:
    html = _with_head(_ld(item) + '<meta property="og:type" content="product">')
    assert points(kettle(KETTLE_MD, html), "required_properties") == expected


def test_text_agreement_points() -> None:
    assert points(kettle(KETTLE_MD), "text_agreement") == 1
    cheaper = _with_head(_ld({**KETTLE_LD, "offers": {**KETTLE_LD["offers"], "price": "9.00"}}))
    result = score(kettle(KETTLE_MD, cheaper), TABLE)
    assert checks_of(result)["text_agreement"]["points"] == 0
    assert "structured_data_divergence" in [flag["id"] for flag in result["flags"]]
    nothing = _with_head(_ld({"@type": "Product", "description": "A kettle."}), "<p>A kettle.</p>")
    assert points(kettle(KETTLE_MD, nothing), "text_agreement") == 0


# Contract and discovery


def test_canonical_points() -> None:
    def with_canonical(href: str) -> str:
        return PRODUCT_HTML.replace('href="https://shop.example/p/trailrunner-2"', f'href="{href}"')

    assert points(evidence(), "canonical") == 4  # present, absolute, the same for agents
    assert points(evidence(with_canonical("/p/trailrunner-2")), "canonical") == 3  # not absolute
    assert points(evidence(PRODUCT_HTML.replace('rel="canonical"', 'rel="x"')), "canonical") == 0
    assert points(evidence(agent=markdown(PRODUCT_MD)), "canonical") == 3  # the markdown names none
    named = markdown(PRODUCT_MD, link=f'<{URL}>; rel="canonical"')
    assert points(evidence(agent=named), "canonical") == 4
    other = score(
        evidence(agent=markdown(PRODUCT_MD, link='<https://shop.example/x>; rel="canonical"')),
        TABLE,
    )
    assert checks_of(other)["canonical"]["points"] == 3
    assert "canonical_mismatch" in [flag["id"] for flag in other["flags"]]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"cache-control": "max-age=60", "etag": '"v1"'}, 2),
        ({"etag": '"v1"'}, 1),
        ({"cache-control": "public, max-age=60"}, 1),
        ({"cache-control": "no-cache", "last-modified": "Mon, 01 Jan 2024 00:00:00 GMT"}, 2),
        ({"cache-control": "no-cache"}, 0),
        ({"cache-control": "no-store, max-age=60", "etag": '"v1"'}, 1),
        ({"cache-control": "max-age=0", "etag": '"v1"'}, 1),
        ({}, 0),
    ],
)
def test_cache_validators_points(headers: dict[str, str], expected: int) -> None:
    assert (
        points(evidence(agent=probe(URL, PRODUCT_HTML, headers=headers)), "cache_validators")
        == expected
    )


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        ("# Shop\n\n> Boots.\n\n- [Boots](https://shop.example/boots)\n", 200, 1),
        ("# Shop\n\n> Boots.\n", 200, 0),  # no link
        ("Shop\n\n- [Boots](https://shop.example/boots)\n", 200, 0),  # no title
        ("# Shop\n\n- [Boots](https://shop.example/boots)\n", 404, 0),
    ],
)
def test_llms_txt_points(body: str, status: int, expected: int) -> None:
    llms = probe(f"{ORIGIN}/llms.txt", body, content_type="text/plain", status=status)
    assert points(evidence(llms_txt=llms), "llms_txt") == expected


def test_sitemap_points() -> None:
    assert points(evidence(robots=MAPPED), "sitemap") == 1
    assert points(evidence(robots=OPEN), "sitemap") == 0


def test_machine_endpoint_points() -> None:
    def declared(**parts: Any) -> int:
        return points(evidence(**parts), "machine_endpoint")

    assert (
        declared(
            agent=probe(URL, PRODUCT_HTML, headers={"link": '</openapi.json>; rel="service-desc"'})
        )
        == 2
    )
    feed = PRODUCT_HTML.replace(
        "<style>", '<link rel="alternate" type="application/rss+xml" href="/feed"><style>'
    )
    assert declared(html=feed) == 2
    assert declared(html=_declaring("/p/trailrunner-2.md")) == 0  # a markdown copy is no endpoint
    llms = probe(f"{ORIGIN}/llms.txt", "# Shop\n\n- [API](/api/docs)\n", content_type="text/plain")
    assert declared(llms_txt=llms) == 2
    assert (
        declared(
            ucp=probe(
                f"{ORIGIN}/.well-known/ucp", '{"version": 1}', content_type="application/json"
            )
        )
        == 2
    )
    assert declared() == 0


# Evidence density


@pytest.mark.parametrize(
    ("count", "expected"), [(0, 0), (1, 1), (2, 1), (3, 2), (5, 2), (6, 3), (11, 3), (12, 4)]
)
def test_quantities_bands(count: int, expected: int) -> None:
    text = KETTLE_MD + ", ".join(f"{n} kg" for n in range(1, count + 1)) + "\n"
    text = text.replace("$10.00", "ten dollars")  # the price is a quantity too
    assert points(kettle(text), "quantities") == expected


def test_quantities_count_each_value_once_and_only_ars_s_units() -> None:
    assert points(kettle("5 kg, 5kg and 5 KG.\n"), "quantities") == 1
    # a tonne is no unit of ARS's
    assert points(kettle("312 tonnes of grain.\n"), "quantities") == 0


@pytest.mark.parametrize(("count", "expected"), [(1, 0), (2, 1), (5, 1), (6, 2)])
def test_definitions_bands(count: int, expected: int) -> None:
    lines = "".join(f"- Part {n}: steel\n" for n in range(count))
    assert points(kettle(lines), "definitions") == expected
    items = "".join(f"<li>Part {n}: steel</li>" for n in range(count))
    assert points(evidence(_kettle(f"<ul>{items}</ul>"), url=SHOP), "definitions") == expected


@pytest.mark.parametrize(("rows", "expected"), [(1, 0), (2, 1), (3, 2)])
def test_comparisons_bands(rows: int, expected: int) -> None:
    cells = "".join(f"<tr><td>{n} L</td><td>{n} kg</td></tr>" for n in range(rows))
    html = _kettle(
        f"<table><tr><th>Size</th><th>Weight</th></tr>{cells}<tr><td>single</td></tr></table>"
    )
    assert points(evidence(html, url=SHOP), "comparisons") == expected
    piped = "| Size | Weight |\n| --- | --- |\n" + "".join(
        f"| {n} L | {n} kg |\n" for n in range(rows)
    )
    assert points(kettle(piped), "comparisons") == expected


# Page kinds and what fixes ask for


def _kind_of(html: str, url: str = "https://site.example/x") -> str:
    result = score(evidence(html, url=url), TABLE)
    assert_consistent(result)
    return str(result["page_kind"])


def test_page_kinds_from_types_og_type_the_path_and_shape() -> None:
    prose = (
        "<p>"
        + "Ferries run across the bay every hour, and the crossing takes forty minutes. " * 3
        + "</p>"
    )
    assert (
        _kind_of(_with_head(_ld({"@type": "NewsArticle", "headline": "Ferries"}), prose))
        == "article"
    )
    graph = _ld({"@graph": [{"@type": "WebPage"}, {"@type": "Product"}, {"@type": "ItemList"}]})
    assert _kind_of(_with_head(graph, prose)) == "product"  # the first type that names a kind
    assert _kind_of(_with_head(_ld({"@type": "Restaurant", "name": "Grill"}), prose)) == "place"
    assert _kind_of(_with_head('<meta property="og:type" content="article">', prose)) == "article"
    assert _kind_of(_with_head("", prose), "https://site.example/docs/setup") == "document"
    assert _kind_of(_with_head("", prose), "https://site.example/news/ferries") == "article"
    hours = "<p>Open Monday to Friday 9:00 to 17:00</p><p><a href='tel:+441234567890'>Call</a></p>"
    assert _kind_of(_with_head("", hours)) == "place"
    assert _kind_of(_with_head("", prose)) == "unknown"


NEWS = (
    "<!doctype html><html><head><title>Pontoon opens | Harbour Gazette</title><meta "
    "name='description' content='News from the quay.'></head><body><main><article><h1>Pontoon "
    "opens</h1><p class='byline'>By <span class='author'>Mara Quinn</span>, <time "
    "datetime='2026-11-28'>28 November</time></p><p>Forty berths for visiting yachts opened on "
    "Saturday on the east quay, each with water and power.</p></article></main></body></html>"
)


def test_a_story_with_headline_byline_and_date_is_an_article_asked_for_news_facts() -> None:
    """netglean's one rule beyond ARS's classifier: the story declares no type and its URL names
    no kind, which ARS calls unknown; its fixes then ask for what an article lacks, never a
    product's price. Its byline and <time> are no facts to ARS, so the fixes ask to give them where
    agents read them, not to state what the page states; and a page that runs no script is not
    told that agents run none."""
    result = score(evidence(NEWS, url="https://gazette.example/2026/11/28/pontoon"), TABLE)
    assert_consistent(result)
    assert result["page_kind"] == "article"
    texts = " ".join(f"{fix['title']} {fix['fix']}" for fix in result["fixes"]).lower()
    assert "price" not in texts and "main action" not in texts
    fixes = {fix["check"]: fix["fix"] for fix in result["fixes"]}
    shown = "Give the author and publish date the page shows (its byline and its <time>) in a form"
    assert fixes["core_facts"].startswith(shown) and fixes["render_independence"].startswith(shown)
    assert "render" not in texts and "run no scripts" not in texts  # the page runs none
    flag = next(flag for flag in result["flags"] if flag["id"] == "render_dependent")
    assert "no script" in flag["summary"]


def test_a_page_that_runs_scripts_is_told_agents_run_none() -> None:
    """Only a page with a script (JSON-LD is none) is told agents run no scripts, and so flagged."""
    body = "<p>A kettle.</p>"
    for script, told in (("", False), ("<script src='/app.js'></script>", True)):
        result = score(evidence(_kettle(body + script), url=SHOP), TABLE)
        fix = next(fix["fix"] for fix in result["fixes"] if fix["check"] == "render_independence")
        assert fix.startswith("State the price, currency and availability in the HTML the server")
        assert ("most agents run no scripts" in fix) is told
        flag = next(flag for flag in result["flags"] if flag["id"] == "render_dependent")
        assert flag["summary"].endswith("before any script runs.") is told


def test_render_independence_asks_only_for_the_facts_missing_from_the_html() -> None:
    result = score(evidence(_kettle("<p>Now only $39.00</p>"), url=SHOP), TABLE)
    fix = next(fix for fix in result["fixes"] if fix["check"] == "render_independence")
    assert fix["fix"].startswith("State the availability in the HTML")
    done = score(evidence(_kettle("<p>Now only $39.00</p><p>In stock</p>"), url=SHOP), TABLE)
    assert "render_independence" not in [fix["check"] for fix in done["fixes"]]


# The two bugs of issue 31


HIDDEN_LD = _ld(
    {
        "@type": "Product",
        "name": "Kettle",
        "offers": {
            "price": "39.00",
            "priceCurrency": "EUR",
            "availability": "https://schema.org/InStock",
        },
    }
)
HIDDEN_FACTS = (
    "<p>EUR 39.00 In stock. Hearth.</p><p>" + "A body of words about a kettle. " * 12 + "</p>"
)


@pytest.mark.parametrize(
    "wrapper",
    [
        "<div hidden>{}</div>",
        "<div style='display:none'>{}</div>",
        "<div aria-hidden='true'>{}</div>",
    ],
)
def test_text_a_browser_does_not_show_states_no_fact(wrapper: str) -> None:
    """Found by issue 31: page.py dropped only script, style, noscript and template, so a hidden
    div's text gave facts, agreement and render independence (its price corroborated the
    JSON-LD's)."""
    page = (
        "<html><head><title>Kettle</title>{ld}</head><body><main><h1>Kettle</h1><p>A "
        "kettle.</p>{hidden}</main>"
    )
    plain = score(
        evidence(page.format(ld=HIDDEN_LD, hidden=""), url="https://site.example/kettle"), TABLE
    )
    stuffed = page.format(ld=HIDDEN_LD, hidden=wrapper.format(HIDDEN_FACTS))
    hidden = score(evidence(stuffed, url="https://site.example/kettle"), TABLE)
    assert (hidden["score"], hidden["page_kind"]) == (plain["score"], plain["page_kind"])
    assert {c["id"]: c["points"] for c in checks_of(hidden).values()} == {
        c["id"]: c["points"] for c in checks_of(plain).values()
    }
    assert checks_of(hidden)["core_facts"]["evidence"] == checks_of(plain)["core_facts"]["evidence"]


def test_a_fix_pays_only_what_applying_it_alone_gains() -> None:
    """Found by issue 31: a page without a machine copy was offered Vary: Accept (+3) and substance
    parity (+3) as fixes of their own, which pay nothing until the page serves markdown. They are
    the machine copy's fix now."""
    plain = score(evidence(), TABLE)
    assert_consistent(plain)
    fixes = {fix["check"]: fix for fix in plain["fixes"]}
    assert "vary_accept" not in fixes and "substance_parity" not in fixes
    assert fixes["negotiated_response"]["unlocks"] == ["vary_accept", "substance_parity"]
    assert fixes["negotiated_response"]["points"] == 9 + 3 + 3
    varied = {"vary": "Accept"}
    alone = score(
        evidence(
            agent=probe(URL, PRODUCT_HTML, headers=varied),
            browser=probe(URL, PRODUCT_HTML, headers=varied),
        ),
        TABLE,
    )
    # sending Vary: Accept alone changes nothing, as the fix list said
    assert alone["score"] == plain["score"]
    assert alone["fixes"] == plain["fixes"]
    # the machine copy itself, without Vary
    served = score(evidence(agent=markdown(PRODUCT_MD)), TABLE)
    served_fixes = {fix["check"]: fix for fix in served["fixes"]}
    assert (
        served_fixes["vary_accept"]["points"] == 3 and served_fixes["vary_accept"]["unlocks"] == []
    )


def test_a_linked_copy_unlocks_only_vary_under_the_negotiation_fix() -> None:
    html = _declaring("/p/trailrunner-2.md")
    result = score(evidence(html, alternate=markdown(PRODUCT_MD, URL + ".md")), TABLE)
    assert_consistent(result)
    fix = next(fix for fix in result["fixes"] if fix["check"] == "negotiated_response")
    assert (fix["points"], fix["unlocks"]) == (3 + 3, ["vary_accept"])


def test_no_core_fact_and_no_structured_data_list_their_dependents_under_them() -> None:
    bare = score(
        evidence("<html><body><p>Hello.</p></body></html>", url="https://site.example/x"), TABLE
    )
    assert_consistent(bare)
    fixes = {fix["check"]: fix for fix in bare["fixes"]}
    assert fixes["core_facts"]["unlocks"] == ["first_fact_offset", "front_window"]
    assert fixes["structured_data_present"]["unlocks"] == ["required_properties", "text_agreement"]
    assert not {"first_fact_offset", "front_window", "required_properties", "text_agreement"} & set(
        fixes
    )


# What every result holds


def test_summaries_titles_and_fixes_never_carry_page_text() -> None:
    for result in (score(evidence(), TABLE), score(evidence(agent=markdown(PRODUCT_MD)), TABLE)):
        outside = [c["summary"] for c in checks_of(result).values()]
        outside += [f"{fix['title']} {fix['fix']}" for fix in result["fixes"]]
        outside += [flag["summary"] for flag in result["flags"]]
        for text in outside:
            assert (
                "Trailrunner" not in text
                and "shop.example" not in text
                and "Outfitters" not in text
            )


def test_the_same_evidence_gives_the_same_bytes() -> None:
    ev = evidence(agent=markdown(PRODUCT_MD, vary="Accept", etag='"v1"'))
    first = json.dumps(score(ev, TABLE), sort_keys=True)
    assert ev["agent"] is not None
    ev["agent"]["headers"] = dict(reversed(list(ev["agent"]["headers"].items())))
    assert json.dumps(score(ev, TABLE), sort_keys=True) == first


# Hostile evidence


def test_a_json_ld_bomb_is_read_within_its_caps() -> None:
    deep: Any = {"@type": "Thing", "name": "leaf"}
    for _ in range(95):  # under the parser's depth limit, far past the checks'
        deep = {"@type": "Thing", "child": [deep]}
    wide = {
        "@type": "Product",
        "name": "Bomb",
        "offers": [{"@type": "Offer", "price": str(n)} for n in range(60_000)],
    }
    assert len(json_ld([(json.dumps(deep), 0), (json.dumps(wide), 0)]).nodes) <= JSON_LD_NODES
    html = f"<html><head>{_ld(deep)}{_ld(wide)}</head><body><h1>Bomb</h1></body></html>"
    result = score(evidence(html, url="https://site.example/bomb"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)


def test_a_2_mib_page_with_many_links_is_scored_and_bounded() -> None:
    links = "".join(f'<a href="/l/{n}">link {n}</a> ' for n in range(20_000))
    heads = "".join(
        f'<link rel="alternate" type="application/json" href="/j/{n}">' for n in range(5_000)
    )
    body = "<p>" + "A boot weighs 540 g and costs $149. " * 40_000 + "</p>"
    html = f"<html><head>{heads}</head><body><nav>{links}</nav><main>{body}</main></body></html>"
    assert len(html) > 2 * 1024 * 1024
    result = score(evidence(html, url="https://site.example/huge"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)
    assert len(json.dumps(result)) < 50_000  # evidence is clipped, not the page echoed


@pytest.mark.timeout(60)
def test_text_built_to_make_the_fact_patterns_backtrack_is_read_in_linear_time() -> None:
    """Found by review: opening hours after a run of spaces were cubic, a price in a run of digits
    quadratic, llms.txt's line patterns quadratic on a long line. Each such input is now far past
    where it took minutes, and the scan is scored (pytest-timeout ends a hang)."""
    place = {"@type": "LocalBusiness", "name": "Tea room"}
    body = f"<p>mon{' ' * 20_000}x</p><p>{'1' * 50_000}</p><p>€{'9' * 50_000}</p>"
    html = (
        f"<html><head>{_ld(place)}</head><body><main><h1>Tea room</h1>{body}</main></body></html>"
    )
    llms = probe(
        f"{ORIGIN}/llms.txt",
        f"# Tea\n#{' ' * 1_000_000}x\n- [a]({' ' * 100_000}\n",
        content_type="text/plain",
    )
    result = score(evidence(html, llms_txt=llms), TABLE)
    assert result["outcome"] == "scored" and result["page_kind"] == "place"
    structure = next(item for item in result["findings"] if item["id"] == "llms_txt_structure")
    assert structure["status"] in {"partial", "invalid"}


# Real pages


@pytest.mark.parametrize("name", ["001", "ars-1", "aclu", "archive-of-our-own"])
def test_real_pages_score_consistently(name: str) -> None:
    html = (CORPUS / name / "source.html").read_text(errors="replace")
    result = score(evidence(html, url=f"https://pages.example/{name}"), TABLE)
    assert result["outcome"] == "scored"
    assert_consistent(result)


ARS_QUANTITY = re.compile(
    (
        r"[$£€¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?%|\d[\d,]*(?:\.\d+)?\s?(?:kg|g|lb|lbs|oz|mm|cm|m|km|mi|in|ft|ml|l|kb|mb|gb|tb|hz|w|kw|v|°c|°f|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?)\b|\d{4}-\d{2}-\d{2}"
    ).replace(r"\s", f"[{SPACES}]"),
    re.I | re.A,
)
r"""ARS's quantity expression as score.ts writes it (quadratic on a long run of digits),
JavaScript's \s (which takes in every Unicode blank) spelled out."""


def test_quantities_are_found_as_ars_s_expression_finds_them() -> None:
    pieces = [
        "1",
        "2",
        "0",
        ",",
        ".",
        "-",
        " ",
        "\xa0",
        "$",
        "€",
        "%",
        "kg",
        "m",
        "in",
        "s",
        "x",
        "°C",
        "2026-11-28",
    ]
    chance = random.Random(31)
    for _ in range(3_000):
        text = "".join(chance.choice(pieces) for _ in range(chance.randrange(1, 14)))
        assert checks.quantity_matches(text) == [m.group(0) for m in ARS_QUANTITY.finditer(text)], (
            text
        )
