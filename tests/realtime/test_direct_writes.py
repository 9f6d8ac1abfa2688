"""Moves decided in advance: every such move of a batch is written by one autocommit statement.

Real PostgreSQL, the real command executor and group commit (with the hub's direct writer); the
round trips are counted on the wire (libpq's protocol trace, as in test_hot_path).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table, make_member
from app.bots.strategy import Strategy
from app.db.engine import session_scope
from app.db.group_commit import GroupCommit
from app.db.models.club import ClubSession, DealStart, SeatChange
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableCommand, TableEvent
from app.realtime import engine as rules
from app.realtime import game
from app.realtime.cross_process import libpq_url
from app.realtime.game import CommandRejected, TableState
from app.realtime.store import WRITER_SETUP, StateCache, rebuild
from app.services.move_guard import FAST_WRITER, decide_in_advance
from app.services.seat_changes import apply_waiting
from app.services.table_commands import CommandResult, execute
from app.services.tables import create_table
from tests.realtime.test_hot_path import NOW
from tests.support.wire import Wire

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
async def committers(sessions: Sessions) -> AsyncIterator[list[GroupCommit]]:
    made: list[GroupCommit] = []
    yield made
    for committer in made:
        await committer.close()


def _hub_committer(made: list[GroupCommit], sessions: Sessions) -> GroupCommit:
    """A committer as the server makes it: moves decided in advance go to the guard's
    ``FAST_WRITER``."""
    committer = GroupCommit(
        sessions, harmless=(CommandRejected,), direct=FAST_WRITER, direct_setup=WRITER_SETUP
    )
    made.append(committer)
    return committer


class PlayedTable:
    """A table played through ``execute`` as the server plays it (cache + committer)."""

    def __init__(
        self,
        table_id: int,
        members: list[int],
        sessions: Sessions,
        cache: StateCache,
        committer: GroupCommit | None,
    ) -> None:
        self.id = table_id
        self.members = members
        self.sessions = sessions
        self.cache = cache
        self.committer = committer
        self.state: TableState | None = None
        self.strategy = Strategy(random.Random(table_id))
        self.sent = 0
        self.now = NOW

    async def load(self) -> TableState:
        async with self.sessions() as db:
            state = await rebuild(db, self.id)
        assert state is not None
        self.state = state
        return state

    def next_move(self) -> tuple[int, dict[str, Any]]:
        """The seat to move and a move that is not a claim (claims take the ordinary path)."""
        assert self.state is not None and self.state.deal is not None
        seat = rules.to_move(self.state.deal)
        assert seat is not None
        view = game.seat_view(self.state, seat)
        legal = [m for m in view["legal"] if m["type"] != "claim"]
        choice = self.strategy.choose(view, legal, seat) or legal[0]
        if choice["type"] == "claim":
            choice = legal[0]
        return seat, choice

    def move(self, seat: int, choice: dict[str, Any]) -> Any:
        """The ``execute`` call of a move based on the table's current seq."""
        assert self.state is not None
        self.sent += 1
        return execute(
            self.sessions,
            self.cache,
            table_id=self.id,
            member_id=self.members[seat],
            seat=seat,
            name="p",
            command={**choice, "id": f"c{self.sent}", "seq": self.state.seq},
            now=self.now,
            committer=self.committer,
            after_deal=apply_waiting,
        )

    async def play(self, seat: int, choice: dict[str, Any]) -> CommandResult:
        result: CommandResult = await self.move(seat, choice)
        assert result.state is not None
        self.state = result.state
        return result

    def ends_the_deal(self, seat: int, choice: dict[str, Any]) -> bool:
        """Does this move end the deal?"""
        assert self.state is not None
        try:
            _, _, after = game.action_played(self.state, self.state.seq + 1, seat, choice)
        except CommandRejected:
            return False
        return game.deal_ended(after) is not None

    async def play_until_last_card(self) -> tuple[int, dict[str, Any]]:
        """Play until the next move ends the deal; that move (not played). The strategy draws
        from a random stream, so the move checked is the one returned, never a second draw."""
        for _ in range(200):
            seat, choice = self.next_move()
            if self.ends_the_deal(seat, choice):
                return seat, choice
            await self.play(seat, choice)
        raise AssertionError("the deal did not reach its last card")


async def _practice(
    sessions: Sessions, cache: StateCache, committer: GroupCommit | None, target: int = 100
) -> PlayedTable:
    async with session_scope(sessions) as db:
        table_id, seats = await make_bot_table(
            db, f"dw-{uuid.uuid4().hex[:8]}", 3, NOW, target=target
        )
    table = PlayedTable(table_id, [s.member_id for s in seats], sessions, cache, committer)
    await table.load()
    return table


async def _warm(table: PlayedTable) -> None:
    """One move through the ordinary path: the cache learns the state and the move timer."""
    committer, table.committer = table.committer, None
    await table.play(*table.next_move())
    table.committer = committer


async def _events(sessions: Sessions, table_id: int) -> list[str]:
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


