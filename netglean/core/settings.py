"""Operator settings: declared once as data, read once at start-up, frozen afterwards.

The CLI flags, the environment variables (``NETGLEAN_<NAME>``), the docs and the
policy resource are all derived from ``SETTINGS``. Tool arguments never change them.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlsplit

from netglean.core.errors import ConfigurationError

LOG_LEVELS = ("debug", "info", "warning", "error")
COMPAT_SETS: Mapping[str, str] = {
    "html2rss": "html2rss",
    "rebilder": "Rebilder",
    "crawlberg": "Crawlberg",
    "rtila": "RTILA",
}
"""The wire profiles ``compat`` can turn on (catalog/profiles/NAME.yaml declares each), by the word
the setting takes, with the seed's own name."""
TIGHTER: Mapping[str, str] = {
    "allow_http": "off",
    "allow_https_downgrade": "off",
    "allow_private_hosts": "off",
    "allow_private_targets": "off",
    "dev": "off",
    "fetch_max_bytes": "lower",
    "fetch_max_decoded_bytes": "lower",
    "global_concurrency": "lower",
    "host_concurrency": "lower",
    "host_interval": "higher",
    "ignore_robots": "off",
    "max_redirects": "lower",
    "robots_agents": "more",
    "robots_unreadable_allows": "off",
    "session_budget": "lower",
}
"""The network-policy settings a wire profile may make stricter, and which way is stricter: a lower
number, a higher one, a switch off (a list emptied), or more items of a list. A profile's value
holds only where it is stricter than the operator's (a list's items are added to the operator's)."""


def _split_list(value: str) -> tuple[str, ...]:
    """The items of a comma-separated setting, blanks left out, each once."""
    return tuple(dict.fromkeys(item.strip() for item in value.split(",") if item.strip()))


def _store(value: str) -> str | None:
    """A store is the embedded default (empty) or a PostgreSQL URL."""
    if not value or value.startswith(("postgresql://", "postgres://")):
        return None
    return "expected empty (SQLite in data_dir) or a postgresql:// URL"


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    choices: tuple[str, ...] = ()
    http: bool = False
    """Applies only to `netglean serve` (the HTTP surfaces)."""
    secret: bool = False
    """Never shown: not in the policy resource, the docs' defaults or any log line."""
    several: bool = False
    """A comma-separated list, each item one of ``choices``."""
    rule: Callable[[Any], str | None] | None = None
    """What is wrong with a value besides its type, range and choices (None when nothing is)."""
    server: bool = False
    """A server's default (netglean mcp and serve): a one-shot command names its own, and its tool
    flag of the same name (netglean call run_project --project-id) is the tool's."""
    old_flags: tuple[str, ...] = ()
    """Spellings a command line of an earlier netglean used for this flag and a later setting made
    ambiguous (argparse took a unique prefix for the flag): still this setting's, so a client's
    config keeps working."""

    @property
    def env(self) -> str:
        return f"NETGLEAN_{self.name.upper()}"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, raw: str, origin: str) -> Any:
        """Turn a flag or environment string into a typed value, or say exactly what is wrong."""
        try:
            if self.kind is bool:
                lowered = raw.strip().lower()
                if lowered not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
                    raise ValueError(raw)
                value: Any = lowered in {"1", "true", "yes", "on"}
            else:
                value = self.kind(raw)
        except ValueError:
            raise ConfigurationError(
                f"{origin}: {raw!r} is not a valid {self.kind.__name__}"
            ) from None
        self.check(value, origin)
        return value

    def check(self, value: Any, origin: str) -> None:
        for item in _split_list(value) if self.several else (value,):
            if self.choices and item not in self.choices:
                raise ConfigurationError(
                    f"{origin}: {item!r} is not one of {', '.join(self.choices)}"
                )
        # nan is below no minimum: refused first
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigurationError(f"{origin}: {value} is not a finite number")
        if self.minimum is not None and value < self.minimum:
            raise ConfigurationError(f"{origin}: {value!r} is below the minimum {self.minimum:g}")
        problem = self.rule(value) if self.rule is not None else None
        if problem:
            raise ConfigurationError(f"{origin}: {problem}")


