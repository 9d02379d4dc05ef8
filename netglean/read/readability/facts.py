"""The facts a representation of a page states, as ARS reads them: each kind of fact from JSON-LD,
meta tags, microdata and the counted text (or, for markdown and plain text, from its lines),
normalised so that the same fact said twice compares equal, with the byte offset where it is said.

What is read, by source (ARS's tables, each pinned):

- JSON-LD: every typed node, each fact from the first of its properties that gives a value
  (JSON_LD_PATHS; ``name`` is an organisation's name on an organisation node and a title on any
  other).
- HTML: the first ``<title>`` and the first counted ``<h1>``; meta tags (META_KEYS); microdata
  itemprops (ITEMPROPS, ``content`` before ``datetime``, ``href`` and text); in each counted text,
  prices, "no published price" phrases, stock words, shipping/returns/area/eligibility words and
  "SKU: x"; ``tel:`` and ``mailto:`` links; links and forms whose words are an action (the
  ruleset's lexicon); the largest group of links outside navigation (items); opening hours (a day
  near a time); ``<address>``; a question and its answer (dt/dd, details/summary, a heading
  ending in "?" then a paragraph).
- Markdown and text: the first heading, ``Label: value`` lines (LABELS), prices, the same phrases,
  markdown links (an action, the items) and a heading ending in "?".

Presence facts (shipping, returns, hours...) normalise to "declared" from every source, so two
sources that word them differently still agree.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from netglean.read.readability.markup import SPACES, Markup, collapse
from netglean.read.readability.money import money_phrases, parse_money

JSON_LD_DEPTH = 12
"""Levels of a JSON-LD document walked (deeper nodes are not read)."""
JSON_LD_NODES = 20_000
"""Typed JSON-LD nodes read at most, all blocks together (a real page has a handful)."""
NORMALISED_CHARS = 200
"""Characters of a text fact kept."""
ACTION_CHARS = 64
"""Characters of a link's or form's words matched against the action lexicon."""
MIN_ITEMS = 3
"""Links a group needs to be a listing."""
DECLARED = "declared"
UNPRICED = "unpriced"

SOURCES = ("json_ld", "microdata", "meta", "html_text", "negotiated")
"""Where a fact is read, in the order that breaks a tie between two at the same offset."""
PRESENCE = frozenset(
    {"shipping", "returns", "hours", "service_area", "eligibility", "question_answer", "item_link"}
)
"""Facts that are only said or not: every source gives them the value "declared"."""

JSON_LD_PATHS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("title", ("name", "headline")),
    ("description", ("description", "abstract")),
    ("price", ("offers.price", "offers.lowPrice", "offers.priceSpecification.price", "price")),
    (
        "currency",
        ("offers.priceCurrency", "offers.priceSpecification.priceCurrency", "priceCurrency"),
    ),
    ("availability", ("offers.availability", "availability")),
    ("brand", ("brand",)),
    ("sku", ("sku", "mpn", "gtin13", "gtin")),
    ("shipping", ("offers.shippingDetails", "shippingDetails")),
    ("returns", ("offers.hasMerchantReturnPolicy", "hasMerchantReturnPolicy")),
    ("org_name", ("name",)),
    ("address", ("address",)),
    ("hours", ("openingHours", "openingHoursSpecification")),
    ("phone", ("telephone", "contactPoint.telephone")),
    ("email", ("email", "contactPoint.email")),
    ("service_area", ("areaServed", "serviceArea")),
    ("author", ("author",)),
    ("authority", ("publisher", "author")),
    ("section", ("articleSection", "genre")),
    ("published", ("datePublished", "dateCreated")),
    ("updated", ("dateModified",)),
    ("duration", ("duration", "timeRequired")),
    ("eligibility", ("eligibleCustomerType", "audience")),
    ("primary_action_url", ("potentialAction.target", "potentialAction.url")),
    ("question_answer", ("mainEntity.acceptedAnswer",)),
    ("item_count", ("numberOfItems",)),
    ("item_link", ("itemListElement.url", "itemListElement.item")),
)
ORGANISATIONS = frozenset(
    "Organization LocalBusiness Store Restaurant Corporation NGO GovernmentOrganization "
    "EducationalOrganization MedicalBusiness ProfessionalService FoodEstablishment LodgingBusiness "
    "AutomotiveBusiness HealthAndBeautyBusiness SportsActivityLocation Place".split()
)
"""Types whose ``name`` is an organisation's, not a page's title."""
META_KEYS = {
    "og:title": "title", "twitter:title": "title", "description": "description",
    "og:description": "description", "twitter:description": "description",
    "og:price:amount": "price", "product:price:amount": "price", "og:price:currency": "currency",
    "product:price:currency": "currency", "og:availability": "availability",
    "product:availability": "availability", "product:brand": "brand", "og:site_name": "org_name",
    "author": "author", "article:author": "author", "article:published_time": "published",
    "article:modified_time": "updated", "article:section": "section",
}  # fmt: skip
ITEMPROPS = {
    "name": "title", "price": "price", "pricecurrency": "currency", "availability": "availability",
    "brand": "brand", "sku": "sku", "description": "description", "telephone": "phone",
    "email": "email", "address": "address", "openinghours": "hours", "author": "author",
    "datepublished": "published", "datemodified": "updated", "articlesection": "section",
}  # fmt: skip
LABELS = {
    "price": "price", "cost": "price", "currency": "currency", "availability": "availability",
    "stock": "availability", "brand": "brand", "manufacturer": "brand", "sku": "sku",
    "item number": "sku", "product code": "sku", "mpn": "sku", "shipping": "shipping",
    "delivery": "shipping", "returns": "returns", "return policy": "returns", "refunds": "returns",
    "description": "description", "summary": "description", "updated": "updated",
    "last updated": "updated", "modified": "updated", "published": "published",
    "date published": "published", "author": "author", "written by": "author",
    "publisher": "authority", "organization": "org_name", "organisation": "org_name",
    "company": "org_name", "business": "org_name", "address": "address", "location": "address",
    "phone": "phone", "telephone": "phone", "tel": "phone", "email": "email", "e-mail": "email",
    "hours": "hours", "opening hours": "hours", "duration": "duration", "length": "duration",
    "eligibility": "eligibility", "requirements": "eligibility", "section": "section",
    "category": "section", "topic": "section", "service area": "service_area",
    "areas served": "service_area", "items": "item_count", "item count": "item_count",
}  # fmt: skip
"""``Label: value`` lines: the label (lower case, marks stripped) -> the fact it states."""
LABEL_CHARS = 32
"""A label ends within this many characters of its line's start."""
STOCK_TOKENS = (
    ("limitedavailability", "limited"), ("onlineonly", "instock"), ("instoreonly", "instock"),
    ("presale", "preorder"), ("preorder", "preorder"), ("backorder", "backorder"),
    ("discontinued", "discontinued"), ("soldout", "outofstock"), ("outofstock", "outofstock"),
    ("instock", "instock"),
)  # fmt: skip
"""Availability values (schema.org's and plain words, letters only) by how they end."""
STOCK_PHRASES = (
    ("limited availability", "limited"), ("limited stock", "limited"),
    ("currently unavailable", "outofstock"), ("temporarily unavailable", "outofstock"),
    ("out of stock", "outofstock"), ("discontinued", "discontinued"), ("back order", "backorder"),
    ("backorder", "backorder"), ("pre-order", "preorder"), ("preorder", "preorder"),
    ("sold out", "outofstock"), ("in stock", "instock"), ("available now", "instock"),
)  # fmt: skip
"""Stock words in a page's text, the first found in this order."""
NO_PRICE = (
    "price on request", "pricing on request", "price on application", "contact us for pricing",
    "contact for pricing", "contact us for a quote", "no published price",
    "pricing available on request",
)  # fmt: skip
"""Phrases that say there is no published price (which states the price fact honestly)."""
PRESENCE_PHRASES = (
    ("shipping", ("free shipping", "shipping", "ships in", "delivery", "ships free")),
    ("returns", ("return policy", "returns", "money-back", "money back", "refund")),
    ("service_area", ("areas served", "service area", "we serve", "serving")),
    ("eligibility", ("eligibility", "who can apply", "you must be", "requirements")),
)
DAYS = (
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue",
    "wed", "thu", "fri", "sat", "sun",
)  # fmt: skip
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
CHROME = frozenset({"nav", "header", "footer"})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
TITLE_CUTS = (" | ", " — ", " – ", " · ", " :: ", " » ")
"""A title is cut at the first of each (the site's name usually follows)."""

