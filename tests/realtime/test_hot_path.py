"""The hot path of a live table: how many database round trips one command costs.

Round trips are counted on the wire: libpq's protocol trace of every pooled connection logs each
message the client sends; every simple ``Query`` and every extended-protocol ``Sync`` is one
round trip (the client waits for the server's answer before it goes on).
"""

from __future__ import annotations

import asyncio
import gc
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table
from app.clock import FrozenClock
from app.db.engine import session_scope
from app.db.models.table import Table, TableCommand, TableEvent
from app.realtime import engine as rules
from app.realtime.connection import Connection
from app.realtime.cross_process import libpq_url
from app.realtime.game import CommandRejected
from app.realtime.gc_tuning import GC_THRESHOLDS
from app.realtime.hub import Hub
from app.realtime.store import NOTIFY_CHANNEL, Note, StateCache, parse_note, rebuild
from app.services.table_commands import execute
from tests.support.sockets import Recorder
from tests.support.wire import Wire

NOW = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
Sessions = async_sessionmaker[AsyncSession]


async def _table(sessions: Sessions, timer: int | None = None) -> tuple[int, list[int]]:
    async with session_scope(sessions) as db:
        table_id, seats = await make_bot_table(
            db, f"hp-{uuid.uuid4().hex[:8]}", 3, NOW, move_timer_seconds=timer
        )
    return table_id, [s.member_id for s in seats]


async def _next_move(sessions: Sessions, table_id: int) -> tuple[int, dict[str, Any]]:
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    seat = rules.to_move(state.deal)
    assert seat is not None
    return seat, rules.legal_json(state.deal, seat)[0]


async def test_a_move_costs_at_most_five_round_trips(traced: tuple[Sessions, Wire]) -> None:
    """Checkout ping, BEGIN, lock + dedupe + session check, one write (events, table row,
    command id, NOTIFY), COMMIT — the table's state comes from the process cache."""
    sessions, wire = traced
    table_id, members = await _table(sessions)
    cache = StateCache()
    for n in range(3):  # warm up: the cache holds the state, the statements are prepared
        seat, move = await _next_move(sessions, table_id)
        wire.start()
        result = await execute(
            sessions,
            cache,
            table_id=table_id,
            member_id=members[seat],
            seat=seat,
            name="p",
            command={**move, "id": f"m{n}"},
            now=NOW,
        )
        assert not result.duplicate and result.seq == 3 + n
    trips = wire.round_trips()
    assert len(trips) <= 5, wire.path.read_text(errors="replace")[wire.mark :][:6000]
    async with sessions() as db:
        assert (
            await db.scalar(
                select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
            )
            == 5
        )
        stored = await db.get(TableCommand, (table_id, members[seat], "m2"))
        assert stored is not None and stored.seq == 5 and stored.response == {"seq": 5}


async def test_a_timed_move_stores_its_deadline_in_the_same_round_trips(
    traced: tuple[Sessions, Wire],
) -> None:
    """With a move timer the deadline rides in the event's payload (issue 11: events and
    snapshots carry ``deadline_at``) — still one write, at most five round trips."""
    sessions, wire = traced
    table_id, members = await _table(sessions, timer=30)
    cache = StateCache()
    for n in range(3):
        seat, move = await _next_move(sessions, table_id)
        wire.start()
        result = await execute(
            sessions,
            cache,
            table_id=table_id,
            member_id=members[seat],
            seat=seat,
            name="p",
            command={**move, "id": f"t{n}"},
            now=NOW,
        )
    trips = wire.round_trips()
    assert len(trips) <= 5, wire.path.read_text(errors="replace")[wire.mark :][:6000]
    deadline = NOW + timedelta(seconds=30)
    assert result.state is not None and result.state.deadline_at == deadline.isoformat()
    async with sessions() as db:
        last = await db.get(TableEvent, (table_id, result.seq))
        table = await db.get(Table, table_id)
        rebuilt = await rebuild(db, table_id)
    assert last is not None and last.payload["deadline_at"] == deadline.isoformat()
    assert table is not None and table.deadline_at == deadline
    assert rebuilt is not None and rebuilt.deadline_at == deadline.isoformat()


