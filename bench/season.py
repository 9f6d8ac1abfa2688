"""Season backtest (issue 27): generated Mondays of bots of known strength, their standings
and rating kept as each pulka closes, rebuilt from the archive, and how well each orders the
players by true strength.

    python -m bench.season [--mondays 40] [--deals 20] [--players 16] [--seed 1]
                           [--archive-pulkas 10000] [--json]

A pool of ``--players`` members, a quarter at each of four known strengths: the house bots'
``beginner`` strategy (:class:`app.bots.strategy.Strategy`) that plays a uniformly random
legal move instead of its own with probability 0, 0.03, 0.06 or 0.1 (the searching levels,
``club`` and ``strong``, think for a quarter of a second and more per card: 40 Mondays of
them would take hours on two cores). Each Monday every member comes with probability 0.85;
those present sit at tables of three or four (3–4 tables), and each table plays a pulka of
``--deals`` deals through the engine (:mod:`app.realtime.game`, as live tables and
:mod:`bench.archive_data` do), closed by agreement. Each finished pulka is written as a live
table writes it and then passed, in its own transaction, to the code a live table runs when its
pulka ends: :func:`app.services.pulka_stats.record` (archive rows and the standings' nights)
and :func:`app.services.rating.rate_pulka`.

After Mondays 10, 20 and 40 it reports Kendall's tau-b between the true strength and (a) the
rating's ordinal (and its ``mu`` alone), (b) whists per pulka (all-time). At the end it checks
that the standings' nights and the ratings rebuilt from the archive equal the incremental
ones, exactly, and times the all-time standings read. ``--archive-pulkas N`` first fills the
database with the archive benchmark's ``N`` generated pulkas and backfills them as ``prefclub
migrate`` does, so the read is timed over both. Writes
``bench/results/season.json``; with ``--json`` the last line printed is that JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from decimal import Decimal
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from app.bots.strategy import Strategy
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.migrate import upgrade
from app.db.models import ClubSession, Member, Role, Table, TableEvent, TableSeat
from app.db.models import Pulka as PulkaRow
from app.rules import Conventions, Pulka
from app.services import pulka_stats, rating, standings
from bench import archive_data
from bench.archive_data import play_events

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "season.json"
BLUNDERS = (0.0, 0.03, 0.06, 0.1)
"""The four strengths: how often a player's move is a random legal one (strongest first)."""
PRESENT = 0.85
CHECKPOINTS = (10, 20, 40)
FIRST_MONDAY = date(2026, 9, 7)
STAKE = Decimal("0.50")
SPECIAL = ("concede", "return_talon", "claim", "propose_result")


def say(text: str) -> None:
    print(f"[bench.season {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class Blunderer(Strategy):
    """The beginner bot, which plays a random ordinary legal move with probability ``rate``."""

    def __init__(self, rng: random.Random, rate: float) -> None:
        super().__init__(rng)
        self.rate = rate
        self.dice = rng

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int
    ) -> dict[str, Any] | None:
        plain = [o for o in legal if o["type"] not in SPECIAL]
        if plain and self.dice.random() < self.rate:
            return dict(self.dice.choice(plain))
        return super().choose(view, legal, seat)


@dataclass(frozen=True)
class Player:
    """A generated member and his true strength (0 is the strongest)."""

    member_id: int
    name: str
    level: int


@dataclass
class Played:
    """One pulka played in memory: its events and its end."""

    events: list[tuple[str, dict[str, Any]]]
    pulka: Pulka
    end: dict[str, Any]
    first_dealer: int


def play_pulka(rng: random.Random, seated: Sequence[Player], deals: int) -> Played:
    """``deals`` deals of a fresh club pulka, each seat played by its player's strategy."""
    names = [p.name for p in seated]
    first = rng.randrange(len(seated))
    pulka = Pulka.new(
        len(seated),
        names=names,
        conventions=Conventions.preset_named("club"),
        target=500,
        stake=STAKE,
        first_dealer=first,
    )
    bots: list[Strategy] = [
        Blunderer(random.Random(rng.random()), BLUNDERS[p.level]) for p in seated
    ]
    raw, state = play_events(rng, pulka, names, [p.member_id for p in seated], bots, deals)
    return Played(raw, state.pulka, raw[-1][1], first)


async def make_players(eng: AsyncEngine, count: int, tag: str) -> list[Player]:
    """``count`` members, strengths dealt in turn (so each strength has a quarter)."""
    async with session_scope(make_sessionmaker(eng)) as db:
        made = []
        for i in range(count):
            level = i % len(BLUNDERS)
            member = Member(
                login=f"season-{tag}-{i}",
                display_name=f"L{level} #{i}",
                role=Role.member,
                is_bot=False,
                active=True,
            )
            db.add(member)
            await db.flush()
            made.append(Player(member.id, member.display_name, level))
    return made


