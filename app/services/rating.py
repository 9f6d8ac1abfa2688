"""The rating (issue 27): OpenSkill's Plackett-Luce model (Weng and Lin, 2011), one match per
finished club pulka of three to five players, everyone for himself, ranked by the pulka's
settlement in whists (equal settlements tie). docs/rating.md says why this model and these
parameters.

:func:`rate_pulka` takes one pulka in, in the transaction that finishes it (after its archive
rows are written); :func:`rebuild` replays every club pulka of the archive in the rating's
order — ``(finished_at, pulka_id)`` — and must come out bit for bit the same (a test compares
``mu`` and ``sigma`` exactly). So the incremental path keeps that order too: under one
advisory lock, a pulka that would not be the last in that order (two pulkas closed in the
same instant in another order, a pulka re-tallied) makes it replay everything instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import delete, exists, insert, select, text, tuple_
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.archive import PulkaMemberStats, PulkaStats
from app.db.models.season import MemberRating, RatedPulka

MODEL = PlackettLuce()
"""The published defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (docs/rating.md)."""
Z = 3
"""The ordinal shown is ``mu - Z * sigma``: a member is ranked by what he is surely worth."""
PLAYERS = (3, 5)
"""Tables rated: three to five players, each for himself."""
LOCK = text("SELECT pg_advisory_xact_lock(hashtext('prefclub.rating'))")


@dataclass(frozen=True, slots=True)
class Rating:
    """A member's rating: ``mu`` (its mean), ``sigma`` (its uncertainty), the pulkas rated,
    and ``ordinal``, ``mu - 3 sigma``: what the standings rank by."""

    mu: float
    sigma: float
    matches: int
    ordinal: float

    @classmethod
    def of(cls, mu: float, sigma: float, matches: int) -> Rating:
        """The rating with its ordinal."""
        return cls(mu, sigma, matches, mu - Z * sigma)


NEW = Rating.of(MODEL.mu, MODEL.sigma, 0)


def ranks_of(whists: Sequence[Decimal]) -> list[int]:
    """Plackett-Luce ranks (1 is best) from settlements: one plus the players who did
    strictly better, so equal settlements share a rank."""
    return [1 + sum(other > mine for other in whists) for mine in whists]


def play(
    ratings: dict[int, Rating], match: Sequence[tuple[int, Decimal]]
) -> dict[int, tuple[int, Rating]]:
    """Rate one match (``(member id, whists)`` per player, in seat order) into ``ratings``;
    each player's rank and new rating. Pure and deterministic."""
    ids = [m for m, _ in match]
    ranks = ranks_of([w for _, w in match])
    teams = [
        [MODEL.rating(mu=ratings.get(m, NEW).mu, sigma=ratings.get(m, NEW).sigma)] for m in ids
    ]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    out: dict[int, tuple[int, Rating]] = {}
    for m, rank, team in zip(ids, ranks, rated, strict=True):
        after = Rating.of(float(team[0].mu), float(team[0].sigma), ratings.get(m, NEW).matches + 1)
        ratings[m] = after
        out[m] = (rank, after)
    return out


def match_of(rows: Iterable[tuple[int, int | None, Decimal]]) -> list[tuple[int, Decimal]] | None:
    """A pulka's match from its member rows ``(member id, seat, whists)``: the players seated
    at its end, in seat order, or ``None`` when the table is not one the rating takes."""
    seated = sorted((seat, mid, whists) for mid, seat, whists in rows if seat is not None)
    if not PLAYERS[0] <= len(seated) <= PLAYERS[1]:
        return None
    return [(mid, whists) for _, mid, whists in seated]


def _result(played: dict[int, tuple[int, Rating]]) -> dict[str, Any]:
    return {str(m): [rank, r.mu, r.sigma] for m, (rank, r) in played.items()}


async def ratings_of(db: AsyncSession, member_ids: Sequence[int]) -> dict[int, Rating]:
    """The stored ratings of these members (those never rated are absent)."""
    rows = await db.scalars(
        select(MemberRating).where(MemberRating.member_id.in_(list(member_ids)))
    )
    return {r.member_id: Rating.of(r.mu, r.sigma, r.matches) for r in rows}


