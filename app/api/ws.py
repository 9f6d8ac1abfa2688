"""``/ws/tables/{id}``: the live table socket (docs/protocol.md is its specification).

The handshake is refused before ``accept`` (HTTP 403) unless the ``Origin`` header is one of
``settings.origins()`` and the ``prefclub_session`` cookie belongs to a live session. A seated
member sends commands; anyone else logged in watches as a spectator. The process's
:class:`~app.realtime.hub.Hub` is made and started by the app's lifespan (``app/main.py``) with
the timers of ``app.state.table_timers``; commands go to the executor in
``app.state.table_commands``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI, WebSocket, WebSocketDisconnect

from app.api.app_state import app_state
from app.db.models.member import Member
from app.realtime import engine
from app.realtime.budget import CLOSE_OVER_BUDGET, FrameBudget
from app.realtime.chat_rate import RecentChats
from app.realtime.connection import CLOSE_SESSION_ENDED, SEND_NOWAIT, Connection
from app.realtime.game import CommandRejected
from app.realtime.hub import Hub
from app.realtime.socket_caps import CLOSE_REPLACED
from app.security.addresses import client_address
from app.security.login_sessions import SESSION_COOKIE, session_for_token
from app.services.table_commands import (
    MAX_COMMAND_ID,
    SESSION_ENDED,
    WRITE_COMMANDS,
    TableCommands,
)
from app.services.tables import get_table, seat_of_member

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 16 * 1024
"""The protocol's cap on one frame: larger frames get ``too_large`` and the socket stays open."""
TRANSPORT_MAX_BYTES = 64 * 1024
"""The transport's cap (uvicorn ``ws_max_size``, set by ``prefclub serve``): a larger frame is
never read into memory; the server closes the socket with 1009."""


def get_hub(app: FastAPI) -> Hub:
    """The app's hub, made and started by the lifespan (:func:`app.main.serving`)."""
    hub = app_state(app).hub
    if hub is None:
        raise RuntimeError("the hub runs only while the app is being served")
    return hub


router = APIRouter(tags=["tables"])


def origin_allowed(websocket: WebSocket) -> bool:
    origin = websocket.headers.get("origin")
    if not origin:
        return False
    return origin.rstrip("/") in websocket.app.state.settings.origins()


async def _authenticate(
    websocket: WebSocket, table_id: int
) -> tuple[Member, int, int | None] | None:
    """(member, login session id, seat) of a live session at an existing table, or None."""
    token = websocket.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    async with websocket.app.state.sessionmaker() as db:
        session = await session_for_token(db, token, websocket.app.state.clock.now())
        if session is None:
            return None
        member = await db.get(Member, session.member_id)
        if member is None or member.must_change_password:
            return None
        if await get_table(db, table_id) is None:
            return None
        seat = await seat_of_member(db, table_id, member.id)
    return member, session.id, seat


def _valid_id(cid: Any) -> str | None:
    """The client's id, echoed only when it is a well-formed one (never arbitrary input)."""
    if isinstance(cid, str) and 0 < len(cid) <= MAX_COMMAND_ID:
        return cid
    return None


def _error(cid: Any, code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "id": _valid_id(cid), "code": code, "message": message}
    if seq is not None:
        out["seq"] = seq
    return out


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: int) -> None:
    """One table page's socket; see docs/protocol.md."""
    if not origin_allowed(websocket):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    found = await _authenticate(websocket, table_id)
    if found is None:
        await websocket.close(code=1008, reason="not logged in, or no such table")
        return
    member, session_id, seat = found
    hub = get_hub(websocket.app)
    await websocket.accept()
    transport = websocket.scope.get("extensions", {}).get(SEND_NOWAIT, {})
    conn = Connection(
        websocket,
        table_id=table_id,
        member_id=member.id,
        seat=seat,
        name=member.display_name,
        send_nowait=transport.get("send"),
        abort=transport.get("abort"),
    )
    conn.session_id = session_id
    caps = app_state(websocket.app).socket_caps
    address = client_address(
        websocket.client.host if websocket.client else None,
        websocket.headers,
        websocket.app.state.trusted_proxies,
    )
    for older in caps.admit(conn, member.id, address):
        older.drop(CLOSE_REPLACED, "replaced by a newer socket of this member or address")
    code = 1000
    try:
        await _serve(websocket, hub, conn)
    except WebSocketDisconnect:
        pass
    except Exception:
        # E.g. the database failed while a command was being applied: whether it committed is
        # unknown, so the client must reconnect and resend it with the same id (never applied
        # twice) rather than be told it failed.
        log.exception("table socket failed", extra={"table": table_id})
        code = 1011
    finally:
        closing = conn.closing  # drop() is closing it with its own code
        caps.release(conn)
        hub.leave(conn)
        await conn.aclose()
        with contextlib.suppress(Exception):
            if closing is not None:
                await closing
            else:
                await websocket.close(code=code)


