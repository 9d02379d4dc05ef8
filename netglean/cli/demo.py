"""`netglean demo`: the whole path, end to end, with no network.

Spawns `netglean mcp` as a child process, talks to it with the official MCP
client over stdio, and prints what a model would see: the tools, a resource,
a prompt, a good call, a call with a wrong argument, and a feed config checked.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from typing import Any

from mcp import Client, StdioServerParameters

_SAMPLE = (
    "netglean speaks the [Model Context Protocol](https://modelcontextprotocol.io) and validates "
    "with "
    '[JSON Schema](https://json-schema.org "JSON Schema"). The [MCP '
    "spec](https://modelcontextprotocol.io) "
    "is cited once; `[code](spans)` stay as they are."
)

_FEED = """\
channel:
  url: https://example.com/news
  time_zone: Europe/Berlin
selectors:
  items: {selector: "article.teaser"}
  title: {selector: h3}
  url: {selector: "h3 a", extractor: href}
  published_at:
    selector: time
    extractor: {extractor}
    attribute: datetime
    post_process: [{name: parse_time}]
"""


def _show(title: str, value: Any) -> None:
    body = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    print(f"\n== {title}\n{textwrap.indent(body, '   ')}")


async def run_demo() -> int:
    # The whole environment, not the SDK's default few variables: the operator's NETGLEAN_* settings
    # (the data directory among them) are the demo server's too.
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "netglean", "mcp"], env=dict(os.environ)
    )
    async with Client(server, mode="legacy") as client:
        info = client.server_info
        _show(
            "connected",
            f"{info.name if info else '?'} {info.version if info else ''} over stdio, "
            f"protocol {client.protocol_version}",
        )
        tools = await client.list_tools()
        _show("tools/list", [f"{t.name}: {t.title}" for t in tools.tools])
        resources = await client.list_resources()
        _show("resources/list", [f"{r.uri} ({r.name})" for r in resources.resources])
        policy = await client.read_resource("netglean://policy")
        _show("netglean://policy", getattr(policy.contents[0], "text", ""))
        prompt = await client.get_prompt("cite_sources", {"topic": "how MCP tools validate input"})
        _show("prompts/get cite_sources", getattr(prompt.messages[0].content, "text", ""))
        version = await client.call_tool("get_version", {})
        _show("tools/call get_version", version.structured_content)
        cited = await client.call_tool("generate_citations", {"markdown": _SAMPLE})
        _show(
            "tools/call generate_citations -> payload.markdown",
            (cited.structured_content or {})["payload"]["markdown"],
        )
        wrong = await client.call_tool(
            "generate_citations", {"markdown": _SAMPLE, "max_refs": "50"}
        )
        _show(
            f"tools/call with an unknown argument (isError={wrong.is_error})",
            (wrong.structured_content or {})["payload"],
        )
        # a feed config (html2rss format) checked: no network needed
        for extractor in ("atribute", "attribute"):
            checked = await client.call_tool(
                "validate_config", {"yaml": _FEED.replace("{extractor}", extractor)}
            )
            payload = (checked.structured_content or {})["payload"]
            _show(
                f"tools/call validate_config, extractor {extractor!r} -> "
                f"isError={checked.is_error}",
                payload.get("errors")
                or f"next step: {(checked.structured_content or {})['next_step']}",
            )
    print("\nAll of the above went through the stdio server with the official MCP client.")
    return 0
