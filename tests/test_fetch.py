"""The fetch layer: the network policy (SSRF matrix), redirects, caps, deadlines, robots.txt,
budget, charsets."""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import threading
from collections.abc import Collection, Iterator
from typing import Any
from urllib.parse import quote

import anyio
import pytest

from netglean.core.errors import BlockedAddress, ToolError
from netglean.core.settings import Settings
from netglean.net import fetcher as fetcher_module
from netglean.net.fetcher import Fetcher
from netglean.net.page import Page
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.net.urls import parse_url
from netglean.read.document import decode
from tests.support.fixture_site import ARRIVALS, PAGE, ROBOTS_MOVED, serve

NAMES = {
    "site.test": [PUBLIC],
    "robots-block.test": [PUBLIC],
    "robots-all.test": [PUBLIC],
    "robots-500.test": [PUBLIC],
    "rebind.test": ["127.0.0.1"],
    "meta.test": ["169.254.169.254"],
    "mixed.test": [PUBLIC, "10.0.0.5"],
    "mixed-v6.test": [PUBLIC, "::ffff:192.168.1.1"],
    "slow-please.test": [PUBLIC],
    **{site: [PUBLIC] for site in ROBOTS_MOVED},
}


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve() as fixture_port:
        yield fixture_port


def _policy(**changes: Any) -> FetchPolicy:
    base = FetchPolicy.from_settings(Settings.load(environ={}))
    return dataclasses.replace(base, host_interval=0.0, **changes)


def _fetch(
    port: int,
    url: str,
    policy: FetchPolicy | None = None,
    *,
    names: dict[str, Any] | None = None,
    reachable: Collection[str] = (),
    **kwargs: Any,
) -> tuple[Page | ToolError, LoopbackBackend]:
    """One fetch by a fresh fetcher: ``names`` (else NAMES) for DNS, ``reachable`` private addresses
    routed too."""
    backend = LoopbackBackend(port, reachable=reachable)

    async def run() -> Page | ToolError:
        fetcher = Fetcher(policy or _policy(), resolver=FakeDNS(dict(names or NAMES)), dial=backend)
        try:
            return await fetcher.fetch(url, **kwargs)
        except ToolError as error:
            return error
        finally:
            await fetcher.aclose()

    return anyio.run(run), backend


def _text(page: Page) -> str:
    """The page's body as reader processes decode it."""
    return decode(page.body, page.charset)


def _error(result: Page | ToolError, code: str) -> ToolError:
    assert isinstance(result, ToolError), (
        f"expected {code}, got a page from {getattr(result, 'url', '?')}"
    )
    assert result.code == code, f"expected {code}, got {result.code}: {result.message}"
    return result


BLOCKED = [
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://017700000001/",
    "http://127.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.0.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://0.0.0.0/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://240.0.0.1/",
    "http://rebind.test/page",
    "http://meta.test/",
    "http://mixed.test/page",
    "http://mixed-v6.test/page",
]


@pytest.mark.parametrize("url", BLOCKED)
def test_non_global_addresses_are_refused_and_never_contacted(port: int, url: str) -> None:
    result, backend = _fetch(port, url, _policy(obey_robots=False))
    _error(result, "blocked_address")
    assert backend.connects == []


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1/",
        "http://169.254.169.254/",
        "http://rebind.test/",
        "http://[::ffff:10.0.0.1]/",
    ],
)
def test_every_redirect_hop_is_checked_again(port: int, target: str) -> None:
    result, backend = _fetch(
        port, f"http://site.test/redirect?to={target}", _policy(obey_robots=False)
    )
    _error(result, "blocked_address")
    assert backend.connects == [(PUBLIC, 80)]  # only the first, public hop was ever connected


# how this Python spells it: the pinned address
MAPPED_LOOPBACK = str(ipaddress.ip_address("::ffff:127.0.0.1"))
MAPPED_METADATA = str(ipaddress.ip_address("::ffff:169.254.169.254"))
# A redirect to an IP literal, in every spelling: the address it reaches (so the dialler can record
# it), whether the private switch lets it through, and, for a spelling httpx will not even parse,
# None.
LITERAL_TARGETS: dict[str, tuple[str | None, bool]] = {
    "127.0.0.1": ("127.0.0.1", True),
    "2130706433": ("127.0.0.1", True),
    "017700000001": ("127.0.0.1", True),
    "0x7f000001": ("127.0.0.1", True),
    "0x7f.1": ("127.0.0.1", True),
    "0x7f.0.0.1": ("127.0.0.1", True),
    "0177.0.0.1": (None, False),  # httpx reads no leading-zero octets: not a URL, so never fetched
    "127.1": ("127.0.0.1", True),
    "[::1]": ("::1", True),
    "[0:0:0:0:0:0:0:1]": ("::1", True),
    "[::ffff:127.0.0.1]": (MAPPED_LOOPBACK, True),
    "[::FFFF:7F00:1]": (MAPPED_LOOPBACK, True),
    "[64:ff9b::7f00:1]": ("64:ff9b::7f00:1", True),
    "[2002:7f00:1::]": ("2002:7f00:1::", True),
    # the deprecated IPv4-compatible form: reserved, not loopback
    "[::7f00:1]": ("::7f00:1", False),
    "169.254.169.254": ("169.254.169.254", False),
    "2852039166": ("169.254.169.254", False),
    "0xa9fea9fe": ("169.254.169.254", False),
    "169.254.43518": ("169.254.169.254", False),
    "0251.0376.0251.0376": (None, False),
    "[::ffff:169.254.169.254]": (MAPPED_METADATA, False),
    "[::ffff:a9fe:a9fe]": (MAPPED_METADATA, False),
    "[64:ff9b::a9fe:a9fe]": ("64:ff9b::a9fe:a9fe", False),
    "[fd00:ec2::254]": ("fd00:ec2::254", False),
    "[fe80::a9fe:a9fe]": ("fe80::a9fe:a9fe", False),
    "[fe80::1%25eth0]": ("fe80::1", False),
    "100.100.100.200": ("100.100.100.200", False),
    "0": ("0.0.0.0", False),
    "0.0.0.0": ("0.0.0.0", False),
    "[::]": ("::", False),
}
_REACHABLE = {address for address, _ in LITERAL_TARGETS.values() if address}


