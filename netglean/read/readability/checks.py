"""The 22 weighted checks: each reads the page and the evidence and says what share of its weight it earns.

A check returns a Verdict: the share earned (0..1, so the catalog's weights stay the only place points are
set), a summary that never quotes the page (it is shown outside the untrusted frame), and its evidence (the
page-derived values, shown framed). Each rule is written out in catalog/readability/scale.yaml; a test holds
the two together.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from netglean.read.document import HTML_TYPES, MARKDOWN_TYPES
from netglean.read.readability import links as declared
from netglean.read.readability.evidence import Evidence, Probe, media_type
from netglean.read.readability.page import (
    CORE_FACTS,
    IDENTITY_FACTS,
    TEXT_TYPES,
    Page,
    clip,
    fold,
    main_item,
    ok,
    types_of,
)

DIMENSIONS: dict[str, dict[str, int]] = {
    "retrievability": {"reachable": 11, "robots_policy": 10, "render_independence": 7},
    "machine_representation": {
        "negotiated_response": 9,
        "declared_alternates": 3,
        "vary_accept": 3,
        "substance_parity": 3,
    },
    "fact_coverage": {"core_facts": 14, "context_cost": 6},
    "fact_position": {"first_fact_offset": 5, "front_window": 5},
    "structured_data": {"structured_data_present": 2, "required_properties": 3, "text_agreement": 1},
    "contract_discovery": {"canonical": 4, "cache_validators": 2, "llms_txt": 1, "sitemap": 1, "machine_endpoint": 2},
    "evidence_density": {"quantities": 4, "definitions": 2, "comparisons": 2},
}
"""Rebilder's published ARS weights, by dimension: what the checks here implement (the catalog must agree)."""

ASSISTANTS = (
    "ChatGPT-User",
    "OAI-SearchBot",
    "GPTBot",
    "Claude-User",
    "Claude-SearchBot",
    "ClaudeBot",
    "Perplexity-User",
    "PerplexityBot",
    "Google-Extended",
    "Applebot-Extended",
)
"""The assistants' user agents robots_policy and opt-out read robots.txt for: the user-triggered fetchers and
the AI crawlers of the large assistants."""
FRONT_WINDOW = 8_192
"""Characters (2,048 tokens) of what the agent receives that front_window looks in."""
OFFSET_STEPS = ((4_096, 1.0), (16_384, 0.6), (65_536, 0.2))
"""first_fact_offset: (characters, share) — within 1,024 tokens full, 4,096 three fifths, 16,384 one fifth."""
REQUIRED: dict[str, tuple[tuple[str, ...], ...]] = {
    "product": (
        ("name",),
        ("image",),
        ("description",),
        ("offers.price", "offers.lowPrice"),
        ("offers.priceCurrency",),
        ("offers.availability",),
        ("brand", "sku", "gtin", "gtin13", "mpn"),
    ),
    "collection": (("name",), ("itemListElement", "hasPart", "mainEntity")),
    "article": (("headline", "name"), ("author",), ("datePublished",), ("image",)),
    "place": (("name",), ("address",), ("telephone",), ("openingHours", "openingHoursSpecification")),
    "service": (("name",), ("description",), ("provider", "brand"), ("areaServed", "offers")),
    "faq": (("mainEntity",), ("mainEntity.acceptedAnswer",)),
    "document": (("name", "headline"), ("description",), ("datePublished", "dateModified")),
    "unknown": (("name", "headline"), ("description",)),
}
"""The JSON-LD properties required_properties looks for on the page's main item, by kind: each tuple is one
requirement, met by any of its properties (a dotted one inside the first offer or question)."""
MACHINE_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/linkset+json",
        "application/openapi+json",
        "application/yaml",
        "text/markdown",
        "text/plain",
    }
)
MACHINE_RELS = frozenset({"service-desc", "service-doc", "api-catalog", "describedby"})

_QUANTITY = re.compile(
    r"(?:[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:%|(?:k|m|g|c|m)?(?:g|m|l|w|b|hz)\b|mg|kg|lbs?|oz|km|cm|mm|mi|ft|in\b|"
    r"ml|gb|mb|kb|tb|ghz|mhz|kwh|mah|v\b|°[cf]|hours?|hrs?|min(?:utes)?|seconds?|ms\b|px|years?|days?|"
    r"usd|eur|gbp|inch(?:es)?|meters?|metres?|litres?|liters?|watts?|volts?))",
    re.I,
)
_DEFINITION = re.compile(
    r"(?:^|[.!?]\s+)(?:an?\s+|the\s+)?[A-Z][\w-]*(?:\s+[\w-]+){0,3}\s+(?:is|are)\s+(?:an?|the)\s+\w|"
    r"\b(?:refers to|is defined as|means that|stands for)\b",
    re.M,
)
_COMPARISON = re.compile(
    r"\b(?:vs\.?|versus|compared (?:to|with)|in comparison|(?:more|less|fewer)\s+\w+\s+than|\w+er than)\b", re.I
)
_MAIN_WINDOW = 200_000
"""Characters of main text the density checks read."""


