"""ARS 0.3's 22 checks: each reads the page and says how many of its points it earns.

A check returns a Verdict: whole points (ARS scores in integers, every band and split below is
its), a summary in netglean's words (never the page's: it is shown outside the untrusted frame),
the page-derived values it read (shown framed), and, where the catalog's fix would ask for more
than the page lacks, a fix naming only what is missing. Each rule is written out in
catalog/readability/scale.yaml; tests hold the two together and the numbers to ARS's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from netglean.read.readability.evidence import Evidence, Probe
from netglean.read.readability.facts import PARITY, Node, differences, read_path, view
from netglean.read.readability.kinds import RECOGNISED, node_of_kind, shown_byline_and_date
from netglean.read.readability.markup import SPACES
from netglean.read.readability.page import (
    HeaderLink,
    Page,
    Representation,
    copy_facts,
    header_links,
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
"""ARS 0.3's weights, by dimension: what the checks here implement (the catalog must agree)."""

MAX_REDIRECTS = 3
"""Hops within which an agent's answer keeps reachable's 3 points (ARS's ruleset)."""
RENDER_BANDS = ((100, 7), (75, 5), (50, 3), (25, 1))
"""render_independence: the share (%) of core facts in the HTML, at least -> points."""
FACT_UNITS = (4, 2, 1, 0)
"""core_facts, in quarter facts: a core fact corroborated, alone; an extended one corroborated,
alone."""
DENSITY_BANDS = ((200, 100), (100, 85), (50, 70), (20, 50), (5, 30), (0, 15))
"""core_facts: facts per KiB (x100, an extended fact a quarter) at least -> % of the points kept."""
COST_BANDS = ((100, 6), (200, 5), (500, 3), (1500, 1))
"""context_cost: the answer's size as a % of the kind's reference, at most -> points."""
OFFSET_BANDS = ((512, 5), (2048, 4), (8192, 2), (32768, 1))
"""first_fact_offset: the first core fact's byte offset, at most -> points."""
WINDOW_BANDS = ((90, 5), (70, 4), (50, 3), (25, 1))
"""front_window: the % of the core facts found that are in the window, at least -> points."""
WINDOW_FLOOR, WINDOW_DIVISOR = 2048, 5
"""front_window's window: the first max(2,048, size / 5) bytes."""
QUANTITY_BANDS = ((12, 4), (6, 3), (3, 2), (1, 1))
DEFINITION_BANDS = ((6, 2), (2, 1))
COMPARISON_BANDS = ((3, 2), (2, 1))
REQUIRED: dict[str, tuple[str, ...]] = {
    "product": ("name", "offers.price", "offers.priceCurrency", "offers.availability"),
    "collection": ("name", "numberOfItems", "itemListElement"),
    "article": ("headline", "author", "datePublished"),
    "place": ("name", "address", "openingHours", "telephone"),
    "service": ("name", "offers.price", "offers.priceCurrency", "potentialAction.target"),
    "faq": ("name", "mainEntity", "mainEntity.acceptedAnswer"),
    "document": ("name", "dateModified", "publisher"),
    "unknown": ("name",),
}
"""The JSON-LD properties required_properties asks of the page's item, by kind (ARS's table)."""
ENDPOINT_TYPES = frozenset(
    "application/rss+xml application/atom+xml application/feed+json application/json "
    "application/ld+json application/vnd.api+json application/schema+json application/graphql "
    "application/openapi+json application/yaml text/calendar".split()
)
ENDPOINT_RELS = frozenset({"service-desc", "service-doc", "api", "describedby", "ucp", "mcp"})
ENDPOINT_PATHS = (
    "/api",
    "/mcp",
    "/graphql",
    "/openapi",
    "/.well-known/",
    ".json",
    ".ics",
    ".rss",
    ".atom",
)
"""Where an llms.txt link goes when it is a machine endpoint."""
BLOCKS = frozenset({"li", "dt", "dd", "p", "td", "th", "div"})
SHOWN_AS = {"author": "its byline", "published": "its <time>"}
"""How a page shows an author or date that agents do not read as facts, as a fix names it."""
DIGITS = "0123456789"
"""The elements each of which holds one labelled fact in HTML (definitions)."""

