"""What kind of page a page is, which decides the facts it is scored on: ARS's classifier, from
signals read before any fact (so the kind never depends on the facts it selects), plus one rule of
netglean's for the ordinary news page that declares nothing.

In order, the first that decides: a JSON-LD ``@type`` (the first, in the document's order, that
TYPES maps), a microdata ``itemtype``, an RDFa ``typeof``, ``og:type`` (OG_TYPES), a segment of the
URL's path (PATHS, kinds in that order), and opening hours with a telephone (a place). ARS stops
there (unknown); netglean then reads a page with a visible ``h1``, a byline and a publication date
as an article (ARTICLE_SHAPE), since a news story is one whatever its URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from netglean.read.readability.facts import JsonLd, Node, absolute_url, opening_hours
from netglean.read.readability.markup import SPACES, Markup
from netglean.read.readability.money import money_phrases, parse_money

TYPES: dict[str, str] = {
    **dict.fromkeys(
        "Product ProductGroup ProductModel IndividualProduct SomeProducts Vehicle Car Book "
        "SoftwareApplication MobileApplication WebApplication".split(),
        "product",
    ),
    **dict.fromkeys("CollectionPage ItemList OfferCatalog SearchResultsPage".split(), "collection"),
    **dict.fromkeys(
        "Article NewsArticle BlogPosting TechArticle ScholarlyArticle ReportageNewsArticle "
        "LiveBlogPosting Blog".split(),
        "article",
    ),
    **dict.fromkeys(
        (
            "Place LocalBusiness Store Restaurant Hotel LodgingBusiness FoodEstablishment"
            " CafeOrCoffeeShop MedicalBusiness MedicalClinic Dentist ProfessionalService"
            " AutomotiveBusiness HealthAndBeautyBusiness HairSalon SportsActivityLocation"
            " ExerciseGym"
        ).split(),
        "place",
    ),
    **dict.fromkeys(
        "Service GovernmentService FinancialProduct LoanOrCredit InsuranceAgency Course Event "
        "BusinessEvent EducationEvent".split(),
        "service",
    ),
    **dict.fromkeys("FAQPage QAPage".split(), "faq"),
    **dict.fromkeys(
        "Dataset DataCatalog DigitalDocument TextDigitalDocument APIReference WebAPI Legislation "
        "HowTo Report Manuscript".split(),
        "document",
    ),
}
"""schema.org types by the kind of page they make (ARS's table)."""
RECOGNISED = frozenset(
    "Thing WebPage WebSite AboutPage ContactPage ProfilePage ItemPage Organization Corporation "
    "NGO GovernmentOrganization EducationalOrganization Person BreadcrumbList Offer "
    "AggregateOffer PostalAddress ImageObject VideoObject SiteNavigationElement Brand Review "
    "AggregateRating Question Answer MerchantReturnPolicy OfferShippingDetails SearchAction "
    "ReadAction OrderAction".split()
) | frozenset(TYPES)
"""Every type ARS knows (a page of unknown kind earns required_properties with one of them)."""
OG_TYPES = {
    "product": "product", "product.group": "product", "product.item": "product",
    "og:product": "product", "article": "article", "article:published_time": "article",
    "blog": "article", "book": "product", "place": "place", "business": "place",
    "business.business": "place", "restaurant": "place", "restaurant.restaurant": "place",
}  # fmt: skip
PATHS: tuple[tuple[str, frozenset[str]], ...] = (
    ("product", frozenset("products product p item items dp sku buy".split())),
    ("collection", frozenset("collections collection category categories catalog c shop".split())),
    ("article", frozenset("blog blogs news article articles post posts stories".split())),
    ("place", frozenset("locations location stores store-locator branches find-us visit".split())),
    ("service", frozenset("services service book booking appointments pricing plans".split())),
    ("faq", frozenset("faq faqs questions help".split())),
    (
        "document",
        frozenset(
            {
                "docs",
                "documentation",
                "reference",
                "guide",
                "guides",
                "manual",
                "api",
                "policies",
                "legal",
                "terms",
                "privacy",
            }
        ),
    ),
)
"""URL path segments by the kind of page they name, kinds in order of precedence."""
ACTIONS = frozenset((
    "add to bag", "add to basket", "add to cart", "apply", "apply now", "book", "book now", "buy",
    "buy now", "call", "call now", "check availability", "check out", "checkout", "contact",
    "contact us", "create account", "create an account", "donate", "download", "email us",
    "enquire", "enrol", "enroll", "free trial", "get a demo", "get a quote", "get directions",
    "get in touch", "get quote", "get started", "get the app", "get tickets", "hire", "inquire",
    "install", "join", "make an appointment", "message us", "order", "order now", "order online",
    "pre-order", "preorder", "purchase", "register", "rent", "request", "request a demo",
    "request a quote", "reserve", "schedule", "shop", "shop now", "sign up", "signup", "start",
    "start free trial", "subscribe", "talk to sales", "talk to us", "text us", "try", "upgrade",
))  # fmt: skip
"""The words of a page's main action (ARS 0.3's lexicon): a link or form whose words are one of
these, or start with one, is the page's primary_action_url."""
BYLINE = re.compile(r"(?:^|[\s_-])(?:author|byline)(?:$|[\s_-])", re.I)
_TEL = re.compile(r"\btel:\+?[0-9()\-. ]{7,}", re.A)


@dataclass(frozen=True, slots=True)
class Kind:
    kind: str
    signal: str
    """What decided it, in netglean's words (never the page's)."""


def node_of_kind(nodes: tuple[Node, ...], kind: str) -> Node | None:
    """The first JSON-LD node whose type makes a page of ``kind``."""
    return next((node for node in nodes if any(TYPES.get(t) == kind for t in node.types)), None)


def _path_segments(url: str) -> list[str]:
    absolute = absolute_url(url, "https://invalid.example/")
    path = urlsplit(absolute).path if absolute is not None else ""
    return [segment for segment in path.lower().split("/") if segment]


def _itemtypes(markup: Markup | None, attribute: str, separators: str) -> list[str]:
    found: list[str] = []
    for element in markup.elements if markup is not None else ():
        for token in element.attrs.get(attribute, "").split():
            last = re.split(separators, token)[-1]
            if last:
                found.append(last)
    return found


def classify(markup: Markup | None, text: str, ld: JsonLd, url: str) -> Kind:
    """The kind of a page from its structural representation (``markup``, counted ``text`` and
    JSON-LD) and the URL asked for."""
    for source, types in (
        ("JSON-LD @type", [t for node in ld.nodes for t in node.types]),
        ("microdata itemtype", _itemtypes(markup, "itemtype", "/")),
        ("RDFa typeof", _itemtypes(markup, "typeof", "[/:]")),
    ):
        mapped = next((TYPES[t] for t in types if t in TYPES), None)
        if mapped is not None:
            return Kind(mapped, f"its {source}")
    metas = markup.metas if markup is not None else []
    og = next((m.content for m in metas if m.prop == "og:type" and m.content is not None), None)
    og = og.strip(SPACES).lower() if og is not None else None
    if og is not None and og in OG_TYPES:
        return Kind(OG_TYPES[og], "its og:type")
    segments = _path_segments(url)
    for kind, names in PATHS:
        if any(segment in names for segment in segments):
            return Kind(kind, "its URL's path")
    if opening_hours(text) and _telephone(markup, text, ld):
        return Kind("place", "its opening hours and telephone")
    if markup is not None and article_shape(markup):
        return Kind("article", "its headline, byline and date (netglean's rule; ARS says unknown)")
    currency = any(parse_money(phrase) is not None for phrase, _ in money_phrases(text))
    return Kind("unknown", "a price alone" if currency else "nothing that names a kind")


def _telephone(markup: Markup | None, text: str, ld: JsonLd) -> bool:
    if any(isinstance(node.value.get("telephone"), str) for node in ld.nodes):
        return True
    for element in markup.elements if markup is not None else ():
        if element.tag == "a" and element.attrs.get("href", "").lower().startswith("tel:"):
            return True
    return _TEL.search(text) is not None


def article_shape(markup: Markup) -> bool:
    """netglean's rule: a visible h1, a byline (an element named author or byline by its class, id,
    rel or itemprop, or an author meta tag) and a date (a visible <time datetime>, or a published
    meta tag or itemprop)."""
    headline = any(e.tag == "h1" and e.excluded is None for e in markup.elements)
    return headline and shown_byline_and_date(markup, declared=True) == {"author", "published"}


def shown_byline_and_date(markup: Markup, *, declared: bool = False) -> set[str]:
    """Which of author and published the page shows as an article does: a visible byline element,
    a visible <time datetime>, and (``declared``) the meta tags and itemprops that declare them."""
    shown: set[str] = set()
    for element in markup.elements:
        attrs = element.attrs
        if element.tag == "meta" and declared:
            if (attrs.get("name") or "").lower() == "author":
                shown.add("author")
            if (attrs.get("property") or "").lower() == "article:author":
                shown.add("author")
            if (attrs.get("property") or "").lower() == "article:published_time":
                shown.add("published")
        if element.excluded is not None:
            continue
        named = " ".join(attrs.get(name, "") for name in ("class", "id", "rel", "itemprop"))
        if BYLINE.search(named) is not None:
            shown.add("author")
        if element.tag == "time" and "datetime" in attrs:
            shown.add("published")
        if declared and (attrs.get("itemprop") or "").lower() == "datepublished":
            shown.add("published")
    return shown