@dataclass(frozen=True, slots=True)
class Verdict:
    share: float
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)


Check = Callable[[Page, Evidence], Verdict]


def _header(probe: Probe | None, name: str) -> str:
    return probe["headers"].get(name, "") if probe is not None else ""


def header_links(*probes: Probe | None) -> list[dict[str, str]]:
    """The links of the probes' Link headers (RFC 8288) as the head's <link> elements are kept: rel, type, href."""
    return [link for probe in probes for link in declared.header_links(_header(probe, "link"))]


def _has_rel(link: dict[str, str], rel: str) -> bool:
    return rel in link["rel"].lower().split()


def _link_type(link: dict[str, str]) -> str:
    return link["type"].split(";")[0].strip().lower()


def _machine_type(kind: str) -> bool:
    return kind in MACHINE_TYPES or kind.endswith("+json")


def reachable(page: Page, evidence: Evidence) -> Verdict:
    agent = page.agent
    if agent is None:
        asked = evidence["agent"]
        status = asked["status"] if asked is not None else None
        return Verdict(
            0.0,
            "the agent's request got no usable answer (an error, a non-2xx status or a bot wall) where a browser's did",
            {"agent_status": status, "error": asked["error"]["code"] if asked and asked["error"] else None},
        )
    hops = len(agent["redirects"])
    share = 1.0 if hops == 0 else max(5, 11 - 2 * hops) / 11
    summary = "the page answered the agent's request with 2xx" + (f" after {hops} redirect(s)" if hops else " directly")
    return Verdict(share, summary, {"status": agent["status"], "redirects": hops})


def assistant_verdicts(robots_body: str, url: str) -> dict[str, bool]:
    """Whether robots.txt lets each assistant fetch ``url`` (protego, RFC 9309 matching)."""
    import protego

    rules = protego.Protego.parse(robots_body)
    return {agent: bool(rules.can_fetch(url, agent)) for agent in ASSISTANTS}


def robots_rules(evidence: Evidence) -> str | None:
    """The robots.txt text rules are read from: its body on 2xx, none (allow all) on 4xx; None when unreadable."""
    robots = evidence["robots"]
    if robots is None or robots["error"] is not None or robots["status"] is None or robots["status"] >= 500:
        return None
    if 300 <= robots["status"] < 400:
        return None  # redirects past the cap: unreadable, as the fetcher reads it
    return robots["body"] if 200 <= robots["status"] < 300 else ""


def robots_policy(page: Page, evidence: Evidence) -> Verdict:
    allowed = assistant_verdicts(robots_rules(evidence) or "", page.url)
    refused = sorted(agent for agent, yes in allowed.items() if not yes)
    share = (len(ASSISTANTS) - len(refused)) / len(ASSISTANTS)
    summary = (
        "robots.txt lets every assistant fetch the page"
        if not refused
        else (f"robots.txt refuses the page to {len(refused)} of {len(ASSISTANTS)} assistants")
    )
    return Verdict(share, summary, {"refused": refused})


def render_independence(page: Page, evidence: Evidence) -> Verdict:
    chars = len(page.main_text)
    stated = len(page.facts) / len(CORE_FACTS[page.kind])
    share = 1.0 if chars >= 500 or stated >= 0.5 else 0.5 if chars >= 100 else 0.0
    summary = {
        1.0: "the server's HTML carries the content without running scripts",
        0.5: "the server's HTML carries little content without running scripts",
        0.0: "the server's HTML is empty of content until scripts run",
    }[share]
    return Verdict(
        share, summary, {"main_chars": chars, "framework_marks": page.shell, "facts_stated": len(page.facts)}
    )


def negotiated_response(page: Page, evidence: Evidence) -> Verdict:
    kind = page.agent_type
    if kind in MARKDOWN_TYPES:
        return Verdict(1.0, "the agent's Accept got markdown", {"content_type": kind})
    if kind == "text/plain":
        return Verdict(5 / 9, "the agent's Accept got plain text, not markdown", {"content_type": kind})
    return Verdict(0.0, "the agent's Accept got the same HTML a browser gets", {"content_type": clip(kind)})


