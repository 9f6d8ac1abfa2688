"""Caps on the table sockets a member, and a client address, hold open in this process.

One member opened 448 sockets (issue 24). A member may hold ``per_member`` sockets (default 8,
``WS_PER_MEMBER``: tabs and devices) and an address ``per_address`` (default 32,
``WS_PER_ADDRESS``: a club room behind one NAT); a socket that would be one more closes the
**oldest** of the member's (or the address's) with :data:`CLOSE_REPLACED` — the newest page is
the one a person looks at, and a closed page does not reconnect (docs/protocol.md). The counts
are this process's: a member's sockets spread over several processes are capped per process.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

CLOSE_REPLACED = 4409
"""The close code of a socket closed because a newer one of its member (or address) opened."""

S = TypeVar("S", bound=Hashable)


class SocketCaps(Generic[S]):
    """Open sockets by member and by address, oldest first (module docstring)."""

    def __init__(self, per_member: int, per_address: int) -> None:
        if per_member < 1 or per_address < 1:
            raise ValueError("socket caps must be at least 1")
        self.per_member = per_member
        self.per_address = per_address
        self._members: dict[int, OrderedDict[S, None]] = {}
        self._addresses: dict[str, OrderedDict[S, None]] = {}
        self._keys: dict[S, tuple[int, str]] = {}

    def admit(self, socket: S, member_id: int, address: str) -> list[S]:
        """Count ``socket`` as open; the older sockets it pushes over a cap, oldest first (the
        caller closes them; they stop counting now)."""
        evicted: list[S] = []
        for group, cap in (
            (self._members.get(member_id), self.per_member),
            (self._addresses.get(address), self.per_address),
        ):
            while group is not None and len(group) >= cap:
                oldest = next(iter(group))
                self.release(oldest)
                evicted.append(oldest)
        self._keys[socket] = (member_id, address)
        self._members.setdefault(member_id, OrderedDict())[socket] = None
        self._addresses.setdefault(address, OrderedDict())[socket] = None
        return evicted

    def release(self, socket: S) -> None:
        """``socket`` is closed (or being closed): it no longer counts. Idempotent."""
        keys = self._keys.pop(socket, None)
        if keys is None:
            return
        member_id, address = keys
        _discard(self._members, member_id, socket)
        _discard(self._addresses, address, socket)

    def count(self, *, member_id: int | None = None, address: str | None = None) -> int:
        """Open sockets of a member or of an address."""
        if member_id is not None:
            return len(self._members.get(member_id, ()))
        return len(self._addresses.get(address or "", ()))


K = TypeVar("K")


def _discard(groups: dict[K, OrderedDict[S, None]], key: K, socket: S) -> None:
    group = groups.get(key)
    if group is not None:
        group.pop(socket, None)
        if not group:
            del groups[key]
