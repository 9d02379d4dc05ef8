"""Rendering an install: the options through one framework's jinja2 templates, with its steps and
checks.

The markdown source model is the same everywhere: the markdown twin of the page at /about (and
/about/, /about.html, /about/index.html) is a pre-rendered file, about.md (or about/index.md) in the
markdown directory, and index.md is the twin of / (and /index.html). A request whose Accept prefers
text/markdown (listed with a q above 0 and at least HTML's) gets the twin, and so does a direct GET
of /about.md; the answer for a page with a twin says Vary: Accept, HTML or markdown, and the HTML
names the twin in a Link rel="alternate" header. /llms.txt is written from the options. Nothing
outside the markdown directory is served.

Templates render with StrictUndefined and no autoescaping: every value from the options reaches them
through the filter of its language (``py``: a Python literal, ``js``: a JavaScript literal), or, for
nginx, after the options have limited it to characters nginx reads literally.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from netglean.snippets.inputs import Options, markdown_path

if TYPE_CHECKING:
    from jinja2 import Environment

TEMPLATES = Path(__file__).parent / "templates"


Language = Literal["python", "javascript", "nginx", "markdown"]


@dataclass(frozen=True, slots=True)
class SnippetFile:
    path: str
    """Where the file goes, relative to the project's root."""
    language: Language
    content: str


@dataclass(frozen=True, slots=True)
class Check:
    """A command that shows the install works, and what it should show."""

    command: str
    expect: str


@dataclass(frozen=True, slots=True)
class Snippet:
    framework: str
    files: tuple[SnippetFile, ...]
    steps: tuple[str, ...]
    verify: tuple[Check, ...]
    llms_txt: str


@dataclass(frozen=True, slots=True)
class _Layout:
    files: tuple[tuple[str, str, Language], ...]
    """(template, path, language) for each file."""
    steps: tuple[str, ...]
    """Install steps; {markdown_dir} and {html_root} are filled in."""
    proxied: bool = False
    """Served through a proxy of the site's (Shopify's App Proxy) under site_url: the checks ask it
    for llms.txt and a twin by URL, and the app directly for an unsigned request."""


TWINS = (
    "index.md for / (and /index.html), about.md (or about/index.md) for /about, /about/, "
    "/about.html and /about/index.html."
)
"""Which file is which page's twin, as every install finds it (inputs.markdown_path)."""

_LAYOUTS: dict[str, _Layout] = {
    "fastapi": _Layout(
        (("fastapi.py.j2", "netglean_agent.py", "python"),),
        (
            "Save netglean_agent.py beside your app's module.",
            "Add the middleware outermost: `from netglean_agent import AgentReadable` and "
            "`app.add_middleware(AgentReadable)` after every other add_middleware call.",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): " + TWINS,
        ),
    ),
    "flask": _Layout(
        (("flask.py.j2", "netglean_agent.py", "python"),),
        (
            "Save netglean_agent.py beside your app's module.",
            "Call `netglean_agent.init_app(app)` once the app is created (before the first "
            "request).",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): " + TWINS,
        ),
    ),
    "django": _Layout(
        (("django.py.j2", "netglean_agent.py", "python"),),
        (
            "Save netglean_agent.py where Django can import it (beside manage.py).",
            'Add "netglean_agent.AgentReadableMiddleware" to MIDDLEWARE, right after '
            "SecurityMiddleware.",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): " + TWINS,
        ),
    ),
    "express": _Layout(
        (("express.js.j2", "netglean-agent.js", "javascript"),),
        (
            "Save netglean-agent.js beside your server (CommonJS; Node 18 or later).",
            "Mount it before your routes and static files: "
            "`app.use(require('./netglean-agent')())`.",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): " + TWINS,
        ),
    ),
    "fastify": _Layout(
        (("fastify.js.j2", "netglean-agent.js", "javascript"),),
        (
            "Save netglean-agent.js beside your server (CommonJS; Node 18 or later).",
            "Install its hooks on the root instance before your routes: "
            "`require('./netglean-agent')(fastify)` (not through fastify.register, which would "
            "encapsulate them).",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): " + TWINS,
        ),
    ),
    "cloudflare_worker": _Layout(
        (("cloudflare_worker.js.j2", "src/worker.js", "javascript"),),
        (
            "Save src/worker.js as the Worker's main module, on a route in front of your site "
            "(the origin answers everything the Worker does not).",
            'Bind your static assets as ASSETS (wrangler.toml: [assets] directory = "./public", '
            'binding = "ASSETS").',
            "Write each page's markdown twin under public/{markdown_dir}: " + TWINS,
        ),
    ),
    "nextjs": _Layout(
        (("nextjs.js.j2", "middleware.js", "javascript"),),
        (
            "Save middleware.js at the project's root (beside app/ or pages/; src/middleware.js "
            "with a src/ folder).",
            "Write each page's markdown twin under public/{markdown_dir}: index.md for / (and "
            "/index.html), about.md for /about, /about/, /about.html and /about/index.html "
            "(Next.js serves them as static files; the middleware cannot look for "
            "about/index.md).",
            "If middleware.js exists already, call agentReadable(request) first in it and return "
            "its answer when it gives one.",
        ),
    ),
    "nginx": _Layout(
        (
            ("nginx.conf.j2", "netglean-agent.conf", "nginx"),
            ("llms.txt.j2", "{markdown_dir}/llms.txt", "markdown"),
        ),
        (
            "Put netglean-agent.conf in /etc/nginx/conf.d/ (it holds http-level maps and the "
            "server block; merge the server block with yours, keeping its locations, and set "
            "listen and server_name).",
            "Write llms.txt and each page's markdown twin under {markdown_dir}: "
            + TWINS[:-1]
            + "; the HTML stays "
            "under {html_root}.",
            "If nginx proxies to an app rather than serving {html_root}, put your proxy_pass in "
            "place of the try_files lines of `location /` and `@netglean_html`.",
            "Check and reload: `nginx -t && nginx -s reload`.",
        ),
    ),
    "shopify_app_proxy": _Layout(
        (("shopify_app_proxy.js.j2", "agent-proxy.js", "javascript"),),
        (
            "Save agent-proxy.js on a host the store can reach over https and run it there (Node "
            "18 or later, no dependencies): `SHOPIFY_API_SECRET=<the app's API secret key> "
            "PORT=3000 node agent-proxy.js`, behind your https front end.",
            "In the app's settings (Partner Dashboard, or [app_proxy] in shopify.app.toml) set "
            "the App Proxy: prefix apps, subpath agent, proxy URL https://<the app's "
            "host>/agent-proxy. site_url is the store's URL with that path "
            "(https://<store>/apps/agent), so llms.txt links through the proxy.",
            "Write each page's markdown twin under {markdown_dir} (relative to the working "
            "directory): index.md for /, products/kettle.md (or products/kettle/index.md) for "
            "/products/kettle.",
            "Point the store's /llms.txt at it: Online Store > Navigation > URL Redirects, "
            "/llms.txt to /apps/agent/llms.txt (Shopify serves no file of an app at the root).",
        ),
        proxied=True,
    ),
}