def _declared_markdown(page: Page, evidence: Evidence) -> list[str]:
    """Where the page declares a markdown alternate: the Link header, its <link> elements."""
    where = []
    for place, links in (
        ("link_header", header_links(evidence["agent"], evidence["browser"])),
        ("html_link", page.links),
    ):
        if any(_has_rel(link, "alternate") and _link_type(link) in MARKDOWN_TYPES for link in links):
            where.append(place)
    return where


def declared_alternates(page: Page, evidence: Evidence) -> Verdict:
    where = _declared_markdown(page, evidence)
    if not where:
        return Verdict(0.0, "no markdown alternate is declared (Link header or <link rel=alternate>)")
    alternate = evidence["alternate"]
    if alternate is None or (ok(alternate) and media_type(alternate) in TEXT_TYPES | {""}):
        return Verdict(1.0, "a markdown alternate is declared and serves text", {"declared_in": where})
    return Verdict(
        1 / 3,
        "a markdown alternate is declared but did not answer 2xx text",
        {"declared_in": where, "status": alternate["status"]},
    )


def _varies_on_accept(probe: Probe | None) -> bool:
    names = {name.strip().lower() for name in _header(probe, "vary").split(",")}
    return "accept" in names or "*" in names


def vary_accept(page: Page, evidence: Evidence) -> Verdict:
    agent, browser = evidence["agent"], evidence["browser"]
    negotiates = (
        page.agent is not None and ok(browser) and media_type(agent) != media_type(browser)
    ) or page.agent_type in TEXT_TYPES
    if not negotiates:
        return Verdict(0.0, "the server does not negotiate on Accept, so there is no Vary: Accept to send")
    said = [name for name, probe in (("agent", agent), ("browser", browser)) if _varies_on_accept(probe)]
    share = len(said) / 2
    summary = {
        1.0: "both answers say Vary: Accept",
        0.5: "one of the two answers says Vary: Accept",
        0.0: "the server negotiates on Accept but its answers do not say Vary: Accept",
    }[share]
    return Verdict(
        share, summary, {"vary_agent": clip(_header(agent, "vary")), "vary_browser": clip(_header(browser, "vary"))}
    )


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[^\W\d_]{4,}", text[:_MAIN_WINDOW].lower())[:5_000]}


def substance_parity(page: Page, evidence: Evidence) -> Verdict:
    if page.representation is None:
        return Verdict(0.0, "there is no machine representation to compare with the HTML")
    rep = page.representation
    facts = [fact for fact in page.facts.values() if fact.needles]
    kept = [fact.id for fact in facts if any(needle in rep for needle in fact.needles)]
    html_words = _words(page.main_text)
    word_share = len(html_words & _words(rep)) / len(html_words) if html_words else 1.0
    fact_share = len(kept) / len(facts) if facts else word_share
    share = (fact_share + word_share) / 2
    return Verdict(
        share,
        "the machine representation carries the HTML's facts and words"
        if share >= 0.999
        else "the machine representation carries part of the HTML's facts and words",
        {
            "facts_kept": sorted(kept),
            "facts_missing": sorted({f.id for f in facts} - set(kept)),
            "word_overlap": round(word_share, 3),
        },
    )


def core_facts(page: Page, evidence: Evidence) -> Verdict:
    wanted = CORE_FACTS[page.kind]
    stated = [fact for fact in wanted if fact in page.facts]
    return Verdict(
        len(stated) / len(wanted),
        f"the page states {len(stated)} of the {len(wanted)} core facts of its kind",
        {
            "stated": {fact: {"from": page.facts[fact].source, "value": page.facts[fact].value} for fact in stated},
            "missing": [fact for fact in wanted if fact not in page.facts],
        },
    )


def context_cost(page: Page, evidence: Evidence, reference: int) -> Verdict:
    probe = page.received
    size = probe["bytes"] if probe is not None else 0
    ratio = size / reference if reference else 0.0
    share = 1.0 if ratio <= 1 else max(0.0, 1 - math.log2(ratio) / 4)
    return Verdict(
        share,
        "what the agent receives is "
        + ("within" if ratio <= 1 else f"{ratio:.1f} times")
        + " the reference size for its kind",
        {"bytes": size, "reference_bytes": reference},
    )


def _located(page: Page) -> dict[str, int]:
    """Where each stated core fact first appears in what the agent receives (folded characters)."""
    found = {}
    for fact in page.facts.values():
        offsets = [at for needle in fact.needles if (at := page.agent_text.offset(needle)) is not None]
        if offsets:
            found[fact.id] = min(offsets)
    return found


