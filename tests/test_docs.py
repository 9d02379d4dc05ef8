"""The generated docs site: complete (every tool, resource, prompt, setting) and, in Chromium,
link-clean."""

from __future__ import annotations

import html
import os
import shutil
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

from netglean.browser import pool
from netglean.calls.registry import Registry
from netglean.core.errors import CODES
from netglean.core.settings import SETTINGS
from tests.support.fixture_site import serve
from tests.support.paths import PROJECT

DOCS = PROJECT / "netglean" / "generated" / "docs"


def test_docs_cover_every_tool_resource_prompt_and_setting(registry: Registry) -> None:
    index = (DOCS / "index.html").read_text()
    for name, spec in registry.tools.items():
        assert f'href="tools/{name}.html"' in index
        page = html.unescape((DOCS / "tools" / f"{name}.html").read_text())
        assert spec.title in page
        for argument in spec.input_schema.get("properties", {}):
            assert f"<code>{argument}</code>" in page
        assert page.count('class="example"') == len(spec.examples)
    resources = (DOCS / "resources.html").read_text()
    for resource in registry.resources:
        assert (resource.uri or resource.uri_template or "") in resources
    prompts = (DOCS / "prompts.html").read_text()
    for prompt in registry.prompts:
        assert f'id="{prompt}"' in prompts
    settings = (DOCS / "settings.html").read_text()
    for setting in SETTINGS:
        assert setting.env in settings and setting.flag in settings
    # Defaults as JSON (issue 19): what a person would type in a config file or an environment
    # variable.
    assert (
        "<code>false</code>" in settings
        and "<code>False</code>" not in settings
        and "<code>None</code>" not in settings
    )
    readability = (DOCS / "readability.html").read_text()
    assert all(
        f'id="{check}"' in readability for check in ("vary_accept", "negotiated_response", "webmcp")
    )
    graph = (DOCS / "graph.svg").read_text()
    for name in registry.tools:
        assert f'href="tools/{name}.html"' in graph


def test_docs_list_every_error_code_with_its_facts() -> None:
    errors = html.unescape((DOCS / "errors.html").read_text())
    for code, facts in CODES.items():
        row = errors.split(f'<tr id="{code}">', 1)[1].split("</tr>", 1)[0]
        retryable = facts.retryable_when or ("yes" if facts.retryable else "no")
        assert f"<td>{retryable}</td>" in row and f"<td>{facts.rest_status}</td>" in row, code
        assert facts.sentence in row and facts.guidance in row, code
    assert 'href="errors.html"' in (DOCS / "getting-started.html").read_text()


GRAPH_CHECK = """() => {
  const svg = document.querySelector("figure.graph svg");
  const boxes = {};
  for (const node of svg.querySelectorAll("g.node")) {
    const shape = node.querySelector("path, polygon, ellipse, rect");
    boxes[node.querySelector("title").textContent] = shape.getBBox();
  }
  const inside = (p, b, margin) =>
    p.x > b.x + margin && p.x < b.x + b.width - margin
    && p.y > b.y + margin && p.y < b.y + b.height - margin;
  const problems = new Set();
  const edges = svg.querySelectorAll("g.edge");
  if (edges.length < 40) problems.add(`only ${edges.length} edges drawn`);
  for (const edge of edges) {
    const [from, to] = edge.querySelector("title").textContent.split("->");
    if (!(from in boxes) || !(to in boxes)) { problems.add(`${from}->${to} has no box`); continue; }
    const path = edge.querySelector("path");
    const length = path.getTotalLength();
    for (let at = 0; at <= length; at += 2) {
      const point = path.getPointAtLength(at);
      for (const [name, box] of Object.entries(boxes)) {
        if (name !== from && name !== to && inside(point, box, 1)) {
          problems.add(`${from}->${to} crosses ${name}`);
        }
      }
    }
    const head = edge.querySelector("polygon").getBBox();
    const target = boxes[to];
    const gap = Math.max(target.x - (head.x + head.width), head.x - (target.x + target.width),
                         target.y - (head.y + head.height), head.y - (target.y + target.height), 0);
    if (gap > 2) problems.add(`${from}->${to} ends ${gap.toFixed(1)} away from ${to}`);
  }
  return [...problems];
}"""
"""Every edge of the next-step graph (issue 19): none runs through a box other than its ends', each
ends on its target (its arrowhead touches the target's box), and none is missing."""