_QUANTITY = re.compile(
    rf"[$£€¥][{SPACES}]?[0-9][0-9,]*+(?:\.[0-9]++)?|[0-9][0-9,]*+(?:\.[0-9]++)?[{SPACES}]?%|[0-9][0-9,]*+(?:\.[0-9]++)?[{SPACES}]?(?:kg|g|lb|lbs|oz|mm|cm|m|km|mi|in|ft|ml|l|kb|mb|gb|tb|hz|w|kw|v|°c|°f|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?)\b|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}",
    re.I | re.A,
)
"""ARS's quantity: an amount after a currency sign, a percentage, a number with a unit, an ISO date.
The runs of digits are possessive: giving one back never lets a unit or % follow, so the result is
ARS's."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_QUANTITY_START = re.compile(r"[$£€¥0-9]")
_RUN = re.compile(r"[0-9,]*")
_DEFINITION = re.compile(
    rf"^[{SPACES}]*(?:[-*+][{SPACES}]+)?(?:\*\*)?[A-Za-z][A-Za-z0-9 "
    rf"/&'()-]{{1,40}}(?:\*\*)?[{SPACES}]*:[{SPACES}]*[^{SPACES}]"
)
_ALIGNMENT = re.compile(rf"\|[{SPACES}:|-]+\|\Z")
_MARKDOWN_LINK = re.compile(r"\[[^\]\n]{1,200}\]\(([^)" + SPACES + r"]{1,500})\)")
_TITLE = re.compile(rf"^#[{SPACES}]+[^{SPACES}]", re.M)
_MAX_AGE = re.compile(r"(?:max-age|s-maxage)=([0-9]{1,10})\Z")


@dataclass(frozen=True, slots=True)
class Verdict:
    points: int
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    fix: str | None = None
    """What closes the gap for this page, when the scale's general fix would ask for more."""


Check = Callable[[Page, Evidence], Verdict]


def at_least(bands: Sequence[tuple[int, int]], value: int) -> int:
    return next((points for floor, points in bands if value >= floor), 0)


def at_most(bands: Sequence[tuple[int, int]], value: int) -> int:
    return next((points for ceiling, points in bands if value <= ceiling), 0)


