"""A Crawlberg client of `netglean mcp --compat crawlberg` (stdio) and of `netglean serve --compat
crawlberg` (streamable HTTP at /mcp, as `crawlberg serve` mounts it), and the site its tools read
(site.py) on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.seeds.crawlberg.site import SITE
from tests.support.clients import SyncClient
from tests.support.fixture_site import serve
from tests.support.seed_servers import TRANSPORTS, seed_client

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass
class Crawlberg:
    """What a client written for Crawlberg reads, and nothing else: the text block (markdown, or
    with format json pretty-printed JSON), and a failure as a JSON-RPC error's code and message.
    ``origin`` is the fixture site's."""

    client: SyncClient
    origin: str

    def text(self, tool: str, arguments: dict[str, Any]) -> str:
        result = self.client.call(tool, arguments)
        assert result.is_error is not True, result.content[0].text
        return str(result.content[0].text)

    def json(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The result with format json: pretty-printed JSON in the text block."""
        text = self.text(tool, arguments)
        assert text.startswith("{\n  "), text[:80]  # pretty-printed
        return json.loads(text)

    def error(self, tool: str, arguments: dict[str, Any]) -> tuple[int, str]:
        """The JSON-RPC error the call is answered with."""
        with pytest.raises(MCPError) as raised:
            self.client.call(tool, arguments)
        return raised.value.error.code, raised.value.error.message

    def url(self, path: str) -> str:
        return f"{self.origin}{path}"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(app=SITE) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module", params=TRANSPORTS)
def crawlberg(request: pytest.FixtureRequest, site: str) -> Iterator[Crawlberg]:
    """Crawlberg's server as its clients start it: `crawlberg mcp` (stdio) is `netglean mcp --compat
    crawlberg`; `crawlberg serve` is `netglean serve --compat crawlberg`, its MCP at /mcp."""
    with seed_client("crawlberg", request.param, http_command=("serve",)) as client:
        yield Crawlberg(client, site)
