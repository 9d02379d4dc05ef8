"""A response body read under the policy's caps: as sent, after decompression (decoded here,
bounded, never by a library that inflates a bomb in one go), and within the server's memory
budget."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from netglean.core.errors import ResponseTooLarge, UnsupportedContent
from netglean.net.memory import Lease, MemoryBudget


async def read_body(
    chunks: AsyncIterator[bytes],
    headers: Mapping[str, str],
    cap: int,
    decoded_cap: int,
    *,
    memory: MemoryBudget,
    url: str,
) -> tuple[bytes, Lease]:
    """The body, read under both caps, with its reservation in ``memory`` (all of it taken before
    the first byte)."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise ResponseTooLarge(
            f"the response is {declared} bytes; the limit is {cap}", detail={"limit": cap}
        )
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding in {"gzip", "x-gzip"}:
        decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = _Deflate()
    elif encoding in {"identity", ""}:
        decoder = None
    else:
        raise UnsupportedContent(f"unsupported content-encoding {encoding!r}")
    limit = min(decoded_cap, memory.size)  # no body may be larger than the whole budget
    passed = "decompresses past" if decoder is not None else "passed"
    # A body sent as is decodes to what it declares (aiohttp reads no further), else to at most the
    # cap.
    most = min(int(declared) if declared.isdigit() else cap, limit) if decoder is None else limit
    lease = await memory.reserve(most, url)
    try:
        received = 0
        body = bytearray()
        async for chunk in chunks:
            received += len(chunk)
            if received > cap:
                raise ResponseTooLarge(f"the response passed {cap} bytes", detail={"limit": cap})
            if decoder is None:
                body += chunk
            else:
                try:
                    body += decoder.decompress(chunk, limit - len(body) + 1)
                except zlib.error as exc:
                    raise UnsupportedContent(f"the {encoding} body is corrupt: {exc}") from exc
                if decoder.unconsumed_tail:  # more output is waiting than the cap leaves room for
                    raise ResponseTooLarge(
                        f"the response {passed} {limit} bytes", detail={"limit": limit}
                    )
            if len(body) > limit or len(body) > lease.amount:
                raise ResponseTooLarge(
                    f"the response {passed} {limit} bytes", detail={"limit": limit}
                )
        lease.shrink(len(body))
        return bytes(body), lease
    except BaseException:
        lease.release()
        raise


class _Deflate:
    """HTTP "deflate" is zlib-wrapped by the spec and raw deflate in practice: accept both."""

    def __init__(self) -> None:
        self._inner: Any = None

    @property
    def unconsumed_tail(self) -> bytes:
        return bytes(self._inner.unconsumed_tail) if self._inner is not None else b""

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._inner is None:
            self._inner = zlib.decompressobj()
            try:
                return bytes(self._inner.decompress(data, max_length))
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return bytes(self._inner.decompress(data, max_length))
