"""The html2rss post-processing steps, applied in order to one field's value.

Values are strings until parse_time, which leaves an aware datetime (shown to later steps as
RFC 822, the text html2rss's parse_time leaves). Steps that cannot work on a value leave None,
which ends the chain: one odd item never fails a feed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urljoin, urlsplit
from zoneinfo import ZoneInfo

from netglean.read.patterns import (
    MAX_VALUE_CHARS,
    Allowance,
    ruby_regex,
    ruby_replacement,
    substitute,
)

Value = str | datetime | None

TEMPLATE_REFERENCE = re.compile(r"%<(\w+)>s|%\{(\w+)\}")
_SAFE_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del", "details",
    "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small",
    "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
    "time", "tr", "u", "ul", "var", "video", "audio", "source", "picture",
}  # fmt: skip
_SAFE_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height", "srcset"},
    "source": {"src", "srcset", "type", "media"},
    "video": {"src", "poster", "controls"},
    "audio": {"src", "controls"},
    "time": {"datetime"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "*": {"lang", "dir"},
}
_WHITESPACE = re.compile(r"[ \t\r\n\f\v]+")  # Ruby's \s: ASCII only, so a no-break space stays one
_URL_ATTRIBUTE = re.compile(r'\b(href|src|poster)="(?!https?://)([^"]*)"')


Work = Callable[[Value], Value]
Columns = Callable[[str], "list[Value] | None"]


def apply_column(
    steps: list[Mapping[str, Any]],
    values: list[Value],
    *,
    base_url: str,
    time_zone: str,
    columns: Columns,
    allowance: Allowance | None = None,
) -> list[Value]:
    """The steps over one field's values for every item: each step is prepared once (patterns
    compiled, zones found), not once per item. A value that is None when a step other than a
    template meets it ends its chain; ``columns`` gives the other fields a template names (None for
    a field there is none of). Every step's output spends ``allowance`` (a fresh page's when none is
    given)."""
    allowance = allowance or Allowance.for_page()
    ended: set[int] = set()
    for step in steps:
        # builds a value from other fields, even where this one is empty
        if step["name"] == "template":
            values = allowance.take(
                _template(step["string"], values, columns, ended, allowance.chars)
            )
            continue
        work = _STEPS[step["name"]](
            step, base_url=base_url, time_zone=time_zone, allowance=allowance
        )
        ended.update(n for n, value in enumerate(values) if value is None)
        values = allowance.take([None if value is None else work(value) for value in values])
    return values


def parse_time(raw: Value, time_zone: str) -> datetime | None:
    """A date as pages write it, made aware in ``time_zone`` when it names none; None when
    unreadable."""
    value = _read_time(raw, ZoneInfo(time_zone)) if raw else None
    return value if isinstance(value, datetime) else None


def text_of(value: Value) -> str:
    return rfc822(value) if isinstance(value, datetime) else (value or "")


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def rfc822(stamp: datetime) -> str:
    """RFC 822 date-time with a numeric zone (English names whatever the locale), as email.utils
    writes it."""
    offset = stamp.utcoffset()
    minutes = int(offset.total_seconds()) // 60 if offset is not None else 0
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return (
        f"{_DAYS[stamp.weekday()]}, {stamp.day:02d} {_MONTHS[stamp.month - 1]} {stamp.year:04d} "
        f"{stamp.hour:02d}:{stamp.minute:02d}:{stamp.second:02d} {sign}{hours:02d}{minutes:02d}"
    )


def _gsub(step: Mapping[str, Any], *, allowance: Allowance, **_: Any) -> Work:
    pattern = ruby_regex(step["pattern"])
    replacement = ruby_replacement(step["replacement"])

    def work(value: Value) -> Value:
        return substitute(pattern, replacement, text_of(value), allowance)

    return work


def _template(
    string: str, values: list[Value], columns: Columns, ended: set[int], room: int
) -> list[Value]:
    """``%<name>s`` and ``%{name}`` filled from each item's fields (``self`` is the value so far);
    once the values built pass ``room`` characters in all, the rest are not built."""
    # literal, then the two name groups and a literal, repeated
    pieces = TEMPLATE_REFERENCE.split(string)
    count = len(values)
    parts: list[list[str]] = []
    for k in range(0, len(pieces), 3):
        if pieces[k]:
            parts.append([pieces[k]] * count)
        if k + 1 < len(pieces):
            name = pieces[k + 1] or pieces[k + 2]
            column = values if name == "self" else columns(name)
            parts.append([""] * count if column is None else [text_of(value) for value in column])
    filled: list[Value] = []
    # a value past the cap is never built whole: its parts are cut first
    for texts in zip(*parts, strict=True):
        if room <= 0:
            filled.append(None)
            continue
        size = sum(map(len, texts))
        filled.append("".join(texts) if size <= MAX_VALUE_CHARS else _join_capped(texts))
        room -= min(size, MAX_VALUE_CHARS)
    filled = filled if parts else [""] * count
    for n in ended:
        filled[n] = None
    return filled


def _join_capped(texts: tuple[str, ...]) -> str:
    """The texts joined, up to MAX_VALUE_CHARS characters."""
    out, room = [], MAX_VALUE_CHARS
    for text in texts:
        out.append(text[:room])
        room -= len(out[-1])
        if not room:
            break
    return "".join(out)


def _substring(step: Mapping[str, Any], **_: Any) -> Work:
    """Ruby's ``value[start..end]``: both ends inclusive, negative ends count from the end."""
    start, end = step["start"], step.get("end", -1)

    def work(value: Value) -> Value:
        text = text_of(value)
        return text[start : len(text) + end + 1 if end < 0 else end + 1]

    return work


