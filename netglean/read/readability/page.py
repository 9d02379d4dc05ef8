"""The page as the checks see it: read once from the evidence (one parse of its HTML), its kind and core facts.

Everything here is bounded whatever the page does: JSON-LD is walked to MAX_LD_DEPTH levels and MAX_LD_NODES
objects, texts are folded and searched within fixed windows, and lists are cut short, so a hostile page (a
JSON-LD bomb, a 2 MiB page, a million links) costs work in proportion to its size and never deep recursion.
"""

from __future__ import annotations

import bisect
import html as html_entities
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from netglean.read.document import HTML_TYPES, MARKDOWN_TYPES
from netglean.read.extract import Block, extract
from netglean.read.html_tree import parse_html
from netglean.read.page_meta import page_metadata
from netglean.read.page_signals import bot_wall, item_groups, javascript_shell
from netglean.read.readability.evidence import Evidence, Probe, media_type
from netglean.read.reading import walled
from netglean.read.render import render

MAX_LD_DEPTH = 12
"""Deepest JSON-LD nesting the checks read (real pages nest a handful of levels)."""
MAX_LD_NODES = 2_000
"""JSON-LD objects read at most, all blocks together: a page listing a million offers is read for its first."""
READ_WINDOW = 262_144
"""Characters of what the agent receives in which facts are located: past the last step of first_fact_offset."""
_TAG = re.compile(r"<[^>]{0,4096}>")
_LINE = re.compile(r"\n")
SHELL_WINDOW = 65_536
"""Characters of the HTML searched for a framework's marks (a mount point, its state: near the top of a shell)."""
VALUE_CHARS = 200
"""Longest page-derived value kept as a check's evidence."""

TEXT_TYPES = MARKDOWN_TYPES | {"text/plain"}

KIND_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    ("product", frozenset({"Product", "ProductGroup", "ProductModel", "IndividualProduct", "Car", "Vehicle"})),
    ("faq", frozenset({"FAQPage", "QAPage"})),
    (
        "article",
        frozenset(
            "Article NewsArticle BlogPosting Report ScholarlyArticle OpinionNewsArticle ReviewNewsArticle "
            "AnalysisNewsArticle ReportageNewsArticle LiveBlogPosting SocialMediaPosting SatiricalArticle "
            "DiscussionForumPosting".split()
        ),
    ),
    (
        "place",
        frozenset(
            "Place LocalBusiness Restaurant Store Hotel LodgingBusiness FoodEstablishment CafeOrCoffeeShop BarOrPub "
            "Bakery Museum TouristAttraction MedicalClinic Dentist Physician AutoRepair HairSalon HealthClub "
            "LandmarksOrHistoricalBuildings Library Park ShoppingCenter".split()
        ),
    ),
    ("service", frozenset({"Service", "GovernmentService", "FinancialProduct", "BroadcastService", "TaxiService"})),
    ("collection", frozenset({"ItemList", "CollectionPage", "OfferCatalog", "SearchResultsPage", "ProductCollection"})),
    ("document", frozenset({"TechArticle", "APIReference", "HowTo", "Dataset", "DigitalDocument"})),
)
"""schema.org types by the kind they make a page, in order of precedence: a product page lists related
products (an ItemList) and is still a product page. A bare WebPage says nothing of the kind: the page's shape
decides."""
OG_KINDS = {
    "product": "product",
    "product.item": "product",
    "og:product": "product",
    "article": "article",
    "business.business": "place",
    "place": "place",
    "restaurant.restaurant": "place",
}
CORE_FACTS: dict[str, tuple[str, ...]] = {
    "product": ("name", "price", "currency", "availability", "description", "image", "identifier"),
    "collection": ("name", "items", "description"),
    "article": ("headline", "author", "date", "body", "description"),
    "place": ("name", "address", "telephone", "opening_hours", "description"),
    "service": ("name", "description", "provider", "price"),
    "faq": ("title", "questions", "answers"),
    "document": ("title", "body", "headings"),
    "unknown": ("title", "description", "body"),
}
"""The facts an agent comes to each kind of page for (the catalog's page_kinds repeat them; a test pins both)."""
IDENTITY_FACTS = frozenset({"name", "headline", "title", "description", "image"})
"""Facts every page states in its head: where the first of the others comes is what first_fact_offset measures."""

