"""The client's address, trusting forwarded headers only from configured proxies.

Behind a reverse proxy every request comes from the proxy's address, so login limits keyed by
address would treat the whole club as one client. ``X-Forwarded-For`` / ``Forwarded`` headers
are however written by whoever sends the request, so they are believed only when the peer is a
proxy listed in ``FORWARDED_ALLOW_IPS`` (addresses or networks; ``*`` trusts every peer; the
default trusts nobody). The chain of addresses is then read from the right: proxies we trust are
skipped, and the first address that is not one of them is the client.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_FOR = re.compile(r'(?:^|;)\s*for\s*=\s*("?)([^;,"]*)\1', re.IGNORECASE)


class TrustedProxies:
    """The proxies whose forwarded headers are believed."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.everyone = False
        self.networks: list[Network] = []
        for entry in entries:
            entry = entry.strip()
            if not entry:
                continue
            if entry == "*":
                self.everyone = True
                continue
            self.networks.append(ipaddress.ip_network(entry, strict=False))

    def trusts(self, address: Address | None) -> bool:
        """Whether ``address`` is a proxy we trust."""
        if address is None:
            return False
        return self.everyone or any(address in net for net in self.networks)


def parse_address(text: str) -> Address | None:
    """An IP address from a header or socket value (``[v6]:port`` and ``v4:port`` allowed)."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _forwarded_chain(headers: Mapping[str, str]) -> list[str]:
    """The addresses of ``Forwarded`` (RFC 7239) or else ``X-Forwarded-For``, left to right."""
    forwarded = headers.get("forwarded")
    if forwarded:
        return [m.group(2) for part in forwarded.split(",") if (m := _FOR.search(part))]
    xff = headers.get("x-forwarded-for")
    if xff:
        return [part.strip() for part in xff.split(",") if part.strip()]
    return []


def client_address(peer: str | None, headers: Mapping[str, str], trusted: TrustedProxies) -> str:
    """The client's address for ``peer`` (the socket's) and the request's headers."""
    peer_ip = parse_address(peer) if peer else None
    if peer_ip is None:
        return peer or "unknown"
    if not trusted.trusts(peer_ip):
        return str(peer_ip)
    client = peer_ip
    chain: Sequence[str] = _forwarded_chain(headers)
    for hop in reversed(chain):
        hop_ip = parse_address(hop)
        if hop_ip is None:
            break  # garbage (or "unknown"): keep the last address a trusted proxy vouched for
        client = hop_ip
        if not trusted.trusts(hop_ip):
            break
    return str(client)
