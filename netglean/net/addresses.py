"""Which IP addresses a fetch may connect to: globally routable ones, and what the operator opened.

A host is refused when ANY of its addresses is refused, so a DNS answer that mixes a
public and a private address cannot slip through. Addresses that embed an IPv4 address
(IPv4-mapped, NAT64, 6to4, Teredo) are judged by what they embed, and IPv4 hosts written
in the old BSD spellings (2130706433, 0x7f.1, 017700000001) are read as the addresses
every resolver would turn them into.

What the operator may open (``refusal``), decided in this order:

- cloud metadata endpoints (``METADATA``: 169.254.169.254, fd00:ec2::254, 100.100.100.200,
  168.63.129.16, ...) are refused whatever else is allowed, unless that very address is
  listed on its own (``169.254.169.254`` or ``169.254.169.254/32``);
- the unspecified addresses (0.0.0.0, ::), which reach the machine itself, are always refused;
- ``private`` (the ``allow_private_hosts`` switch) opens loopback and the private ranges:
  127/8, ::1, 10/8, 172.16/12, 192.168/16 and the unique-local fc00::/7; link-local
  (169.254/16, fe80::/10), carrier-grade NAT, multicast and reserved ranges stay closed;
- ``allow_private_targets`` lists networks (CIDRs, addresses), which open every address inside them,
  and hostnames, which may resolve to any address but those two kinds.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")

METADATA: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack instance metadata
        "169.254.170.2",  # AWS ECS task metadata and credentials
        "169.254.170.23",  # AWS EKS Pod Identity agent
        "169.254.0.23",  # Tencent Cloud metadata
        "100.100.100.200",  # Alibaba Cloud metadata (inside carrier-grade NAT space)
        "168.63.129.16",  # Azure WireServer: a public address, reachable only from inside Azure
        "fd00:ec2::254",  # AWS instance metadata over IPv6 (inside unique-local fc00::/7)
        "fd00:ec2::23",  # AWS EKS Pod Identity agent over IPv6
        "fd20:ce::254",  # GCP metadata over IPv6
        "fe80::a9fe:a9fe",  # OpenStack metadata over IPv6 link-local
    )
)
"""Well-known cloud metadata and credential endpoints: opened only by listing the address itself."""

_PRIVATE: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(network)
    for network in (
        "127.0.0.0/8",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::1/128",
        "fc00::/7",
    )
)
"""What ``allow_private_hosts`` opens: loopback and the private ranges (RFC 1918, unique-local)."""


@functools.lru_cache(maxsize=4096)
def literal_ip(host: str) -> IPAddress | None:
    """The address ``host`` spells literally (brackets, BSD IPv4 forms, zone ids), or None for a
    name."""
    text = host.strip().strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    # glibc's inet_aton ignores what follows a space
    if text and not any(char.isspace() for char in text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or ip in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]  # the client's address: the one a packet would finally reach
    return None


def _final_address(ip: IPAddress) -> tuple[IPAddress, ...]:
    """``ip`` and, for an address that embeds an IPv4 one, the address a packet finally reaches."""
    inner = _embedded_v4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    return (ip, inner) if inner is not None else (ip,)


def why_not_global(ip: IPAddress) -> str | None:
    """A short reason ``ip`` is not globally routable, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_v4(ip)
        if inner is not None:
            reason = why_not_global(inner)
            return f"{reason} (embedded in {ip})" if reason else None
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("private", ip.is_private),
        ("carrier-grade NAT", isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("site-local", isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local),
        ("not globally routable", not ip.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def _contains(networks: tuple[IPNetwork, ...], ip: IPAddress) -> bool:
    return any(ip.version == network.version and ip in network for network in networks)


@dataclass(frozen=True, slots=True)
class Targets:
    """Hosts and networks beyond the public ones that the operator listed
    (``allow_private_targets``)."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, listed: str) -> Targets:
        """``listed``: comma-separated hostnames, addresses and CIDRs; ``ValueError`` names a bad
        entry."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in listed.split(","):
            entry = raw.strip().lower().strip("[]").rstrip(".")
            if not entry:
                continue
            literal = literal_ip(entry)
            if literal is not None:
                networks.append(ipaddress.ip_network(literal))
            elif "/" in entry:
                try:
                    networks.append(ipaddress.ip_network(entry))
                except ValueError as exc:
                    raise ValueError(
                        f"{raw.strip()!r} is not a network in CIDR form: {exc}"
                    ) from None
            elif entry.isascii():
                hosts.add(entry)
            else:
                try:
                    # names are compared in their ASCII form
                    hosts.add(entry.encode("idna").decode("ascii"))
                except UnicodeError:
                    raise ValueError(
                        f"{raw.strip()!r} is not a hostname, address or network"
                    ) from None
        return cls(frozenset(hosts), tuple(networks))


def private_range(ip: IPAddress) -> bool:
    """Whether ``ip`` (or the address it embeds) is in what ``allow_private_hosts`` opens: loopback,
    RFC 1918, unique-local; never link-local or a cloud metadata endpoint."""
    reached = _final_address(ip)
    return not any(address in METADATA for address in reached) and _contains(_PRIVATE, reached[-1])


def refusal(
    host: str, ip: IPAddress, *, private: bool = False, listed: Targets = Targets()
) -> str | None:
    """Why ``host`` must not be reached at ``ip`` (a short reason), or None when it may be.

    ``private`` is the operator's ``allow_private_hosts``; ``listed`` their
    ``allow_private_targets``.
    """
    reached = _final_address(ip)
    if any(address in METADATA for address in reached):
        exact = any(
            n.num_addresses == 1 and _contains((n,), a) for n in listed.networks for a in reached
        )
        return None if exact else "a cloud metadata endpoint"
    reason = why_not_global(ip)
    if reason is None:
        return None
    final = reached[-1]
    if final.is_unspecified:
        return reason
    if any(_contains(listed.networks, address) for address in reached):
        return None
    if host.rstrip(".") in listed.hosts:
        return None
    if private and _contains(_PRIVATE, final):
        return None
    return reason
