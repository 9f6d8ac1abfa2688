"""Recording mode (RULES.md §10): a real-cards table whose scorer enters each deal.

Entries are checked and scored by ``Pulka.record`` (the live path), corrected only until the next
entry (R-P7) with the R-X11 fine, entered at most once under concurrency, and seen by everyone as
table events.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import session_scope
from app.db.models import Member, Role
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent
from app.rules.core.outcome_json import deal_from_json
from app.rules.scoring.pulka import Pulka
from app.services import recording
from app.services.recording import RecordingError
from app.services.tables import create_table

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
Sessions = async_sessionmaker[AsyncSession]


async def _members(db: AsyncSession, n: int) -> list[int]:
    ids = []
    for _ in range(n):
        tag = uuid.uuid4().hex[:10]
        m = Member(
            login=f"rec{tag}",
            display_name=f"R {tag}",
            role=Role.member,
            password_hash="x",
            must_change_password=False,
            active=True,
            is_bot=False,
        )
        db.add(m)
        await db.flush()
        ids.append(m.id)
    return ids


async def _recorded(
    sessions: Sessions, *, target: int = 50, mode: str = "recorded", scorer: bool = False
) -> tuple[int, list[int], int | None]:
    async with session_scope(sessions) as db:
        seats = await _members(db, 3)
        chosen = (await _members(db, 1))[0] if scorer else None
        table = await create_table(
            db,
            seat_member_ids=list(seats),
            practice=True,
            target=target,
            mode=mode,
            scorer_member_id=chosen,
            now=NOW,
        )
        return table.id, seats, chosen


async def _enter(
    sessions: Sessions, table_id: int, member: int, deal_no: int, deal: dict[str, Any]
) -> recording.Entered:
    async with session_scope(sessions) as db:
        return await recording.enter_deal(db, table_id, member, deal_no, deal, NOW)


async def _correct(
    sessions: Sessions, table_id: int, member: int, deal_no: int, deal: dict[str, Any]
) -> recording.Entered:
    async with session_scope(sessions) as db:
        return await recording.correct_deal(db, table_id, member, deal_no, deal, NOW)


async def _kinds(sessions: Sessions, table_id: int) -> list[str]:
    async with sessions() as db:
        return list(
            (
                await db.scalars(
                    select(TableEvent.kind)
                    .where(TableEvent.table_id == table_id)
                    .order_by(TableEvent.seq)
                )
            ).all()
        )


async def _view(sessions: Sessions, table_id: int) -> dict[str, Any]:
    async with sessions() as db:
        return await recording.recording_view(db, table_id)


PASSED = {"type": "game", "declarer": 1, "contract": "7H", "defence": {"2": "pass", "0": "pass"}}


async def test_a_recorded_table_deals_nothing_and_scores_entries_like_a_live_deal(
    sessions: Sessions,
) -> None:
    table_id, seats, _ = await _recorded(sessions)
    assert await _kinds(sessions, table_id) == ["pulka_started"]
    view = await _view(sessions, table_id)
    assert view["deal_no"] == 0 and view["next_dealer"] == 0 and view["min_level"] == 6
    assert {c["rule"] for c in view["catalogue"]} == {f"R-X{i}" for i in range(1, 12)}
    deal = {
        "type": "game",
        "declarer": 1,
        "contract": "7H",
        "defence": {"2": "whist", "0": "pass"},
        "tricks": {"1": 6, "2": 3, "0": 1},
        "penalties": [{"seat": 0, "rule": "talon_seen"}],
    }
    done = await _enter(sessions, table_id, seats[2], 0, deal)
    assert done.kind == "recorded_deal" and done.data["outcome"]["dealer"] == 0  # proposed
    fresh = Pulka.new(3, first_dealer=0, target=50)
    live, _ = fresh.record(deal_from_json({**deal, "dealer": 0}, 0))
    view = await _view(sessions, table_id)
    assert view["sheet"] == live.sheet.to_json()
    assert view["sheet"]["hill"][0] == 5 and view["next_dealer"] == 1
    async with sessions() as db:
        row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
        assert row is not None and row.deals == 1 and row.sheet == live.sheet.to_json()


@pytest.mark.parametrize(
    ("deal", "field"),
    [
        ({"type": "pass_out", "tricks": {"0": 5, "1": 3, "2": 3}}, "tricks"),
        (
            {
                "type": "game",
                "declarer": 1,
                "contract": "6S",
                "defence": {"2": "whist", "0": "pass"},
                "tricks": {"1": 6, "2": 2, "0": 2},
            },
            "defence",
        ),  # Stalingrad: both whist (R-W6)
        (
            {**PASSED, "penalties": [{"seat": 0, "rule": "anything at all", "hill": -500}]},
            "penalties",
        ),
        ({**PASSED, "dealer": 2}, "dealer"),
    ],
)
async def test_an_invalid_entry_is_refused_and_changes_nothing(
    sessions: Sessions, deal: dict[str, Any], field: str
) -> None:
    table_id, seats, _ = await _recorded(sessions)
    with pytest.raises(RecordingError) as info:
        await _enter(sessions, table_id, seats[0], 0, deal)
    assert info.value.code == "invalid_entry" and info.value.field == field
    assert await _kinds(sessions, table_id) == ["pulka_started"]


async def test_who_may_enter(sessions: Sessions) -> None:
    table_id, _seats, chosen = await _recorded(sessions, scorer=True)
    async with session_scope(sessions) as db:
        outsider = (await _members(db, 1))[0]
    with pytest.raises(recording.ForbiddenError):
        await _enter(sessions, table_id, outsider, 0, PASSED)
    assert chosen is not None
    await _enter(sessions, table_id, chosen, 0, PASSED)  # the member the table chose
    live_id, live_seats, _ = await _recorded(sessions, mode="live")
    with pytest.raises(RecordingError) as info:
        await _enter(sessions, live_id, live_seats[0], 0, PASSED)
    assert info.value.code == "not_recorded" and info.value.status == 409


async def test_corrections_until_the_next_entry_first_free_then_fined_by_size(
    sessions: Sessions,
) -> None:
    table_id, seats, _ = await _recorded(sessions)
    scorer = seats[0]  # seat 0 scores; his wrong entries are charged to him (R-X11)
    # Deal 0 entered as 8♥ (pool 6), corrected to 7♥ (pool 4): over-entry 2, the first: free.
    await _enter(sessions, table_id, scorer, 0, {**PASSED, "contract": "8H"})
    fixed = await _correct(sessions, table_id, scorer, 0, PASSED)
    assert fixed.kind == "recorded_correction" and fixed.data["size"] == 2
    view = await _view(sessions, table_id)
    assert view["sheet"]["pool"] == [0, 4, 0] and view["sheet"]["hill"] == [0, 0, 0]
    # Deal 1 (dealer 1): 7♣ by seat 2 (pool 4) corrected to 6♣ (pool 2): over-entry 2, fined 2.
    six = {"type": "game", "declarer": 2, "contract": "6C", "defence": {"0": "pass", "1": "pass"}}
    await _enter(sessions, table_id, scorer, 1, {**six, "contract": "7C"})
    await _correct(sessions, table_id, scorer, 1, six)
    view = await _view(sessions, table_id)
    assert view["sheet"]["pool"] == [0, 4, 2] and view["sheet"]["hill"] == [2, 0, 0]
    assert view["entries"][-1]["rule"] == "R-X11" and view["entries"][-1]["amount"] == 2
    # Deal 0's window closed when deal 1 was entered (R-P7).
    with pytest.raises(RecordingError) as info:
        await _correct(sessions, table_id, scorer, 0, {**PASSED, "contract": "9H"})
    assert info.value.code == "correction_closed" and info.value.status == 409
    assert (await _view(sessions, table_id))["sheet"] == view["sheet"]


async def test_twenty_concurrent_entries_of_one_deal_apply_once(sessions: Sessions) -> None:
    table_id, seats, _ = await _recorded(sessions)

    async def attempt(i: int) -> str:
        try:
            await _enter(sessions, table_id, seats[i % 3], 0, PASSED)
        except RecordingError as exc:
            return exc.code
        return "ok"

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert results.count("ok") == 1
    assert set(results) == {"ok", "stale_entry"}
    assert (await _kinds(sessions, table_id)).count("recorded_deal") == 1


async def test_disputes_and_the_end_of_the_pulka(sessions: Sessions) -> None:
    table_id, seats, _ = await _recorded(sessions, target=4)
    with pytest.raises(RecordingError) as info:
        async with session_scope(sessions) as db:
            await recording.dispute_deal(db, table_id, seats[1], 0, "no deal yet")
    assert info.value.code == "no_such_deal"
    for deal_no, declarer in enumerate((1, 2, 0)):
        calls = {str(s): "pass" for s in range(3) if s != declarer}
        await _enter(
            sessions,
            table_id,
            seats[0],
            deal_no,
            {"type": "game", "declarer": declarer, "contract": "7C", "defence": calls},
        )
    async with session_scope(sessions) as db:
        done = await recording.dispute_deal(db, table_id, seats[1], 2, "  it was 7♠  ")
    assert done.data == {"deal_no": 2, "seat": 1, "name": done.data["name"], "text": "it was 7♠"}
    kinds = await _kinds(sessions, table_id)
    assert kinds[-2:] == ["pulka_ended", "recorded_dispute"]
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.status == "finished"
    with pytest.raises(RecordingError) as info:
        await _enter(sessions, table_id, seats[0], 3, PASSED)
    assert info.value.code == "table_finished"
    with pytest.raises(RecordingError) as info:
        await _correct(sessions, table_id, seats[0], 2, PASSED)
    assert info.value.code == "correction_closed"