def _trusted_proxies(value: str) -> str | None:
    """Each item an IP address or network, as uvicorn's proxy headers take them: anything else it
    would take for a literal name that no peer ever has, and trust nobody, silently."""
    for item in _split_list(value):
        try:
            ipaddress.ip_network(item) if "/" in item else ipaddress.ip_address(item)
        except ValueError:
            return f"{item!r} is no IP address or network (e.g. 10.0.0.5, 10.0.0.0/24, ::1)"
    return None


def _port(value: int) -> str | None:
    return f"{value} is no TCP port (at most 65535)" if value > 65535 else None


def _project_id(value: str) -> str | None:
    return (
        None
        if not value or re.fullmatch(r"[0-9a-f]{32}", value)
        else f"{value!r} is no project id (32 hex digits)"
    )


def _session_id(value: str) -> str | None:
    return (
        None
        if re.fullmatch(r"[\w.:-]{0,200}", value)
        else "a session id is at most 200 letters, digits, . : _ -"
    )


def _index_url(value: str) -> str | None:
    """A remote readability index is asked only over https, and never with credentials or a query in
    its URL."""
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname:
        return f"{value!r} is not an https URL"
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        return "the index URL may carry no credentials, query or fragment"
    return None


def _user_agent(value: str) -> str | None:
    """A User-Agent header's value: printable ASCII (a header carries no other), at most 200
    characters."""
    if len(value) > 200:
        return "a user agent is at most 200 characters"
    if any(not (" " <= character <= "~") for character in value):
        return "a user agent is printable ASCII, with no line breaks or controls"
    return None


def _public_url(value: str) -> str | None:
    """The server's address for feed readers: an http(s) URL of a host, a path at most, nothing
    more."""
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return f"{value!r} is not an http(s) URL"
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        return "the public URL may carry no credentials, query or fragment"
    return None