@pytest.mark.parametrize("private", [False, True], ids=["off", "private"])
@pytest.mark.parametrize("target", LITERAL_TARGETS)
def test_ip_literal_redirect_targets_in_every_spelling(
    port: int, target: str, private: bool
) -> None:
    address, loopback = LITERAL_TARGETS[target]
    url = f"http://site.test/redirect?to={quote(f'http://{target}/page')}"
    result, backend = _fetch(
        port, url, _policy(obey_robots=False, allow_private_hosts=private), reachable=_REACHABLE
    )
    if private and loopback:
        assert isinstance(result, Page) and b"Hello fixture" in result.body
        # the literal went through the dialler too
        assert backend.connects == [(PUBLIC, 80), (address, 80)]
    else:
        assert isinstance(result, ToolError) and result.code == (
            "bad_url" if address is None else "blocked_address"
        )
        assert backend.connects == [(PUBLIC, 80)]  # only the first, public hop was ever connected


@pytest.mark.parametrize("private", [False, True], ids=["off", "private"])
@pytest.mark.parametrize(
    "second", ["127.0.0.1", "10.0.0.5", "169.254.169.254", "fd00:ec2::254", "0.0.0.0"]
)
def test_a_name_that_rebinds_between_redirect_hops_is_checked_on_the_hop(
    port: int, second: str, private: bool
) -> None:
    names = {"flip.test": [[PUBLIC], [second]]}
    policy = _policy(allow_private_hosts=private)
    result, backend = _fetch(
        port, "http://flip.test/redirect?to=/page", policy, names=names, reachable={second}
    )
    # allowed; the hop may reuse the first hop's connection
    if private and second in {"127.0.0.1", "10.0.0.5"}:
        assert isinstance(result, Page) and result.url == "http://flip.test/page"
        assert set(backend.connects) <= {(PUBLIC, 80), (second, 80)}
    else:
        assert _error(result, "blocked_address").detail["address"] == second
        # robots.txt and the first hop went to the first answer
        assert set(backend.connects) == {(PUBLIC, 80)}


@pytest.mark.parametrize("unreadable_allows", [False, True], ids=["strict", "unreadable-allows"])
@pytest.mark.parametrize("private", [False, True], ids=["off", "private"])
@pytest.mark.parametrize("site", ROBOTS_MOVED)
def test_a_robots_txt_redirected_to_a_private_address_is_checked_before_it_is_read(
    port: int, site: str, private: bool, unreadable_allows: bool
) -> None:
    policy = _policy(allow_private_hosts=private, robots_unreadable_allows=unreadable_allows)
    result, backend = _fetch(port, f"http://{site}/page", policy, reachable={"::1"})
    contacted = {address for address, _ in backend.connects}
    # the moved robots.txt is read (there a 404: everything allowed)
    if private and "meta" not in site:
        assert isinstance(result, Page) and contacted > {PUBLIC}
    elif unreadable_allows:
        assert (
            isinstance(result, Page) and b"Hello fixture" in result.body and contacted == {PUBLIC}
        )
    else:
        assert _error(result, "robots_disallowed").detail[
            "verdict"
        ] == "unreadable" and contacted == {PUBLIC}


def test_the_operator_switch_allows_private_hosts(port: int) -> None:
    result, backend = _fetch(port, "http://rebind.test/page", _policy(allow_private_hosts=True))
    assert isinstance(result, Page) and b"Hello fixture" in result.body
    assert backend.connects and all(host == "127.0.0.1" for host, _ in backend.connects)


# Each name resolves to one address; the backend routes every address to the fixture site, so a
# verdict of "fetched" is a real fetch and "refused" is proven by no connect at all.
SWITCHED_NAMES = {
    "loop.test": "127.0.0.1",
    "ten.test": "10.0.0.5",
    "ula.test": "fd12:3456::5",
    "mapped-ten.test": "::ffff:10.0.0.5",
    "meta.test": "169.254.169.254",
    "meta6.test": "fd00:ec2::254",
    "mapped-meta.test": "::ffff:169.254.169.254",
    "nat64-meta.test": "64:ff9b::a9fe:a9fe",
    "ecs.test": "169.254.170.2",
    "alibaba.test": "100.100.100.200",
    "azure.test": "168.63.129.16",
    "link.test": "169.254.10.1",
    "link6.test": "fe80::5",
    "cgnat.test": "100.64.0.9",
    "zero.test": "0.0.0.0",
    "multicast.test": "224.0.0.1",
    "staging.test": "192.0.2.7",
    "named-meta.test": "169.254.169.254",
}
SWITCHES = {
    "off": {},
    "private": {"allow_private_hosts": True},
    "listed": {
        "allow_private_targets": "169.254.0.0/16, fe80::/10, 100.64.0.0/10, Staging.test, "
        "named-meta.test"
    },
    "exact": {
        "allow_private_targets": "169.254.169.254,fd00:ec2::254/128",
        "allow_private_hosts": True,
    },
}
# Which names each operator setting lets through (all others are refused and never contacted).
FETCHED = {
    "off": set(),
    "private": {"loop.test", "ten.test", "ula.test", "mapped-ten.test"},
    "listed": {"link.test", "link6.test", "cgnat.test", "staging.test"},
    "exact": {"loop.test", "ten.test", "ula.test", "mapped-ten.test", "meta.test", "meta6.test",
              "mapped-meta.test", "nat64-meta.test", "named-meta.test"},
}  # fmt: skip


