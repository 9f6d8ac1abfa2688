"""The event store: lock a table, read its events, rebuild its state, append events, notify.

Repositories never commit: every function here works inside the caller's transaction. Writers
serialise on the table row (``SELECT ... FOR UPDATE``); ``tables.version`` is the last ``seq``.
The ``NOTIFY`` issued by :func:`notify` is delivered by PostgreSQL only if and when the
transaction commits, so other processes never hear of an event that does not exist.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson
import psycopg
from sqlalchemy import ColumnElement, ScalarSelect, TextClause, func, inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm.attributes import flag_modified

from app.db.group_commit import count_write
from app.db.models.table import Table, TableCommand, TableEvent
from app.realtime.connection import dumps
from app.realtime.game import CHECKPOINT_KINDS, TableState, fold

APPENDED = "prefclub_appended_events"
APPENDED_ROWS = "prefclub_appended_rows"
NOTIFY_CHANNEL = "prefclub_tables"
"""One channel for every table; the payload is ``"<table_id>:<seq>"``, or from a live command
``"<table_id>:<seq>:<origin>"`` followed by ``"|"`` and the command's events as JSON when they
fit (see :func:`parse_note`)."""
NOTE_LIMIT = 7900
"""PostgreSQL refuses a NOTIFY payload of 8000 bytes or more."""


@dataclasses.dataclass(frozen=True, slots=True)
class Note:
    """A table notification: ``table_id`` has events up to ``seq``; ``origin`` is the hub that
    committed them (None: unknown), ``events`` their rows when they travelled along."""

    table_id: int
    seq: int
    origin: str | None = None
    events: tuple[dict[str, Any], ...] | None = None


def note_origin(payload: str) -> str | None:
    """The hub that committed a :data:`NOTIFY_CHANNEL` note's events (None: unknown), read from
    its head alone: a hub skips its own notes without parsing the events they carry."""
    parts = payload.partition("|")[0].split(":", 2)
    return parts[2] or None if len(parts) > 2 else None


def parse_note(payload: str) -> Note:
    """Parse a :data:`NOTIFY_CHANNEL` payload (ValueError, KeyError or TypeError if bad)."""
    head, bar, body = payload.partition("|")
    parts = head.split(":")
    origin = parts[2] if len(parts) > 2 and parts[2] else None
    events = None
    if bar:
        events = tuple(
            {"seq": int(e["seq"]), "kind": str(e["kind"]), "payload": dict(e["payload"])}
            for e in json.loads(body)
        )
    return Note(int(parts[0]), int(parts[1]), origin, events)


@dataclasses.dataclass(frozen=True, slots=True)
class Appended:
    """An event written by this process, with the table state after it."""

    seq: int
    kind: str
    payload: dict[str, Any]
    state: TableState


@dataclasses.dataclass(frozen=True, slots=True)
class TableSettings:
    """A table's settings that decide whether a move may take the hot path, fixed when the
    table is made (``app.services.move_guard``)."""

    move_timer: int | None
    """The move timer in seconds, None without one (a timed table takes the ordinary path)."""
    gated: bool
    """A club session gates and counts its deals (R-S2: a deal end takes the ordinary path)."""


class StateCache:
    """Recently built table states of this process (never authoritative: checked by ``seq``)."""

    def __init__(self, limit: int = 1000, owner: str | None = None) -> None:
        self._states: dict[int, TableState] = {}
        self._settings: dict[int, TableSettings] = {}
        self._limit = limit
        self.owner = owner
        """The hub this cache belongs to: the origin of the NOTIFYs of its commands."""

    def get(self, table_id: int, seq: int) -> TableState | None:
        state = self._states.get(table_id)
        return state if state is not None and state.seq == seq else None

    def latest(self, table_id: int) -> TableState | None:
        """The newest state of the table this process holds, whatever its ``seq`` (for a
        refusal decided in advance, which changes nothing)."""
        return self._states.get(table_id)

    def put(self, state: TableState) -> None:
        current = self._states.get(state.table_id)
        if current is not None and current.seq > state.seq:
            return
        if len(self._states) >= self._limit and state.table_id not in self._states:
            self._states.pop(next(iter(self._states)))
        self._states[state.table_id] = state

    def forget(self, table_id: int) -> None:
        self._states.pop(table_id, None)
        self._settings.pop(table_id, None)

    def put_settings(self, table_id: int, timer: int | None, gated: bool) -> None:
        """Remember a table's move timer and whether a club session gates its deals (settings
        fixed when the table is made), read by the hot path of a command (a move decided in
        advance: ``app.services.move_guard``)."""
        if len(self._settings) >= self._limit and table_id not in self._settings:
            self._settings.pop(next(iter(self._settings)))
        self._settings[table_id] = TableSettings(timer, gated)

    def settings(self, table_id: int) -> TableSettings | None:
        """The table's :class:`TableSettings`, or None if this process has not seen them."""
        return self._settings.get(table_id)