async def store_pulka(
    eng: AsyncEngine,
    seated: Sequence[Player],
    played: Played,
    began: datetime,
    finished: datetime,
    club_session_id: int | None = None,
) -> int:
    """Write the pulka as a live table leaves it, then run what a live table runs when its
    pulka ends (archive rows, standings, rating), in one transaction; the pulka's id."""
    async with session_scope(make_sessionmaker(eng)) as db:
        table = Table(
            club_session_id=club_session_id,
            practice=False,
            preset="club",
            conventions=Conventions.preset_named("club").to_mapping(),
            target=500,
            stake=STAKE,
            players=len(seated),
            first_dealer=played.first_dealer,
            version=len(played.events),
            status="finished",
            finished_at=finished,
            created_at=began,
        )
        db.add(table)
        await db.flush()
        db.add_all(
            [
                TableSeat(table_id=table.id, seat=s, member_id=p.member_id)
                for s, p in enumerate(seated)
            ]
        )
        row = PulkaRow(
            table_id=table.id,
            status="finished",
            ended=str(played.pulka.ended),
            deals=played.pulka.deal_index,
            state=played.pulka.to_json(),
            sheet=played.end["sheet"],
            record=played.end["record"],
            settlement=played.end["settlement"],
            finished_at=finished,
            created_at=began,
        )
        db.add(row)
        await db.flush()
        await db.execute(
            insert(TableEvent),
            [
                {
                    "table_id": table.id,
                    "seq": seq,
                    "kind": kind,
                    "payload": payload,
                    "created_at": began,
                }
                for seq, (kind, payload) in enumerate(played.events, start=1)
            ],
        )
        await pulka_stats.record(
            db,
            pulka_id=row.id,
            table_id=table.id,
            practice=False,
            finished_at=finished,
            started_at=began,
            settlement=played.end["settlement"],
            pulka=played.pulka,
        )
        await rating.rate_pulka(db, row.id)
        return row.id


