"""What a document is, without returning its bytes (download): where it was found, its type, size,
suggested filename and SHA-256, and for an HTML page what it says about itself."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from netglean.core.errors import ResponseTooLarge
from netglean.core.untrusted import sanitize
from netglean.read import jobs as read_jobs
from netglean.read.page_meta import PageMeta
from netglean.scraping.pages import HTML

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.workers.pool import Readers


@dataclass(frozen=True, slots=True)
class DocumentFacts:
    final_url: str
    status: int
    redirects: list[str]
    media_type: str
    size: int
    sha256: str
    filename: str
    page: PageMeta | None = None
    """An HTML page's metadata, when it says anything (None for other documents)."""


async def document_facts(
    fetcher: Fetcher, readers: Readers, url: str, max_size: int | None
) -> DocumentFacts:
    """What the document at ``url`` is; one larger than ``max_size`` bytes, as sent or decompressed,
    is refused."""
    page = await fetcher.fetch(url, accept="*/*", max_bytes=max_size)
    if max_size is not None and len(page.body) > max_size:
        raise ResponseTooLarge(
            f"the document decompresses to {len(page.body)} bytes; max_size is {max_size}",
            detail={"limit": max_size, "size": len(page.body)},
        )
    metadata = (
        await readers.run(read_jobs.page_facts, document=page.document)
        if page.media_type in HTML
        else PageMeta()
    )
    return DocumentFacts(
        final_url=page.url,
        status=page.status,
        redirects=[hop.url for hop in page.redirects],
        media_type=page.media_type,
        size=len(page.body),
        sha256=hashlib.sha256(page.body).hexdigest(),
        filename=filename(page),
        page=metadata if metadata != PageMeta() else None,
    )


def filename(page: Page) -> str:
    """The server's suggested filename (RFC 6266, RFC 5987 first), else the URL's last path
    segment."""
    disposition = page.headers.get("content-disposition", "")
    extended = re.search(r"filename\*\s*=\s*[\w-]+'[\w-]*'([^;]+)", disposition, re.IGNORECASE)
    plain = re.search(
        r'filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)', disposition, re.IGNORECASE
    )
    if extended:
        name = unquote(extended.group(1).strip())
    elif plain:
        name = (plain.group(1) if plain.group(1) is not None else plain.group(2)).strip()
    else:
        name = unquote(PurePosixPath(urlsplit(page.url).path).name)
    # A name from a server is untrusted: no directories, no control or invisible characters.
    name = sanitize(name).replace("\\", "/").rsplit("/", 1)[-1].strip(" .")
    return name[:255] or "download"
