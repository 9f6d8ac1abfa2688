"""The season backtest's generator (``bench.season``, issue 27) on three small Mondays in a
scratch database: every pulka goes through the code a live table runs when its pulka ends,
and the standings' nights and the ratings rebuilt from the archive equal the incremental
ones exactly — also after the rating is rebuilt in place."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.models import MemberNight, RatedPulka
from app.services import rating, standings
from bench.season import generate, kendall_tau_b, table_sizes


def test_tables_of_three_or_four_and_kendall_tau() -> None:
    """Everyone present sits at a table of three or four (five, when only five came); tau-b
    is 1, -1, and counts ties."""
    assert table_sizes(5) == [5]
    for present in (3, 4, *range(6, 30)):
        sizes = table_sizes(present)
        assert sum(sizes) == present and all(s in (3, 4) for s in sizes), present
    assert kendall_tau_b([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0
    assert round(kendall_tau_b([1, 1, 2], [1, 2, 3]), 4) == round(2 / (2 * 3) ** 0.5, 4)


async def test_three_mondays_rebuild_to_what_was_kept(scratch: AsyncEngine) -> None:
    result = await generate(scratch, mondays=3, deals=2, players=10, seed=5, checkpoints=(3,))
    assert result["rebuild"]["nights_equal"] and result["rebuild"]["ratings_equal"]
    assert result["pulkas"] >= 6 and result["checkpoints"][0]["mondays"] == 3
    async with AsyncSession(scratch) as db:
        assert await db.scalar(select(func.count()).select_from(RatedPulka)) == result["pulkas"]
        nights = await db.scalar(select(func.count()).select_from(MemberNight))
        assert nights is not None and nights >= 3 * 6
        kept = await rating.stored(db)
        assert await rating.rebuild(db) == result["pulkas"]
        assert await rating.stored(db) == kept, "rebuilt bit for bit"
        kept_nights = await standings.stored_nights(db)
        await standings.rebuild(db)
        assert await standings.stored_nights(db) == kept_nights
        await db.rollback()
