"""Archive benchmark: the archive's endpoints over many finished pulkas.

    python -m bench.archive --pulkas 10000 [--requests 200] [--stats-requests 200] [--json]

Generates ``--pulkas`` finished pulkas (3–4 players, 20–30 deals each, with the events live
tables store, made by the engine: :mod:`bench.archive_data`) in a scratch embedded PostgreSQL,
then times the archive through the real app in-process (httpx's ASGI transport, the app's own
lifespan, a logged-in member): the pulka list (its first page of 200, and a page of 50 after a
random pulka: keyset paging), one pulka, one deal's replay, the club statistics and one
member's statistics. Reports p50/p95/p99 of each (target: p95 < 50 ms), and the
``EXPLAIN (ANALYZE, BUFFERS)`` plans of the queries each endpoint ran. The app runs without
its luck pass (``PREFCLUB_LUCK``), so no analysis of the generated deals shares the machine.

With ``--json`` the last line of stdout is one JSON object; it is also written to
``bench/results/archive.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import secrets
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

import httpx
import psycopg
from sqlalchemy import event

from app.bots.harness import percentiles
from bench import procstat
from bench.archive_data import generate

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "archive.json"
TARGET_P95_MS = 50.0


def say(text: str) -> None:
    print(f"[bench.archive {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


async def _login(url: str) -> str:
    """A member with an open session (the archive needs a login); his Cookie header."""
    from sqlalchemy import func, select

    from app.bots.harness import make_member
    from app.db.engine import make_engine, make_sessionmaker, session_scope

    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = await db.scalar(select(func.now()))
            assert now is not None
            seat = await make_member(db, f"reader-{secrets.token_hex(3)}", "Reader", now, bot=False)
            return seat.cookie
    finally:
        await engine.dispose()


async def _explain(libpq: str, captured: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of each archive query captured (not the login's)."""
    plans = []
    async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as conn:
        for statement, params in captured:
            if not any(name in statement for name in ("table_events", "pulkas", "pulka_")):
                continue  # the login's session lookup
            cur = await conn.execute(f"EXPLAIN (ANALYZE, BUFFERS) {statement}", params)
            plans.append(
                {"query": statement, "plan": "\n".join(row[0] for row in await cur.fetchall())}
            )
    return plans


