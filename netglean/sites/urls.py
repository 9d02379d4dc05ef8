"""What a site is, for map and crawl: which URLs belong to it, and one spelling of each URL to de-duplicate by."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit


def same_site(url: str, origin_host: str) -> bool:
    """The URL's host is the start host or one of its subdomains (a leading www. ignored)."""
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    home = origin_host.lower().removeprefix("www.")
    return host == home or host.endswith("." + home)


@lru_cache(maxsize=65_536)
def normal(url: str) -> str:
    """``url`` without its fragment, scheme and host in lower case, an empty path as /. Cached: a crawl meets the
    same links (a site's navigation) on every page, and spelling them was a tenth of its event loop's time."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))