async def lock_table(db: AsyncSession, table_id: int) -> Table | None:
    """The table row, locked until the transaction ends (serialises every writer)."""
    return await db.scalar(
        select(Table)
        .where(Table.id == table_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    """What the lookups beside a command's lock found: the locked table row (None: no such
    table; unlocked from :func:`recheck_command`), whether the caller's ``live`` condition held
    (the login session, ``app.services.move_guard.session_live``) and the seq the command id
    already produced (None: a new command)."""

    table: Table | None
    live: bool
    done: int | None


def _done(table_id: int, member_id: int, command_id: str) -> ScalarSelect[int]:
    return (
        select(TableCommand.seq)
        .where(
            TableCommand.table_id == table_id,
            TableCommand.member_id == member_id,
            TableCommand.command_id == command_id,
        )
        .scalar_subquery()
    )


async def recheck_command(
    db: AsyncSession,
    table_id: int,
    member_id: int,
    command_id: str,
    live: ColumnElement[bool] | TextClause,
) -> Checked:
    """Under the table's row lock: does ``live`` hold, and the seq the command id already
    produced — one indexed round trip (``table`` is None: nothing is locked here).

    This runs as a statement of its own *after* :func:`lock_table` returned: in READ COMMITTED
    each statement sees every transaction committed before it started, so a twin of this
    command that held the lock a moment ago is seen here (a lookup inside the locking statement
    would use the snapshot from before the wait and miss it). A command checked before a logout
    committed is ordered before it (the logout then closes the socket); every command after it
    is refused. Nothing is locked or written here. ``live`` is the caller's condition (a
    ``true()`` for an internal caller).
    """
    row = (await db.execute(select(_done(table_id, member_id, command_id), live))).one()
    return Checked(None, bool(row[1]), row[0])


async def lock_and_check(
    db: AsyncSession,
    table_id: int,
    member_id: int,
    command_id: str,
    live: ColumnElement[bool] | TextClause,
) -> Checked:
    """The hot path's first round trip: lock the table row and, in the same statement, look up
    the command id and evaluate the caller's ``live`` condition (the login session).

    The lookups use the statement's snapshot, taken *before* any wait for the lock, so a twin
    of this command that held the lock a moment ago may be missed here. That is safe: the
    command row's primary key refuses the second copy when it is written (the caller then
    answers it as a duplicate, see :func:`recheck_command`), and a refusal is only sent after
    :func:`recheck_command` looked again with a fresh snapshot. A session checked at the start
    of the statement is ordered before a logout that commits during the wait (the logout then
    closes the socket).
    """
    row = (
        await db.execute(
            select(Table, _done(table_id, member_id, command_id), live)
            .where(Table.id == table_id)
            .with_for_update(of=Table)
            .execution_options(populate_existing=True)
        )
    ).first()
    if row is None:
        return Checked(None, True, None)
    return Checked(row[0], bool(row[2]), row[1])


async def events_after(
    db: AsyncSession, table_id: int, after: int, upto: int | None = None
) -> Sequence[TableEvent]:
    """Events with ``after < seq <= upto`` in order."""
    query = select(TableEvent).where(TableEvent.table_id == table_id, TableEvent.seq > after)
    if upto is not None:
        query = query.where(TableEvent.seq <= upto)
    return (await db.scalars(query.order_by(TableEvent.seq))).all()


async def current_version(db: AsyncSession, table_id: int) -> int:
    value = await db.scalar(select(Table.version).where(Table.id == table_id))
    return int(value or 0)


async def rebuild(db: AsyncSession, table_id: int, upto: int | None = None) -> TableState | None:
    """Fold the table's events from the last checkpoint at or before ``upto`` (None: latest)."""
    query = select(func.max(TableEvent.seq)).where(
        TableEvent.table_id == table_id, TableEvent.kind.in_(CHECKPOINT_KINDS)
    )
    if upto is not None:
        query = query.where(TableEvent.seq <= upto)
    start = await db.scalar(query)
    if start is None:
        return None
    state: TableState | None = None
    for event in await events_after(db, table_id, start - 1, upto):
        state = fold(state, table_id, event.seq, event.kind, event.payload)
    return state


async def load_state(db: AsyncSession, table: Table, cache: StateCache | None) -> TableState:
    """The state at ``table.version``: from the cache when it is current, else rebuilt."""
    if cache is not None:
        cached = cache.get(table.id, table.version)
        if cached is not None:
            return cached
    state = await rebuild(db, table.id, table.version)
    if state is None:
        raise LookupError(f"table {table.id} has no events")
    return state


def append(
    db: AsyncSession, table: Table, state: TableState | None, kind: str, payload: Mapping[str, Any]
) -> TableState:
    """Add the next event to the unit of work and return the state after it."""
    seq = table.version + 1
    new_state = fold(state, table.id, seq, kind, payload)
    stored = dict(payload)
    row = TableEvent(table_id=table.id, seq=seq, kind=kind, payload=stored)
    db.add(row)
    table.version = seq
    db.info.setdefault(APPENDED, []).append(Appended(seq, kind, stored, new_state))
    db.info.setdefault(APPENDED_ROWS, []).append(row)
    return new_state


def stamp_deadline(db: AsyncSession, state: TableState, deadline_at: str | None) -> TableState:
    """Write the move deadline set after ``state`` into the event that produced it, when this
    unit of work appended that event (its payload's ``deadline_at``; folding it gives the
    state's ``deadline_at``); the state with the deadline. Without such an event (a timer
    changed between moves) the log and ``state`` stay as they are."""
    items: list[Appended] = db.info.get(APPENDED, [])
    if not items or items[-1].seq != state.seq:
        return state
    last = items[-1]
    last.payload["deadline_at"] = deadline_at
    for row in db.info.get(APPENDED_ROWS, ()):
        if row.seq == last.seq and inspect(row).persistent:
            flag_modified(row, "payload")  # already flushed: written again at commit
    stamped = dataclasses.replace(state, deadline_at=deadline_at)
    items[-1] = Appended(last.seq, last.kind, last.payload, stamped)
    return stamped


def appended(db: AsyncSession) -> list[Appended]:
    """The events this unit of work appended (with the state after each), in order."""
    return list(db.info.get(APPENDED, []))


async def notify(db: AsyncSession, table_id: int, seq: int) -> None:
    """Tell every process (after commit) that ``table_id`` has events up to ``seq``."""
    await db.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": f"{table_id}:{seq}"},
    )


_WRITE_COMMAND = text("""
WITH ev AS (
    INSERT INTO table_events (table_id, seq, kind, payload)
    SELECT :table_id, e.seq, e.kind, e.payload
    FROM jsonb_to_recordset(CAST(:events AS jsonb)) AS e(seq integer, kind text, payload jsonb)
), tb AS (
    UPDATE tables SET version = :version, status = :status, deadline_at = :deadline_at,
        deadline_seq = :deadline_seq, finished_at = :finished_at
    WHERE id = :table_id
), cmd AS (
    INSERT INTO table_commands (table_id, member_id, command_id, seq, response)
    VALUES (:table_id, :member_id, :command_id, :version, CAST(:response AS jsonb))
)
SELECT pg_notify(:channel, :note)
""")


async def write_command(
    db: AsyncSession, table: Table, member_id: int, command_id: str, origin: str | None = None
) -> None:
    """The hot path's one write: the events this unit of work appended (those not flushed yet),
    the table row (``version``, status, move deadline), the command id and the ``NOTIFY`` —
    one statement, one round trip, instead of one per row.

    The table row must be locked (:func:`lock_and_check`). The rows written here leave the
    unit of work, so the commit flushes nothing twice; everything else in it (e.g. a pulka row
    update) is flushed as usual. A twin of the command that committed first makes the command
    row's primary key refuse this one (``IntegrityError``: nothing is written).

    The ``NOTIFY`` names ``origin`` (the hub that fans these events out itself, so it ignores
    its own note) and carries the events when they fit: other processes then fold them without
    reading them back.
    """
    rows = [r for r in db.info.get(APPENDED_ROWS, ()) if r in db.new]
    for row in rows:
        db.expunge(row)
    events = dumps([{"seq": r.seq, "kind": r.kind, "payload": r.payload} for r in rows])
    note = f"{table.id}:{table.version}:{origin or ''}"
    whole = rows and len(appended(db)) == len(rows)  # no event of this unit was flushed before
    if whole and len(note) + len(events.encode()) + 1 < NOTE_LIMIT:
        note = f"{note}|{events}"
    with db.no_autoflush:  # the table row's changes are written by this very statement
        await db.execute(
            _WRITE_COMMAND,
            {
                "table_id": table.id,
                "version": table.version,
                "status": table.status,
                "deadline_at": table.deadline_at,
                "deadline_seq": table.deadline_seq,
                "finished_at": table.finished_at,
                "member_id": member_id,
                "command_id": command_id,
                "events": events,
                "response": f'{{"seq":{table.version}}}',
                "channel": NOTIFY_CHANNEL,
                "note": note,
            },
        )
    db.expunge(table)


@dataclasses.dataclass(frozen=True, slots=True)
class WriteGuard:
    """The conditions under which :class:`MovesWriter`'s statement writes a move decided in
    advance, as SQL — the use cases' to state (``app.services.move_guard``), this module's only
    to place. Each may name the move's row ``mv`` (the columns of :meth:`Move.row`, and
    ``ends_deal``); ``table`` may also name the ``tables`` row being locked."""

    table: str
    """Must hold for the table row to be locked (besides its being at the move's ``base``)."""
    move: str
    """Must hold for the move to be written (besides its command id being new)."""


def moves_statement(guard: WriteGuard) -> str:
    """The one statement that writes moves decided in advance under ``guard``.

    For each move: lock its table row if it is still at ``base`` and ``guard.table`` holds,
    and — if the command id is new and ``guard.move`` holds — append the events, move the
    table's version, store the command id, rewrite the pulka row after a deal's end (from the
    ``deal_ended`` payload's pulka and sheet, as the ordinary path's derived rows have it) and
    ``NOTIFY``. Sent straight to the driver (psycopg, ``%(name)s`` parameters): the moves travel
    as one JSON array, so one statement text serves any number of them (prepared once).

    Each table row is locked by its own lookup (``LATERAL ... LIMIT 1``: never a scan of every
    table), in the order of the array — ascending table ids, as the caller sorts them — so two
    writers take their locks in the same order. The writer's connection plans it with
    :data:`WRITER_SETUP`."""
    return f"""
WITH mv AS (
    SELECT *, pulka_at IS NOT NULL AS ends_deal
    FROM jsonb_to_recordset(CAST(%(moves)s AS jsonb)) AS mv(
        table_id integer, base integer, version integer, member_id integer, command_id text,
        session_id integer, at timestamptz, events jsonb, head text, pulka_at integer,
        deals integer)
), t AS (
    SELECT locked.id FROM mv CROSS JOIN LATERAL (
        SELECT tables.id FROM tables
        WHERE tables.id = mv.table_id AND tables.version = mv.base AND ({guard.table})
        LIMIT 1 FOR UPDATE) AS locked
), ok AS (
    SELECT mv.* FROM mv JOIN t ON t.id = mv.table_id
    WHERE NOT EXISTS (SELECT 1 FROM table_commands c WHERE c.table_id = mv.table_id
                      AND c.member_id = mv.member_id AND c.command_id = mv.command_id)
      AND ({guard.move})
), ev AS (
    INSERT INTO table_events (table_id, seq, kind, payload)
    SELECT ok.table_id, e.seq, e.kind, e.payload
    FROM ok, jsonb_to_recordset(ok.events) AS e(seq integer, kind text, payload jsonb)
), tb AS (
    UPDATE tables SET version = ok.version FROM ok WHERE tables.id = ok.table_id
), pk AS (
    UPDATE pulkas SET state = ok.events -> ok.pulka_at -> 'payload' -> 'pulka',
        sheet = ok.events -> ok.pulka_at -> 'payload' -> 'sheet', deals = ok.deals
    FROM ok WHERE pulkas.table_id = ok.table_id AND ok.ends_deal
), cmd AS (
    INSERT INTO table_commands (table_id, member_id, command_id, seq, response)
    SELECT table_id, member_id, command_id, version, jsonb_build_object('seq', version)
    FROM ok
)
SELECT ok.table_id, pg_notify(%(channel)s, CASE
    WHEN octet_length(ok.head) + octet_length(ok.events::text) + 1 < %(limit)s
    THEN ok.head || '|' || ok.events::text ELSE ok.head END) FROM ok
"""


WRITER_SETUP = "SET enable_seqscan = off"
"""Set on the connection that runs a :class:`MovesWriter`'s statement: every lookup of the
statement has an index (the primary keys, ``table_commands``'s key, the pulka's table id, and
those of the guard's conditions), and a plan made while a table was small (a fresh database,
before its first ``ANALYZE``) must not scan it once it has grown — a prepared statement keeps
its plan."""


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """A command decided in advance from the cached state at ``base``: its events ``base + 1``
    ... (each ``(kind, payload as JSON text)``), the command id and the login session the
    guard checks (``app.services.move_guard``).

    Most moves are one ``action`` event. A move that ends a deal also carries its
    ``deal_ended`` and the next ``deal_started``, and ``deals`` (the pulka's deal count after
    it): the statement then rewrites the pulka row from the ``deal_ended`` payload's pulka and
    sheet, and its row's ``ends_deal`` is true for the guard."""

    table_id: int
    base: int
    member_id: int
    command_id: str
    session_id: int | None
    at: datetime
    events: tuple[tuple[str, str], ...]
    origin: str | None
    deals: int | None = None

    @property
    def version(self) -> int:
        """The table's version (the last event's ``seq``) once the move is written."""
        return self.base + len(self.events)

    def event_rows(self) -> list[dict[str, Any]]:
        """The events as rows (``seq``, ``kind``, ``payload``): the statement inserts them, and
        a note carries them as they are."""
        return [
            {"seq": self.base + n, "kind": kind, "payload": orjson.Fragment(payload)}
            for n, (kind, payload) in enumerate(self.events, 1)
        ]

    def row(self) -> dict[str, Any]:
        """The move as a row of :data:`_WRITE_MOVES`, with the head of its ``NOTIFY`` payload
        (the statement appends the events when they fit: :func:`parse_note`)."""
        pulka_at = None
        if self.deals is not None:
            pulka_at = [kind for kind, _ in self.events].index("deal_ended")
        return {
            "table_id": self.table_id,
            "base": self.base,
            "version": self.version,
            "member_id": self.member_id,
            "command_id": self.command_id,
            "session_id": self.session_id,
            "at": self.at.isoformat(),
            "events": self.event_rows(),
            "head": f"{self.table_id}:{self.version}:{self.origin or ''}",
            "pulka_at": pulka_at,
            "deals": self.deals,
        }


class MovesWriter:
    """Writes moves decided in advance (:class:`Move`) with the one statement of its
    :class:`WriteGuard` (:func:`moves_statement`)."""

    def __init__(self, guard: WriteGuard) -> None:
        self.guard = guard
        self.statement = moves_statement(guard)

    async def __call__(
        self, driver: psycopg.AsyncConnection[Any], moves: Sequence[Move]
    ) -> set[int]:
        """Commands of different tables, each decided in advance, written in one statement (on
        a connection in autocommit mode, one statement is one transaction and one WAL flush).
        Returns the ids of the tables written; a move not written (the table moved on, the id is
        known, the guard refused it) leaves nothing, and its caller takes the ordinary path,
        which explains a refusal.

        The rows are locked in table id order, as every batch of the group commit locks them,
        so two writers cannot deadlock. A writer that committed while this statement waited for
        a lock moved that table's version on (every event does), so the re-check of ``version =
        base`` on the newest row refuses that move; the command-id lookup and the guard's use
        the statement's snapshot, as in :func:`lock_and_check` (the command row's key still
        refuses a twin: ``psycopg.IntegrityError``, and then nothing of the statement is
        written). At most one move per table: the caller keeps twins apart. The table's status
        and move deadline stay as they are: the guard lets only moves that leave the pulka
        playing, at tables without a move deadline, come here.
        """
        cursor = await driver.execute(
            self.statement,
            {
                "moves": orjson.dumps([m.row() for m in moves]).decode(),
                "channel": NOTIFY_CHANNEL,
                "limit": NOTE_LIMIT,
            },
        )
        return {int(row[0]) for row in await cursor.fetchall()}

    async def write_one(self, db: AsyncSession, move: Move) -> bool:
        """One move in the session's transaction (a command executed without the group
        commit); True if it was written. A twin's key violation is raised as SQLAlchemy raises
        it (``IntegrityError``): the caller looks the twin up again."""
        bind = db.bind
        conn = bind if isinstance(bind, AsyncConnection) else await db.connection()
        driver = (await conn.get_raw_connection()).driver_connection
        assert isinstance(driver, psycopg.AsyncConnection)
        try:
            written = await self(driver, [move])
        except psycopg.IntegrityError as exc:
            raise IntegrityError(self.statement, None, exc) from exc
        if not written:
            return False
        count_write(conn.info)
        return True
