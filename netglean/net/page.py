"""One fetched response as the tools see it: where it came from, how it got there, and its body."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from netglean.net.memory import Lease
from netglean.read.document import Document, sniff


@dataclass(frozen=True, slots=True)
class Hop:
    url: str
    status: int


@dataclass(frozen=True, slots=True)
class Page:
    """One fetched response: where it came from, how it got there, and its (decoded) body.

    The body's bytes count against the fetcher's memory budget for as long as the page (or a copy
    made with ``dataclasses.replace``) is held: a handler lets them go by letting the page go.
    """

    requested_url: str
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    redirects: tuple[Hop, ...] = ()
    downgraded: bool = False
    lease: Lease | None = field(default=None, repr=False, compare=False, kw_only=True)

    @property
    def media_type(self) -> str:
        """The declared media type, or a sniffed one when the server sent none or octet-stream."""
        declared = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if declared and declared != "application/octet-stream":
            return declared
        return sniff(self.body) or declared or "application/octet-stream"

    @property
    def charset(self) -> str | None:
        match = re.search(
            r"charset=[\"']?([\w.:-]+)", self.headers.get("content-type", ""), re.IGNORECASE
        )
        return match.group(1).lower() if match else None

    @property
    def document(self) -> Document:
        """The body as reader jobs take it (netglean.read.jobs): decoded there, off the event
        loop."""
        return Document(self.url, self.body, self.charset, self.media_type)
