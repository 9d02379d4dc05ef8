"""The page as ARS's checks see it: each answer read once (its kind, markup, JSON-LD and counted
text), the page's kind and profile, and its facts.

Which answer scores what: the facts and their positions are read from what the agent received (the
agent probe's answer), corroborated by the HTML; render independence and structured data read the
HTML (the browser probe's answer when it is HTML, else the agent's). A markdown copy the page links
to (when the agent got HTML) is read for negotiated_response, declared_alternates and
substance_parity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from netglean.read.document import HTML_TYPES, MARKDOWN_TYPES
from netglean.read.page_signals import bot_wall
from netglean.read.readability import links as declared
from netglean.read.readability.evidence import Evidence, Probe, media_type
from netglean.read.readability.facts import (
    Fact,
    JsonLd,
    Merged,
    Reading,
    absolute_url,
    json_ld,
    merge,
    origin_of,
    read_facts,
    read_path,
)
from netglean.read.readability.kinds import ACTIONS, Kind, classify
from netglean.read.readability.markup import SPACES, Markup, tokenize
from netglean.read.readability.robots_policy import Policy
from netglean.read.reading import signals_if_wall

HTML_HEAD = 1_024
"""Characters of a body looked at to tell whether it is HTML whatever its Content-Type says."""
POLICY_CODES = frozenset(
    {"bad_url", "blocked_address", "robots_disallowed", "scheme_downgrade", "operator_policy"}
)
"""Failures that are refusals (netglean's policy, robots.txt): nothing was observed."""


@dataclass(frozen=True, slots=True)
class Representation:
    """One answer as ARS reads it."""

    kind: str
    """From its Content-Type: html, markdown, text, json or other."""
    media_type: str
    body: str
    bytes: int
    """UTF-8 bytes of the decoded body: the unit of every size and offset."""
    markup: Markup | None
    """Tokenized when the body is HTML, whatever it is labelled."""
    ld: JsonLd
    text: str
    """Counted text for HTML; the body itself for anything else."""
    looks_like_html: bool
    url: str
    headers: Mapping[str, str]

    @property
    def machine_copy(self) -> bool:
        """Markdown, text or JSON, labelled so and not HTML inside."""
        return self.kind in {"markdown", "text", "json"} and not self.looks_like_html


def looks_like_html(body: str) -> bool:
    head = body[:HTML_HEAD].lstrip(SPACES).lower()
    if head.startswith(("<!doctype html", "<html", "<?xml")):
        return True
    return "<html" in head or "<head>" in head or "<body" in head


def _kind(kind: str) -> str:
    if kind in HTML_TYPES:
        return "html"
    if kind in MARKDOWN_TYPES:
        return "markdown"
    if kind == "text/plain":
        return "text"
    if kind in {"application/json", "application/ld+json"} or kind.endswith("+json"):
        return "json"
    return "other"


def has_response(probe: Probe | None) -> bool:
    """Whether a probe got an answer at all (any status)."""
    return probe is not None and probe["error"] is None and probe["status"] is not None


def represent(probe: Probe, read: Representation | None = None) -> Representation:
    """An answered probe as ARS reads it (its markup that of ``read`` when that is the same
    body)."""
    kind = _kind(media_type(probe))
    body = probe["body"]
    html = looks_like_html(body)
    markup = None
    if kind == "html" or html:
        shared = read.markup if read is not None and read.body == body else None
        markup = shared if shared is not None else tokenize(body)
    blocks = markup.json_ld if markup is not None else [(body, 0)] if kind == "json" else []
    ld = json_ld(blocks)
    return Representation(
        kind=kind,
        media_type=media_type(probe),
        body=body,
        bytes=len(body.encode("utf-8", "surrogatepass")),
        markup=markup,
        ld=ld,
        text=markup.counted_text() if markup is not None else body,
        looks_like_html=html,
        url=probe["final_url"] or probe["url"],
        headers=probe["headers"],
    )


@dataclass(frozen=True, slots=True)
class HeaderLink:
    url: str
    rel: tuple[str, ...]
    type: str | None
    """Lower case; None when the link gives none."""


def _link_entries(value: str) -> list[str]:
    """A Link header split at its commas outside <...> and quotes."""
    entries: list[str] = []
    depth, quoted, start = 0, False, 0
    for at, char in enumerate(value):
        if quoted:
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char == "<":
            depth += 1
        elif char == ">":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            entries.append(value[start:at])
            start = at + 1
    entries.append(value[start:])
    return [entry.strip(SPACES) for entry in entries if entry.strip(SPACES)]


def link_header(value: str) -> list[HeaderLink]:
    """The links of a Link header as ARS reads them (a parameter given twice: the last counts)."""
    links = []
    for entry in _link_entries(value[: declared.LINK_HEADER_CHARS]):
        opened = entry.find("<")
        closed = entry.find(">", opened + 1) if opened >= 0 else -1
        url = entry[opened + 1 : closed].strip(SPACES) if closed >= 0 else ""
        if not url:
            continue
        rel: tuple[str, ...] = ()
        kind: str | None = None
        for parameter in entry[closed + 1 :].split(";"):
            name, equals, raw = parameter.partition("=")
            if not equals:
                continue
            raw = raw.strip(SPACES)
            text = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == '"' else raw
            if name.strip(SPACES).lower() == "rel":
                rel = tuple(text.lower().split())
            elif name.strip(SPACES).lower() == "type":
                kind = text.strip(SPACES).lower()
        links.append(HeaderLink(url, rel, kind))
        if len(links) == declared.MAX_LINKS:
            break
    return links


def header_links(*representations: Representation | None) -> list[HeaderLink]:
    """The links of the answers' Link headers, in order."""
    return [
        link
        for rep in representations
        if rep is not None
        for link in link_header(rep.headers.get("link", ""))
    ]


def _markdown_type(kind: str | None) -> bool:
    return kind is not None and kind.split(";")[0].strip(SPACES).lower() in MARKDOWN_TYPES


def markdown_alternates(representations: Sequence[Representation | None]) -> list[str]:
    """The markdown copies the answers declare, absolute and without a fragment, once each: every
    Link header's first, then every <link rel=alternate type=text/markdown>."""
    found: dict[str, None] = {}

    def add(href: str, base: str) -> None:
        url = absolute_url(href, base, fragment=False)
        if url is not None:
            found.setdefault(url)

    answers = [rep for rep in representations if rep is not None]
    for rep in answers:
        for link in header_links(rep):
            if "alternate" in link.rel and _markdown_type(link.type):
                add(link.url, rep.url)
    for rep in answers:
        for tag in rep.markup.links if rep.markup is not None else ():
            if "alternate" in tag.rel and tag.href is not None and _markdown_type(tag.type):
                add(tag.href, rep.url)
    return list(found)


def alternate_target(agent: Probe | None, browser: Probe | None, url: str) -> str | None:
    """The one markdown copy ARS asks for (0.3): when the agent's answer is 2xx and no machine copy,
    the first declared copy on the page's origin that is not the page itself."""
    if agent is None or not has_response(agent) or not 200 <= (agent["status"] or 0) < 300:
        return None
    agent_rep = represent(agent)
    browser_rep = represent(browser) if browser is not None and has_response(browser) else None
    return _alternate(agent, agent_rep, browser_rep, url)


def _alternate(
    agent: Probe, agent_rep: Representation, browser_rep: Representation | None, url: str
) -> str | None:
    if agent_rep.machine_copy:
        return None
    origin = origin_of(url)
    own = {absolute_url(u, u, fragment=False) for u in (agent["final_url"] or url, agent["url"])}
    for href in markdown_alternates([browser_rep, agent_rep]):
        if origin_of(href) == origin and href not in own:
            return href
    return None


@dataclass(frozen=True, slots=True)
class LinkedCopy:
    url: str
    status: str
    """checked (it loaded as a machine copy), broken (it did not) or unchecked (not asked, or the
    policy refused it: nothing observed)."""
    rep: Representation | None = None
    reason: str | None = None
    """Why a broken copy is (netglean's words)."""


def _linked_copy(evidence: Evidence, agent: Probe, page: Page) -> LinkedCopy | None:
    url = _alternate(agent, page.agent, page.browser, evidence["url"])
    if url is None:
        return None
    probe = evidence["alternate"]
    if probe is None or absolute_url(probe["url"], probe["url"], fragment=False) != url:
        return LinkedCopy(url, "unchecked")
    error = probe["error"]
    if error is not None:
        if error["code"] in POLICY_CODES:
            return LinkedCopy(url, "unchecked")
        return LinkedCopy(url, "broken", reason=f"it failed ({error['code']})")
    status = probe["status"] or 0
    if not 200 <= status < 300:
        return LinkedCopy(url, "broken", reason=f"it answered {status}")
    rep = represent(probe)
    if not rep.machine_copy:
        return LinkedCopy(url, "broken", reason="it answered HTML, not markdown")
    return LinkedCopy(url, "checked", rep)


def probe_problem(probe: Probe) -> str | None:
    """What keeps a page probe's answer from being scored, as an unscored reason, or None: a
    failure, ARS's edge statuses (401, 403, 429) and a bot wall by the rule every netglean tool
    applies (netglean.read.reading.walled), then any other status but 2xx."""
    error = probe["error"]
    if error is not None:
        codes = {"too_many_redirects": "too_many_redirects", "too_large": "truncated_evidence"}
        return codes.get(error["code"], "unreachable")
    status = probe["status"]
    if status is None:
        return "unreachable"
    if status in {401, 403, 429}:
        return "blocked_at_edge"
    signals = bot_wall(status, probe["headers"], probe["body"])
    if signals_if_wall(signals, status, probe["body"], probe["final_url"] or probe["url"]):
        return "blocked_at_edge"
    return None if 200 <= status < 300 else "non_2xx"


@dataclass(frozen=True, slots=True)
class Profile:
    kind: str
    core: tuple[str, ...]
    extended: tuple[str, ...]
    reference: int


@dataclass(slots=True)
class Page:
    """What the checks read of one scan's evidence (its agent answer scorable)."""

    url: str
    origin: str
    agent: Representation
    browser: Representation | None
    """The browser probe's answer, whatever its status (None when it got none)."""
    structural: Representation | None
    """The answer the HTML checks read: the browser's when it is HTML, else the agent's when it
    is, else the browser's."""
    kind: Kind
    profile: Profile
    currency: str | None
    agent_facts: list[Fact]
    browser_facts: list[Fact]
    structural_facts: list[Fact]
    facts: list[Merged]
    negotiated: bool
    """The agent's answer itself is a machine copy."""
    linked: LinkedCopy | None
    policy: Policy
    titles: Mapping[str, str]
    """Each fact's name (the scale's), for what a fix says."""
    flags: list[dict[str, str]] = field(default_factory=list)
    """What the checks flagged (ARS's flags), each {id, severity, summary}."""

    def named(self, kinds: Sequence[str]) -> str:
        """Facts by name, as a fix lists them."""
        names = [self.titles.get(kind, kind).lower() for kind in kinds]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def reading(self, base: str) -> Reading:
        wanted = frozenset((*self.profile.core, *self.profile.extended))
        return Reading(wanted, base, self.origin, self.currency, ACTIONS)


def page_currency(*representations: Representation | None) -> str | None:
    """The currency the page prices in, from its JSON-LD offers, else its price meta tags."""
    for rep in representations:
        if rep is None:
            continue
        for node in rep.ld.nodes:
            for path in ("offers.priceCurrency", "priceCurrency"):
                code = _code(read_path(node, path))
                if code is not None:
                    return code
        for meta in rep.markup.metas if rep.markup is not None else ():
            code = _code(meta.content)
            if meta.key in {"og:price:currency", "product:price:currency"} and code is not None:
                return code
    return None


def _code(value: str | None) -> str | None:
    """A three-letter code, in capitals."""
    code = (value or "").strip(SPACES)
    return code.upper() if len(code) == 3 and code.isascii() and code.isalpha() else None


def profile_of(kind: str, table: Mapping[str, Any]) -> Profile:
    entry = table["page_kinds"][kind]
    return Profile(
        kind,
        tuple(entry["core_facts"]),
        tuple(entry["extended_facts"]),
        int(entry["reference_bytes"]),
    )


def read_page(
    evidence: Evidence,
    agent: Probe,
    browser: Probe | None,
    policy: Policy,
    table: Mapping[str, Any],
) -> Page:
    """The page of a scored scan: ``agent`` is its agent probe (2xx), ``browser`` its browser probe
    when that got an answer."""
    agent_rep = represent(agent)
    browser_rep = represent(browser, agent_rep) if browser is not None else None
    if browser_rep is not None and browser_rep.markup is not None:
        structural: Representation | None = browser_rep
    else:
        structural = agent_rep if agent_rep.markup is not None else browser_rep
    shown = structural or agent_rep
    kind = classify(shown.markup, shown.text, shown.ld, evidence["url"])
    profile = profile_of(kind.kind, table)
    page = Page(
        url=evidence["url"],
        origin=origin_of(evidence["url"]),
        agent=agent_rep,
        browser=browser_rep,
        structural=structural,
        kind=kind,
        profile=profile,
        currency=page_currency(structural, agent_rep),
        agent_facts=[],
        browser_facts=[],
        structural_facts=[],
        facts=[],
        negotiated=agent_rep.machine_copy,
        linked=None,
        policy=policy,
        titles={fact: entry["title"] for fact, entry in table["facts"].items()},
    )
    page.agent_facts = read_facts(
        agent_rep.markup, agent_rep.body, agent_rep.ld.nodes, page.reading(agent_rep.url)
    )
    if browser_rep is not None and _same(browser_rep, agent_rep):
        page.browser_facts = list(page.agent_facts)  # the same answer states the same facts
    elif browser_rep is not None:
        page.browser_facts = read_facts(
            browser_rep.markup,
            browser_rep.body,
            browser_rep.ld.nodes,
            page.reading(browser_rep.url),
        )
    page.structural_facts = (
        page.agent_facts
        if structural is agent_rep
        else page.browser_facts
        if structural is browser_rep
        else []
    )
    page.facts = merge(page.agent_facts, page.structural_facts)
    if not page.negotiated:
        page.linked = _linked_copy(evidence, agent, page)
    return page


def _same(a: Representation, b: Representation) -> bool:
    """Whether two answers are one: the same body, address and kind (read from the same markup)."""
    return (a.body, a.url, a.kind) == (b.body, b.url, b.kind) and a.markup is b.markup


def copy_facts(page: Page, copy: LinkedCopy) -> list[Fact]:
    """The facts of a linked markdown copy, read with the page's profile and currency."""
    if copy.rep is None:
        return []
    return read_facts(copy.rep.markup, copy.rep.body, copy.rep.ld.nodes, page.reading(copy.rep.url))