def first_fact_offset(page: Page, evidence: Evidence) -> Verdict:
    located = {fact: at for fact, at in _located(page).items() if fact not in IDENTITY_FACTS}
    if not located:
        return Verdict(0.0, "no core fact beyond the page's name and description was found in what the agent receives")
    first = min(located.values())
    share = next((s for limit, s in OFFSET_STEPS if first <= limit), 0.0)
    fact = min(located, key=lambda f: (located[f], f))
    return Verdict(
        share,
        f"the first core fact comes after about {(first + 3) // 4} tokens of what the agent receives",
        {"fact": fact, "offset_chars": first},
    )


def front_window(page: Page, evidence: Evidence) -> Verdict:
    wanted = CORE_FACTS[page.kind]
    inside = sorted(fact for fact, at in _located(page).items() if at < FRONT_WINDOW)
    return Verdict(
        len(inside) / len(wanted),
        f"{len(inside)} of {len(wanted)} core facts are in the first "
        f"{FRONT_WINDOW // 4} tokens of what the agent receives",
        {"in_window": inside},
    )


def structured_data_present(page: Page, evidence: Evidence) -> Verdict:
    typed = [t for t in page.ld_types if t][:20]
    if typed:
        return Verdict(1.0, "the page carries schema.org JSON-LD", {"types": typed})
    if page.microdata_types:
        return Verdict(
            0.5, "the page carries schema.org microdata but no JSON-LD", {"types": page.microdata_types[:20]}
        )
    return Verdict(0.0, "the page carries no schema.org structured data")


def _has(item: dict[str, Any], path: str) -> bool:
    head, _, rest = path.partition(".")
    value = item.get(head)
    if isinstance(value, list):
        value = value[0] if value else None
    if not rest:
        return value not in (None, "", [], {})
    return isinstance(value, dict) and _has(value, rest)


def required_properties(page: Page, evidence: Evidence) -> Verdict:
    item = main_item(page, page.kind) or (page.ld_nodes[0] if page.kind == "unknown" and page.ld_nodes else None)
    wanted = REQUIRED[page.kind]
    if item is None:
        return Verdict(
            0.0, "no JSON-LD item describes the page as its kind", {"required": [" | ".join(r) for r in wanted]}
        )
    met = [" | ".join(r) for r in wanted if any(_has(item, path) for path in r)]
    missing = [" | ".join(r) for r in wanted if " | ".join(r) not in met]
    return Verdict(
        len(met) / len(wanted),
        f"the page's JSON-LD item has {len(met)} of the {len(wanted)} properties its kind needs",
        {"type": clip(",".join(types_of(item))), "met": met, "missing": missing},
    )


def text_agreement(page: Page, evidence: Evidence) -> Verdict:
    facts = [
        fact
        for fact in page.facts.values()
        if fact.source == "json_ld" and fact.needles and fact.id not in {"image", "description"}
    ]
    if not facts:
        return Verdict(0.0, "no JSON-LD value to compare with the visible text")
    agree = sorted(fact.id for fact in facts if any(needle in page.visible for needle in fact.needles))
    return Verdict(
        len(agree) / len(facts),
        f"{len(agree)} of {len(facts)} JSON-LD facts appear in the visible text",
        {"agree": agree, "disagree": sorted({f.id for f in facts} - set(agree))},
    )


def _same_page(a: str, b: str) -> bool:
    pa, pb = urlsplit(urldefrag(a).url), urlsplit(urldefrag(b).url)
    return (pa.scheme.lower(), pa.netloc.lower(), pa.path.rstrip("/") or "/", pa.query) == (
        pb.scheme.lower(),
        pb.netloc.lower(),
        pb.path.rstrip("/") or "/",
        pb.query,
    )


def canonical(page: Page, evidence: Evidence) -> Verdict:
    here = (page.html_probe["final_url"] if page.html_probe else None) or page.url
    links = [*page.links, *header_links(page.received)]
    found = {urljoin(here, link["href"]) for link in links if _has_rel(link, "canonical") and link["href"]}
    shown = {"canonical": sorted(clip(u) for u in found)[:5]}
    if not found:
        return Verdict(0.0, "the page declares no canonical URL")
    if len(found) > 1:
        return Verdict(0.25, "the page declares several different canonical URLs", shown)
    target = found.pop()
    if _same_page(target, here):
        return Verdict(1.0, "the canonical URL is the page itself", shown)
    if urlsplit(target).netloc.lower() == urlsplit(here).netloc.lower():
        return Verdict(0.5, "the canonical URL points to another page of the same host", shown)
    return Verdict(0.25, "the canonical URL points to another host", shown)


