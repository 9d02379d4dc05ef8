"""URLs and request headers as the fetcher takes them: parsed (httpx.URL), refused when unusable,
with reasons."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from netglean.core.errors import BadUrl
from netglean.core.validation import QUOTED_CHARS, shorten_message
from netglean.net.addresses import literal_ip

if TYPE_CHECKING:
    import httpx

_OWN_HEADERS = frozenset(
    {
        "host", "user-agent", "accept-encoding", "content-length", "transfer-encoding",
        "connection", "keep-alive", "te", "trailer", "upgrade", "proxy-authorization",
        "proxy-connection",
    }
)  # fmt: skip


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 field names
# no line breaks or controls smuggled into a request
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def allowed_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {
        name.lower(): value
        for name, value in headers.items()
        if name.lower() not in _OWN_HEADERS
        and _TOKEN.fullmatch(name)
        and not _BAD_VALUE.search(value)
    }


def _brief(text: str) -> str:
    """``text`` (a URL, a scheme) as a refusal quotes it, as briefly as core.validation quotes an
    argument: its first characters and how many there were."""
    return (
        repr(text)
        if len(text) <= QUOTED_CHARS
        else f"{text[:QUOTED_CHARS]!r}… ({len(text)} characters)"
    )


def parse_url(url: str) -> httpx.URL:
    """``url`` as an httpx URL, or ``BadUrl`` saying why it will not be fetched."""
    import httpx  # here, not at import: starting the server never pays for it

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadUrl(shorten_message(f"not a URL: {_brief(url)} ({exc})")) from exc
    if parsed.scheme not in {"http", "https"}:
        scheme = (
            _brief(parsed.scheme) if len(parsed.scheme) > QUOTED_CHARS else parsed.scheme
        ) or "a relative URL"
        raise BadUrl(f"only http and https URLs are fetched, not {scheme}: {_brief(url)}")
    if not parsed.host:
        raise BadUrl(f"the URL has no host: {_brief(url)}")
    if parsed.userinfo:
        raise BadUrl("URLs with credentials (user:password@) are not fetched")
    literal = literal_ip(parsed.host)
    if literal is not None and literal.version == 4 and parsed.host != str(literal):
        # 2130706433, 0x7f.1, 127.1: spelled the canonical way, as browsers do, so the
        # address checked and the address connected to are written alike.
        parsed = parsed.copy_with(host=str(literal))
    return parsed


def redirect_target(current: httpx.URL, location: str) -> httpx.URL:
    """Where a Location header points from ``current``, or ``BadUrl`` (a target's header is
    untrusted input)."""
    import httpx

    try:
        joined = current.join(location)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise BadUrl(
            f"{current} redirects to something that is not a URL", detail={"from": str(current)}
        ) from exc
    return parse_url(str(joined))


def pin_key(host: str) -> str:
    """How a host's pin is filed: an IP literal in its canonical spelling, a name in lower case."""
    literal = literal_ip(host)
    return str(literal) if literal is not None else host.lower()