async def run(
    pulkas: int, requests: int, stats_requests: int, seed: int, keep: pathlib.Path | None = None
) -> dict[str, Any]:
    from app.config import Settings
    from app.db.embedded import database_url
    from app.db.migrate import upgrade
    from app.main import create_app

    work = keep or pathlib.Path(tempfile.mkdtemp(prefix="prefclub-archive-"))
    url = database_url(None, work / "data")
    upgrade(url)
    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    saved = work / "generated.json"
    began = time.perf_counter()
    reused = keep is not None and saved.exists()
    if reused:
        made = json.loads(saved.read_text())
        made["deals"] = {int(k): v for k, v in made["deals"].items()}
        say(f"reusing {made['pulka_count']} generated pulkas in {work}")
    else:
        say(f"generating {pulkas} finished pulkas in {work}")
        made = generate(libpq, pulkas, seed=seed)
        made["pulka_count"] = pulkas
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        made["generate_seconds"] = round(time.perf_counter() - began, 1)
        made["generated_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")  # noqa: UP017
        saved.write_text(json.dumps(made))
    pulkas = made["pulka_count"]
    generate_seconds = made.get("generate_seconds", 0.0)
    with psycopg.connect(libpq, autocommit=True) as conn:
        sizes = conn.execute(
            "SELECT pg_size_pretty(pg_database_size(current_database())), "
            "(SELECT count(*) FROM table_events)"
        ).fetchone()
    assert sizes is not None
    say(f"{made['events']} events in {generate_seconds:.0f} s; database {sizes[0]}")
    cookie = await _login(url)
    settings = Settings(
        DATABASE_URL=url,
        PREFCLUB_DATA_DIR=work / "data",
        SECRET_KEY=secrets.token_urlsafe(48),
        PREFCLUB_ENV="test",
        # No luck pass: it would weigh the generated deals in the analysis pool while the archive
        # is timed (a core busy beside the requests), and the app's end waits for its analysis.
        PREFCLUB_LUCK=False,
    )
    app = create_app(settings)
    rng = random.Random(seed)
    pulka_ids: list[int] = made["pulka_ids"]
    deals_of: dict[int, int] = made["deals"]
    results: dict[str, Any] = {}
    plans: dict[str, list[dict[str, Any]]] = {}
    me = os.getpid()
    at_start = procstat.machine()
    say(f"timing; machine {at_start}")
    async with app.router.lifespan_context(app):
        engine = app.state.engine
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://127.0.0.1:8000",
            headers={"Cookie": cookie},
            timeout=600,
        ) as client:

            def some_pulka() -> int:
                return rng.choice(pulka_ids)

            def some_deal() -> str:
                pid = some_pulka()
                return f"/api/pulkas/{pid}/deals/{rng.randint(1, deals_of[pid])}"

            member = rng.choice(made["member_ids"])
            club = [p["id"] for p in (await client.get("/api/pulkas?limit=500")).json()]

            def deep_page() -> str:
                # keyset paging from anywhere in the club list (the 500 newest are known)
                return f"/api/pulkas?limit=50&before={rng.choice(club)}"

            cases: list[tuple[str, Any, int]] = [
                ("list", lambda: "/api/pulkas", requests),
                ("list_page", deep_page, requests),
                ("pulka", lambda: f"/api/pulkas/{some_pulka()}", requests),
                ("deal_replay", some_deal, requests),
                ("stats", lambda: "/api/stats", stats_requests),
                ("member_stats", lambda: f"/api/members/{member}/stats", stats_requests),
            ]
            for name, path_of, count in cases:
                captured: list[tuple[str, Any]] = []

                def capture(
                    conn: Any,
                    cursor: Any,
                    statement: str,
                    params: Any,
                    *rest: Any,
                    into: list[tuple[str, Any]] = captured,
                ) -> None:
                    into.append((statement, params))

                times: list[float] = []
                cpu: list[float] = []
                waited: list[float] = []
                status_ok = True
                for i in range(count):
                    path = path_of()
                    if i == 0:
                        event.listen(engine.sync_engine, "before_cursor_execute", capture)
                    wait_start = procstat.wait_seconds(me)
                    start = time.perf_counter()
                    cpu_start = time.process_time()
                    response = await client.get(path)
                    cpu.append((time.process_time() - cpu_start) * 1000)
                    times.append((time.perf_counter() - start) * 1000)
                    waited.append((procstat.wait_seconds(me) - wait_start) * 1000)
                    if i == 0:
                        event.remove(engine.sync_engine, "before_cursor_execute", capture)
                    status_ok = status_ok and response.status_code == 200
                results[name] = {
                    "requests": count,
                    "all_ok": status_ok,
                    "latency_ms": percentiles(times),
                    "python_cpu_ms": percentiles(cpu),
                    "waited_for_cpu_ms": percentiles(waited),
                    "meets_target": percentiles(times)["p95"] < TARGET_P95_MS,
                }
                plans[name] = await _explain(libpq, captured)
                say(f"{name}: {results[name]}")
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "benchmark": "archive",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),  # noqa: UP017
        "pulkas": pulkas,
        "events": made["events"],
        "templates": made["templates"],
        "database_size": sizes[0],
        "generate_seconds": generate_seconds,
        "generated_at": made.get("generated_at"),
        "reused_generation": reused,
        "target_p95_ms": TARGET_P95_MS,
        "endpoints": results,
        "plans": plans,
        "machine_at_start": at_start,
        "machine": procstat.machine(),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulkas", type=int, default=10000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--stats-requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS)
    parser.add_argument(
        "--keep",
        type=pathlib.Path,
        default=None,
        help="generate into (and keep) this folder; reuse it if already there",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.pulkas < 1 or args.requests < 1 or args.stats_requests < 1:
        parser.error("--pulkas, --requests and --stats-requests must be positive")
    result = asyncio.run(run(args.pulkas, args.requests, args.stats_requests, args.seed, args.keep))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for name, r in result["endpoints"].items():
        lat = r["latency_ms"]
        print(
            f"{name}: p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms "
            f"({r['requests']} requests{'' if r['all_ok'] else ', SOME FAILED'})"
        )
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