def half_up(numerator: int, denominator: int) -> int:
    return (numerator + denominator // 2) // denominator if denominator else 0


def _header(rep: Representation | None, name: str) -> str | None:
    return rep.headers.get(name) if rep is not None else None


def _tokens(value: str | None) -> list[str]:
    return [t for t in re.split(rf"[,{SPACES}]+", (value or "").lower()) if t]


def _flag(page: Page, ident: str, severity: str, summary: str) -> None:
    page.flags.append({"id": ident, "severity": severity, "summary": summary})


def _ok_body(probe: Probe | None) -> str | None:
    """A probe's body when it got a 2xx answer."""
    ok = probe is not None and probe["error"] is None and 200 <= (probe["status"] or 0) < 300
    return probe["body"] if ok and probe is not None else None


# Retrievability


def reachable(page: Page, evidence: Evidence) -> Verdict:
    hops = len(evidence["agent"]["redirects"]) if evidence["agent"] is not None else 0
    same = page.browser is not None and page.browser.url == page.agent.url
    points = 5 + (3 if hops <= MAX_REDIRECTS else 0) + (3 if same else 0)
    compared = "browsers end at the same address" if same else "no browser answer to compare"
    if page.browser is not None and not same:
        compared = "a browser's request ended at another address (an Accept-conditional redirect)"
    return Verdict(
        points,
        "the agent's request was answered 2xx "
        f"{f'after {hops} redirect(s)' if hops else 'directly'}; {compared}",
        {"redirects": hops, "same_address": same if page.browser is not None else None},
        None
        if same or page.browser is None
        else "Send agents and browsers to the same address: a redirect that depends on Accept "
        "sends agents where browsers never go.",
    )


def robots_policy(page: Page, evidence: Evidence) -> Verdict:
    policy = page.policy
    robots = policy.robots
    said = policy.assistants
    shown = {
        "robots_txt": policy.status,
        "assistants": said.decision,
        "group": said.group,
        "rule": said.rule,
        "malformed_lines": robots.malformed if robots else 0,
        "orphan_rules": robots.orphans if robots else 0,
        "sitemap": policy.sitemap,
        "training": policy.training.decision,
    }
    if said.decision == "disallow":
        _flag(
            page,
            "robots_contradiction",
            "warn",
            "robots.txt keeps the assistants out with a rule that does not name them (a blanket or "
            "malformed group): that looks accidental, so the page is scored, not an opt-out.",
        )
        return Verdict(
            0,
            "robots.txt keeps the assistants out with a rule that does not name them",
            shown,
            "Give the assistants (ChatGPT-User, Claude-User, Perplexity-User...) a group of their "
            "own that allows the page; a rule written for all crawlers keeps them out.",
        )
    clean = robots is None or not robots.malformed
    whole = robots is None or not robots.orphans
    points = 6 + (2 if clean else 0) + (1 if whole else 0) + (1 if policy.sitemap else 0)
    lacking = []
    if not clean:
        lacking.append("fix or remove the lines robots.txt's readers cannot parse")
    if not whole:
        lacking.append("put every Allow and Disallow after a User-agent line")
    if not policy.sitemap:
        lacking.append("add a Sitemap: line")
    return Verdict(
        points,
        "robots.txt lets the assistants fetch the page"
        + ("" if points == 10 else ", but is not clean or declares no sitemap"),
        shown,
        f"In robots.txt, {'; '.join(lacking)}." if lacking else None,
    )


def render_independence(page: Page, evidence: Evidence) -> Verdict:
    html = page.structural
    if html is None or html.markup is None:
        return Verdict(0, "no HTML answer to read without running scripts")
    core = page.profile.core
    found = {fact.kind for fact in page.structural_facts if fact.kind in core}
    share = 100 * len(found) // len(core) if core else 0
    fallback = next(
        (
            True
            for index, element in enumerate(html.markup.elements)
            if element.tag == "noscript" and html.markup.element_text(index)
        ),
        False,
    )
    points = max(at_least(RENDER_BANDS, share), 1 if fallback else 0)
    scripted = any(
        element.tag == "script" and "json" not in element.attrs.get("type", "").lower()
        for element in html.markup.elements
    )
    if share < 50:
        _flag(
            page,
            "render_dependent",
            "info",
            f"{len(found)} of {len(core)} core facts are in the HTML "
            + ("before any script runs." if scripted else "(it runs no script to add the rest)."),
        )
    missing = [kind for kind in core if kind not in found]
    where = "in the HTML the server sends, where agents read them (text, JSON-LD, meta tags or "
    where += "microdata): most agents run no scripts" if scripted else "microdata)"
    fix = _facts_fix(page, missing, where) if missing else None
    return Verdict(
        points,
        f"{len(found)} of {len(core)} core facts are in the HTML the server sends",
        {"in_html": sorted(found), "noscript_fallback": fallback, "scripts": scripted},
        fix,
    )


def _facts_fix(page: Page, missing: Sequence[str], where: str) -> str:
    """A fix for missing core facts: state those the page lacks; mark up an author or date it shows
    the way readers see them (a byline, a <time>) but agents do not read as facts."""
    markup = page.structural.markup if page.structural is not None else None
    shown = shown_byline_and_date(markup) if markup is not None else set()
    absent = [kind for kind in missing if kind not in shown]
    unread = [kind for kind in missing if kind in shown]
    said = [f"State the {page.named(absent)} {where}."] if absent else []
    shows = " and ".join(SHOWN_AS[kind] for kind in unread)
    if unread:
        said.append(
            f"Give the {page.named(unread)} the page shows ({shows}) in a form "
            "agents read as facts: JSON-LD (author, datePublished), a meta tag (author, "
            'article:published_time) or a labelled line ("Author: ...", "Published: ...").'
        )
    return " ".join(said)


# Machine representation


def negotiated_response(page: Page, evidence: Evidence) -> Verdict:
    agent = page.agent
    shown: dict[str, Any] = {
        "content_type": agent.media_type,
        "body_is_html": agent.looks_like_html,
    }
    linked = page.linked
    if linked is not None:
        shown["linked_copy"] = {"url": linked.url, "status": linked.status}
    if page.negotiated:
        return Verdict(9, "the agent's Accept got a machine copy at the page's own URL", shown)
    if linked is not None and linked.status == "checked":
        return Verdict(
            6,
            "the page links a markdown copy that loads, but does not answer agents with it itself",
            shown,
            "Also answer Accept: text/markdown at the page's own URL with the copy it links, so "
            "agents need no second request.",
        )
    if agent.kind in {"markdown", "text", "json"}:
        return Verdict(
            0,
            "the answer is labelled markdown, text or JSON but is HTML",
            shown,
            "Send the format the Content-Type names: the answer labelled markdown is HTML.",
        )
    return Verdict(0, "the agent's Accept got the same HTML a browser gets", shown)


def _typed_alternates(page: Page) -> list[str]:
    found = [
        f"{link.type} (Link header)"
        for link in header_links(page.agent, page.browser)
        if "alternate" in link.rel and link.type is not None
    ]
    markup = page.structural.markup if page.structural is not None else None
    for tag in markup.links if markup is not None else ():
        if "alternate" in tag.rel and tag.type is not None and tag.href is not None:
            found.append(f"{tag.type} (<link>)")
    return found


def declared_alternates(page: Page, evidence: Evidence) -> Verdict:
    linked = page.linked
    if linked is not None and linked.status == "broken":
        return Verdict(
            0,
            "the markdown copy the page links to did not load",
            {"linked_copy": linked.url, "problem": linked.reason},
            f"The markdown copy the page links to did not load ({linked.reason}): fix the file "
            "or the link.",
        )
    found = _typed_alternates(page)
    if found:
        return Verdict(
            3, "the page declares an alternate representation", {"alternates": found[:20]}
        )
    return Verdict(0, "the page declares no typed alternate (Link header or <link rel=alternate>)")


def vary_accept(page: Page, evidence: Evidence) -> Verdict:
    agent_vary, browser_vary = _header(page.agent, "vary"), _header(page.browser, "vary")
    shown = {"vary_agent": agent_vary, "vary_browser": browser_vary}
    if not page.negotiated:
        return Verdict(0, "counts once the page answers agents with a machine copy", shown)
    if "accept" in _tokens(agent_vary) or "accept" in _tokens(browser_vary):
        return Verdict(3, "the negotiated answers say Vary: Accept", shown)
    _flag(
        page,
        "vary_missing",
        "warn",
        "The URL answers markdown or HTML by Accept but does not say Vary: Accept: a shared "
        "cache can hand one to the other.",
    )
    return Verdict(0, "the URL negotiates on Accept but says no Vary: Accept", shown)


def substance_parity(page: Page, evidence: Evidence) -> Verdict:
    linked = page.linked if page.linked is not None and page.linked.status == "checked" else None
    if not page.negotiated and linked is None:
        return Verdict(0, "counts once the page offers agents a machine copy")
    if linked is None and page.browser is None:
        return Verdict(0, "no browser answer to compare the machine copy with")
    if linked is not None:
        html = page.browser_facts if page.browser is not None else page.agent_facts
        copy, shown = view(copy_facts(page, linked)), view(html)
    else:
        copy, shown = view(page.agent_facts), view(page.browser_facts)
    compared, different = differences(copy, shown)
    detail: dict[str, Any] = {"compared": compared}
    if different:
        detail["values"] = {
            k: {"copy": copy.given[k], "page": sorted(shown.stated[k])} for k in different
        }
    if not compared:
        return Verdict(
            0,
            "the machine copy and the page state none of the same key facts",
            detail,
            f"State the same key facts ({page.named(PARITY)}) in the machine copy and the page.",
        )
    if different:
        return Verdict(
            0,
            "the machine copy and the page give different values for a key fact (seen once)",
            detail,
            "Build the machine copy and the page from one source, so their values agree.",
        )
    return Verdict(
        3, "the machine copy and the page agree on the key facts they both state", detail
    )


# Fact coverage


@dataclass(frozen=True, slots=True)
class Coverage:
    core: int
    extended: int
    coverage: int
    """% of the core facts' credit."""
    density: int
    """% of that kept for the answer's size."""


def coverage(page: Page) -> Coverage:
    core_units = extended_units = core = extended = 0
    for fact in page.facts:
        if fact.kind in page.profile.core:
            core += 1
            core_units += FACT_UNITS[0] if fact.corroborated else FACT_UNITS[1]
        elif fact.kind in page.profile.extended:
            extended += 1
            extended_units += FACT_UNITS[2] if fact.corroborated else FACT_UNITS[3]
    denominator = 4 * len(page.profile.core)
    share = min(100, half_up(100 * (core_units + extended_units), denominator))
    per_kib = (core * 100 + extended * 25) * 1024 // max(1, page.agent.bytes)
    return Coverage(core, extended, share, at_least(DENSITY_BANDS, per_kib))


def core_facts(page: Page, evidence: Evidence) -> Verdict:
    math = coverage(page)
    points = (14 * math.coverage * math.density + 5000) // 10000
    found = {fact.kind: fact for fact in page.facts}
    missing = [kind for kind in page.profile.core if kind not in found]
    shown = {
        "facts": {
            f.kind: {
                "value": f.value,
                "from": f.source,
                "offset": f.offset,
                "corroborated": f.corroborated,
            }
            for f in page.facts
        },
        "missing": missing,
        "coverage_percent": math.coverage,
        "density_percent": math.density,
    }
    if missing:
        fix = _facts_fix(page, missing, "in what agents receive (and in the JSON-LD)")
    elif math.coverage < 100:
        fix = (
            "Say each core fact both in the visible text and in the JSON-LD: a fact said once "
            "earns half."
        )
    else:
        fix = (
            "Serve agents a markdown copy that leads with the facts, or trim the page: its size "
            "dilutes them."
        )
    return Verdict(
        points,
        f"the page states {math.core} of the {len(page.profile.core)} core facts of its kind",
        shown,
        fix if points < 14 else None,
    )


def context_cost(page: Page, evidence: Evidence) -> Verdict:
    reference = page.profile.reference
    ratio = 100 * page.agent.bytes // reference if reference else 0
    return Verdict(
        at_most(COST_BANDS, ratio),
        "what the agent receives is "
        + ("within" if ratio <= 100 else f"about {half_up(ratio, 100)} times")
        + " the reference size of its kind",
        {"bytes": page.agent.bytes, "reference_bytes": reference},
    )


# Fact position


def _core_offsets(page: Page) -> list[int]:
    return sorted(fact.offset for fact in page.facts if fact.kind in page.profile.core)


def first_fact_offset(page: Page, evidence: Evidence) -> Verdict:
    offsets = _core_offsets(page)
    if not offsets:
        return Verdict(0, "no core fact was found in what the agent receives")
    first = offsets[0]
    kind = next(fact.kind for fact in page.facts if fact.offset == first)
    return Verdict(
        at_most(OFFSET_BANDS, first),
        f"the first core fact comes after {first} bytes of what the agent receives",
        {"offset_bytes": first, "fact": kind},
    )


def front_window(page: Page, evidence: Evidence) -> Verdict:
    size = max(WINDOW_FLOOR, page.agent.bytes // WINDOW_DIVISOR)
    offsets = _core_offsets(page)
    if not offsets:
        return Verdict(
            0, "no core fact was found in what the agent receives", {"window_bytes": size}
        )
    inside = sum(1 for offset in offsets if offset < size)
    share = 100 * inside // len(offsets)
    return Verdict(
        at_least(WINDOW_BANDS, share),
        f"{inside} of the {len(offsets)} core facts found are in the first {size} bytes",
        {"window_bytes": size, "inside": inside, "found": len(offsets)},
    )


# Structured data


def structured_data_present(page: Page, evidence: Evidence) -> Verdict:
    html = page.structural
    if html is None:
        return Verdict(0, "no HTML answer to read structured data from")
    elements = html.markup.elements if html.markup is not None else []
    microdata = sum(1 for e in elements if "itemtype" in e.attrs)
    rdfa = sum(1 for e in elements if "typeof" in e.attrs)
    blocks, parsed = html.ld.blocks, html.ld.parsed
    from_ld = 0 if not blocks else 2 if parsed == blocks else 1 if parsed else 0
    points = max(from_ld, 2 if microdata or rdfa else 0)
    shown = {
        "json_ld_blocks": blocks,
        "json_ld_parsed": parsed,
        "microdata": microdata,
        "rdfa": rdfa,
    }
    if points == 2:
        return Verdict(2, "the page carries structured data that parses", shown)
    if blocks > parsed:
        return Verdict(
            points,
            "a JSON-LD block of the page does not parse",
            shown,
            "Fix the JSON-LD block that does not parse (check it with a JSON validator).",
        )
    return Verdict(0, "the page carries no schema.org structured data", shown)


def _scored_node(page: Page) -> Node | None:
    nodes = page.structural.ld.nodes if page.structural is not None else ()
    found = node_of_kind(nodes, page.profile.kind)
    return found or next((n for n in nodes if any(t in RECOGNISED for t in n.types)), None)


def required_properties(page: Page, evidence: Evidence) -> Verdict:
    required = REQUIRED[page.profile.kind]
    node = _scored_node(page)
    if node is None:
        return Verdict(
            0,
            "no JSON-LD item has a schema.org type ARS recognises",
            {"required": list(required)},
            "Give the page a JSON-LD item of a schema.org type for its kind, with "
            f"{', '.join(required)}.",
        )
    met = [path for path in required if read_path(node, path) is not None]
    missing = [path for path in required if path not in met]
    return Verdict(
        1 + half_up(2 * len(met), len(required)),
        f"the page's JSON-LD item has {len(met)} of the {len(required)} properties its kind needs",
        {"type": ", ".join(node.types)[:200], "met": met, "missing": missing},
        f"Add {', '.join(missing)} to the page's JSON-LD item." if missing else None,
    )


def text_agreement(page: Page, evidence: Evidence) -> Verdict:
    facts = page.structural_facts
    declared = view([f for f in facts if f.source == "json_ld"])
    shown = view([f for f in facts if f.source != "json_ld"])
    compared, different = differences(declared, shown)
    detail: dict[str, Any] = {"compared": compared, "different": different}
    if not compared:
        return Verdict(
            0,
            "the structured data and the visible page state none of the same key facts",
            detail,
            f"State the key facts ({page.named(PARITY)}) both in the JSON-LD and on the page.",
        )
    if different:
        _flag(
            page,
            "structured_data_divergence",
            "warn",
            "The structured data and the visible page give different values for a key fact.",
        )
        detail["values"] = {
            k: {"json_ld": declared.given[k], "page": sorted(shown.stated[k])} for k in different
        }
        return Verdict(
            0,
            "the structured data and the visible page disagree on a key fact",
            detail,
            "Build the JSON-LD from the same data as the visible page, so they cannot disagree.",
        )
    return Verdict(1, "the structured data agrees with the visible page", detail)


# Contract and discovery


def _canonical(links: Iterable[HeaderLink], rep: Representation | None) -> str | None:
    for link in links:
        if "canonical" in link.rel:
            return link.url
    for tag in rep.markup.links if rep is not None and rep.markup is not None else ():
        if "canonical" in tag.rel and tag.href is not None:
            return tag.href
    return None


def canonical(page: Page, evidence: Evidence) -> Verdict:
    agent_said = _canonical(header_links(page.agent), page.agent)
    html_said = (
        _canonical(header_links(page.browser), page.browser) if page.browser is not None else None
    ) or agent_said
    absolute = html_said is not None and re.match("https?://", html_said, re.I) is not None
    consistent = html_said is not None and agent_said == html_said
    if html_said is not None and agent_said is not None and not consistent:
        _flag(
            page,
            "canonical_mismatch",
            "warn",
            "The agent's answer and the HTML page name different canonical URLs.",
        )
    points = (2 if html_said is not None else 0) + (1 if absolute else 0) + (1 if consistent else 0)
    fix = None
    if html_said is None:
        fix = 'Add <link rel="canonical" href="https://..."> with the page\'s full URL.'
    elif agent_said is None:
        fix = 'Send the machine copy with Link: <https://...>; rel="canonical" naming the page.'
    elif not consistent:
        fix = "Name one canonical URL, written in full, in the page and its machine copy."
    elif not absolute:
        fix = "Write the canonical URL in full, starting with https://."
    return Verdict(
        points,
        "the page names no canonical URL"
        if html_said is None
        else "the page names a canonical URL"
        + ("" if points == 4 else ", not in full or not the same for agents"),
        {"canonical": html_said, "canonical_for_agents": agent_said},
        fix,
    )


def cache_validators(page: Page, evidence: Evidence) -> Verdict:
    control = _header(page.agent, "cache-control")
    directives = _tokens(control)
    lifetime = any((m := _MAX_AGE.match(d)) is not None and int(m.group(1)) > 0 for d in directives)
    revalidate = "no-cache" in directives or "must-revalidate" in directives
    validator = (
        _header(page.agent, "etag") is not None or _header(page.agent, "last-modified") is not None
    )
    sane = (
        control is not None
        and "no-store" not in directives
        and (lifetime or (revalidate and validator))
    )
    shown = {
        "cache_control": control,
        "etag": _header(page.agent, "etag"),
        "last_modified": _header(page.agent, "last-modified"),
    }
    fix = None
    if not sane and not validator:
        fix = (
            "Send Cache-Control with a lifetime, and an ETag or Last-Modified (answer "
            "If-None-Match with 304)."
        )
    elif not sane:
        fix = "Send Cache-Control with a lifetime (max-age), or no-cache with the validator."
    elif not validator:
        fix = "Send an ETag or Last-Modified, and answer If-None-Match with 304."
    return Verdict(
        (1 if sane else 0) + (1 if validator else 0),
        "the agent's answer "
        + ("can" if sane and validator else "cannot fully")
        + " be cached and revalidated cheaply",
        shown,
        fix,
    )


def llms_txt(page: Page, evidence: Evidence) -> Verdict:
    body = _ok_body(evidence["llms_txt"])
    if body is None or not body.strip(SPACES):
        return Verdict(0, "/llms.txt is missing or empty")
    titled = _TITLE.search(body) is not None
    linked = _MARKDOWN_LINK.search(body) is not None
    shown = {"title": titled, "links": linked}
    if titled and linked:
        return Verdict(1, "/llms.txt has a # title and markdown links", shown)
    return Verdict(
        0,
        "/llms.txt lacks a # title or a markdown link",
        shown,
        "Start /llms.txt with a '# ' title and add at least one link written [name](url).",
    )


def sitemap(page: Page, evidence: Evidence) -> Verdict:
    robots = page.policy.robots
    listed = len(robots.sitemaps) if robots is not None else 0
    if listed:
        return Verdict(1, "robots.txt declares a sitemap", {"sitemaps": listed})
    return Verdict(0, "robots.txt declares no sitemap")


def machine_endpoint(page: Page, evidence: Evidence) -> Verdict:
    found: list[str] = []
    for link in header_links(page.agent, page.browser):
        if ENDPOINT_RELS.intersection(link.rel) or link.type in ENDPOINT_TYPES:
            found.append("Link header")
    markup = page.structural.markup if page.structural is not None else None
    for tag in markup.links if markup is not None else ():
        if tag.href is not None and (
            ENDPOINT_RELS.intersection(tag.rel) or tag.type in ENDPOINT_TYPES
        ):
            found.append("<link>")
    llms = _ok_body(evidence["llms_txt"])
    for listed in _MARKDOWN_LINK.finditer(llms or ""):
        if any(marker in listed.group(1).lower() for marker in ENDPOINT_PATHS):
            found.append("llms.txt")
    ucp = _ok_body(evidence["ucp"])
    if ucp is not None and ucp.strip(SPACES):
        found.append("/.well-known/ucp")
    where = sorted(set(found))
    if where:
        return Verdict(2, "the page or site declares a machine endpoint", {"declared_in": where})
    return Verdict(0, "no feed, API or agent endpoint is declared")


# Evidence density


def quantity_matches(text: str) -> list[str]:
    """Every quantity of ``text``, left to right as a regular expression's scan finds them, in
    linear time: when the first digit of a run of digits and commas starts none, no later digit of
    that run does (each reads the same rest of the run) but for a date whose year ends the run."""
    found = []
    at = 0
    while (start := _QUANTITY_START.search(text, at)) is not None:
        where = start.start()
        match = _QUANTITY.match(text, where)
        if match is None and text[where] in DIGITS:
            end = _RUN.match(text, where).end()  # type: ignore[union-attr]
            year = end - 4
            match = _DATE.match(text, year) if year > where and text[end : end + 1] == "-" else None
            at = end
        else:
            at = where + 1
        if match is not None:
            found.append(match.group(0))
            at = match.end()
    return found


def quantities(page: Page, evidence: Evidence) -> Verdict:
    found = {
        re.sub(f"[{SPACES}]+", "", quantity.lower())
        for quantity in quantity_matches(page.agent.text)
    }
    return Verdict(
        at_least(QUANTITY_BANDS, len(found)),
        f"what the agent receives states {len(found)} distinct quantities (12 earn full points)",
        {"count": len(found), "examples": sorted(found)[:10]},
    )


def _segments(rep: Representation) -> list[str]:
    """The lines a labelled fact is looked for in: for HTML, the counted text of each innermost
    block (li, dt, dd, p, td, th, div), in order; else the text's lines."""
    markup = rep.markup
    if markup is None:
        return rep.text.split("\n")
    by_block: dict[int, list[str]] = {}
    elements = markup.elements
    for text in markup.texts:
        if text.excluded is not None or not text.text.strip(SPACES):
            continue
        at = text.parent
        for _ in range(257):
            if at < 0:
                break
            if elements[at].tag in BLOCKS:
                by_block.setdefault(at, []).append(text.text)
                break
            at = elements[at].parent
    return [
        re.sub(f"[{SPACES}]+", " ", " ".join(parts)).strip(SPACES) for parts in by_block.values()
    ]


def definitions(page: Page, evidence: Evidence) -> Verdict:
    count = sum(1 for line in _segments(page.agent) if _DEFINITION.match(line))
    return Verdict(
        at_least(DEFINITION_BANDS, count),
        f"what the agent receives gives {count} labelled facts (Term: value; 6 earn full points)",
        {"count": count},
    )


def comparisons(page: Page, evidence: Evidence) -> Verdict:
    markup = page.agent.markup
    if markup is not None:
        cells: dict[int, int] = {}
        for element in markup.elements:
            row = element.parent
            if element.tag in {"td", "th"} and row >= 0 and markup.elements[row].tag == "tr":
                cells[row] = cells.get(row, 0) + 1
        rows = max(0, sum(1 for count in cells.values() if count >= 2) - 1)
    else:
        piped = 0
        for raw in page.agent.text.split("\n"):
            line = raw.strip(SPACES)
            if line.startswith("|") and line.endswith("|") and not _ALIGNMENT.match(line):
                piped += line.count("|") - 1 >= 2
        rows = max(0, piped - 1)
    return Verdict(
        at_least(COMPARISON_BANDS, rows),
        f"what the agent receives has {rows} table rows that compare options (3 earn full points)",
        {"rows": rows},
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
    "context_cost": context_cost,
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
"""Every check, by id."""

UNLOCKS: dict[str, Callable[[Mapping[str, int]], tuple[str, ...]]] = {
    "negotiated_response": lambda earned: (
        ()
        if earned["negotiated_response"] >= 9
        else ("vary_accept", "substance_parity")
        if earned["negotiated_response"] == 0
        else ("vary_accept",)
    ),
    "core_facts": lambda earned: (
        ("first_fact_offset", "front_window")
        if earned["first_fact_offset"] == 0 and earned["front_window"] == 0
        else ()
    ),
    "structured_data_present": lambda earned: (
        ("required_properties", "text_agreement") if earned["structured_data_present"] == 0 else ()
    ),
}
"""The checks a fix makes earnable that nothing else can while it is short (ARS's recommendation
graph), from the points each check earned: Vary: Accept and substance parity count only once the
page answers agents with a machine copy (parity already with a linked one); a fact's position
only once there is a core fact; the JSON-LD's properties and agreement only once there is
structured data."""
