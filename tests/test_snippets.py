"""install_snippet's installs work: each rendered template runs as a real server on 127.0.0.1 in
front of a fixture site (HTML pages and their markdown twins in a temporary directory) and answers
agents and browsers as promised.

FastAPI (uvicorn), Flask (werkzeug), Django (wsgiref), nginx (Debian's, unprivileged), Express and
Fastify (the Node the project installs, with tests/conformance's node_modules) and the Cloudflare
Worker (its module behind a small Node server, ASSETS and the origin stubbed) are asked the same
questions over HTTP. The Next.js middleware is syntax-checked by Node and run against a stand-in for
next/server, since Next.js itself is too heavy to install.

Every install is rendered with a site name and summary full of quotes, backslashes, newlines and
template braces: the code only runs when each value was escaped for its language.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import http.client
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
import pytest
import yaml

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.errors import InvalidArguments
from netglean.core.settings import Settings
from netglean.snippets import FRAMEWORKS, Snippet, inputs, options, render
from netglean.snippets.render import TEMPLATES
from tests.support import installs
from tests.support.paths import PROJECT, TESTS

AGENT = "text/markdown;q=1.0, text/html;q=0.8, text/plain;q=0.5, */*;q=0.1"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
LINK = '<{}>; rel="alternate"; type="text/markdown"'

HOSTILE = "Tea \"Shop\" 'n' \\ {{ name }} {% raw %} ${x} `t` */ </script>\nsecond\u2028line"
"""A site name that breaks any template that does not escape it for its language."""

PAGES = {
    "/": "index.html",
    "/index.html": "index.html",
    "/about": "about.html",
    "/docs/": "docs/index.html",
    "/tea.html": "tea.html",
    "/guide/index.html": "guide/index.html",
    "/plain": "plain.html",
}
"""The fixture site's HTML pages, by path: every way a page's URL is written (/x, /x/, /x.html,
/x/index.html); /plain has no markdown twin."""
TWINS = {
    "index.md": "# Home\n\nWelcome.\n",
    "about.md": "# About\n\nWe sell tea.\n",
    "docs/index.md": "# Docs\n",
    "tea.md": "# Tea\n\nOolong.\n",
    "guide/index.md": "# Guide\n\nSteep it for three minutes.\n",
}
"""The twins, named as the install steps say (about.md, or about/index.md, for /about, /about/,
/about.html and /about/index.html)."""
FORMS = (
    ("/about", "about.md", "/about.md"),
    ("/docs/", "docs/index.md", "/docs.md"),
    ("/tea.html", "tea.md", "/tea.md"),
    ("/guide/index.html", "guide/index.md", "/guide.md"),
    ("/index.html", "index.md", "/index.md"),
    ("/", "index.md", "/index.md"),
)
"""(a page's URL, its twin's file, the twin's URL) for each form of URL."""

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NODE_MODULES = TESTS / "conformance" / "node_modules"
NODE = NODE_MODULES / ".bin" / "node"
"""The Node.js tests/conformance pins (22), as the conformance suite runs on: not whatever node is
on PATH (Debian 12's Node 18 has no global crypto, which the JavaScript installs use)."""


def _options(framework: str, root: Path, port: int) -> Any:
    given: dict[str, Any] = {
        "site_name": HOSTILE,
        "site_url": f"http://127.0.0.1:{port}/",
        "summary": 'Loose-leaf tea; "quoted" \\ and {{ braces }}\nover two lines.',
        "pages": [
            {"path": "/", "title": "Home [start]"},
            {"path": "/about", "title": "About", "note": "Who we are."},
            {"path": "/docs/", "title": "Docs"},
            {"path": "/tea.html", "title": "Tea"},
            {"path": "/guide/index.html", "title": "Guide"},
        ],
    }
    if framework == "nginx":
        given |= {"markdown_dir": str(root / "markdown"), "html_root": str(root / "html")}
    return options(framework, given)


def _site(root: Path) -> Path:
    for path, name in PAGES.items():
        file = root / "html" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        if not file.exists():  # / and /index.html are one file
            file.write_text(f"<!doctype html><title>{path}</title><h1>Page {path}</h1>\n")
    for name, text in TWINS.items():
        file = root / "markdown" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    (root / "secret.md").write_text("SECRET outside the markdown directory\n")
    (root / "markdown" / "escape.md").symlink_to(root / "secret.md")
    return root


# The fixture apps: each serves PAGES from html/ and a 404 for anything else, with the rendered
# install in front.

FASTAPI_APP = """\
from pathlib import Path
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from netglean_agent import AgentReadable
PAGES = {pages!r}
app = FastAPI()
app.add_middleware(AgentReadable)

@app.get("/{{path:path}}")
def page(path: str):
    name = PAGES.get("/" + path)
    if name is None:
        return HTMLResponse("<h1>Not found</h1>", status_code=404)
    return HTMLResponse((Path("html") / name).read_text())
"""

FLASK_APP = """\
import sys
from pathlib import Path
from flask import Flask, request
from werkzeug.serving import make_server
import netglean_agent
PAGES = {pages!r}
app = Flask(__name__)
netglean_agent.init_app(app)

@app.get("/", defaults={{"path": ""}})
@app.get("/<path:path>")
def page(path):
    name = PAGES.get(request.path)
    if name is None:
        return "<h1>Not found</h1>", 404
    return (Path("html") / name).read_text()

make_server("127.0.0.1", int(sys.argv[1]), app).serve_forever()
"""

DJANGO_APP = """\
import sys
from pathlib import Path
import django
from django.conf import settings
from django.http import HttpResponse, HttpResponseNotFound
from django.urls import re_path
PAGES = {pages!r}

def page(request):
    name = PAGES.get(request.path)
    if name is None:
        return HttpResponseNotFound("<h1>Not found</h1>")
    return HttpResponse((Path("html") / name).read_text())

urlpatterns = [re_path(r"", page)]
settings.configure(
    DEBUG=False, SECRET_KEY="fixture", ALLOWED_HOSTS=["127.0.0.1"], ROOT_URLCONF=__name__,
    APPEND_SLASH=False, MIDDLEWARE=["netglean_agent.AgentReadableMiddleware"],
)
django.setup()
from wsgiref.simple_server import WSGIRequestHandler, make_server
from django.core.wsgi import get_wsgi_application

class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass

make_server(
    "127.0.0.1", int(sys.argv[1]), get_wsgi_application(), handler_class=Quiet
).serve_forever()
"""

EXPRESS_APP = """\
const path = require('node:path');
const fs = require('node:fs');
const express = require('express');
const PAGES = {pages};
const app = express();
app.use(require('./netglean-agent')());
app.use((req, res) => {{
  const name = PAGES[req.path];
  if (!name) return res.status(404).type('html').send('<h1>Not found</h1>');
  res.type('html').send(fs.readFileSync(path.join('html', name), 'utf8'));
}});
app.listen(Number(process.argv[2]), '127.0.0.1');
"""

FASTIFY_APP = """\
const path = require('node:path');
const fs = require('node:fs');
const fastify = require('fastify')();
const PAGES = {pages};
require('./netglean-agent')(fastify);
fastify.setNotFoundHandler((request, reply) => {{
  const name = PAGES[new URL(request.url, 'http://localhost').pathname];
  if (!name) return reply.code(404).type('text/html').send('<h1>Not found</h1>');
  const html = fs.readFileSync(path.join('html', name), 'utf8');
  return reply.type('text/html; charset=utf-8').send(html);
}});
fastify.listen({{ port: Number(process.argv[2]), host: '127.0.0.1' }});
"""

WORKER_HARNESS = """\
// The Worker behind a Node server: ASSETS reads public/, the origin (global fetch) serves the
// HTML pages.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import worker from './src/worker.mjs';
const PAGES = {pages};
const root = path.resolve('public');
globalThis.fetch = async (request) => {{
  const name = PAGES[new URL(request.url).pathname];
  if (!name) {{
    const missing = {{ status: 404, headers: {{ 'Content-Type': 'text/html' }} }};
    return new Response('<h1>Not found</h1>', missing);
  }}
  const headers = {{ 'Content-Type': 'text/html; charset=utf-8' }};
  return new Response(fs.readFileSync(path.join('html', name)), {{ headers }});
}};
const env = {{
  ASSETS: {{
    async fetch(request) {{
      const asked = path.resolve(root, '.' + decodeURIComponent(new URL(request.url).pathname));
      const file = fs.existsSync(asked) ? fs.realpathSync(asked) : '';
      if (!file.startsWith(root + path.sep) || !fs.statSync(file).isFile()) {{
        return new Response('not found', {{ status: 404 }});
      }}
      const modified = fs.statSync(file).mtime.toUTCString();
      const headers = {{ 'Content-Type': 'text/markdown', 'Last-Modified': modified }};
      return new Response(request.method === 'HEAD' ? null : fs.readFileSync(file), {{ headers }});
    }},
  }},
}};
http.createServer(async (req, res) => {{
  const url = `http://127.0.0.1:${{process.argv[2]}}${{req.url}}`;
  const request = new Request(url, {{ method: req.method, headers: req.headers }});
  const response = await worker.fetch(request, env, {{}});
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}}).listen(Number(process.argv[2]), '127.0.0.1');
"""

NGINX_MAIN = """\
{user}error_log {root}/logs/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    include {root}/netglean-agent.conf;
}}
"""


def _start(framework: str, root: Path, port: int) -> list[str]:
    """Write the fixture app for ``framework`` into ``root``; the command that serves it."""
    pages = json.dumps(PAGES)
    if framework == "fastapi":
        (root / "app.py").write_text(FASTAPI_APP.format(pages=PAGES))
        return [
            sys.executable,
            "-m",
            "uvicorn",
            "app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
    if framework == "flask":
        (root / "app.py").write_text(FLASK_APP.format(pages=PAGES))
        return [sys.executable, "app.py", str(port)]
    if framework == "django":
        (root / "app.py").write_text(DJANGO_APP.format(pages=PAGES))
        return [sys.executable, "app.py", str(port)]
    if framework == "express":
        (root / "server.js").write_text(EXPRESS_APP.format(pages=pages))
        return [NODE, "server.js", str(port)]
    if framework == "fastify":
        (root / "server.js").write_text(FASTIFY_APP.format(pages=pages))
        return [NODE, "server.js", str(port)]
    if framework == "cloudflare_worker":
        shutil.move(root / "src" / "worker.js", root / "src" / "worker.mjs")
        (root / "public").mkdir()
        shutil.move(root / "markdown", root / "public" / "markdown")
        (root / "harness.mjs").write_text(WORKER_HARNESS.format(pages=pages))
        return [NODE, "harness.mjs", str(port)]
    assert framework == "nginx"
    conf = (root / "netglean-agent.conf").read_text()
    assert "    listen 80;\n" in conf
    (root / "netglean-agent.conf").write_text(
        conf.replace("    listen 80;\n", f"    listen 127.0.0.1:{port};\n")
    )
    (root / "logs").mkdir()
    (root / "tmp").mkdir()
    # As root, nginx's workers would drop to nobody, who cannot read pytest's temporary directories.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (root / "nginx.conf").write_text(NGINX_MAIN.format(root=root, user=user))
    pid = f"pid {root}/nginx.pid;"
    return [NGINX, "-p", str(root), "-c", str(root / "nginx.conf"), "-g", f"daemon off; {pid}"]


SERVED = ("fastapi", "flask", "django", "nginx", "express", "fastify", "cloudflare_worker")


@contextmanager
def _serving(
    framework: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, Snippet]]:
    """(framework, base URL, the rendered install) for a running install in front of the fixture
    site."""
    root = _site(tmp_path_factory.mktemp(framework))
    port = installs.free_port()
    snippet = render(framework, _options(framework, root, port))
    installs.write(snippet, root)
    command = _start(framework, root, port)
    log = root / "server.log"
    environment = {"PATH": "/usr/bin:/bin", "NODE_PATH": str(NODE_MODULES), "PYTHONPATH": str(root)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=root, stdout=out, stderr=subprocess.STDOUT, env=environment
        )
    try:
        installs.wait(port, process, log)
        yield framework, f"http://127.0.0.1:{port}", snippet
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module", params=SERVED)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, Snippet]]:
    with _serving(request.param, tmp_path_factory) as running:
        yield running


def _get(base: str, path: str, **headers: str) -> httpx.Response:
    return httpx.get(base + path, headers=headers, timeout=10, follow_redirects=False)


def _raw(base: str, path: str) -> tuple[int, bytes]:
    """A request whose path is sent as written (httpx would resolve its dot segments)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", path, headers={"Accept": AGENT})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _varies(response: httpx.Response) -> bool:
    return "accept" in [
        name.strip().lower() for name in response.headers.get("vary", "").split(",")
    ]


def test_an_agent_gets_the_markdown_twin(served: tuple[str, str, Snippet]) -> None:
    _, base, _ = served
    for path, twin in (("/about", "about.md"), ("/", "index.md"), ("/docs/", "docs/index.md")):
        response = _get(base, path, accept=AGENT)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["content-type"].startswith("text/markdown"), path
        assert response.text == TWINS[twin], path
        assert _varies(response), path
        assert response.headers.get("etag") and response.headers.get("last-modified"), path
        assert "link" not in response.headers


def test_every_form_of_a_page_s_url_finds_the_twin_the_steps_name(
    served: tuple[str, str, Snippet],
) -> None:
    """/x, /x/, /x.html and /x/index.html: the twin the install steps tell the user to write is what
    an agent gets, and the Link header a browser gets names a URL that serves it (found by issue 31:
    nginx named /x.html.md)."""
    framework, base, snippet = served
    assert any(
        "about.md (or about/index.md) for /about, /about/, /about.html and" in step
        for step in snippet.steps
    )
    for path, twin, url in FORMS:
        agent = _get(base, path, accept=AGENT)
        assert agent.status_code == 200 and agent.text == TWINS[twin], (framework, path, agent.text)
        assert agent.headers["cache-control"] == "no-cache", (framework, path)
        browser = _get(base, path, accept=BROWSER)
        assert browser.headers["content-type"].startswith("text/html"), (framework, path)
        assert browser.headers["link"] == LINK.format(url), (framework, path)
        direct = _get(base, url, accept=BROWSER)
        assert direct.status_code == 200 and direct.text == TWINS[twin], (framework, url)


def test_a_browser_gets_html_that_names_its_twin(served: tuple[str, str, Snippet]) -> None:
    _, base, _ = served
    for path, twin in (("/about", "/about.md"), ("/", "/index.md"), ("/docs/", "/docs.md")):
        response = _get(base, path, accept=BROWSER)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["content-type"].startswith("text/html"), path
        assert f"Page {path}" in response.text
        assert _varies(response), path
        assert response.headers["link"] == LINK.format(twin), path


def test_a_page_without_a_twin_is_the_apps(served: tuple[str, str, Snippet]) -> None:
    framework, base, _ = served
    response = _get(base, "/plain", accept=AGENT)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    # nginx names a twin for every page: it cannot look for the file when it adds Link
    if framework != "nginx":
        assert "link" not in response.headers
    assert _get(base, "/missing", accept=AGENT).status_code == 404
    # a name too long for the file system
    assert _get(base, "/" + "a" * 300, accept=AGENT).status_code == 404


@pytest.mark.parametrize(
    ("accept", "markdown"),
    [
        ("*/*", False),
        ("", False),
        ("text/markdown", True),
        ("text/markdown;q=0", False),
        ("text/markdown;q=0.0, text/html", False),
        ("text/html, text/markdown", True),
        ("text/markdown;q=0.5, text/html;q=0.9", False),
        ("text/markdown;q=0.9, text/html;q=0.5", True),
        ("text/markdown;q=0.4, text/*;q=0.8", False),
        ("text/markdown;q=0.4, */*;q=0.3", True),
        ("TEXT/MARKDOWN; charset=utf-8, text/html;q=0.9", True),
    ],
)
def test_markdown_is_chosen_by_q_value(
    served: tuple[str, str, Snippet], accept: str, markdown: bool
) -> None:
    _, base, _ = served
    response = _get(base, "/about", accept=accept)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(
        "text/markdown" if markdown else "text/html"
    ), accept
    assert _varies(response)


def test_a_direct_get_of_the_twin(served: tuple[str, str, Snippet]) -> None:
    _, base, _ = served
    for path, twin in (
        ("/about.md", "about.md"),
        ("/docs.md", "docs/index.md"),
        ("/index.md", "index.md"),
    ):
        response = _get(base, path, accept=BROWSER)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/markdown"), path
        assert response.text == TWINS[twin]


def test_llms_txt(served: tuple[str, str, Snippet]) -> None:
    _, base, snippet = served
    response = _get(base, "/llms.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == snippet.llms_txt
    name = " ".join(HOSTILE.split())
    assert response.text.startswith(f"# {name}\n\n> Loose-leaf tea;")
    assert (
        f"- [Home \\[start\\]]({base}/index.md)\n- [About]({base}/about.md): Who we are.\n"
        in response.text
    )
    assert f"- [Tea]({base}/tea.md)\n- [Guide]({base}/guide.md)\n" in response.text


def test_validators_give_304(served: tuple[str, str, Snippet]) -> None:
    framework, base, _ = served
    for path, accept in (("/about", AGENT), ("/llms.txt", BROWSER), ("/about.md", BROWSER)):
        first = _get(base, path, accept=accept)
        tag = first.headers["etag"]
        if framework != "nginx":  # nginx's own ETag is made from the file's time and size
            assert tag.startswith('"') and len(tag) == 34, tag
        again = _get(base, path, accept=accept, **{"if-none-match": tag})
        assert again.status_code == 304, path
        assert again.headers["etag"] == tag and not again.content
        assert _get(base, path, accept=accept, **{"if-none-match": '"other"'}).status_code == 200


def test_html_validators_where_the_install_adds_them(served: tuple[str, str, Snippet]) -> None:
    """Flask and Django get a strong ETag for HTML that is not streamed; Express and nginx have
    their own; the ASGI middleware, Fastify and the Worker leave HTML validators to the app (they
    would have to hold the whole body)."""
    framework, base, _ = served
    first = _get(base, "/about", accept=BROWSER)
    if framework not in ("flask", "django", "express", "nginx"):
        assert "etag" not in first.headers  # the fixture apps set none
        return
    tag = first.headers["etag"]
    if framework in ("flask", "django"):
        assert tag.startswith('"') and len(tag) == 34, tag
    again = _get(base, "/about", accept=BROWSER, **{"if-none-match": tag})
    assert again.status_code == 304 and not again.content
    assert _varies(again)


def test_head_asks_as_get_does(served: tuple[str, str, Snippet]) -> None:
    _, base, _ = served
    response = httpx.head(base + "/about", headers={"accept": AGENT}, timeout=10)
    assert response.status_code == 200 and not response.content
    assert response.headers["content-type"].startswith("text/markdown") and _varies(response)


def test_nothing_outside_the_markdown_directory_is_served(served: tuple[str, str, Snippet]) -> None:
    _, base, _ = served
    for path in (
        "/../secret.md",
        "/%2e%2e/secret.md",
        "/docs/../../secret",
        "/docs/%2E%2E/%2e%2e/secret.md",
        "/..%2fsecret.md",
        "/docs/..%2f..%2fsecret",
        "/escape",
        "/escape.md",
        "/..\\secret.md",
    ):
        status, body = _raw(base, path)
        assert b"SECRET" not in body, (path, status)
        assert status in (400, 403, 404), (path, status)


# Next.js: syntax, and the middleware run against a stand-in for next/server.

NEXT_SERVER = """\
export class NextResponse extends Response {
  static next() {
    return new NextResponse(null, { headers: { 'x-middleware-next': '1' } });
  }
  static rewrite(url) {
    return new NextResponse(null, { headers: { 'x-middleware-rewrite': String(url) } });
  }
}
"""

NEXT_RUN = """\
import { middleware, config } from './middleware.mjs';
const out = { matcher: config.matcher };
for (const [path, accept, etag] of JSON.parse(process.argv[2])) {
  const url = new URL(path, 'https://example.org');
  const headers = new Headers({ Accept: accept });
  if (etag) headers.set('If-None-Match', etag);
  const request = new Request(url, { headers });
  request.nextUrl = url;
  const response = await middleware(request);
  out[`${path} ${accept} ${etag}`] = {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}
console.log(JSON.stringify(out));
"""


def test_nextjs_middleware(tmp_path: Path) -> None:
    snippet = render("nextjs", _options("nextjs", tmp_path, 443))
    (source,) = snippet.files
    assert source.path == "middleware.js" and source.language == "javascript"
    (tmp_path / "middleware.mjs").write_text(source.content)
    checked = subprocess.run(
        [NODE, "--check", "middleware.mjs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    (tmp_path / "node_modules" / "next").mkdir(parents=True)
    (tmp_path / "node_modules" / "next" / "server.js").write_text(NEXT_SERVER)
    (tmp_path / "node_modules" / "next" / "package.json").write_text(
        '{"type": "module", "exports": {"./server": "./server.js"}}'
    )
    (tmp_path / "run.mjs").write_text(NEXT_RUN)
    cases = [
        ["/about", AGENT, ""],
        ["/about", BROWSER, ""],
        ["/", AGENT, ""],
        ["/docs/about.md", BROWSER, ""],
    ]
    cases += [
        ["/tea.html", AGENT, ""],
        ["/guide/index.html", AGENT, ""],
        ["/guide/index.html", BROWSER, ""],
    ]
    cases += [["/llms.txt", BROWSER, ""], ["/%2e%2e/secret", AGENT, ""], ["/a/..%2fb", AGENT, ""]]
    ran = subprocess.run(
        [NODE, "run.mjs", json.dumps(cases)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    agent = out[f"/about {AGENT} "]["headers"]
    assert agent["x-middleware-rewrite"] == "https://example.org/markdown/about.md"
    assert agent["vary"] == "Accept" and agent["content-type"].startswith("text/markdown")
    browser = out[f"/about {BROWSER} "]["headers"]
    assert "x-middleware-next" in browser and browser["vary"] == "Accept"
    assert browser["link"] == LINK.format("/about.md")
    assert (
        out[f"/ {AGENT} "]["headers"]["x-middleware-rewrite"]
        == "https://example.org/markdown/index.md"
    )
    assert (
        out[f"/tea.html {AGENT} "]["headers"]["x-middleware-rewrite"]
        == "https://example.org/markdown/tea.md"
    )
    guide = out[f"/guide/index.html {AGENT} "]["headers"]
    assert guide["x-middleware-rewrite"] == "https://example.org/markdown/guide.md"
    assert out[f"/guide/index.html {BROWSER} "]["headers"]["link"] == LINK.format("/guide.md")
    direct = out[f"/docs/about.md {BROWSER} "]["headers"]
    assert (
        direct["x-middleware-rewrite"] == "https://example.org/markdown/docs/about.md"
        and "vary" not in direct
    )
    llms = out[f"/llms.txt {BROWSER} "]
    assert llms["body"] == snippet.llms_txt and llms["headers"]["content-type"].startswith(
        "text/plain"
    )
    # The URL resolves %2e%2e; an encoded slash in a segment names no file at all.
    assert (
        out[f"/%2e%2e/secret {AGENT} "]["headers"]["x-middleware-rewrite"]
        == "https://example.org/markdown/secret.md"
    )
    assert "x-middleware-next" in out[f"/a/..%2fb {AGENT} "]["headers"]
    tag = llms["headers"]["etag"]
    again = subprocess.run(
        [NODE, "run.mjs", json.dumps([["/llms.txt", BROWSER, tag]])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(again.stdout)[f"/llms.txt {BROWSER} {tag}"]["status"] == 304
    assert "export const config" in source.content and "matcher" in source.content


# Rendering: options, escaping, errors.


def test_every_framework_renders_from_its_own_template() -> None:
    catalog = yaml.safe_load((PROJECT / "catalog/tools/snippets/install_snippet.yaml").read_text())
    assert sorted(catalog["input"]["properties"]["framework"]["enum"]) == sorted(FRAMEWORKS)
    for framework in FRAMEWORKS:
        snippet = render(framework, _options(framework, Path("/srv/site"), 8080))
        assert snippet.framework == framework and snippet.files and snippet.steps and snippet.verify
        assert "{" not in " ".join(snippet.steps), framework  # every placeholder filled in
    templates = {path.name for path in TEMPLATES.glob("*.j2") if not path.name.startswith("_")}
    assert {name.split(".")[0] for name in templates} == {*FRAMEWORKS, "llms"}


def test_the_schema_patterns_are_the_options_own() -> None:
    schema = yaml.safe_load((PROJECT / "catalog/tools/snippets/install_snippet.yaml").read_text())[
        "input"
    ]
    properties = schema["properties"]
    assert properties["site_url"]["pattern"] == inputs.SITE_URL
    assert (
        properties["markdown_dir"]["pattern"]
        == properties["html_root"]["pattern"]
        == inputs.DIRECTORY
    )
    assert properties["pages"]["items"]["properties"]["path"]["pattern"] == inputs.PAGE_PATH


def test_python_installs_compile_whatever_the_site_is_called() -> None:
    for framework in ("fastapi", "flask", "django"):
        (source,) = render(framework, _options(framework, Path("/srv"), 80)).files
        module = ast.parse(source.content, source.path)
        (llms,) = (
            node.value
            for node in module.body
            if isinstance(node, ast.Assign)
            and [ast.unparse(t) for t in node.targets] == ["LLMS_TXT"]
        )
        assert isinstance(llms, ast.Call) and isinstance(llms.func, ast.Attribute)
        text = ast.literal_eval(llms.func.value)
        assert text == render(framework, _options(framework, Path("/srv"), 80)).llms_txt
        assert text.startswith("# " + " ".join(HOSTILE.split()) + "\n")


def test_javascript_installs_parse_whatever_the_site_is_called(tmp_path: Path) -> None:
    for framework in ("express", "fastify", "cloudflare_worker", "nextjs", "shopify_app_proxy"):
        (source,) = render(framework, _options(framework, tmp_path, 80)).files
        common = framework in ("express", "fastify", "shopify_app_proxy")
        file = tmp_path / f"{framework}.{'cjs' if common else 'mjs'}"
        file.write_text(source.content)
        checked = subprocess.run(
            [NODE, "--check", str(file)], capture_output=True, text=True, check=False
        )
        assert checked.returncode == 0, (framework, checked.stderr)


@pytest.mark.parametrize(
    ("framework", "given", "argument"),
    [
        ("rails", {}, "framework"),
        ("flask", {"site_url": "https://example.org"}, "site_name"),
        ("flask", {"site_name": " \n ", "site_url": "https://example.org"}, "site_name"),
        ("flask", {"site_name": "x", "site_url": "ftp://example.org"}, "site_url"),
        ("flask", {"site_name": "x", "site_url": "https://user:pw@example.org"}, "site_url"),
        ("flask", {"site_name": "x", "site_url": "https://example.org/?q=1"}, "site_url"),
        (
            "nginx",
            {"site_name": "x", "site_url": "https://example.org", "markdown_dir": "/srv/$site"},
            "markdown_dir",
        ),
        (
            "nginx",
            {"site_name": "x", "site_url": "https://example.org", "html_root": "/srv/a b"},
            "html_root",
        ),
        (
            "flask",
            {
                "site_name": "x",
                "site_url": "https://e.org",
                "pages": [{"path": "about", "title": "A"}],
            },
            "pages",
        ),
        (
            "flask",
            {
                "site_name": "x",
                "site_url": "https://e.org",
                "pages": [{"path": "/a)b", "title": "A"}],
            },
            "pages",
        ),
        (
            "flask",
            {
                "site_name": "x",
                "site_url": "https://e.org",
                "pages": [{"path": "/a", "title": "\t"}],
            },
            "pages",
        ),
    ],
)
def test_wrong_options_name_the_argument(
    framework: str, given: dict[str, Any], argument: str
) -> None:
    with pytest.raises(InvalidArguments) as raised:
        options(framework, given)
    assert raised.value.detail["errors"][0]["argument"] == argument
    assert raised.value.message.startswith(argument)


def test_defaults() -> None:
    flask = options(
        "flask",
        {"site_name": "Tea", "site_url": "HTTPS://Example.org/shop/", "summary": "Good tea."},
    )
    assert flask.site_url == "https://Example.org/shop" and flask.markdown_dir == "markdown"
    assert render("flask", flask).llms_txt == (
        "# Tea\n\n> Good tea.\n\n## Pages\n\n- [Tea](https://Example.org/shop/index.md): Good "
        "tea.\n"
    )
    nginx = options(
        "nginx", {"site_name": "Tea", "site_url": "https://example.org", "html_root": "/srv/html/"}
    )
    assert (nginx.markdown_dir, nginx.html_root) == ("/var/www/markdown", "/srv/html")
    assert [f.path for f in render("nginx", nginx).files] == [
        "netglean-agent.conf",
        "/var/www/markdown/llms.txt",
    ]
    ignored = options(
        "flask", {"site_name": "Tea", "site_url": "https://example.org", "html_root": "/srv/html"}
    )
    assert ignored.html_root == "/var/www/html"


def test_the_tool(registry: Registry, settings: Settings) -> None:
    async def call(arguments: dict[str, Any]) -> dict[str, Any]:
        runner = build_runner(registry, settings)
        try:
            envelope, _ = await runner.call("install_snippet", arguments)
        finally:
            await runner.services.aclose()
        return envelope.as_dict()

    ok = anyio.run(
        call,
        {
            "framework": "django",
            "site_name": "Tea",
            "site_url": "https://example.org",
            "pages": [{"path": "/about/", "title": "About"}],
        },
    )
    assert ok["ok"] is True and ok["next_step"] == "scan_url"
    payload = ok["payload"]
    assert [f["path"] for f in payload["files"]] == ["netglean_agent.py"]
    assert payload["twins"] == [
        {"path": "/about/", "file": "about.md", "markdown_url": "/about.md"}
    ]
    assert any("If-None-Match" in check["command"] for check in payload["verify"])
    wrong = anyio.run(
        call,
        {
            "framework": "nginx",
            "site_name": "Tea",
            "site_url": "https://example.org",
            "markdown_dir": "a;b",
        },
    )
    assert wrong["ok"] is False and wrong["payload"]["error"]["code"] == "invalid_arguments"
    assert "install_snippet again" in wrong["guidance"]


def test_the_package_face_is_pinned() -> None:
    import netglean.snippets

    assert netglean.snippets.__all__ == [
        "FRAMEWORKS",
        "Check",
        "Options",
        "Page",
        "Snippet",
        "SnippetFile",
        "llms_txt",
        "options",
        "render",
    ]
    probe = (
        "import sys, netglean.snippets, netglean.handlers.snippets; print('jinja2' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"


def test_a_scan_of_every_form_of_page_finds_what_the_install_installs(
    served: tuple[str, str, Snippet],
) -> None:
    """Every served install (Next.js runs only against a stand-in) applied to the site and each form
    of its pages' URLs scanned: markdown on negotiation, Vary, the alternate it names, llms.txt,
    cache headers."""
    from netglean.generated.readability import TABLE
    from netglean.net.fetcher import Fetcher
    from netglean.net.policy import FetchPolicy
    from netglean.scraping.scan import scan
    from netglean.workers.pool import Readers

    framework, base, _ = served
    settings = Settings.load(
        {"allow_private_hosts": True, "host_interval": 0.0, "fetch_only_hosts": "127.0.0.1"}
    )

    async def scanned(url: str) -> dict[str, Any]:
        fetcher = Fetcher(FetchPolicy.from_settings(settings))
        try:
            return (await scan(fetcher, Readers(0), url, TABLE)).result
        finally:
            await fetcher.aclose()

    installed = {
        "negotiated_response",
        "vary_accept",
        "declared_alternates",
        "llms_txt",
        "cache_validators",
    }
    for path, _, _ in FORMS:
        result = anyio.run(scanned, base + path)
        checks = {
            check["id"]: check
            for dimension in result["dimensions"]
            for check in dimension["checks"]
        }
        passed = {name for name, check in checks.items() if check["status"] == "pass"}
        assert installed <= passed, (
            framework,
            path,
            {name: checks[name]["summary"] for name in installed - passed},
        )


SHOPIFY_SECRET = "shpss_test_secret_4f1c"


def _shopify_signed(path: str, **extra: str) -> str:
    """``path`` with the query Shopify's App Proxy adds, signed as Shopify signs it (hex HMAC-SHA256
    of the sorted key=value pairs, concatenated, keyed with the app's API secret)."""
    params = {
        "shop": "kettles.myshopify.com",
        "path_prefix": "/apps/agent",
        "timestamp": "1733400000",
        **extra,
    }
    message = "".join(f"{key}={value}" for key, value in sorted(params.items()))
    signature = hmac.new(SHOPIFY_SECRET.encode(), message.encode(), hashlib.sha256).hexdigest()
    return f"{path}?{urlencode({**params, 'signature': signature})}"


@pytest.fixture(scope="module")
def shopify(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Snippet]]:
    """The Shopify App Proxy install running under node, as the store's proxy reaches it."""
    root = _site(tmp_path_factory.mktemp("shopify"))
    port = installs.free_port()
    given = {"site_name": "Kettles", "site_url": "https://kettles.example/apps/agent"}
    snippet = render("shopify_app_proxy", options("shopify_app_proxy", given))
    installs.write(snippet, root)
    log = root / "server.log"
    environment = {"PATH": "/usr/bin:/bin", "SHOPIFY_API_SECRET": SHOPIFY_SECRET, "PORT": str(port)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [NODE, "agent-proxy.js"],
            cwd=root,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    try:
        installs.wait(port, process, log)
        yield f"http://127.0.0.1:{port}", snippet
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_shopify_app_proxy_serves_llms_txt_and_twins_to_signed_requests(
    shopify: tuple[str, Snippet],
) -> None:
    base, snippet = shopify
    llms = _get(base, _shopify_signed("/agent-proxy/llms.txt"))
    assert llms.status_code == 200 and llms.text == snippet.llms_txt
    # linked through the store's proxy path
    assert "(https://kettles.example/apps/agent/index.md)" in llms.text
    twin = _get(base, _shopify_signed("/agent-proxy/about.md"))
    assert twin.status_code == 200 and twin.text == TWINS["about.md"]
    assert twin.headers["content-type"].startswith("text/markdown") and twin.headers["etag"]
    again = _get(
        base, _shopify_signed("/agent-proxy/about.md"), **{"If-None-Match": twin.headers["etag"]}
    )
    assert again.status_code == 304
    negotiated = _get(base, _shopify_signed("/agent-proxy/docs/"), Accept=AGENT)
    assert negotiated.status_code == 200 and negotiated.text == TWINS["docs/index.md"]
    assert "accept" in negotiated.headers["vary"].lower()


@pytest.mark.parametrize(
    "path",
    [
        "/agent-proxy/llms.txt",
        "/agent-proxy/llms.txt?shop=kettles.myshopify.com&signature=00",
        "/agent-proxy/llms.txt?"
        + "shop=other.myshopify.com&"
        + _shopify_signed("").split("&", 1)[1],
    ],
    ids=["unsigned", "wrong-signature", "changed-after-signing"],
)
def test_a_shopify_app_proxy_refuses_what_shopify_did_not_sign(
    shopify: tuple[str, Snippet], path: str
) -> None:
    base, _ = shopify
    assert _get(base, path).status_code == 401


@pytest.mark.parametrize(
    "path",
    [
        "/agent-proxy/escape.md",
        "/agent-proxy/%2e%2e/secret.md",
        "/agent-proxy/plain.md",
        "/llms.txt",
    ],
)
def test_a_shopify_app_proxy_serves_nothing_else(shopify: tuple[str, Snippet], path: str) -> None:
    base, _ = shopify
    status, body = _raw(base, _shopify_signed(path))
    assert status == 404 and b"SECRET" not in body