async def test_twins_racing_for_the_lock_apply_once(sessions: Sessions) -> None:
    """The lock statement's lookup uses the snapshot from before its wait: a twin that
    committed meanwhile is caught by the command row's key and answered as a duplicate, with
    the same seq — never applied twice, never refused (20 copies at once, stale seq or not)."""
    table_id, members = await _table(sessions)
    seat, move = await _next_move(sessions, table_id)

    async def send(with_seq: bool) -> tuple[str, int]:
        command = {**move, "id": "twin", **({"seq": 2} if with_seq else {})}
        try:
            result = await execute(
                sessions,
                None,
                table_id=table_id,
                member_id=members[seat],
                seat=seat,
                name="p",
                command=command,
                now=NOW,
            )
        except CommandRejected as exc:
            return exc.code, -1
        return ("duplicate" if result.duplicate else "applied"), result.seq

    outcomes = await asyncio.gather(*(send(i % 2 == 0) for i in range(20)))
    assert sorted(outcomes).count(("applied", 3)) == 1, outcomes
    assert outcomes.count(("duplicate", 3)) == 19, outcomes
    async with sessions() as db:
        assert (
            await db.scalar(
                select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
            )
            == 3
        )


async def test_a_move_decided_in_advance_costs_four_round_trips(
    traced: tuple[Sessions, Wire],
) -> None:
    """With the state at the client's ``seq`` in the cache, a move that leaves the deal going
    is one statement (lock if still at that seq + event + version + command id + NOTIFY):
    checkout ping, BEGIN, that statement, COMMIT — and it is stored as the long path stores
    it."""
    sessions, wire = traced
    table_id, members = await _table(sessions)
    cache = StateCache()
    for n in range(4):
        seat, move = await _next_move(sessions, table_id)
        wire.start()
        result = await execute(
            sessions,
            cache,
            table_id=table_id,
            member_id=members[seat],
            seat=seat,
            name="p",
            command={**move, "id": f"f{n}", "seq": 2 + n},
            now=NOW,
        )
        assert not result.duplicate and result.seq == 3 + n
        assert result.events and result.events[0].seq == 3 + n
    trips = wire.round_trips()
    assert len(trips) <= 4, wire.path.read_text(errors="replace")[wire.mark :][:6000]
    async with sessions() as db:
        replayed = await rebuild(db, table_id)
        version = await db.scalar(select(Table.version).where(Table.id == table_id))
        stored = await db.get(TableCommand, (table_id, members[seat], "f3"))
    assert version == 6 and replayed is not None and replayed.seq == 6
    assert replayed.deal == result.state.deal  # type: ignore[union-attr]
    assert stored is not None and stored.seq == 6 and stored.response == {"seq": 6}


async def test_a_move_decided_in_advance_falls_back_when_the_table_moved(
    sessions: Sessions,
) -> None:
    """The cache says seq 3, but another process moved the table on to 4: the one-statement
    write finds the version changed, writes nothing, and the ordinary path refuses the
    command with ``stale_seq``; its twin id, sent again, is answered as a duplicate."""
    table_id, members = await _table(sessions)
    ours, theirs = StateCache(), StateCache()
    seat, move = await _next_move(sessions, table_id)
    await execute(
        sessions,
        ours,
        table_id=table_id,
        member_id=members[seat],
        seat=seat,
        name="p",
        command={**move, "id": "a", "seq": 2},
        now=NOW,
    )
    seat, move = await _next_move(sessions, table_id)
    await execute(
        sessions,
        theirs,
        table_id=table_id,
        member_id=members[seat],
        seat=seat,
        name="p",
        command={**move, "id": "b", "seq": 3},
        now=NOW,
    )
    with pytest.raises(CommandRejected) as refused:
        await execute(
            sessions,
            ours,
            table_id=table_id,
            member_id=members[seat],
            seat=seat,
            name="p",
            command={**move, "id": "c", "seq": 3},
            now=NOW,
        )
    assert refused.value.code == "stale_seq"
    again = await execute(
        sessions,
        ours,
        table_id=table_id,
        member_id=members[seat],
        seat=seat,
        name="p",
        command={**move, "id": "b", "seq": 3},
        now=NOW,
    )
    assert again.duplicate and again.seq == 4
    async with sessions() as db:
        assert (
            await db.scalar(
                select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
            )
            == 4
        )


