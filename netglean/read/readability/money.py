"""Prices in text, read as ARS reads them: an amount in minor units and an ISO 4217 currency, or
nothing when the text could mean two things (a wrong price is worse than none).

``parse_money`` reads one phrase (at most 256 characters, exactly one number): a currency sign or
code next to the number decides the currency (``$`` is USD and ``¥`` JPY unless the page's currency
says another dollar or yen, ``kr`` needs the page's currency), a bare number needs the page's
currency and no letters around it. Commas and periods group or separate decimals by position and by
the currency's minor digits (``1,500`` is 1500 in USD and ambiguous in KWD); spaces and apostrophes
group. A range (one dash, or "to") or a qualifier ("from", "+") gives the lower amount, marked
qualified. ``money_phrases`` finds the candidate phrases in a text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from netglean.read.readability.markup import SPACES

ISO_4217 = frozenset(
    (
        "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD "
        "BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD "
        "EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD "
        "IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL "
        "MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN "
        "PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN "
        "SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES "
        "VND VUV WST XAF XAG XAU XCD XCG XDR XOF XPD XPF XPT YER ZAR ZMW ZWG"
    ).split()
)
ZERO_DECIMAL = frozenset(
    "BIF CLP DJF GNF ISK JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF".split()
)
THREE_DECIMAL = frozenset("BHD IQD JOD KWD LYD OMR TND".split())
DOLLARS = (
    "USD",
    "CAD",
    "AUD",
    "NZD",
    "SGD",
    "HKD",
    "MXN",
    "TWD",
    "BRL",
    "ARS",
    "CLP",
    "COP",
    "UYU",
)
SIGNS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "US$": ("USD", ()), "CA$": ("CAD", ()), "C$": ("CAD", ()), "AU$": ("AUD", ()),
    "A$": ("AUD", ()), "NZ$": ("NZD", ()), "HK$": ("HKD", ()), "NT$": ("TWD", ()),
    "S$": ("SGD", ()), "R$": ("BRL", ()), "MX$": ("MXN", ()), "$": ("USD", DOLLARS),
    "¥": ("JPY", ("JPY", "CNY")), "kr": (None, ("SEK", "NOK", "DKK", "ISK")), "€": ("EUR", ()),
    "£": ("GBP", ()), "₹": ("INR", ()), "₩": ("KRW", ()), "₽": ("RUB", ()), "₺": ("TRY", ()),
    "₪": ("ILS", ()), "₫": ("VND", ()), "₱": ("PHP", ()), "₴": ("UAH", ()), "₦": ("NGN", ()),
    "₡": ("CRC", ()), "₸": ("KZT", ()), "₾": ("GEL", ()), "฿": ("THB", ()), "zł": ("PLN", ()),
    "Kč": ("CZK", ()),
}  # fmt: skip
"""Currency signs: what each means alone, and the codes the page's currency may choose among
instead."""
_SIGNS_LONGEST_FIRST = sorted(SIGNS, key=len, reverse=True)
PREFIXES = (
    "starting from", "starting at", "prices from", "priced from", "as little as", "as much as",
    "as low as", "starts at", "up to", "from",
)  # fmt: skip
SUFFIXES = ("and above", "or more", "or less", "and up", "+")
DASHES = ("\u2014", "\u2013", "\u2010", "-")
MAX_PHRASE = 256
MAX_DIGITS = 15
SAFE_INTEGER = 2**53 - 1

_SPACES = re.compile("[\t\n\r\f\v\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_NUMBER_RUN = re.compile(r"[0-9][0-9.,'’ ]*")
_CODE_BEFORE = re.compile(r"([A-Z]{3})[ \t\n\r\f\v]?\Z")
_CODE_AFTER = re.compile(r"[ \t\n\r\f\v]?([A-Z]{3})(?![A-Za-z])")
_SIGN_BEFORE_MINUS = re.compile(r"[-−][ \t\n\r\f\v]?\Z")
_LETTER = re.compile("[A-Za-z]")
_TO = re.compile(" to ", re.IGNORECASE)

# Phrases in a text (ARS's scanner): a sign then a number, a number then a sign or code, a code then
# a number.
PHRASE_SIGNS = "$€£¥₹₩₪₫₴₦₱฿₺"
"""Single characters that may open a price phrase (longer signs such as kr are read through codes
and parse_money)."""
DIGITS = "0123456789"
RUN_SEPARATORS = ".,'’ \xa0\u202f"
PHRASE_PREFIXES = (
    "starting from", "starting at", "prices from", "priced from", "as little as", "as low as",
    "starts at", "from",
)  # fmt: skip
JOINERS = ("—", "–", "-", " to ")
SCAN_CHARS = 400_000
"""Characters of a text searched for prices."""
_CANDIDATE = re.compile(
    rf"[{PHRASE_SIGNS}]|(?<=[^0-9.,'’ \xa0\u202f])[0-9]|(?<![A-Za-z])[A-Z](?=[A-Z][A-Z])"
)


@dataclass(frozen=True, slots=True)
class Money:
    amount: int
    """In minor units (cents; yen for JPY)."""
    currency: str
    qualified: bool = False
    """A range's lower end, or a bound ("from", "+"): never compared for parity."""


