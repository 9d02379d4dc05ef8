"""Every byte netglean reads from the web comes through ``Fetcher.fetch``.

For each hop (the first request and every redirect) the host is resolved and
EVERY address checked (netglean.net.addresses); the TCP connection is then pinned to
the checked address through aiohttp's resolver hook, so DNS cannot answer
differently a moment later, while the Host header and TLS SNI stay the URL's. Bodies
are streamed under a cap on bytes as sent and a cap on bytes after decompression
(decoded here, bounded, never by a library that inflates a bomb in one go), and every
body counts against one server-wide memory budget until its page is let go; connect,
read and total deadlines hold even against a server that drips one byte at a time.
robots.txt is read first and cached per origin; a per-host and a global limiter
space the requests; a session budget caps them. aiohttp errors become netglean
errors here and nowhere else. aiohttp carries the requests (about ten times less work
per request than httpx on the same pages, measured in bench/); httpx.URL parses URLs.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import ssl
import time
import zlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import anyio
import httpx
import yarl
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.tracing import Trace

from netglean._version import __version__
from netglean.core.errors import (
    BadUrl,
    BlockedAddress,
    BudgetExhausted,
    ConfigurationError,
    FetchTimeout,
    HttpStatus,
    ResponseTooLarge,
    RobotsDisallowed,
    SchemeDowngrade,
    TooManyRedirects,
    Unavailable,
    Unreachable,
    UnsupportedContent,
)
from netglean.core.settings import Settings
from netglean.net.addresses import Targets, literal_ip, refusal
from netglean.read.document import Document, decode, sniff

ROBOTS_AGENT = "netglean"
USER_AGENT = f"netglean/{__version__} (+https://github.com/netglean/netglean; AI agent web tools)"
REDIRECTS = frozenset({301, 302, 303, 307, 308})

Resolver = Callable[[str, int], Awaitable[list[str]]]


async def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host``, in its order."""
    try:
        answers = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise Unreachable(f"could not resolve {host}: {exc.strerror or exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in answers))


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """The operator's network policy, fixed at start-up. Tools may only ask for less."""

    allow_private_hosts: bool
    allow_https_downgrade: bool
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
    private_targets: Targets = field(default_factory=Targets)
    """The hosts and networks of ``allow_private_targets``, read once (netglean.net.addresses says what they open)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchPolicy:
        try:
            private_targets = Targets.parse(settings.allow_private_targets)
        except ValueError as exc:
            raise ConfigurationError(f"allow_private_targets: {exc}") from None
        return cls(
            allow_private_hosts=settings.allow_private_hosts,
            allow_https_downgrade=settings.allow_https_downgrade,
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
                h.strip().lower().strip("[]") for h in settings.fetch_only_hosts.split(",") if h.strip()
            ),
            private_targets=private_targets,
        )


@dataclass(frozen=True, slots=True)
class Hop:
    url: str
    status: int


class MemoryBudget:
    """Response bytes (decompressed) the server holds at once, across every fetch: one per fetcher.

    A body reserves the most it can decode to (its Content-Length when it is sent as is, else the
    cap) before its first byte is read, all at once, and gives back what it did not use when the
    read ends; the rest stays reserved until its page is let go (``Lease``). A read never waits
    while holding part of its body, so half-read bodies cannot wait on one another: one that is
    reading needs nothing more to finish. A reservation that finds no room waits, in turn (a large
    one is not passed by small ones), at most ``wait`` seconds, then fails as ``Unavailable``.

    Bytes may come back from any thread (a page let go in a worker thread, or by the garbage
    collector in the middle of other code), so they are queued and counted on the event loop.
    """

    def __init__(self, size: int, wait: float) -> None:
        self.size = size
        self.wait = wait
        self._held = 0
        self._returned: deque[int] = deque()
        self._waiting: deque[_Waiter] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def held(self) -> int:
        """Bytes reserved now (bodies being read, and pages not yet let go)."""
        return self._held - sum(list(self._returned))

    async def reserve(self, amount: int, url: str) -> Lease:
        self._loop = asyncio.get_running_loop()
        self._settle()
        if not self._waiting and self._held + amount <= self.size:
            self._held += amount
            return Lease(self, amount)
        waiter = _Waiter(amount)
        self._waiting.append(waiter)
        self._grant()  # bytes given back since _settle, while nobody was waiting, woke nobody: count them now
        try:
            with anyio.move_on_after(self.wait):
                await waiter.granted.wait()
        except BaseException:  # cancelled (the fetch's deadline, or its caller): withdraw, granted or not
            self._withdraw(waiter)
            raise
        if not waiter.granted.is_set():
            self._withdraw(waiter)
            raise Unavailable(
                f"no room for the response of {url} within {self.wait:g} s: the pages this server holds and "
                f"reads fill its memory budget ({self.size} bytes); try again shortly",
                detail={"url": url, "memory_budget": self.size},
            )
        return Lease(self, amount)

    def _withdraw(self, waiter: _Waiter) -> None:
        if waiter.granted.is_set():
            self._give_back(waiter.amount)
        else:
            self._waiting.remove(waiter)
            self._grant()  # those behind it may fit now

    def _give_back(self, amount: int) -> None:
        """Return bytes from any thread: queued, then counted (and waiters served) on the event loop. The loop is
        woken only for a waiter: waking it for every page let go cost two system calls a page (its self-pipe)."""
        self._returned.append(amount)
        if self._waiting and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # a closed loop: the next reservation counts what came back
                self._loop.call_soon_threadsafe(self._grant)

    def _settle(self) -> None:
        while self._returned:
            self._held -= self._returned.popleft()

    def _grant(self) -> None:
        self._settle()
        while self._waiting and self._held + self._waiting[0].amount <= self.size:
            waiter = self._waiting.popleft()
            self._held += waiter.amount
            waiter.granted.set()


@dataclass(eq=False, slots=True)
class _Waiter:
    amount: int
    granted: anyio.Event = field(default_factory=anyio.Event)


class Lease:
    """The bytes one body holds in the ``MemoryBudget``: given back when shrunk, released, or dropped with its page."""

    __slots__ = ("_budget", "amount")

    def __init__(self, budget: MemoryBudget, amount: int) -> None:
        self._budget = budget
        self.amount = amount

    def shrink(self, amount: int) -> None:
        if amount < self.amount:
            self._budget._give_back(self.amount - amount)
            self.amount = amount

    def release(self) -> None:
        self.shrink(0)

    def __del__(self) -> None:
        self.release()


@dataclass(frozen=True, slots=True)
class Page:
    """One fetched response: where it came from, how it got there, and its (decoded) body.

    The body's bytes count against the fetcher's memory budget for as long as the page (or a copy
    made with ``dataclasses.replace``) is held: a handler lets them go by letting the page go.
    """

    requested_url: str
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    redirects: tuple[Hop, ...] = ()
    downgraded: bool = False
    lease: Lease | None = field(default=None, repr=False, compare=False, kw_only=True)

    @property
    def media_type(self) -> str:
        """The declared media type, or a sniffed one when the server sent none or octet-stream."""
        declared = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if declared and declared != "application/octet-stream":
            return declared
        return sniff(self.body) or declared or "application/octet-stream"

    @property
    def charset(self) -> str | None:
        match = re.search(r"charset=[\"']?([\w.:-]+)", self.headers.get("content-type", ""), re.IGNORECASE)
        return match.group(1).lower() if match else None

    @property
    def document(self) -> Document:
        """The body as reader jobs take it (netglean.read.jobs): decoded there, off the event loop."""
        return Document(self.url, self.body, self.charset, self.media_type)


Dial = Callable[[str, int], tuple[str, int]]
"""Where a connection to a checked (address, port) really goes: the identity, except in tests."""


def _direct(address: str, port: int) -> tuple[str, int]:
    return address, port


def _pin_key(host: str) -> str:
    """How a host's pin is filed: an IP literal in its canonical spelling, a name in lower case."""
    literal = literal_ip(host)
    return str(literal) if literal is not None else host.lower()


class _PinnedResolver(AbstractResolver):
    """aiohttp's resolver, answering only with the address the fetcher checked for the host: the pin.

    aiohttp keeps the Host header and TLS SNI of the URL while the socket goes to this
    address. IP-literal hosts come here too (``_PinnedConnector``): their pin is themselves.
    """

    def __init__(self, pins: Mapping[str, str], dial: Dial) -> None:
        self._pins = pins
        self._dial = dial

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        address = self._pins.get(_pin_key(host))
        if address is None:
            raise BlockedAddress(f"refusing to connect to {host}: it was not checked")
        address, port = self._dial(address, port)
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    async def close(self) -> None:
        return None


class _PinnedConnector(aiohttp.TCPConnector):
    """aiohttp's connector, asking the pinned resolver for IP-literal hosts as well as names.

    aiohttp connects to a literal host without asking its resolver; routed through it, every
    connection goes where the fetcher's ``dial`` says, so a test's dialler sees (and can
    refuse) literal targets too, and an unchecked literal is refused like an unchecked name.
    """

    async def _resolve_host(self, host: str, port: int, traces: Sequence[Trace] | None = None) -> list[ResolveResult]:
        return await self._resolver.resolve(host, port, family=self._family)


@dataclass(frozen=True, slots=True)
class _Ask:
    """What one fetch asks for, within the policy: how every hop is requested and read."""

    accept: str
    cap: int
    error_pages: bool
    headers: dict[str, str]
    max_redirects: int


@dataclass
class _HostState:
    limit: anyio.Semaphore
    next_start: float = 0.0
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class _Robots:
    """A parsed robots.txt, or a verdict for every path when it was missing or unreadable."""

    def __init__(self, parser: Any | None, everything: bool | None, reason: str = "") -> None:
        self.parser = parser
        self.everything = everything
        self.reason = reason

    def allows(self, url: str) -> bool:
        if self.parser is None:
            return bool(self.everything)
        return bool(self.parser.can_fetch(url, ROBOTS_AGENT))

    def sitemaps(self) -> list[str]:
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self) -> float:
        delay = self.parser.crawl_delay(ROBOTS_AGENT) if self.parser is not None else None
        return float(delay or 0.0)