def _parse_time(step: Mapping[str, Any], *, time_zone: str, **_: Any) -> Work:
    zone = ZoneInfo(step.get("time_zone") or time_zone)
    return lambda value: _read_time(value, zone)


def _read_time(value: Value, zone: ZoneInfo) -> Value:
    if isinstance(value, datetime):
        return value
    # a date is short; a whole page handed to the fuzzy parser is not one
    text = text_of(value).strip()[:256]
    try:  # ISO 8601, the common case (datetime attributes, APIs), at C speed
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
        return parsed.replace(tzinfo=zone) if parsed.tzinfo is None else parsed
    except ValueError:
        pass
    from dateutil import parser

    try:
        today = datetime.now(zone).replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
        # missing parts: today, as Ruby's Time.parse
        parsed = parser.parse(text, fuzzy=True, default=today)
    except (ValueError, OverflowError):
        return None
    return parsed.replace(tzinfo=zone) if parsed.tzinfo is None else parsed


def _sanitize_html(step: Mapping[str, Any], *, base_url: str, **_: Any) -> Work:
    return lambda value: sanitize_html(text_of(value), base_url)


@functools.cache
def _cleaner() -> Any:
    """nh3's cleaner, built once: building its rules per call costs ten times the cleaning."""
    import nh3

    return nh3.Cleaner(
        tags=_SAFE_TAGS,
        attributes=_SAFE_ATTRIBUTES,
        link_rel="nofollow noopener noreferrer",
        url_schemes={"http", "https"},
    )


def _single_spaced(html: str) -> str:
    """ASCII whitespace runs made one space and the ends trimmed, as html2rss's sanitize_html leaves
    markup; the common case, nothing to change, is found by six scans at memory speed instead of a
    regex pass."""
    if "  " in html or "\n" in html or "\t" in html or "\r" in html or "\f" in html or "\v" in html:
        html = _WHITESPACE.sub(" ", html)
    return html.strip(" ")


def sanitize_html(markup: str, base_url: str) -> str:
    """Markup a feed reader can show safely: no scripts, styles, handlers or frames; URLs
    absolute."""
    clean = _single_spaced(_cleaner().clean(markup))
    # three scans beat one regex
    if "href=" not in clean and "src=" not in clean and "poster=" not in clean:
        return clean
    # nh3 keeps relative URLs (and writes every attribute double-quoted): make them absolute
    # afterwards, which costs far less than a Python callback for every attribute.
    return _URL_ATTRIBUTE.sub(
        lambda m: f'{m.group(1)}="{absolute_url(base_url, m.group(2))}"', clean
    )


def _html_to_markdown(step: Mapping[str, Any], *, base_url: str, **_: Any) -> Work:
    from netglean.read.extract import extract
    from netglean.read.html_tree import parse_html
    from netglean.read.render import render

    def work(value: Value) -> Value:
        tree = parse_html(f"<html><body>{text_of(value)}</body></html>")
        return render(extract(tree, base_url, main_content=False), "markdown")

    return work


def _markdown_to_html(step: Mapping[str, Any], *, base_url: str, **_: Any) -> Work:
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark")
    return lambda value: sanitize_html(markdown.render(text_of(value)), base_url)


def _parse_uri(step: Mapping[str, Any], *, base_url: str, **_: Any) -> Work:
    def work(value: Value) -> Value:
        url = absolute_url(base_url, text_of(value))
        return url if url.startswith(("http://", "https://")) else None

    return work


def absolute_url(base_url: str, url: str) -> str:
    """``url`` against ``base_url``; absolute http(s) URLs are taken as they are, without
    re-parsing."""
    url = url.strip()
    if url.startswith(("https://", "http://")):
        return url
    # root-relative
    if url.startswith("/") and not url.startswith("//") and "\\" not in url and "/." not in url:
        return _origin(base_url) + url
    return urljoin(base_url, url)


@functools.lru_cache(maxsize=64)
def _origin(base_url: str) -> str:
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


_STEPS: dict[str, Callable[..., Work]] = {
    "gsub": _gsub,
    "substring": _substring,
    "parse_time": _parse_time,
    "sanitize_html": _sanitize_html,
    "html_to_markdown": _html_to_markdown,
    "markdown_to_html": _markdown_to_html,
    "parse_uri": _parse_uri,
}
