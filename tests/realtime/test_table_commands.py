"""Applying commands to live tables: durability, idempotence, staleness, R-W12, timers, closing."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import Seat, make_bot_table
from app.db.engine import session_scope
from app.db.models.table import Pulka, Table, TableCommand, TableEvent
from app.realtime.engine import legal_json
from app.realtime.game import CommandRejected
from app.realtime.store import StateCache, rebuild
from app.rules import ACTION_TYPES
from app.services import table_commands
from app.services.pulkas import close_pulka
from app.services.table_commands import execute, fire_deadline
from app.services.tables import TableSetupError, create_table

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
Sessions = async_sessionmaker[AsyncSession]


async def _table(sessions: Sessions, players: int = 3, **kwargs: object) -> tuple[int, list[Seat]]:
    async with session_scope(sessions) as db:
        return await make_bot_table(db, f"rt-{uuid.uuid4().hex[:8]}", players, NOW, **kwargs)  # type: ignore[arg-type]


async def _run(
    sessions: Sessions,
    table_id: int,
    seats: list[Seat],
    seat: int | None,
    command: dict[str, object],
    cache: StateCache | None = None,
    now: datetime = NOW,
) -> int:
    member = seats[seat].member_id if seat is not None else seats[0].member_id
    result = await execute(
        sessions,
        cache,
        table_id=table_id,
        member_id=member,
        seat=seat,
        name=f"seat {seat}",
        command=command,
        now=now,
    )
    return result.seq


async def _events(sessions: Sessions, table_id: int) -> list[TableEvent]:
    async with sessions() as db:
        return list(
            (
                await db.scalars(
                    select(TableEvent)
                    .where(TableEvent.table_id == table_id)
                    .order_by(TableEvent.seq)
                )
            ).all()
        )


async def test_create_table_opens_the_pulka_and_deals(sessions: Sessions) -> None:
    table_id, _seats = await _table(sessions, first_dealer=1)
    events = await _events(sessions, table_id)
    assert [e.kind for e in events] == ["pulka_started", "deal_started"]
    secret = events[1].payload
    assert len(secret["deck"]) == 32 and len(bytes.fromhex(secret["salt"])) == 16
    assert secret["dealer"] == 1
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.version == 2 and table.deadline_at is None
        pulka = await db.scalar(select(Pulka).where(Pulka.table_id == table_id))
        assert pulka is not None and pulka.status == "playing" and pulka.deals == 0


async def test_create_table_refuses_bad_settings(sessions: Sessions) -> None:
    _, seats = await _table(sessions)
    ids: list[int | None] = [s.member_id for s in seats]
    async with session_scope(sessions) as db:
        with pytest.raises(TableSetupError):
            await create_table(
                db,
                seat_member_ids=ids[:2],
                preset="club",
                practice=True,
                club_session_id=None,
                target=20,
                first_dealer=0,
            )
        with pytest.raises(TableSetupError):
            await create_table(
                db,
                seat_member_ids=[ids[0], ids[0], ids[1]],
                preset="club",
                practice=True,
                club_session_id=None,
                target=20,
                first_dealer=0,
            )
        with pytest.raises(TableSetupError):
            await create_table(
                db,
                seat_member_ids=ids,
                preset="moscow",
                practice=True,
                club_session_id=None,
                target=20,
                first_dealer=0,
            )


async def test_a_repeated_command_id_is_answered_again_never_applied_twice(
    sessions: Sessions,
) -> None:
    table_id, seats = await _table(sessions)
    cut = {"id": "same", "type": "cut", "position": 9}
    assert await _run(sessions, table_id, seats, 2, {**cut, "seq": 2}) == 3
    result = await execute(
        sessions,
        None,
        table_id=table_id,
        member_id=seats[2].member_id,
        seat=2,
        name="x",
        command={**cut, "seq": 2},
        now=NOW,
    )
    assert result.duplicate and result.seq == 3
    assert len(await _events(sessions, table_id)) == 3
    async with sessions() as db:
        stored = await db.get(TableCommand, (table_id, seats[2].member_id, "same"))
        assert stored is not None and stored.seq == 3


async def test_refused_commands_change_nothing(sessions: Sessions) -> None:
    table_id, seats = await _table(sessions)
    cases: list[tuple[int | None, dict[str, object], str]] = [
        (0, {"id": "a", "type": "cut", "position": 9}, "not_your_turn"),
        (2, {"id": "b", "type": "cut", "position": 9, "seq": 1}, "stale_seq"),
        (2, {"id": "c", "type": "cut", "position": 1}, "illegal"),
        (2, {"id": "d", "type": "cut"}, "bad_command"),
        (2, {"type": "cut", "position": 9}, "bad_command"),
        (None, {"id": "e", "type": "cut", "position": 9}, "not_seated"),
        (2, {"id": "f", "type": "fold"}, "unknown_command"),
        (2, {"id": "g", "type": "chat", "text": ""}, "chat_empty"),
        (2, {"id": "h", "type": "chat", "text": "я" * 501}, "chat_too_long"),
        (2, {"id": "i", "type": "chat", "text": 7}, "bad_command"),
    ]
    for seat, command, code in cases:
        with pytest.raises(CommandRejected) as info:
            await _run(sessions, table_id, seats, seat, command)
        assert info.value.code == code, (command, info.value.message)
    assert len(await _events(sessions, table_id)) == 2


async def test_table_talk_only_between_deals(sessions: Sessions) -> None:  # R-W12
    table_id, seats = await _table(sessions)
    cache = StateCache()
    assert (
        await _run(
            sessions, table_id, seats, 0, {"id": "h", "type": "chat", "text": "удачи"}, cache
        )
        == 3
    )
    await _run(sessions, table_id, seats, 2, {"id": "c", "type": "cut", "position": 8}, cache)
    with pytest.raises(CommandRejected) as info:
        await _run(sessions, table_id, seats, 1, {"id": "t", "type": "chat", "text": "пас"}, cache)
    assert info.value.code == "chat_closed"
    async with sessions() as db:
        rebuilt = await rebuild(db, table_id)
    assert rebuilt is not None and rebuilt == cache.get(table_id, 4)
    assert [line.text for line in rebuilt.chat] == ["удачи"]


async def test_chat_is_rate_limited_per_member(
    sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, seats = await _table(sessions)  # deal 1 is not cut: table talk is open
    for i in range(table_commands.CHAT_RATE_LINES):
        await _run(sessions, table_id, seats, 0, {"id": f"r{i}", "type": "chat", "text": "ну"})
    with pytest.raises(CommandRejected) as info:
        await _run(sessions, table_id, seats, 0, {"id": "r-over", "type": "chat", "text": "ну!"})
    assert info.value.code == "chat_rate" and "at most 5 in 10 seconds" in info.value.message
    # A repeated id is answered again (not counted); another member still talks.
    again = await execute(
        sessions,
        None,
        table_id=table_id,
        member_id=seats[0].member_id,
        seat=0,
        name="x",
        command={"id": "r0", "type": "chat", "text": "ну"},
        now=NOW,
    )
    assert again.duplicate
    await _run(sessions, table_id, seats, 1, {"id": "other", "type": "chat", "text": "тише"})
    events = await _events(sessions, table_id)
    assert [e.kind for e in events].count("chat") == table_commands.CHAT_RATE_LINES + 1
    # Once the window has passed he may write again.
    monkeypatch.setattr(table_commands, "CHAT_RATE_SECONDS", 1)
    await asyncio.sleep(1.2)
    await _run(sessions, table_id, seats, 0, {"id": "r-later", "type": "chat", "text": "вот"})


async def test_a_move_deadline_fires_once_across_competing_processes(sessions: Sessions) -> None:
    table_id, _seats = await _table(sessions, move_timer_seconds=30)
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.deadline_at == NOW + timedelta(seconds=30)
    assert not await fire_deadline(sessions, None, table_id, NOW + timedelta(seconds=5))
    later = NOW + timedelta(seconds=31)
    fired = await asyncio.gather(
        *(fire_deadline(sessions, None, table_id, later) for _ in range(4))
    )
    assert sorted(fired) == [False, False, False, True]
    events = await _events(sessions, table_id)
    assert events[-1].kind == "action" and events[-1].payload["auto"] is True
    assert events[-1].payload["action"]["type"] == "cut"
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.deadline_seq == 3
        assert table.deadline_at == later + timedelta(seconds=30)


async def test_close_pulka_settles_and_exports_once(sessions: Sessions) -> None:
    table_id, seats = await _table(sessions)
    async with session_scope(sessions) as db:
        row = await close_pulka(db, table_id, "agreement", NOW)
    assert row is not None and row.status == "finished" and row.ended == "agreement"
    assert row.record is not None and row.record["format"] == "pulka/1"
    assert row.settlement is not None and sum(row.settlement["rounded"]) == 0
    async with session_scope(sessions) as db:
        again = await close_pulka(db, table_id, "session_end", NOW)
    assert again is not None and again.ended == "agreement"
    events = await _events(sessions, table_id)
    assert [e.kind for e in events][-1] == "pulka_ended"
    assert sum(1 for e in events if e.kind == "pulka_ended") == 1
    with pytest.raises(CommandRejected) as info:
        await _run(sessions, table_id, seats, 2, {"id": "late", "type": "cut", "position": 9})
    assert info.value.code == "not_now"
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.status == "finished"
        count = await db.scalar(
            select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
        )
        assert count == 3


async def _play_quick_game(sessions: Sessions, table_id: int, seats: list[Seat]) -> None:
    """Forehand bids 6♠, the others pass, the contract is named and both defenders pass: the
    deal ends without play (R-W1), then the next deal starts."""
    for step in range(20):
        async with sessions() as db:
            state = await rebuild(db, table_id)
        assert state is not None
        if state.last_deal is not None:
            return
        deal = state.deal
        seat = deal.to_move
        options = legal_json(deal, seat)
        kinds = {o["type"] for o in options}
        if "cut" in kinds:
            choice = next(o for o in options if o["type"] == "cut")
        elif "bid" in kinds:
            calls = [o for o in options if o["type"] == "bid"]
            opening = next((o for o in calls if o["call"] == "6S"), None)
            choice = opening or next(o for o in calls if o["call"] == "pass")
        elif "defend" in kinds:
            choice = next(o for o in options if o["type"] == "defend" and o["call"] == "pass")
        else:
            choice = options[0]
        await _run(sessions, table_id, seats, seat, {"id": f"q{step}", **choice})
    raise AssertionError("the quick game did not end")


async def test_a_table_rebuilt_from_the_next_deals_checkpoint_still_shows_the_last_deal(
    sessions: Sessions,
) -> None:
    from app.realtime.table_messages import snapshot_message

    table_id, seats = await _table(sessions)
    await _play_quick_game(sessions, table_id, seats)
    async with sessions() as db:
        live = await rebuild(db, table_id)
    assert live is not None and live.deal_no == 2 and live.last_deal is not None
    # A fresh process folds only from the latest checkpoint: deal 2's ``deal_started``.
    events = await _events(sessions, table_id)
    assert events[-1].kind == "deal_started"
    async with sessions() as db:
        rebuilt = await rebuild(db, table_id)
    assert rebuilt is not None
    snapshot = snapshot_message(rebuilt, 0)
    assert snapshot["table"]["last_deal"] is not None
    assert snapshot["table"]["last_deal"]["deal_no"] == 1
    assert snapshot["table"]["last_deal"] == snapshot_message(live, 0)["table"]["last_deal"]


async def test_a_closed_tables_abandoned_deal_shows_no_player_to_move(sessions: Sessions) -> None:
    """docs/protocol.md §2.1: after ``pulka_ended`` a deal that was still running (here: not
    even cut) is shown as ``abandoned`` — nobody is to move, nothing is legal, no card is
    revealed that was hidden (no ``reveal``: it never ended)."""
    from app.realtime.game import seat_view
    from app.realtime.hub import snapshot_message

    table_id, seats = await _table(sessions)
    await _run(sessions, table_id, seats, 2, {"id": "cut", "type": "cut", "position": 9})
    async with session_scope(sessions) as db:
        await close_pulka(db, table_id, "agreement", NOW)
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.status == "finished"
    for seat in (0, 1, 2, None):
        view = seat_view(state, seat)
        deal = view["deal"]
        assert deal["phase"] == "abandoned" and deal["to_move"] is None
        assert deal["turn"] is None and view["legal"] == []
        assert "reveal" not in deal
        if seat is not None:
            assert len(deal["hand"]) == 10  # his own cards, as before the close
    other_hands = snapshot_message(state, 0)["deal"].get("open_hands")
    assert not other_hands


async def test_every_engine_action_is_a_live_command_the_misere_invitation_too(
    sessions: Sessions,
) -> None:
    """R-B9 at a four-player table over the live command path: the forehand invites the dealer
    to a misère and the dealer accepts. These were documented but refused as unknown commands
    until the server took its command list from the codec."""
    assert {"invite_misere", "answer_invitation", "look_at_hand"} <= table_commands.WRITE_COMMANDS
    assert set(ACTION_TYPES) <= table_commands.WRITE_COMMANDS
    table_id, seats = await _table(sessions, players=4, first_dealer=0)
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    cutter = state.deal.to_move
    await _run(sessions, table_id, seats, cutter, {"id": "cut", "type": "cut", "position": 16})
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    forehand = state.deal.to_move
    assert forehand == 1
    assert {"type": "invite_misere"} in legal_json(state.deal, forehand)
    await _run(sessions, table_id, seats, forehand, {"id": "inv", "type": "invite_misere"})
    await _run(
        sessions, table_id, seats, 0, {"id": "ans", "type": "answer_invitation", "accept": True}
    )
    kinds = [
        (e.kind, (e.payload.get("action") or {}).get("type"))
        for e in await _events(sessions, table_id)
    ]
    assert ("action", "invite_misere") in kinds and ("action", "answer_invitation") in kinds, kinds