def _chromium() -> str:
    found = (
        os.environ.get("NETGLEAN_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if not found:
        pytest.fail(
            "Chromium is required for the docs browser test: apt-get install chromium (see .ci/run)"
        )
    return found


@pytest.mark.browser
@pytest.mark.timeout(600)  # some 200 pages in one Chromium: generous on a loaded machine
def test_every_page_renders_and_every_link_resolves_in_chromium(closed_port: int) -> None:
    """In a Chromium fenced as netglean fences its own (pool.FLAGS: no DNS of its own, nothing it
    calls out to by itself), its proxy a closed port: the docs are files, and nothing they ask of
    the network gets anywhere."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    pages = sorted(DOCS.rglob("*.html"))
    visited: set[Path] = set()
    broken: list[str] = []
    console_errors: list[str] = []
    with sync_playwright() as playwright, serve() as live:
        browser = playwright.chromium.launch(
            executable_path=_chromium(),
            args=[
                f"--proxy-server=http://127.0.0.1:{closed_port}",
                *pool.FLAGS,
                "--no-sandbox",
                "--disable-gpu",
            ],
        )
        probe = browser.new_page()
        # the fence holds, loopback too
        with pytest.raises(PlaywrightError, match="ERR_PROXY_CONNECTION_FAILED"):
            probe.goto(f"http://127.0.0.1:{live}/page")
        probe.close()
        page = browser.new_page()
        page.on(
            "console",
            lambda message: (
                console_errors.append(message.text) if message.type == "error" else None
            ),
        )
        page.on("requestfailed", lambda request: broken.append(f"failed to load {request.url}"))
        queue = [p.resolve() for p in pages]
        while queue:
            path = queue.pop()
            if path in visited:
                continue
            visited.add(path)
            page.goto(path.as_uri())
            assert page.title(), f"{path} has no title"
            assert page.locator("main h1").count() == 1, f"{path} has no heading"
            assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith(
                "system-ui"
            ), "CSS not applied"
            hrefs = page.eval_on_selector_all(
                "a[href]",
                "els => els.map(e => new URL(e.getAttribute('href'), document.baseURI).href)",
            )
            for href in hrefs:
                target, fragment = urldefrag(href)
                parsed = urlparse(target)
                if parsed.scheme in {"http", "https"}:
                    continue  # external links (the project's website) are not followed in tests
                local = Path(parsed.path)
                if not local.is_file():
                    broken.append(f"{path.relative_to(DOCS)} -> {href}")
                    continue
                if fragment and local.suffix == ".html":
                    page_text = local.read_text()
                    if f'id="{fragment}"' not in page_text:
                        broken.append(
                            f"{path.relative_to(DOCS)} -> #{fragment} missing in {local.name}"
                        )
                if local.suffix == ".html":
                    queue.append(local.resolve())
        graph = page.goto((DOCS / "index.html").as_uri())
        assert graph is not None
        box = page.locator("figure.graph svg").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 40, (
            "graph picture did not render"
        )
        assert not page.evaluate(GRAPH_CHECK), (
            "the next-step graph has edges through boxes or off their targets"
        )
        # The check sees a crossing: a box put on an edge's middle is reported (else it would prove
        # nothing).
        page.evaluate(
            """() => {
              const ns = "http://www.w3.org/2000/svg";
              const path = document.querySelector("figure.graph svg g.edge path");
              const middle = path.getPointAtLength(path.getTotalLength() / 2);
              const node = document.createElementNS(ns, "g");
              const title = document.createElementNS(ns, "title");
              const rect = document.createElementNS(ns, "rect");
              node.setAttribute("class", "node");
              title.textContent = "intruder";
              Object.entries({x: middle.x - 20, y: middle.y - 10, width: 40, height: 20})
                .forEach(([key, value]) => rect.setAttribute(key, value));
              node.append(title, rect);
              path.closest("g.graph").appendChild(node);
            }"""
        )
        assert any("crosses intruder" in problem for problem in page.evaluate(GRAPH_CHECK))
        rows = page.locator("#tool-table tbody tr")
        total = rows.count()
        page.fill("#search", "feed config")  # client-side search over tools and their arguments
        shown = [
            name
            for name in page.eval_on_selector_all(
                "#tool-table tbody tr:not([hidden]) code", "e => e.map(x => x.textContent)"
            )
        ]
        assert 0 < len(shown) < total and "apply_config" in shown and "scrape" not in shown, shown
        page.fill("#search", "max_pages")
        assert "crawl" in page.eval_on_selector_all(
            "#tool-table tbody tr:not([hidden]) code", "e => e.map(x => x.textContent)"
        )
        assert page.locator("#search-count").text_content().endswith(f"of {total} tools")
        browser.close()
    assert {p.resolve() for p in pages} <= visited, (
        "some pages are not reachable by links from the others"
    )
    assert not broken, broken
    assert not console_errors, console_errors


def test_a_tool_page_lists_each_next_step_once(registry: Registry) -> None:
    """The tool itself is a declared next step of some (scan_url's after an unreachable site):
    listed once."""
    for name in registry.tools:
        page = (DOCS / "tools" / f"{name}.html").read_text()
        steps = page.split("<h2>Next step</h2>", 1)[1].split("</ul>", 1)[0]
        links = [line for line in steps.splitlines() if line.startswith("<li>")]
        assert len(links) == len(set(links)), name
        assert steps.count(f'href="{name}.html"') == 1, name
