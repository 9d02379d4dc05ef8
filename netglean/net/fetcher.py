"""Every byte netglean reads from the web comes through ``Fetcher.fetch``.

For each hop (the first request and every redirect) the URL is admitted: its host resolved and EVERY
address checked (netglean.net.addresses), the connection pinned to the checked address, robots.txt
read (once per origin however many fetches ask at once, then cached) and obeyed. The request then
goes through the transport (netglean.net.transport, aiohttp) under the limiter's spacing and caps
and the session's budget, which robots.txt reads spend too; its body is read under the caps and the
memory budget (netglean.net.bodies); connect, read and total deadlines hold even against a server
that drips one byte at a time.

One Fetcher serves a whole server: pins, robots.txt, politeness and memory are shared. Each session
spends its own budget through ``spending(budget)``, a view that shares everything else.
"""

from __future__ import annotations

import copy
import logging
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import anyio

from netglean.core.errors import (
    BadUrl,
    BlockedAddress,
    FetchTimeout,
    HttpStatus,
    OperatorPolicy,
    ResponseTooLarge,
    RobotsDisallowed,
    SchemeDowngrade,
    TooManyRedirects,
    Unreachable,
    UnsupportedContent,
)
from netglean.net.addresses import literal_ip, private_range, refusal
from netglean.net.bodies import read_body
from netglean.net.memory import Lease, MemoryBudget
from netglean.net.page import Hop, Page
from netglean.net.policy import REDIRECTS, FetchPolicy
from netglean.net.politeness import TRACKED, Budget, HostLimiter, Limiter, SessionBudget
from netglean.net.robots import Robots, RobotsCache, RobotsResponse
from netglean.net.urls import allowed_headers, parse_url, pin_key, redirect_target
from netglean.net.wire import Dial, Response, Transport, direct
from netglean.read.document import decode

if TYPE_CHECKING:
    import ssl

    import httpx

Resolver = Callable[[str, int], Awaitable[list[str]]]

log = logging.getLogger("netglean.fetch")


