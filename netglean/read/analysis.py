"""What a rendered page is made of, for analyze_page: its framework and how it renders, its
pagination, the selectors of its repeated items (with counts and a sample), its forms and tables as
data, and whether a WAF or captcha answered.

Everything here is read off the page's markup (and the plain-HTTP answer beside it, to tell a page
its scripts build from one its server sends whole); what only a browser can see (the requests it
made, whether scrolling loads more) comes from netglean.browser. Every count and selector is
netglean's; every text is the page's, and goes inside the untrusted frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urljoin

from netglean.read.html_tree import document_base, parse_html
from netglean.read.page_signals import blocked_surface, bot_wall, group_selector, item_groups

MAX_SELECTORS = 5
MAX_FORMS = 10
MAX_FIELDS = 50
MAX_TABLES = 5
MAX_ROWS = 20
CELL_CHARS = 200
SAMPLE_CHARS = 200
CLIENT_SHARE = 0.5
"""A page whose plain-HTTP text is under this share of its rendered text is built in the browser."""
_FRAMEWORKS = (
    ("next.js", re.compile(r"__NEXT_DATA__|id=\"__next\"|/_next/static/")),
    ("nuxt", re.compile(r"__NUXT__|id=\"__nuxt\"|/_nuxt/")),
    ("gatsby", re.compile(r"id=\"___gatsby\"")),
    ("remix", re.compile(r"__remixContext")),
    ("react", re.compile(r"data-reactroot|react-dom|__NEXT_DATA__|_reactListening|id=\"root\"")),
    ("vue", re.compile(r"data-v-[0-9a-f]{6,}|data-server-rendered|\bvue(?:\.min)?\.js|__NUXT__")),
    ("angular", re.compile(r"ng-version=|<app-root|\bng-app\b")),
    ("svelte", re.compile(r"class=\"[^\"]*\bsvelte-[a-z0-9]+|__sveltekit")),
    ("jquery", re.compile(r"jquery(?:[.-][\d.]+)?(?:\.min)?\.js", re.IGNORECASE)),
)
_PAGER = re.compile(r"pagination|pager|paginate|page-numbers", re.IGNORECASE)
_MORE = re.compile(
    r"^\s*(?:load|show|view|see)\s+more\b|^\s*more\s+(?:results|items|posts|stories)\b",
    re.IGNORECASE,
)
_CAPTCHA = re.compile(
    r"g-recaptcha|h-captcha|hcaptcha\.com|cf-turnstile|recaptcha/api\.js", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Pagination:
    """How the page leads on."""

    kind: Literal["links", "load_more", "infinite_scroll", "none"]
    next_url: str | None = None
    selector: str | None = None


@dataclass(frozen=True, slots=True)
class Features:
    frameworks: list[str]
    rendering: Literal["client", "server", "unknown"]
    text_chars: int
    pagination: Pagination


@dataclass(frozen=True, slots=True)
class ItemSelector:
    selector: str
    count: int
    sample: list[str]
    """The first items' text."""


@dataclass(frozen=True, slots=True)
class FormField:
    name: str
    type: str
    required: bool
    label: str | None = None
    options: list[str] | None = None
    """A select's options' values."""


@dataclass(frozen=True, slots=True)
class Form:
    action: str
    method: str
    fields: list[FormField]
    selector: str