def minor_digits(code: str) -> int:
    return 0 if code in ZERO_DECIMAL else 3 if code in THREE_DECIMAL else 2


def _at(text: str, index: int) -> str:
    """The character at ``index``, or "" past either end (which is in every string, as in
    JavaScript's includes)."""
    return text[index] if 0 <= index < len(text) else ""


def _grouped(parts: list[str]) -> bool:
    """1-3 digits not starting with 0, then groups of exactly 3."""
    first = parts[0] if parts else ""
    return (
        len(parts) >= 2
        and 1 <= len(first) <= 3
        and not first.startswith("0")
        and all(len(p) == 3 for p in parts[1:])
    )


def _without_spacers(token: str) -> str | None:
    """Spaces and apostrophes removed where they group digits (1 499,00); None where they cannot."""
    if not any(spacer in token for spacer in " '’"):
        return token
    head, tail = token, ""
    last = max(token.rfind("."), token.rfind(","))
    if last > 0 and token[last + 1 :].isdigit() and token[last + 1 :].isascii():
        head, tail = token[:last], token[last:]
    parts = [""]
    for char in head:
        if char in " '’":
            parts.append("")
        elif char in DIGITS:
            parts[-1] += char
        else:
            return None  # a comma or period among spacers: two ways of grouping
    return "".join(parts) + tail if _grouped(parts) else None


def _major_fraction(token: str, digits: int) -> tuple[str, str] | None:
    dots, commas = token.count("."), token.count(",")
    if not dots and not commas:
        return token, ""
    if dots and commas:
        decimal = "." if token.rfind(".") > token.rfind(",") else ","
        group = "," if decimal == "." else "."
        at = token.rfind(decimal)
        head, fraction = token[:at], token[at + 1 :]
        if not fraction or decimal in head or not _grouped(head.split(group)):
            return None
        return head.replace(group, ""), fraction
    separator = "." if dots else ","
    parts = token.split(separator)
    if len(parts) > 2:
        return ("".join(parts), "") if _grouped(parts) else None
    left, right = parts
    if not left or not right:
        return None
    if len(right) == 3 and _grouped(parts):
        return None if digits == 3 else (left + right, "")
    return left, right


def _minor_units(major: str, fraction: str, digits: int) -> int | None:
    if len(fraction) > digits:
        if fraction[digits:].strip("0"):
            return None  # a fraction of the minor unit
        fraction = fraction[:digits]
    number = (major + fraction.ljust(digits, "0")).lstrip("0") or "0"
    if len(number) > MAX_DIGITS:
        return None
    value = int(number)
    return value if value <= SAFE_INTEGER else None


def _resolve(sign: str, hint: str | None) -> str | None:
    alone, choices = SIGNS[sign]
    if hint is not None and (hint.upper() == alone or hint.upper() in choices):
        return hint.upper()
    return alone


