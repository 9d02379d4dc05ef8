"""Tools that read the web through the runtime's fetcher (netglean.fetch): the network policy always applies."""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from generated.models import DownloadInput
from netglean.context import Context
from netglean.envelope import Outcome
from netglean.fetch import Page
from netglean.page_meta import page_metadata
from netglean.untrusted import sanitize

_HTML = {"text/html", "application/xhtml+xml"}


async def download(args: DownloadInput, ctx: Context) -> Outcome:
    page = await ctx.fetcher.fetch(args.url, accept="*/*", max_bytes=args.max_size)
    payload: dict[str, object] = {
        "url": args.url,
        "final_url": page.url,
        "status": page.status,
        "redirects": [hop.url for hop in page.redirects],
        "mime_type": page.media_type,
        "size": len(page.body),
        "sha256": hashlib.sha256(page.body).hexdigest(),
        "filename": _filename(page),
    }
    if page.media_type in _HTML:
        metadata = page_metadata(page.text(), page.url)
        if metadata:
            payload["page"] = metadata
    return Outcome(
        payload,
        guidance=f"{page.media_type}, {len(page.body)} bytes from {page.url}.",
        source=page.url,
    )


def _filename(page: Page) -> str:
    """The server's suggested filename (RFC 6266, RFC 5987 first), else the URL's last path segment."""
    disposition = page.headers.get("content-disposition", "")
    extended = re.search(r"filename\*\s*=\s*[\w-]+'[\w-]*'([^;]+)", disposition, re.IGNORECASE)
    plain = re.search(r'filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)', disposition, re.IGNORECASE)
    if extended:
        name = unquote(extended.group(1).strip())
    elif plain:
        name = (plain.group(1) if plain.group(1) is not None else plain.group(2)).strip()
    else:
        name = unquote(PurePosixPath(urlsplit(page.url).path).name)
    # A name from a server is untrusted: no directories, no control or invisible characters.
    name = sanitize(name).replace("\\", "/").rsplit("/", 1)[-1].strip(" .")
    return name[:255] or "download"