def _robots_agents(value: str) -> str | None:
    """robots.txt groups are named by product tokens (RFC 9309: letters, digits, '-' and '_');
    netglean's own is always among them."""
    tokens = _split_list(value)
    wrong = next(
        (t for t in tokens if not t.replace("-", "").replace("_", "").isalnum() or not t.isascii()),
        None,
    )
    if wrong is not None:
        return f"{wrong!r} is no robots.txt product token (letters, digits, '-' and '_')"
    return (
        None if "netglean" in tokens else "netglean's own group is always obeyed: list netglean too"
    )


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "allow_http",
        bool,
        True,
        "Fetch plain-http URLs. Off: https only, every redirect hop and robots.txt too (as "
        "Rebilder's probe).",
    ),
    Setting(
        "allow_https_downgrade",
        bool,
        False,
        "Follow redirects from https to http.",
    ),
    Setting(
        "allow_private_hosts",
        bool,
        False,
        "Let fetches reach loopback and private addresses: 127/8, ::1, 10/8, 172.16/12, "
        "192.168/16, fc00::/7 (a staging site, test fixtures); link-local and cloud metadata "
        "addresses stay refused. No tool argument can.",
        old_flags=("--allow-private",),
    ),
    Setting(
        "allow_private_targets",
        str,
        "",
        "Non-public hosts and networks fetches may reach, comma-separated hostnames and CIDRs "
        "(e.g. staging.internal,10.1.0.0/16,169.254.0.0/16); a cloud metadata address "
        "(169.254.169.254, fd00:ec2::254, 100.100.100.200, ...) only when listed by itself.",
    ),
    Setting(
        "allowed_hosts",
        str,
        "",
        "Extra Host header values to accept, comma-separated (e.g. mcp.example.com).",
        http=True,
    ),
    Setting(
        "allowed_origins",
        str,
        "",
        "Extra browser Origins to accept, comma-separated (e.g. https://app.example).",
        http=True,
    ),
    Setting(
        "browser_action_timeout",
        float,
        30.0,
        "The most seconds one interact action may wait (for its element, a condition, a time); "
        "an action's timeout_ms may only lower it.",
        0.05,
    ),
    Setting(
        "browser_contexts",
        int,
        2,
        "Pages the browser renders at once (each call in a fresh, isolated context); more calls "
        "wait their turn.",
        1,
    ),
    Setting(
        "browser_evaluate",
        bool,
        False,
        "Let interact run scripts the caller writes in the page (its evaluate action). Off: a "
        "model driven by page text could be told to run anything there; the network policy holds "
        "either way.",
    ),
    Setting(
        "browser_path",
        str,
        "",
        "The Chromium the browser strategy drives (Debian's: apt-get install chromium). Empty: "
        "chromium on PATH; with none, pages are read over plain HTTP and asking for a browser is "
        "not_available.",
    ),
    Setting(
        "call_timeout",
        float,
        60.0,
        "Seconds a tool call may run before it ends with a timeout error.",
        0.001,
    ),
    Setting(
        "compat",
        str,
        "",
        "Wire profiles to serve, comma-separated (html2rss, rebilder, crawlberg, rtila): each "
        "answers its seed's tool, resource and prompt names in that seed's wire shape "
        "(catalog/profiles/NAME.yaml; the docs' profile pages say what each changes), so a "
        "client written for it works unchanged. Profiles whose names, identity or settings "
        "collide are refused together. Off: netglean's names and envelope only.",
        choices=tuple(COMPAT_SETS),
        several=True,
    ),
    Setting(
        "crawl_workers",
        int,
        1,
        "Workers one crawl run is spread over, with --run-workers: the worker that takes the run "
        "asks this many less one to join it, and they share its frontier in the store (each page "
        "read once; politeness and max_pages hold for all of them). 1 keeps a crawl in one worker.",
        1,
    ),
    Setting(
        "data_dir",
        str,
        "",
        "Folder of the run store (runs, their logs, checkpoints and results), created on first "
        "use; several servers may share one. Empty: $XDG_DATA_HOME/netglean "
        "(~/.local/share/netglean).",
    ),
    Setting(
        "dev",
        bool,
        False,
        "UNSAFE FOR AGENTS: a profile for trying netglean on your own machine. It allows "
        "loopback and private hosts (as allow_private_hosts) and fetches them without "
        "host_interval's spacing. An agent reading untrusted pages could then be led to your "
        "local services: never set it for one.",
    ),
    Setting(
        "fetch_connect_timeout", float, 10.0, "Seconds to open a connection to a target.", 0.001
    ),
    Setting(
        "fetch_max_bytes",
        int,
        5_242_880,
        "Largest response body read from a target, as sent (compressed).",
        1,
    ),
    Setting(
        "fetch_max_decoded_bytes", int, 20_971_520, "Largest response body after decompression.", 1
    ),
    Setting(
        "fetch_memory_budget",
        int,
        268_435_456,
        "Response bytes (decompressed) the server holds at once across all fetches, each body "
        "from before its first byte is read until its page is let go; no single body may be "
        "larger.",
        1,
    ),
    Setting(
        "fetch_memory_wait",
        float,
        10.0,
        "Seconds a fetch may wait for room in fetch_memory_budget before it fails as unavailable "
        "(retryable).",
        0,
    ),
    Setting(
        "fetch_only_hosts",
        str,
        "",
        "If set, the only hosts fetches may reach, comma-separated; anything else is refused "
        "before any DNS lookup.",
    ),
    Setting(
        "fetch_read_timeout", float, 20.0, "Seconds a target may go silent while sending.", 0.001
    ),
    Setting(
        "fetch_total_timeout",
        float,
        30.0,
        "Seconds one fetch may take in all, redirects included.",
        0.001,
    ),
    Setting("global_concurrency", int, 16, "Fetches in flight at once, across all hosts.", 1),
    Setting(
        "header_timeout",
        float,
        10.0,
        "Seconds a connection gets to send a request's headers (from opening, or from its last "
        "response); then 408 (if one was begun) and close.",
        0.001,
        http=True,
    ),
    Setting(
        "host",
        str,
        "127.0.0.1",
        "Address to bind; anything beyond loopback requires a token.",
        http=True,
    ),
    Setting(
        "host_concurrency",
        int,
        1,
        "Fetches in flight at once to one host (one, as polite crawlers and Rebilder's scanner "
        "do: with host_interval's spacing a second one only helps a site that answers slower "
        "than that).",
        1,
    ),
    Setting(
        "host_interval",
        float,
        1.0,
        "Least seconds between two fetches from one host (Crawl-delay may ask more).",
        0,
    ),
    Setting(
        "ignore_robots",
        bool,
        False,
        "Do not read robots.txt (for your own sites and benchmarks only).",
    ),
    Setting(
        "index_url",
        str,
        "",
        "A remote readability index get_index_entry may also ask (https, no credentials; off "
        "when empty). Nothing is ever uploaded to it: it is sent the domain asked about, and "
        "nothing else.",
        rule=_index_url,
    ),
    Setting(
        "log_level",
        str,
        "warning",
        "Lowest level of log lines written to stderr.",
        choices=LOG_LEVELS,
    ),
    Setting(
        "max_argument_bytes",
        int,
        1_048_576,
        "Largest tool-call arguments accepted, as JSON bytes.",
        1,
    ),
    Setting(
        "max_body_bytes",
        int,
        4_194_304,
        "Largest HTTP request body accepted; larger ones get 413.",
        1,
        http=True,
    ),
    Setting(
        "max_client_calls",
        int,
        16,
        "Requests one client address may have in flight; then 429.",
        1,
        http=True,
        old_flags=("--max-client",),
    ),
    Setting(
        "max_client_connections",
        int,
        64,
        "Connections one client address may hold open at once; a further one gets 429 and is "
        "closed (behind a reverse proxy every client shares the proxy's address).",
        1,
        http=True,
    ),
    Setting(
        "max_client_sessions",
        int,
        64,
        "MCP sessions one client address may hold open. Past it, its least recently used idle "
        "session (no request in flight, no stream open) is closed for the new one; with none idle, "
        "429 (behind a reverse proxy every client shares the proxy's address).",
        1,
        http=True,
    ),
    Setting(
        "max_concurrent_calls",
        int,
        8,
        "Tool calls that may run at once; later ones wait their turn.",
        1,
    ),
    Setting(
        "max_redirects",
        int,
        5,
        "Redirects one fetch may follow; each hop is checked like the first.",
        0,
    ),
    Setting(
        "max_runs",
        int,
        4,
        "Background runs (crawl, batch_crawl, ...) one server works at once; later ones wait as "
        "queued.",
        1,
    ),
    Setting(
        "max_sessions",
        int,
        1000,
        "MCP sessions the server holds open in all. Past it, the least recently used idle session "
        "of any client is closed for the new one; with none idle, 503.",
        1,
        http=True,
    ),
    Setting(
        "port",
        int,
        8080,
        "TCP port to listen on (0 picks a free one and logs it).",
        0,
        http=True,
        rule=_port,
    ),
    Setting(
        "project_id",
        str,
        "",
        "The project run_project, get_project_data and get_logs take when a call names none (as "
        "RTILA's --project-id): a saved project's id.",
        rule=_project_id,
        server=True,
    ),
    Setting(
        "public_url",
        str,
        "",
        "Where feed readers reach netglean serve (behind a reverse proxy, say), for the feed "
        "addresses tools and pages show; empty: http://HOST:PORT of these settings.",
        rule=_public_url,
    ),
    Setting(
        "read_workers",
        int,
        -1,
        "Worker processes that parse and extract pages, so reading uses more than one CPU "
        "(0: threads in the server process only; -1: one per CPU, none on a single CPU).",
        -1,
    ),
    Setting(
        "registry",
        str,
        "netglean.generated.registry",
        "The generated registry to serve (a module): another tool pack's, made by `netglean gen "
        "--package NAME`, is NAME.registry.",
    ),
    Setting(
        "request_timeout",
        float,
        30.0,
        "Seconds a client may take to send its request body; then 408.",
        0.001,
        http=True,
    ),
    Setting(
        "resumable",
        bool,
        False,
        "Keep recent /mcp stream events so a client that drops can resume (Last-Event-ID); for "
        "remote clients.",
        http=True,
    ),
    Setting(
        "robots_agents",
        str,
        "netglean",
        "The robots.txt groups obeyed, by the product token they name, comma-separated: a path "
        "any of them disallows is not fetched, and the longest Crawl-delay among them holds. "
        "netglean's own is always one.",
        several=True,
        rule=_robots_agents,
    ),
    Setting(
        "robots_unreadable_allows",
        bool,
        False,
        "Fetch even when robots.txt answers 5xx or cannot be read (by default that means: do not "
        "fetch).",
    ),
    Setting(
        "run_retention_days",
        float,
        30.0,
        "Days a finished run (its result, log and checkpoint) is kept in the store; 0 keeps "
        "every run.",
        0,
    ),
    Setting(
        "run_workers",
        bool,
        False,
        "Hand background runs to `netglean worker` processes (through a job queue in the "
        "PostgreSQL store) instead of working them in this server; needs --store postgresql://…. "
        "Due projects are then started by the workers, once across them.",
    ),
    Setting(
        "schedule_tick",
        float,
        30.0,
        "Seconds between two looks of `netglean serve`'s scheduler for projects whose schedule "
        "has come due.",
        0.01,
        http=True,
    ),
    Setting(
        "session_budget",
        int,
        1000,
        "Fetches one session may make (an MCP session; else a client address, as for REST; the "
        "stdio client); then budget_exhausted.",
        1,
        old_flags=("--session",),
    ),
    Setting(
        "session_id",
        str,
        "",
        "A name for this server's work, shown by engine_info (as RTILA's --session-id; netglean "
        "attributes logs to runs and projects).",
        rule=_session_id,
        server=True,
    ),
    Setting(
        "session_idle_timeout",
        float,
        1800.0,
        "Seconds an MCP session may sit idle (no request in flight, no stream open) before it is "
        "closed; its client then gets 404 and opens a new one.",
        0.001,
        http=True,
    ),
    Setting(
        "shutdown_grace",
        float,
        10.0,
        "Seconds in-flight requests get to finish on shutdown.",
        0,
        http=True,
    ),
    Setting(
        "stateless",
        bool,
        False,
        "Serve /mcp without sessions: every request stands alone.",
        http=True,
    ),
    Setting(
        "store",
        str,
        "",
        "Where the run store is. Empty: a SQLite file in data_dir (embedded, the default). A URL "
        "postgresql://USER:PASSWORD@HOST:PORT/DATABASE: that PostgreSQL database, which servers on "
        "several machines share (pip install 'netglean[postgresql]'); prefer the environment "
        "variable, which keeps the password off the command line.",
        secret=True,
        rule=_store,
    ),
    Setting(
        "token",
        str,
        "",
        "Bearer token every /mcp and /v1 request must carry (prefer the environment variable).",
        http=True,
        secret=True,
    ),
    Setting(
        "trusted_proxies",
        str,
        "",
        "Addresses of the reverse proxies in front of netglean serve (IPs or networks, "
        "comma-separated): a request from one of them is counted as the client its "
        "X-Forwarded-For names (the last address not itself listed), for the per-client caps and "
        "fetch budget. List only your proxies: anyone at a listed address can name any client.",
        http=True,
        several=True,
        rule=_trusted_proxies,
    ),
    Setting(
        "user_agent",
        str,
        "",
        "The User-Agent every fetch and the browser send; empty: netglean's own, which names "
        "netglean and its version. robots.txt is still read for netglean's group.",
        rule=_user_agent,
    ),
)