@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize("name", SWITCHED_NAMES)
def test_the_ssrf_matrix_under_the_operator_switches(port: int, name: str, switch: str) -> None:
    settings = Settings.load(
        {"host_interval": 0.0, "ignore_robots": True, **SWITCHES[switch]}, environ={}
    )
    address = SWITCHED_NAMES[name]
    backend = LoopbackBackend(port, reachable=set(SWITCHED_NAMES.values()))

    async def run() -> Page | ToolError:
        fetcher = Fetcher(
            FetchPolicy.from_settings(settings), resolver=FakeDNS({name: [address]}), dial=backend
        )
        try:
            return await fetcher.fetch(f"http://{name}/page")
        except ToolError as error:
            return error
        finally:
            await fetcher.aclose()

    result = anyio.run(run)
    if name in FETCHED[switch]:
        assert isinstance(result, Page) and b"Hello fixture" in result.body, result
        assert backend.connects == [(address, 80)]
    else:
        assert _error(result, "blocked_address").detail["address"] == address
        assert backend.connects == []


def test_metadata_refusals_say_so(port: int) -> None:
    error = _error(
        _fetch(port, "http://meta.test/", _policy(allow_private_hosts=True))[0], "blocked_address"
    )
    assert (
        error.detail["reason"] == "a cloud metadata endpoint" and "169.254.169.254" in error.message
    )


@pytest.mark.parametrize("listed", ["10.0.0.0/33", "10.1.2.3/16", "fd00::/129", "bad..name/8"])
def test_an_unreadable_private_target_is_a_configuration_error(listed: str) -> None:
    from netglean.core.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="allow_private_targets"):
        FetchPolicy.from_settings(Settings.load({"allow_private_targets": listed}, environ={}))


def test_connections_are_pinned_to_the_checked_address_and_keep_the_host(port: int) -> None:
    flipping = {**NAMES, "flip.test": [[PUBLIC], ["127.0.0.1"]]}
    backend = LoopbackBackend(port)

    async def run() -> Page:
        fetcher = Fetcher(_policy(obey_robots=False), resolver=FakeDNS(flipping), dial=backend)
        try:
            return await fetcher.fetch("http://flip.test/echo-host")
        finally:
            await fetcher.aclose()

    page = anyio.run(run)
    assert page.body == b"flip.test"  # Host header kept while the socket went to the pinned address
    assert backend.connects == [(PUBLIC, 80)]


@pytest.mark.parametrize(
    "url",
    [
        "ftp://site.test/",
        "file:///etc/passwd",
        "not a url",
        "http:///nohost",
        "http://user:secret@site.test/page",
        "javascript:alert(1)",
    ],
)
def test_bad_urls(port: int, url: str) -> None:
    result, backend = _fetch(port, url)
    _error(result, "bad_url")
    assert backend.connects == []


def test_international_names_are_resolved_checked_and_pinned_in_their_ascii_form(port: int) -> None:
    names = {**NAMES, "xn--bcher-kva.test": [PUBLIC]}
    backend = LoopbackBackend(port)
    dns = FakeDNS(names)

    async def run() -> Page:
        fetcher = Fetcher(_policy(obey_robots=False), resolver=dns, dial=backend)
        try:
            return await fetcher.fetch("http://bücher.test/echo-host")
        finally:
            await fetcher.aclose()

    page = anyio.run(run)
    assert dns.asked == ["xn--bcher-kva.test"] and backend.connects == [(PUBLIC, 80)]
    assert page.body == b"xn--bcher-kva.test"


@pytest.mark.parametrize(
    "spelling", ["2130706433", "0x7f.1", "017700000001", "127.1", "0x7f000001"]
)
def test_ipv4_literals_are_spelled_canonically(spelling: str) -> None:
    assert str(parse_url(f"http://{spelling}:8080/x?q=1")) == "http://127.0.0.1:8080/x?q=1"


def test_redirects_are_followed_and_recorded_up_to_the_cap(port: int) -> None:
    result, _ = _fetch(port, "http://site.test/chain/3", _policy(obey_robots=False))
    assert isinstance(result, Page) and result.url == "http://site.test/chain/0"
    assert [hop.status for hop in result.redirects] == [301, 301, 301]
    error = _error(
        _fetch(port, "http://site.test/chain/9", _policy(obey_robots=False))[0],
        "too_many_redirects",
    )
    assert len(error.detail["redirects"]) == 6
    fewer = _fetch(port, "http://site.test/chain/3", _policy(obey_robots=False), max_redirects=1)[0]
    # a caller may ask for fewer
    assert len(_error(fewer, "too_many_redirects").detail["redirects"]) == 2
    more = _fetch(port, "http://site.test/chain/9", _policy(obey_robots=False), max_redirects=50)[0]
    assert len(_error(more, "too_many_redirects").detail["redirects"]) == 6  # never for more


def test_size_caps_compressed_decompressed_and_tool_tightened(port: int) -> None:
    policy = _policy(obey_robots=False)
    _error(_fetch(port, "http://site.test/huge", policy)[0], "too_large")
    _error(_fetch(port, "http://site.test/huge-unannounced", policy)[0], "too_large")
    _error(_fetch(port, "http://site.test/bomb", policy)[0], "too_large")
    _error(_fetch(port, "http://site.test/page", policy, max_bytes=20)[0], "too_large")
    big_ask = _fetch(port, "http://site.test/huge", policy, max_bytes=10**9)[0]
    _error(big_ask, "too_large")  # a tool can never raise the operator's cap
    result = _fetch(port, "http://site.test/deflate", policy)[0]
    assert isinstance(result, Page) and b"Hello fixture" in result.body


def test_a_slow_drip_cannot_outlast_the_total_deadline(port: int) -> None:
    error = _error(
        _fetch(port, "http://site.test/drip", _policy(obey_robots=False, total_timeout=1.0))[0],
        "timeout",
    )
    assert error.retryable


