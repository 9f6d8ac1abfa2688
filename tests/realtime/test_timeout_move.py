"""The server's move for a seat whose move timer ran out is the rules' default move
(``app.rules.deal.timeout.default_move``; docs/protocol.md §6): a whole deal played by expired
timers passes out (every call a pass, R-B1) and its tricks are played with the default cards.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table
from app.db.engine import session_scope
from app.db.models.table import TableEvent
from app.realtime.store import rebuild
from app.rules import action_to_json
from app.rules.deal.timeout import default_move
from app.services.table_commands import TableCommands

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
TIMER = 30


async def test_every_expired_timer_plays_the_rules_default_move(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with session_scope(sessions) as db:
        table_id, _ = await make_bot_table(
            db, f"to-{uuid.uuid4().hex[:8]}", 3, NOW, move_timer_seconds=TIMER
        )
    commands = TableCommands()
    now = NOW
    fired = []
    first_deal = None
    for _ in range(60):
        async with sessions() as db:
            state = await rebuild(db, table_id)
        assert state is not None and state.deal is not None
        first_deal = first_deal or state.deal_no
        if state.deal_no != first_deal:  # deal 1 ended and the next was dealt
            break
        mover = state.deal.to_move
        assert mover is not None
        expected = default_move(state.deal, mover)
        assert expected is not None
        now += timedelta(seconds=TIMER + 1)
        assert await commands.fire_deadline(sessions, None, table_id, now)
        async with sessions() as db:
            event = (
                await db.scalars(
                    select(TableEvent)
                    .where(TableEvent.table_id == table_id)
                    .where(TableEvent.kind == "action")
                    .order_by(TableEvent.seq.desc())
                    .limit(1)
                )
            ).one()
        assert event.payload["auto"] is True and event.payload["seat"] == mover
        assert event.payload["action"] == action_to_json(expected)
        fired.append(event.payload["action"])
    else:
        raise AssertionError("deal 1 did not end")
    kinds = [a["type"] for a in fired]
    assert kinds[0] == "cut"
    bids = [a for a in fired if a["type"] == "bid"]
    assert len(bids) == 3 and all(b["call"] == "pass" for b in bids)  # R-B1: a pass-out
    assert kinds.count("play_card") == 30  # ten tricks of three cards, all by the timer
