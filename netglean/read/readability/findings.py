"""What the newer agent-readiness checkers look at, reported beside the 100-point score and never in
it.

Each finding is read from the evidence alone (a pure function: no I/O, no clock), in the catalog's
order: ``{id, title, status, basis, summary, evidence}``. ``status`` is present, partial, absent,
invalid or not_probed; ``basis`` says whether it was measured (an answer was read) or is heuristic
(inferred from what the page declares or its scripts mention). ``summary`` is ours alone, never the
page's words, URLs or header values, so it may be shown outside the untrusted frame; what the page
said goes in ``evidence``, bounded, for the caller to frame.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from netglean.read.document import HTML_TYPES, MARKDOWN_TYPES
from netglean.read.html_tree import page_json, parse_html
from netglean.read.readability.evidence import Evidence, Probe, media_type
from netglean.read.readability.links import header_links
from netglean.read.readability.llms_txt import parse_llms_txt

PRESENT, PARTIAL, ABSENT, INVALID, NOT_PROBED = (
    "present",
    "partial",
    "absent",
    "invalid",
    "not_probed",
)
MEASURED, HEURISTIC = "measured", "heuristic"

MAX_ROBOTS_CHARS = 512_000
"""robots.txt read for Content-Signal lines: Google's limit (500 KiB); a longer file is left unread
past it."""
MAX_JSON_CHARS = 1 << 20
"""A well-known JSON document read: a longer one is invalid."""
MAX_SCRIPT_CHARS = 1 << 20
"""Inline script text searched for WebMCP registrations, over all scripts."""
MAX_HEADER_CHARS = 8_192
"""A WWW-Authenticate header read; the rest is left unread."""
MAX_ITEMS = 20
"""Entries kept of any list in a finding's evidence; the rest are counted."""
_TEXT_LIMIT = 300
_URL_LIMIT = 2_048

SIGNAL_KEYS = ("search", "ai-input", "ai-train")
"""contentsignals.org's uses, each said yes or no."""
_SIGNAL_VALUES = frozenset({"yes", "no"})
_HTML_START = re.compile(r"\s*<(?:!doctype\s+html|html|head|body)\b", re.I)
TOKEN_RATIO = (0.25, 4.0)
"""The x-markdown-tokens count against netglean's estimate ((characters + 3) // 4) that is still
plausible: a real tokenizer counts between a quarter and four times as many for the same text."""
MCP_CARD_TYPE = "application/mcp-server-card+json"
_MCP_RELS = frozenset({"mcp", "mcp-server", "mcp-server-card", "mcp-catalog"})
_SKILL_TYPES = frozenset({"skill-md", "archive"})

_AUTH_PARAM = re.compile(r"\bresource_metadata\s*=\s*(?:\"((?:[^\"\\]|\\.)*)\"|([^,\s]*))", re.I)
_REGISTER_TOOL = re.compile(r"\bmodelContext\s*(?:\?\.|\.)\s*registerTool\s*\(")
_PROVIDE_CONTEXT = re.compile(r"\bmodelContext\s*(?:\?\.|\.)\s*provideContext\s*\(")
_MODEL_CONTEXT = re.compile(r"\bnavigator\s*(?:\?\.|\.)\s*modelContext\b")

Finding = dict[str, Any]


def findings(evidence: Evidence, table: Mapping[str, Any]) -> list[Finding]:
    """The catalog's findings (``table["findings"]``), in its order, read from ``evidence`` (the
    page's HTML parsed here again: the score's parse is pruned by main-content extraction)."""
    page = _Page(evidence)
    found: list[Finding] = []
    for entry in table["findings"]:
        rule = RULES.get(entry["id"])
        if rule is None:
            raise ValueError(f"the catalog names a finding with no rule: {entry['id']}")
        status, basis, summary, detail = rule(page)
        found.append(
            {
                "id": entry["id"],
                "title": entry["title"],
                "status": status,
                "basis": basis,
                "summary": summary,
                "evidence": detail,
            }
        )
    return found


