"""The unweighted findings and the llms.txt reader, over hand-built evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from netglean.read.readability.evidence import FORMAT, Evidence, Probe, canonical
from netglean.read.readability.findings import (
    MAX_ITEMS,
    RULES,
    findings,
    parse_content_signal,
    robots_content_signals,
)
from netglean.read.readability.links import header_links
from netglean.read.readability.llms_txt import MAX_LINKS, parse_llms_txt

ROOT = Path(__file__).resolve().parents[3]
TABLE = yaml.safe_load((ROOT / "catalog/readability/findings.yaml").read_text())
PAGE = "https://shop.example/kettle"
HTML = "<!doctype html><html><head><title>Kettle</title></head><body><p>A kettle.</p></body></html>"
MARKDOWN = "# Kettle\n\nA kettle that boils a litre in three minutes.\n" * 4
LLMS = """# Example Shop

> Kettles and teapots, sold since 1990.

Prices are in euros.

## Docs

- [Kettles](https://shop.example/kettles.md): every kettle we sell
- [Returns](https://shop.example/returns.md)

## Optional

- [History](https://shop.example/history.md): the shop's story
"""


def probe(url: str = PAGE, status: int | None = 200, body: str = "", **headers: str) -> Probe:
    return {
        "url": url,
        "accept": "*/*",
        "final_url": url if status is not None else None,
        "status": status,
        "headers": {name.replace("_", "-"): value for name, value in headers.items()},
        "redirects": [],
        "body": body,
        "bytes": len(body.encode()),
        "error": None if status is not None else {"code": "unreachable", "message": "no answer"},
    }


def markdown_probe(body: str = MARKDOWN, **headers: str) -> Probe:
    fields = {
        "content_type": "text/markdown; charset=utf-8",
        "vary": "Accept",
        "x_markdown_tokens": str((len(body) + 3) // 4),
        **headers,
    }
    return probe(body=body, **fields)


def evidence(**parts: Any) -> Evidence:
    document: dict[str, Any] = {
        "format": FORMAT,
        "url": PAGE,
        "vantage": "public",
        "robots": None,
        "robots_verdict": "allowed",
        "agent": None,
        "browser": None,
        "llms_txt": None,
        "alternate": None,
        "ucp": None,
        "well_known": {},
        "max_bytes": 5 << 20,
    }
    document.update(parts)
    return cast(Evidence, document)


def html_probe(body: str = HTML, **headers: str) -> Probe:
    return probe(body=body, **{"content_type": "text/html; charset=utf-8", **headers})


def finding(document: Evidence, finding_id: str) -> dict[str, Any]:
    return next(item for item in findings(document, TABLE) if item["id"] == finding_id)


def status(document: Evidence, finding_id: str) -> str:
    return str(finding(document, finding_id)["status"])


def well_known(
    key: str, body: Any, status_code: int = 200, content_type: str = "application/json"
) -> Evidence:
    text = body if isinstance(body, str) else json.dumps(body)
    answer = probe(
        f"https://shop.example/.well-known/{key}", status_code, text, content_type=content_type
    )
    return evidence(browser=html_probe(), well_known={key: answer})


# ---- the catalog and the shape -------------------------------------------------------------------


def test_the_catalog_names_exactly_the_rules_and_has_the_brief_s_keys() -> None:
    ids = [entry["id"] for entry in TABLE["findings"]]
    assert ids == list(RULES)
    for entry in TABLE["findings"]:
        assert set(entry) == {"id", "title", "measures", "rule", "fix", "reference"}
        assert entry["reference"].startswith("https://")


def test_findings_come_in_the_catalog_s_order_with_their_shape() -> None:
    found = findings(evidence(), TABLE)
    assert [item["id"] for item in found] == [entry["id"] for entry in TABLE["findings"]]
    for item in found:
        assert set(item) == {"id", "title", "status", "basis", "summary", "evidence"}
        assert item["status"] == "not_probed"
        assert item["basis"] in {"measured", "heuristic"}
    reordered = {"findings": list(reversed(TABLE["findings"]))}
    assert [item["id"] for item in findings(evidence(), reordered)] == list(reversed(list(RULES)))


def test_a_catalog_entry_without_a_rule_is_an_error() -> None:
    with pytest.raises(ValueError, match="no rule"):
        findings(evidence(), {"findings": [{"id": "telepathy", "title": "Telepathy"}]})


# ---- 1. markdown negotiation ---------------------------------------------------------------------


def test_markdown_negotiation_present_with_every_detail() -> None:
    agent = markdown_probe(link=f"<{PAGE}>; rel=canonical")
    item = finding(evidence(agent=agent, browser=html_probe()), "markdown_negotiation")
    assert (item["status"], item["basis"]) == ("present", "measured")
    assert item["evidence"]["tokens_ratio"] == 1.0
    assert item["evidence"]["canonical_is_page"] is True
    assert item["evidence"]["missing"] == []


def test_markdown_negotiation_partial_names_what_is_missing() -> None:
    agent = markdown_probe(content_type="text/markdown", vary="Accept-Encoding")
    del agent["headers"]["x-markdown-tokens"]
    item = finding(evidence(agent=agent), "markdown_negotiation")
    assert item["status"] == "partial"
    assert item["evidence"]["missing"] == ["charset", "vary_accept", "x_markdown_tokens"]
    assert item["evidence"]["canonical_link"] is None


def test_an_implausible_token_count_is_partial_and_a_non_number_invalid() -> None:
    far = markdown_probe(x_markdown_tokens="100000")
    item = finding(evidence(agent=far), "markdown_negotiation")
    assert item["status"] == "partial"
    assert item["evidence"]["missing"] == ["plausible_tokens"]
    assert item["evidence"]["tokens_ratio"] > 4
    assert (
        status(evidence(agent=markdown_probe(x_markdown_tokens="about 12")), "markdown_negotiation")
        == "invalid"
    )
    assert (
        status(evidence(agent=markdown_probe(x_markdown_tokens="-5")), "markdown_negotiation")
        == "invalid"
    )


def test_markdown_typed_html_is_invalid_and_html_is_absent() -> None:
    disguised = markdown_probe(body=HTML)
    assert status(evidence(agent=disguised), "markdown_negotiation") == "invalid"
    assert status(evidence(agent=html_probe()), "markdown_negotiation") == "absent"
    assert status(evidence(agent=probe(status=None)), "markdown_negotiation") == "not_probed"


def test_a_canonical_link_elsewhere_is_reported() -> None:
    agent = markdown_probe(link='<https://other.example/x>; rel="canonical"')
    item = finding(evidence(agent=agent), "markdown_negotiation")
    assert item["status"] == "present"
    assert item["evidence"]["canonical_is_page"] is False


# ---- 2. content signals --------------------------------------------------------------------------


def robots(body: str, status_code: int = 200) -> Probe:
    return probe("https://shop.example/robots.txt", status_code, body, content_type="text/plain")


def test_content_signal_in_robots_groups() -> None:
    body = (
        "User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /cart\n"
        "Content-Signal: search=yes, ai-input=yes, ai-train=no\n\n"
        "User-agent: *\nContent-Signal: ai-train=no # training is not allowed\nAllow: /\n"
    )
    item = finding(evidence(robots=robots(body)), "content_signal")
    assert item["status"] == "present"
    lines = item["evidence"]["robots_lines"]
    assert lines[0] == {
        "user_agents": ["GPTBot", "ClaudeBot"],
        "signals": {"search": "yes", "ai-input": "yes", "ai-train": "no"},
        "problems": [],
    }
    assert lines[1]["user_agents"] == ["*"]
    assert item["evidence"]["keys_declared"] == ["ai-input", "ai-train", "search"]


def test_content_signal_problems_make_it_partial_or_invalid() -> None:
    body = (
        "Content-Signal: search=yes\nUser-agent: *\nContent-Signal: ai_train=no, ai-input=maybe\n"
    )
    item = finding(evidence(robots=robots(body)), "content_signal")
    assert item["status"] == "partial"
    assert item["evidence"]["problems"] == ["bad_value", "outside_group", "unknown_key"]
    invalid = "User-agent: *\nContent-Signal: ai_train=no\n"
    assert status(evidence(robots=robots(invalid)), "content_signal") == "invalid"


def test_content_signal_header_absent_and_not_probed() -> None:
    header = evidence(
        robots=robots("User-agent: *\nAllow: /\n"), browser=html_probe(content_signal="ai-train=no")
    )
    item = finding(header, "content_signal")
    assert item["status"] == "present"
    assert item["evidence"]["header"] == {"signals": {"ai-train": "no"}, "problems": []}
    assert (
        status(evidence(robots=robots("User-agent: *\nAllow: /\n")), "content_signal") == "absent"
    )
    assert status(evidence(robots=robots("", 404)), "content_signal") == "absent"
    assert status(evidence(), "content_signal") == "not_probed"


def test_parse_content_signal() -> None:
    assert parse_content_signal("search=YES ,ai-train=no,,") == (
        {"search": "yes", "ai-train": "no"},
        [],
    )
    assert parse_content_signal("search, search=yes, search=no") == (
        {"search": "yes"},
        ["duplicate_key", "malformed"],
    )


# ---- 3. MCP server card --------------------------------------------------------------------------


def test_mcp_server_card_current_and_earlier_shapes() -> None:
    card = {
        "name": "example.shop/mcp",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": "https://shop.example/mcp"}],
    }
    item = finding(well_known("mcp_server_card", card), "mcp_server_card")
    assert (item["status"], item["basis"]) == ("present", "measured")
    assert item["evidence"]["endpoints"] == ["https://shop.example/mcp"]
    earlier = {
        "serverInfo": {"name": "shop", "version": "2"},
        "transport": {"type": "streamable-http", "endpoint": "/mcp"},
    }
    item = finding(well_known("mcp_server_card", earlier), "mcp_server_card")
    assert item["status"] == "present"
    assert item["evidence"]["endpoints"] == ["https://shop.example/mcp"]


def test_mcp_catalog_partial_invalid_absent() -> None:
    catalog = {
        "entries": [
            {
                "url": "https://shop.example/mcp/server-card",
                "type": "application/mcp-server-card+json",
            }
        ]
    }
    assert status(well_known("mcp_server_card", catalog), "mcp_server_card") == "present"
    assert status(well_known("mcp_server_card", {"name": "shop"}), "mcp_server_card") == "partial"
    assert status(well_known("mcp_server_card", {"hello": 1}), "mcp_server_card") == "invalid"
    assert (
        status(well_known("mcp_server_card", HTML, content_type="text/html"), "mcp_server_card")
        == "invalid"
    )
    assert status(well_known("mcp_server_card", "{broken"), "mcp_server_card") == "invalid"
    assert status(well_known("mcp_server_card", "", 404), "mcp_server_card") == "absent"
    assert status(well_known("mcp_server_card", "", 500), "mcp_server_card") == "invalid"


def test_mcp_server_card_declared_when_not_probed() -> None:
    page = '<html><head><link rel="mcp-server-card" href="/mcp/server-card"></head></html>'
    item = finding(evidence(browser=html_probe(page)), "mcp_server_card")
    assert (item["status"], item["basis"]) == ("present", "heuristic")
    assert item["evidence"]["declared"] == [
        {"via": "html", "rel": "mcp-server-card", "url": "https://shop.example/mcp/server-card"}
    ]
    typed = html_probe(
        link='</card.json>; rel="describedby"; type="application/mcp-server-card+json"'
    )
    assert status(evidence(browser=typed), "mcp_server_card") == "present"
    assert status(evidence(browser=html_probe()), "mcp_server_card") == "not_probed"


# ---- 4. API catalog ------------------------------------------------------------------------------


def test_api_catalog() -> None:
    linkset = {
        "linkset": [
            {
                "anchor": "https://api.shop.example/",
                "service-desc": [{"href": "https://api.shop.example/openapi.json"}],
            }
        ]
    }
    typed = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
    assert (
        status(well_known("api_catalog", linkset, content_type=typed), "api_catalog") == "present"
    )
    item = finding(well_known("api_catalog", linkset), "api_catalog")
    assert (item["status"], item["evidence"]["problems"]) == ("partial", ["media_type"])
    assert status(well_known("api_catalog", {"linkset": {}}), "api_catalog") == "invalid"
    assert status(well_known("api_catalog", "", 404), "api_catalog") == "absent"
    declared = evidence(browser=html_probe(link='</.well-known/api-catalog>; rel="api-catalog"'))
    assert (status(declared, "api_catalog"), finding(declared, "api_catalog")["basis"]) == (
        "present",
        "heuristic",
    )
    assert status(evidence(browser=html_probe()), "api_catalog") == "not_probed"


# ---- 5. OAuth discovery --------------------------------------------------------------------------


def oauth(resource: Any = None, server: Any = None) -> Evidence:
    answers = {}
    for key, body in (
        ("oauth_protected_resource", resource),
        ("oauth_authorization_server", server),
    ):
        if body is not None:
            text = body if isinstance(body, str) else json.dumps(body)
            answers[key] = probe(
                f"https://shop.example/.well-known/{key}", 404 if text == "" else 200, text
            )
    return evidence(well_known=answers)


def test_oauth_discovery() -> None:
    resource = {
        "resource": "https://shop.example/",
        "authorization_servers": ["https://auth.example/"],
    }
    server = {"issuer": "https://auth.example/", "authorization_endpoint": "https://auth.example/a",
              "token_endpoint": "https://auth.example/t",
              "response_types_supported": ["code"]}  # fmt: skip
    assert status(oauth(resource, ""), "oauth_discovery") == "present"
    assert status(oauth("", server), "oauth_discovery") == "present"
    assert status(oauth({"resource": "https://shop.example/"}, ""), "oauth_discovery") == "partial"
    assert status(oauth(resource, {"issuer": 3}), "oauth_discovery") == "partial"
    assert status(oauth({"authorization_servers": []}, ""), "oauth_discovery") == "invalid"
    assert status(oauth("", ""), "oauth_discovery") == "absent"
    assert status(evidence(), "oauth_discovery") == "not_probed"
    item = finding(oauth(resource, ""), "oauth_discovery")
    assert item["evidence"]["protected_resource"]["authorization_servers"] == [
        "https://auth.example/"
    ]
    assert item["evidence"]["authorization_server"]["outcome"] == "absent"


def test_a_401_naming_resource_metadata_declares_it() -> None:
    challenge = (
        'Bearer realm="shop", '
        'resource_metadata="https://shop.example/.well-known/oauth-protected-resource"'
    )
    page = probe(status=401, www_authenticate=challenge)
    item = finding(evidence(agent=page), "oauth_discovery")
    assert (item["status"], item["basis"]) == ("present", "heuristic")
    assert item["evidence"]["protected_resource"]["declared"][0]["url"].endswith(
        "oauth-protected-resource"
    )


# ---- 6. Agent skills -----------------------------------------------------------------------------


def test_agent_skills() -> None:
    skill = {
        "name": "order",
        "description": "Order a kettle.",
        "type": "skill-md",
        "url": "order/SKILL.md",
    }
    current = {
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [{**skill, "digest": "sha256:00"}],
    }
    legacy = {
        "skills": [{"name": "order", "description": "Order a kettle.", "files": ["SKILL.md"]}]
    }
    assert status(well_known("agent_skills", current), "agent_skills") == "present"
    assert status(well_known("agent_skills", legacy), "agent_skills") == "present"
    # no digest
    assert status(well_known("agent_skills", {"skills": [skill]}), "agent_skills") == "partial"
    assert status(well_known("agent_skills", {"skills": []}), "agent_skills") == "partial"
    assert status(well_known("agent_skills", [1, 2]), "agent_skills") == "invalid"
    assert status(well_known("agent_skills", "", 410), "agent_skills") == "absent"
    assert status(evidence(browser=html_probe()), "agent_skills") == "not_probed"


# ---- 7. WebMCP -----------------------------------------------------------------------------------


def test_webmcp() -> None:
    form = '<form toolname="find_kettle" tooldescription="Finds a kettle."><input name="q"></form>'
    item = finding(evidence(browser=html_probe(f"<html><body>{form}</body></html>")), "webmcp")
    assert (item["status"], item["basis"]) == ("present", "heuristic")
    assert item["evidence"]["forms"] == [
        {"toolname": "find_kettle", "tooldescription": "Finds a kettle."}
    ]
    script = "<script>navigator.modelContext?.registerTool({name: 'x', execute() {}})</script>"
    assert (
        status(evidence(browser=html_probe(f"<html><head>{script}</head></html>")), "webmcp")
        == "present"
    )
    half = '<html><body><form toolname="find_kettle"></form></body></html>'
    assert status(evidence(browser=html_probe(half)), "webmcp") == "partial"
    mention = "<html><script>if (navigator.modelContext) {}</script></html>"
    assert status(evidence(browser=html_probe(mention)), "webmcp") == "partial"
    outside = "<html><body><p>navigator.modelContext.registerTool(</p></body></html>"
    assert status(evidence(browser=html_probe(outside)), "webmcp") == "absent"
    assert status(evidence(), "webmcp") == "not_probed"


# ---- 8. llms.txt structure -----------------------------------------------------------------------


def llms(
    body: str, status_code: int = 200, content_type: str = "text/plain; charset=utf-8"
) -> Evidence:
    return evidence(
        llms_txt=probe(
            "https://shop.example/llms.txt", status_code, body, content_type=content_type
        )
    )


def test_llms_txt_structure_statuses() -> None:
    item = finding(llms(LLMS), "llms_txt_structure")
    assert item["status"] == "present"
    assert item["evidence"]["sections"] == [
        {"name": "Docs", "optional": False, "links": 2},
        {"name": "Optional", "optional": True, "links": 1},
    ]
    partial = finding(llms(LLMS + "\n- plain words\n"), "llms_txt_structure")
    assert partial["status"] == "partial"
    assert partial["evidence"]["problems"][0]["id"] == "non_link_item"
    assert status(llms(HTML, content_type="text/html"), "llms_txt_structure") == "invalid"
    assert status(llms("## Docs\n- [a](https://a.example)\n"), "llms_txt_structure") == "invalid"
    assert status(llms("", 404), "llms_txt_structure") == "absent"
    assert status(evidence(), "llms_txt_structure") == "not_probed"


def test_llms_txt_valid_file() -> None:
    parsed = parse_llms_txt(LLMS, "text/markdown")
    assert parsed.valid and not parsed.problems
    assert parsed.title == "Example Shop"
    assert parsed.summary == "Kettles and teapots, sold since 1990."
    assert [s.name for s in parsed.sections] == ["Docs", "Optional"]
    assert parsed.sections[0].links[0].notes == "every kettle we sell"
    assert parsed.sections[0].links[1].notes is None
    assert parsed.sections[1].optional and parsed.links == 3


@pytest.mark.parametrize(
    ("text", "content_type", "expected"),
    [
        ("", None, ["empty"]),
        ("  \n\n", "text/plain", ["empty"]),
        (HTML, None, ["html"]),
        ("# A title", "text/html; charset=utf-8", ["html"]),
        ("Some words\n## Docs\n- [a](https://a.example)\n", None, ["missing_h1"]),
        ("intro\n# Title\n", None, ["h1_not_first"]),
        ("# One\n\n# Two\n", None, ["multiple_h1"]),
        ("# T\n## Docs\n### Guides\n- [a](https://a.example)\n", None, ["deep_heading"]),
        ("# T\n## Docs\n- a page\n- [a](https://a.example)\n", None, ["non_link_item"]),
        ("# T\n## Docs\n- [a](/a.md)\n", None, ["relative_url"]),
        ("# T\n## Docs\n- [a](ftp://a.example/x)\n- [b]()\n", None, ["invalid_url"]),
        ("# T\n## Docs\n## More\n- [a](https://a.example)\n", None, ["empty_section"]),
    ],
)
def test_llms_txt_problems(text: str, content_type: str | None, expected: list[str]) -> None:
    assert [problem.id for problem in parse_llms_txt(text, content_type).problems] == expected


def test_llms_txt_headings_in_code_are_not_headings_and_setext_is() -> None:
    text = "Title\n=====\n\n```\n# not a heading\n```\n\n## Docs\n- [a](https://a.example)\n"
    parsed = parse_llms_txt(text)
    assert (parsed.title, parsed.problems) == ("Title", ())


def test_llms_txt_problems_never_quote_the_file() -> None:
    marker = "ZQXJ-MARKER"
    text = (
        f"{marker}\n# {marker}\n# {marker}\n### {marker}\n## {marker}\n- {marker}\n- "
        f"[{marker}](/{marker})\n"
    )
    problems = parse_llms_txt(text).problems
    assert {p.id for p in problems} == {
        "h1_not_first",
        "multiple_h1",
        "deep_heading",
        "non_link_item",
        "relative_url",
    }
    assert all(marker not in p.message and marker not in p.id for p in problems)


# ---- no page text in summaries, bounds, determinism ----------------------------------------------

MARKER = "ZQXJ-MARKER"


def marked_evidence() -> Evidence:
    """Evidence with the marker in every page-derived place: bodies, header values, URLs, JSON
    fields."""
    m = MARKER
    html = (
        f'<html><head><title>{m}</title><link rel="api-catalog" href="/{m}"><link rel="mcp" '
        f'href="/{m}">'
        f"<script>navigator.modelContext.registerTool({{name: '{m}'}})</script></head>"
        f'<body><form toolname="{m}" tooldescription="{m}"></form>{m}</body></html>'
    )
    agent = markdown_probe(
        body=f"# {m}\n{m}\n",
        x_markdown_tokens=m,
        link=f'<https://{m}.example/>; rel="canonical"',
        vary=m,
    )
    robots_body = f"User-agent: {m}\nContent-Signal: {m}={m}, search={m}\n# {m}\n"
    llms_body = f"{m}\n# {m}\n> {m}\n### {m}\n## {m}\n- {m}\n- [{m}](/{m})\n- [{m}]({m}:{m})\n"
    wk = {
        "mcp_server_card": {"name": m, "version": m, "remotes": [{"url": f"https://{m}.example/"}]},
        "api_catalog": {"linkset": [{"anchor": m, m: [{"href": m}]}]},
        "oauth_protected_resource": {
            "resource": f"https://{m}.example/",
            "authorization_servers": [m],
        },
        "oauth_authorization_server": {"issuer": f"https://{m}.example/", m: m},
        "agent_skills": {"$schema": m, "skills": [{"name": m, "description": m}]},
    }
    return evidence(
        url=f"https://shop.example/{m}",
        robots=probe(f"https://shop.example/{m}", body=robots_body, content_type=m),
        agent=agent,
        browser=html_probe(html, content_signal=f"{m}={m}", link=f'</{m}>; rel="{m} mcp-server"'),
        llms_txt=probe(f"https://shop.example/{m}", body=llms_body, content_type="text/plain"),
        well_known={
            key: probe(
                f"https://{m}.example/{key}",
                body=json.dumps(value),
                content_type="application/json",
            )
            for key, value in wk.items()
        },
    )


def test_summaries_never_carry_page_text() -> None:
    found = findings(marked_evidence(), TABLE)
    passing = marked_evidence()
    passing["agent"] = markdown_probe(
        body=f"# {MARKER}\n", link=f'<https://{MARKER}.example/>; rel="canonical"'
    )
    passing["robots"] = robots(f"User-agent: {MARKER}\nContent-Signal: search=yes, {MARKER}=no\n")
    found += findings(passing, TABLE)
    assert {item["status"] for item in found} >= {"present", "partial", "invalid"}
    for item in found:
        outside = {key: value for key, value in item.items() if key != "evidence"}
        assert MARKER not in json.dumps(outside), item["id"]
    # the page's words are kept, framed
    assert any(MARKER in json.dumps(item["evidence"]) for item in found)
    failing = evidence(
        agent=markdown_probe(body=HTML + MARKER),
        well_known={"mcp_server_card": probe(body=f"<html>{MARKER}", content_type="text/html")},
        llms_txt=probe(body=f"<!doctype html>{MARKER}", content_type=MARKER),
    )
    for item in findings(failing, TABLE):
        assert MARKER not in item["summary"]


def test_findings_are_deterministic() -> None:
    document = marked_evidence()
    first = canonical({"findings": findings(document, TABLE)})
    assert canonical({"findings": findings(json.loads(json.dumps(document)), TABLE)}) == first


def test_bounded_on_a_huge_llms_txt() -> None:
    line = "- [Page](https://shop.example/page.md): notes about the page\n"
    body = "# Big\n\n## Docs\n" + line * ((2 << 20) // len(line) + 1)
    assert len(body) > 2 << 20
    parsed = parse_llms_txt(body)
    item = finding(llms(body), "llms_txt_structure")
    assert sum(len(s.links) for s in parsed.sections) == MAX_LINKS
    assert [p.id for p in parsed.problems] == ["truncated"]
    assert item["status"] == "partial"
    assert len(json.dumps(item)) < 20_000


def test_bounded_on_a_huge_robots_txt_and_link_header() -> None:
    body = "".join(
        f"User-agent: bot{n}\nDisallow: /{n}\nContent-Signal: search=yes\n" for n in range(3_334)
    )
    assert body.count("\n") >= 10_000
    assert len(robots_content_signals(body)) == 3_334
    item = finding(evidence(robots=robots(body)), "content_signal")
    assert item["status"] == "present"
    assert (len(item["evidence"]["robots_lines"]), item["evidence"]["robots_line_count"]) == (
        MAX_ITEMS,
        3_334,
    )
    late = (
        "User-agent: *\n" + "Content-Signal: ai_train=no\n" * 100 + "Content-Signal: ai-train=no\n"
    )
    # a valid line past those kept
    assert status(evidence(robots=robots(late)), "content_signal") == "partial"
    assert len(json.dumps(item)) < 20_000
    assert len(header_links('<https://a.example/>; rel="x", ' * 10_000)) < 300


def test_link_header() -> None:
    value = (
        '<https://a.example/md>; rel="alternate canonical"; type="text/markdown", </b>; '
        'title="a, b"; rel=next'
    )
    assert header_links(value) == [
        {"href": "https://a.example/md", "rel": "alternate canonical", "type": "text/markdown"},
        {"href": "/b", "rel": "next", "type": "", "title": "a, b"},
    ]


def test_malformed_urls_and_failed_probes_do_not_stop_the_findings() -> None:
    broken = "http://[::1"
    page = html_probe(
        f'<html><head><link rel="mcp" href="{broken}"><link rel="api-catalog" '
        'href="/ok"></head></html>'
    )
    agent = markdown_probe(link=f"<{broken}>; rel=canonical")
    failed = probe("https://shop.example/.well-known/api-catalog", None)
    found = {item["id"]: item for item in findings(evidence(agent=agent, browser=page), TABLE)}
    assert found["mcp_server_card"]["status"] == "not_probed"
    assert found["api_catalog"]["evidence"]["declared"][0]["url"] == "https://shop.example/ok"
    assert found["markdown_negotiation"]["evidence"]["canonical_link"] is None
    assert (
        status(evidence(browser=page, well_known={"api_catalog": failed}), "api_catalog")
        == "not_probed"
    )
    deep = well_known("mcp_server_card", "[" * 5_000 + "]" * 5_000)
    assert status(deep, "mcp_server_card") == "invalid"


@pytest.mark.parametrize(
    ("key", "document"),
    [
        (
            "mcp_server_card",
            {"name": 5, "version": [], "remotes": 5, "transport": "stdio", "url": {"a": 1}},
        ),
        ("mcp_server_card", {"serverInfo": [], "entries": "x"}),
        ("mcp_server_card", {"entries": [5, {"url": 3}, None]}),
        (
            "api_catalog",
            {
                "linkset": [
                    5,
                    {"anchor": 1},
                    {"anchor": "a", "item": 5},
                    {"anchor": "a", "item": [5]},
                ]
            },
        ),
        (
            "oauth_protected_resource",
            {"resource": "https://a.example", "authorization_servers": "https://b"},
        ),
        ("oauth_authorization_server", {"issuer": ["x"]}),
        ("agent_skills", {"skills": [5, {"name": 3}, {"name": "a", "files": "x"}]}),
        ("agent_skills", "null"),
    ],
)
def test_odd_json_is_judged_not_raised(key: str, document: Any) -> None:
    found = findings(well_known(key, document), TABLE)
    assert all(
        item["status"] in {"present", "partial", "absent", "invalid", "not_probed"}
        for item in found
    )
