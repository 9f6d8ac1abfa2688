"""What ``prefclub serve`` tells the person who started it, printed LAST so nobody misses it.

uvicorn logs its own start-up lines ("Application startup complete", "Uvicorn running on ...")
while it starts; the club's address and, on a first start, the admin's one-time login are
printed after them, set apart by a blank line and a frame.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import uvicorn

RULE = "=" * 72


def banner(base: str, login: str | None = None, password: str | None = None) -> str:
    """The framed block: the address, and the first admin's one-time login when given."""
    lines = [f"prefclub serves the club at {base}/"]
    if login is not None and password is not None:
        lines += [
            f"First start: log in at {base}/ as '{login}' with the one-time password {password}",
            "(you will be asked to choose your own password).",
        ]
    lines.append("Stop it with Ctrl+C.")
    return "\n".join(["", RULE, *(f"  {line}" for line in lines), RULE, ""])


class BannerServer(uvicorn.Server):
    """A uvicorn server that prints ``text`` once it has started and logged that it did."""

    def __init__(self, config: uvicorn.Config, text: str) -> None:
        super().__init__(config)
        self._text = text

    async def startup(self, sockets: Sequence[Any] | None = None) -> None:
        await super().startup(sockets=list(sockets) if sockets is not None else None)
        if self.should_exit:  # could not bind: uvicorn has said why
            return
        sys.stderr.flush()
        print(self._text, flush=True)
