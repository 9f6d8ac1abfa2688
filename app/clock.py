"""The server's clock, injectable so tests can freeze time around 19:00 and 22:15 (R-S1, R-S2).

Code that needs "now" takes a :class:`Clock` (the app keeps one in ``app.state.clock``) instead of
calling ``datetime.now``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Something that tells the current time as an aware UTC datetime."""

    def now(self) -> datetime:
        """The current instant, timezone-aware."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenClock:
    """A clock that stands still until moved; for tests."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("FrozenClock needs a timezone-aware datetime")
        self._at = at

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        """Jump to ``at``."""
        if at.tzinfo is None:
            raise ValueError("FrozenClock needs a timezone-aware datetime")
        self._at = at

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta``."""
        self._at += delta