_SPACE = f"[{SPACES}]"
_CONTROLS = "".join(map(chr, range(0x21)))
_DATE_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DATE_SLASH = re.compile(r"([0-9]{4})/([0-9]{2})/([0-9]{2})")
_DATE_DAY_MONTH = re.compile(r"([0-9]{1,2}) ([A-Za-z]{3,9}) ([0-9]{4})\Z")
_DATE_MONTH_DAY = re.compile(r"([A-Za-z]{3,9}) ([0-9]{1,2}), ([0-9]{4})\Z")
_DURATION_ISO = re.compile(r"P(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?)?\Z")
_DURATION_WORDS = re.compile(
    rf"([0-9]{{1,4}}){_SPACE}?(min|mins|minute|minutes|h|hr|hrs|hour|hours)\b", re.I | re.A
)
_EMAIL = re.compile(rf"[^{SPACES}@]+@[^{SPACES}@]+\.[^{SPACES}@]+\Z")
_SKU = re.compile(rf"\bsku[:{SPACES}]+([A-Za-z0-9][A-Za-z0-9._-]{{2,31}})\b", re.I | re.A)
_CLOCK = re.compile(r"[0-9]{1,2}[:.][0-9]{2}|[0-9]{1,2}" + _SPACE + r"?(?:am|pm)")
_LINE = re.compile("[^\n\r\u2028\u2029]*")
_HASHES = re.compile(r"#{1,6}[ \t]")
_LINKED_HEADING = re.compile(r"\[([^\]]+)\]\([^)]*\)" + _SPACE + r"*\Z")
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]{1,120})\]\(([^)" + SPACES + r"]{1,500})\)")
_LABEL_MARKS = re.compile(rf"^[{SPACES}>*\-+#]+")
_VALUE_MARKS = re.compile(rf"^[{SPACES}*_`]+")