def test_a_first_fetch_ends_at_its_deadline_while_the_transport_loads_and_the_next_uses_it(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetcher makes its transport (aiohttp imported, certificates loaded) on its first fetch: a
    making that takes longer than the fetch's deadline (a cold machine) ends that fetch as a timeout
    while it goes on, and the next fetch uses what it made."""
    released = threading.Event()
    made: list[str] = []

    def slow_transport(*args: Any) -> Any:
        made.append("transport")
        released.wait(30)  # until the test lets it go (30 s: for a fetch that blocks on it)
        released.set()
        return make(*args)

    make = fetcher_module._aiohttp
    monkeypatch.setattr(fetcher_module, "_aiohttp", slow_transport)
    parse_url("http://site.test/page")  # URLs are read already: what is cold is the transport

    async def run() -> tuple[ToolError | None, bool, Page]:
        dns, site = FakeDNS(dict(NAMES)), LoopbackBackend(port)
        fetcher = Fetcher(_policy(obey_robots=False), resolver=dns, dial=site)
        try:
            try:
                await fetcher.fetch("http://site.test/page", timeout=0.2)
                first = None
            except ToolError as error:
                first = error
            loading = not released.is_set()  # answered while its transport was still being made
            released.set()
            return first, loading, await fetcher.fetch("http://site.test/page")
        finally:
            await fetcher.aclose()

    first, loading, second = anyio.run(run)
    assert first is not None and first.code == "timeout" and loading
    assert b"Hello fixture" in second.body and made == ["transport"]


def test_http_errors(port: int) -> None:
    policy = _policy(obey_robots=False)
    not_found = _error(_fetch(port, "http://site.test/status/404", policy)[0], "http_status")
    assert not_found.detail["status"] == 404 and not not_found.retryable
    assert _error(_fetch(port, "http://site.test/status/503", policy)[0], "http_status").retryable


def test_robots_txt_is_obeyed(port: int) -> None:
    # allowed for netglean
    assert isinstance(_fetch(port, "http://robots-block.test/page")[0], Page)
    _error(_fetch(port, "http://robots-block.test/private")[0], "robots_disallowed")
    _error(_fetch(port, "http://robots-all.test/page")[0], "robots_disallowed")
    assert isinstance(_fetch(port, "http://site.test/page")[0], Page)  # 404 robots.txt: allowed


@pytest.mark.parametrize(
    ("start", "robots"),
    [
        ("http://robots-block.test/redirect?to=/private", "http://robots-block.test/robots.txt"),
        (
            "http://site.test/redirect?to=http://robots-block.test/private",
            "http://robots-block.test/robots.txt",
        ),
        (
            "http://site.test/redirect?to=http://robots-all.test/page&code=301",
            "http://robots-all.test/robots.txt",
        ),
        (
            "http://site.test/chain-to?to=http://robots-block.test/private",
            "http://robots-block.test/robots.txt",
        ),
        # a disallowed hop in the middle, between allowed ones
        (
            f"http://site.test/redirect?to={quote('http://robots-block.test/private-hop?to=http://site.test/page')}",
            "http://robots-block.test/robots.txt",
        ),
    ],
    ids=[
        "same-origin",
        "cross-origin",
        "everything-disallowed",
        "after-two-hops",
        "disallowed-middle-hop",
    ],
)
def test_robots_txt_is_obeyed_on_every_redirect_hop(port: int, start: str, robots: str) -> None:
    error = _error(_fetch(port, start)[0], "robots_disallowed")
    assert error.detail == {"robots": robots, "verdict": "disallowed"}


def test_every_robots_group_the_policy_names_is_obeyed(port: int) -> None:
    """A wire profile adds its seed's group (Rebilder's rebilder-ars): a path any obeyed group
    disallows is refused, naming the group; here rebilder-ars falls under robots.txt's '*', which
    disallows everything."""
    both = _policy(robots_agents=("netglean", "rebilder-ars"))
    error = _error(_fetch(port, "http://robots-block.test/page", both)[0], "robots_disallowed")
    assert error.message.endswith("for rebilder-ars")
    # 404 robots.txt: allowed for all
    assert isinstance(_fetch(port, "http://site.test/page", both)[0], Page)


def test_plain_http_is_refused_before_any_connection_when_the_policy_is_https_only(
    port: int,
) -> None:
    result, backend = _fetch(port, "http://site.test/page", _policy(allow_http=False))
    error = _error(result, "operator_policy")
    assert error.detail == {"setting": "allow_http"} and backend.connects == []


def test_unreadable_robots_means_do_not_fetch_unless_the_operator_says(port: int) -> None:
    error = _error(_fetch(port, "http://robots-500.test/page")[0], "robots_disallowed")
    assert "503" in error.message
    assert isinstance(
        _fetch(port, "http://robots-500.test/page", _policy(robots_unreadable_allows=True))[0], Page
    )
    assert isinstance(
        _fetch(port, "http://robots-all.test/page", _policy(obey_robots=False))[0], Page
    )


def test_the_session_budget(port: int) -> None:
    backend = LoopbackBackend(port)

    async def run() -> list[str]:
        fetcher = Fetcher(
            _policy(obey_robots=False, session_budget=2),
            resolver=FakeDNS(dict(NAMES)),
            dial=backend,
        )
        outcomes = []
        for _ in range(3):
            try:
                await fetcher.fetch("http://site.test/page")
                outcomes.append("ok")
            except ToolError as error:
                outcomes.append(error.code)
        await fetcher.aclose()
        return outcomes

    assert anyio.run(run) == ["ok", "ok", "budget_exhausted"]


def _budgeted(**settings: Any) -> FetchPolicy:
    return FetchPolicy.from_settings(
        Settings.load({"host_interval": 0.0, "ignore_robots": True, **settings}, environ={})
    )


def test_pages_held_count_against_the_memory_budget_until_they_are_let_go(port: int) -> None:
    policy = _budgeted(fetch_memory_budget=len(PAGE) * 5 // 2, fetch_memory_wait=0.2)

    async def run() -> list[str]:
        fetcher = Fetcher(policy, resolver=FakeDNS(dict(NAMES)), dial=LoopbackBackend(port))
        outcomes: list[str] = []

        async def fetch() -> Page | None:
            try:
                page = await fetcher.fetch("http://site.test/page")
            except ToolError as error:
                outcomes.append(f"{error.code}{' (retryable)' if error.retryable else ''}")
                return None
            outcomes.append("ok")
            return page

        try:
            first, second = await fetch(), await fetch()
            await fetch()  # no room for a third page while two are held
            del first
            held = [await fetch()]  # the first page was let go: room again
            await fetch()
            held.append(second)
            del second
            # pages let go in another thread give their room back too
            await anyio.to_thread.run_sync(held.clear)
            await fetch()
            return outcomes
        finally:
            await fetcher.aclose()

    assert anyio.run(run) == [
        "ok",
        "ok",
        "unavailable (retryable)",
        "ok",
        "unavailable (retryable)",
        "ok",
    ]


def test_a_fetch_cancelled_while_it_waits_for_room_leaves_nothing_behind(port: int) -> None:
    policy = _budgeted(fetch_memory_budget=len(PAGE) * 3 // 2, fetch_memory_wait=60.0)

    async def run() -> tuple[bool, int, bool]:
        fetcher = Fetcher(policy, resolver=FakeDNS(dict(NAMES)), dial=LoopbackBackend(port))
        try:
            first = await fetcher.fetch("http://site.test/page")
            # its caller gives up on a fetch waiting for room
            with anyio.move_on_after(0.2) as waited:
                await fetcher.fetch("http://site.test/page")
            del first
            # not queued behind the one that left
            again = await fetcher.fetch("http://site.test/page")
            return waited.cancelled_caught, fetcher.memory.held, isinstance(again, Page)
        finally:
            await fetcher.aclose()

    assert anyio.run(run) == (True, len(PAGE), True)


def test_every_way_a_fetch_ends_gives_its_bytes_back(port: int) -> None:
    # 5 s: each fetch here ends well within it on a busy machine, and the 20 s drip never does
    policy = _budgeted(
        fetch_memory_budget=30_000_000,
        fetch_memory_wait=0.2,
        fetch_total_timeout=5.0,
        ignore_robots=False,
    )
    ends = {
        "/huge-unannounced": "too_large",  # mid-body, past the cap as sent
        "/bomb": "too_large",  # mid-body, past the cap decoded
        "/status/404": "http_status",  # after the whole body was read
        "/status/503": "http_status",
        "/drip": "timeout",  # the total deadline cancels a half-read body
        "/redirect?to=http://127.0.0.1/": "blocked_address",
        "/chain/9": "too_many_redirects",
        "/page": "ok",
    }

    async def run() -> tuple[dict[str, str], int, int]:
        fetcher = Fetcher(policy, resolver=FakeDNS(dict(NAMES)), dial=LoopbackBackend(port))
        outcomes: dict[str, str] = {}
        # errors kept (as a handler may), with the tracebacks that hold the read's frames
        kept: list[ToolError] = []
        try:
            for path in ends:
                try:
                    await fetcher.fetch(f"http://site.test{path}")
                    outcomes[path] = "ok"
                except ToolError as error:
                    outcomes[path] = error.code
                    kept.append(error)
            with anyio.move_on_after(0.3):  # the caller gives up on a half-read body
                await fetcher.fetch("http://site.test/drip")
            # robots.txt bodies are read and let go
            await fetcher.robots_verdict("http://robots-block.test/page")
            robots = await fetcher.fetch("http://robots-block.test/page", error_pages=True)
            holding = fetcher.memory.held
            del robots
            return outcomes, holding, fetcher.memory.held
        finally:
            await fetcher.aclose()

    outcomes, holding, held = anyio.run(run)
    assert outcomes == ends
    assert (holding, held) == (len(PAGE), 0)


@pytest.mark.parametrize("gzip", [False, True], ids=["plain", "gzip"])
def test_bodies_waiting_for_room_never_deadlock(port: int, gzip: bool) -> None:
    # Room for two bodies of unknown length at a time (one when gzipped: its reservation is the
    # decoded cap): each body waits before its first byte is read, never while holding part of
    # itself, so all eight finish in turn.
    policy = _budgeted(
        fetch_max_bytes=8_000, fetch_max_decoded_bytes=10_000, fetch_memory_budget=20_000,
        fetch_memory_wait=60.0, host_concurrency=8,
    )  # fmt: skip

    async def run() -> tuple[list[int], int]:
        fetcher = Fetcher(policy, resolver=FakeDNS(dict(NAMES)), dial=LoopbackBackend(port))
        sizes: list[int] = []

        async def one() -> None:
            page = await fetcher.fetch(
                f"http://site.test/slow-unannounced{'?gzip=1' if gzip else ''}"
            )
            sizes.append(len(page.body))

        try:
            async with anyio.create_task_group() as tasks:
                for _ in range(8):
                    tasks.start_soon(one)
            return sizes, fetcher.memory.held
        finally:
            await fetcher.aclose()

    assert anyio.run(run) == ([5_000] * 8, 0)


def test_a_body_larger_than_the_whole_budget_is_too_large(port: int) -> None:
    policy = _budgeted(fetch_memory_budget=100_000)
    for path in ("/bomb", "/huge-unannounced"):
        error = _error(_fetch(port, f"http://site.test{path}", policy)[0], "too_large")
        assert error.detail == {"limit": 100_000}


def test_charsets_and_sniffing(port: int) -> None:
    policy = _policy(obey_robots=False)
    latin = _fetch(port, "http://site.test/latin1", policy)[0]
    assert (
        isinstance(latin, Page)
        and _text(latin) == "<p>café</p>"
        and latin.media_type == "text/html"
    )
    meta = _fetch(port, "http://site.test/meta-charset", policy)[0]
    assert isinstance(meta, Page) and "naïve “quotes”" in _text(meta)
    assert Page("u", "u", 200, {}, b"<!DOCTYPE html><p>x").media_type == "text/html"
    assert _text(Page("u", "u", 200, {}, b"\xef\xbb\xbfbom")) == "bom"


# Labels Python's codec registry knows (or nobody knows) that are not WHATWG encodings: punycode
# decodes in quadratic time, idna and undefined raise UnicodeError, utf-7 and EBCDIC turn markup
# into other markup.
NOT_WHATWG = [
    "punycode", "idna", "undefined", "rot13", "rot_13", "base64", "zlib", "uu", "hex", "bz2",
    "quopri", "unicode_escape", "raw_unicode_escape", "utf-7", "utf-32", "cp037", "cp500", "mbcs",
    "palmos", "utf8mb4", "none",
]  # fmt: skip


def _html(label: str | None, where: str, body: bytes) -> Page:
    if where == "header":
        return Page("u", "u", 200, {"content-type": f"text/html; charset={label}"}, body)
    return Page(
        "u", "u", 200, {"content-type": "text/html"}, f'<meta charset="{label}">'.encode() + body
    )


@pytest.mark.parametrize("where", ["header", "meta"])
@pytest.mark.parametrize("label", NOT_WHATWG)
def test_a_label_that_is_not_a_whatwg_encoding_is_ignored_and_sniffing_goes_on(
    label: str, where: str
) -> None:
    page = _html(label, where, "<p>café, naïve “quotes”</p>".encode())
    # no Python codec was asked: the page reads as a browser shows it
    assert _text(page) == page.body.decode("utf-8")
    # valid punycode: decoded as such, it would differ
    ascii_body = ("abc\u00e9" * 2_000).encode("punycode")
    assert _text(_html(label, where, ascii_body)) == _html(label, where, ascii_body).body.decode(
        "ascii"
    )


def test_an_unknown_header_label_falls_back_to_the_meta_charset() -> None:
    body = '<meta charset="windows-1252"><p>na\u00efve \u201cquotes\u201d</p>'.encode(
        "windows-1252"
    )
    page = Page("u", "u", 200, {"content-type": "text/html; charset=punycode"}, body)
    assert "naïve “quotes”" in _text(page)


@pytest.mark.parametrize(
    ("label", "where", "body", "text"),
    [
        # WHATWG reads latin-1 labels as windows-1252
        ("iso-8859-1", "header", b"\x93q\x94", "\u201cq\u201d"),
        ("LATIN1", "meta", b"\x93q\x94", "\u201cq\u201d"),
        ("utf8", "header", "é".encode(), "é"),
        (" UTF-8 ", "header", "é".encode(), "é"),
        ("x-sjis", "header", "日本".encode("cp932"), "日本"),
        ("ks_c_5601-1987", "header", "한국".encode("cp949"), "한국"),
        ("gb2312", "meta", "中文".encode("gbk"), "中文"),
        # the replacement encoding: one U+FFFD
        ("iso-2022-kr", "header", b"\x1b$)C\x0e!!\x0f", "\ufffd"),
        ("x-user-defined", "header", b"\x80", "\uf780"),
        ("x-user-defined", "meta", b"\x93", "\u201c"),  # in <meta>: windows-1252, as HTML says
        # a <meta> cannot declare UTF-16 (it would not be readable): UTF-8
        ("utf-16le", "meta", "é".encode(), "é"),
        ("utf-16le", "header", "é".encode("utf-16-le"), "é"),
    ],
)
def test_whatwg_labels_decode_as_browsers_do(
    label: str, where: str, body: bytes, text: str
) -> None:
    page = _html(label, where, body)
    assert _text(page).endswith(text)


def test_only_hosts_refuses_everything_else_before_any_lookup(port: int) -> None:
    backend = LoopbackBackend(port)
    dns = FakeDNS(dict(NAMES))

    async def run() -> ToolError:
        fetcher = Fetcher(_policy(only_hosts=frozenset({"other.test"})), resolver=dns, dial=backend)
        try:
            await fetcher.fetch("http://site.test/page")
        except ToolError as error:
            return error
        finally:
            await fetcher.aclose()
        raise AssertionError("fetched a host outside the list")

    assert anyio.run(run).code == "blocked_address"
    assert dns.asked == [] and backend.connects == []


def test_the_robots_cache_expires_and_is_bounded() -> None:
    from netglean.net.robots import Robots as _Robots
    from netglean.net.robots import RobotsCache

    now = [0.0]
    cache = RobotsCache(size=2, ttl=100.0, unreadable_ttl=10.0, clock=lambda: now[0])
    readable, unreadable = _Robots(None, True), _Robots(None, False, "answered HTTP 503")
    cache.put("http://a", readable)
    cache.put("http://b", unreadable)
    now[0] = 11.0
    # an outage is asked again soon
    assert cache.get("http://a") is readable and cache.get("http://b") is None
    now[0] = 101.0
    assert cache.get("http://a") is None  # a day-old robots.txt (here: 100 s) is read again
    for origin in ("http://c", "http://d", "http://e"):
        cache.put(origin, readable)
    # least recently used dropped
    assert cache.get("http://c") is None and cache.get("http://e") is readable


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Any]]:
    from tests.support.tls_fixture import make_tls

    tls = make_tls(tmp_path_factory.mktemp("tls"))
    with serve((tls.cert_file, tls.key_file)) as tls_port:
        yield tls_port, tls


def _fetch_tls(
    tls_site: tuple[int, Any], url: str, policy: FetchPolicy, plain_port: int = 0
) -> Page | ToolError:
    tls_port, tls = tls_site
    backend = LoopbackBackend(plain_port or tls_port, tls_port=tls_port)

    async def run() -> Page | ToolError:
        fetcher = Fetcher(
            policy, resolver=FakeDNS(dict(NAMES)), dial=backend, ssl_context=tls.client_context()
        )
        try:
            return await fetcher.fetch(url)
        except ToolError as error:
            return error
        finally:
            await fetcher.aclose()

    return anyio.run(run)


def test_tls_to_a_pinned_address_keeps_sni_and_the_certificate_check(
    tls_site: tuple[int, Any],
) -> None:
    page = _fetch_tls(tls_site, "https://site.test/echo-host", _policy(obey_robots=False))
    # The socket went to the pinned address (127.0.0.1 via the double) while TLS verified
    # site.test's certificate against the hostname: SNI and certificate checking survive the pin.
    assert isinstance(page, Page) and page.body == b"site.test"


def test_an_https_to_http_redirect_is_refused_unless_the_operator_allows_it(
    tls_site: tuple[int, Any], port: int
) -> None:
    url = "https://site.test/redirect?to=http://site.test/page"
    refused = _fetch_tls(tls_site, url, _policy(obey_robots=False), plain_port=port)
    error = _error(refused, "scheme_downgrade")
    assert error.detail == {"from": url, "to": "http://site.test/page"}
    allowed = _fetch_tls(
        tls_site, url, _policy(obey_robots=False, allow_https_downgrade=True), plain_port=port
    )
    assert (
        isinstance(allowed, Page) and allowed.downgraded and allowed.url == "http://site.test/page"
    )
    assert b"Hello fixture" in allowed.body


def test_per_host_state_is_bounded(port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import netglean.net.fetcher as fetch_module
    import netglean.net.politeness as politeness_module

    monkeypatch.setattr(fetch_module, "TRACKED", 2)
    monkeypatch.setattr(politeness_module, "TRACKED", 2)
    names = {**NAMES, **{f"h{i}.test": [PUBLIC] for i in range(5)}}
    backend = LoopbackBackend(port)

    async def run() -> tuple[int, int]:
        fetcher = Fetcher(_policy(obey_robots=False), resolver=FakeDNS(names), dial=backend)
        try:
            for i in range(5):
                await fetcher.fetch(f"http://h{i}.test/page")
            return len(fetcher._pins), len(fetcher.limiter)  # type: ignore[arg-type]
        finally:
            await fetcher.aclose()

    assert anyio.run(run) == (2, 2)


class _Counted:
    """A site that counts the requests it gets, by path: its robots.txt answers slowly, as a cold
    origin's might, so every fetch of a batch asks for it while the first read is still in
    flight."""

    def __init__(self, robots_status: int = 200, *, hold_first_robots: bool = False) -> None:
        self.paths: list[str] = []
        self.robots_status = robots_status
        self.hold_first_robots = hold_first_robots
        """Answer the first robots.txt never: it is held until its client goes (a read a test
        cancels)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        from starlette.responses import PlainTextResponse

        if scope["type"] != "http":
            return
        self.paths.append(scope["path"])
        if (
            scope["path"] == "/robots.txt"
            and self.hold_first_robots
            and self.paths.count("/robots.txt") == 1
        ):
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        if scope["path"] == "/robots.txt":
            # not a timing assertion: only widens the window the batch's fetches share
            await anyio.sleep(0.2)
            response = PlainTextResponse(
                "User-agent: *\nAllow: /\n", status_code=self.robots_status
            )
        else:
            response = PlainTextResponse(f"page {scope['path']}")
        await response(scope, receive, send)


