"""What a page's markup says about how to read it: its feeds, whether it is a bot wall, how many
items it lists."""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from netglean.core.untrusted import sanitize
from netglean.read.html_tree import TextMeasure, document_base, with_ancestors

FeedType = Literal["rss", "atom", "json"]
_FEED_TYPES: dict[str, FeedType] = {
    "application/rss+xml": "rss",
    "application/atom+xml": "atom",
    "application/feed+json": "json",
}


@dataclass(frozen=True, slots=True)
class AnnouncedFeed:
    """A feed a page's head announces."""

    url: str
    type: FeedType
    title: str | None = None
    """Its title attribute, sanitised, at most 200 characters."""


# (signal name, pattern over the first 20 kB of markup, words one of which a match holds). Vendors'
# interstitials name themselves.
_WALL_MARKUP = (
    (
        "cloudflare-challenge",
        re.compile(r"cf-chl|challenge-platform|cf-browser-verification|Just a moment\.\.\.", re.I),
        ("cf-chl", "challenge-platform", "cf-browser-verification", "just a moment..."),
    ),
    (
        "cloudflare-block",
        re.compile(r"Attention Required! \| Cloudflare|cf-error-details", re.I),
        ("attention required! | cloudflare", "cf-error-details"),
    ),
    (
        "captcha",
        re.compile(r"g-recaptcha|h-captcha|hcaptcha\.com|recaptcha/api|turnstile", re.I),
        ("g-recaptcha", "h-captcha", "hcaptcha.com", "recaptcha/api", "turnstile"),
    ),
    (
        "datadome",
        re.compile(r"datadome|dd_cookie_test|captcha-delivery\.com", re.I),
        ("datadome", "dd_cookie_test", "captcha-delivery.com"),
    ),
    (
        "perimeterx",
        re.compile(r"_pxCaptcha|px-captcha|perimeterx", re.I),
        ("_pxcaptcha", "px-captcha", "perimeterx"),
    ),
    (
        "incapsula",
        re.compile(r"_Incapsula_Resource|incapsula incident", re.I),
        ("_incapsula_resource", "incapsula incident"),
    ),
    (
        "akamai",
        re.compile(r"Access Denied.{0,200}Reference #|akamai bot manager", re.I | re.S),
        ("access denied", "akamai bot manager"),
    ),
    (
        "browser-check",
        re.compile(
            r"Checking (if the site connection is secure|your browser)|enable JavaScript and "
            r"cookies",
            re.I,
        ),
        ("checking ", "enable javascript and cookies"),
    ),
)
_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The letters besides A to Z that an ignore-case pattern matches to an ASCII letter (İ, ı, ſ and
the Kelvin sign): folded to it, so the lowered markup holds a pattern's words wherever the pattern
matches."""


_SHELL = re.compile(
    rb"""<(?:div|main|app-root)[^>]*\bid=["']?(?:root|app|__next|__nuxt|svelte|main-app|application)\b"""
    rb"|<app-root|data-reactroot|ng-version=|ng-app|__NEXT_DATA__|__NUXT__|data-server-rendered"
    rb"|<noscript[^>]*>[^<]{0,200}\b(?:enable|requires?|needs?)\s+javascript",
    re.IGNORECASE,
)
"""A framework's marks on a page: an app's mount point, its attributes and state, a noscript asking
for JavaScript."""
_SCRIPT = re.compile(rb"<script\b([^>]*)>", re.IGNORECASE)
_SCRIPT_TYPE = re.compile(rb"""\btype\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
_RUNNABLE = frozenset(
    {
        b"",
        b"module",
        b"text/javascript",
        b"application/javascript",
        b"text/ecmascript",
        b"application/ecmascript",
    }
)


def javascript_shell(body: bytes) -> bool:
    """Whether ``body`` shows a framework's marks (a page with little content besides is built by
    its scripts)."""
    return _SHELL.search(body) is not None


def has_scripts(body: bytes) -> bool:
    """Whether an HTML page has a script a browser runs (one without renders to the page it is, so
    is never rendered): a script element with no type or a JavaScript one, not JSON-LD or a
    template."""
    for found in _SCRIPT.finditer(body):
        kind = _SCRIPT_TYPE.search(found.group(1))
        if kind is None or kind.group(1).strip(b"\"' ").lower() in _RUNNABLE:
            return True
    return False


def feeds(tree: Any, page_url: str) -> list[AnnouncedFeed]:
    """The RSS, Atom and JSON feeds a page at ``page_url`` announces with <link rel="alternate"> in
    its head (no guessed paths), resolved against its base URL.

    Only an http(s) address other than the page's own is a feed: javascript: and data: links, and an
    empty or fragment-only href (the page itself), are not. A JSON link counts when it is typed
    application/feed+json, or application/json with a title or an address that says feed:
    WordPress's application/json link to its REST API is no feed."""
    base, page = document_base(tree, page_url), urldefrag(page_url).url
    found: dict[str, AnnouncedFeed] = {}
    for node in tree.css('head link[rel~="alternate"][href]'):
        media_type = (node.attributes.get("type") or "").split(";")[0].strip().lower()
        href = (node.attributes.get("href") or "").strip()
        url = urljoin(base, href)
        if not href or urlsplit(url).scheme not in {"http", "https"} or urldefrag(url).url == page:
            continue
        title = " ".join(sanitize(node.attributes.get("title") or "").split())
        kind = _FEED_TYPES.get(media_type)
        if media_type == "application/json" and _names_a_feed(title, urlsplit(url).path):
            kind = "json"
        if kind is None:
            continue
        found.setdefault(url, AnnouncedFeed(url, kind, title[:200] or None))
    return list(found.values())


