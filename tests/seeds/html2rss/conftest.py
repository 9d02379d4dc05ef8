"""An html2rss client of `netglean mcp --compat html2rss`, over stdio and over streamable HTTP, and
the site its tools read (tests/seeds/html2rss/site.py) on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.seeds.html2rss.site import SITE
from tests.support.clients import SyncClient
from tests.support.fixture_site import serve
from tests.support.seed_servers import TRANSPORTS, seed_client

NEXT_STEPS = {
    "done",
    "inspect_url",
    "validate_config",
    "apply_config",
    "scrape_url",
    "capture_config",
    "read_runtime",
}
"""The reference: "next_step is one of" these."""


@dataclass
class Html2rss:
    """What a client written for html2rss reads, and nothing else: the text block parsed as JSON
    ("every tool returns the same JSON object in both the text content and structuredContent"),
    isError ("matches ok: false"), resources as JSON, prompts' text. ``origin`` is the fixture
    site's."""

    client: SyncClient
    origin: str

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """isError and the envelope, checked as the reference describes every result."""
        result = self.client.call(tool, arguments)
        envelope: dict[str, Any] = json.loads(result.content[0].text)
        assert envelope == result.structured_content, (
            "the same JSON object in the text and structuredContent"
        )
        assert {"ok", "next_step", "guidance", "payload"} <= set(envelope), envelope
        assert result.is_error is (envelope["ok"] is False), envelope
        assert envelope["next_step"] in NEXT_STEPS, envelope["next_step"]
        return bool(result.is_error), envelope

    def resource(self, uri: str) -> Any:
        contents = self.client.run("read_resource", uri).contents[0]
        assert contents.mime_type == "application/json", (uri, contents.mime_type)
        return json.loads(contents.text)

    def prompt(self, name: str, arguments: dict[str, str]) -> str:
        return str(self.client.run("get_prompt", name, arguments).messages[0].content.text)

    def url(self, path: str) -> str:
        return f"{self.origin}{path}"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(app=SITE) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module", params=TRANSPORTS)
def html2rss(request: pytest.FixtureRequest, site: str) -> Iterator[Html2rss]:
    """`netglean mcp --compat html2rss` as html2rss's clients start it (stdio, or --transport http),
    reading the site on 127.0.0.1 (the operator allows loopback:
    tests.support.seed_servers.LOCAL_SITE)."""
    with seed_client("html2rss", request.param) as client:
        yield Html2rss(client, site)