def _batch(port: int, urls: list[str], policy: FetchPolicy) -> list[str]:
    """Fetch ``urls`` at once with one fresh fetcher; what each ended as (ok or its error code), in
    order."""
    backend = LoopbackBackend(port)

    async def run() -> list[str]:
        fetcher = Fetcher(policy, resolver=FakeDNS(dict(NAMES)), dial=backend)
        outcomes = [""] * len(urls)

        async def one(index: int, url: str) -> None:
            try:
                await fetcher.fetch(url)
                outcomes[index] = "ok"
            except ToolError as error:
                outcomes[index] = error.code

        try:
            async with anyio.create_task_group() as group:
                for index, url in enumerate(urls):
                    group.start_soon(one, index, url)
        finally:
            await fetcher.aclose()
        return outcomes

    return anyio.run(run)


def test_robots_txt_is_read_once_for_a_batch_on_a_cold_origin() -> None:
    site = _Counted()
    with serve(app=site) as port:
        urls = [f"http://site.test/page/{n}" for n in range(4)]
        assert _batch(port, urls, _policy(host_concurrency=4)) == ["ok"] * 4
    assert site.paths.count("/robots.txt") == 1
    assert sorted(site.paths) == sorted(["/robots.txt", *(f"/page/{n}" for n in range(4))])