def table_sizes(present: int) -> list[int]:
    """Tables of three or four for ``present`` players (none left over, ``present`` ≥ 3;
    five make one table of five)."""
    tables = -(-present // 4)
    while tables * 3 > present:
        tables -= 1
    sizes = [3] * tables
    for i in range(present - 3 * tables):
        sizes[i % tables] += 1
    return sizes


def kendall_tau_b(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b of two paired lists (ties in either count as neither)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs_x = concordant + discordant + ties_y
    pairs_y = concordant + discordant + ties_x
    if pairs_x == 0 or pairs_y == 0:
        return 0.0
    return float((concordant - discordant) / (pairs_x * pairs_y) ** 0.5)


async def measure(eng: AsyncEngine, players: Sequence[Player], mondays: int) -> dict[str, Any]:
    """Kendall's tau-b of true strength against the rating and whists per pulka now."""
    async with session_scope(make_sessionmaker(eng)) as db:
        board = await standings.standings(db, None)
    by_id = {line.member_id: line for line in board.lines}
    seen = [p for p in players if p.member_id in by_id and by_id[p.member_id].pulkas]
    truth = [-float(p.level) for p in seen]
    rated = {p.member_id: by_id[p.member_id].rating for p in seen}
    ordinal = [r.ordinal if (r := rated[p.member_id]) is not None else 0.0 for p in seen]
    mu = [r.mu if (r := rated[p.member_id]) is not None else 0.0 for p in seen]
    whists = [float(by_id[p.member_id].whists / by_id[p.member_id].pulkas) for p in seen]
    return {
        "mondays": mondays,
        "players": len(seen),
        "pulkas": sum(by_id[p.member_id].pulkas for p in seen),
        "tau_rating": round(kendall_tau_b(truth, ordinal), 3),
        "tau_rating_mu": round(kendall_tau_b(truth, mu), 3),
        "tau_whists_per_pulka": round(kendall_tau_b(truth, whists), 3),
    }


async def standings_ms(eng: AsyncEngine, reads: int = 100) -> dict[str, float]:
    """Milliseconds of one all-time standings read (the service, as the endpoint calls it)."""
    times = []
    for _ in range(reads):
        async with session_scope(make_sessionmaker(eng)) as db:
            began = time.perf_counter()
            await standings.standings(db, None)
            times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return {
        "p50": round(times[len(times) // 2], 2),
        "p95": round(times[int(len(times) * 0.95) - 1], 2),
    }


async def rebuild_check(eng: AsyncEngine) -> dict[str, Any]:
    """Whether the nights and ratings rebuilt from the archive equal the incremental ones."""
    async with session_scope(make_sessionmaker(eng)) as db:
        nights = await standings.stored_nights(db) == await standings.nights_from_archive(db)
        began = time.perf_counter()
        replayed, _ = rating.replay(await rating.matches_from_archive(db))
        seconds = time.perf_counter() - began
        ratings = await rating.stored(db) == replayed
    return {
        "nights_equal": nights,
        "ratings_equal": ratings,
        "rating_replay_seconds": round(seconds, 3),
    }


async def monday_session(eng: AsyncEngine, day: date) -> int:
    """The club session of one Monday, 19:00 to 23:00 local, ended: its id."""
    zone = standings.club_zone()
    starts = datetime.combine(day, clock_time(19, 0), tzinfo=zone).astimezone(UTC)
    async with session_scope(make_sessionmaker(eng)) as db:
        row = ClubSession(
            starts_at=starts,
            ends_at=starts + timedelta(hours=4),
            ended_at=starts + timedelta(hours=4),
        )
        db.add(row)
        await db.flush()
        return row.id


async def generate(
    eng: AsyncEngine,
    mondays: int,
    deals: int,
    players: int,
    seed: int,
    checkpoints: Sequence[int] = CHECKPOINTS,
) -> dict[str, Any]:
    """Generate ``mondays`` Mondays in ``eng``'s database, each a club session with its
    tables; the checkpoints' taus and the rebuild check."""
    rng = random.Random(seed)
    pool = await make_players(eng, players, f"{seed}-{rng.randrange(10**6)}")
    zone = standings.club_zone()
    figures, pulkas = [], 0
    for week in range(mondays):
        day = FIRST_MONDAY + timedelta(weeks=week)
        present = [p for p in pool if rng.random() < PRESENT]
        if len(present) < 3:
            present = pool[:3]
        rng.shuffle(present)
        session_id = await monday_session(eng, day)
        start = 0
        for n, size in enumerate(table_sizes(len(present))):
            seated = present[start : start + size]
            start += size
            began = datetime.combine(day, clock_time(19, 0), tzinfo=zone).astimezone(UTC)
            finished = began + timedelta(hours=3, minutes=n)
            await store_pulka(
                eng, seated, play_pulka(rng, seated, deals), began, finished, session_id
            )
            pulkas += 1
        if week + 1 in checkpoints:
            figures.append(await measure(eng, pool, week + 1))
            say(f"after {week + 1} Mondays ({pulkas} pulkas): {figures[-1]}")
    return {
        "mondays": mondays,
        "deals_per_pulka": deals,
        "players": players,
        "seed": seed,
        "blunder_rates": list(BLUNDERS),
        "pulkas": pulkas,
        "checkpoints": figures,
        "rebuild": await rebuild_check(eng),
        "standings_ms": await standings_ms(eng),
    }


async def backfilled(eng: AsyncEngine) -> bool:
    """What ``prefclub migrate`` does after the upgrade to 0018 on a club with an archive."""
    async with session_scope(make_sessionmaker(eng)) as db:
        return await standings.backfill(db)


async def run(
    mondays: int, deals: int, players: int, seed: int, archive: int = 0
) -> dict[str, Any]:
    from app.db.embedded import database_url  # optional embedded server, as bench.archive

    work = pathlib.Path(tempfile.mkdtemp(prefix="prefclub-season-"))
    url = database_url(None, work / "data")
    upgrade(url)
    eng = make_engine(url)
    began = time.perf_counter()
    try:
        if archive:
            say(f"generating an archive of {archive} pulkas first (bench.archive_data)")
            archive_data.generate(
                url.replace("postgresql+psycopg://", "postgresql://"), archive, seed=seed
            )
            say(f"archive backfilled into the standings and ratings: {await backfilled(eng)}")
        result = await generate(eng, mondays, deals, players, seed)
    finally:
        await eng.dispose()
        shutil.rmtree(work, ignore_errors=True)
    return {
        "benchmark": "season",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "archive_pulkas": archive,
        "seconds": round(time.perf_counter() - began, 1),
        **result,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mondays", type=int, default=40)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--archive-pulkas",
        type=int,
        default=0,
        help="first generate this many archive pulkas (bench.archive_data)",
    )
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.mondays < 1 or args.deals < 1 or args.players < 9:
        parser.error("--mondays and --deals must be positive, --players at least 9")
    result = asyncio.run(
        run(args.mondays, args.deals, args.players, args.seed, args.archive_pulkas)
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for c in result["checkpoints"]:
        print(
            f"after {c['mondays']} Mondays: tau(rating) {c['tau_rating']}, "
            f"tau(whists per pulka) {c['tau_whists_per_pulka']}"
        )
    print(f"rebuild: {result['rebuild']}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