def _names_a_feed(title: str, path: str) -> bool:
    """Whether a link typed plain application/json is a JSON Feed (older ones were announced so)
    rather than an API route (WordPress announces its REST route for every page so): its title or
    its path says feed."""
    return "/wp-json/" not in path and ("feed" in title.lower() or "feed" in path.lower())


def bot_wall(status: int, headers: Mapping[str, str], markup: str) -> list[str]:
    """Signs that the answer is a challenge or block page rather than the content asked for."""
    head = markup[:20_000]
    # A pattern scanned case-blind tries every position; a plain search for its words runs at memory
    # speed. Only a pattern one of whose words is there is searched: where none is, the pattern
    # cannot match.
    folded = (head if head.isascii() else head.translate(_CASE_TWINS)).lower()
    signals = [
        name
        for name, pattern, words in _WALL_MARKUP
        if any(word in folded for word in words) and pattern.search(head)
    ]
    if headers.get("cf-mitigated", "").lower() == "challenge":
        signals.append("cloudflare-challenge-header")
    if status in {403, 429, 503} and headers.get("server", "").lower() in {
        "cloudflare",
        "akamaighost",
        "ddos-guard",
    }:
        signals.append(f"{headers['server'].lower()}-{status}")
    return sorted(set(signals))


_SURFACES = tuple(name for name, _, _ in _WALL_MARKUP)


def blocked_surface(signals: list[str]) -> str | None:
    """The interstitial ``signals`` (from ``bot_wall``) point to, by name: a vendor's own page first
    (its markup names it), then what the headers say; None when nothing was seen."""
    if not signals:
        return None
    named = [signal for signal in _SURFACES if signal in signals]
    return named[0] if named else signals[0]


@dataclass(frozen=True, slots=True)
class ItemGroup:
    """Alike siblings that each hold a link: a listing's items."""

    parent: Any
    tag: str
    classes: tuple[str, ...]
    nodes: tuple[Any, ...]


def item_groups(tree: Any, minimum: int = 3) -> list[ItemGroup]:
    """Groups of at least ``minimum`` alike siblings (same tag and classes) holding links, largest
    first.

    Groups inside navigation, headers, footers and asides are left out: they are the site's
    menus and related-link lists, not what the page lists."""
    groups: list[ItemGroup] = []
    linked = with_ancestors(tree.css("a[href]"))
    in_chrome: dict[int, bool] = {}
    for parent in tree.css("ul, ol, div, section, main, tbody, body"):
        if _in_page_chrome(parent, in_chrome):
            continue
        shapes: dict[tuple[str, tuple[str, ...]], list[Any]] = {}
        child = parent.child
        while child is not None:
            if child.mem_id in linked:
                classes = tuple(sorted((child.attributes.get("class") or "").split()))
                shapes.setdefault((child.tag, classes), []).append(child)
            child = child.next
        for (tag, classes), nodes in shapes.items():
            if len(nodes) >= minimum:
                groups.append(ItemGroup(parent, tag, classes, tuple(nodes)))
    # Largest first; among equals, the one carrying more text (articles beat menus). Groups nest (a
    # listing's items can hold listings): their text is measured once, not once per group holding
    # it.
    length = TextMeasure((node for group in groups for node in group.nodes), len, operator.add, 0)
    return sorted(groups, key=lambda g: (-len(g.nodes), -sum(length(n) for n in g.nodes)))