@pytest.mark.parametrize(("budget", "pages"), [(4, 3), (3, 2)])
def test_the_budget_counts_one_robots_read_per_origin(budget: int, pages: int) -> None:
    """Three URLs on a cold origin cost four requests: robots.txt once, then the pages (a budget of
    three used to go on three reads of robots.txt and read no page at all)."""
    site = _Counted()
    with serve(app=site) as port:
        urls = [f"http://site.test/page/{n}" for n in range(3)]
        outcomes = _batch(port, urls, _policy(host_concurrency=3, session_budget=budget))
    assert sorted(outcomes) == sorted(["ok"] * pages + ["budget_exhausted"] * (3 - pages))
    assert site.paths.count("/robots.txt") == 1 and len(site.paths) == 1 + pages


def test_a_robots_read_that_ends_without_an_answer_is_not_handed_on() -> None:
    """The fetch reading robots.txt is cancelled (its call's deadline) while two others wait for its
    answer: they read for themselves, one read for both, and nothing the cancelled read did closes
    the origin."""
    # the first read reaches the site, and is cancelled, never answered
    site = _Counted(hold_first_robots=True)
    with serve(app=site) as port:
        backend = LoopbackBackend(port)

        async def run() -> list[str]:
            fetcher = Fetcher(
                _policy(host_concurrency=4), resolver=FakeDNS(dict(NAMES)), dial=backend
            )
            outcomes = ["cancelled", "", ""]

            async def one(index: int) -> None:
                try:
                    await fetcher.fetch(f"http://site.test/page/{index}")
                    outcomes[index] = "ok"
                except ToolError as error:
                    outcomes[index] = error.code

            first = anyio.CancelScope()

            async def cancellable() -> None:
                with first:
                    await one(0)

            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(cancellable)
                    while "http://site.test" not in fetcher._robots._reading:
                        await anyio.sleep(0.01)
                    reading = fetcher._robots._reading["http://site.test"]
                    group.start_soon(one, 1)
                    group.start_soon(one, 2)
                    while (
                        reading.done.statistics().tasks_waiting < 2
                        or "/robots.txt" not in site.paths
                    ):
                        await anyio.sleep(0.01)
                    first.cancel()
                return outcomes
            finally:
                await fetcher.aclose()

        outcomes = anyio.run(run)
    assert outcomes == ["cancelled", "ok", "ok"]
    # the cancelled read, and the one both waiting fetches shared
    assert site.paths.count("/robots.txt") == 2


