"""What a person meets at `netglean serve`'s root and at GET /v1/tools: what the server is, its
entry points, and the client configurations that reach it. netglean's own words and the catalog's
only: nothing a target wrote."""

from __future__ import annotations

import difflib
import html
import json
from collections.abc import Mapping
from typing import Any

from netglean._version import __version__
from netglean.calls.registry import ToolSpec


def closest_tool(name: str, tools: Mapping[str, ToolSpec]) -> str | None:
    """The tool a mistyped name most likely meant (difflib's ratio, 0.6 or more), or None."""
    found = difflib.get_close_matches(name, list(tools), n=1)
    return found[0] if found else None


def tool_list(tools: Mapping[str, ToolSpec], base: str) -> dict[str, Any]:
    """GET /v1/tools: each tool by name, what it does, how it runs, and where its schemas and its
    call are."""
    return {
        "tools": [
            {
                "name": spec.name,
                "title": spec.title,
                "description": spec.description,
                "execution": spec.execution,
                "read_only": bool(spec.annotations.get("read_only")),
                "call": f"{base}/v1/tools/{spec.name}",
                "schema": f"{base}/v1/tools/{spec.name}",
                "docs": f"{base}/docs/tools/{spec.name}.html",
            }
            for spec in sorted(tools.values(), key=lambda spec: spec.name)
        ]
    }


def tool_description(spec: ToolSpec, base: str) -> dict[str, Any]:
    """GET /v1/tools/NAME: the tool's input and output schemas (POST to the same URL calls it)."""
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "execution": spec.execution,
        "annotations": dict(spec.annotations),
        "next_step": list(spec.next_step),
        "input_schema": spec.input_schema,
        "output_schema": spec.output_schema,
        "docs": f"{base}/docs/tools/{spec.name}.html",
    }


def client_configs(base: str) -> dict[str, Any]:
    """How MCP clients reach this server over HTTP (VS Code, Cursor), and Claude Desktop, which
    launches stdio."""
    mcp = f"{base}/mcp"
    return {
        "VS Code (.vscode/mcp.json)": {"servers": {"netglean": {"type": "http", "url": mcp}}},
        "Cursor (~/.cursor/mcp.json)": {"mcpServers": {"netglean": {"url": mcp}}},
        "Claude Desktop (claude_desktop_config.json), which launches netglean over stdio, "
        "installed": {"mcpServers": {"netglean": {"command": "netglean", "args": ["mcp"]}}},
        "Claude Desktop, from a checkout": {
            "mcpServers": {
                "netglean": {
                    "command": "uv",
                    "args": [
                        "--directory",
                        "/path/to/netglean",
                        "run",
                        "--no-dev",
                        "netglean",
                        "mcp",
                    ],
                }
            }
        },
    }


def landing_page(
    tools: Mapping[str, ToolSpec],
    base: str,
    token: bool,
    feeds: tuple[list[tuple[str, str]], int] | None,
) -> str:
    """GET /: a small page that says what this server is and links to everything else it serves, its
    feeds among them (``feeds``: the first ones by name with their addresses, and how many; None
    when the store could not say)."""
    configs = "".join(
        f"<h3>{html.escape(client)}</h3><pre>{_json_text(config)}</pre>"
        for client, config in client_configs(base).items()
    )
    rows = "".join(
        "<tr><td><a "
        f'href="/docs/tools/{html.escape(spec.name)}.html"><code>{html.escape(spec.name)}</code></a></td>'
        f"<td>{html.escape(spec.title)}</td></tr>"
        for spec in sorted(tools.values(), key=lambda spec: spec.name)
    )
    token_note = (
        "<p>This server asks for a bearer token: send <code>Authorization: Bearer …</code> with "
        "every request.</p>"
        if token
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netglean {__version__}</title><link rel="stylesheet" href="/docs/style.css"></head>
<body><main>
<h1>netglean {__version__}</h1>
<p>Web tools for AI agents: read a page as clean markdown, map and crawl a site, turn a listing
into a feed, score how readable a page is to agents, drive a browser, and run long jobs in the
background. {len(tools)} tools.</p>
{token_note}
<ul>
<li><a href="/docs/">/docs/</a>: the documentation, a page for every tool</li>
<li><a href="/openapi.json">/openapi.json</a>:
the REST API (POST /v1/tools/NAME with the arguments as JSON)</li>
<li><a href="/v1/tools">/v1/tools</a>:
the tools as JSON, each with its schemas at /v1/tools/NAME</li>
<li><code>{html.escape(base)}/mcp</code>: MCP over streamable HTTP, for MCP clients</li>
<li><a href="/healthz">/healthz</a>: whether the server is up</li>
</ul>
<h2>Connect a client</h2>
<p>VS Code and Cursor reach this server over HTTP at its address. Claude Desktop starts a netglean
of its own over stdio: installed (<code>uv tool install</code>, <code>pipx install</code>), or run
from a checkout (replace <code>/path/to/netglean</code>); the
<a href="/docs/getting-started.html#connect">getting-started page</a> has the stdio configs for
every client.</p>
{configs}
<h2 id="feeds">Feeds</h2>
{_feeds_section(feeds)}
<h2>Tools</h2>
<table><thead><tr><th>Tool</th><th>What it does</th></tr></thead><tbody>{rows}</tbody></table>
</main></body></html>
"""


def _json_text(value: object) -> str:
    """``value`` as indented JSON, escaped to stand as an HTML text node."""
    return html.escape(json.dumps(value, indent=2), quote=False)


def _feeds_section(feeds: tuple[list[tuple[str, str]], int] | None) -> str:
    """The served feeds as a table of names and addresses a feed reader subscribes to."""
    if feeds is None:
        return (
            "<p>The store could not be read just now, so the feeds are not listed: reload "
            "shortly.</p>"
        )
    listed, total = feeds
    if not listed:
        return (
            "<p>No feeds yet. A feed project (save_project with kind feed) is served here at "
            "<code>/feeds/NAME.xml</code> (RSS 2.0) and <code>/feeds/NAME.json</code> (JSON "
            "Feed).</p>"
        )
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td><code>{html.escape(address)}</code></td></tr>"
        for name, address in listed
    )
    more = (
        f"<p>And {total - len(listed)} more; list_projects lists them all.</p>"
        if total > len(listed)
        else ""
    )
    head = "<thead><tr><th>Project</th><th>RSS (JSON Feed: .json)</th></tr></thead>"
    return f"<table>{head}<tbody>{rows}</tbody></table>{more}"