Result = tuple[str, str, str, dict[str, Any]]
"""A rule's answer: status, basis, summary, evidence."""


class _Page:
    """The evidence with what several rules read from it (the page's HTML parse, its declared links)
    worked out once, on first use."""

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self._tree: Any = None
        self._parsed = False

    @property
    def html(self) -> Probe | None:
        """The answer holding the page's HTML: the browser probe's, else the agent probe's."""
        for probe in (self.evidence.get("browser"), self.evidence.get("agent")):
            if _ok(probe) and probe is not None and _is_html(probe):
                return probe
        return None

    @property
    def tree(self) -> Any:
        if not self._parsed:
            html = self.html
            self._tree = parse_html(html["body"]) if html is not None else None
            self._parsed = True
        return self._tree

    def page_probes(self) -> list[Probe]:
        """The page's answers (agent, then browser) that came back."""
        return [
            p
            for p in (self.evidence.get("agent"), self.evidence.get("browser"))
            if p and _read_whole(p)
        ]

    def declared(self, rels: frozenset[str], media_type: str | None = None) -> list[dict[str, str]]:
        """The links the page declares (Link headers of its answers, then <link> in its HTML) with
        one of ``rels``, or typed ``media_type``: ``{"via", "rel", "url"}``, at most MAX_ITEMS, each
        URL once."""
        found: dict[str, dict[str, str]] = {}
        for probe in self.page_probes():
            base = probe["final_url"] or probe["url"]
            for link in header_links(probe["headers"].get("link", "")):
                _declare(
                    found,
                    via="link_header",
                    base=base,
                    target=link["href"],
                    rel=link["rel"],
                    kind=link["type"],
                    rels=rels,
                    media_type=media_type,
                )
        tree, html = self.tree, self.html
        if tree is not None and html is not None:
            base = html["final_url"] or html["url"]
            for node in tree.css("link[rel][href]"):
                attributes = node.attributes
                _declare(
                    found,
                    via="html",
                    base=base,
                    target=attributes.get("href") or "",
                    rel=attributes.get("rel") or "",
                    kind=attributes.get("type") or "",
                    rels=rels,
                    media_type=media_type,
                )
                if len(found) >= MAX_ITEMS:
                    break
        return list(found.values())[:MAX_ITEMS]


def _declare(
    found: dict[str, dict[str, str]],
    *,
    via: str,
    base: str,
    target: str,
    rel: str,
    kind: str,
    rels: frozenset[str],
    media_type: str | None,
) -> None:
    names = {name.lower() for name in rel.split()}
    matched = sorted(names & rels)
    typed = media_type is not None and kind.split(";", maxsplit=1)[0].strip().lower() == media_type
    if not (matched or typed) or not target.strip():
        return
    url = _resolve(base, target)
    if url is None:
        return
    found.setdefault(
        url,
        {
            "via": via,
            "rel": (matched[0] if matched else rel.strip().lower())[:_TEXT_LIMIT],
            "url": url,
        },
    )


# ---- helpers over answers ------------------------------------------------------------------------


def _read_whole(probe: Probe | None) -> bool:
    """Whether a probe got an answer read whole (no failure, a status)."""
    return probe is not None and probe["status"] is not None and probe["error"] is None


def _ok(probe: Probe | None) -> bool:
    return _read_whole(probe) and probe is not None and 200 <= (probe["status"] or 0) < 300


def _is_html(probe: Probe) -> bool:
    declared = media_type(probe)
    return declared in HTML_TYPES or (
        not declared and bool(_HTML_START.match(probe["body"][:1024]))
    )