async def test_moves_of_many_tables_decided_in_advance_are_one_round_trip(
    traced: tuple[Sessions, Wire], committers: list[GroupCommit]
) -> None:
    """Four tables' moves sent in one loop turn, each decided from the cached state: one
    statement writes all four (events, versions, command ids, NOTIFYs) in autocommit — one
    round trip on the wire, no BEGIN, no COMMIT, no shared transaction."""
    sessions, wire = traced
    cache = StateCache(owner="hub-a")
    committer = _hub_committer(committers, sessions)
    tables = [await _practice(sessions, cache, committer) for _ in range(4)]
    for table in tables:
        await _warm(table)
    await asyncio.gather(*(t.play(*t.next_move()) for t in tables))  # opens the connection
    statements = committer.direct_statements
    moves = [t.next_move() for t in tables]
    wire.start()
    results = await asyncio.gather(*(t.play(*m) for t, m in zip(tables, moves, strict=True)))
    trips = wire.round_trips()
    assert [r.seq for r in results] == [5, 5, 5, 5] and not any(r.duplicate for r in results)
    assert committer.direct_statements == statements + 1
    assert len(trips) == 1, trips
    assert not any("BEGIN" in t or "COMMIT" in t for t in trips)
    assert committer.batches == 0  # no move took the ordinary path
    for table, (seat, _), result in zip(tables, moves, results, strict=True):
        async with sessions() as db:
            replayed = await rebuild(db, table.id)
            stored = await db.get(TableCommand, (table.id, table.members[seat], f"c{table.sent}"))
            version = await db.scalar(select(Table.version).where(Table.id == table.id))
        assert version == 5 and replayed is not None and result.state is not None
        assert replayed.deal == result.state.deal
        assert stored is not None and stored.seq == 5 and stored.response == {"seq": 5}


