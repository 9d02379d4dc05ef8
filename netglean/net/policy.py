"""The operator's network policy, fixed at start-up: what every fetch obeys, and what tools may only
ask less of."""

from __future__ import annotations

from dataclasses import dataclass, field

from netglean._version import __version__
from netglean.core.errors import ConfigurationError
from netglean.core.settings import Settings
from netglean.net.addresses import Targets

ROBOTS_AGENT = "netglean"
"""The user agent robots.txt is read for."""
USER_AGENT = f"netglean/{__version__} (+https://github.com/netglean/netglean; AI agent web tools)"
"""What every request says it is: honestly netglean."""
REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """The operator's network policy, fixed at start-up. Tools may only ask for less."""

    allow_private_hosts: bool
    allow_https_downgrade: bool
    allow_http: bool
    max_redirects: int
    max_bytes: int
    max_decoded_bytes: int
    memory_budget: int
    memory_wait: float
    connect_timeout: float
    read_timeout: float
    total_timeout: float
    obey_robots: bool
    robots_unreadable_allows: bool
    host_concurrency: int
    host_interval: float
    global_concurrency: int
    session_budget: int
    only_hosts: frozenset[str] = frozenset()
    unspaced_private: bool = False
    """--dev: fetches to loopback and private addresses are not spaced by host_interval
    (robots.txt's Crawl-delay still holds)."""
    user_agent: str = USER_AGENT
    """The User-Agent fetches and the browser send (the operator's --user-agent, else netglean's
    own)."""
    private_targets: Targets = field(default_factory=Targets)
    """The hosts and networks of ``allow_private_targets``, read once (netglean.net.addresses says
    what they open)."""
    robots_agents: tuple[str, ...] = (ROBOTS_AGENT,)
    """The robots.txt groups obeyed (netglean's, and those a wire profile adds: Rebilder's
    rebilder-ars)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchPolicy:
        try:
            private_targets = Targets.parse(settings.allow_private_targets)
        except ValueError as exc:
            raise ConfigurationError(f"allow_private_targets: {exc}") from None
        return cls(
            allow_private_hosts=settings.allow_private_hosts or settings.dev,
            allow_https_downgrade=settings.allow_https_downgrade,
            allow_http=settings.allow_http,
            max_redirects=settings.max_redirects,
            max_bytes=settings.fetch_max_bytes,
            max_decoded_bytes=settings.fetch_max_decoded_bytes,
            memory_budget=settings.fetch_memory_budget,
            memory_wait=settings.fetch_memory_wait,
            connect_timeout=settings.fetch_connect_timeout,
            read_timeout=settings.fetch_read_timeout,
            total_timeout=settings.fetch_total_timeout,
            obey_robots=not settings.ignore_robots,
            robots_unreadable_allows=settings.robots_unreadable_allows,
            host_concurrency=settings.host_concurrency,
            host_interval=settings.host_interval,
            global_concurrency=settings.global_concurrency,
            session_budget=settings.session_budget,
            only_hosts=frozenset(
                h.strip().lower().strip("[]")
                for h in settings.fetch_only_hosts.split(",")
                if h.strip()
            ),
            private_targets=private_targets,
            unspaced_private=settings.dev,
            user_agent=settings.user_agent or USER_AGENT,
            robots_agents=tuple(a.strip() for a in settings.robots_agents.split(",") if a.strip()),
        )