def _charset(probe: Probe) -> str | None:
    for param in probe["headers"].get("content-type", "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"'):
            return value.strip().strip('"')[:_TEXT_LIMIT]
    return None


def _resolve(base: str, target: str) -> str | None:
    """``target`` resolved against ``base``, its fragment dropped, bounded; None when it is no URL
    (a page's malformed link, an unclosed IPv6 literal, must not stop the findings)."""
    try:
        return urldefrag(urljoin(base, target.strip())).url[:_URL_LIMIT]
    except ValueError:
        return None


def _text(value: Any, limit: int = _TEXT_LIMIT) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def _http_url(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme in {"http", "https"} and bool(parts.hostname)


def _vary_accept(probe: Probe) -> bool:
    names = {name.strip().lower() for name in probe["headers"].get("vary", "").split(",")}
    return "accept" in names or "*" in names


def _json_document(probe: Probe) -> tuple[Any, str | None]:
    """An answer's body as JSON, or why it is none (html, too_large, not_json)."""
    body = probe["body"]
    if _is_html(probe) or _HTML_START.match(body[:1024]):
        return None, "html"
    if len(body) > MAX_JSON_CHARS:
        return None, "too_large"
    try:
        return page_json(body), None
    except ValueError:
        return None, "not_json"


# ---- 1. markdown negotiation ---------------------------------------------------------------------


def _markdown_negotiation(page: _Page) -> Result:
    agent = page.evidence.get("agent")
    if not _read_whole(agent) or agent is None:
        return (
            NOT_PROBED,
            MEASURED,
            "The page was not asked for as an agent, so negotiation was not seen.",
            {},
        )
    detail: dict[str, Any] = {
        "status": agent["status"],
        "content_type": _text(agent["headers"].get("content-type")),
    }
    if not _ok(agent) or media_type(agent) not in MARKDOWN_TYPES:
        return (
            ABSENT,
            MEASURED,
            "Asked for markdown first, the page answered with another type.",
            detail,
        )
    body = agent["body"]
    estimate = (len(body) + 3) // 4
    declared = agent["headers"].get("x-markdown-tokens")
    resolved = (
        _resolve(agent["final_url"] or agent["url"], link["href"])
        for link in header_links(agent["headers"].get("link", ""))
        if "canonical" in link["rel"].split()
    )
    canonical = [url for url in resolved if url is not None]
    browser = page.evidence.get("browser")
    pages = {
        _resolve(url, "#")
        for url in (page.evidence["url"], browser["final_url"] if browser else None)
        if url
    }
    detail.update(
        charset=_charset(agent),
        vary_accept=_vary_accept(agent),
        markdown_tokens=_text(declared),
        estimated_tokens=estimate,
        canonical_link=canonical[0] if canonical else None,
        canonical_is_page=bool(canonical) and _resolve(canonical[0], "#") in pages,
    )
    if _HTML_START.match(body[:1024]):
        return (
            INVALID,
            MEASURED,
            "The answer is typed as markdown but its body is an HTML page.",
            detail,
        )
    if declared is not None:
        digits = declared.strip()
        if not digits.isascii() or not digits.isdigit() or len(digits) > 12:
            return (
                INVALID,
                MEASURED,
                "The x-markdown-tokens header is not a whole number of tokens.",
                detail,
            )
        count = int(digits)
        detail["tokens_ratio"] = round(count / estimate, 2) if estimate else None
        low, high = TOKEN_RATIO
        detail["tokens_plausible"] = (
            (count == 0) if not estimate else low <= count / estimate <= high
        )
    missing = [
        name
        for name, held in (
            ("charset", detail["charset"] is not None),
            ("vary_accept", detail["vary_accept"]),
            ("x_markdown_tokens", declared is not None),
            ("plausible_tokens", declared is None or detail["tokens_plausible"]),
        )
        if not held
    ]
    detail["missing"] = missing
    if missing:
        return (
            PARTIAL,
            MEASURED,
            f"The page negotiates markdown, without: {', '.join(missing)}.",
            detail,
        )
    return (
        PRESENT,
        MEASURED,
        "The page negotiates markdown with a charset, Vary: Accept and a token count.",
        detail,
    )


# ---- 2. content signals --------------------------------------------------------------------------


def parse_content_signal(value: str) -> tuple[dict[str, str], list[str]]:
    """A Content-Signal value (``search=yes, ai-train=no``): the uses it declares, and what is wrong
    in it (ids: unknown_key, bad_value, malformed, duplicate_key)."""
    signals: dict[str, str] = {}
    problems: list[str] = []
    for part in value[:_URL_LIMIT].split(","):
        if not part.strip():
            continue
        key, equals, said = part.partition("=")
        key, said = key.strip().lower(), said.strip().lower()
        if not equals or not key:
            problems.append("malformed")
        elif key not in SIGNAL_KEYS:
            problems.append("unknown_key")
        elif said not in _SIGNAL_VALUES:
            problems.append("bad_value")
        elif key in signals:
            problems.append("duplicate_key")
        else:
            signals[key] = said
    return signals, sorted(set(problems))


def robots_content_signals(body: str) -> list[dict[str, Any]]:
    """The Content-Signal lines of a robots.txt body (its first MAX_ROBOTS_CHARS), each with the
    user-agent group it sits in (at most MAX_ITEMS agents named; none: before any User-agent
    line)."""
    found: list[dict[str, Any]] = []
    agents: list[str] = []
    # a rule line since the last User-agent: the next User-agent line starts a new group
    in_rules = False
    for line in body[:MAX_ROBOTS_CHARS].splitlines():
        field, colon, value = line.split("#", 1)[0].partition(":")
        if not colon:
            continue
        field, value = field.strip().lower(), value.strip()
        if field == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            if len(agents) < MAX_ITEMS:
                agents.append(value[:_TEXT_LIMIT])
            continue
        in_rules = True
        if field == "content-signal":
            signals, problems = parse_content_signal(value)
            if not agents:
                problems = sorted({*problems, "outside_group"})
            found.append({"user_agents": agents, "signals": signals, "problems": problems})
    return found


def _content_signal(page: _Page) -> Result:
    robots = page.evidence.get("robots")
    read_robots = _read_whole(robots) and robots is not None
    headers = [p for p in page.page_probes() if "content-signal" in p["headers"]]
    if not read_robots and not headers:
        return (
            NOT_PROBED,
            MEASURED,
            "robots.txt was not read and no answer carried a Content-Signal header.",
            {},
        )
    lines = robots_content_signals(robots["body"]) if robots is not None and _ok(robots) else []
    if headers:
        signals, problems = parse_content_signal(headers[0]["headers"]["content-signal"])
        header: dict[str, Any] | None = {"signals": signals, "problems": problems}
    else:
        header = None
    every = lines + ([header] if header else [])
    declared = [entry for entry in every if entry["signals"]]
    problems = sorted({problem for entry in every for problem in entry["problems"]})
    detail: dict[str, Any] = {
        "robots_status": robots["status"] if read_robots and robots is not None else None,
        "robots_lines": lines[:MAX_ITEMS],
        "robots_line_count": len(lines),
        "header": header,
        "problems": problems,
        "keys_declared": sorted({key for entry in declared for key in entry["signals"]}),
    }
    if not every:
        return (
            ABSENT,
            MEASURED,
            "robots.txt has no Content-Signal line and no answer a Content-Signal header.",
            detail,
        )
    if not declared:
        summary = (
            "Content-Signal is given but declares no use validly (search, ai-input, ai-train)."
        )
        return INVALID, MEASURED, summary, detail
    if problems:
        return (
            PARTIAL,
            MEASURED,
            f"Content-Signal declares uses, with problems: {', '.join(problems)}.",
            detail,
        )
    return PRESENT, MEASURED, "Content-Signal declares the site's uses validly.", detail


# ---- 3-6. well-known endpoints -------------------------------------------------------------------

Validation = tuple[str, list[str], dict[str, Any]]
"""A well-known document read: present, partial or invalid; what is wrong with it (ids); what it
says."""


def _well_known(
    page: _Page,
    key: str,
    noun: str,
    validate: Callable[[Any, Probe], Validation],
    declared: list[dict[str, str]],
) -> Result:
    """A finding over the well-known answer ``key`` (``noun`` names it in the summary), or, when it
    was not asked for, over what the page ``declared``."""
    probe = page.evidence.get("well_known", {}).get(key)
    if probe is not None and not _read_whole(probe):
        return (
            NOT_PROBED,
            MEASURED,
            f"The well-known {noun} path was asked for and gave no answer to read.",
            {},
        )
    if probe is None:
        if declared:
            summary = (
                f"The page declares where its {noun} is; the well-known endpoints were not probed."
            )
            return PRESENT, HEURISTIC, summary, {"declared": declared}
        return (
            NOT_PROBED,
            MEASURED,
            f"The well-known endpoints were not probed and the page declares no {noun}.",
            {},
        )
    detail: dict[str, Any] = {
        "status": probe["status"],
        "content_type": _text(probe["headers"].get("content-type")),
    }
    if declared:
        detail["declared"] = declared
    if probe["status"] in {404, 410}:
        if declared:
            return (
                PARTIAL,
                MEASURED,
                f"Nothing is at the well-known {noun} path, though the page declares one.",
                detail,
            )
        return ABSENT, MEASURED, f"No {noun} is at the well-known path.", detail
    if not _ok(probe):
        return (
            INVALID,
            MEASURED,
            f"The well-known {noun} path answered with an error status.",
            detail,
        )
    document, why = _json_document(probe)
    if why is not None:
        detail["problems"] = [why]
        return (
            INVALID,
            MEASURED,
            f"The well-known {noun} path answered with no JSON document ({why}).",
            detail,
        )
    status, problems, facts = validate(document, probe)
    detail.update(facts, problems=problems)
    if status == PRESENT:
        return PRESENT, MEASURED, f"A valid {noun} is served at the well-known path.", detail
    if status == PARTIAL:
        return (
            PARTIAL,
            MEASURED,
            f"The {noun} at the well-known path is incomplete: {', '.join(problems)}.",
            detail,
        )
    return (
        INVALID,
        MEASURED,
        f"The well-known path serves JSON that is no {noun}: {', '.join(problems)}.",
        detail,
    )


def _validate_mcp_card(document: Any, probe: Probe) -> Validation:
    """A server card (SEP-2127: ``name``, ``version``, ``remotes[].url``; the earlier drafts'
    ``serverInfo`` and ``transport`` or ``endpoint``), or an MCP catalog (``entries[]`` of
    server-card URLs) standing for one."""
    if not isinstance(document, dict):
        return INVALID, ["not_an_object"], {}
    entries = document.get("entries")
    if isinstance(entries, list) and "name" not in document:
        cards = [e for e in entries if isinstance(e, dict) and _http_url(e.get("url"))]
        facts = {
            "kind": "catalog",
            "entries": len(entries),
            "card_urls": [e["url"][:_URL_LIMIT] for e in cards][:MAX_ITEMS],
        }
        if not cards:
            return PARTIAL, ["no_card_urls"], facts
        untyped = [e for e in cards if e.get("type") != MCP_CARD_TYPE]
        return (PARTIAL, ["entry_type"], facts) if untyped else (PRESENT, [], facts)
    server_info = document.get("serverInfo")
    info: dict[str, Any] = server_info if isinstance(server_info, dict) else document
    name, version = info.get("name"), info.get("version")
    endpoints: list[str] = []
    remotes = document.get("remotes")
    for remote in remotes if isinstance(remotes, list) else []:
        if isinstance(remote, dict) and _http_url(remote.get("url")):
            endpoints.append(remote["url"])
    transport = document.get("transport")
    for candidate in (transport if isinstance(transport, dict) else {}, document):
        for field in ("url", "endpoint"):
            value = candidate.get(field)
            url = (
                _resolve(probe["final_url"] or probe["url"], value)
                if isinstance(value, str)
                else None
            )
            if url is not None and _http_url(url):
                endpoints.append(url)
    facts = {
        "kind": "card",
        "name": _text(name),
        "version": _text(version),
        "endpoints": [url[:_URL_LIMIT] for url in endpoints][:MAX_ITEMS],
    }
    problems = [
        problem
        for problem, held in (
            ("name", isinstance(name, str) and name),
            ("version", isinstance(version, str) and version),
            ("endpoint", endpoints),
        )
        if not held
    ]
    if len(problems) == 3:
        return INVALID, problems, facts
    return (PARTIAL, problems, facts) if problems else (PRESENT, [], facts)


def _mcp_server_card(page: _Page) -> Result:
    declared = page.declared(_MCP_RELS, MCP_CARD_TYPE)
    return _well_known(page, "mcp_server_card", "MCP server card", _validate_mcp_card, declared)


def _validate_api_catalog(document: Any, probe: Probe) -> Validation:
    """RFC 9727: a linkset (RFC 9264) whose members each have an anchor and links (objects with an
    href); served as application/linkset+json."""
    linkset = document.get("linkset") if isinstance(document, dict) else None
    if not isinstance(linkset, list):
        return INVALID, ["no_linkset"], {}
    complete = 0
    for member in linkset:
        if not isinstance(member, dict) or not isinstance(member.get("anchor"), str):
            continue
        targets = [
            t
            for rel, value in member.items()
            if rel != "anchor" and isinstance(value, list)
            for t in value
        ]
        complete += any(isinstance(t, dict) and isinstance(t.get("href"), str) for t in targets)
    facts = {
        "members": len(linkset),
        "complete_members": complete,
        "linkset_type": media_type(probe) == "application/linkset+json",
    }
    problems = [
        problem
        for problem, held in (
            ("media_type", facts["linkset_type"]),
            ("empty", linkset),
            ("incomplete_member", complete == len(linkset)),
        )
        if not held
    ]
    return (PARTIAL, problems, facts) if problems else (PRESENT, [], facts)


def _api_catalog(page: _Page) -> Result:
    declared = page.declared(frozenset({"api-catalog"}))
    return _well_known(page, "api_catalog", "API catalog", _validate_api_catalog, declared)


def _validate_protected_resource(document: Any, probe: Probe) -> Validation:
    """RFC 9728: ``resource`` (required) and ``authorization_servers`` (how a client finds where to
    sign in)."""
    if not isinstance(document, dict) or not _http_url(document.get("resource")):
        return INVALID, ["resource"], {}
    servers = document.get("authorization_servers")
    urls = (
        [url[:_URL_LIMIT] for url in servers if _http_url(url)] if isinstance(servers, list) else []
    )
    facts = {
        "resource": document["resource"][:_URL_LIMIT],
        "authorization_servers": urls[:MAX_ITEMS],
    }
    return (PRESENT, [], facts) if urls else (PARTIAL, ["authorization_servers"], facts)


def _validate_authorization_server(document: Any, probe: Probe) -> Validation:
    """RFC 8414: ``issuer`` (required), the endpoints and ``response_types_supported``."""
    if not isinstance(document, dict) or not _http_url(document.get("issuer")):
        return INVALID, ["issuer"], {}
    problems = [
        field
        for field in ("authorization_endpoint", "token_endpoint")
        if not _http_url(document.get(field))
    ]
    if not isinstance(document.get("response_types_supported"), list):
        problems.append("response_types_supported")
    facts = {"issuer": document["issuer"][:_URL_LIMIT]}
    return (PARTIAL, problems, facts) if problems else (PRESENT, [], facts)


_RANK = {PRESENT: 4, PARTIAL: 3, INVALID: 2, ABSENT: 1, NOT_PROBED: 0}


def _oauth_discovery(page: _Page) -> Result:
    """Either metadata document counts (the authorization server is often on another host, so its
    absence at the resource's origin is no fault); a 401 naming ``resource_metadata`` declares the
    first."""
    challenges: list[str] = []
    answers = [*page.page_probes(), *page.evidence.get("well_known", {}).values()]
    for probe in answers:
        if _read_whole(probe) and probe["status"] == 401:
            for found in _AUTH_PARAM.finditer(
                probe["headers"].get("www-authenticate", "")[:MAX_HEADER_CHARS]
            ):
                url = found[1] if found[1] is not None else found[2]
                if url and url[:_URL_LIMIT] not in challenges and len(challenges) < MAX_ITEMS:
                    challenges.append(url[:_URL_LIMIT])
    declared = [
        {"via": "www_authenticate", "rel": "resource_metadata", "url": url} for url in challenges
    ]
    parts = {
        "protected_resource": _well_known(
            page,
            "oauth_protected_resource",
            "protected resource metadata",
            _validate_protected_resource,
            declared,
        ),
        "authorization_server": _well_known(
            page,
            "oauth_authorization_server",
            "authorization server metadata",
            _validate_authorization_server,
            [],
        ),
    }
    detail = {
        name: {"outcome": status, "basis": basis, **facts}
        for name, (status, basis, _, facts) in parts.items()
    }
    best = max(parts.values(), key=lambda part: _RANK[part[0]])
    statuses = {part[0] for part in parts.values()}
    status = best[0]
    if status == PRESENT and INVALID in statuses:
        status = PARTIAL
    summaries = {
        PRESENT: "OAuth discovery metadata is published (RFC 9728 or RFC 8414).",
        PARTIAL: "OAuth discovery metadata is published, incomplete or beside an invalid document.",
        INVALID: "An OAuth discovery path answers with no valid metadata document.",
        ABSENT: "No OAuth discovery metadata is published at the well-known paths.",
        NOT_PROBED: "The well-known endpoints were not probed and no answer named resource "
        "metadata.",
    }
    return status, best[1], summaries[status], detail


def _validate_skills(document: Any, probe: Probe) -> Validation:
    """The Agent Skills discovery index: ``skills[]``, each with a name, a description and either
    (v0.2) a type, url and digest, or (v0.1) a list of files."""
    skills = document.get("skills") if isinstance(document, dict) else None
    if not isinstance(skills, list):
        return INVALID, ["no_skills"], {}
    complete = 0
    names: list[str] = []
    for skill in skills:
        if not isinstance(skill, dict) or not isinstance(skill.get("name"), str):
            continue
        if len(names) < MAX_ITEMS:
            names.append(skill["name"][:_TEXT_LIMIT])
        current = (
            skill.get("type") in _SKILL_TYPES
            and isinstance(skill.get("url"), str)
            and isinstance(skill.get("digest"), str)
        )
        legacy = isinstance(skill.get("files"), list) and bool(skill["files"])
        complete += isinstance(skill.get("description"), str) and (current or legacy)
    facts = {
        "schema": _text(document.get("$schema")),
        "skills": len(skills),
        "complete_skills": complete,
        "names": names,
    }
    problems = [
        problem
        for problem, held in (("empty", skills), ("incomplete_skill", complete == len(skills)))
        if not held
    ]
    return (PARTIAL, problems, facts) if problems else (PRESENT, [], facts)


def _agent_skills(page: _Page) -> Result:
    return _well_known(page, "agent_skills", "agent skills index", _validate_skills, [])


# ---- 7. WebMCP -----------------------------------------------------------------------------------


def _webmcp(page: _Page) -> Result:
    tree = page.tree
    if tree is None:
        return (
            NOT_PROBED,
            HEURISTIC,
            "No HTML answer was read, so WebMCP declarations were not looked for.",
            {},
        )
    forms: list[dict[str, Any]] = []
    declarative = incomplete = 0
    seen: set[int] = set()
    for node in tree.css("form[toolname], form[tooldescription]"):
        if node.mem_id in seen:  # a form with both attributes matches both selectors
            continue
        seen.add(node.mem_id)
        name = (node.attributes.get("toolname") or "").strip()
        description = (node.attributes.get("tooldescription") or "").strip()
        if name and description:
            declarative += 1
        else:
            incomplete += 1
        if len(forms) < MAX_ITEMS:
            forms.append(
                {"toolname": name[:_TEXT_LIMIT], "tooldescription": description[:_TEXT_LIMIT]}
            )
    budget = MAX_SCRIPT_CHARS
    register = provide = mentions = 0
    for node in tree.css("script:not([src])"):
        if budget <= 0:
            break
        text = node.text(deep=True)[:budget]
        budget -= len(text)
        # a substring test first: the patterns are costly over a megabyte of script
        if "modelContext" not in text:
            continue
        register += len(_REGISTER_TOOL.findall(text))
        provide += len(_PROVIDE_CONTEXT.findall(text))
        mentions += len(_MODEL_CONTEXT.findall(text))
    detail = {
        "forms": forms,
        "declarative_tools": declarative,
        "incomplete_forms": incomplete,
        "register_tool_calls": register,
        "provide_context_calls": provide,
        "model_context_mentions": mentions,
    }
    if declarative or register or provide:
        return (
            PRESENT,
            HEURISTIC,
            "The page declares WebMCP tools (form attributes or script registration).",
            detail,
        )
    if incomplete or mentions:
        return PARTIAL, HEURISTIC, "The page mentions WebMCP but declares no complete tool.", detail
    return (
        ABSENT,
        HEURISTIC,
        "The page's HTML declares no WebMCP tools (inline scripts and forms read).",
        detail,
    )


# ---- 8. llms.txt structure -----------------------------------------------------------------------


def _llms_txt_structure(page: _Page) -> Result:
    probe = page.evidence.get("llms_txt")
    if probe is None or not _read_whole(probe):
        return NOT_PROBED, MEASURED, "/llms.txt was not read.", {}
    detail: dict[str, Any] = {
        "status": probe["status"],
        "content_type": _text(probe["headers"].get("content-type")),
    }
    if not _ok(probe):
        return (
            ABSENT,
            MEASURED,
            "There is no /llms.txt (the server answered with an error status).",
            detail,
        )
    parsed = parse_llms_txt(probe["body"], probe["headers"].get("content-type"))
    problems = [
        {"id": p.id, "message": p.message, "line": p.line, "count": p.count}
        for p in parsed.problems
    ]
    detail.update(
        title=parsed.title,
        summary=parsed.summary,
        sections=[
            {"name": s.name, "optional": s.optional, "links": len(s.links)} for s in parsed.sections
        ][:MAX_ITEMS],
        section_count=len(parsed.sections),
        links=parsed.links,
        problems=problems,
    )
    ids = ", ".join(p.id for p in parsed.problems)
    if not parsed.valid:
        return INVALID, MEASURED, f"/llms.txt is not an llms.txt: {ids}.", detail
    if parsed.problems:
        return (
            PARTIAL,
            MEASURED,
            f"/llms.txt has its title but breaks llmstxt.org's rules: {ids}.",
            detail,
        )
    summary = (
        f"/llms.txt follows llmstxt.org: a title, {len(parsed.sections)} sections, "
        f"{parsed.links} links."
    )
    return PRESENT, MEASURED, summary, detail


RULES: Mapping[str, Callable[[_Page], Result]] = {
    "markdown_negotiation": _markdown_negotiation,
    "content_signal": _content_signal,
    "mcp_server_card": _mcp_server_card,
    "api_catalog": _api_catalog,
    "oauth_discovery": _oauth_discovery,
    "agent_skills": _agent_skills,
    "webmcp": _webmcp,
    "llms_txt_structure": _llms_txt_structure,
}
"""Each finding's rule, by the catalog's id."""