def test_an_unreadable_robots_txt_is_one_read_shared_by_the_batch() -> None:
    """robots.txt answering 503 is an answer (do not fetch), handed to the fetches waiting for it;
    the cache keeps it for unreadable_ttl only (test_the_robots_cache_expires_and_is_bounded)."""
    site = _Counted(robots_status=503)
    with serve(app=site) as port:
        outcomes = _batch(
            port, [f"http://site.test/page/{n}" for n in range(3)], _policy(host_concurrency=3)
        )
    assert outcomes == ["robots_disallowed"] * 3 and site.paths == ["/robots.txt"]


def test_a_robots_read_the_site_never_answers_fails_its_fetches_and_is_not_cached(
    closed_port: int,
) -> None:
    """No answer is no verdict: the fetches waiting for the read fail with it (unreachable,
    retryable), not as a robots.txt refusal kept for five minutes, and the next fetch asks again."""
    backend = LoopbackBackend(closed_port)

    async def run() -> tuple[list[str], str]:
        fetcher = Fetcher(_policy(host_concurrency=3), resolver=FakeDNS(dict(NAMES)), dial=backend)
        outcomes = [""] * 3

        async def one(index: int) -> None:
            try:
                await fetcher.fetch(f"http://site.test/page/{index}")
            except ToolError as error:
                outcomes[index] = error.code

        try:
            async with anyio.create_task_group() as group:
                for index in range(3):
                    group.start_soon(one, index)
            first = len(backend.connects)
            try:
                await fetcher.fetch("http://site.test/page/again")
            except ToolError as error:
                return outcomes, f"{first} {len(backend.connects)} {error.code} {error.retryable}"
            return outcomes, "fetched"
        finally:
            await fetcher.aclose()

    outcomes, later = anyio.run(run)
    assert outcomes == ["unreachable"] * 3
    # one read shared by the three; the next fetch asked again
    assert later == "1 2 unreachable True"


