"""Zero telemetry, read off the source: no module outside the fetcher opens a connection or resolves
a name.

netglean contacts nothing but the targets it is asked to fetch, and (get_index_entry) the remote
index the operator set, through the same fetcher. So a client library, a socket's connect, a name
lookup or a urlopen anywhere else is a way out that no policy checks, and this test fails on it. The
one other module that opens a connection is the browser's proxy, and only to the address the
fetcher's address policy gave it (Fetcher.connect_target), which the test checks too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import PROJECT

RUNTIME = PROJECT / "netglean"
FETCHER = RUNTIME / "net"
"""The fetcher and its transport: the only way out."""
NETWORK_MODULES = frozenset(
    {
        "aiohttp",
        "ftplib",
        "http.client",
        "httpcore",
        "httpx",
        "imaplib",
        "poplib",
        "requests",
        "smtplib",
        "socket",
        "socketserver",
        "ssl",
        "telnetlib",
        "urllib.request",
        "urllib3",
        "websocket",
        "websockets",
        "xmlrpc.client",
    }
)
"""Modules whose import means talking to a network (urllib.parse and http.HTTPStatus do not)."""
OPENERS = frozenset(
    {
        "connect_tcp",
        "connect_unix",
        "create_connection",
        "create_datagram_endpoint",
        "create_udp_socket",
        "getaddrinfo",
        "gethostbyname",
        "open_connection",
        "urlopen",
    }
)
"""Calls that open a connection or resolve a name, whatever module they come from."""
LISTENERS = {RUNTIME / "serve" / "connections.py": {"socket"}}
"""Where a transport's own listening sockets are handled (uvicorn opens them): socket's types,
never a connect."""
PROXY = RUNTIME / "browser" / "proxy.py"


def _runtime_modules() -> list[Path]:
    return sorted(
        p for p in RUNTIME.rglob("*.py") if "generated" not in p.parts and FETCHER not in p.parents
    )


def _imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {
        name
        for name in found
        if any(name == m or name.startswith(f"{m}.") for m in NETWORK_MODULES)
    }


def _calls(tree: ast.AST) -> list[tuple[int, str]]:
    named = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in OPENERS:
                named.append((node.lineno, name))
    return named


@pytest.mark.parametrize("path", _runtime_modules(), ids=lambda p: str(p.relative_to(PROJECT)))
def test_no_module_outside_the_fetcher_opens_a_connection(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = _imports(tree) - LISTENERS.get(path, set())
    assert not imported, (
        f"{path.relative_to(PROJECT)} imports {sorted(imported)}: only netglean/net may"
    )
    calls = _calls(tree)
    if path == PROXY:
        # The proxy connects only where the fetcher's address policy said, right after asking it.
        source = path.read_text(encoding="utf-8")
        assert [name for _, name in calls] == ["connect_tcp"] and "connect_target(" in source
        return
    assert not calls, f"{path.relative_to(PROJECT)} opens connections: {calls}"


def test_the_exemption_is_the_fetcher_alone() -> None:
    """The test above reads real modules: the fetcher is among those it exempts, and the scan's
    among those read."""
    read = {p.relative_to(RUNTIME).as_posix() for p in _runtime_modules()}
    assert {"scraping/scan.py", "handlers/readability.py", "read/readability/evidence.py"} <= read
    assert "net/fetcher.py" not in read
