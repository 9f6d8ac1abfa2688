"""The one guard of a move at a live table: whether it may be written, and what follows it.

A player's move reaches the log by one of two paths (docs/live-tables.md). The ordinary path
(:mod:`app.services.table_commands`) locks the table row, checks the command and calls
:func:`app.services.live_table.advance`. The fast path decides the move in advance on this
process's cached state (:func:`decide_in_advance`) and has it written by one statement that
re-checks, under the row lock, the conditions this module states (:data:`FAST_PATH_GUARD`,
written by :data:`FAST_WRITER`). Both paths take their answers from here:

* the login session that sent a command is live (:func:`session_live`; the same SQL text on
  both paths);
* what follows an action (:func:`what_follows`): the deal goes on, or, once it is scored, the
  next deal starts or the pulka ends — the ordinary path's ``advance`` and the fast path both
  read it;
* which of those the fast path may write: the move leaves the pulka playing at a table with no
  move timer, and a deal end only where no club session gates the deals (:func:`gates_deals`,
  R-S2) and no agreed seat change waits for the deal's end (R-T4/R-T5: the ordinary path's
  ``after_deal`` hook applies it). Anything else — claims, chat, ``next_deal``, the pulka's
  end, timed tables — takes the ordinary path, which also explains every refusal.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, TextClause, text, true

from app.db.models.table import Table
from app.realtime import game
from app.realtime.connection import dumps
from app.realtime.game import CommandRejected, TableState
from app.realtime.store import Appended, Move, MovesWriter, StateCache, WriteGuard
from app.rules import ACTION_TYPES

ACTION_COMMANDS = frozenset(ACTION_TYPES)
"""Commands that are engine actions (the codec's action types)."""


@dataclasses.dataclass(frozen=True, slots=True)
class CommandResult:
    """What the connection acknowledges: the table's ``seq`` after the command."""

    seq: int
    duplicate: bool
    state: TableState | None
    events: tuple[Appended, ...] = ()
    """The committed events of this command, for the local fan-out."""


_SESSION_LIVE = (
    "EXISTS (SELECT 1 FROM auth_sessions s JOIN members m ON m.id = s.member_id"
    " WHERE s.id = {session} AND s.member_id = {member} AND s.revoked_at IS NULL"
    " AND s.expires_at > {at} AND m.active)"
)
"""A login session that may still act: not revoked, not expired, its member active."""


def session_live(
    session_id: int | None, member_id: int, now: datetime
) -> ColumnElement[bool] | TextClause:
    """The ordinary path's check of the socket's login session (None: an internal caller,
    never refused), evaluated beside the table's lock (``store.lock_and_check``)."""
    if session_id is None:
        return true()
    return text(
        _SESSION_LIVE.format(session=":live_session", member=":live_member", at=":live_at")
    ).bindparams(live_session=session_id, live_member=member_id, live_at=now)


def gates_deals(table: Table) -> bool:
    """Does a club session gate and count this table's deals (R-S2)? Practice tables and
    tables outside a session are never gated."""
    return not table.practice and table.club_session_id is not None


FAST_PATH_GUARD = WriteGuard(
    table=(
        "tables.deadline_at IS NULL"
        " AND (NOT mv.ends_deal OR tables.practice OR tables.club_session_id IS NULL)"
    ),
    move=(
        "(mv.session_id IS NULL OR "
        + _SESSION_LIVE.format(session="mv.session_id", member="mv.member_id", at="mv.at")
        + ") AND (NOT mv.ends_deal OR NOT EXISTS (SELECT 1 FROM seat_changes sc"
        " WHERE sc.table_id = mv.table_id AND sc.status = 'agreed'))"
    ),
)
"""What the fast path's statement re-checks under the row lock: the table has no move
deadline, and a deal end is written only where no club session gates the deals (the SQL of
:func:`gates_deals`); the login session is live (:func:`session_live`'s SQL), and a deal end
has no agreed seat change waiting for it."""

FAST_WRITER = MovesWriter(FAST_PATH_GUARD)
"""The writer of moves decided in advance: the group commit's direct writer, and the one-move
write of a command executed without it."""


class Next(enum.Enum):
    """What follows the state a table is in after an action (:func:`what_follows`)."""

    STOPPED = "stopped"
    """The table is not playing (waiting for its next deal, finished): nothing follows."""
    PLAY_ON = "play_on"
    """A deal is being played: nothing follows yet."""
    NEW_DEAL = "new_deal"
    """The deal is scored and the pulka goes on: the next deal starts (unless R-S2 refuses)."""
    PULKA_ENDS = "pulka_ends"
    """The deal is scored and the pulka reached its target: it ends."""


def what_follows(state: TableState) -> Next:
    """What follows ``state`` once any ``deal_ended`` it calls for (:func:`game.deal_ended`)
    has been folded."""
    if state.status != "playing":
        return Next.STOPPED
    if state.deal is not None and not state.scored:
        return Next.PLAY_ON
    return Next.PULKA_ENDS if state.pulka.is_complete else Next.NEW_DEAL


def remember_terms(cache: StateCache, table: Table) -> None:
    """Keep the table's move timer and deal gate in the process's cache (fixed when the table
    is made): the fast path needs both before it may decide a move."""
    cache.put_settings(table.id, table.move_timer_seconds, gated=gates_deals(table))


def holds_seat(state: TableState, seat: int, member_id: int) -> bool:
    """Does ``member_id`` hold ``seat`` in this state (the log's seating, not the socket's)?"""
    return state.member_ids[seat : seat + 1] == (member_id,)


@dataclasses.dataclass(frozen=True, slots=True)
class FastMove:
    """A move decided in advance: what to write, and what to acknowledge once it is written."""

    move: Move
    result: CommandResult


def decide_in_advance(
    cache: StateCache,
    *,
    table_id: int,
    member_id: int,
    seat: int,
    command: Mapping[str, Any],
    cid: str,
    kind: str,
    client_seq: int,
    now: datetime,
    session_id: int | None,
) -> FastMove | None:
    """The fast path of most moves: decided before the table is locked, written in one
    statement by :data:`FAST_WRITER`.

    When this process holds the table's state at the client's ``seq`` (its last command or
    fan-out left it in the cache) and the table's terms (:func:`remember_terms`), the move,
    checked by the engine on that state, has effects known before the table is locked: its
    ``action`` event, the version, the command id — and, when it ends the deal and the next
    deal follows (:func:`what_follows`) at a table whose deals are not gated, the
    ``deal_ended`` and the next ``deal_started`` (a fresh shuffle) with the pulka row. None:
    take the ordinary path (which explains any refusal under the lock)."""
    if kind not in ACTION_COMMANDS or kind == "claim":
        return None
    state = cache.get(table_id, client_seq)
    terms = cache.settings(table_id)
    if (
        state is None
        or terms is None
        or terms.move_timer
        or state.status != "playing"
        or not holds_seat(state, seat, member_id)
    ):
        return None
    body = {k: v for k, v in command.items() if k not in ("id", "seq")}
    seq = client_seq + 1
    try:
        event_kind, payload, after = game.action_played(state, seq, seat, body)
    except CommandRejected:
        return None
    if (
        after.deal is None
        or after.scored
        or after.pulka is not state.pulka
        or after.status != state.status
    ):
        return None
    events = [Appended(seq, event_kind, payload, after)]
    deals = None
    ended = game.deal_ended(after)
    if ended is not None:
        scored = game.fold(after, table_id, seq + 1, *ended)
        if terms.gated or what_follows(scored) is not Next.NEW_DEAL:
            return None  # R-S2's gate and count, or the pulka's end: under the lock
        started = game.deal_started(scored)
        events += [
            Appended(seq + 1, *ended, scored),
            Appended(seq + 2, *started, game.fold(scored, table_id, seq + 2, *started)),
        ]
        deals = scored.pulka.deal_index
    move = Move(
        table_id,
        client_seq,
        member_id,
        cid,
        session_id,
        now,
        tuple((e.kind, dumps(e.payload)) for e in events),
        cache.owner,
        deals,
    )
    return FastMove(
        move,
        CommandResult(
            seq=events[-1].seq, duplicate=False, state=events[-1].state, events=tuple(events)
        ),
    )