@dataclass(frozen=True, slots=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    row_count: int
    caption: str | None = None


@dataclass(frozen=True, slots=True)
class Waf:
    detected: bool
    signals: list[str]
    surface: str | None


@dataclass(frozen=True, slots=True)
class Analysis:
    """A page's analysis as read off its markup (analyze_page's payload, less what the browser
    saw)."""

    features: Features
    item_selectors: list[ItemSelector]
    forms: list[Form]
    tables: list[Table]
    waf: Waf


def analysis(
    *, markup: str, url: str, status: int, headers: dict[str, str], http_markup: str | None
) -> Analysis:
    """The page's analysis (analyze_page's payload, less what the browser saw)."""
    tree = parse_html(markup)
    base = document_base(tree, url)
    rendered_chars = _text_chars(tree)
    signals = bot_wall(status, headers, markup)
    captcha = bool(_CAPTCHA.search(markup))
    return Analysis(
        features=Features(
            frameworks=[name for name, marks in _FRAMEWORKS if marks.search(markup)],
            rendering=_rendering(http_markup, rendered_chars),
            text_chars=rendered_chars,
            pagination=_pagination(tree, base),
        ),
        item_selectors=_item_selectors(tree),
        forms=[_form(form, base) for form in tree.css("form")[:MAX_FORMS]],
        tables=[
            _table(table)
            for table in tree.css("table")[:MAX_TABLES]
            if table.css_first("tr") is not None
        ],
        waf=Waf(
            detected=blocked_surface(signals) is not None or captcha,
            signals=signals + (["captcha"] if captcha and "captcha" not in signals else []),
            surface=blocked_surface(signals),
        ),
    )


def _text_chars(tree: Any) -> int:
    body = tree.body
    if body is None:
        return 0
    for node in body.css("script, style, noscript, template"):
        node.decompose()
    return len(" ".join(body.text(separator=" ").split()))


def _rendering(
    http_markup: str | None, rendered_chars: int
) -> Literal["client", "server", "unknown"]:
    """client: the plain-HTTP answer holds under half the rendered text (its scripts build the
    page); server: it holds it already; unknown: it could not be read."""
    if http_markup is None:
        return "unknown"
    plain = _text_chars(parse_html(http_markup))
    gap = rendered_chars - plain
    return "client" if gap > 200 and plain < rendered_chars * CLIENT_SHARE else "server"


def _pagination(tree: Any, base: str) -> Pagination:
    """How the page leads on: a rel=next link, a pager, a "load more" control, or nothing seen."""
    link = tree.css_first("a[rel~=next][href], link[rel~=next][href]")
    if link is not None:
        return Pagination("links", next_url=urljoin(base, link.attributes.get("href") or ""))
    for node in tree.css("nav, ul, ol, div"):
        label = " ".join(node.attributes.get(name) or "" for name in ("class", "id", "aria-label"))
        if _PAGER.search(label) and node.css_first("a[href]") is not None:
            return Pagination("links", selector=_describe_element(node))
    for node in tree.css("button, a"):
        if _MORE.match(node.text() or ""):
            return Pagination("load_more", selector=_describe_element(node))
    return Pagination("none")


def _describe_element(node: Any) -> str:
    """A selector for one element: its tag, id or first classes."""
    ident = node.attributes.get("id")
    if ident and re.fullmatch(r"[A-Za-z][\w-]*", ident):
        return f"{node.tag}#{ident}"
    classes = [
        c
        for c in (node.attributes.get("class") or "").split()
        if re.fullmatch(r"[A-Za-z_][\w-]*", c)
    ][:2]
    return str(node.tag) + "".join(f".{c}" for c in classes)


def _item_selectors(tree: Any) -> list[ItemSelector]:
    """The page's repeated items (alike siblings that each hold a link), largest first: the selector
    that finds each group, how many it finds, and the first items' text."""
    found: list[ItemSelector] = []
    seen: set[str] = set()
    for group in item_groups(tree):
        selector = group_selector(group, tree)
        if selector is None or selector in seen:
            continue
        seen.add(selector)
        sample = [
            " ".join((node.text(separator=" ") or "").split())[:SAMPLE_CHARS]
            for node in group.nodes[:3]
        ]
        found.append(ItemSelector(selector, len(group.nodes), sample))
        if len(found) == MAX_SELECTORS:
            break
    return found


def _form(form: Any, base: str) -> Form:
    labels = {
        label.attributes.get("for"): " ".join((label.text() or "").split())[:SAMPLE_CHARS]
        for label in form.css("label[for]")
    }
    fields = []
    for field in form.css("input, select, textarea")[:MAX_FIELDS]:
        kind = (
            field.tag if field.tag != "input" else (field.attributes.get("type") or "text").lower()
        )
        if kind in {"hidden", "submit", "button", "image", "reset"}:
            continue
        options = (
            [
                option.attributes.get("value") or (option.text() or "").strip()
                for option in field.css("option")[:20]
            ]
            if field.tag == "select"
            else None
        )
        fields.append(
            FormField(
                name=field.attributes.get("name") or field.attributes.get("id") or "",
                type=kind,
                required="required" in field.attributes,
                label=labels.get(field.attributes.get("id")) or None,
                options=options,
            )
        )
    return Form(
        action=urljoin(base, form.attributes.get("action") or ""),
        method=(form.attributes.get("method") or "get").lower(),
        fields=fields,
        selector=_describe_element(form),
    )


def _table(table: Any) -> Table:
    rows = []
    for row in table.css("tr"):
        cells = [" ".join((cell.text() or "").split())[:CELL_CHARS] for cell in row.css("th, td")]
        if cells:
            rows.append(cells)
    head = table.css_first("thead tr") or (
        table.css_first("tr") if table.css_first("tr th") is not None else None
    )
    headers = (
        [" ".join((cell.text() or "").split())[:CELL_CHARS] for cell in head.css("th, td")]
        if head
        else []
    )
    body = rows[1:] if headers and rows and rows[0] == headers else rows
    caption = table.css_first("caption")
    return Table(
        headers=headers,
        rows=body[:MAX_ROWS],
        row_count=len(body),
        caption=" ".join((caption.text() or "").split())[:CELL_CHARS]
        if caption is not None
        else None,
    )