def group_selector(group: ItemGroup, tree: Any) -> str | None:
    """A CSS selector that finds exactly the group's items: the parent's path, then tag and
    classes."""
    item = group.tag + "".join(f".{css_ident(c)}" for c in group.classes if css_ident(c) == c)
    node, path = group.parent, list[str]()
    for _ in range(4):
        if node is None or node.tag in {"html", "-undef"}:
            break
        path.insert(0, node_selector(node))
        selector = " > ".join([*path, item])
        if len(tree.css(selector)) == len(group.nodes):
            return selector
        node = node.parent
    return None


def node_selector(node: Any) -> str:
    ident = node.attributes.get("id")
    if ident and css_ident(ident) == ident:
        return f"{node.tag}#{ident}"
    classes = [c for c in (node.attributes.get("class") or "").split() if css_ident(c) == c][:3]
    return str(node.tag) + "".join(f".{c}" for c in classes)


def css_ident(value: str) -> str:
    """``value`` as a CSS identifier can hold it without escapes (empty when it starts with a
    digit)."""
    return (
        "".join(ch for ch in value if ch.isalnum() or ch in "-_")
        if value and not value[0].isdigit()
        else ""
    )


def _in_page_chrome(node: Any, known: dict[int, bool]) -> bool:
    """Inside navigation, a header, a footer or an aside: menus and link lists, not the page's
    items. ``known`` keeps every answer found on the way up, so a page nested thousands deep is
    climbed once."""
    path: list[int] = []
    inside = False
    while node is not None:
        if node.mem_id in known:
            inside = known[node.mem_id]
            break
        if node.tag in {"nav", "header", "footer", "aside"}:
            inside = True
            break
        path.append(node.mem_id)
        node = node.parent
    for key in path:
        known[key] = inside
    return inside


@dataclass(frozen=True, slots=True)
class ItemCounts:
    articles: int = 0
    """<article> elements on the page."""
    repeated_items: int = 0
    """The largest group of alike siblings that each hold a link (0 if none)."""


def candidate_items(tree: Any, groups: list[ItemGroup] | None = None) -> ItemCounts:
    """How many articles the page marks up, and the largest group of alike siblings that each hold a
    link (of ``groups``, the page's item groups, when they are known already)."""
    groups = item_groups(tree) if groups is None else groups
    return ItemCounts(len(tree.css("article")), len(groups[0].nodes) if groups else 0)


SST_STRIPPED = ("script", "style", "noscript", "iframe", "svg")
"""What html2rss's simplified semantic tree (SST) leaves out of a page, with everything inside."""


@dataclass(frozen=True, slots=True)
class TreeBuilt:
    """How the simplified semantic tree was built (html2rss's sst_stats)."""

    elements: int
    """Elements parsed."""
    stripped: int
    """Elements left out (SST_STRIPPED and what they hold)."""
    text_chars: int
    links: int


@dataclass(frozen=True, slots=True)
class Segments:
    """The tree's candidate segments: its item groups."""

    segments: int
    cards: int
    """Items in all the groups."""
    largest: int


@dataclass(frozen=True, slots=True)
class SemanticTree:
    node_count: int
    degraded: bool
    """It nests deeper than netglean reads as blocks."""
    segment_stats: Segments


def semantic_tree(
    tree: Any, groups: list[ItemGroup], deepest: int
) -> tuple[TreeBuilt, SemanticTree]:
    """The page as html2rss's simplified semantic tree sees it (its elements without SST_STRIPPED):
    how it was built (sst_stats: elements parsed and stripped, the tree's visible text and links)
    and the tree (node_count; degraded when it nests deeper than ``deepest`` levels, where netglean
    reads on as plain text; segment_stats: its candidate segments, ``groups``, the item groups of
    its linked alike siblings). It strips the tree: the last look at it."""
    segments = Segments(
        segments=len(groups),
        cards=sum(len(group.nodes) for group in groups),
        largest=len(groups[0].nodes) if groups else 0,
    )
    parsed = len(tree.css("*"))
    tree.strip_tags(list(SST_STRIPPED), recursive=True)
    kept = len(tree.css("*"))
    depth: dict[int, int] = {}
    for node in tree.root.traverse() if tree.root is not None else ():
        depth[node.mem_id] = depth.get(node.parent.mem_id, 0) + 1 if node.parent is not None else 1
    text = tree.body.text(separator=" ") if tree.body is not None else ""
    built = TreeBuilt(
        elements=parsed,
        stripped=parsed - kept,
        text_chars=len(" ".join(text.split())),
        links=len(tree.css("a[href]")),
    )
    return built, SemanticTree(
        node_count=kept,
        degraded=max(depth.values(), default=0) > deepest,
        segment_stats=segments,
    )