_CURRENCY_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "₽": "RUB"}
# Amounts start where a run of digits does and stay short, so a page of digits is searched in linear time.
_PRICE = re.compile(
    r"(?:([$€£¥₹₩₽])\s?(\d[\d.,]{0,18}\d|\d)|(?<![\d.,])(\d[\d.,]{0,18}\d|\d)\s?(€|\$|£|USD|EUR|GBP|CHF|JPY|CAD|AUD)\b)"
)
_STOCK = re.compile(r"\b(in stock|out of stock|sold out|available now|pre-?order|backorder)\b", re.I)
_PHONE = re.compile(r"\+?\d[\d ()./-]{7,}\d")
_HOURS = re.compile(
    r"\b(mon|tue|wed|thu|fri|sat|sun)[a-z]{0,7}\.?\s{0,3}(?:-|–|to)?\s{0,3}(mon|tue|wed|thu|fri|sat|sun)?"
    r"[^\n]{0,12}?\d{1,2}[:.h]\d{2}",
    re.I,
)
_CART = re.compile(r"add to (cart|basket|bag)|buy now|in den warenkorb|ajouter au panier", re.I)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def fold(text: str) -> str:
    """Text as facts are looked for in it: lower case, each run of blanks one space."""
    return " ".join(text.lower().split())


def ok(probe: Probe | None) -> bool:
    """Whether a probe got an answer worth reading: 2xx, no failure."""
    return probe is not None and probe["error"] is None and probe["status"] is not None and 200 <= probe["status"] < 300


def clip(value: Any) -> str:
    return " ".join(str(value).split())[:VALUE_CHARS]


@dataclass(frozen=True, slots=True)
class AgentText:
    """The text of the head (READ_WINDOW) of what the agent received, as facts are looked for in it (tags dropped,
    entities decoded, folded), and where each piece of it stands in the answer as received: a fact's offset is
    what the agent reads before it, markup, scripts and styles included."""

    text: str
    starts: tuple[int, ...]
    """Where each piece begins in ``text``."""
    origins: tuple[int, ...]
    """Where each piece begins in the answer."""

    @classmethod
    def of(cls, body: str, *, markup: bool) -> AgentText:
        head = body[:READ_WINDOW]
        pieces: list[str] = []
        starts: list[int] = []
        origins: list[int] = []
        length = position = 0
        for cut in [*(_TAG if markup else _LINE).finditer(head), None]:
            end = cut.start() if cut is not None else len(head)
            segment = head[position:end]
            words = (html_entities.unescape(segment) if markup and "&" in segment else segment).split()
            if words:
                piece = " ".join(words).lower()
                starts.append(length)
                origins.append(position + len(segment) - len(segment.lstrip()))
                pieces.append(piece)
                length += len(piece) + 1
            position = cut.end() if cut is not None else end
        return cls(" ".join(pieces), tuple(starts), tuple(origins))

    def offset(self, needle: str) -> int | None:
        """Where ``needle`` first appears in the answer (characters), or None."""
        at = self.text.find(needle)
        if at < 0:
            return None
        piece = bisect.bisect_right(self.starts, at) - 1
        return self.origins[piece] + at - self.starts[piece]


@dataclass(frozen=True, slots=True)
class Fact:
    """A core fact the page states: where it was read, what it says, and the strings that find it in a text."""

    id: str
    source: str
    """json_ld, meta, microdata or text."""
    value: str
    needles: tuple[str, ...]


