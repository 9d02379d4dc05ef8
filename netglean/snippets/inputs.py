"""What an install is rendered from: the frameworks, and the options checked before any template
sees them.

Every value here ends up inside code of another language (a Python or JavaScript string, an nginx
path), so each is checked for what it must be, and the renderer escapes it for where it goes. The
checks are the input schema's own patterns (install_snippet.yaml says the same, and a test holds
them together), so what the schema lets through always renders. Single-line texts (a site name, a
title, a note) have their runs of whitespace, newlines included, folded into one space, and control
characters shown as U+FFFD: llms.txt gives each of them one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from netglean.core.errors import InvalidArguments

FRAMEWORKS = (
    "cloudflare_worker",
    "django",
    "express",
    "fastapi",
    "fastify",
    "flask",
    "nextjs",
    "nginx",
    "shopify_app_proxy",
)
"""Every framework install_snippet renders for."""

DEFAULT_MARKDOWN_DIR = "markdown"
"""Where the markdown twins live by default: relative to the app's working directory (for a Worker
or a Next.js app, a folder of its static assets)."""
NGINX_MARKDOWN_DIR = "/var/www/markdown"
NGINX_HTML_ROOT = "/var/www/html"

SITE_URL = r"^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~!*'+,;=:@%/-]*)?$"
"""An absolute http(s) URL with no credentials, query or fragment."""
DIRECTORY = r"^[A-Za-z0-9._~+@/-]+$"
"""A directory nginx can hold unquoted and uninterpolated (no '$', quotes, ';', braces or
spaces)."""
PAGE_PATH = r"^/[A-Za-z0-9._~!*'+,;=:@%/-]*$"
"""A URL path of RFC 3986 characters, less '(' and ')' which would end a markdown link."""
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
"""Control characters, but those str.split() folds as whitespace (tab, newlines, form feeds)."""


@dataclass(frozen=True, slots=True)
class Page:
    """One line of llms.txt's Pages section: a page of the site, by path."""

    path: str
    title: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Options:
    """A checked set of options (build it with ``options``)."""

    site_name: str
    site_url: str
    """The site's origin (and base path), with no trailing slash."""
    summary: str
    markdown_dir: str
    html_root: str
    """nginx only: where the HTML pages are (the server's root)."""
    pages: tuple[Page, ...]


def options(framework: str, given: Mapping[str, Any]) -> Options:
    """``given`` (the tool's arguments but framework) checked for ``framework``; InvalidArguments
    names the first wrong one. html_root is read for nginx only."""
    if framework not in FRAMEWORKS:
        _wrong("framework", f"must be one of {', '.join(FRAMEWORKS)}")
    site_name = _line("site_name", given.get("site_name"), required=True)
    site_url = _matching(
        "site_url", given.get("site_url"), SITE_URL, "must be an absolute http(s) URL with no query"
    )
    scheme, rest = site_url.split("://", 1)
    summary = _line("summary", given.get("summary", ""))
    nginx = framework == "nginx"
    markdown_dir = _directory(
        "markdown_dir", given.get("markdown_dir") or (NGINX_MARKDOWN_DIR if nginx else None)
    )
    html_root = (
        _directory("html_root", given.get("html_root") if nginx else None) or NGINX_HTML_ROOT
    )
    pages = tuple(_page(index, page) for index, page in enumerate(given.get("pages") or ()))
    return Options(
        site_name=site_name,
        site_url=f"{scheme.lower()}://{rest.rstrip('/')}",
        summary=summary,
        markdown_dir=markdown_dir or DEFAULT_MARKDOWN_DIR,
        html_root=html_root,
        pages=pages or (Page("/", site_name, summary),),
    )


PAGE_FILES = ("/index.html", "/index.htm")
PAGE_ENDINGS = (".html", ".htm")


def markdown_path(path: str) -> str:
    """The URL of a page's markdown twin, whichever way the page's URL is written: /about, /about/,
    /about.html and /about/index.html -> /about.md, / and /index.html -> /index.md (the rule every
    install applies)."""
    stem = path.rstrip("/")
    if stem.endswith(PAGE_FILES):
        stem = stem.rsplit("/", 1)[0]
    else:
        ending = next(
            (end for end in PAGE_ENDINGS if stem.endswith(end) and not stem.endswith("/" + end)),
            None,
        )
        stem = stem[: -len(ending)] if ending else stem
    return f"{stem}.md" if stem else "/index.md"


def _wrong(argument: str, problem: str, pointer: str = "") -> NoReturn:
    message = f"{argument} {problem}"
    raise InvalidArguments(
        message,
        detail={
            "errors": [
                {"argument": argument, "pointer": pointer or f"/{argument}", "problem": message}
            ]
        },
    )


def _matching(argument: str, value: Any, pattern: str, problem: str, pointer: str = "") -> str:
    if not isinstance(value, str) or not re.search(pattern, value):
        _wrong(argument, problem, pointer)
    return value


def _line(argument: str, value: Any, *, required: bool = False, pointer: str = "") -> str:
    if not isinstance(value, str):
        _wrong(argument, "must be a string", pointer)
    text = " ".join(_CONTROL.sub("\N{REPLACEMENT CHARACTER}", value).split())
    if required and not text:
        _wrong(argument, "must not be empty", pointer)
    return text


def _directory(argument: str, value: Any) -> str | None:
    if value is None:
        return None
    directory = _matching(
        argument, value, DIRECTORY, "must be a path of letters, digits and ._~+@/- only"
    )
    return directory.rstrip("/") or "/"


def _page(index: int, page: Any) -> Page:
    pointer = f"/pages/{index}"
    if not isinstance(page, Mapping):
        _wrong("pages", "items must be objects with path and title", pointer)
    unknown = sorted(set(page) - {"path", "title", "note"})
    if unknown:
        _wrong(
            "pages", f"items take path, title and note, not {unknown[0]}", f"{pointer}/{unknown[0]}"
        )
    path = _matching(
        "pages",
        page.get("path"),
        PAGE_PATH,
        "item paths must be URL paths starting with '/'",
        f"{pointer}/path",
    )
    title = _line("pages", page.get("title"), required=True, pointer=f"{pointer}/title")
    note = _line("pages", page.get("note", ""), pointer=f"{pointer}/note")
    return Page(path, title, note)