@dataclass(frozen=True, slots=True)
class Fact:
    kind: str
    value: str
    """Normalised: money as "USD 14800", dates as 2026-01-31, a title cut and lower case, a
    presence fact "declared"."""
    source: str
    offset: int
    """UTF-8 byte offset where it is said in its representation."""
    qualified: bool = False
    """A bound or a range's lower end (never compared for parity)."""


@dataclass(frozen=True, slots=True)
class Merged:
    """A fact of the page: the earliest statement of it in what the agent received."""

    kind: str
    value: str
    source: str
    offset: int
    corroborated: bool
    """Stated with this value by two or more sources (in either representation)."""


@dataclass(frozen=True, slots=True)
class Node:
    """A typed JSON-LD object, wherever it was nested."""

    types: tuple[str, ...]
    value: dict[str, Any]
    offset: int


@dataclass(frozen=True, slots=True)
class JsonLd:
    nodes: tuple[Node, ...]
    blocks: int
    parsed: int


@dataclass(frozen=True, slots=True)
class Reading:
    """How facts are read from a representation: the kinds wanted, where relative links resolve,
    the page's origin and its currency."""

    wanted: frozenset[str]
    base_url: str
    origin: str
    currency: str | None
    lexicon: frozenset[str]


# JSON-LD


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def json_ld(blocks: Sequence[tuple[str, int]]) -> JsonLd:
    """Every typed node of the blocks (text, offset), depth first; a block that is not JSON counts
    as a block but gives nothing."""
    nodes: list[Node] = []
    parsed = 0
    for text, offset in blocks:
        try:
            document = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            continue
        parsed += 1
        _walk(document, offset, 0, nodes)
    return JsonLd(tuple(nodes), len(blocks), parsed)