@dataclass(slots=True)
class Page:
    """What the checks read of one scan's evidence."""

    url: str
    html_probe: Probe | None
    """The answer the page's HTML is read from: the browser probe's, else the agent probe's when that is HTML."""
    agent: Probe | None
    """The agent probe, when its answer is usable (2xx, no bot wall)."""
    received: Probe | None
    """The answer an agent works from: the agent probe's when usable, else the browser probe's."""
    agent_type: str
    agent_text: AgentText
    representation: str | None
    """A machine representation of the page, folded: the agent probe's markdown or plain text, else the declared
    alternate's; None when there is none."""
    metadata: dict[str, Any] = field(default_factory=dict)
    ld_nodes: list[dict[str, Any]] = field(default_factory=list)
    ld_types: list[str] = field(default_factory=list)
    microdata_types: list[str] = field(default_factory=list)
    microdata: dict[str, str] = field(default_factory=dict)
    """The first value of each itemprop (facts are read from it when no JSON-LD states them)."""
    links: list[dict[str, str]] = field(default_factory=list)
    """<link> elements of the page's head: rel, type, href (at most 200)."""
    visible: str = ""
    """The folded visible text of the page (scripts and styles left out)."""
    main_blocks: list[Block] = field(default_factory=list)
    main_text: str = ""
    shell: bool = False
    item_count: int = 0
    first_item: str | None = None
    """The text of the first link of the page's largest group of linked alike siblings."""
    terms: int = 0
    """Terms the page defines in description lists (dl > dt), outside navigation and footers."""
    kind: str = "unknown"
    facts: dict[str, Fact] = field(default_factory=dict)


def probe_problem(probe: Probe) -> str | None:
    """What is wrong with a page probe's answer, as an unscored reason id, or None when it is usable (2xx, and
    not a bot wall by the rule every netglean tool applies: netglean.read.reading.walled)."""
    error = probe["error"]
    if error is not None:
        return {"too_many_redirects": "too_many_redirects", "too_large": "truncated_evidence"}.get(
            error["code"], "unreachable"
        )
    status = probe["status"]
    if status is None:
        return "unreachable"
    signals = bot_wall(status, probe["headers"], probe["body"])
    if walled(signals, status, probe["body"], probe["final_url"] or probe["url"]):
        return "blocked_at_edge"
    return None if 200 <= status < 300 else "non_2xx"


def read_page(evidence: Evidence, agent: Probe | None, browser: Probe | None) -> Page:
    """The page of a scored scan (``agent`` and ``browser``: its probes whose answers are usable, else None): its
    HTML parsed once, metadata and JSON-LD read before extraction prunes it."""
    html_probe = next((p for p in (browser, agent) if p is not None and media_type(p) in HTML_TYPES | {""}), None)
    markup = html_probe["body"] if html_probe is not None else ""
    agent_type = media_type(agent)
    received = AgentText.of(agent["body"] if agent is not None else "", markup=agent_type not in TEXT_TYPES)
    alternate = evidence["alternate"]
    representation = None
    if agent_type in TEXT_TYPES:
        representation = fold(agent["body"] if agent is not None else "")
    elif ok(alternate) and alternate is not None and media_type(alternate) in TEXT_TYPES | {""}:
        representation = fold(alternate["body"])
    page = Page(
        evidence["url"],
        html_probe,
        agent,
        agent or browser,
        agent_type,
        received,
        representation,
    )
    if markup:
        _read_markup(page, markup)
    elif representation is not None:  # no HTML: the representation is all there is to read
        page.visible = page.main_text = representation
    page.kind = _kind(page)
    page.facts = _facts(page)
    return page


