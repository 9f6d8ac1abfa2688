"""The server's clock, injectable so tests can freeze time around 19:00 and 22:15 (R-S1, R-S2).

Code that needs "now" takes a :class:`Clock` (the app keeps one in ``app.state.clock``) instead of
calling ``datetime.now``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.config import Settings


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


class FileOffsetClock:
    """The real clock moved by a number of seconds written in a file; for end-to-end tests.

    A browser test of a whole club night runs ``prefclub serve`` in its own process, so it cannot
    hand the app a :class:`FrozenClock`; it writes the offset (a decimal number of seconds) to
    this file instead to jump the server to a session's start and to its end (R-S1, R-S2). The
    file is read on every call, so a jump takes effect at once; a missing or unreadable file
    means no offset. Only the test environment wires it (``PREFCLUB_TEST_CLOCK``).
    """

    def __init__(self, path: Path) -> None:
        self._path = path

    def offset(self) -> timedelta:
        """The offset the file holds now (zero when there is none)."""
        try:
            return timedelta(seconds=float(self._path.read_text().strip() or 0))
        except (OSError, ValueError):
            return timedelta(0)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset()


def server_clock(settings: Settings) -> Clock:
    """The real clock; in the test environment moved by ``PREFCLUB_TEST_CLOCK`` when it is set
    (never in development or production, whatever the environment says)."""
    if settings.environment == "test" and settings.test_clock_file is not None:
        return FileOffsetClock(settings.test_clock_file)
    return SystemClock()
