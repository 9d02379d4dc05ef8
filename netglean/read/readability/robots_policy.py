"""What robots.txt says to each audience of AI crawlers, read as ARS reads it.

ARS scores one audience, the assistants fetching a page because a person asked (ASSISTANTS), and
holds the training crawlers neutral: blocking only them scores as an open site does. A group is
chosen as RFC 9309 says (the longest user-agent token naming one of the audience's agents, else
``*``; groups are not merged), and within it the longest matching rule, Allow on a tie. The path is
the URL's path alone. Lines that are not ``field: value`` and unknown fields are malformed; an
Allow or Disallow before any User-agent is an orphan.

The audience's verdict decides the outcome before any check: disallowed by a group that names an
assistant, in a file with no malformed line and no orphan, is a deliberate opt-out (not graded);
disallowed otherwise (``User-agent: *``, or a messy file) is an accident, scored with robots_policy
at 0 and flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ASSISTANTS = (
    "ChatGPT-User", "Claude-User", "Claude-SearchBot", "DuckAssistBot", "Meta-ExternalFetcher",
    "MistralAI-User", "OAI-SearchBot", "Perplexity-User",
)  # fmt: skip
"""User-triggered assistant fetchers: the audience ARS scores."""
TRAINING = (
    "AI2Bot", "Applebot-Extended", "Bytespider", "CCBot", "ClaudeBot", "Diffbot", "FacebookBot",
    "Google-Extended", "GPTBot", "Meta-ExternalAgent", "PanguBot", "Timpibot", "anthropic-ai",
    "cohere-ai", "omgili",
)  # fmt: skip
"""Model-training crawlers: reported, never scored."""
SEARCH = ("Applebot", "Baiduspider", "Bingbot", "DuckDuckBot", "Googlebot", "Slurp", "YandexBot")
"""Search engines' crawlers: reported only."""
IGNORED_FIELDS = frozenset({"crawl-delay", "host", "clean-param"})


@dataclass(slots=True)
class Group:
    agents: list[str] = field(default_factory=list)
    """Lower case."""
    allow: list[str] = field(default_factory=list)
    disallow: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Robots:
    groups: list[Group] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    malformed: int = 0
    orphans: int = 0


@dataclass(frozen=True, slots=True)
class Verdict:
    decision: str
    """allow, disallow or unspecified (no group applies)."""
    group: str | None
    """The user-agent token of the group that decided."""
    rule: str | None
    """The rule that decided ("Disallow: /x"), None when no rule matched."""


def parse_robots(text: str) -> Robots:
    robots = Robots()
    current: Group | None = None
    naming = False  # consecutive User-agent lines share the rules that follow
    for raw in re.split(r"\r?\n", text):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        colon = line.find(":")
        if colon <= 0:
            robots.malformed += 1
            continue
        name, value = line[:colon].strip().lower(), line[colon + 1 :].strip()
        if name == "user-agent":
            if current is None or not naming:
                current = Group()
                robots.groups.append(current)
                naming = True
            current.agents.append(value.lower())
        elif name == "sitemap":
            robots.sitemaps.append(value)
        elif name in {"allow", "disallow"}:
            if current is None:
                robots.orphans += 1
                continue
            naming = False
            (current.allow if name == "allow" else current.disallow).append(value)
        elif name not in IGNORED_FIELDS:
            robots.malformed += 1
    return robots


def matches(pattern: str, path: str) -> bool:
    """Whether a robots.txt path pattern (``*`` any run, a final ``$`` the end) matches ``path``."""
    if not pattern:
        return False
    anchored = pattern.endswith("$")
    pieces = (pattern[:-1] if anchored else pattern).split("*")
    if not path.startswith(pieces[0]):
        return False
    at = len(pieces[0])
    for piece in pieces[1:]:
        if piece:
            found = path.find(piece, at)
            if found < 0:
                return False
            at = found + len(piece)
    if anchored:
        return path == pieces[0] if len(pieces) == 1 else path.endswith(pieces[-1])
    return True


def verdict(robots: Robots, agents: tuple[str, ...], path: str) -> Verdict:
    """What robots.txt says of ``path`` to an audience (``agents``)."""
    names = {agent.lower() for agent in agents}
    chosen: Group | None = None
    token: str | None = None
    best = -1
    for group in robots.groups:
        for agent in group.agents:
            rank = 0 if agent == "*" else len(agent) if agent in names else -1
            if rank > best:
                best, chosen, token = rank, group, agent
    if chosen is None:
        return Verdict("unspecified", None, None)
    rule: tuple[str, str] | None = None
    for kind, patterns in (("Allow", chosen.allow), ("Disallow", chosen.disallow)):
        for pattern in patterns:
            if matches(pattern, path) and (rule is None or len(pattern) > len(rule[1])):
                rule = (kind, pattern)
    if rule is None:
        return Verdict("allow", token, None)
    return Verdict(rule[0].lower(), token, f"{rule[0]}: {rule[1]}")


@dataclass(frozen=True, slots=True)
class Policy:
    """What robots.txt says of a page to each audience."""

    status: str
    """ok, missing (no rules: 4xx), or unparseable (nothing but malformed lines)."""
    robots: Robots | None
    assistants: Verdict
    training: Verdict
    search: Verdict

    @property
    def opt_out(self) -> bool:
        """A deliberate opt-out: assistants disallowed by a group naming one, in a clean file."""
        return (
            self.robots is not None
            and self.assistants.decision == "disallow"
            and self.assistants.group != "*"
            and not self.robots.malformed
            and not self.robots.orphans
        )

    @property
    def sitemap(self) -> bool:
        return self.robots is not None and bool(self.robots.sitemaps)


def policy(rules: str | None, path: str) -> Policy:
    """The policy of a robots.txt whose text is ``rules`` (None when it has none: a 4xx)."""
    none = Verdict("unspecified", None, None)
    if rules is None:
        return Policy("missing", None, none, none, none)
    robots = parse_robots(rules)
    empty = not robots.groups and not robots.sitemaps
    return Policy(
        "unparseable" if empty and robots.malformed else "ok",
        robots,
        verdict(robots, ASSISTANTS, path),
        verdict(robots, TRAINING, path),
        verdict(robots, SEARCH, path),
    )