@dataclass(frozen=True, slots=True)
class Settings:
    """One field per entry of ``SETTINGS`` (a test pins that); defaults live only there."""

    allow_http: bool
    allow_https_downgrade: bool
    allow_private_hosts: bool
    allow_private_targets: str
    allowed_hosts: str
    allowed_origins: str
    browser_action_timeout: float
    browser_contexts: int
    browser_evaluate: bool
    browser_path: str
    call_timeout: float
    compat: str
    crawl_workers: int
    data_dir: str
    dev: bool
    fetch_connect_timeout: float
    fetch_max_bytes: int
    fetch_max_decoded_bytes: int
    fetch_memory_budget: int
    fetch_memory_wait: float
    fetch_only_hosts: str
    fetch_read_timeout: float
    fetch_total_timeout: float
    global_concurrency: int
    header_timeout: float
    host: str
    host_concurrency: int
    host_interval: float
    ignore_robots: bool
    index_url: str
    log_level: str
    max_argument_bytes: int
    max_body_bytes: int
    max_client_calls: int
    max_client_connections: int
    max_client_sessions: int
    max_concurrent_calls: int
    max_redirects: int
    max_runs: int
    max_sessions: int
    port: int
    project_id: str
    public_url: str
    read_workers: int
    registry: str
    request_timeout: float
    resumable: bool
    robots_agents: str
    robots_unreadable_allows: bool
    run_retention_days: float
    run_workers: bool
    schedule_tick: float
    session_budget: int
    session_id: str
    session_idle_timeout: float
    shutdown_grace: float
    stateless: bool
    store: str
    token: str
    trusted_proxies: str
    user_agent: str

    @classmethod
    def load(
        cls, overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> Settings:
        """Defaults, then ``NETGLEAN_*`` environment variables, then explicit overrides (CLI
        flags)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in SETTINGS:
            values[setting.name] = setting.default
            if setting.env in env:
                values[setting.name] = setting.parse(env[setting.env], setting.env)
            given = (overrides or {}).get(setting.name)
            if given is not None:
                setting.check(given, setting.flag)
                values[setting.name] = given
        if values["run_workers"] and not values["store"]:
            raise ConfigurationError(
                "--run-workers (NETGLEAN_RUN_WORKERS) hands runs to `netglean worker` processes, "
                "which share a PostgreSQL store: name it with --store postgresql://… "
                "(NETGLEAN_STORE)"
            )
        return cls(**values)

    def feed_address(self, path: str, served_at: str = "") -> str:
        """``path`` on the address feed readers reach netglean serve at: public_url, else where it
        serves (``served_at``, once bound), else http://HOST:PORT (a port of 0, picked at start, is
        unknown before: the path alone then)."""
        if self.public_url:
            return self.public_url.rstrip("/") + path
        if served_at:
            return served_at + path
        if not self.port:
            return path
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"

    def tighten(self, values: Mapping[str, Any]) -> Settings:
        """These settings with each of ``values`` (a profile's policy, keys of ``TIGHTER``) where it
        is stricter."""
        changed: dict[str, Any] = {}
        for name, value in values.items():
            own, way = getattr(self, name), TIGHTER[name]
            if way == "more":
                more = ",".join(dict.fromkeys((*_split_list(own), *_split_list(value))))
                if more != ",".join(_split_list(own)):
                    changed[name] = more
                continue
            stricter = (
                (own and not value)
                if way == "off"
                else (value < own if way == "lower" else value > own)
            )
            if stricter:
                # off: False, or no list at all
                changed[name] = type(own)() if way == "off" else value
        return replace(self, **changed) if changed else self

    @property
    def compat_sets(self) -> tuple[str, ...]:
        """The compat sets ``compat`` names, in the order given."""
        return _split_list(self.compat)

    def policy(self) -> dict[str, bool | int | float]:
        """The settings as booleans and numbers only (no strings, no secrets): safe to show to any
        client."""
        secret = {s.name for s in SETTINGS if s.secret}
        shown = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in secret}
        policy: dict[str, bool | int | float] = {
            k: v for k, v in shown.items() if isinstance(v, bool | int | float)
        }
        policy["token_required"] = bool(self.token)
        return policy

    def __repr__(self) -> str:
        """Secrets never reach a log line or a traceback through repr."""
        secret = {s.name for s in SETTINGS if s.secret}
        shown = ", ".join(
            f"{f.name}={'***' if f.name in secret else repr(getattr(self, f.name))}"
            for f in fields(self)
        )
        return f"Settings({shown})"
