"""Seat changes at a running pulka over a real server: a fourth player joins between deals
(R-T4), a player is replaced (R-T5), and neither happens while a deal is being played.

The change is made the way the club API makes it (the consent service, which applies it to the
live table once everyone needed agreed — house bots are not asked), in this test process; the
server hears of it by ``NOTIFY`` like of any other process's commit.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, SeatChange
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent, TableSeat
from app.services import seat_changes
from app.services.service_errors import ConflictError
from app.services.tables import SeatMoveError, join_fourth
from tests.support.live_servers import Client, Driver, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture
async def sessions(live_db: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = make_engine(live_db)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()


async def _now(db: AsyncSession) -> Any:
    return await db.scalar(select(func.now()))


async def _version(sessions: async_sessionmaker[AsyncSession], table_id: int) -> int:
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None
        return table.version


async def _seats(sessions: async_sessionmaker[AsyncSession], table_id: int) -> list[int | None]:
    async with sessions() as db:
        rows = await db.scalars(
            select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)
        )
        return [r.member_id for r in rows]


def _numbers(values: list[Any]) -> list[Fraction]:
    return [Fraction(str(v)) for v in values]


def _cut(client: Client) -> dict[str, Any]:
    legal = client.latest["legal"] if client.latest else []
    cuts = [a for a in legal if a["type"] == "cut"]
    assert cuts, client.latest
    return cuts[len(cuts) // 2]


async def test_a_fourth_player_joins_between_deals_and_deals_next(
    srv: ServerProcess, live_db: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    table_id, seats, (new,) = await setup_table(live_db, 3, first_dealer=0, spectators=1)
    players = [Client(srv, table_id, s.cookie) for s in seats]
    newcomer = Client(srv, table_id, new.cookie)
    for c in [*players, newcomer]:
        await c.connect()
    assert [c.seat for c in players] == [0, 1, 2] and newcomer.seat is None
    driver = Driver(players, [newcomer], seed=3)

    # Deal 1 (dealer 0): once the cards are out, the table refuses the join ...
    await driver.step(_cut)
    assert driver.view()["deal"]["phase"] != "cut"
    before = await _version(sessions, table_id)
    async with session_scope(sessions) as db:
        with pytest.raises(SeatMoveError) as refused:
            await join_fourth(db, table_id, new.member_id, now=await _now(db))
    assert refused.value.code == "deal_in_progress" and "between deals" in str(refused.value)
    # ... and the consent flow keeps the request agreed (nobody of the house bots is asked).
    async with session_scope(sessions) as db:
        member = await db.get(Member, new.member_id)
        assert member is not None
        change = await seat_changes.request_join(db, table_id, member, member, await _now(db))
        assert change.status == "agreed" and "between deals" in change.record["waiting"]
        change_id = change.id
    async with session_scope(sessions) as db:  # asked again while the deal is still played
        member = await db.get(Member, new.member_id)
        assert member is not None
        with pytest.raises(ConflictError, match="between deals"):
            await seat_changes.apply_agreed(
                db, await seat_changes.get_change(db, change_id), member, await _now(db)
            )
    assert await _version(sessions, table_id) == before
    assert await _seats(sessions, table_id) == [s.member_id for s in seats]

    ended = await driver.play_deal()
    pools = _numbers(ended["data"]["sheet"]["pool"])
    hills = _numbers(ended["data"]["sheet"]["hill"])

    # Deal 1 has ended: the table applied the agreed join itself, in the command that ended the
    # deal, before deal 2 started. He sits left of seat 0, who has just dealt; seats 1 and 2
    # move to 2 and 3; he deals deal 2, to four players.
    async with sessions() as db:
        change = await seat_changes.get_change(db, change_id)
        assert change.status == "applied" and change.applied_at is not None
        assert "waiting" not in change.record
        applied = change.record["applied"]
        member = await db.get(Member, new.member_id)
        assert member is not None
        with pytest.raises(ConflictError, match="applied, not agreed"):  # nothing left to do
            await seat_changes.apply_agreed(db, change, member, await _now(db))
    assert applied["seat"] == 1 and applied["dealer"] == 1
    expected_ids = [seats[0].member_id, new.member_id, seats[1].member_id, seats[2].member_id]
    assert applied["member_ids"] == expected_ids
    assert await _seats(sessions, table_id) == expected_ids

    everyone = [*players, newcomer]
    joined = [await c.wait_for(lambda m: m.get("type") == "player_joined") for c in everyone]
    assert [m["seat"] for m in joined] == [0, 2, 3, 1]
    assert [c.seat for c in everyone] == [0, 2, 3, 1]
    assert joined[0]["seq"] == ended["seq"] + 1  # right after deal_ended: no deal 2 to three
    data = joined[0]["data"]
    assert data["seat"] == 1 and data["after_dealer_seat"] == 0 and data["players"] == 4
    assert data["member_ids"] == expected_ids and data["dealer"] == 1
    # R-T4: his pool is the mean rounded down, his hill the mean rounded up (against him).
    entries = {e["column"]: Fraction(str(e["amount"])) for e in data["entries"]}
    assert entries["pool"] == math.floor(sum(pools) / 3)
    assert entries["hill"] == math.ceil(sum(hills) / 3)
    assert {e["rule"] for e in data["entries"]} == {"R-T4"}
    sheet = data["sheet"]
    assert _numbers(sheet["pool"]) == [pools[0], entries["pool"], pools[1], pools[2]]
    assert _numbers(sheet["hill"]) == [hills[0], entries["hill"], hills[1], hills[2]]
    assert joined[0]["deal"] is None and joined[0]["table"]["sheet"] == sheet

    # Deal 2 is dealt to four, by the newcomer.
    dealt = [
        await c.wait_for(lambda m: m.get("type") == "deal_started" and m["seq"] > joined[0]["seq"])
        for c in everyone
    ]
    assert dealt[0]["seq"] == joined[0]["seq"] + 1
    assert (dealt[0]["data"]["deal_no"], dealt[0]["data"]["dealer"]) == (2, 1)
    assert all(m["deal"]["players"] == 4 and m["deal"]["dealer"] == 1 for m in dealt)

    # Deal 2 is played by four: the dealer (the newcomer) sits on the talon (R-T6).
    four = Driver([players[0], newcomer, players[1], players[2]], seed=5)
    await four.step()  # the cut: the cards are dealt
    assert newcomer.latest is not None and newcomer.latest["deal"]["hand"] == []
    sizes = newcomer.latest["deal"]["hand_sizes"]
    assert sorted(sizes) == ["0", "2", "3"] and set(sizes.values()) == {10}
    ended_2 = await four.play_deal()
    assert ended_2["data"]["deal_no"] == 2 and len(ended_2["data"]["sheet"]["pool"]) == 4
    assert ended_2["data"]["outcome"]["dealer"] == 1
    after = await newcomer.wait_for(
        lambda m: m.get("type") == "deal_started" and m["data"]["deal_no"] == 3
    )
    assert after["data"]["dealer"] == 2

    # A page loaded now sees four seats; the log and the derived rows agree.
    late = Client(srv, table_id, new.cookie)
    welcome = await late.connect()
    assert welcome["seat"] == 1
    snapshot = await late.wait_for(lambda m: m.get("type") == "snapshot")
    assert snapshot["table"]["players"] == 4 and snapshot["seat"] == 1
    async with sessions() as db:
        table = await db.get(Table, table_id)
        assert table is not None and table.players == 4
        row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
        assert row is not None and row.deals == 2
        kinds = (
            await db.scalars(
                select(TableEvent.kind)
                .where(TableEvent.table_id == table_id)
                .order_by(TableEvent.seq)
            )
        ).all()
        assert list(kinds).count("player_joined") == 1
        stored = await db.get(SeatChange, change_id)
        assert stored is not None and stored.status == "applied"
    for c in [*everyone, late]:
        await c.close()


async def test_a_substitute_takes_over_a_seat_and_its_sheet(
    srv: ServerProcess, live_db: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    table_id, seats, (new,) = await setup_table(live_db, 3, first_dealer=0, spectators=1)
    players = [Client(srv, table_id, s.cookie) for s in seats]
    substitute = Client(srv, table_id, new.cookie)
    for c in [*players, substitute]:
        await c.connect()
    driver = Driver(players, [substitute], seed=7)
    ended = await driver.play_deal()
    sheet_before = ended["data"]["sheet"]
    dealt = await players[0].wait_for(lambda m: m.get("type") == "deal_started")
    seat = dealt["deal"]["cutter"]  # the player due to cut deal 2 leaves
    leaving = players[seat]

    async with session_scope(sessions) as db:
        member = await db.get(Member, new.member_id)
        assert member is not None
        change = await seat_changes.request_replace(
            db, table_id, seat, member, member, await _now(db)
        )
        assert change.status == "applied"
        assert change.record["applied"]["leaving_member_id"] == seats[seat].member_id
    replaced = [
        await c.wait_for(lambda m: m.get("type") == "player_replaced")
        for c in [*players, substitute]
    ]
    expected = [None if i == seat else i for i in range(3)] + [seat]
    assert [m["seat"] for m in replaced] == expected
    data = replaced[0]["data"]
    assert data["seat"] == seat and data["member_id"] == new.member_id
    assert data["leaving_member_id"] == seats[seat].member_id
    # R-T5: the substitute inherits the seat's sheet; nothing else changed.
    assert replaced[0]["table"]["sheet"] == sheet_before
    assert replaced[seat]["legal"] == [] and replaced[-1]["legal"]
    assert await _seats(sessions, table_id) == [
        new.member_id if i == seat else s.member_id for i, s in enumerate(seats)
    ]

    # The old member can no longer act at that seat; the substitute can.
    answer = await leaving.command(_cut(substitute))
    assert answer["type"] == "error" and answer["code"] == "not_seated", answer
    answer = await substitute.command(_cut(substitute))
    assert answer["type"] == "ack", answer
    # The leaving member's new socket is a spectator's.
    again = Client(srv, table_id, seats[seat].cookie)
    assert (await again.connect())["seat"] is None
    await again.close()

    table = [substitute if i == seat else c for i, c in enumerate(players)]
    ended_2 = await Driver(table, seed=9).play_deal()
    assert ended_2["data"]["deal_no"] == 2
    # The seat's sheet went on from where the leaving player left it.
    for column in ("pool", "hill"):
        changed = {e["seat"] for e in ended_2["data"]["entries"] if e["column"] == column}
        for s in range(3):
            if s not in changed:
                assert ended_2["data"]["sheet"][column][s] == sheet_before[column][s]
    for c in [*players, substitute]:
        await c.close()


async def test_an_agreed_replacement_applies_itself_when_the_deal_ends(
    srv: ServerProcess, live_db: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    table_id, seats, (new,) = await setup_table(live_db, 3, first_dealer=0, spectators=1)
    players = [Client(srv, table_id, s.cookie) for s in seats]
    substitute = Client(srv, table_id, new.cookie)
    for c in [*players, substitute]:
        await c.connect()
    driver = Driver(players, [substitute], seed=11)
    await driver.step(_cut)  # deal 1's cards are out: the replacement has to wait
    async with session_scope(sessions) as db:
        member = await db.get(Member, new.member_id)
        assert member is not None
        change = await seat_changes.request_replace(db, table_id, 1, member, member, await _now(db))
        assert change.status == "agreed" and "between deals" in change.record["waiting"]
        change_id = change.id

    # Nobody calls /apply: the command that ends deal 1 seats him, then deals deal 2.
    ended = await driver.play_deal()
    replaced = await substitute.wait_for(lambda m: m.get("type") == "player_replaced")
    assert replaced["seq"] == ended["seq"] + 1 and replaced["seat"] == 1
    dealt = await substitute.wait_for(
        lambda m: m.get("type") == "deal_started" and m["seq"] > replaced["seq"]
    )
    assert dealt["seq"] == replaced["seq"] + 1 and dealt["data"]["deal_no"] == 2
    assert await _seats(sessions, table_id) == [
        seats[0].member_id,
        new.member_id,
        seats[2].member_id,
    ]
    async with sessions() as db:
        stored = await db.get(SeatChange, change_id)
        assert stored is not None and stored.status == "applied"
        assert stored.record["applied"]["seq"] == replaced["seq"]
    ended_2 = await Driver([players[0], substitute, players[2]], seed=12).play_deal()
    assert ended_2["data"]["deal_no"] == 2
    for c in [*players, substitute]:
        await c.close()
