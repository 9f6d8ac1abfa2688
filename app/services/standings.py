"""Standings (issue 27): members ranked per season and all-time by the club's measures —
whists and money per pulka, pulkas played, nights present — with the club's minimum of
pulkas to qualify, and the rating beside them.

What they are summed from is ``member_nights``: one row per member and club night (the local
date, in the club's time zone, on which the pulka finished, :func:`night_of`) with the sums of
his finished club pulkas' archive rows that night. :func:`add_rows` keeps it, called by
:func:`app.services.pulka_stats.record` in the transaction that finishes a pulka, beside the
members' totals; :func:`rebuild` writes it again from the archive (``pulka_member_stats``)
and must give the same rows (a test compares them). A season's standings are then one
``GROUP BY`` over the nights in its days; the all-time ones over all of them. Practice
tables never count. A pulka a member left before its end counts his deals, whists, money and
night, but not as a pulka played (as in the club's statistics).

Money and whists stay exact: sums are ``Numeric``; per-pulka figures are rounded half-even
for display only (money to the kopeck, whists to a tenth), while ranking compares the exact
fractions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import get_settings
from app.db.models.archive import PulkaMemberStats
from app.db.models.member import Member
from app.db.models.season import MemberNight, Season
from app.services import rating
from app.services.club_settings import club_settings
from app.services.rating import Rating

Order = Literal["whists", "money", "pulkas", "nights", "rating"]
ORDERS: tuple[str, ...] = get_args(Order)
SUMS = ("entries", "pulkas", "deals", "whists", "money")
ROLLOVER = timedelta(hours=6)
"""A club night runs past midnight: what finishes before 06:00 belongs to the evening."""
KOPECK = Decimal("0.01")
TENTH = Decimal("0.1")


def club_zone() -> ZoneInfo:
    """The club's time zone (``CLUB_TZ``): a night is a local date."""
    return get_settings().zone


def night_of(
    finished_at: datetime | None, started_at: datetime, zone: ZoneInfo | None = None
) -> date:
    """The club night a pulka belongs to: the local date it finished on, a pulka finished
    before 06:00 counting for the evening before (:data:`ROLLOVER`); rows older than the
    ``finished_at`` column fall back to the time its table opened."""
    moment = finished_at if finished_at is not None else started_at
    return (moment.astimezone(zone or club_zone()) - ROLLOVER).date()


def _night_delta(
    rows: Iterable[Mapping[str, Any]],
    sign: int,
    zone: ZoneInfo,
    into: dict[tuple[int, date], dict[str, Any]],
) -> None:
    for r in rows:
        key = (r["member_id"], night_of(r["finished_at"], r["started_at"], zone))
        d = into.setdefault(key, {c: 0 for c in SUMS})
        d["entries"] += sign
        d["pulkas"] += sign * (r["seat"] is not None)
        d["deals"] += sign * r["deals"]
        d["whists"] += sign * r["whists"]
        d["money"] += sign * r["money"]


async def add_rows(
    db: AsyncSession, added: Sequence[Mapping[str, Any]], taken_off: Sequence[Mapping[str, Any]]
) -> None:
    """Add a finished club pulka's member rows to their nights (and take off rows written
    before for it), in ``db``'s transaction, member by member in key order (two pulkas
    finishing at once wait for each other, never deadlock). Each row needs ``member_id``,
    ``finished_at``, ``started_at``, ``seat``, ``deals``, ``whists`` and ``money``."""
    zone = club_zone()
    delta: dict[tuple[int, date], dict[str, Any]] = {}
    _night_delta(added, 1, zone, delta)
    _night_delta(taken_off, -1, zone, delta)
    if not delta:
        return
    statement = upsert(MemberNight).values(
        [{"member_id": mid, "night": night, **delta[(mid, night)]} for mid, night in sorted(delta)]
    )
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=[MemberNight.member_id, MemberNight.night],
            set_={c: getattr(MemberNight, c) + getattr(statement.excluded, c) for c in SUMS},
        )
    )
    if taken_off:
        await db.execute(delete(MemberNight).where(MemberNight.entries <= 0))


async def nights_from_archive(db: AsyncSession) -> dict[tuple[int, date], dict[str, Any]]:
    """Every member's nights summed again from the archive's club rows."""
    columns = (
        PulkaMemberStats.member_id,
        PulkaMemberStats.finished_at,
        PulkaMemberStats.started_at,
        PulkaMemberStats.seat,
        PulkaMemberStats.deals,
        PulkaMemberStats.whists,
        PulkaMemberStats.money,
    )
    rows = await db.execute(select(*columns).where(PulkaMemberStats.practice.is_(False)))
    nights: dict[tuple[int, date], dict[str, Any]] = {}
    _night_delta((dict(r._mapping) for r in rows), 1, club_zone(), nights)
    return nights