def _read_markup(page: Page, markup: str) -> None:
    url = (page.html_probe["final_url"] if page.html_probe is not None else None) or page.url
    tree = parse_html(markup)
    page.metadata = page_metadata(tree, url)
    page.ld_nodes = ld_nodes(page.metadata.get("json_ld", []))
    page.ld_types = sorted({kind for node in page.ld_nodes for kind in types_of(node)})
    page.microdata_types = sorted(
        {
            (node.attributes.get("itemtype") or "").rstrip("/").rsplit("/", 1)[-1]
            for node in tree.css("[itemtype]")[:200]
        }
        - {""}
    )
    for node in tree.css("head link[rel]")[:200]:
        attrs = node.attributes
        page.links.append({k: (attrs.get(k) or "").strip() for k in ("rel", "type", "href")})
    groups = item_groups(tree)
    if groups:
        page.item_count = len(groups[0].nodes)
        link = groups[0].nodes[0].css_first("a[href]")
        page.first_item = clip(link.text(deep=True)) if link is not None else None
    page.terms = sum(1 for node in tree.css("dl > dt")[:1_000] if not _in_chrome(node))
    page.shell = javascript_shell(markup[:SHELL_WINDOW].encode(errors="replace"))
    for node in tree.css("script, style, noscript, template"):
        node.decompose()
    body = tree.body
    page.visible = fold(body.text(deep=True, separator=" ") if body is not None else "")
    _microdata(page, tree)
    extraction = extract(tree, url, main_content=True)
    page.main_blocks = extraction.blocks
    page.main_text = render(extraction, "markdown")


def _microdata(page: Page, tree: Any) -> None:
    """The itemprop values facts are read from when no JSON-LD states them (first of each, at most 200 read)."""
    for node in tree.css("[itemprop]")[:200]:
        attributes = node.attributes
        if "itemscope" in attributes:  # an item, not a value
            continue
        name = (attributes.get("itemprop") or "").strip()
        value = attributes.get("content") or attributes.get("href") or node.text(deep=False).strip() or node.text()
        if name and value and name not in page.microdata:
            page.microdata[name] = clip(value)


def _in_chrome(node: Any) -> bool:
    for _ in range(64):
        node = node.parent
        if node is None:
            return False
        if node.tag in {"nav", "footer", "header", "aside"}:
            return True
    return False


