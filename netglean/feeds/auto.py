"""Items without a config (html2rss's auto_source), and a draft config from a page (capture).

Detectors, in the order their answers are trusted: schema.org JSON-LD (ItemList and
article types), JSON state embedded by Next.js/Nuxt, semantic HTML <article> elements,
the most frequent repeated structure that holds links, and sitemap documents. Their items
are merged and de-duplicated by URL.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from netglean.core.untrusted import sanitize
from netglean.feeds import steps as feed_steps
from netglean.feeds.hints import AUTHOR, BYLINE, TAGS, MarkupHints
from netglean.feeds.items import item_id, strip_code
from netglean.feeds.selectors import lexbor_selector
from netglean.read.html_tree import document_base, script_json
from netglean.read.page_meta import JSON_LD
from netglean.read.page_signals import css_ident, group_selector, item_groups

Scraper = Literal["schema", "json_state", "semantic_html", "html", "sitemap"]
SCRAPERS: tuple[Scraper, ...] = ("schema", "json_state", "semantic_html", "html", "sitemap")
_ARTICLE_TYPES = {
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "TechArticle",
    "Event",
    "JobPosting",
    "Product",
}
_TITLE_KEYS = ("title", "headline", "name")
_URL_KEYS = ("url", "href", "link", "permalink", "slug", "path")
_DATE_KEYS = (
    "datePublished",
    "published_at",
    "publishedAt",
    "date",
    "pubDate",
    "createdAt",
    "created_at",
)
_DESCRIPTION_KEYS = ("description", "excerpt", "summary", "teaser", "abstract")


def auto_items(
    tree: Any,
    page_url: str,
    auto_source: Mapping[str, Any] | None = None,
    time_zone: str = "UTC",
    *,
    drops: Counter[str] | None = None,
    found_by: list[Scraper] | None = None,
) -> list[dict[str, Any]]:
    """The page's items as the detectors find them, cleaned up; what cleanup left out is counted in
    ``drops``, and the detectors that found candidates are named in ``found_by`` (html2rss's scraper
    eligibility)."""
    scrapers = (auto_source or {}).get("scraper") or {}
    cleanup = (auto_source or {}).get("cleanup") or {}
    found: list[dict[str, Any]] = []
    hints = MarkupHints(tree)  # its first query comes after strip_code, the one change to the tree
    # links resolve as the page's do; cleanup still compares with the page
    base = document_base(tree, page_url)
    for name in SCRAPERS:
        if (scrapers.get(name) or {}).get("enabled", True) is False:
            continue
        before = len(found)
        if name == "schema":
            found += _schema(tree, base, time_zone)
        elif name == "json_state":
            found += _json_state(tree, base, time_zone)
        elif name == "semantic_html":
            strip_code(tree)  # the JSON detectors above read scripts; the markup detectors must not
            found += _from_nodes(hints, tree.css("article"), base, time_zone)
        elif name == "html":
            options = scrapers.get("html") or {}
            groups = item_groups(tree, options.get("minimum_selector_frequency", 3))
            for group in groups[: options.get("use_top_selectors", 1)]:
                found += _from_nodes(hints, group.nodes, base, time_zone)
        elif name == "sitemap":
            found += _sitemap(tree, base, time_zone)
        if found_by is not None and len(found) > before:
            found_by.append(name)
    return _cleanup(found, page_url, cleanup, Counter() if drops is None else drops)


def _cleanup(
    items: list[dict[str, Any]], page_url: str, cleanup: Mapping[str, Any], drops: Counter[str]
) -> list[dict[str, Any]]:
    """One item per URL (the first detector's wins), own-site links only unless asked, titles long
    enough; each candidate left out is counted in ``drops`` under why
    (catalog/schemas/AdmissionDrops.yaml names them)."""
    keep_other_domains = bool(cleanup.get("keep_different_domain", False))
    min_words = int(cleanup.get("min_words_title", 2))
    home = urlsplit(page_url).hostname or ""
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    for item in items:
        url, title = item["url"], item["title"]
        host = urlsplit(url).hostname or home
        if not url:
            drops["no_link"] += 1
        elif not title:
            drops["no_title"] += 1
        elif url in seen:
            drops["duplicate"] += 1
        elif url.rstrip("/") == page_url.rstrip("/"):
            drops["same_page"] += 1
        elif (
            not keep_other_domains
            and host != home
            and not host.endswith("." + home)
            and not home.endswith("." + host)
        ):
            drops["other_site"] += 1
        elif len(title.split()) < min_words:
            drops["short_title"] += 1
        else:
            seen.add(url)
            kept.append(item)
    return kept


_BY_WORDS = "by|von|par|por|di|door|af"
_BY = re.compile(rf"^(?:{_BY_WORDS})\s+", re.IGNORECASE)
"""A byline's lead word ("By Ana Ruiz"): not the author's name."""
_BY_RUBY = rf"^\s*(?i:{_BY_WORDS})\s+"
"""_BY as a drafted config writes it, for html2rss's gsub (a Ruby regular expression)."""


def _item(title: Any, url: Any, page_url: str, time_zone: str, **extra: Any) -> dict[str, Any]:
    """A candidate item: its title and absolute http(s) URL, "" for what it lacks (``_cleanup``
    counts those and leaves them out), then what else its source says."""
    title_text = " ".join(sanitize(str(title or "")).split())
    link = urljoin(page_url, str(url).strip()) if url else ""
    item: dict[str, Any] = {
        "title": title_text[:300],
        "url": link if link.startswith(("http://", "https://")) else "",
    }
    if not item["title"] or not item["url"]:
        return item
    description = extra.get("description")
    if isinstance(description, str) and description.strip():
        item["description"] = " ".join(sanitize(description).split())[:2000]
    published = extra.get("published")
    if isinstance(published, str) and published:
        stamp = feed_steps.parse_time(published, time_zone)
        if stamp is not None:
            item["published_at"] = stamp.isoformat()
    image = extra.get("image")
    if isinstance(image, str) and image:
        item["image"] = urljoin(page_url, image)
    author = extra.get("author")
    if isinstance(author, str) and author:
        item["author"] = _BY.sub("", " ".join(sanitize(author).split()))[:300]
    categories = extra.get("categories")
    if categories:
        item["categories"] = list(categories)
    item["id"] = item_id(link)
    return item


def _schema(tree: Any, page_url: str, time_zone: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for data in script_json(tree, JSON_LD, 2_000_000):
        for obj in (node for node in _walk(data) if isinstance(node, dict)):
            kinds = obj.get("@type")
            kinds = set(kinds) if isinstance(kinds, list) else {kinds}
            if "ListItem" in kinds:
                inner = obj.get("item")
                target: dict[str, Any] = inner if isinstance(inner, dict) else obj
                entry = _item(
                    target.get("name") or target.get("headline"),
                    target.get("url") or obj.get("url"),
                    page_url,
                    time_zone,
                )
            elif kinds & _ARTICLE_TYPES:
                entry = _item(
                    obj.get("headline") or obj.get("name"),
                    obj.get("url") or obj.get("mainEntityOfPage"),
                    page_url,
                    time_zone,
                    description=obj.get("description"),
                    published=obj.get("datePublished"),
                    image=_first_url(obj.get("image")),
                    author=_name(obj.get("author")),
                )
            else:
                continue
            found.append(entry)
    return found


def _json_state(tree: Any, page_url: str, time_zone: str) -> list[dict[str, Any]]:
    """Lists of objects that look like articles inside __NEXT_DATA__ / Nuxt state scripts."""
    found: list[dict[str, Any]] = []
    for data in script_json(
        tree,
        "script#__NEXT_DATA__, script#__NUXT_DATA__, script[type='application/json']",
        5_000_000,
    ):
        for array in (node for node in _walk(data) if isinstance(node, list)):
            rows = [row for row in array if isinstance(row, dict)]
            if len(rows) < 3:
                continue
            for row in rows:
                title = next((row[k] for k in _TITLE_KEYS if isinstance(row.get(k), str)), None)
                url = next((row[k] for k in _URL_KEYS if isinstance(row.get(k), str)), None)
                if title is None or url is None:
                    # a row without both is some other state (a menu, settings), not a candidate
                    # item
                    continue
                entry = _item(
                    title,
                    url,
                    page_url,
                    time_zone,
                    description=next(
                        (row[k] for k in _DESCRIPTION_KEYS if isinstance(row.get(k), str)), None
                    ),
                    published=next(
                        (row[k] for k in _DATE_KEYS if isinstance(row.get(k), str)), None
                    ),
                )
                found.append(entry)
    return found


def _from_nodes(
    hints: MarkupHints, nodes: Any, page_url: str, time_zone: str
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for node in nodes:
        href = hints.hint(node, "url")
        if not href:
            # a candidate without a link: counted, left out
            found.append(_item(None, None, page_url, time_zone))
            continue
        entry = _item(
            hints.hint(node, "title"),
            href,
            page_url,
            time_zone,
            description=hints.hint(node, "description"),
            published=hints.hint(node, "published_at"),
            image=hints.hint(node, "image"),
            author=hints.hint(node, "author"),
            categories=hints.categories(node),
        )
        found.append(entry)
    return found


def _sitemap(tree: Any, page_url: str, time_zone: str) -> list[dict[str, Any]]:
    """A sitemap document's pages (the last path segment stands in for a title)."""
    found: list[dict[str, Any]] = []
    for node in tree.css("urlset > url"):
        loc = node.css_first("loc")
        if loc is None:
            continue
        url = loc.text(deep=True).strip()
        slug = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1].replace("-", " ").replace("_", " ")
        lastmod = node.css_first("lastmod")
        entry = _item(
            slug or url,
            url,
            page_url,
            time_zone,
            published=lastmod.text(deep=True).strip() if lastmod is not None else None,
        )
        found.append(entry)
    return found


def _walk(data: Any, depth: int = 0) -> Iterator[Any]:
    """Every object and array inside a JSON value, outermost first, at most 12 levels down."""
    if depth > 12 or not isinstance(data, dict | list):
        return
    yield data
    for value in data.values() if isinstance(data, dict) else data:
        yield from _walk(value, depth + 1)


def _first_url(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return _first_url(value[0])
    if isinstance(value, dict):
        return _first_url(value.get("url"))
    return None


def _name(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return _name(value[0])
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return str(value["name"])
    return None


def draft_config(
    tree: Any, page_url: str, title: str | None, language: str | None
) -> tuple[dict[str, Any], int] | None:
    """A config for the page's best listing (its repeated structure), and how many items it finds;
    None if none."""
    for group in item_groups(tree):
        selector = group_selector(group, tree)
        if selector is None:
            continue
        config = _draft(
            page_url, title, language, {"items": {"selector": selector, "enhance": True}}
        )
        config["selectors"].update(_field_selectors(group.nodes))
        return config, len(tree.css(selector))
    return None


def hinted_config(
    tree: Any, page_url: str, items_selector: str, title: str | None, language: str | None
) -> dict[str, Any]:
    """A config whose items are what ``items_selector`` (checked, in html2rss's CSS) finds, its
    field selectors read off those items; only the items selector (and enhance) when it finds
    none."""
    config = _draft(
        page_url, title, language, {"items": {"selector": items_selector, "enhance": True}}
    )
    nodes = tuple(tree.css(lexbor_selector(items_selector)))
    if nodes:
        config["selectors"].update(_field_selectors(nodes))
    return config


def auto_source_config(page_url: str, title: str | None, language: str | None) -> dict[str, Any]:
    """A config that leaves finding the items to detection (auto_source): the draft of a page
    without a repeated structure to write selectors for."""
    config = _draft(page_url, title, language, None)
    config["auto_source"] = {}
    return config


def _draft(
    page_url: str, title: str | None, language: str | None, selectors: dict[str, Any] | None
) -> dict[str, Any]:
    channel: dict[str, Any] = {"url": page_url, "time_zone": "UTC", "ttl": 360}
    if title:
        channel["title"] = title
    if language:
        channel["language"] = language
    return (
        {"channel": channel, "selectors": selectors}
        if selectors is not None
        else {"channel": channel}
    )


def _field_selectors(items: tuple[Any, ...]) -> dict[str, Any]:
    """Field selectors read off the first item: heading or link text for the title, the link, date,
    image, summary. A title's text is every element its selector finds (as html2rss reads it), so
    the title takes the first candidate that finds one element in each of the first items: a
    heading, the first link's classes, any link."""
    item = items[0]
    fields: dict[str, Any] = {}
    link = "a[href]" if item.tag != "a" else None
    candidates = [h for h in ("h1", "h2", "h3", "h4", "h5", "h6") if item.css_first(h) is not None]
    if link is not None and (first := item.css_first(link)) is not None:
        classes = "".join(
            f".{c}" for c in (first.attributes.get("class") or "").split() if css_ident(c) == c
        )
        candidates += [f"a{classes}[href]", link] if classes else [link]
    sample = items[:10]
    title = next((c for c in candidates if all(len(node.css(c)) == 1 for node in sample)), None)
    title = title or (candidates[0] if candidates else None)
    fields["title"] = {"selector": title, "extractor": "text"} if title else {"extractor": "text"}
    fields["url"] = {"selector": link, "extractor": "href"} if link else {"extractor": "href"}
    if item.css_first("time[datetime]") is not None:
        fields["published_at"] = {
            "selector": "time[datetime]",
            "extractor": "attribute",
            "attribute": "datetime",
            "post_process": [{"name": "parse_time"}],
        }
    if item.css_first("img[src]") is not None:
        fields["image"] = {
            "selector": "img[src]",
            "extractor": "attribute",
            "attribute": "src",
            "post_process": [{"name": "parse_uri"}],
        }
    # A byline paragraph is the author's, never glued into the summary: the summary is named by its
    # own classes.
    summary = next((p for p in item.css("p") if not p.css_matches(BYLINE)), None)
    if summary is not None:
        fields["description"] = {"selector": _own_selector(summary, "p"), "extractor": "text"}
    if (byline := item.css_first(AUTHOR) or item.css_first(BYLINE)) is not None:
        # a classless <span itemprop=author> is named by AUTHOR, not the byline
        named = byline.css_matches(AUTHOR)
        fields["author"] = {
            "selector": _own_selector(byline, AUTHOR if named else BYLINE),
            "extractor": "text",
        }
        # "By Ana Ruiz": the feed names Ana Ruiz
        if _BY.match(byline.text(deep=True, separator=" ").strip()):
            fields["author"]["post_process"] = [
                {"name": "gsub", "pattern": _BY_RUBY, "replacement": ""}
            ]
    if tags := next((one for one in TAGS.split(", ") if item.css_first(one) is not None), None):
        fields["tags"] = {"selector": tags, "extractor": "text"}
        # html2rss: each element the tags selector finds is one category
        fields["categories"] = ["tags"]
    return fields


def _own_selector(node: Any, fallback: str) -> str:
    """The selector of ``node`` by its tag and classes (what the draft names it by), else
    ``fallback``."""
    classes = "".join(
        f".{c}" for c in (node.attributes.get("class") or "").split() if css_ident(c) == c
    )
    return f"{node.tag}{classes}" if classes else fallback
