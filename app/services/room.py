"""The screen for the room (issue 27): what a TV at the club shows of every table in play.

Only what a spectator sees: each table's deal goes through the engine's public view
(:func:`app.realtime.game.seat_view` with no seat), so no closed hand, no talon before it is
shown, no discard and no closed trick but the last (R-W8) ever leaves the server; a deal's
cards appear only once it has ended. Beside the tables the screen shows the standings of the
current season (the season whose days contain today, in the club's zone; all-time when none
does): the top :data:`ROOM_STANDINGS` lines, ranked by whists per pulka. The table's chat
and its last deal (with the hands it revealed) are left out: a screen on the wall has no use
for them, and a typed card in a chat line would look like a leak to anyone checking.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.season import Season
from app.db.models.table import Table
from app.realtime import game
from app.realtime.store import StateCache, load_state
from app.services import standings as standings_service

ROOM_TABLES_MAX = 16
"""The most tables the screen cycles through (a club has two or three)."""
ROOM_STANDINGS = 10
"""The standings lines the screen shows (the qualified first, as the standings rank them)."""


async def current_season(db: AsyncSession, now: datetime) -> Season | None:
    """The season whose days contain ``now``'s date in the club's zone, or ``None``."""
    today = now.astimezone(standings_service.club_zone()).date()
    return await db.scalar(
        select(Season).where(Season.first_day <= today, Season.last_day >= today)
    )


async def room_standings(db: AsyncSession, now: datetime) -> dict[str, Any]:
    """The current season's standings (all-time without one) as the screen shows them:
    rank, name, whists per pulka, pulkas and rating ordinal of the top lines."""
    season = await current_season(db, now)
    board = await standings_service.standings(db, season, "whists")
    return {
        "season": None if season is None else {"id": season.id, "name": season.name},
        "min_pulkas": board.min_pulkas,
        "lines": [
            {
                "member_id": line.member_id,
                "rank": line.rank,
                "name": line.name,
                "whists_per_pulka": None
                if line.whists_per_pulka is None
                else str(line.whists_per_pulka),
                "pulkas": line.pulkas,
                "rating": None if line.rating is None else round(line.rating.ordinal, 1),
            }
            for line in board.lines[:ROOM_STANDINGS]
        ],
    }


async def room(db: AsyncSession, now: datetime, cache: StateCache | None = None) -> dict[str, Any]:
    """Every club table in play (not practice), oldest first, as a spectator sees it (the
    states come from the hub's ``cache`` when it holds them current: no replay of the log),
    and the standings of the season ``now`` falls in (:func:`room_standings`)."""
    rows = (
        await db.scalars(
            select(Table)
            .where(Table.practice.is_(False), Table.status == "playing", Table.version > 0)
            .order_by(Table.id)
            .limit(ROOM_TABLES_MAX)
        )
    ).all()
    tables = []
    for table in rows:
        table_id = table.id
        state = await load_state(db, table, cache)
        info = game.table_info(state)
        tables.append(
            {
                "table_id": table_id,
                "seq": state.seq,
                "players": info["players"],
                "names": info["names"],
                "status": info["status"],
                "deal_no": info["deal_no"],
                "preset": info["preset"],
                "target": info["target"],
                "sheet": info["sheet"],
                "deal": game.seat_view(state, None)["deal"],
            }
        )
    return {"tables": tables, "standings": await room_standings(db, now)}