async def test_a_stale_move_in_the_statement_takes_the_ordinary_path_alone(
    sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """Our cache says table A is at seq 3, another process moved it on: the statement writes
    B's move and not A's; A's command then takes the ordinary path, which refuses it with
    ``stale_seq`` — and a twin of B's command is answered as a duplicate."""
    ours, theirs = StateCache(owner="ours"), StateCache(owner="theirs")
    committer = _hub_committer(committers, sessions)
    a, b = [await _practice(sessions, ours, committer) for _ in range(2)]
    for table in (a, b):
        await _warm(table)
    other = PlayedTable(a.id, a.members, sessions, theirs, None)
    await other.load()
    await other.play(*other.next_move())
    move_a, move_b = a.next_move(), b.next_move()
    stale, moved = await asyncio.gather(a.move(*move_a), b.move(*move_b), return_exceptions=True)
    assert isinstance(stale, CommandRejected) and stale.code == "stale_seq", stale
    assert isinstance(moved, CommandResult) and moved.seq == 4 and not moved.duplicate
    assert (committer.direct_statements, committer.direct_writes) == (1, 1)
    again = await execute(
        sessions,
        ours,
        table_id=b.id,
        member_id=b.members[move_b[0]],
        seat=move_b[0],
        name="p",
        command={**move_b[1], "id": f"c{b.sent}", "seq": 3},
        now=NOW,
        committer=committer,
    )
    assert again.duplicate and again.seq == 4
    assert len(await _events(sessions, a.id)) == 4 and len(await _events(sessions, b.id)) == 4


async def test_twenty_twins_decided_in_advance_apply_once(
    sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """Twenty copies of one move at once, each decidable in advance: one is written by the
    statement, the others (kept out of it: one move per table) find it committed and are
    answered as duplicates with its seq."""
    cache = StateCache(owner="hub")
    committer = _hub_committer(committers, sessions)
    table = await _practice(sessions, cache, committer)
    await _warm(table)
    seat, choice = table.next_move()
    command = {**choice, "id": "twin", "seq": table.state.seq}  # type: ignore[union-attr]
    results = await asyncio.gather(
        *(
            execute(
                sessions,
                cache,
                table_id=table.id,
                member_id=table.members[seat],
                seat=seat,
                name="p",
                command=command,
                now=NOW,
                committer=committer,
            )
            for _ in range(20)
        )
    )
    assert [r.seq for r in results] == [4] * 20
    assert sum(not r.duplicate for r in results) == 1
    assert committer.direct_writes == 1
    assert len(await _events(sessions, table.id)) == 4


async def test_a_deal_end_in_one_statement_writes_what_the_ordinary_path_writes(
    sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """The last card of a deal at a practice table, decided in advance: the one statement
    appends the action, ``deal_ended`` and the next ``deal_started``, and rewrites the pulka
    row — what the log replays to is the state the command acknowledged, and the pulka row
    holds that pulka and sheet (as ``live_table.sync_rows`` writes them)."""
    cache = StateCache(owner="hub")
    committer = _hub_committer(committers, sessions)
    table = await _practice(sessions, cache, committer)
    await _warm(table)
    last = await table.play_until_last_card()
    writes, batches = committer.direct_writes, committer.batches
    result = await table.play(*last)
    assert committer.direct_writes == writes + 1 and committer.batches == batches
    assert [e.kind for e in result.events] == ["action", "deal_ended", "deal_started"]
    assert (await _events(sessions, table.id))[-3:] == ["action", "deal_ended", "deal_started"]
    state = result.state
    assert state is not None and state.deal_no == 2 and state.pulka.deal_index == 1
    async with sessions() as db:
        replayed = await rebuild(db, table.id)
        row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table.id))
        version = await db.scalar(select(Table.version).where(Table.id == table.id))
        mover = table.members[result.events[0].payload["seat"]]
        command = await db.get(TableCommand, (table.id, mover, f"c{table.sent}"))
    assert replayed is not None and replayed.seq == state.seq == version
    assert replayed.deal == state.deal and replayed.last_deal == state.last_deal
    assert replayed.pulka.to_json() == state.pulka.to_json()
    assert row is not None and row.deals == 1
    assert row.state == state.pulka.to_json() and row.sheet == state.pulka.sheet.to_json()
    assert command is not None and command.seq == state.seq
    assert command.response == {"seq": state.seq}


async def test_a_deal_end_at_a_club_table_takes_the_ordinary_path(
    live_db: str, sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """At a club table the next deal is gated by the session (R-S2) and counted (the
    extension round): the deal-ending move is not decided in advance, and the ordinary path
    deals the next deal and records its start. The statement itself refuses such a move too,
    should a cache ever think the table ungated."""
    cache = StateCache(owner="hub")
    committer = _hub_committer(committers, sessions)
    async with session_scope(sessions) as db:
        club = ClubSession(
            starts_at=NOW - timedelta(hours=1), ends_at=NOW + timedelta(hours=3), extra=True
        )
        db.add(club)
        await db.flush()
        members = [
            await make_member(db, f"dwc-{uuid.uuid4().hex[:8]}", f"C{i}", NOW) for i in range(3)
        ]
        made = await create_table(
            db,
            seat_member_ids=[m.member_id for m in members],
            target=100,
            first_dealer=0,
            club_session_id=club.id,
            now=NOW,
        )
    table = PlayedTable(made.id, [m.member_id for m in members], sessions, cache, committer)
    await table.load()
    assert table.state is not None and table.state.deal is not None
    await _warm(table)
    seat, choice = await table.play_until_last_card()

    fooled = StateCache(owner="hub")
    fooled.put(table.state)
    fooled.put_settings(table.id, None, gated=False)
    decided = decide_in_advance(
        fooled,
        table_id=table.id,
        member_id=table.members[seat],
        seat=seat,
        command={**choice, "id": "fooled"},
        cid="fooled",
        kind=choice["type"],
        client_seq=table.state.seq,
        now=NOW,
        session_id=None,
    )
    assert decided is not None and decided.move.deals is not None  # a deal end
    async with await psycopg.AsyncConnection.connect(libpq_url(live_db), autocommit=True) as driver:
        assert await FAST_WRITER(driver, [decided.move]) == set()

    writes, batches = committer.direct_writes, committer.batches
    statements = committer.direct_statements
    starts = await _deal_starts(sessions, table.id)
    table.now = NOW + timedelta(minutes=5)  # a deal start is counted once per moment
    result = await table.play(seat, choice)
    assert (committer.direct_statements, committer.direct_writes) == (statements, writes)
    assert committer.batches == batches + 1
    assert [e.kind for e in result.events][-2:] == ["deal_ended", "deal_started"]
    assert await _deal_starts(sessions, table.id) == starts + 1


async def _deal_starts(sessions: Sessions, table_id: int) -> int:
    async with sessions() as db:
        return int(
            await db.scalar(
                select(func.count()).select_from(DealStart).where(DealStart.table_id == table_id)
            )
            or 0
        )


async def test_a_seat_change_waiting_for_the_deal_end_is_applied_by_the_ordinary_path(
    sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """A fourth player everyone agreed to during the deal (R-T4) waits for its end: the
    statement refuses the deal-ending move, and the ordinary path seats him and deals."""
    cache = StateCache(owner="hub")
    committer = _hub_committer(committers, sessions)
    table = await _practice(sessions, cache, committer)
    await _warm(table)
    async with session_scope(sessions) as db:
        newcomer = await make_member(db, f"dwn-{uuid.uuid4().hex[:8]}", "N", NOW)
        db.add(
            SeatChange(
                table_id=table.id,
                kind="join",
                member_id=newcomer.member_id,
                seat=None,
                requested_by_id=table.members[0],
                required=[],
                consents=[],
                status="agreed",
            )
        )
    last = await table.play_until_last_card()
    writes, statements = committer.direct_writes, committer.direct_statements
    result = await table.play(*last)
    assert committer.direct_statements == statements + 1  # tried, and refused: a change waits
    assert committer.direct_writes == writes
    kinds = await _events(sessions, table.id)
    assert "player_joined" in kinds and kinds[-1] == "deal_started"
    assert result.state is not None and result.state.players == 4