async def test_twins_of_a_move_decided_in_advance_apply_once(sessions: Sessions) -> None:
    """Twenty copies of a move, each able to take the one-statement path (warm cache): the
    first writes, the others find the version moved and are answered as duplicates."""
    table_id, members = await _table(sessions)
    cache = StateCache()
    seat, move = await _next_move(sessions, table_id)
    await execute(
        sessions,
        cache,
        table_id=table_id,
        member_id=members[seat],
        seat=seat,
        name="p",
        command={**move, "id": "warm", "seq": 2},
        now=NOW,
    )
    seat, move = await _next_move(sessions, table_id)
    results = await asyncio.gather(
        *(
            execute(
                sessions,
                cache,
                table_id=table_id,
                member_id=members[seat],
                seat=seat,
                name="p",
                command={**move, "id": "twin", "seq": 3},
                now=NOW,
            )
            for _ in range(20)
        )
    )
    assert [r.seq for r in results] == [4] * 20
    assert sum(not r.duplicate for r in results) == 1
    async with sessions() as db:
        assert (
            await db.scalar(
                select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
            )
            == 4
        )


async def _notes_of(live_db: str, action: Any) -> list[str]:
    """The ``prefclub_tables`` payloads PostgreSQL delivers while ``action`` runs."""
    async with await psycopg.AsyncConnection.connect(
        libpq_url(live_db), autocommit=True
    ) as listener:
        await listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        await action()
        return [n.payload async for n in listener.notifies(timeout=2.0, stop_after=1)]


async def _settled(hub: Hub) -> None:
    for _ in range(100):
        if not hub._pending:
            return
        await asyncio.sleep(0.02)


async def test_notes_carry_the_events_and_a_hub_ignores_its_own(
    live_db: str, traced: tuple[Sessions, Wire]
) -> None:
    """Another process's events are folded from the NOTIFY payload (no read of the log); the
    note of a command this hub applied itself is ignored (its caller publishes the events)."""
    sessions, wire = traced
    table_id, members = await _table(sessions)
    hub = Hub(sessions, live_db, FrozenClock(NOW))
    socket = Recorder()
    conn = Connection(socket, table_id=table_id, member_id=members[0], seat=0, name="p")
    try:
        await hub.join(conn, None)
        await _settled(hub)
        other = StateCache(owner="another-process")
        seat, move = await _next_move(sessions, table_id)

        async def remote() -> None:
            await execute(
                sessions,
                other,
                table_id=table_id,
                member_id=members[seat],
                seat=seat,
                name="p",
                command={**move, "id": "r1"},
                now=NOW,
            )

        [note] = await _notes_of(live_db, remote)
        assert note.startswith(f"{table_id}:3:another-process|")
        wire.start()
        hub.wakeups.dispatch(NOTIFY_CHANNEL, note)
        await _settled(hub)
        assert hub.state_of(table_id) is not None and hub.state_of(table_id).seq == 3  # type: ignore[union-attr]
        assert wire.round_trips() == []
        for _ in range(100):
            if any(m.get("seq") == 3 and m.get("type") == "action" for m in socket.sent):
                break
            await asyncio.sleep(0.02)
        event = next(m for m in socket.sent if m.get("type") == "action")
        assert event["data"]["seat"] == seat and '"salt"' not in json.dumps(event)

        seat, move = await _next_move(sessions, table_id)

        async def local() -> None:
            await execute(
                sessions,
                hub.cache,
                table_id=table_id,
                member_id=members[seat],
                seat=seat,
                name="p",
                command={**move, "id": "l1"},
                now=NOW,
            )

        [note] = await _notes_of(live_db, local)
        assert note.startswith(f"{table_id}:4:{hub.process_id}|")
        wire.start()
        hub.wakeups.dispatch(NOTIFY_CHANNEL, note)
        assert not hub._pending
        await _settled(hub)
        assert wire.round_trips() == []
        assert hub.state_of(table_id).seq == 3  # type: ignore[union-attr]
    finally:
        await conn.aclose()
        await hub.stop()


def test_a_note_parses_with_and_without_its_events() -> None:
    assert parse_note("7:12") == Note(7, 12)
    assert parse_note("7:12:") == Note(7, 12)
    assert parse_note('7:12:p-1|[{"seq":12,"kind":"chat","payload":{"text":"hi"}}]') == Note(
        7, 12, "p-1", ({"seq": 12, "kind": "chat", "payload": {"text": "hi"}},)
    )
    with pytest.raises(ValueError):
        parse_note("7:x")


async def test_a_started_hub_freezes_the_start_up_heap(live_db: str, sessions: Sessions) -> None:
    """Full collections no longer walk the start-up objects (they stalled the loop)."""
    hub = Hub(sessions, live_db, FrozenClock(NOW))
    await hub.start()
    try:
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold() == GC_THRESHOLDS
    finally:
        await hub.stop()
