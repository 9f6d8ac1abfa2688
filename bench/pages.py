"""The season's pages over HTTP on a big archive (issue 27): p50/p95 of the standings, a
member's page and the night's page, read from a real server.

    python -m bench.pages [--archive-pulkas 10000] [--mondays 40] [--reads 100] [--json]

It builds a fresh database (the embedded PostgreSQL, unless ``DATABASE_URL`` is set): first
``bench.archive_data``'s ``--archive-pulkas`` generated pulkas, backfilled as ``prefclub
migrate`` does, then ``bench.season``'s ``--mondays`` Mondays of bots (each a club session
with its tables), a season over them, and luck rows (docs/luck.md) for every finished club
deal, so the member's page reads as many rows as a club with that archive would have (the
figures are made up: the bench times reads, not the weighing), and ``ANALYZE`` so the planner
has the statistics a lived-in database has. Then it starts ``prefclub serve``
(``PREFCLUB_LUCK=0``, and ``PREFCLUB_BACKUP_KEEP=0``: no automatic backup of the big
database while the pages are read) and, as a logged-in member, reads each page ``--reads``
times after a warm-up, one request at a time, timing each request at the client:

* ``standings_all`` and ``standings_season``: ``GET /api/standings?season=all|<id>``;
* ``member_profile`` and ``member_luck``: ``GET /api/members/<id>/profile|luck`` of the
  member with the most club pulkas (the member's page makes both requests);
* ``night``: ``GET /api/nights/<id>`` of the last Monday.

It also runs ``bench.engine`` for 5 s in the same run (machines differ up to 3×). Writes
``bench/results/pages.json``; with ``--json`` the last line printed is that JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import httpx
from sqlalchemy import func, select, text

from app.bots.harness import ServeProcess, make_member, percentiles
from app.commands.selfplay import free_port
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.migrate import upgrade
from app.db.models import ClubSession, PulkaMemberStats, Season
from bench import archive_data
from bench import engine as engine_bench
from bench import season as season_bench

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "pages.json"
WARM_UP = 5
LUCK_ROWS = text(
    """
    INSERT INTO deal_luck (table_id, deal_no, seat, pulka_id, member_id, ended_at, night,
                           worth, bidding, defence, play, complete, head, version)
    SELECT e.table_id, (e.payload->>'deal_no')::int, ts.seat, p.id, ts.member_id, e.created_at,
           (e.created_at AT TIME ZONE :zone - interval '6 hours')::date,
           round((random() * 80)::numeric, 2), round((random() * 20)::numeric, 2),
           round((random() * 10)::numeric, 2), round((random() * 30)::numeric, 2), true,
           ts.seat = min(ts.seat) OVER (PARTITION BY e.table_id, e.seq), 1
    FROM table_events e
    JOIN tables t ON t.id = e.table_id AND NOT t.practice AND t.mode = 'live'
    JOIN pulkas p ON p.table_id = e.table_id
    JOIN table_seats ts ON ts.table_id = e.table_id
    WHERE e.kind = 'deal_ended'
    ON CONFLICT DO NOTHING
    """
)


def say(text_: str) -> None:
    print(f"[bench.pages] {text_}", file=sys.stderr, flush=True)


async def prepare(url: str, archive: int, mondays: int, seed: int) -> dict[str, Any]:
    """Fill the database; the ids the reads need."""
    eng = make_engine(url)
    try:
        if archive:
            say(f"generating an archive of {archive} pulkas (bench.archive_data)")
            archive_data.generate(
                url.replace("postgresql+psycopg://", "postgresql://"), archive, seed=seed
            )
            say(f"backfilled: {await season_bench.backfilled(eng)}")
        say(f"playing {mondays} Mondays (bench.season)")
        generated = await season_bench.generate(eng, mondays, 20, 16, seed, checkpoints=())
        async with session_scope(make_sessionmaker(eng)) as db:
            first = season_bench.FIRST_MONDAY
            last = season_bench.FIRST_MONDAY.replace(year=first.year + 1)
            season = Season(name="bench", first_day=first, last_day=last)
            db.add(season)
            zone = str(season_bench.standings.club_zone())
            await db.execute(LUCK_ROWS, {"zone": zone})
            luck_rows = await db.scalar(text("SELECT count(*) FROM deal_luck"))
            night = await db.scalar(select(func.max(ClubSession.id)))
            busiest = (
                await db.execute(
                    select(PulkaMemberStats.member_id, func.count().label("n"))
                    .where(PulkaMemberStats.practice.is_(False))
                    .group_by(PulkaMemberStats.member_id)
                    .order_by(text("n DESC"))
                    .limit(1)
                )
            ).first()
            now = datetime.now(UTC)
            viewer = await make_member(db, "bench-pages-viewer", "Зритель", now, bot=False)
            await db.flush()
            season_id = season.id
        async with session_scope(make_sessionmaker(eng)) as db:
            # a club's database that has lived has planner statistics (autovacuum's ANALYZE);
            # millions of rows just copied in have none until it comes round
            await db.execute(text("ANALYZE"))
        assert busiest is not None and night is not None
        return {
            "season": season_id,
            "night": night,
            "member": busiest.member_id,
            "cookie": viewer.cookie,
            "luck_rows": int(luck_rows or 0),
            "mondays_pulkas": generated["pulkas"],
        }
    finally:
        await eng.dispose()


def read(client: httpx.Client, path: str, reads: int) -> dict[str, float]:
    """Milliseconds per request of ``reads`` sequential GETs of ``path`` (after a warm-up)."""
    for _ in range(WARM_UP):
        client.get(path).raise_for_status()
    times = []
    for _ in range(reads):
        began = time.perf_counter()
        client.get(path).raise_for_status()
        times.append((time.perf_counter() - began) * 1000)
    return percentiles(times)


async def run(archive: int, mondays: int, reads: int, seed: int) -> dict[str, Any]:
    from app.config import get_settings
    from app.db.embedded import database_url

    work = pathlib.Path(tempfile.mkdtemp(prefix="prefclub-pages-"))
    began = time.perf_counter()
    try:
        url = database_url(get_settings().database_url, work / "data")
        upgrade(url)
        ids = await prepare(url, archive, mondays, seed)
        server = ServeProcess(url, work / "data", free_port(), log_path=work / "serve.log")
        server.env["PREFCLUB_LUCK"] = "0"
        # no automatic backups: 40 ended sessions would each start one while the pages are read
        server.env["PREFCLUB_BACKUP_KEEP"] = "0"
        await server.start()
        try:
            paths = {
                "standings_all": "/api/standings?season=all",
                "standings_season": f"/api/standings?season={ids['season']}",
                "member_profile": f"/api/members/{ids['member']}/profile",
                "member_luck": f"/api/members/{ids['member']}/luck",
                "night": f"/api/nights/{ids['night']}",
            }
            say(f"reading {len(paths)} pages {reads} times each")
            with httpx.Client(
                base_url=server.origin, headers={"Cookie": ids["cookie"]}, timeout=60
            ) as client:
                times = {name: read(client, path, reads) for name, path in paths.items()}
        finally:
            server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    engine_rate = engine_bench.run(5.0)
    return {
        "benchmark": "pages",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "archive_pulkas": archive,
        "mondays": mondays,
        "mondays_pulkas": ids["mondays_pulkas"],
        "luck_rows": ids["luck_rows"],
        "reads": reads,
        "ms": times,
        "engine_deals_per_second": engine_rate["deals_per_second"],
        "seconds": round(time.perf_counter() - began, 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive-pulkas", type=int, default=10_000)
    parser.add_argument("--mondays", type=int, default=40)
    parser.add_argument("--reads", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.archive_pulkas < 0 or args.mondays < 1 or args.reads < 1:
        parser.error("--archive-pulkas ≥ 0, --mondays and --reads ≥ 1")
    result = asyncio.run(run(args.archive_pulkas, args.mondays, args.reads, args.seed))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for name, figures in result["ms"].items():
        print(f"{name}: p50 {figures['p50']} ms, p95 {figures['p95']} ms")
    print(f"bench.engine: {result['engine_deals_per_second']} deals/s")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