def cache_validators(page: Page, evidence: Evidence) -> Verdict:
    probe = page.received
    has = [name for name in ("etag", "last-modified") if _header(probe, name)]
    if has:
        return Verdict(1.0, "the answer carries a cache validator", {"validators": has})
    return Verdict(0.0, "the answer carries neither ETag nor Last-Modified")


def llms_txt_answers(evidence: Evidence) -> bool:
    probe = evidence["llms_txt"]
    return bool(
        ok(probe)
        and probe
        and media_type(probe) not in HTML_TYPES
        and probe["body"].lstrip("\ufeff \t\r\n").startswith("# ")
    )


def llms_txt(page: Page, evidence: Evidence) -> Verdict:
    probe = evidence["llms_txt"]
    if llms_txt_answers(evidence):
        return Verdict(1.0, "/llms.txt answers with a markdown title")
    status = probe["status"] if probe is not None else None
    return Verdict(0.0, "/llms.txt is missing or does not start with a '# ' title", {"status": status})


def sitemap(page: Page, evidence: Evidence) -> Verdict:
    import protego

    rules = robots_rules(evidence)
    declared = len(list(protego.Protego.parse(rules).sitemaps)) if rules else 0
    linked = sum(1 for link in page.links if _has_rel(link, "sitemap"))
    if declared or linked:
        return Verdict(1.0, "a sitemap is declared", {"in_robots_txt": declared, "linked": linked})
    return Verdict(0.0, "no sitemap is declared in robots.txt or linked from the page")


def machine_endpoint(page: Page, evidence: Evidence) -> Verdict:
    ways = set()
    for place, links in (
        ("link_header", header_links(evidence["agent"], evidence["browser"])),
        ("html_link", page.links),
    ):
        for link in links:
            rels = set(link["rel"].lower().split())
            if rels & MACHINE_RELS or ("alternate" in rels and _machine_type(_link_type(link))):
                ways.add(place)
    if llms_txt_answers(evidence):
        ways.add("llms_txt")
    answered = sorted(name for name, probe in evidence["well_known"].items() if ok(probe))
    if answered:
        ways.add("well_known")
    if not ways:
        return Verdict(0.0, "no machine endpoint is declared")
    return Verdict(1.0, "a machine endpoint is declared", {"declared_in": sorted(ways), "well_known": answered})


def quantities(page: Page, evidence: Evidence) -> Verdict:
    found = sorted({fold(m) for m in _QUANTITY.findall(page.main_text[:_MAIN_WINDOW])})
    return Verdict(
        min(len(found), 5) / 5,
        f"the main text states {min(len(found), 99)} distinct quantities (5 earn full points)",
        {"examples": found[:10], "count": len(found)},
    )


def definitions(page: Page, evidence: Evidence) -> Verdict:
    text = page.main_text[:_MAIN_WINDOW]
    sentences = len(_DEFINITION.findall(text))
    count = sentences + page.terms
    return Verdict(
        min(count, 3) / 3, f"the main text gives {min(count, 99)} definitions (3 earn full points)", {"count": count}
    )


def comparisons(page: Page, evidence: Evidence) -> Verdict:
    tables = sum(1 for b in page.main_blocks if b.kind == "table" and len(b.rows) >= 2 and len(b.rows[0]) >= 2)
    phrases = len(_COMPARISON.findall(page.main_text[:_MAIN_WINDOW]))
    share = 1.0 if tables or phrases >= 2 else 0.5 if phrases else 0.0
    return Verdict(
        share,
        f"the main text has {min(tables, 99)} data table(s) and {min(phrases, 99)} comparison phrase(s)",
        {"tables": tables, "phrases": phrases},
    )


CHECKS: dict[str, Check] = {
    "reachable": reachable,
    "robots_policy": robots_policy,
    "render_independence": render_independence,
    "negotiated_response": negotiated_response,
    "declared_alternates": declared_alternates,
    "vary_accept": vary_accept,
    "substance_parity": substance_parity,
    "core_facts": core_facts,
    "first_fact_offset": first_fact_offset,
    "front_window": front_window,
    "structured_data_present": structured_data_present,
    "required_properties": required_properties,
    "text_agreement": text_agreement,
    "canonical": canonical,
    "cache_validators": cache_validators,
    "llms_txt": llms_txt,
    "sitemap": sitemap,
    "machine_endpoint": machine_endpoint,
    "quantities": quantities,
    "definitions": definitions,
    "comparisons": comparisons,
}
"""Every check but context_cost (which also takes the kind's reference size), by id."""
