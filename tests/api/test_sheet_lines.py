"""The table page's balance "if the pulka were closed now" (R-P4, R-P9): the sheet-lines API
settles the pulka as it stands under the table's own closing, and names that closing, so the
page never applies the club's rule to a table of another preset."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from fractions import Fraction

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member
from app.services.tables import create_table
from tests.api.conftest import LoggedIn
from tests.support.archive_play import play_deal


def _closed_now_double(sheet: dict[str, list], target: int) -> list[Fraction]:
    """R-P4 with the club's R-P9 by hand: hills corrected by twice each pool's distance from the
    target, ten whists a hill point against the mean, plus the whists written, net."""
    n = len(sheet["pool"])
    hills = [
        Fraction(str(sheet["hill"][i])) + 2 * (target - Fraction(str(sheet["pool"][i])))
        for i in range(n)
    ]
    mean = sum(hills) / n
    whists = [[Fraction(str(w)) for w in row] for row in sheet["whists"]]
    return [
        10 * (mean - hills[i]) + sum(whists[i][j] - whists[j][i] for j in range(n))
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("preset", "closing"),
    [("club", "double"), ("sochi", "help"), ("classic", "once"), ("arabic", "help")],
)
async def test_the_balance_is_settled_by_the_tables_own_closing(
    preset: str,
    closing: str,
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    seated = [await make_member(name=n) for n in ("Анна", "Борис", "Вера")]
    ids = [m.id for m in seated]
    table = await create_table(
        db_session,
        seat_member_ids=ids,
        practice=True,
        target=10,
        first_dealer=0,
        now=clock.now(),
        preset=preset,
    )
    for k in range(3):
        await play_deal(db_session, table.id, ids, clock.now(), prefix=f"d{k}-")
    viewer, _ = await logged_in()
    answer = await viewer.get(f"/api/ui/tables/{table.id}/sheet-lines")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["closing"] == closing
    balance = [Decimal(b) for b in body["balance"]]
    assert len(balance) == 3 and abs(sum(balance)) <= Decimal("0.02"), "exact results sum to 0"
    if closing == "double":
        by_hand = _closed_now_double(body["sheet"], body["target"])
        assert balance == [round(Decimal(x.numerator) / Decimal(x.denominator), 2) for x in by_hand]
