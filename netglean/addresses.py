"""Which IP addresses a fetch may connect to: only globally routable ones.

A host is refused when ANY of its addresses is not global, so a DNS answer that
mixes a public and a private address cannot slip through. Addresses that embed
an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) are judged by what they embed,
and IPv4 hosts written in the old BSD spellings (2130706433, 0x7f.1, 017700000001)
are read as the addresses every resolver would turn them into.
"""

from __future__ import annotations

import ipaddress
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")


def literal_ip(host: str) -> IPAddress | None:
    """The address ``host`` spells literally (brackets, BSD IPv4 forms, zone ids), or None for a name."""
    text = host.strip().strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if text and not any(char.isspace() for char in text):  # glibc's inet_aton ignores what follows a space
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


def why_not_global(ip: IPAddress) -> str | None:
    """A short reason ``ip`` must not be contacted, or None when it is globally routable."""
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
