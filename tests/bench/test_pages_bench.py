"""``bench.pages`` (issue 27): the database it reads is what it says — the Mondays as club
sessions, a season over them, a luck row for every seat of every finished club deal — and a
bad command line changes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.models import ClubSession, DealLuck, Season, Table
from bench import pages


async def test_two_mondays_are_prepared_for_the_reads(scratch: AsyncEngine) -> None:
    url = scratch.url.render_as_string(hide_password=False)
    ids = await pages.prepare(url, archive=0, mondays=2, seed=4)
    async with AsyncSession(scratch) as db:
        assert await db.scalar(select(func.count()).select_from(ClubSession)) == 2
        assert ids["night"] == await db.scalar(select(func.max(ClubSession.id)))
        assert (await db.get(Season, ids["season"])) is not None
        unattached = await db.scalar(
            select(func.count()).select_from(Table).where(Table.club_session_id.is_(None))
        )
        assert unattached == 0
        seats = await db.scalar(
            text(
                "SELECT count(*) FROM table_events e JOIN table_seats s USING (table_id) "
                "WHERE e.kind = 'deal_ended'"
            )
        )
        assert (
            ids["luck_rows"] == seats == await db.scalar(select(func.count()).select_from(DealLuck))
        )
        assert ids["luck_rows"] > 0 and ids["cookie"].startswith("prefclub_session=")


def test_a_bad_command_line_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        pages.main(["--reads", "0"])
    assert stop.value.code == 2
    assert "--reads" in capsys.readouterr().err