def _adjacent_code(before: str, after: str) -> str | bool | None:
    """The ISO code next to the number, None, or False when there are two."""
    codes: list[str] = []
    for found in (_CODE_BEFORE.search(before), _CODE_AFTER.match(after)):
        if found is not None and found.group(1) in ISO_4217 and found.group(1) not in codes:
            codes.append(found.group(1))
    return False if len(codes) > 1 else codes[0] if codes else None


def _adjacent_sign(before: str, after: str) -> str | bool | None:
    """The currency sign next to the number, None, or False when there are two."""
    before = before.rstrip(SPACES)
    if before.endswith(("-", "−")):
        before = before[:-1].rstrip(SPACES)
    after = after.lstrip(SPACES)
    found: list[str] = []
    for sign in _SIGNS_LONGEST_FIRST:
        if before.endswith(sign) and not any(seen.endswith(sign) for seen in found):
            found.append(sign)
    for sign in _SIGNS_LONGEST_FIRST:
        if after.startswith(sign) and not any(seen.startswith(sign) for seen in found):
            found.append(sign)
    return False if len(found) > 1 else found[0] if found else None


def _operand(text: str, hint: str | None) -> Money | None:
    if "%" in text:
        return None
    runs = []
    for run in _NUMBER_RUN.finditer(text):
        value = run.group(0).rstrip(".,'’ ")
        runs.append((value, run.start()))
        if len(runs) > 1:
            return None  # two numbers: which is the price?
    if not runs:
        return None
    value, start = runs[0]
    before, after = text[:start], text[start + len(value) :]
    code, sign = _adjacent_code(before, after), _adjacent_sign(before, after)
    if code is False or sign is False:
        return None
    currency: str | None
    if isinstance(code, str) and isinstance(sign, str):
        if _resolve(sign, code) != code:
            return None
        currency = code
    elif isinstance(code, str):
        currency = code
    elif isinstance(sign, str):
        currency = _resolve(sign, hint)
    else:
        if hint is None or hint.upper() not in ISO_4217 or _LETTER.search(before + after):
            return None
        currency = hint.upper()
    if currency is None or currency not in ISO_4217:
        return None
    trimmed = before.rstrip(SPACES)
    sign_before = next((s for s in _SIGNS_LONGEST_FIRST if trimmed.endswith(s)), "")
    negative = _SIGN_BEFORE_MINUS.search(trimmed[: len(trimmed) - len(sign_before)]) is not None
    spaced = _without_spacers(value)
    split = _major_fraction(spaced, minor_digits(currency)) if spaced is not None else None
    magnitude = _minor_units(*split, minor_digits(currency)) if split is not None else None
    if magnitude is None:
        return None
    return Money(-magnitude if negative else magnitude, currency)


def _qualifiers(text: str) -> tuple[str, bool]:
    qualified = False
    lower = text.lower()
    for phrase in PREFIXES:
        if lower.startswith(phrase) and not _LETTER.match(_at(text, len(phrase))):
            text, qualified = text[len(phrase) :].strip(SPACES), True
            break
    lower = text.lower()
    for phrase in SUFFIXES:
        if lower.endswith(phrase) and not _LETTER.match(_at(text, len(text) - len(phrase) - 1)):
            text, qualified = text[: len(text) - len(phrase)].strip(SPACES), True
            break
    return text, qualified


def _range(text: str) -> tuple[str, str] | None:
    count, at, width = 0, -1, 0
    for dash in DASHES:
        found = text.find(dash)
        while found >= 0:
            count += 1
            if count == 1:
                at, width = found, len(dash)
            found = text.find(dash, found + len(dash))
    if count == 0:
        word = _TO.search(text)
        if word is None:
            return None
        at, width = word.start(), len(word.group(0))
    elif count > 1:
        return None
    left, right = text[:at].strip(SPACES), text[at + width :].strip(SPACES)
    if not any(c in DIGITS for c in left) or not any(c in DIGITS for c in right):
        return None
    return left, right


