"""How uvicorn serves the club: the options ``prefclub serve`` starts it with.

``bench/echo_app.py`` serves its baseline with the same options, so the two are compared on
equal terms.
"""

from __future__ import annotations

from typing import Any

from app.commands.http_protocol import ClubHttpProtocol
from app.commands.ws_protocol import ClubWebSocketProtocol

UVICORN_OPTIONS: dict[str, Any] = {
    "log_config": None,
    "ws_max_size": 64 * 1024,
    "proxy_headers": False,
    # Per-message deflate stays negotiated (uvicorn's default): without it, a client sending a
    # frame over 64 KiB may see its connection reset instead of the documented 1009. The
    # server compresses only large messages of its own (app.commands.ws_protocol).
    "ws": ClubWebSocketProtocol,
    # Headers within 10 s, at most 8 stalled connections per address (app.commands.
    # http_protocol); ``prefclub serve`` sets both from the settings.
    "http": ClubHttpProtocol,
}
"""How uvicorn serves the club."""