async def stored_nights(db: AsyncSession) -> dict[tuple[int, date], dict[str, Any]]:
    """The ``member_nights`` rows as :func:`nights_from_archive` gives them."""
    rows = await db.scalars(select(MemberNight))
    return {(r.member_id, r.night): {c: getattr(r, c) for c in SUMS} for r in rows}


async def rebuild(db: AsyncSession) -> int:
    """Write ``member_nights`` again from the archive (in ``db``'s transaction); the rows
    written."""
    nights = await nights_from_archive(db)
    await db.execute(delete(MemberNight))
    if nights:
        await db.execute(
            insert(MemberNight),
            [
                {"member_id": mid, "night": night, **nights[(mid, night)]}
                for mid, night in sorted(nights)
            ],
        )
    return len(nights)


async def backfill(db: AsyncSession) -> bool:
    """After migration 0018 on a club with an archive: when no night and no rating is stored
    yet but club pulkas are, rebuild both from the archive (``prefclub migrate`` and
    ``prefclub serve`` call it; cheap when there is nothing to do). Whether it rebuilt."""
    if await db.scalar(select(MemberNight.member_id).limit(1)) is not None:
        return False
    if (
        await db.scalar(
            select(PulkaMemberStats.pulka_id).where(PulkaMemberStats.practice.is_(False)).limit(1)
        )
        is None
    ):
        return False
    await rebuild(db)
    await rating.rebuild(db)
    return True


@dataclass(frozen=True, slots=True)
class Standing:
    """One member's line in the standings; ``rank`` is ``None`` below the minimum."""

    member_id: int
    name: str
    rank: int | None
    qualified: bool
    pulkas: int
    nights: int
    deals: int
    whists: Decimal
    money: Decimal
    whists_per_pulka: Decimal | None
    money_per_pulka: Decimal | None
    rating: Rating | None


@dataclass(frozen=True, slots=True)
class Board:
    """The standings of a season (``season`` ``None``: all-time)."""

    season: Season | None
    min_pulkas: int
    order: str
    lines: list[Standing]


def _per(total: Decimal, pulkas: int) -> Fraction | None:
    return Fraction(total) / pulkas if pulkas else None


def _shown(value: Fraction | None, step: Decimal) -> Decimal | None:
    if value is None:
        return None
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(step, rounding=ROUND_HALF_EVEN)


def _key(order: str, sums: Mapping[str, Any], rated: Rating | None) -> Fraction | float:
    """The measure ``order`` ranks by (higher is better; none sorts last)."""
    if order == "whists":
        return _per(sums["whists"], sums["pulkas"]) or Fraction(0)
    if order == "money":
        return _per(sums["money"], sums["pulkas"]) or Fraction(0)
    if order == "rating":
        return rated.ordinal if rated is not None else float("-inf")
    return Fraction(sums[order])


async def standings(db: AsyncSession, season: Season | None, order: str = "whists") -> Board:
    """The standings of ``season`` (``None``: all-time), ranked by ``order`` (one of
    :data:`ORDERS`) among those with at least the club's minimum of pulkas; equal measures
    share a rank (1, 2, 2, 4). The unqualified follow, unranked, by the same measure."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    query = select(
        MemberNight.member_id,
        func.count().label("nights"),
        *(func.sum(getattr(MemberNight, c)).label(c) for c in SUMS[1:]),
    ).group_by(MemberNight.member_id)
    if season is not None:
        query = query.where(MemberNight.night.between(season.first_day, season.last_day))
    sums = {r.member_id: dict(r._mapping) for r in await db.execute(query)}
    names = {
        mid: name
        for mid, name in await db.execute(
            select(Member.id, Member.display_name).where(Member.id.in_(list(sums)))
        )
    }
    ratings = await rating.ratings_of(db, list(sums))
    minimum = (await club_settings(db)).min_pulkas
    keyed = sorted(
        sums, key=lambda m: (sums[m]["pulkas"] < minimum, -_key(order, sums[m], ratings.get(m)), m)
    )
    lines: list[Standing] = []
    previous: tuple[Any, int] | None = None
    for place, mid in enumerate(keyed, start=1):
        s = sums[mid]
        qualified = s["pulkas"] >= minimum
        measure = _key(order, s, ratings.get(mid))
        rank = None
        if qualified:
            rank = previous[1] if previous is not None and previous[0] == measure else place
            previous = (measure, rank)
        lines.append(
            Standing(
                member_id=mid,
                name=names.get(mid, f"#{mid}"),
                rank=rank,
                qualified=qualified,
                pulkas=int(s["pulkas"]),
                nights=int(s["nights"]),
                deals=int(s["deals"]),
                whists=Decimal(s["whists"]),
                money=Decimal(s["money"]),
                whists_per_pulka=_shown(_per(s["whists"], s["pulkas"]), TENTH),
                money_per_pulka=_shown(_per(s["money"], s["pulkas"]), KOPECK),
                rating=ratings.get(mid),
            )
        )
    return Board(season=season, min_pulkas=minimum, order=order, lines=lines)
