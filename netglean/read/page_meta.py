"""What a web page says about itself: title, description, language, canonical URL, site, author,
dates, OpenGraph properties and JSON-LD objects. All of it is third-party text: sanitised and
bounded.

Where a page says a thing several ways, the order of preference is Readability's (Firefox Reader
View's, so a page written for it reads the same here): the page's JSON-LD article first, then Dublin
Core, OpenGraph, the plain meta names, Twitter's and Parse.ly's; the <title> element last."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from netglean.core.untrusted import sanitize
from netglean.read.html_tree import document_base, script_json

JSON_LD = 'script[type="application/ld+json"]'
"""Where a page keeps its JSON-LD."""
_PROPERTY = re.compile(
    r"\s*(article|dc|dcterm|og|twitter)\s*:\s*(author|creator|description|published_time|title|site_name)\s*",
    re.I,
)
"""A meta property naming a field; one property attribute may hold several, separated by spaces."""
_NAME = re.compile(
    r"^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(?:article|webpage))\s*[-.:]\s*)?"
    r"(author|creator|pub-date|description|title|site_name)\s*$",
    re.I,
)
"""A meta name naming a field ("DC.creator", "parsely-author", "twitter:title")."""
_ARTICLE_TYPES = frozenset(
    "Article AdvertiserContentArticle NewsArticle AnalysisNewsArticle AskPublicNewsArticle "
    "BackgroundNewsArticle OpinionNewsArticle ReportageNewsArticle ReviewNewsArticle Report "
    "SatiricalArticle ScholarlyArticle MedicalScholarlyArticle SocialMediaPosting BlogPosting "
    "LiveBlogPosting DiscussionForumPosting TechArticle APIReference".split()
)
"""schema.org types whose JSON-LD describes the page's article."""
_PREFERRED = {
    "title": ("dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title",
              "title", "twitter:title", "parsely-title"),
    "author": ("dc:creator", "dcterm:creator", "author", "parsely-author"),
    "description": ("dc:description", "dcterm:description", "og:description",
                    "weibo:article:description", "weibo:webpage:description", "description",
                    "twitter:description"),
    "site_name": ("og:site_name",),
    "published": ("article:published_time", "parsely-pub-date"),
}  # fmt: skip
"""Each field's meta keys, in order of preference."""


def _clean(value: str | None, limit: int = 500) -> str | None:
    if not value:
        return None
    text = " ".join(sanitize(value).split())
    return text[:limit] or None


@dataclass(frozen=True, slots=True)
class PageMeta:
    """What a page says about itself; a field is None (or empty) when the page does not say it."""

    title: str | None = None
    description: str | None = None
    language: str | None = None
    canonical: str | None = None
    site_name: str | None = None
    author: str | None = None
    published: str | None = None
    opengraph: dict[str, str] = dataclasses.field(default_factory=dict)
    json_ld: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def page_metadata(tree: Any, page_url: str) -> PageMeta:
    """The page's own description of itself (its canonical URL resolved against its base URL)."""
    base_url = document_base(tree, page_url)
    # a field's meta key ("og:title", "author") -> the first non-empty content
    metas: dict[str, str] = {}
    for node in tree.css("meta"):
        content = node.attributes.get("content")
        if not content:
            continue
        prop, name = node.attributes.get("property"), node.attributes.get("name")
        for match in _PROPERTY.finditer(prop or ""):
            metas.setdefault(f"{match[1]}:{match[2]}".lower(), content)
        if name and _NAME.match(name):
            metas.setdefault("".join(name.split()).lower().replace(".", ":"), content)
        if name and name.strip().lower() in {"date", "pubdate", "datepublished"}:
            metas.setdefault(name.strip().lower(), content)

    def meta(field: str) -> str | None:
        return next((metas[key] for key in _PREFERRED[field] if metas.get(key)), None)

    time_node = tree.css_first("time[datetime]")
    title_node = tree.css_first("title")
    canonical = tree.css_first('link[rel="canonical"]')
    html_node = tree.css_first("html")
    json_ld = _json_ld(tree)
    article = _article(json_ld, title_node.text() if title_node else None)
    article_author = metas.get("article:author")
    return PageMeta(
        title=_clean(
            article.get("title") or meta("title") or (title_node.text() if title_node else None)
        ),
        description=_clean(article.get("description") or meta("description"), 1000),
        language=_clean(html_node.attributes.get("lang") if html_node else None, 35),
        canonical=_clean(
            urljoin(base_url, canonical.attributes.get("href") or "") if canonical else None, 2048
        ),
        site_name=_clean(article.get("site_name") or meta("site_name")),
        author=_clean(
            article.get("author")
            or meta("author")
            or (article_author if article_author and not _is_url(article_author) else None)
        ),
        published=_clean(
            _publication_date(meta("published"), article.get("published"))
            or next(
                (metas[key] for key in ("datepublished", "date", "pubdate") if metas.get(key)), None
            )
            or next(
                (
                    item["datePublished"]
                    for item in json_ld
                    if isinstance(item.get("datePublished"), str)
                ),
                None,
            )
            or (time_node.attributes.get("datetime") if time_node else None),
            64,
        ),
        opengraph=_opengraph(tree),
        json_ld=json_ld,
    )