async def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host``, in its order."""
    try:
        answers = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise Unreachable(f"could not resolve {host}: {exc.strerror or exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in answers))


ROBOTS_MAX_BYTES = 512 * 1024
"""The most of robots.txt read: RFC 9309 asks crawlers to read at least 500 KiB."""
ROBOTS_RESPONSES = 64
"""Origins whose robots.txt answer (its text) a fetcher keeps for scans: the rules of thousands are
kept, the text of a few (at most ROBOTS_ANSWERS x ROBOTS_MAX_BYTES)."""


@dataclass(frozen=True, slots=True)
class _Ask:
    """What one fetch asks for, within the policy: how every hop is requested and read."""

    accept: str
    cap: int
    error_pages: bool
    headers: dict[str, str]
    max_redirects: int


class _Carrier:
    """The transport, made on first use (importing aiohttp costs ~100 ms that listing tools need
    never pay), and shared by every view of a fetcher."""

    def __init__(self, make: Callable[[], Transport]) -> None:
        self._make = make
        self._transport: Transport | None = None
        self._making = threading.Lock()
        self._loading: anyio.Event | None = None

    def prepare(self) -> Transport:
        """The transport made, its certificates loaded: blocking (aiohttp is imported), so for a
        worker thread."""
        with self._making:  # made once, however many threads ask at once
            if self._transport is None:
                transport = self._make()
                transport.prepare()
                self._transport = transport
            return self._transport

    async def ready(self) -> None:
        """Prepared in a worker thread on first use: imported on the event loop, the transport would
        hold every call's deadline while it loads. The fetches that come meanwhile wait for the one
        loading, and go on together, as they would have without the wait; one that stops waiting
        (its deadline) leaves it loading for the next."""
        while self._transport is None:
            loading = self._loading
            if loading is not None:
                await loading.wait()
                continue
            loading = self._loading = anyio.Event()
            try:
                await anyio.to_thread.run_sync(self.prepare, abandon_on_cancel=True)
            finally:
                self._loading = None
                loading.set()

    def get(self) -> Transport:
        return self._transport or self.prepare()

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()


class Fetcher:
    def __init__(
        self,
        policy: FetchPolicy,
        *,
        resolver: Resolver = system_resolve,
        dial: Dial = direct,
        ssl_context: ssl.SSLContext | None = None,
        transport: Transport | None = None,
        limiter: Limiter | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.policy = policy
        self._resolve = resolver
        # Per host (its ASCII form): the checked address connections are pinned to. Bounded:
        # dropping an old pin can only make a later connect refuse ("not checked"), never skip the
        # check.
        self._pins: OrderedDict[str, str] = OrderedDict()
        self._verdicts: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        self._dial = dial
        self._carrier = _Carrier(
            lambda: transport or _aiohttp(policy, self._pins, dial, ssl_context)
        )
        self.limiter = limiter or HostLimiter(policy.host_concurrency, policy.global_concurrency)
        self.budget: Budget = budget or SessionBudget(policy.session_budget)
        self._robots = RobotsCache()
        self._robots_responses: OrderedDict[str, RobotsResponse] = OrderedDict()
        self.memory = MemoryBudget(policy.memory_budget, policy.memory_wait)

    def spending(self, budget: Budget) -> Fetcher:
        """This fetcher, its requests counted against ``budget``: pins, robots.txt, limits and
        memory shared."""
        view = copy.copy(self)
        view.budget = budget
        return view

    def obeying_robots(self) -> Fetcher:
        """This fetcher obeying robots.txt even where the operator lets fetches ignore it: a call
        may tighten the policy, never loosen it (pins, robots.txt cache, limits, memory and budget
        shared)."""
        if self.policy.obey_robots:
            return self
        view = copy.copy(self)
        view.policy = replace(self.policy, obey_robots=True)
        return view

    def prepare(self) -> None:
        """Everything the first fetch would otherwise wait for (the transport, its certificates);
        blocking, for a worker thread."""
        self._carrier.prepare()

    async def ready(self) -> None:
        """``prepare`` in a worker thread, the first time: every way in awaits it first (it imports
        what reads URLs too)."""
        await self._carrier.ready()

    async def aclose(self) -> None:
        await self._carrier.aclose()

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
        ``headers`` (a feed config's) are sent too, except those netglean itself decides: the Host,
        its honest User-Agent, encodings, framing and connection headers. ``max_redirects`` and
        ``timeout`` (seconds in all) may only lower the operator's limits.
        """
        cap = min(max_bytes or self.policy.max_bytes, self.policy.max_bytes)
        hops = min(
            self.policy.max_redirects,
            self.policy.max_redirects if max_redirects is None else max_redirects,
        )
        deadline = min(self.policy.total_timeout, timeout or self.policy.total_timeout)
        try:
            with anyio.fail_after(deadline):
                await self.ready()
                ask = _Ask(accept, cap, error_pages, allowed_headers(headers or {}), hops)
                return await self._follow(url, ask)
        except TimeoutError:
            raise FetchTimeout(
                f"fetching {url} took longer than {deadline:g} s", detail={"url": url}
            ) from None

    async def admit(self, url: httpx.URL) -> None:
        """What every hop passes before a request: the address policy (the host resolved, every
        address checked, connections pinned to the first), then robots.txt. Any transport, a
        browser's too, may ask it."""
        await self.ready()
        if url.scheme == "http" and not self.policy.allow_http:
            raise OperatorPolicy(
                f"{url} is plain http, and the operator fetches https URLs only",
                detail={"setting": "allow_http"},
            )
        # the address policy first: a refused host is never asked for robots.txt
        await self._pin(url)
        if self.policy.obey_robots:
            await self._check_robots(url)

    async def connect_target(self, host: str, port: int) -> tuple[str, int]:
        """Where a connection to ``host``:``port`` may go under the address policy: the host
        resolved, every address checked, the connection pinned to the first; the (address, port) to
        connect to. What the browser's proxy asks before it opens any connection (robots.txt is
        asked per request, by the browser's router)."""
        if not 0 < port < 65536:
            raise BadUrl(f"port {port} is not a port")
        await self.ready()
        await self._pin(parse_url(f"http://{host if ':' not in host else f'[{host}]'}:{port}/"))
        return self._dial(self._pins[pin_key(host.strip("[]"))], port)

    async def _follow(self, url: str, ask: _Ask) -> Page:
        current = parse_url(url)
        origin = (current.scheme, current.host, current.port)
        hops: list[Hop] = []
        downgraded = False
        for _ in range(ask.max_redirects + 1):
            await self.admit(current)
            # A config's headers (a token, a cookie) go to its page's origin only, never where it
            # redirects.
            extra = ask.headers if (current.scheme, current.host, current.port) == origin else None
            response_status, headers, body, lease = await self._get(
                current, ask.accept, ask.cap, extra
            )
            location = headers.get("location")
            if response_status in REDIRECTS and location:
                target = redirect_target(current, location)
                if current.scheme == "https" and target.scheme == "http":
                    if not self.policy.allow_https_downgrade:
                        raise SchemeDowngrade(
                            f"{current} redirects to plain http ({target}); the operator does "
                            "not allow downgrades",
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
                    f"{current} answered HTTP {response_status}",
                    status=response_status,
                    detail={"url": str(current)},
                )
            return Page(
                url,
                str(current),
                response_status,
                headers,
                body,
                tuple(hops),
                downgraded,
                lease=lease,
            )
        raise TooManyRedirects(
            f"more than {ask.max_redirects} redirects from {url}",
            detail={"redirects": [hop.url for hop in hops]},
        )

    async def robots_verdict(self, url: str) -> str:
        """What robots.txt says of ``url`` for netglean: allowed, disallowed, unreadable, or ignored
        (operator)."""
        if not self.policy.obey_robots:
            return "ignored"
        await self.ready()
        parsed = parse_url(url)
        await self._pin(parsed)
        try:
            await self._check_robots(parsed)
        except RobotsDisallowed as refused:
            return str(refused.detail["verdict"])
        return "allowed"

    async def sitemaps(self, url: str) -> list[str]:
        """The Sitemap: lines of the robots.txt of ``url``'s origin (read under the whole policy,
        then cached)."""
        await self.ready()
        parsed = parse_url(url)
        await self._pin(parsed)
        return (await self._robots_for(parsed)).sitemaps()

    async def _robots_for(self, url: httpx.URL) -> Robots:
        origin = f"{url.scheme}://{url.netloc.decode('ascii')}"
        return await self._robots.read_once(origin, lambda: self._read_robots(origin))

    def interval(self, url: httpx.URL) -> float:
        """The least seconds between two requests to ``url``'s host: the operator's spacing, or
        robots.txt's Crawl-delay when it asks for more (a browser's requests are spaced by the same
        rule)."""
        robots = self._robots.get(f"{url.scheme}://{url.netloc.decode('ascii')}")
        delay = robots.crawl_delay() if robots else 0.0
        # --dev: the operator's own machine is not spaced (robots.txt still is)
        if self.policy.unspaced_private:
            pinned = literal_ip(self._pins.get(pin_key(url.raw_host.decode("ascii")), ""))
            if pinned is not None and private_range(pinned):
                return delay
        return max(self.policy.host_interval, delay)

    async def _check_robots(self, url: httpx.URL) -> None:
        origin = f"{url.scheme}://{url.netloc.decode('ascii')}"
        robots = await self._robots_for(url)
        if robots.parser is None and robots.everything is False:
            raise RobotsDisallowed(
                f"{origin}/robots.txt {robots.reason}, so nothing there is fetched",
                detail={"robots": f"{origin}/robots.txt", "verdict": "unreadable"},
            )
        refusing = robots.disallowing_group(str(url))
        if refusing is not None:
            raise RobotsDisallowed(
                f"{origin}/robots.txt disallows {url} for {refusing}",
                detail={"robots": f"{origin}/robots.txt", "verdict": "disallowed"},
            )

    async def robots_answer(self, url: str) -> tuple[Robots, RobotsResponse]:
        """robots.txt of ``url``'s origin and its answer (text and headers), for a scan's evidence:
        the cached ones when both are, else read now, within the operator's total timeout, and
        cached (the address policy first). The answers are kept apart from the rules, for the last
        ROBOTS_ANSWERS origins only."""
        await self.ready()
        parsed = parse_url(url)
        await self._pin(parsed)
        origin = f"{parsed.scheme}://{parsed.netloc.decode('ascii')}"
        cached, answer = self._robots.get(origin), self._robots_responses.get(origin)
        if cached is not None and answer is not None:
            self._robots_responses.move_to_end(origin)
            return cached, answer
        try:
            with anyio.fail_after(self.policy.total_timeout):
                robots, answer = await self._read_robots_response(origin)
        except TimeoutError:
            raise FetchTimeout(
                f"reading {origin}/robots.txt took longer than {self.policy.total_timeout:g} s",
                detail={"url": f"{origin}/robots.txt"},
            ) from None
        self._robots.put(origin, robots)
        self._robots_responses[origin] = answer
        while len(self._robots_responses) > ROBOTS_RESPONSES:
            self._robots_responses.popitem(last=False)
        return robots, answer

    async def _read_robots(self, origin: str) -> Robots:
        return (await self._read_robots_response(origin))[0]

    async def _read_robots_response(self, origin: str) -> tuple[Robots, RobotsResponse]:
        """robots.txt of ``origin`` read and parsed, and what the origin answered (its text, for a
        scan)."""
        import protego

        robots_url = parse_url(f"{origin}/robots.txt")
        agents = self.policy.robots_agents
        try:
            for _ in range(self.policy.max_redirects + 1):
                status, headers, body, lease = await self._get(
                    robots_url, "text/plain", ROBOTS_MAX_BYTES
                )
                if status in REDIRECTS and headers.get("location"):
                    robots_url = redirect_target(robots_url, headers["location"])
                    if robots_url.scheme == "http" and not self.policy.allow_http:
                        raise BadUrl(
                            f"robots.txt redirects to plain http ({robots_url}), which is not "
                            "fetched"
                        )
                    await self._pin(robots_url)
                    continue
                break
        except (ResponseTooLarge, UnsupportedContent, BlockedAddress, BadUrl) as failure:
            # An answer: nothing there is fetched (cached for a while, see RobotsCache).
            unread = RobotsResponse(
                str(robots_url), None, {}, "", 0, (failure.code, failure.message)
            )
            return Robots(
                None, self.policy.robots_unreadable_allows, "could not be read", agents
            ), unread
        # Unreachable and FetchTimeout go on: no answer is no verdict, so the fetch fails as it
        # (retryable), nothing is cached, and the next fetch asks again instead of finding the
        # origin closed for minutes.
        try:
            text = decode(body, None)
            answer = RobotsResponse(str(robots_url), status, dict(headers), text, len(body))
            if 400 <= status < 500:
                # no robots.txt: everything is allowed
                return Robots(None, True, agents=agents), answer
            if status >= 500 or status in REDIRECTS:
                return Robots(
                    None, self.policy.robots_unreadable_allows, f"answered HTTP {status}", agents
                ), answer
            return Robots(protego.Protego.parse(text), None, agents=agents), answer
        finally:
            if lease is not None:
                # what robots.txt says is kept, parsed (its text only for a scan's evidence)
                lease.release()

    async def _get(
        self, url: httpx.URL, accept: str, cap: int, extra: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes, Lease | None]:
        """One request to an already admitted host, no redirects: budget, politeness, bounded body
        and its lease."""
        self.budget.spend()
        async with self.limiter.slot(url.host, self.interval(url)):
            # once the politeness wait is over: the request's own time
            started = time.perf_counter()
            async with self._carrier.get().get(
                str(url), {"accept": accept, **(extra or {})}
            ) as response:
                return await self._answer(url, response, cap, started)

    async def _answer(
        self, url: httpx.URL, response: Response, cap: int, started: float
    ) -> tuple[int, dict[str, str], bytes, Lease | None]:
        """One answer read: no body for a redirect, else the bounded body and its lease; logged for
        the operator (--log-level info: what was fetched, never shown to a model; query strings
        redacted)."""
        if response.status in REDIRECTS:
            log.info("GET %s -> %d (redirect)", url, response.status)
            return response.status, response.headers, b"", None
        body, lease = await read_body(
            response.chunks(),
            response.headers,
            cap,
            self.policy.max_decoded_bytes,
            memory=self.memory,
            url=str(url),
        )
        elapsed = (time.perf_counter() - started) * 1000
        log.info("GET %s -> %d, %d bytes, %.0f ms", url, response.status, len(body), elapsed)
        return response.status, response.headers, body, lease

    async def _pin(self, url: httpx.URL) -> None:
        """Resolve the URL's host, check every address, and pin connections to the first one."""
        host = pin_key(url.raw_host.decode("ascii"))
        port = url.port or (443 if url.scheme == "https" else 80)
        if self.policy.only_hosts and host not in self.policy.only_hosts:
            raise BlockedAddress(
                f"{host} is not among the hosts the operator allows",
                detail={"host": host, "reason": "not allowed"},
            )
        literal = literal_ip(host)
        addresses = [str(literal)] if literal else await self._resolve(host, port)
        if not addresses:
            raise Unreachable(f"{host} has no address")
        for address in addresses:
            reason = self._verdict(host, address)
            if reason:
                ip = literal_ip(address)
                # what the operator could open; no argument can
                switch = ip is not None and private_range(ip)
                raise BlockedAddress(
                    f"{host} resolves to {address}, which is {reason}; the operator's policy "
                    "does not allow it"
                    + (
                        " (only the operator can: --allow-private-hosts, or --dev to try "
                        "netglean on their own machine; no tool argument can)"
                        if switch
                        else ""
                    ),
                    detail={"host": host, "address": address, "reason": reason}
                    | ({"setting": "allow_private_hosts"} if switch else {}),
                )
        self._pins[host] = addresses[0]
        self._pins.move_to_end(host)
        while len(self._pins) > TRACKED:
            self._pins.popitem(last=False)

    def _verdict(self, host: str, address: str) -> str | None:
        """Why the policy refuses ``host`` at ``address``, or None; remembered, as the policy never
        changes and reading addresses with the ipaddress module was a sixth of a fetch's CPU on a
        site read page by page."""
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
        while len(self._verdicts) > TRACKED:
            self._verdicts.popitem(last=False)
        return reason


def _aiohttp(
    policy: FetchPolicy, pins: Mapping[str, str], dial: Dial, ssl_context: ssl.SSLContext | None
) -> Transport:
    from netglean.net.transport import AiohttpTransport

    return AiohttpTransport(policy, pins, dial=dial, ssl_context=ssl_context)
