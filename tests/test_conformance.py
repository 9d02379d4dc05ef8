"""The official MCP conformance suite (@modelcontextprotocol/conformance) against `netglean serve`.

The whole suite runs; tests/conformance/expected-failures.yaml lists, with reasons, the
scenarios that cannot apply. Node.js 22 and the suite come from npm (`npm ci` in
tests/conformance, which .ci/run does).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.httpserver import HttpServer
from tests.support.paths import PROJECT

SUITE = PROJECT / "tests" / "conformance"
NODE = SUITE / "node_modules" / ".bin" / "node"
CLI = SUITE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
APPLIES = (
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)


def test_every_applicable_scenario_passes(tmp_path: Path) -> None:
    if not (NODE.exists() and CLI.exists()):
        pytest.fail(
            "the conformance suite is not installed: run `npm ci --prefix tests/conformance`"
        )
    version = subprocess.run(
        [str(NODE), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert version.startswith("v22."), f"the conformance suite needs Node.js 22, found {version}"
    with HttpServer() as server:
        done = subprocess.run(
            [
                str(NODE),
                str(CLI),
                "server",
                "--url",
                f"{server.base}/mcp",
                "--suite",
                "all",
                "--expected-failures",
                str(SUITE / "expected-failures.yaml"),
                "-o",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-4000:]
    for scenario in APPLIES:
        assert f"✓ {scenario}:" in report, f"{scenario} did not pass:\n{report[-4000:]}"