def ld_nodes(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every JSON-LD object of the page, breadth first, at most MAX_LD_NODES, none deeper than MAX_LD_DEPTH."""
    found: list[dict[str, Any]] = []
    queue: list[tuple[Any, int]] = [(block, 1) for block in blocks]
    head = 0
    while head < len(queue) and len(found) < MAX_LD_NODES:
        value, depth = queue[head]
        head += 1
        if isinstance(value, dict):
            found.append(value)
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth < MAX_LD_DEPTH and len(queue) < MAX_LD_NODES * 4:
            queue.extend(
                (child, depth + 1) for child in list(children)[:MAX_LD_NODES] if isinstance(child, dict | list)
            )
    return found


def types_of(node: Mapping[str, Any]) -> list[str]:
    kinds = node.get("@type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return [kind.rsplit("/", 1)[-1] for kind in kinds[:10] if isinstance(kind, str)]


def main_item(page: Page, kind: str) -> dict[str, Any] | None:
    """The JSON-LD object that describes the page as its kind (the first of the kind's types)."""
    wanted = dict(KIND_TYPES).get(kind, frozenset())
    return next((node for node in page.ld_nodes if wanted.intersection(types_of(node))), None)


def _kind(page: Page) -> str:
    for kind, schema_types in KIND_TYPES:
        if schema_types.intersection(page.ld_types):
            return kind
    og = page.metadata.get("opengraph", {}).get("type", "").strip().lower()
    if og in OG_KINDS:
        return OG_KINDS[og]
    for kind, schema_types in KIND_TYPES:
        if schema_types.intersection(page.microdata_types):
            return kind
    return _shape(page)


def _shape(page: Page) -> str:
    """A kind from the page's shape, when it declares none."""
    text, blocks = page.main_text, page.main_blocks
    questions = sum(1 for b in blocks if b.kind == "heading" and b.text.rstrip().endswith("?"))
    if questions >= 3:
        return "faq"
    if _PRICE.search(page.visible[:50_000]) and _CART.search(page.visible[:200_000]):
        return "product"
    if page.metadata.get("published") and len(text) >= 1_500:
        return "article"
    if page.item_count >= 6 and len(text) < 3_000:
        return "collection"
    if sum(1 for b in blocks if b.kind == "heading") >= 3 and any(b.kind == "code" for b in blocks):
        return "document"
    return "unknown"


def _ld_text(value: Any, *keys: str) -> str | None:
    """A JSON-LD value as text: a string or number, or the first of ``keys`` of an object (or of a list's first)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        return next((t for key in keys if (t := _ld_text(value.get(key))) is not None), None) if keys else None
    if isinstance(value, bool) or value is None:
        return None
    text = clip(value)
    return text or None


def _offer(item: Mapping[str, Any] | None) -> dict[str, Any]:
    offers = item.get("offers") if item else None
    if isinstance(offers, list):
        offers = offers[0] if offers else None
    return offers if isinstance(offers, dict) else {}


def _facts(page: Page) -> dict[str, Fact]:
    """The kind's core facts the page states, each from the best place it says it."""
    item = main_item(page, page.kind) or {}
    meta, og = page.metadata, page.metadata.get("opengraph", {})
    micro = page.microdata
    offer = _offer(item)
    found: dict[str, Fact] = {}

    def put(fact: str, candidates: list[tuple[str, str | None]], *extra: str) -> None:
        for source, value in candidates:
            if value:
                text = clip(value)
                found[fact] = Fact(fact, source, text, tuple(n for n in (fold(text)[:60], *extra) if n))
                return

    heading = next((b.text for b in page.main_blocks if b.kind == "heading"), None)
    for fact in CORE_FACTS[page.kind]:
        if fact in {"name", "title", "headline"}:
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("headline" if fact == "headline" else "name"))),
                    ("json_ld", _ld_text(item.get("name"))),
                    ("meta", meta.get("title")),
                    ("microdata", micro.get("name")),
                    ("text", heading),
                ],
            )
        elif fact == "description":
            put(fact, [("json_ld", _ld_text(item.get("description"))), ("meta", meta.get("description"))])
        elif fact == "image":
            put(fact, [("json_ld", _ld_text(item.get("image"), "url", "contentUrl")), ("meta", og.get("image"))])
        elif fact == "price":
            _price(page, put, offer, og, micro)
        elif fact == "currency":
            _currency(page, put, offer, og, micro)
        elif fact == "availability":
            _availability(page, put, offer, og, micro)
        elif fact == "identifier":
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get(key), "name"))
                    for key in ("brand", "sku", "gtin", "gtin13", "gtin12", "gtin8", "mpn")
                ]
                + [("microdata", micro.get(k)) for k in ("brand", "sku", "gtin13")],
            )
        elif fact == "author":
            put(fact, [("json_ld", _ld_text(item.get("author"), "name")), ("meta", meta.get("author"))])
        elif fact == "date":
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("datePublished"))),
                    ("json_ld", _ld_text(item.get("dateModified"))),
                    ("meta", meta.get("published")),
                ],
            )
        elif fact == "body":
            _body(page, put)
        elif fact == "headings":
            headings = [b.text for b in page.main_blocks if b.kind == "heading"]
            put(fact, [("text", headings[0] if len(headings) >= 2 else None)])
        elif fact == "items":
            _items(page, put, item)
        elif fact == "address":
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("address"), "streetAddress", "addressLocality")),
                    ("microdata", micro.get("streetAddress") or micro.get("address")),
                ],
            )
        elif fact == "telephone":
            phone = _PHONE.search(page.main_text)
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("telephone"))),
                    ("microdata", micro.get("telephone")),
                    ("text", phone.group(0) if phone else None),
                ],
            )
        elif fact == "opening_hours":
            hours = _HOURS.search(page.main_text[:50_000])
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("openingHours"))),
                    ("json_ld", "declared" if item.get("openingHoursSpecification") else None),
                    ("microdata", micro.get("openingHours")),
                    ("text", hours.group(0) if hours else None),
                ],
            )
        elif fact == "provider":
            put(
                fact,
                [
                    ("json_ld", _ld_text(item.get("provider"), "name")),
                    ("json_ld", _ld_text(item.get("brand"), "name")),
                    ("meta", meta.get("site_name")),
                ],
            )
        elif fact in {"questions", "answers"}:
            _faq(page, put, fact, item)
    return found


Put = Callable[..., None]
"""_facts' put(fact, candidates, *extra_needles): the first candidate with a value states the fact."""


