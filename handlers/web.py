"""Tools that read the web through the runtime's fetcher (netglean.fetch): the network policy always applies."""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

import anyio

from generated.models import DownloadInput, ScrapeInput
from netglean.context import Context
from netglean.envelope import DONE, Outcome
from netglean.errors import UnsupportedContent
from netglean.fetch import Page
from netglean.page_meta import page_metadata
from netglean.untrusted import sanitize

_HTML = {"text/html", "application/xhtml+xml"}
_TEXT = {"text/plain", "text/markdown", "application/json", "text/csv"}


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


async def scrape(args: ScrapeInput, ctx: Context) -> Outcome:
    from netglean.extract import extract, render

    fmt = args.format or "markdown"
    page = await ctx.fetcher.fetch(args.url)
    media_type = page.media_type
    metadata: dict[str, object] = {}
    links: list[dict[str, str]] = []
    title = None
    if media_type in _HTML:
        html = page.text()
        metadata = page_metadata(html, page.url)
        extraction = await anyio.to_thread.run_sync(
            lambda: extract(html, page.url, main_content=args.main_content is not False), abandon_on_cancel=True
        )
        content, title, links = render(extraction, fmt), extraction.title, extraction.links
    elif media_type in _TEXT or media_type.startswith("text/"):
        content = sanitize(page.text())
    else:
        raise UnsupportedContent(
            f"{page.url} is {media_type}, not a page to read; use download to identify it",
            detail={"media_type": media_type, "url": page.url},
        )
    start = args.start_index or 0
    limit = args.max_chars or 20000
    piece = content[start : start + limit]
    payload: dict[str, object] = {
        "url": args.url,
        "final_url": page.url,
        "status": page.status,
        "format": fmt,
        "content": piece,
        "start_index": start,
        "total_chars": len(content),
        "metadata": metadata,
        "cost": {"bytes": len(page.body), "chars": len(piece), "approx_tokens": (len(piece) + 3) // 4},
    }
    if title:
        payload["title"] = title
    if args.include_links:
        payload["links"] = list({link["url"]: link for link in links}.values())
    if start + limit < len(content):
        payload["next_start_index"] = start + limit
        guidance = (
            f"{len(content) - start - limit} more characters: call scrape again with start_index={start + limit}."
        )
        return Outcome(payload, next_step="scrape", guidance=guidance, source=page.url)
    if start >= len(content) and content:
        guidance = f"start_index {start} is past the end ({len(content)} characters); nothing more to read."
    else:
        guidance = "The whole content has been returned."
    return Outcome(payload, next_step=DONE, guidance=guidance, source=page.url)