async def _match(db: AsyncSession, pulka_id: int) -> list[tuple[int, Decimal]] | None:
    rows = await db.execute(
        select(PulkaMemberStats.member_id, PulkaMemberStats.seat, PulkaMemberStats.whists).where(
            PulkaMemberStats.pulka_id == pulka_id, PulkaMemberStats.practice.is_(False)
        )
    )
    return match_of([(m, seat, w) for m, seat, w in rows])


async def rate_pulka(db: AsyncSession, pulka_id: int) -> None:
    """Take a just-finished pulka into the rating (its archive rows written already)."""
    await db.execute(LOCK)
    finished_at = await db.scalar(
        select(PulkaStats.finished_at).where(
            PulkaStats.pulka_id == pulka_id, PulkaStats.practice.is_(False)
        )
    )
    if finished_at is None:
        return
    later = await db.scalar(
        select(
            exists().where(
                tuple_(RatedPulka.finished_at, RatedPulka.pulka_id) >= tuple_(finished_at, pulka_id)
            )
        )
    )
    if later:
        await rebuild(db)
        return
    match = await _match(db, pulka_id)
    if match is None:
        return
    ratings = await ratings_of(db, [m for m, _ in match])
    played = play(ratings, match)
    await _store(db, {m: r for m, (_, r) in played.items()})
    await db.execute(
        insert(RatedPulka).values(
            pulka_id=pulka_id, finished_at=finished_at, result=_result(played)
        )
    )


async def _store(db: AsyncSession, ratings: dict[int, Rating]) -> None:
    if not ratings:
        return
    statement = upsert(MemberRating).values(
        [
            {"member_id": m, "mu": r.mu, "sigma": r.sigma, "matches": r.matches}
            for m, r in sorted(ratings.items())
        ]
    )
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=[MemberRating.member_id],
            set_={c: getattr(statement.excluded, c) for c in ("mu", "sigma", "matches")},
        )
    )


async def matches_from_archive(
    db: AsyncSession,
) -> list[tuple[int, datetime, list[tuple[int, Decimal]]]]:
    """Every rated club pulka of the archive in the rating's order, with its match."""
    rows = await db.execute(
        select(
            PulkaStats.pulka_id,
            PulkaStats.finished_at,
            PulkaMemberStats.member_id,
            PulkaMemberStats.seat,
            PulkaMemberStats.whists,
        )
        .join(PulkaMemberStats, PulkaMemberStats.pulka_id == PulkaStats.pulka_id)
        .where(PulkaStats.practice.is_(False))
        .order_by(PulkaStats.finished_at, PulkaStats.pulka_id)
    )
    grouped: dict[int, tuple[datetime, list[tuple[int, int | None, Decimal]]]] = {}
    for pid, finished, mid, seat, whists in rows:
        grouped.setdefault(pid, (finished, []))[1].append((mid, seat, whists))
    out = []
    for pid, (finished, members) in grouped.items():
        match = match_of(members)
        if match is not None:
            out.append((pid, finished, match))
    return out


def replay(
    matches: Iterable[tuple[int, datetime, list[tuple[int, Decimal]]]],
) -> tuple[dict[int, Rating], list[dict[str, Any]]]:
    """Every member's rating after ``matches`` in order, and the ``rated_pulkas`` rows."""
    ratings: dict[int, Rating] = {}
    rows = [
        {"pulka_id": pid, "finished_at": finished, "result": _result(play(ratings, match))}
        for pid, finished, match in matches
    ]
    return ratings, rows


async def rebuild(db: AsyncSession) -> int:
    """Replay the whole archive into the rating (in ``db``'s transaction); pulkas rated."""
    await db.execute(LOCK)
    ratings, rows = replay(await matches_from_archive(db))
    await db.execute(delete(RatedPulka))
    await db.execute(delete(MemberRating))
    await _store(db, ratings)
    if rows:
        await db.execute(insert(RatedPulka), rows)
    return len(rows)


async def stored(db: AsyncSession) -> dict[int, Rating]:
    """Every stored rating (for the rebuild check)."""
    return {
        r.member_id: Rating.of(r.mu, r.sigma, r.matches)
        for r in await db.scalars(select(MemberRating))
    }