BINARY = object()
"""What :func:`_receive` returns for a binary frame (the protocol is text only)."""


async def _receive(websocket: WebSocket, conn: Connection) -> str | object | None:
    """The next text frame (or :data:`BINARY`), None when the socket was dropped by the server.

    Raises WebSocketDisconnect when the client goes away. The receive is awaited directly, no
    task around it (a task and a future per frame, kept alive by every idle socket, were most of
    what the garbage collector walked at a thousand tables): :meth:`Connection.drop` cancels
    this task while it waits here, which is the only place it is ever cancelled from.
    """
    if conn.closed.is_set():
        return None
    task = asyncio.current_task()
    conn.reader = task
    try:
        message = await websocket.receive()
    except asyncio.CancelledError:
        if not conn.closed.is_set() or task is None:
            raise  # not a drop: the hello timeout, or the server stopping
        task.uncancel()
        return None
    except Exception:  # the socket was closed under us (a drop, or shutdown)
        return None
    finally:
        conn.reader = None
    if conn.closed.is_set():
        return None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    if text is None:
        return BINARY
    return str(text)


_LONG_NUMBER = re.compile(r"\d{19}")
"""A run of digits orjson may read differently (an integer beyond 64 bits becomes a float)."""


def _loads(frame: str) -> Any:
    """``json.loads(frame)``, made by orjson when it can (about three times faster): what
    orjson refuses (``NaN``, a lone surrogate escape) and frames with a long run of digits go
    to ``json``, which then decides — both accept and refuse the same frames, alike."""
    if _LONG_NUMBER.search(frame) is None:
        try:
            return orjson.loads(frame)
        except orjson.JSONDecodeError:
            pass
    return json.loads(frame)


def _parse(frame: str | object) -> dict[str, Any] | tuple[str, str]:
    """A command object, or ``(error code, message)`` for a frame that is not one."""
    if not isinstance(frame, str):
        return "bad_json", "frames must be text frames holding a JSON object"
    if len(frame) > MAX_MESSAGE_BYTES or len(frame.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        return "too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes (UTF-8)"
    try:
        data = _loads(frame)
    except ValueError:
        return "bad_json", "a message must be a JSON object"
    except RecursionError:
        return "bad_json", "a message must be a JSON object (nested too deeply)"
    if not isinstance(data, dict):
        return "bad_json", "a message must be a JSON object"
    # Strings must survive the database and the wire: no NUL, no lone surrogates ("\ud800").
    # Both can only arrive as escapes (a text frame is valid UTF-8, and JSON refuses raw
    # control characters), so a frame without a backslash needs no second look.
    if "\\" not in frame:
        return data
    try:
        canonical = json.dumps(data, ensure_ascii=False)
        canonical.encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError):
        return "bad_json", "strings must be valid Unicode"
    if "\\u0000" in canonical:
        return "bad_character", "strings must not contain NUL characters"
    return data


