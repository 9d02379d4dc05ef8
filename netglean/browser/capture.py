"""The XHR and fetch requests a page makes while it loads, as inspect_url (strategy browser) and
analyze_page report them: method, URL with its secrets redacted, status, content type, and for JSON
a bounded sample.

A single-page app loads its items from an endpoint; naming that endpoint (and what its answer looks
like) lets an agent read the data directly next time. Query values whose names say they are secrets
(token, key, signature, session …) and any userinfo are never reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from netglean.core.logs import REDACTED
from netglean.read.json_shape import items_path, sample, shape

MAX_REQUESTS = 50
"""The most requests one capture keeps (the first ones: a page's data comes early)."""
SAMPLE_BYTES = 256 * 1024
"""The largest JSON answer a capture reads for its sample; a larger one is described by its size
alone."""
WAIT = 2.0
"""Seconds the capture waits, at the end, for the answers it is still reading."""
_SECRET = re.compile(
    r"token|key|secret|sig|signature|auth|session|sid|password|passwd|pwd|code|credential|jwt|bearer|hash",
    re.IGNORECASE,
)


def redacted_url(url: str) -> str:
    """``url`` without userinfo or fragment, and the values of parameters whose names look secret
    replaced: query parameters (split on ``&`` and ``;``) and path parameters
    (``/cart;jsessionid=…``)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    path = _PATH_PARAMETER.sub(_hidden, parts.path)
    query = "&".join(_pair(pair) for pair in re.split(r"[&;]", parts.query) if pair)
    return urlunsplit((parts.scheme, netloc, path, query, ""))


_PATH_PARAMETER = re.compile(r";([^;/=]*)(=[^;/]*)?")


def _hidden(match: re.Match[str]) -> str:
    name = match.group(1)
    return (
        f";{name}={REDACTED}" if _SECRET.search(name) or match.group(2) is None else match.group(0)
    )


def _pair(pair: str) -> str:
    name, mark, _ = pair.partition("=")
    return f"{name}={REDACTED}" if mark and _SECRET.search(unquote_plus(name)) else pair


@dataclass(frozen=True, slots=True)
class Captured:
    """One XHR or fetch request and its answer."""

    method: str
    url: str
    """Redacted (redacted_url)."""
    status: int
    content_type: str
    bytes: int | None = None
    """The answer's size, when it was read (JSON answers)."""
    json: JsonSummary | None = None
    """A JSON answer's shape, where its items are, and a bounded sample."""


@dataclass(frozen=True, slots=True)
class JsonSummary:
    """A JSON answer as a capture describes it."""

    shape: dict[str, Any]
    sample: Any
    """A bounded sample of the value (json_shape.sample)."""
    items_pointer: str | None = None
    """The JSON pointer of its items, when it holds a list of them."""
    items_count: int | None = None


def describe_json(value: Any) -> JsonSummary:
    """A JSON answer as a capture describes it: its shape, the pointer and length of its items, a
    sample."""
    found = items_path(value)
    pointer, count = found if found is not None else (None, None)
    return JsonSummary(shape(value), sample(value), pointer, count)


class Capture:
    """Listens to a page's answers from the moment it is made; ``finished`` gives what it heard."""

    def __init__(self, page: Any) -> None:
        self._kept: list[Captured] = []
        self._reading: set[asyncio.Task[None]] = set()

        def answered(response: Any) -> None:  # Playwright takes functions, not builtins
            if response.request.resource_type in {"xhr", "fetch"} and len(self._kept) + len(
                self._reading
            ) < (MAX_REQUESTS):
                task = asyncio.get_running_loop().create_task(self._record(response))
                self._reading.add(task)
                task.add_done_callback(self._reading.discard)

        page.on("response", answered)

    async def _record(self, response: Any) -> None:
        request = response.request
        media = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
        size: int | None = None
        summary: JsonSummary | None = None
        if media == "application/json" or media.endswith("+json"):
            # an answer the page let go of, or not JSON after all
            with contextlib.suppress(Exception):
                declared = int(response.headers.get("content-length") or 0)
                if declared <= SAMPLE_BYTES:
                    body = await response.body()
                    size = len(body)
                    if size <= SAMPLE_BYTES:
                        summary = describe_json(json.loads(body))
        self._kept.append(
            Captured(
                request.method, redacted_url(response.url), response.status, media, size, summary
            )
        )

    async def finished(self) -> tuple[Captured, ...]:
        """What was captured, once the answers being read are read (WAIT seconds at most)."""
        if self._reading:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*self._reading, return_exceptions=True), WAIT)
        return tuple(self._kept)
