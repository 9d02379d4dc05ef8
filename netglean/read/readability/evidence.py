"""The evidence a scan gathers, as one JSON document: what was asked, and what each answer was.

Everything the score depends on is in the document and nothing else is: the score is a function of
it. Volatile headers (a date, a cookie, a request id) are left out when an answer is recorded, so
two scans of an unchanged site have the same document, and the same hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, TypedDict

FORMAT = "netglean.evidence/2"

AGENT_ACCEPT = "text/markdown;q=1.0, text/html;q=0.8, text/plain;q=0.5, */*;q=0.1"
"""An agent's Accept: markdown first, then HTML, then plain text."""
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
"""A browser's Accept; the two probes of a page are identical in every other respect."""
ASSET_ACCEPT = "text/plain,*/*;q=0.5"
"""What /llms.txt and /.well-known/ucp are asked for with (ARS's Accepts, all three)."""

VOLATILE_HEADERS = frozenset(
    {
        "age",
        "akamai-grn",
        "cf-ray",
        "date",
        "expires",
        "nel",
        "report-to",
        "server-timing",
        "set-cookie",
        "traceparent",
        "tracestate",
        "via",
        "x-amz-cf-pop",
        "x-cache-hits",
        "x-cloud-trace-context",
        "x-envoy-upstream-service-time",
        "x-runtime",
        "x-served-by",
    }
)
"""Headers that change from one answer to the next with nothing on the page changed: never evidence.
So are those named like them (VOLATILE_SUFFIXES). A page whose body changes on each answer (a CSP
nonce, a token) still has a new hash each time: that is the page, not the answer's envelope."""
VOLATILE_SUFFIXES = (
    "-request-id",
    "-requestid",
    "-trace-id",
    "-traceid",
    "-cache-status",
    "-cache",
    "-timer",
    "-id",
)
"""Header name endings of request ids, traces and cache hits (x-fastly-request-id, cf-cache-status,
fly-request-id, x-vercel-cache...), which say which request it was, not what the page is."""


class Failure(TypedDict):
    code: str
    """netglean's error code: unreachable, timeout, too_many_redirects, too_large,
    blocked_address..."""
    message: str


class Hop(TypedDict):
    url: str
    status: int


class Probe(TypedDict):
    """One request and its answer (or why there was none)."""

    url: str
    """The URL asked for."""
    accept: str
    final_url: str | None
    """Where the answer came from after redirects; None when nothing answered."""
    status: int | None
    headers: dict[str, str]
    """The answer's headers, names in lower case, volatile ones left out."""
    redirects: list[Hop]
    body: str
    """The body decoded as text (charset, BOM, <meta charset>, UTF-8, windows-1252); a PDF's as
    UTF-8 (ARS reads a PDF's text there); empty for any other answer that is not text."""
    bytes: int
    """The body's size on the wire after decompression, in bytes."""
    error: Failure | None


class Evidence(TypedDict):
    format: str
    url: str
    """The page asked for."""
    vantage: str
    """public (robots.txt obeyed) or self (the operator ignores robots.txt)."""
    robots: Probe | None
    """/robots.txt of the page's origin (always asked: where the operator ignores it, it is still
    evidence); None only in evidence written by hand."""
    robots_verdict: str
    """What robots.txt says of the page for netglean: allowed, disallowed, unreadable or ignored."""
    agent: Probe | None
    """The page asked for with the agent Accept; None when it was not asked (robots.txt said no)."""
    browser: Probe | None
    """The page asked for with the browser Accept."""
    llms_txt: Probe | None
    """/llms.txt of the page's origin."""
    alternate: Probe | None
    """The markdown copy the page declares (Link header or <link rel=alternate>) on its own origin,
    asked for with the agent Accept when the agent probe got no machine copy (ARS 0.3's one extra
    request)."""
    ucp: Probe | None
    """/.well-known/ucp of the page's origin (ARS asks it of every site: a machine endpoint)."""
    well_known: dict[str, Probe]
    """Well-known agent endpoints by name (mcp_server_card, api_catalog, oauth_protected_resource,
    oauth_authorization_server, agent_skills), when the scan was asked to probe them."""
    max_bytes: int
    """The body cap the answers were read under: an answer past it is a too_large failure."""


def media_type(probe: Probe | None) -> str:
    """The media type an answer declares, lower case without parameters ("" when none, or no
    answer)."""
    if probe is None:
        return ""
    return probe["headers"].get("content-type", "").split(";")[0].strip().lower()


def evidence_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers worth keeping as evidence: lower-cased names, volatile ones out, sorted."""
    kept = {name.lower(): value for name, value in headers.items()}
    return {
        name: kept[name]
        for name in sorted(kept)
        if name not in VOLATILE_HEADERS and not name.endswith(VOLATILE_SUFFIXES)
    }


def canonical(document: Mapping[str, Any]) -> bytes:
    """The document's one byte form: keys sorted, no spaces, UTF-8 (what the hash is taken of)."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def evidence_hash(document: Mapping[str, Any]) -> str:
    """sha256 of the canonical form, as ``sha256:<hex>``."""
    return "sha256:" + hashlib.sha256(canonical(document)).hexdigest()