async def _serve(websocket: WebSocket, hub: Hub, conn: Connection) -> None:
    # The first message is hello (with the last seq the client saw, if any).
    settings = websocket.app.state.settings
    try:
        first = await asyncio.wait_for(_receive(websocket, conn), settings.ws_hello_timeout)
    except TimeoutError:
        conn.send(_error(None, "bad_command", "the first message must be hello"))
        await conn.flush()
        return
    if first is None:
        return
    hello = _parse(first)
    if not isinstance(hello, dict) or hello.get("type") != "hello":
        conn.send(
            _error(
                hello.get("id") if isinstance(hello, dict) else None,
                "bad_command",
                "the first message must be hello",
            )
        )
        await conn.flush()
        return
    last_seq = hello.get("last_seq")
    if last_seq is not None and (isinstance(last_seq, bool) or not isinstance(last_seq, int)):
        last_seq = None
    budget = FrameBudget(settings.ws_frame_rate, settings.ws_frame_burst)
    budget.take()  # the hello
    await hub.join(conn, last_seq)
    commands: TableCommands = websocket.app.state.table_commands
    chats = app_state(websocket.app).recent_chats
    while True:
        frame = await _receive(websocket, conn)
        if frame is None:
            return
        received = time.perf_counter()
        if not budget.take():
            # Every frame before this one was answered (in order); this one and what follows
            # are not read.
            log.info(
                "closing a table socket over its frame budget",
                extra={"table": conn.table_id, "member": conn.member_id},
            )
            await conn.flush()
            conn.drop(CLOSE_OVER_BUDGET, "too many frames: see the protocol's frame budget")
            return
        message = _parse(frame)
        if isinstance(message, tuple):
            conn.send(_error(None, message[0], message[1], conn.last_seq))
            continue
        await _handle(hub, commands, conn, message, received, chats)


async def _handle(
    hub: Hub,
    commands: TableCommands,
    conn: Connection,
    message: dict[str, Any],
    received: float,
    chats: RecentChats | None = None,
) -> None:
    """Answer one message; a table command (:data:`WRITE_COMMANDS`) is counted in
    ``hub.command_stats`` with its time from ``received`` (``perf_counter``) to its answer.
    ``chats`` lets a flood's refused chat lines skip the table's row lock."""
    cid = message.get("id")
    kind = message.get("type")
    if not isinstance(kind, str):
        kind = None  # e.g. a list: never compared with (or hashed into) the command sets
    if kind == "ping":
        conn.send({"type": "pong", "id": _valid_id(cid)})
        return
    if kind == "hello":
        conn.send(_error(cid, "bad_command", "hello is sent once, first", conn.last_seq))
        return
    if kind == "last_trick":
        state = hub.state_of(conn.table_id)
        deal = state.deal if state is not None else None
        trick = winner = None
        if deal is not None:
            view = engine.view(deal, conn.seat)
            trick, winner = view.get("last_trick"), view.get("last_trick_winner")
        conn.send(
            {
                "type": "last_trick",
                "id": _valid_id(cid),
                "seq": state.seq if state else 0,
                "trick": trick,
                "winner": winner,
            }
        )
        return
    if kind not in WRITE_COMMANDS:
        shown = kind if kind is not None and len(kind) <= 40 else "(not a short string)"
        conn.send(_error(cid, "unknown_command", f"unknown command type {shown!r}", conn.last_seq))
        return
    try:
        result = await commands.execute(
            hub.sessionmaker,
            hub.cache,
            table_id=conn.table_id,
            member_id=conn.member_id,
            seat=conn.seat,
            name=conn.name,
            command=message,
            now=hub.clock.now(),
            session_id=conn.session_id,
            solver=hub.workers,
            committer=hub.committer,
            chats=chats,
        )
    except CommandRejected as exc:
        await hub.catch_up(conn.table_id)
        state = hub.state_of(conn.table_id)
        conn.send(_error(cid, exc.code, exc.message, state.seq if state else conn.last_seq))
        hub.command_stats.observe(time.perf_counter() - received, False)
        if exc.code == SESSION_ENDED:
            await conn.flush()
            conn.drop(CLOSE_SESSION_ENDED, "login session ended")
        return
    if result.events:
        await hub.publish(conn.table_id, result.events)
    else:
        await hub.catch_up(conn.table_id)
    conn.send({"type": "ack", "id": cid, "seq": result.seq, "duplicate": result.duplicate})
    hub.command_stats.observe(time.perf_counter() - received, True)
