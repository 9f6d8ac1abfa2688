"""A bare websocket echo ASGI app, served by uvicorn the way ``prefclub serve`` serves the club.

    python -m bench.echo_app PORT

It is the ceiling of what our stack (uvicorn + its websocket protocol + one asyncio loop) can do
with no application work at all: every text frame is sent straight back. ``bench.server`` runs it
as a baseline and reports our live-table figures as ratios to it.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    """Accept every websocket and echo its text frames; answer HTTP with 200 ``ok``."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/plain")],
            }
        )
        await send({"type": "http.response.body", "body": b"ok"})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("text") is not None:
            await send({"type": "websocket.send", "text": message["text"]})
        elif message.get("bytes") is not None:
            await send({"type": "websocket.send", "bytes": message["bytes"]})


def main() -> None:
    """Serve the echo app on 127.0.0.1:PORT with the same uvicorn options as the club."""
    import uvicorn

    from app.commands.http_protocol import HEADER_TIMEOUT, ClubHttpProtocol
    from app.commands.uvicorn_options import UVICORN_OPTIONS

    # Every load socket comes from 127.0.0.1: no cap on incomplete connections per address
    # (the bot harness's club servers run the same way, INCOMPLETE_PER_ADDRESS=0).
    options = {**UVICORN_OPTIONS, "http": ClubHttpProtocol.configured(HEADER_TIMEOUT, 0)}
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", **options)


if __name__ == "__main__":
    main()
