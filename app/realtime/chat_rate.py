"""The chat lines this process accepted lately, per table and member: the cheap first look of
the chat rate (``app.services.table_commands.CHAT_RATE_LINES`` per ``CHAT_RATE_SECONDS``).

The rate's authority is the table's log, counted under the row lock over every process. But a
chat flood refused that way costs a transaction, the table's row lock and a count per frame,
and the flooder's tablemates waited behind them (issue 24). A member whose lines *this process*
accepted already fill the window is over the rate whatever the other processes did, so his next
line is refused without the database. Times are monotonic and taken after the commit, so the
window here ends a little later than the log's: a line is never accepted here that the log would
refuse, and may at worst be refused a few milliseconds early.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

MAX_TRACKED = 10_000
"""(table, member) pairs remembered at most; the least recently used go first."""


class RecentChats:
    """Accepted chat lines of this process by (table, member), with their monotonic times."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lines: dict[tuple[int, int], deque[float]] = {}

    def record(self, table_id: int, member_id: int) -> None:
        """A chat line of ``member_id`` at ``table_id`` was committed just now."""
        key = (table_id, member_id)
        lines = self._lines.pop(key, None) or deque(maxlen=64)
        lines.append(self._clock())
        self._lines[key] = lines  # most recently used last
        while len(self._lines) > MAX_TRACKED:
            self._lines.pop(next(iter(self._lines)))

    def count(self, table_id: int, member_id: int, seconds: float) -> int:
        """Lines accepted in the last ``seconds``."""
        lines = self._lines.get((table_id, member_id))
        if not lines:
            return 0
        since = self._clock() - seconds
        while lines and lines[0] <= since:
            lines.popleft()
        return len(lines)