class RobotsCache:
    """robots.txt per origin, bounded and expiring.

    RFC 9309 asks crawlers not to trust a cached robots.txt for more than a day; an
    unreadable one (5xx, timeout) is asked again sooner, so a passing outage does not
    keep a site closed for a day. Past ``size`` origins the least recently used goes.
    """

    def __init__(
        self,
        size: int = 4096,
        ttl: float = 86_400.0,
        unreadable_ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._items: OrderedDict[str, tuple[float, _Robots]] = OrderedDict()
        self._size, self._ttl, self._unreadable_ttl, self._clock = size, ttl, unreadable_ttl, clock

    def get(self, origin: str) -> _Robots | None:
        item = self._items.get(origin)
        if item is None:
            return None
        expires, robots = item
        if self._clock() >= expires:
            del self._items[origin]
            return None
        self._items.move_to_end(origin)
        return robots

    def put(self, origin: str, robots: _Robots) -> None:
        unreadable = robots.parser is None and robots.reason
        self._items[origin] = (self._clock() + (self._unreadable_ttl if unreadable else self._ttl), robots)
        self._items.move_to_end(origin)
        while len(self._items) > self._size:
            self._items.popitem(last=False)


class Fetcher:
    def __init__(
        self,
        policy: FetchPolicy,
        *,
        resolver: Resolver = system_resolve,
        dial: Dial = _direct,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.policy = policy
        self._resolve = resolver
        self._dial = dial
        self._ssl = ssl_context
        # Per host (its ASCII form): the checked address connections are pinned to. Bounded: dropping an
        # old pin can only make a later connect refuse ("not checked"), never skip the check.
        self._pins: OrderedDict[str, str] = OrderedDict()
        self._verdicts: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        self._session: aiohttp.ClientSession | None = None
        self._hosts: OrderedDict[str, _HostState] = OrderedDict()
        self._global = anyio.Semaphore(policy.global_concurrency)
        self._robots = RobotsCache()
        self.memory = MemoryBudget(policy.memory_budget, policy.memory_wait)
        self.spent = 0

    def prepare(self) -> None:
        """Load the trusted certificates ahead of the first fetch (~30 ms); blocking, so a worker thread's job."""
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()

    def _client(self) -> aiohttp.ClientSession:
        """The HTTP session, made on first use inside the running event loop.

        Decompression is left to ``_read_body`` (bounded), cookies are never kept between
        requests, and neither proxies nor .netrc from the environment apply.
        """
        if self._session is None:
            connector = _PinnedConnector(
                resolver=_PinnedResolver(self._pins, self._dial),
                use_dns_cache=False,
                ssl=self._ssl or httpx.create_ssl_context(),  # prepare() may have loaded it already
                limit=self.policy.global_concurrency,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=self.policy.connect_timeout, sock_read=self.policy.read_timeout
                ),
                headers={"user-agent": USER_AGENT, "accept-encoding": "gzip, deflate"},
            )
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def fetch(
        self,
        url: str,
        *,
        accept: str = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
        max_bytes: int | None = None,
        error_pages: bool = False,
        headers: Mapping[str, str] | None = None,
        max_redirects: int | None = None,
        timeout: float | None = None,
    ) -> Page:
        """GET ``url`` under the whole policy; ``max_bytes`` may only lower the operator's cap.

        A 4xx/5xx answer raises ``HttpStatus`` unless ``error_pages``: then it is returned like any
        page, for tools that diagnose what a server sends (a challenge page is often a 403).
        ``headers`` (a feed config's) are sent too, except those netglean itself decides: the
        Host, its honest User-Agent, encodings, framing and connection headers. ``max_redirects`` and
        ``timeout`` (seconds in all) may only lower the operator's limits.
        """
        cap = min(max_bytes or self.policy.max_bytes, self.policy.max_bytes)
        hops = min(self.policy.max_redirects, self.policy.max_redirects if max_redirects is None else max_redirects)
        deadline = min(self.policy.total_timeout, timeout or self.policy.total_timeout)
        try:
            with anyio.fail_after(deadline):
                ask = _Ask(accept, cap, error_pages, _allowed_headers(headers or {}), hops)
                return await self._follow(url, ask)
        except TimeoutError:
            raise FetchTimeout(f"fetching {url} took longer than {deadline:g} s", detail={"url": url}) from None

    async def _follow(self, url: str, ask: _Ask) -> Page:
        current = parse_url(url)
        hops: list[Hop] = []
        downgraded = False
        for _ in range(ask.max_redirects + 1):
            await self._pin(current)  # the address policy first: a refused host is never asked for robots.txt
            if self.policy.obey_robots:
                await self._check_robots(current)
            response_status, headers, body, lease = await self._get(current, ask.accept, ask.cap, ask.headers)
            location = headers.get("location")
            if response_status in REDIRECTS and location:
                target = _redirect_target(current, location)
                if current.scheme == "https" and target.scheme == "http":
                    if not self.policy.allow_https_downgrade:
                        raise SchemeDowngrade(
                            f"{current} redirects to plain http ({target}); the operator does not allow downgrades",
                            detail={"from": str(current), "to": str(target)},
                        )
                    downgraded = True
                hops.append(Hop(str(current), response_status))
                current = target
                continue
            if response_status >= 400 and not ask.error_pages:
                if lease is not None:
                    lease.release()  # now, not when the traceback that holds it is let go
                raise HttpStatus(
                    f"{current} answered HTTP {response_status}", status=response_status, detail={"url": str(current)}
                )
            return Page(url, str(current), response_status, headers, body, tuple(hops), downgraded, lease=lease)
        raise TooManyRedirects(
            f"more than {ask.max_redirects} redirects from {url}",
            detail={"redirects": [hop.url for hop in hops]},
        )

    async def robots_verdict(self, url: str) -> str:
        """What robots.txt says of ``url`` for netglean: allowed, disallowed, unreadable, or ignored (operator)."""
        if not self.policy.obey_robots:
            return "ignored"
        parsed = parse_url(url)
        await self._pin(parsed)
        try:
            await self._check_robots(parsed)
        except RobotsDisallowed as refusal:
            return str(refusal.detail["verdict"])
        return "allowed"

    async def sitemaps(self, url: str) -> list[str]:
        """The Sitemap: lines of the robots.txt of ``url``'s origin (read under the whole policy, then cached)."""
        parsed = parse_url(url)
        await self._pin(parsed)
        return (await self._robots_for(parsed)).sitemaps()

    async def _robots_for(self, url: httpx.URL) -> _Robots:
        origin = f"{url.scheme}://{url.netloc.decode('ascii')}"
        robots = self._robots.get(origin)
        if robots is None:
            robots = await self._read_robots(origin)
            self._robots.put(origin, robots)
        return robots

    async def _check_robots(self, url: httpx.URL) -> None:
        origin = f"{url.scheme}://{url.netloc.decode('ascii')}"
        robots = await self._robots_for(url)
        if robots.parser is None and robots.everything is False:
            raise RobotsDisallowed(
                f"{origin}/robots.txt {robots.reason}, so nothing there is fetched",
                detail={"robots": f"{origin}/robots.txt", "verdict": "unreadable"},
            )
        if not robots.allows(str(url)):
            raise RobotsDisallowed(
                f"{origin}/robots.txt disallows {url} for {ROBOTS_AGENT}",
                detail={"robots": f"{origin}/robots.txt", "verdict": "disallowed"},
            )

    async def _read_robots(self, origin: str) -> _Robots:
        import protego

        robots_url = parse_url(f"{origin}/robots.txt")
        unreadable = _Robots(None, self.policy.robots_unreadable_allows, "could not be read")
        try:
            for _ in range(self.policy.max_redirects + 1):
                status, headers, body, lease = await self._get(robots_url, "text/plain", 512 * 1024)
                if status in REDIRECTS and headers.get("location"):
                    robots_url = _redirect_target(robots_url, headers["location"])
                    await self._pin(robots_url)
                    continue
                break
        except (Unreachable, FetchTimeout, ResponseTooLarge, UnsupportedContent, BlockedAddress, BadUrl):
            return unreadable
        try:
            if 400 <= status < 500:
                return _Robots(None, True)  # no robots.txt: everything is allowed
            if status >= 500 or status in REDIRECTS:
                return _Robots(None, self.policy.robots_unreadable_allows, f"answered HTTP {status}")
            return _Robots(protego.Protego.parse(decode(body, None)), None)
        finally:
            if lease is not None:
                lease.release()  # what robots.txt says is kept, parsed; its body is not

    async def _get(
        self, url: httpx.URL, accept: str, cap: int, extra: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes, Lease | None]:
        """One request to an already pinned host, no redirects: budget, politeness, bounded body and its lease."""
        if self.spent >= self.policy.session_budget:
            raise BudgetExhausted(f"this session has made its {self.policy.session_budget} requests")
        self.spent += 1
        host = url.host
        async with self._polite(host, url):
            request = self._client().get(
                yarl.URL(str(url), encoded=True), headers={"accept": accept, **(extra or {})}, allow_redirects=False
            )
            try:
                async with request as response:
                    headers = {name.lower(): ", ".join(response.headers.getall(name)) for name in response.headers}
                    if response.status in REDIRECTS:
                        return response.status, headers, b"", None
                    body, lease = await _read_body(
                        response.content, headers, cap, self.policy.max_decoded_bytes, memory=self.memory, url=str(url)
                    )
                    return response.status, headers, body, lease
            except TimeoutError as exc:  # aiohttp's connect and read timeouts; the total deadline is fetch's
                raise FetchTimeout(
                    f"{url} did not answer in time ({type(exc).__name__})", detail={"url": str(url)}
                ) from exc
            except (aiohttp.ClientError, OSError) as exc:
                raise Unreachable(f"could not read {url}: {_reason(exc)}", detail={"url": str(url)}) from exc

    async def _pin(self, url: httpx.URL) -> None:
        """Resolve the URL's host, check every address, and pin connections to the first one."""
        host = _pin_key(url.raw_host.decode("ascii"))
        port = url.port or (443 if url.scheme == "https" else 80)
        if self.policy.only_hosts and host not in self.policy.only_hosts:
            raise BlockedAddress(
                f"{host} is not among the hosts the operator allows", detail={"host": host, "reason": "not allowed"}
            )
        literal = literal_ip(host)
        addresses = [str(literal)] if literal else await self._resolve(host, port)
        if not addresses:
            raise Unreachable(f"{host} has no address")
        for address in addresses:
            reason = self._verdict(host, address)
            if reason:
                raise BlockedAddress(
                    f"{host} resolves to {address}, which is {reason}; the operator's policy does not allow it",
                    detail={"host": host, "address": address, "reason": reason},
                )
        self._pins[host] = addresses[0]
        self._pins.move_to_end(host)
        while len(self._pins) > _TRACKED_HOSTS:
            self._pins.popitem(last=False)

    def _verdict(self, host: str, address: str) -> str | None:
        """Why the policy refuses ``host`` at ``address``, or None; remembered, as the policy never changes and
        reading addresses with the ipaddress module was a sixth of a fetch's CPU on a site read page by page."""
        key = (host, address)
        if key in self._verdicts:
            self._verdicts.move_to_end(key)
            return self._verdicts[key]
        ip = literal_ip(address)
        policy = self.policy
        reason = (
            refusal(host, ip, private=policy.allow_private_hosts, listed=policy.private_targets)
            if ip
            else "unparsable address"
        )
        self._verdicts[key] = reason
        while len(self._verdicts) > _TRACKED_HOSTS:
            self._verdicts.popitem(last=False)
        return reason

    @asynccontextmanager
    async def _polite(self, host: str, url: httpx.URL) -> AsyncIterator[None]:
        state = self._hosts.get(host)
        if state is None:
            state = self._hosts[host] = _HostState(anyio.Semaphore(self.policy.host_concurrency))
            self._forget_idle_hosts()
        self._hosts.move_to_end(host)
        robots = self._robots.get(f"{url.scheme}://{url.netloc.decode('ascii')}")
        interval = max(self.policy.host_interval, robots.crawl_delay() if robots else 0.0)
        async with self._global, state.limit:
            async with state.lock:
                wait = state.next_start - time.monotonic()
                state.next_start = max(state.next_start, time.monotonic()) + interval
            if wait > 0:
                await anyio.sleep(wait)
            yield

    def _forget_idle_hosts(self) -> None:
        """Keep politeness state for at most _TRACKED_HOSTS hosts, dropping only idle ones (oldest first)."""
        now = time.monotonic()
        for host in list(self._hosts)[: max(0, len(self._hosts) - _TRACKED_HOSTS)]:
            state = self._hosts[host]
            idle = state.limit.value == self.policy.host_concurrency and not state.lock.locked()
            if idle and state.next_start <= now:
                del self._hosts[host]


_TRACKED_HOSTS = 4096
"""Hosts whose pins and politeness state a fetcher keeps; beyond that the least recently used go."""


_OWN_HEADERS = frozenset(
    {
        "host", "user-agent", "accept-encoding", "content-length", "transfer-encoding", "connection",
        "keep-alive", "te", "trailer", "upgrade", "proxy-authorization", "proxy-connection",
    }
)  # fmt: skip


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 field names
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # no line breaks or controls smuggled into a request


def _allowed_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {
        name.lower(): value
        for name, value in headers.items()
        if name.lower() not in _OWN_HEADERS and _TOKEN.fullmatch(name) and not _BAD_VALUE.search(value)
    }


def parse_url(url: str) -> httpx.URL:
    """``url`` as an httpx URL, or ``BadUrl`` saying why it will not be fetched."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadUrl(f"not a URL: {url!r} ({exc})") from exc
    if parsed.scheme not in {"http", "https"}:
        raise BadUrl(f"only http and https URLs are fetched, not {parsed.scheme or 'a relative URL'}: {url!r}")
    if not parsed.host:
        raise BadUrl(f"the URL has no host: {url!r}")
    if parsed.userinfo:
        raise BadUrl("URLs with credentials (user:password@) are not fetched")
    literal = literal_ip(parsed.host)
    if literal is not None and literal.version == 4 and parsed.host != str(literal):
        # 2130706433, 0x7f.1, 127.1: spelled the canonical way, as browsers do, so the
        # address checked and the address connected to are written alike.
        parsed = parsed.copy_with(host=str(literal))
    return parsed


def _redirect_target(current: httpx.URL, location: str) -> httpx.URL:
    """Where a Location header points from ``current``, or ``BadUrl`` (a target's header is untrusted input)."""
    try:
        joined = current.join(location)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise BadUrl(f"{current} redirects to something that is not a URL", detail={"from": str(current)}) from exc
    return parse_url(str(joined))


def _reason(exc: BaseException) -> str:
    """A short cause for a failed request, without aiohttp's connection-key noise."""
    cause = exc.__cause__ or exc
    detail = getattr(cause, "strerror", None) or str(cause)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


async def _read_body(
    stream: aiohttp.StreamReader,
    headers: Mapping[str, str],
    cap: int,
    decoded_cap: int,
    *,
    memory: MemoryBudget,
    url: str,
) -> tuple[bytes, Lease]:
    """The body, read under both caps, with its reservation in ``memory`` (all of it taken before the first byte)."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise ResponseTooLarge(f"the response is {declared} bytes; the limit is {cap}", detail={"limit": cap})
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding in {"gzip", "x-gzip"}:
        decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = _Deflate()
    elif encoding in {"identity", ""}:
        decoder = None
    else:
        raise UnsupportedContent(f"unsupported content-encoding {encoding!r}")
    limit = min(decoded_cap, memory.size)  # no body may be larger than the whole budget
    passed = "decompresses past" if decoder is not None else "passed"
    # A body sent as is decodes to what it declares (aiohttp reads no further), else to at most the cap.
    most = min(int(declared) if declared.isdigit() else cap, limit) if decoder is None else limit
    lease = await memory.reserve(most, url)
    try:
        received = 0
        body = bytearray()
        async for chunk in stream.iter_any():
            received += len(chunk)
            if received > cap:
                raise ResponseTooLarge(f"the response passed {cap} bytes", detail={"limit": cap})
            if decoder is None:
                body += chunk
            else:
                try:
                    body += decoder.decompress(chunk, limit - len(body) + 1)
                except zlib.error as exc:
                    raise UnsupportedContent(f"the {encoding} body is corrupt: {exc}") from exc
                if decoder.unconsumed_tail:  # more output is waiting than the cap leaves room for
                    raise ResponseTooLarge(f"the response {passed} {limit} bytes", detail={"limit": limit})
            if len(body) > limit or len(body) > lease.amount:
                raise ResponseTooLarge(f"the response {passed} {limit} bytes", detail={"limit": limit})
        lease.shrink(len(body))
        return bytes(body), lease
    except BaseException:
        lease.release()
        raise


class _Deflate:
    """HTTP "deflate" is zlib-wrapped by the spec and raw deflate in practice: accept both."""

    def __init__(self) -> None:
        self._inner: Any = None

    @property
    def unconsumed_tail(self) -> bytes:
        return bytes(self._inner.unconsumed_tail) if self._inner is not None else b""

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._inner is None:
            self._inner = zlib.decompressobj()
            try:
                return bytes(self._inner.decompress(data, max_length))
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return bytes(self._inner.decompress(data, max_length))