# For a person trying a local site (issue 19) ------------------------------------------------------


def test_a_refused_private_host_names_the_operators_switch_and_a_metadata_one_does_not(
    port: int,
) -> None:
    loopback, _ = _fetch(port, "http://rebind.test/page")
    assert (
        isinstance(loopback, BlockedAddress) and loopback.detail["setting"] == "allow_private_hosts"
    )
    assert "only the operator can: --allow-private-hosts, or --dev" in loopback.message
    assert "no tool argument can" in loopback.message
    metadata, _ = _fetch(port, "http://meta.test/latest/")
    assert isinstance(metadata, BlockedAddress) and "setting" not in metadata.detail
    assert "--allow-private-hosts" not in metadata.message  # no switch opens a metadata endpoint


def test_dev_allows_private_hosts_and_spaces_them_not_but_public_ones_still() -> None:
    policy = FetchPolicy.from_settings(
        Settings.load({"dev": True, "host_interval": 2.0}, environ={})
    )
    assert policy.allow_private_hosts and policy.unspaced_private

    async def intervals() -> tuple[float, float]:
        fetcher = Fetcher(
            policy, resolver=FakeDNS({"local.test": ["127.0.0.1"], "public.test": [PUBLIC]})
        )
        try:
            for host in ("local.test", "public.test"):
                # the address policy alone: nothing is fetched
                await fetcher._pin(parse_url(f"http://{host}/"))
            return fetcher.interval(parse_url("http://local.test/")), fetcher.interval(
                parse_url("http://public.test/")
            )
        finally:
            await fetcher.aclose()

    assert anyio.run(intervals) == (0.0, 2.0)
    plain = FetchPolicy.from_settings(Settings.load({}, environ={}))
    assert not plain.allow_private_hosts and not plain.unspaced_private


def test_a_sites_crawl_delay_spaces_every_request_robots_txt_included_as_the_site_sees_them(
    port: int,
) -> None:
    """Crawl-delay 2 on a host the operator does not space (host_interval 0, as --dev leaves a local
    site): the page after robots.txt waited for nothing (they arrived 1-4 ms apart), as the interval
    in force was the one known when robots.txt was asked for. Timed where the site receives the
    requests, never by a call's duration."""
    ARRIVALS.clear()
    backend = LoopbackBackend(port)

    async def run() -> None:
        fetcher = Fetcher(_policy(), resolver=FakeDNS(NAMES), dial=backend)
        try:
            await fetcher.fetch("http://slow-please.test/page")
            await fetcher.fetch("http://slow-please.test/page?again")
        finally:
            await fetcher.aclose()

    anyio.run(run)
    assert [path for path, _ in ARRIVALS] == ["/robots.txt", "/page", "/page"]
    gaps = [later - earlier for (_, earlier), (_, later) in itertools.pairwise(ARRIVALS)]
    # 2 s asked, started apart; what the network adds is shared
    assert all(gap >= 1.5 for gap in gaps), gaps