def parse_money(text: str, currency: str | None = None) -> Money | None:
    """The price ``text`` states, read with the page's ``currency`` (an ISO code, or None); None
    when unsure."""
    if not text or len(text) > MAX_PHRASE:
        return None
    text = re.sub(" {2,}", " ", _SPACES.sub(" ", text)).strip(" \ufeff\u2028\u2029")
    if not any(c in DIGITS for c in text):
        return None
    text, qualified = _qualifiers(text)
    ends = _range(text)
    if ends is None:
        single = _operand(text, currency)
        return Money(single.amount, single.currency, qualified) if single is not None else None
    left = _operand(ends[0], currency)
    right = _operand(ends[1], currency if left is None else left.currency)
    if left is None and right is not None:
        left = _operand(ends[0], right.currency)
    if left is not None and right is not None:
        if left.currency != right.currency:
            return None
        lower = right if right.amount < left.amount else left
        return Money(lower.amount, lower.currency, True)
    only = left or right
    return Money(only.amount, only.currency, True) if only is not None else None


def _number_run(text: str, start: int, limit: int) -> int:
    """Where a run of digits and separators starting at ``start`` has its last digit (``start`` when
    none)."""
    end = index = start
    while index < limit:
        char = text[index]
        if char in DIGITS:
            index += 1
            end = index
        elif char in RUN_SEPARATORS:
            index += 1
        else:
            break
    return end


def _is_code(text: str) -> bool:
    """Three capital letters A-Z."""
    return len(text) == 3 and text.isascii() and text.isalpha() and text.isupper()


def _phrase_end(text: str, start: int, limit: int) -> int | None:
    """Where the price phrase starting at ``start`` ends, or None when none starts there."""
    char = _at(text, start)
    if char and char in PHRASE_SIGNS:
        at = start + 1 + (_at(text, start + 1) == " ")
        return _number_run(text, at, limit) if _at(text, at) in DIGITS else None
    if char and char in DIGITS:
        if _at(text, start - 1) in DIGITS or _at(text, start - 1) in RUN_SEPARATORS:
            return None  # inside a number (and, as in ARS, a number that opens the text)
        at = _number_run(text, start, limit)
        at += _at(text, at) == " "
        if _at(text, at) and _at(text, at) in PHRASE_SIGNS:
            return at + 1
        code = text[at : at + 3]
        if (
            len(code) == 3
            and code.isascii()
            and code.isupper()
            and code.isalpha()
            and not _LETTER.match(_at(text, at + 3))
        ):
            return at + 3
        return None
    if char.isascii() and char.isupper() and start + 3 <= limit:
        if not _is_code(text[start : start + 3]) or _LETTER.match(_at(text, start - 1)):
            return None
        at = start + 3 + (_at(text, start + 3) == " ")
        return _number_run(text, at, limit) if _at(text, at) in DIGITS else None
    return None


def money_phrases(text: str) -> list[tuple[str, int]]:
    """The price-shaped phrases of ``text`` (its first SCAN_CHARS characters) and where each starts:
    a sign or code next to a number, with a qualifier before it ("from $9") and a range's second end
    ("$148 - $198")."""
    limit = min(len(text), SCAN_CHARS)
    found: list[tuple[str, int]] = []
    at = 0
    while at < limit:
        candidate = _CANDIDATE.search(text, at, limit)
        if candidate is None:
            break
        start = candidate.start()
        end = _phrase_end(text, start, limit)
        if end is None:
            at = start + 1
            continue
        before = text[max(0, start - 20) : start].lower()
        kept = before.rstrip(SPACES)
        for phrase in PHRASE_PREFIXES:
            if kept.endswith(phrase):
                start = max(0, start - (len(before) - len(kept)) - len(phrase))
                break
        for joiner in JOINERS:
            where = text[end : end + len(joiner) + 2].find(joiner)
            if where < 0 or where > 1:
                continue
            second = end + where + len(joiner)
            while second < limit and text[second] == " ":
                second += 1
            further = _phrase_end(text, second, limit)
            if further is not None:
                end = further
            break
        found.append((text[start:end], start))
        at = end
    return found
