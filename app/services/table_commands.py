"""Applying a command to a live table: one transaction per command.

The order is the durability contract (DESIGN.md "Realtime protocol"): lock the table row, check
the command id (a repeated id is answered again, never applied twice), check the client's ``seq``,
check the command with the engine, append the event(s), update the derived rows, ``NOTIFY`` — and
commit. Only after the commit does the caller acknowledge and fan out. A crash before the commit
leaves nothing; a crash after it leaves a committed event that every process's listener and every
reconnecting client picks up.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import session_scope
from app.db.group_commit import GroupCommit
from app.db.models.table import Table, TableCommand, TableEvent
from app.realtime import engine, game
from app.realtime.chat_rate import RecentChats
from app.realtime.game import CommandRejected, TableState
from app.realtime.store import (
    StateCache,
    append,
    appended,
    load_state,
    lock_and_check,
    lock_table,
    notify,
    recheck_command,
    write_command,
)
from app.rules import DEFAULT_CUT, action_to_json, default_move
from app.services.live_table import AfterDeal, advance, deal_refusal, sync_rows
from app.services.move_guard import (
    ACTION_COMMANDS,
    FAST_WRITER,
    CommandResult,
    decide_in_advance,
    holds_seat,
    remember_terms,
    session_live,
)
from app.workers import PoolBusy, WorkerPool

WRITE_COMMANDS = ACTION_COMMANDS | {"chat", "next_deal"}
MAX_COMMAND_ID = 64
SESSION_ENDED = "session_ended"
"""The error code of a command whose login session has ended (the socket is closed next)."""
_SESSION_ENDED_TEXT = (
    "your login session has ended (logged out, expired or deactivated); "
    "nothing was applied — log in again"
)
CHAT_RATE_LINES = 5
CHAT_RATE_SECONDS = 10
"""A member writes at most ``CHAT_RATE_LINES`` chat lines per ``CHAT_RATE_SECONDS`` at a table
(over all his sockets and every server process: counted from the log under the row lock)."""


async def _check_chat_rate(db: AsyncSession, table_id: int, member_id: int) -> None:
    """Refuse a chat line over the rate (``chat_rate``); the table row is locked."""
    since = func.now() - text(f"interval '{CHAT_RATE_SECONDS} seconds'")
    recent = await db.scalar(
        select(func.count())
        .select_from(TableCommand)
        .join(
            TableEvent,
            and_(TableEvent.table_id == TableCommand.table_id, TableEvent.seq == TableCommand.seq),
        )
        .where(
            TableCommand.table_id == table_id,
            TableCommand.member_id == member_id,
            TableEvent.kind == "chat",
            TableCommand.created_at > since,
        )
    )
    if (recent or 0) >= CHAT_RATE_LINES:
        raise _chat_rate_refusal()


def _chat_rate_refusal() -> CommandRejected:
    return CommandRejected(
        "chat_rate",
        f"too many chat lines: at most {CHAT_RATE_LINES} in {CHAT_RATE_SECONDS} seconds; "
        "wait a few seconds and try again",
    )


def _chat_refused_in_advance(
    cache: StateCache,
    chats: RecentChats,
    table_id: int,
    member_id: int,
    name: str,
    command: Mapping[str, Any],
) -> CommandRejected | None:
    """The refusal of a chat line this process can tell without the database, or None: a bad
    text, table talk closed by a deal in progress (R-W12) in the newest state it holds, or the
    member over the rate by the lines it accepted itself (:mod:`app.realtime.chat_rate`)."""
    state = cache.latest(table_id)
    seat = state.seat_of(member_id) if state is not None else None
    if state is None or seat is None:
        return None
    try:
        game.chat_event(state, seat, name, command.get("text"))
    except CommandRejected as exc:
        return exc
    if chats.count(table_id, member_id, CHAT_RATE_SECONDS) >= CHAT_RATE_LINES:
        return _chat_rate_refusal()
    return None


def _command_id(command: Mapping[str, Any]) -> str:
    cid = command.get("id")
    if not isinstance(cid, str) or not cid or len(cid) > MAX_COMMAND_ID:
        raise CommandRejected(
            "bad_command",
            f"every command needs an id: a string of 1 to {MAX_COMMAND_ID} characters",
        )
    return cid


@contextlib.contextmanager
def _claims_off_the_loop(active: bool) -> Iterator[None]:
    """Refuse (``stale_seq``) a claim whose position moved since the pool solved it, rather
    than solve it here, on the event loop."""
    if not active:
        yield
        return
    try:
        with engine.inline_claims_forbidden():
            yield
    except engine.ClaimNotSolved:
        raise CommandRejected(
            "stale_seq",
            "the table moved on while your claim was being checked; nothing was applied",
        ) from None


async def _solve_claim(
    sessionmaker: async_sessionmaker[AsyncSession],
    cache: StateCache | None,
    table_id: int,
    member_id: int,
    command: Mapping[str, Any],
    solver: WorkerPool,
) -> None:
    """Solve a claim on the table's current position in the worker pool (no lock held: the
    search may take most of a second); the engine then applies it with the known result."""
    async with sessionmaker() as db:
        table = await db.get(Table, table_id)
        if table is None:
            return
        state = await load_state(db, table, cache)
    seat = state.seat_of(member_id)
    if state.deal is None or seat is None:
        return
    body = {k: v for k, v in command.items() if k not in ("id", "seq")}
    action = engine.claim_action(body, seat)
    if (
        action is None
        or engine.claim_known(state.deal, action)
        or not engine.claim_needs_search(state.deal, action)
    ):
        return
    try:
        holds = await solver.run(engine.solve_claim, state.deal, action)
    except PoolBusy:
        raise CommandRejected(
            "busy",
            "the server is busy checking other claims; nothing was applied — try again in a moment",
        ) from None
    if holds is not None:
        engine.remember_claim(state.deal, action, holds)


async def execute(
    sessionmaker: async_sessionmaker[AsyncSession],
    cache: StateCache | None,
    *,
    table_id: int,
    member_id: int,
    seat: int | None,
    name: str,
    command: Mapping[str, Any],
    now: datetime,
    session_id: int | None = None,
    solver: WorkerPool | None = None,
    after_deal: AfterDeal | None = None,
    committer: GroupCommit | None = None,
    chats: RecentChats | None = None,
) -> CommandResult:
    """Apply one write command in its own transaction — or, with ``committer``, in the
    transaction it shares with other tables' commands that arrived at the same time (group
    commit); either way it returns only after the commit. Raise CommandRejected if refused.

    ``session_id`` is the login session of the socket: re-checked under the table lock, so a
    command of a member who has logged out (or was deactivated) is refused. With ``solver``
    a claim (R-W11) is solved in that worker pool before the transaction, never on the event
    loop; a full pool refuses the claim with ``busy``. ``after_deal`` runs when the command
    ends a deal (see :func:`app.services.live_table.advance`); the server passes the
    seat-change hook through :class:`TableCommands`. With ``chats`` (and ``cache``) a chat
    line this process can tell is refused (:func:`_chat_refused_in_advance`) costs one read
    (is its id already applied? then it is answered as the duplicate it is), no lock and no
    transaction: a chat flood does not hold up the table (issue 24)."""
    cid = _command_id(command)
    kind = command.get("type")
    if kind not in WRITE_COMMANDS:
        raise CommandRejected("unknown_command", f"unknown command type {kind!r}")
    if seat is None:
        raise CommandRejected("not_seated", "spectators may only watch")
    client_seq = command.get("seq")
    if client_seq is not None and (isinstance(client_seq, bool) or not isinstance(client_seq, int)):
        raise CommandRejected("bad_command", "seq must be a whole number")
    if kind == "chat" and chats is not None and cache is not None:
        refusal = _chat_refused_in_advance(cache, chats, table_id, member_id, name, command)
        if refusal is not None:
            async with sessionmaker() as db:
                checked = await recheck_command(
                    db, table_id, member_id, cid, session_live(session_id, member_id, now)
                )
            if not checked.live:
                raise CommandRejected(SESSION_ENDED, _SESSION_ENDED_TEXT)
            if checked.done is not None:
                return CommandResult(seq=checked.done, duplicate=True, state=None)
            raise refusal
    if kind == "claim" and solver is not None:
        await _solve_claim(sessionmaker, cache, table_id, member_id, command, solver)
    if committer is not None and cache is not None and client_seq is not None:
        decided = decide_in_advance(
            cache,
            table_id=table_id,
            member_id=member_id,
            seat=seat,
            command=command,
            cid=cid,
            kind=kind,
            client_seq=client_seq,
            now=now,
            session_id=session_id,
        )
        if decided is not None and await committer.write(table_id, decided.move):
            assert decided.result.state is not None
            cache.put(decided.result.state)
            return decided.result
    try:

        async def work(db: AsyncSession) -> CommandResult:
            return await _apply(
                db,
                cache,
                table_id=table_id,
                member_id=member_id,
                seat=seat,
                name=name,
                command=command,
                cid=cid,
                kind=kind,
                client_seq=client_seq,
                now=now,
                session_id=session_id,
                solver=solver,
                after_deal=after_deal,
                in_advance=committer is None,
            )

        if committer is not None:
            result: CommandResult = await committer.run(table_id, work)
        else:
            async with session_scope(sessionmaker) as db:
                result = await work(db)
        if cache is not None and result.state is not None:
            cache.put(result.state)  # only once committed: the cache never holds a guess
        if kind == "chat" and chats is not None and not result.duplicate:
            chats.record(table_id, member_id)
        return result
    except (CommandRejected, IntegrityError) as exc:
        if isinstance(exc, CommandRejected) and not exc.after_lock:
            raise
        # The lock statement's lookup may have missed a twin that committed while this one
        # waited for the lock: look again with a fresh snapshot (refusals and conflicts only).
        async with sessionmaker() as db:
            checked = await recheck_command(
                db, table_id, member_id, cid, session_live(session_id, member_id, now)
            )
        if not checked.live:
            raise CommandRejected(SESSION_ENDED, _SESSION_ENDED_TEXT) from None
        if checked.done is not None:
            return CommandResult(seq=checked.done, duplicate=True, state=None)
        raise


async def _apply(
    db: AsyncSession,
    cache: StateCache | None,
    *,
    table_id: int,
    member_id: int,
    seat: int,
    name: str,
    command: Mapping[str, Any],
    cid: str,
    kind: str,
    client_seq: int | None,
    now: datetime,
    session_id: int | None,
    solver: WorkerPool | None,
    after_deal: AfterDeal | None = None,
    in_advance: bool = True,
) -> CommandResult:
    """The command's unit of work in the caller's transaction: lock + checks (one statement),
    the engine, one write — or, with ``in_advance``, for a move decided in advance, one
    statement in all (:func:`app.services.move_guard.decide_in_advance`). Nothing here
    commits; running it again after a rollback is safe."""
    if in_advance and cache is not None and client_seq is not None:
        decided = decide_in_advance(
            cache,
            table_id=table_id,
            member_id=member_id,
            seat=seat,
            command=command,
            cid=cid,
            kind=kind,
            client_seq=client_seq,
            now=now,
            session_id=session_id,
        )
        if decided is not None and await FAST_WRITER.write_one(db, decided.move):
            return decided.result
    checked = await lock_and_check(
        db, table_id, member_id, cid, session_live(session_id, member_id, now)
    )
    table = checked.table
    if table is None:
        raise CommandRejected("no_table", f"there is no table {table_id}")
    if not checked.live:
        raise CommandRejected(SESSION_ENDED, _SESSION_ENDED_TEXT)
    if checked.done is not None:
        return CommandResult(seq=checked.done, duplicate=True, state=None)
    try:
        state = await _decide(
            db,
            table,
            cache,
            member_id=member_id,
            seat=seat,
            name=name,
            command=command,
            kind=kind,
            client_seq=client_seq,
            now=now,
            solver=solver,
            after_deal=after_deal,
        )
    except CommandRejected as exc:
        exc.after_lock = True
        raise
    await write_command(db, table, member_id, cid, cache.owner if cache else None)
    if cache is not None:
        remember_terms(cache, table)
    return CommandResult(seq=state.seq, duplicate=False, state=state, events=tuple(appended(db)))


async def _decide(
    db: AsyncSession,
    table: Table,
    cache: StateCache | None,
    *,
    member_id: int,
    seat: int,
    name: str,
    command: Mapping[str, Any],
    kind: str,
    client_seq: int | None,
    now: datetime,
    solver: WorkerPool | None,
    after_deal: AfterDeal | None = None,
) -> TableState:
    """Under the row lock: check the command, append its events and sync the derived rows;
    the state after it (CommandRejected: nothing is written)."""
    if client_seq is not None and client_seq != table.version:
        raise CommandRejected(
            "stale_seq",
            f"your command was based on seq {client_seq} but the table is at seq "
            f"{table.version}; nothing was applied",
        )
    state = before = await load_state(db, table, cache)
    if not holds_seat(state, seat, member_id):
        # The connection's seat is out of date (a player joined or was replaced): the log's
        # seating decides. A replaced player holds no seat any more.
        actual = state.seat_of(member_id)
        if actual is None:
            raise CommandRejected("not_seated", "you no longer hold a seat at this table")
        seat = actual
    if kind == "chat":
        line = game.chat_event(state, seat, name, command.get("text"))
        await _check_chat_rate(db, table.id, member_id)
        state = append(db, table, state, *line)
    elif kind == "next_deal":
        if state.status != "waiting":
            raise CommandRejected("not_now", "the next deal is not waiting to start")
        reason = await deal_refusal(db, table, now)
        if reason is not None:
            raise CommandRejected("not_now", reason)
        state = dataclasses.replace(state, status="playing", notice=None)
        kind_, payload = game.deal_started(state)
        state = append(db, table, state, kind_, payload)
    else:
        if state.status != "playing":
            raise CommandRejected("not_now", state.notice or "the table is not playing")
        body = {k: v for k, v in command.items() if k not in ("id", "seq")}
        auto = kind == "cut" and _auto_cut(command)
        if kind == "cut":
            body = (
                _default_cut(state, seat)
                if auto
                else {k: v for k, v in body.items() if k != "auto"}
            )
        with _claims_off_the_loop(kind == "claim" and solver is not None):
            state = append(db, table, state, *game.action_event(state, seat, body, auto=auto))
        state = await advance(db, table, state, now, after_deal=after_deal)
    return await sync_rows(db, table, state, now, before)


def _auto_cut(command: Mapping[str, Any]) -> bool:
    """Does this ``cut`` let the server cut for the cutter (``"auto": true``)?"""
    auto = command.get("auto", False)
    if not isinstance(auto, bool):
        raise CommandRejected("bad_command", "auto must be true or false")
    if auto and "position" in command:
        raise CommandRejected("bad_command", "a cut gives a position or auto, not both")
    return auto


def _default_cut(state: TableState, seat: int) -> dict[str, Any]:
    """The cut the timer makes (``app.rules.deal.timeout.DEFAULT_CUT``), as a command body; the
    engine's refusal when it is not this seat's cut."""
    move = (
        default_move(state.deal, seat)
        if state.deal is not None
        and engine.phase(state.deal) == "cut"
        and engine.to_move(state.deal) == seat
        else None
    )
    if move is None:
        return {"type": "cut", "position": DEFAULT_CUT}  # refused by the engine as usual
    return {k: v for k, v in action_to_json(move).items() if k != "seat"}


async def fire_deadline(
    sessionmaker: async_sessionmaker[AsyncSession],
    cache: StateCache | None,
    table_id: int,
    now: datetime,
    after_deal: AfterDeal | None = None,
) -> bool:
    """Play the default move (``app.rules.deal.timeout.default_move``) of a player whose time ran
    out; True if a move was made.

    Guarded by the row lock and ``deadline_seq``: of all processes that try, one fires, once.
    """
    async with session_scope(sessionmaker) as db:
        table = await lock_table(db, table_id)
        if (
            table is None
            or table.deadline_at is None
            or table.deadline_at > now
            or table.deadline_seq != table.version
            or table.status != "playing"
        ):
            return False
        state = before = await load_state(db, table, cache)
        mover = engine.to_move(state.deal) if state.deal is not None else None
        if mover is None:
            table.deadline_at = None
            return False
        action = default_move(state.deal, mover)
        if action is None:
            table.deadline_at = None
            return False
        body = {k: v for k, v in action_to_json(action).items() if k != "seat"}
        state = append(db, table, state, *game.action_event(state, mover, body, auto=True))
        state = await advance(db, table, state, now, after_deal=after_deal)
        state = await sync_rows(db, table, state, now, before)
        await notify(db, table_id, table.version)
    if cache is not None:
        cache.put(state)
    return True


@dataclasses.dataclass(frozen=True, slots=True)
class TableCommands:
    """The command executor as the server runs it: :func:`execute` and :func:`fire_deadline`
    with the end-of-deal hook the composition root (``app/main.py``) hands in.

    The websocket endpoint calls :meth:`execute`; the realtime hub is given
    :meth:`fire_deadline` for its move timers (``realtime`` does not import ``services``)."""

    after_deal: AfterDeal | None = None

    async def execute(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        cache: StateCache | None,
        *,
        table_id: int,
        member_id: int,
        seat: int | None,
        name: str,
        command: Mapping[str, Any],
        now: datetime,
        session_id: int | None = None,
        solver: WorkerPool | None = None,
        committer: GroupCommit | None = None,
        chats: RecentChats | None = None,
    ) -> CommandResult:
        """:func:`execute` with this executor's hook."""
        return await execute(
            sessionmaker,
            cache,
            table_id=table_id,
            member_id=member_id,
            seat=seat,
            name=name,
            command=command,
            now=now,
            session_id=session_id,
            solver=solver,
            after_deal=self.after_deal,
            committer=committer,
            chats=chats,
        )

    async def fire_deadline(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        cache: StateCache | None,
        table_id: int,
        now: datetime,
    ) -> bool:
        """:func:`fire_deadline` with this executor's hook."""
        return await fire_deadline(sessionmaker, cache, table_id, now, after_deal=self.after_deal)
