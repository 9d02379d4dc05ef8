"""What a fetched body is and says: its sniffed media type, and its text as a browser would decode
it.

Kept apart from the fetcher (which imports the HTTP client) because reader processes decode the
bodies they read, off the server's event loop, and must start without the network stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import webencodings

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
"""The media types read as HTML."""
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
"""The media types read as markdown."""


@dataclass(frozen=True, slots=True)
class Document:
    """What a reader job is given of a fetched body: where it was found, its bytes, its declared
    charset and its media type. Plain data, so it crosses to a reader process (a Page holds a memory
    lease that must not)."""

    url: str
    body: bytes
    charset: str | None = None
    media_type: str = "text/html"

    def text(self) -> str:
        return decode(self.body, self.charset)


def sniff(body: bytes) -> str | None:
    head = body[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return "text/html"
    if head.startswith(b"%pdf-"):
        return "application/pdf"
    if head.startswith((b"<?xml", b"<rss", b"<feed")):
        return "application/xml"
    if head.startswith((b"{", b"[")):
        return "application/json"
    return None


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_META = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_META_INSTEAD = {"utf-16be": "utf-8", "utf-16le": "utf-8", "x-user-defined": "windows-1252"}
"""What HTML reads a <meta> charset as when it names one a document that declares it cannot be
in."""


def _whatwg(label: str | None, meta: bool = False) -> webencodings.Encoding | None:
    """The WHATWG encoding a label names, or None: only the Encoding Standard's table, never
    Python's registry."""
    encoding = webencodings.lookup(label) if label else None
    if encoding is not None and meta and encoding.name in _META_INSTEAD:
        return webencodings.lookup(_META_INSTEAD[encoding.name])
    return encoding


def decode(body: bytes, declared: str | None) -> str:
    """Text from bytes as a browser reads them: the BOM, the declared charset, <meta charset>,
    UTF-8, windows-1252.

    Only WHATWG labels count (webencodings holds the Encoding Standard's table). Any other label is
    ignored and sniffing goes on, as browsers do: Python's codec registry also knows labels that are
    no text encoding at all (punycode decodes in quadratic time; idna and undefined raise; rot13,
    base64, zlib...), and labels no browser reads (utf-7, EBCDIC) that turn markup into other
    markup. Every WHATWG decoder is linear.
    """
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    encoding = _whatwg(declared)
    if encoding is None:
        meta = _META.search(body[:4096])
        encoding = _whatwg(meta.group(1).decode("ascii", "ignore"), meta=True) if meta else None
    if encoding is not None:
        # ISO-2022-KR, HZ and kin: one U+FFFD for the whole stream
        if encoding.name == "replacement":
            return "\ufffd" if body else ""
        return encoding.codec_info.decode(body, "replace")[0]
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("windows-1252", errors="replace")
