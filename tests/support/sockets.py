"""Stand-ins for a client socket in tests that drive a :class:`~app.realtime.connection.Connection`
without a server."""

from __future__ import annotations

import json
from typing import Any


class Recorder:
    """A client socket that reads everything at once and keeps what it was sent (as JSON)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None