def _price(page: Page, put: Put, offer: Mapping[str, Any], og: Mapping[str, str], micro: Mapping[str, str]) -> None:
    seen = _PRICE.search(page.main_text[:50_000]) or _PRICE.search(page.visible[:50_000])
    put(
        "price",
        [
            ("json_ld", _ld_text(offer.get("price"))),
            ("json_ld", _ld_text(offer.get("lowPrice"))),
            ("meta", og.get("price:amount")),
            ("microdata", micro.get("price")),
            ("text", (seen.group(2) or seen.group(3)) if seen else None),
        ],
    )


def _currency(page: Page, put: Put, offer: Mapping[str, Any], og: Mapping[str, str], micro: Mapping[str, str]) -> None:
    seen = _PRICE.search(page.main_text[:50_000]) or _PRICE.search(page.visible[:50_000])
    sign = (seen.group(1) or seen.group(4)) if seen else None
    code = _ld_text(offer.get("priceCurrency")) or og.get("price:currency") or micro.get("priceCurrency")
    signs = [s for s, c in _CURRENCY_SIGNS.items() if code and c == code.upper()]
    put(
        "currency",
        [("json_ld" if offer.get("priceCurrency") else "meta", code), ("text", _CURRENCY_SIGNS.get(sign or "", sign))],
        *signs,
    )


def _availability(
    page: Page, put: Put, offer: Mapping[str, Any], og: Mapping[str, str], micro: Mapping[str, str]
) -> None:
    declared = _ld_text(offer.get("availability")) or og.get("availability") or micro.get("availability")
    token = declared.rstrip("/").rsplit("/", 1)[-1] if declared else None
    words = fold(_CAMEL.sub(" ", token)) if token else ""
    seen = _STOCK.search(page.main_text[:50_000]) or _STOCK.search(page.visible[:50_000])
    put(
        "availability",
        [("json_ld" if offer.get("availability") else "meta", token), ("text", seen.group(0) if seen else None)],
        words,
    )


def _body(page: Page, put: Put) -> None:
    paragraphs = [b.text for b in page.main_blocks if b.kind == "paragraph" and len(b.text) >= 40]
    chars = sum(len(b.text) for b in page.main_blocks if b.kind in {"paragraph", "list", "quote", "code", "table"})
    if chars >= 500 and paragraphs:
        put("body", [("text", " ".join(paragraphs[0].split()[:6]))])


def _items(page: Page, put: Put, item: Mapping[str, Any]) -> None:
    """Three or more items: the JSON-LD list's first one by name, else the page's largest group of linked alike
    siblings (found by its first link's text)."""
    listed = item.get("itemListElement") or item.get("hasPart") or item.get("mainEntity")
    declared = _ld_text(listed, "name", "url") if isinstance(listed, list) and len(listed) >= 3 else None
    put("items", [("json_ld", declared), ("text", page.first_item if page.item_count >= 3 else None)])


def _faq(page: Page, put: Put, fact: str, item: Mapping[str, Any]) -> None:
    entities = item.get("mainEntity")
    questions = [e for e in (entities if isinstance(entities, list) else [entities])[:100] if isinstance(e, dict)]
    if fact == "questions":
        asked = [b.text for b in page.main_blocks if b.kind == "heading" and b.text.rstrip().endswith("?")]
        put(
            fact,
            [
                ("json_ld", _ld_text(questions[0].get("name")) if questions else None),
                ("text", asked[0] if asked else None),
            ],
        )
    else:
        answer = _ld_text(questions[0].get("acceptedAnswer"), "text") if questions else None
        blocks = page.main_blocks
        first = next((i for i, b in enumerate(blocks) if b.kind == "heading" and b.text.rstrip().endswith("?")), None)
        after = blocks[first + 1] if first is not None and first + 1 < len(blocks) else None
        shown = after.text if after is not None and after.kind == "paragraph" else None
        put(
            fact,
            [
                ("json_ld", " ".join(answer.split()[:6]) if answer else None),
                ("text", " ".join(shown.split()[:6]) if shown else None),
            ],
        )