def _publication_date(declared: str | None, described: str | None) -> str | None:
    """The JSON-LD article's date before the meta tag's (Readability's order), unless the meta tag
    says the same date more precisely (with the time of day)."""
    if declared and described and declared.strip().startswith(described.strip()):
        return declared
    return described or declared


_LEAD = re.compile(
    r"^(?:(?:written|posted|published|reported|story|words|text|photos?|reporting)\s+)?"
    r"(?:by|von|par|por|door|av)(?:\s*:\s*|\s+|$)",
    re.IGNORECASE,
)
"""A byline's lead words ("By", "Posted by:", "Par"): not the author's name."""
_SEPARATOR = re.compile(r"\s*[|•·]\s*|\s+[-–—]\s+")
_MONTH = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day,?",
    re.IGNORECASE,
)
_AFTER_NAME = frozenset("on at am um le el il op updated published posted last date dated".split())
"""Words that join a name to the date after it ("Jane Doe on 28 November"), or say a date comes."""


def byline(text: str) -> str | None:
    """The author's name a byline read from the page's markup gives (the page's own metadata names
    nobody): its first line once the lead words are gone, up to a separator or the date; None when
    it names nobody ("Updated 28 November 2026")."""
    for line in sanitize(text).splitlines():
        name = _LEAD.sub("", " ".join(line.split()), count=1)
        if name:
            break
    else:
        return None
    name = _SEPARATOR.split(name, maxsplit=1)[0]
    # a date: the name ends before it and its month
    if (digit := re.search(r"\d", name)) is not None:
        words = name[: digit.start()].split()
        while words and _MONTH.fullmatch(words[-1]):
            words.pop()
        name = " ".join(words)
    words = name.rstrip(" ,;:-–—").split()
    while words and words[-1].lower().strip(",;:") in _AFTER_NAME:
        words.pop()
    return _clean(" ".join(words).rstrip(" ,;:-–—"), 200)


def _is_url(text: str) -> bool:
    parts = urlsplit(text.strip())
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def _article(json_ld: list[dict[str, Any]], page_title: str | None) -> dict[str, str]:
    """What the page's schema.org article object says: title, author(s), description, site,
    publication date."""
    for item in json_ld:
        kinds = item.get("@type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if not any(isinstance(kind, str) and kind in _ARTICLE_TYPES for kind in kinds):
            continue
        found: dict[str, str] = {}
        name, headline = item.get("name"), item.get("headline")
        titles = [
            value.strip() for value in (name, headline) if isinstance(value, str) and value.strip()
        ]
        if titles:
            # Both given and different: the one nearer the page's <title> names the article, the
            # other a section.
            found["title"] = max(titles, key=lambda title: _overlap(title, page_title or ""))
        author = _names(item.get("author"))
        if author:
            found["author"] = author
        for key, field in (("description", "description"), ("datePublished", "published")):
            if isinstance(item.get(key), str) and item[key].strip():
                found[field] = item[key]
        publisher = item.get("publisher")
        if isinstance(publisher, dict) and isinstance(publisher.get("name"), str):
            found["site_name"] = publisher["name"]
        return found
    return {}


def _names(value: Any) -> str | None:
    """A JSON-LD author as text: a person's name, or several joined with commas."""
    people = value if isinstance(value, list) else [value]
    names = [
        p["name"].strip() for p in people if isinstance(p, dict) and isinstance(p.get("name"), str)
    ]
    names = [name for name in names if name]
    return ", ".join(names) if names else None


def _overlap(text: str, other: str) -> float:
    words, others = set(text.lower().split()), set(other.lower().split())
    return len(words & others) / len(words | others) if words | others else 0.0


def _opengraph(tree: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in tree.css('meta[property^="og:"]'):
        key = _clean((node.attributes.get("property") or "")[3:1024], 64)
        value = _clean(node.attributes.get("content"), 1000)
        if key and value and key not in found and len(found) < 40:
            found[key] = value
    return found


def _json_ld(tree: Any, limit: int = 10) -> list[dict[str, Any]]:
    """The page's JSON-LD objects (top level and @graph members), at most ``limit``; broken blocks
    are skipped."""
    found: list[dict[str, Any]] = []
    for data in script_json(tree, JSON_LD, 200_000):
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                graph = item.get("@graph")
                found.extend(
                    g for g in (graph if isinstance(graph, list) else [item]) if isinstance(g, dict)
                )
    return found[:limit]