def render(framework: str, options: Options) -> Snippet:
    """The install for ``framework`` (one of FRAMEWORKS) from checked ``options``."""
    layout = _LAYOUTS[framework]
    environment = _environment()
    llms = llms_txt(options)
    values: dict[str, Any] = {
        "site_url": options.site_url,
        "markdown_dir": options.markdown_dir,
        "html_root": options.html_root,
        "llms_txt": llms,
    }
    files = tuple(
        SnippetFile(
            path.format(markdown_dir=options.markdown_dir),
            language,
            environment.get_template(template).render(values),
        )
        for template, path, language in layout.files
    )
    steps = tuple(
        step.format(markdown_dir=options.markdown_dir, html_root=options.html_root)
        for step in layout.steps
    )
    checks = _proxy_checks(options) if layout.proxied else _checks(options)
    return Snippet(framework, files, steps, checks, llms)


def llms_txt(options: Options) -> str:
    """The site's /llms.txt (llmstxt.org): its name, its summary, and the markdown twin of each page
    listed."""
    lines = [f"# {options.site_name}", ""]
    if options.summary:
        lines += [f"> {options.summary}", ""]
    lines += ["## Pages", ""]
    for page in options.pages:
        title = page.title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
        item = f"- [{title}]({options.site_url}{markdown_path(page.path)})"
        lines.append(f"{item}: {page.note}" if page.note else item)
    return "\n".join(lines) + "\n"


def _proxy_checks(options: Options) -> tuple[Check, ...]:
    """What shows a proxied install works: the store answers llms.txt and a twin through the proxy,
    with validators, and the app refuses what the store did not sign."""
    twin = shlex.quote(f"{options.site_url}/index.md")
    return (
        Check(
            f"curl -s {shlex.quote(options.site_url + '/llms.txt')}",
            "the llms.txt in payload.llms_txt",
        ),
        Check(f"curl -sI {twin}", "200 with Content-Type: text/markdown and an ETag"),
        Check(f"curl -sI -H 'If-None-Match: <the ETag above>' {twin}", "304 Not Modified"),
        Check(
            "curl -sI https://<the app's host>/agent-proxy/llms.txt",
            "401: a request Shopify did not sign",
        ),
    )


def _checks(options: Options) -> tuple[Check, ...]:
    home = shlex.quote(f"{options.site_url}/")
    outside = shlex.quote(f"{options.site_url}/../etc/passwd")
    return (
        Check(
            f"curl -sI -H 'Accept: text/markdown' {home}",
            "200 with Content-Type: text/markdown, Vary: Accept, Cache-Control: no-cache and an "
            "ETag",
        ),
        Check(
            f"curl -sI -H 'Accept: text/html' {home}",
            'the HTML page, with Vary: Accept and Link: </index.md>; rel="alternate"; '
            'type="text/markdown"',
        ),
        Check(
            f"curl -s {shlex.quote(options.site_url + '/llms.txt')}",
            "the llms.txt in payload.llms_txt",
        ),
        Check(
            f"curl -sI {shlex.quote(options.site_url + '/index.md')}",
            "200 with Content-Type: text/markdown",
        ),
        Check(
            f"curl -sI -H 'Accept: text/markdown' -H 'If-None-Match: <the ETag above>' {home}",
            "304 Not Modified",
        ),
        Check(
            f"curl -s -o /dev/null -w '%{{http_code}}\\n' --path-as-is {outside}",
            "400 or 404: nothing outside the markdown directory is served",
        ),
    )


@cache
def _environment() -> Environment:
    import jinja2  # lazy: only an install pays for it

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["py"] = _python_literal
    environment.filters["js"] = _javascript_literal
    return environment


def _python_literal(value: str) -> str:
    """A Python string literal of ``value``: repr always is one."""
    return repr(str(value))


def _javascript_literal(value: str) -> str:
    """A JavaScript string literal of ``value``: JSON with every non-ASCII character escaped (U+2028
    included)."""
    return json.dumps(str(value), ensure_ascii=True)