def _types(value: dict[str, Any]) -> tuple[str, ...]:
    declared = value.get("@type")
    listed = (
        [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    )
    return tuple(re.sub(r"^https?://schema\.org/", "", t) for t in listed if isinstance(t, str))


def _walk(value: Any, offset: int, depth: int, nodes: list[Node]) -> None:
    pending: list[tuple[Any, int]] = [(value, depth)]
    while pending and len(nodes) < JSON_LD_NODES:
        current, level = pending.pop()
        if level > JSON_LD_DEPTH:
            continue
        if isinstance(current, list):
            pending.extend((child, level + 1) for child in reversed(current))
        elif isinstance(current, dict):
            types = _types(current)
            if types:
                nodes.append(Node(types, current, offset))
            children = [child for key, child in current.items() if key != "@context"]
            pending.extend((child, level + 1) for child in reversed(children))


def _scalar(value: Any) -> str | None:
    """A JSON-LD value as one string: a text, a number as JavaScript writes it, a boolean, the first
    of a list's, an object's name, value, @id, url or headline."""
    if isinstance(value, str):
        trimmed = value.strip(SPACES)
        return trimmed or None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _js_number(value)
    if isinstance(value, list):
        return next((s for entry in value if (s := _scalar(entry)) is not None), None)
    if isinstance(value, dict):
        keys = ("name", "value", "@id", "url", "headline")
        return next((s for key in keys if (s := _scalar(value.get(key))) is not None), None)
    return None


def _js_number(value: float) -> str | None:
    """A number as JavaScript's String() writes it (39.0 is "39", 1e-7 is "1e-7")."""
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return None
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    written = repr(value)
    if "e" not in written:
        return written
    mantissa, exponent = written.split("e")
    power = int(exponent)
    if -7 < power < 21:
        return format(Decimal(written), "f")
    return f"{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"


def read_path(node: Node, path: str) -> str | None:
    """The first value at a dotted path of a node (``offers.price`` reads every offer), as a
    string."""
    frontier: list[Any] = [node.value]
    for key in path.split("."):
        following: list[Any] = []
        for current in frontier:
            if isinstance(current, list):
                following.extend(e[key] for e in current if isinstance(e, dict) and key in e)
            elif isinstance(current, dict) and key in current:
                following.append(current[key])
        frontier = following
        if not frontier:
            return None
    return next((s for found in frontier if (s := _scalar(found)) is not None), None)


# Normalising


def normalise_title(text: str) -> str:
    cut = collapse(text)
    for mark in TITLE_CUTS:
        at = cut.find(mark)
        if at > 0:
            cut = cut[:at]
    return cut.strip(SPACES).lower()


def normalise_text(text: str) -> str:
    return collapse(text).lower()[:NORMALISED_CHARS]


def normalise_date(text: str) -> str | None:
    text = text.strip(SPACES)
    for pattern in (_DATE_ISO, _DATE_SLASH):
        if (found := pattern.match(text)) is not None:
            return "-".join(found.groups())
    for pattern, day, month, year in ((_DATE_DAY_MONTH, 1, 2, 3), (_DATE_MONTH_DAY, 2, 1, 3)):
        found = pattern.match(text)
        name = found.group(month)[:3].lower() if found is not None else ""
        if found is not None and name in MONTHS:
            return f"{found.group(year)}-{MONTHS.index(name) + 1:02d}-{int(found.group(day)):02d}"
    return None


def normalise_stock(value: str) -> str | None:
    letters = re.sub("[^a-z]", "", value.lower())
    return next((token for end, token in STOCK_TOKENS if letters.endswith(end)), None)


def normalise_phone(value: str) -> str | None:
    value = value.strip(SPACES)
    digits = re.sub("[^0-9]", "", value)
    if not 7 <= len(digits) <= 15:
        return None
    return f"+{digits}" if value.startswith(("+", "tel:+")) else digits


def normalise_duration(value: str) -> str | None:
    """Minutes, from an ISO 8601 duration (P1DT2H30M) or "90 min", "2 hours"."""
    value = value.strip(SPACES)
    iso = _DURATION_ISO.match(value.upper())
    if iso is not None and any(part is not None for part in iso.groups()):
        days, hours, minutes = (int(part or 0) for part in iso.groups())
        total = days * 1440 + hours * 60 + minutes
        return str(total) if total > 0 else None
    spoken = _DURATION_WORDS.match(value)
    if spoken is not None:
        amount = int(spoken.group(1))
        total = amount * 60 if spoken.group(2).lower().startswith("h") else amount
        return str(total) if total > 0 else None
    return None


def absolute_url(href: str, base: str, *, fragment: bool = True) -> str | None:
    """``href`` resolved against ``base`` and written one way (scheme and host in lower case, no
    default port, a path of at least "/", unsafe characters escaped); None when it is no URL."""
    href = re.sub("[\t\n\r]", "", href.strip(_CONTROLS))
    try:
        joined = urljoin(base, href)
        parts = urlsplit(joined)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme:
        return None
    if scheme in {"http", "https"}:
        host = (parts.hostname or "").lower()
        if not host:
            return None
        if ":" in host:
            host = f"[{host}]"
        default = {"http": 80, "https": 443}[scheme]
        netloc = host if port is None or port == default else f"{host}:{port}"
        if parts.username is not None:
            credentials = parts.username + (
                f":{parts.password}" if parts.password is not None else ""
            )
            netloc = f"{credentials}@{netloc}"
        path = quote(parts.path or "/", safe="/%!$&'()*+,;=:@-._~[]\\^|")
        query = quote(parts.query, safe="/%!$&'()*+,;=:@-._~?[]\\^`{|}")
        return urlunsplit((scheme, netloc, path, query, parts.fragment if fragment else ""))
    return urlunsplit(
        (scheme, parts.netloc, parts.path, parts.query, parts.fragment if fragment else "")
    )


def origin_of(url: str) -> str:
    """scheme://host[:port] of an absolute URL ("" for none)."""
    absolute = absolute_url(url, url)
    if absolute is None:
        return ""
    parts = urlsplit(absolute)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def normalise(kind: str, raw: str, reading: Reading) -> tuple[str, bool] | None:
    """A value of ``kind`` as facts are compared: (value, qualified), or None when ``raw`` is
    none."""
    if kind in PRESENCE:
        return DECLARED, False
    if kind == "title":
        return (normalise_title(raw), False) if raw.strip(SPACES) else None
    if kind == "price":
        if any(phrase in raw.strip(SPACES).lower() for phrase in NO_PRICE):
            return UNPRICED, False
        money = parse_money(raw, reading.currency)
        return (f"{money.currency} {money.amount}", money.qualified) if money is not None else None
    if kind == "currency":
        code = raw.strip(SPACES).upper()
        return (code, False) if len(code) == 3 and code.isascii() and code.isalpha() else None
    value: str | None
    if kind == "availability":
        value = normalise_stock(raw)
    elif kind == "phone":
        value = normalise_phone(raw)
    elif kind == "email":
        address = re.sub("^mailto:", "", raw.strip(SPACES), flags=re.I).lower()
        value = address if _EMAIL.match(address) else None
    elif kind in {"published", "updated"}:
        value = normalise_date(raw)
    elif kind == "duration":
        value = normalise_duration(raw)
    elif kind == "item_count":
        digits = re.sub("[^0-9]", "", raw).lstrip("0")
        value = digits if digits else None
    elif kind == "primary_action_url":
        value = absolute_url(raw, reading.base_url)
    else:
        value = normalise_text(raw) if raw.strip(SPACES) else None
    return (value, False) if value is not None else None


# Reading facts


def read_facts(
    markup: Markup | None, body: str, nodes: Sequence[Node], reading: Reading
) -> list[Fact]:
    """The facts wanted that a representation states: from its JSON-LD ``nodes``, then from its
    ``markup`` when it is HTML, else from its ``body`` as markdown or text."""
    facts: list[Fact] = []

    def put(kind: str, raw: str, source: str, offset: int) -> bool:
        if kind not in reading.wanted:
            return False
        value = normalise(kind, raw, reading)
        if value is not None:
            facts.append(Fact(kind, value[0], source, offset, value[1]))
        return value is not None

    for node in nodes:
        organisation = not ORGANISATIONS.isdisjoint(node.types)
        for kind, paths in JSON_LD_PATHS:
            if (kind == "title" and organisation) or (kind == "org_name" and not organisation):
                continue
            if kind in reading.wanted:
                any(put(kind, raw, "json_ld", node.offset) for raw in _values(node, paths))
    if markup is not None:
        _from_markup(markup, reading, put, facts)
    else:
        _from_text(body, reading, put, facts)
    return facts


def add(facts: list[Fact], reading: Reading, fact: Fact) -> None:
    """``fact``, already normalised, kept when it is wanted."""
    if fact.kind in reading.wanted:
        facts.append(fact)


def _values(node: Node, paths: tuple[str, ...]) -> Iterator[str]:
    for path in paths:
        raw = read_path(node, path)
        if raw is not None:
            yield raw


Put = Callable[[str, str, str, int], bool]


def _from_markup(markup: Markup, reading: Reading, put: Put, facts: list[Fact]) -> None:
    elements = markup.elements
    title = next((i for i, e in enumerate(elements) if e.tag == "title"), None)
    if title is not None:
        put("title", markup.element_text(title), "html_text", elements[title].offset)
    heading = next(
        (i for i, e in enumerate(elements) if e.tag == "h1" and e.excluded is None), None
    )
    if heading is not None:
        put("title", markup.element_text(heading), "html_text", elements[heading].offset)
    for meta in markup.metas:
        kind = META_KEYS.get(meta.key or "")
        if meta.content is not None and kind is not None:
            put(kind, meta.content, "meta", meta.offset)
    for index, element in enumerate(elements):
        itemprop = element.attrs.get("itemprop")
        kind = ITEMPROPS.get(itemprop.lower()) if itemprop is not None else None
        if kind is not None:
            attrs = element.attrs
            raw = attrs.get("content", attrs.get("datetime", attrs.get("href")))
            put(
                kind,
                raw if raw is not None else markup.element_text(index),
                "microdata",
                element.offset,
            )
    _from_texts(markup, reading, put, facts)
    _from_links(markup, reading, put)
    _from_shapes(markup, put)


def _from_texts(markup: Markup, reading: Reading, put: Put, facts: list[Fact]) -> None:
    for text in markup.texts:
        if text.excluded is not None or not text.text.strip(SPACES):
            continue
        for phrase, _ in money_phrases(text.text):
            money = parse_money(phrase, reading.currency)
            if money is not None:
                priced = f"{money.currency} {money.amount}"
                add(
                    facts, reading, Fact("price", priced, "html_text", text.offset, money.qualified)
                )
                add(facts, reading, Fact("currency", money.currency, "html_text", text.offset))
        lowered = text.text.lower()
        if any(phrase in lowered for phrase in NO_PRICE):
            add(facts, reading, Fact("price", UNPRICED, "html_text", text.offset))
        stock = next((token for phrase, token in STOCK_PHRASES if phrase in lowered), None)
        if stock is not None:
            add(facts, reading, Fact("availability", stock, "html_text", text.offset))
        for kind, phrases in PRESENCE_PHRASES:
            if any(phrase in lowered for phrase in phrases):
                put(kind, DECLARED, "html_text", text.offset)
        sku = _SKU.search(text.text)
        if sku is not None:
            put("sku", sku.group(1), "html_text", text.offset)
    first = next((t.offset for t in markup.texts if t.excluded is None and t.text.strip(SPACES)), 0)
    for kind, value, _ in _labelled_lines(markup.counted_text()):
        put(kind, value, "html_text", first)


def _labelled_lines(text: str) -> Iterator[tuple[str, str, int]]:
    """``Label: value`` lines of ``text``: (fact, value, where its value starts)."""
    start = 0
    for line in text.split("\n"):
        colon = line.find(":")
        if 0 <= colon <= LABEL_CHARS:
            label = _LABEL_MARKS.sub("", line[:colon])
            label = re.sub("[*_`]", "", label).strip(SPACES).lower()
            value = _VALUE_MARKS.sub("", line[colon + 1 :]).strip(SPACES)
            if label in LABELS and value:
                yield LABELS[label], value, start + colon + 1
        start += len(line) + 1


def is_action(words: str, lexicon: frozenset[str]) -> bool:
    """Whether a link's or form's words are an action: a phrase of the lexicon, or start with one
    (whole words: "shop" is in "Shop now", not in "Workshop")."""
    split = collapse(words).lower().split(" ")
    return any(" ".join(split[:count]) in lexicon for count in range(1, min(len(split), 4) + 1))


def _from_links(markup: Markup, reading: Reading, put: Put) -> None:
    for index, element in enumerate(markup.elements):
        if element.excluded is not None:
            continue
        if element.tag == "a" and "href" in element.attrs:
            href = element.attrs["href"]
            if href.lower().startswith("tel:"):
                put("phone", href[4:], "html_text", element.offset)
            elif href.lower().startswith("mailto:"):
                put("email", href, "html_text", element.offset)
            elif is_action(
                markup.element_text(index, ACTION_CHARS)[:ACTION_CHARS], reading.lexicon
            ):
                put("primary_action_url", href, "html_text", element.offset)
        elif element.tag == "form" and "action" in element.attrs:
            words = markup.element_text(index, ACTION_CHARS)[:ACTION_CHARS]
            if is_action(words, reading.lexicon):
                put("primary_action_url", element.attrs["action"], "html_text", element.offset)
    count, offset, same_origin = largest_link_group(markup, reading.origin)
    if count:
        put("item_count", str(count), "html_text", offset)
        if same_origin:
            put("item_link", DECLARED, "html_text", offset)


def _in_chrome(markup: Markup, index: int) -> bool:
    for _ in range(64):
        if index < 0:
            return False
        element = markup.elements[index]
        role = element.attrs.get("role")
        if element.tag in CHROME or role in {"navigation", "banner"}:
            return True
        index = element.parent
    return False


def largest_link_group(markup: Markup, origin: str) -> tuple[int, int, bool]:
    """The listing of a page: links grouped by the element two levels up (a ``ul`` of ``li > a``),
    outside navigation, header and footer; the group with the most distinct URLs (the first of
    equals), if it has MIN_ITEMS. (count, its offset, whether half or more of them are on the
    page's origin), or (0, 0, False)."""
    groups: dict[int, tuple[set[str], list[int]]] = {}
    elements = markup.elements
    chrome: dict[int, bool] = {}
    for element in elements:
        href = element.attrs.get("href")
        if (
            element.tag != "a"
            or element.excluded is not None
            or href is None
            or href.startswith("#")
        ):
            continue
        parent = elements[element.parent] if element.parent >= 0 else None
        container = parent.parent if parent is not None and parent.parent >= 0 else element.parent
        if container < 0:
            continue
        if container not in chrome:
            chrome[container] = _in_chrome(markup, container)
        url = absolute_url(href, origin) if not chrome[container] else None
        if url is None:
            continue
        urls, same = groups.setdefault(container, (set(), [0]))
        if url not in urls:
            urls.add(url)
            same[0] += url.startswith(origin)
    best = (0, 0, False)
    for container, (urls, same) in groups.items():
        if len(urls) > best[0]:
            best = (len(urls), elements[container].offset, same[0] * 2 >= len(urls))
    return best if best[0] >= MIN_ITEMS else (0, 0, False)


def opening_hours(text: str) -> bool:
    """A day's name within 40 characters before a time (10:00, 9.30, 9am)."""
    lowered = text.lower()
    for day in DAYS:
        at = lowered.find(day)
        while at >= 0:
            if _CLOCK.search(lowered, at, at + 40):
                return True
            at = lowered.find(day, at + len(day))
    return False


def _from_shapes(markup: Markup, put: Put) -> None:
    hours = next((t for t in markup.texts if t.excluded is None and opening_hours(t.text)), None)
    if hours is not None:
        put("hours", DECLARED, "html_text", hours.offset)
    for index, element in enumerate(markup.elements):
        if element.tag == "address" and element.excluded is None:
            put("address", markup.element_text(index), "html_text", element.offset)
    answered = first_question_answer(markup)
    if answered is not None:
        put("question_answer", DECLARED, "html_text", answered)


def first_question_answer(markup: Markup) -> int | None:
    """Where the page first pairs a question with its answer: a dt then a dd, a details with its
    summary, or a heading ending in "?" and then a paragraph."""
    summaries = {e.parent for e in markup.elements if e.tag == "summary"}
    seen_term = asked = False
    for index, element in enumerate(markup.elements):
        if element.excluded is not None:
            continue
        if element.tag == "dt":
            seen_term = True
        elif element.tag == "dd" and seen_term:
            return element.offset
        elif element.tag == "details":
            if index in summaries:
                return element.offset
        elif element.tag in HEADINGS:
            asked = markup.element_text_end(index).endswith("?")
        elif element.tag == "p" and asked:
            return element.offset
    return None


def _headings(body: str, *, questions: bool = False) -> Iterator[Any]:
    """The markdown headings of ``body`` (a line of one to six '#' and a blank, lines ended as
    JavaScript ends them): (where, its text or None when it has none) or, for ``questions``, (where,
    its text, whether it ends in '?')."""
    at = 0
    while at <= len(body):
        line = _LINE.match(body, at).group(0)  # type: ignore[union-attr]
        hashes = _HASHES.match(line)
        if hashes is not None:
            rest = line[hashes.end() - 1 :]  # from the first blank
            text = rest.lstrip(" \t") or (rest[-1] if len(rest) >= 2 else None)
            if questions:
                kept = line.rstrip(" \t")
                yield at, text, kept.endswith("?") and len(kept) - 1 >= hashes.end()
            else:
                yield at, text
        at += len(line) + 1
        if at > len(body):
            break


def _from_text(body: str, reading: Reading, put: Put, facts: list[Fact]) -> None:
    """Facts of markdown or plain text; offsets are UTF-8 byte offsets into ``body``."""
    offsets = _ByteOffsets(body)
    heading = next(((at, text) for at, text in _headings(body) if text is not None), None)
    if heading is not None:
        linked = _LINKED_HEADING.match(heading[1].strip(SPACES))
        raw = linked.group(1) if linked is not None else heading[1]
        put("title", raw, "negotiated", offsets.at(heading[0]))
    for kind, raw, at in _labelled_lines(body):
        value = normalise(kind, raw, reading)
        if value is None:
            continue
        add(facts, reading, Fact(kind, value[0], "negotiated", offsets.at(at), value[1]))
        if kind == "price" and value[0] != UNPRICED:  # a labelled price states its currency too
            add(facts, reading, Fact("currency", value[0][:3], "negotiated", offsets.at(at)))
    for phrase, at in money_phrases(body):
        money = parse_money(phrase, reading.currency)
        if money is not None:
            priced = f"{money.currency} {money.amount}"
            add(
                facts, reading, Fact("price", priced, "negotiated", offsets.at(at), money.qualified)
            )
            add(facts, reading, Fact("currency", money.currency, "negotiated", offsets.at(at)))
    lowered = body.lower()
    if any(phrase in lowered for phrase in NO_PRICE):
        add(facts, reading, Fact("price", UNPRICED, "negotiated", 0))
    stock = next(((phrase, token) for phrase, token in STOCK_PHRASES if phrase in lowered), None)
    if stock is not None:
        at = offsets.at(lowered.find(stock[0]))
        add(facts, reading, Fact("availability", stock[1], "negotiated", at))
    for kind, phrases in PRESENCE_PHRASES:
        found = next((lowered.find(p) for p in phrases if p in lowered), None)
        if found is not None:
            put(kind, DECLARED, "negotiated", offsets.at(found))
    if opening_hours(body):
        put("hours", DECLARED, "negotiated", 0)
    items: dict[str, None] = {}
    first_item = 0
    for link in _MARKDOWN_LINK.finditer(body):
        url = absolute_url(link.group(2), reading.base_url)
        if url is None:
            continue
        if is_action(link.group(1), reading.lexicon):
            put("primary_action_url", link.group(2), "negotiated", offsets.at(link.start()))
        if url.startswith(reading.origin) and url not in items:
            first_item = first_item if items else offsets.at(link.start())
            items[url] = None
    if len(items) >= MIN_ITEMS:
        put("item_count", str(len(items)), "negotiated", first_item)
        put("item_link", DECLARED, "negotiated", first_item)
    question = next((at for at, _, asks in _headings(body, questions=True) if asks), None)
    if question is not None:
        put("question_answer", DECLARED, "negotiated", offsets.at(question))


class _ByteOffsets:
    """Character index -> UTF-8 byte offset of one text (any order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()

    def at(self, index: int) -> int:
        return index if self.ascii else len(self.text[:index].encode("utf-8", "surrogatepass"))


# Merging


def _earlier(a: Fact, b: Fact) -> bool:
    """Whether ``a`` is the better statement of a fact than ``b``: earlier, then by source, then by
    value."""
    return (a.offset, SOURCES.index(a.source), a.value) < (
        b.offset,
        SOURCES.index(b.source),
        b.value,
    )


def merge(agent: Sequence[Fact], html: Sequence[Fact]) -> list[Merged]:
    """The page's facts: each kind the agent's representation states, at its earliest statement,
    corroborated when two or more sources (of either representation) state the same value."""
    by_kind: dict[str, list[Fact]] = {}
    for fact in agent:
        by_kind.setdefault(fact.kind, []).append(fact)
    merged = []
    for kind, stated in by_kind.items():
        best = stated[0]
        for fact in stated[1:]:
            best = fact if _earlier(fact, best) else best
        sources = {f.source for f in (*stated, *html) if f.kind == kind and f.value == best.value}
        merged.append(Merged(kind, best.value, best.source, best.offset, len(sources) >= 2))
    return sorted(merged, key=lambda fact: (fact.offset, fact.kind))


@dataclass(frozen=True, slots=True)
class View:
    """One representation's facts for a comparison: the value it would give for each kind (the
    earliest, then the smallest), and every value it states; bounds and ranges left out."""

    given: dict[str, str] = field(default_factory=dict)
    stated: dict[str, set[str]] = field(default_factory=dict)


def view(facts: Sequence[Fact]) -> View:
    best: dict[str, Fact] = {}
    seen = View()
    for fact in facts:
        if fact.qualified:
            continue
        seen.stated.setdefault(fact.kind, set()).add(fact.value)
        current = best.get(fact.kind)
        if current is None or (fact.offset, fact.value) < (current.offset, current.value):
            best[fact.kind] = fact
    seen.given.update({kind: fact.value for kind, fact in best.items()})
    return seen


PARITY = ("price", "currency", "availability", "title")
"""The facts two representations are compared on (never a description or free text)."""


def differences(
    left: View, right: View, kinds: Sequence[str] = PARITY
) -> tuple[list[str], list[str]]:
    """(kinds compared, kinds that differ): compared when both state it; different when the value
    ``left`` gives is none of those ``right`` states."""
    compared = [kind for kind in kinds if kind in left.given and right.stated.get(kind)]
    return compared, [kind for kind in compared if left.given[kind] not in right.stated[kind]]
