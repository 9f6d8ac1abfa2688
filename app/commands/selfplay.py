"""``prefclub selfplay``: bots play whole deals at several tables of a real server.

It starts ``prefclub serve`` on a free port (over an embedded PostgreSQL in a fresh folder unless
``DATABASE_URL`` is set), creates bot members and practice tables, connects one bot client per
seat over real websockets, and plays ``deals`` deals at every table (the pulka target is set high
enough for them to fit). Then each pulka is closed by agreement, exported as ``pulka/1``, rescored
with ``prefclub score``'s code and compared with the live sheet and settlement the server kept,
and with a fresh replay of the table's event log.

With ``--json`` the last line printed is one JSON object: ``deals``, ``commands``, ``errors``,
``latency_ms`` (``ack`` and ``all_seats`` percentiles) and ``tables`` (``pulka_id``, ``export``,
``rescore_matched``). The exit status is 0 only when every table finished its deals and every
rescore matched.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import socket
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.bots.client import BotClient
from app.bots.harness import ServeProcess, make_bot_table, summary_latency
from app.bots.strategy import Strategy
from app.commands.score import run_score
from app.config import get_settings
from app.db.embedded import database_url
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.migrate import upgrade
from app.realtime.store import rebuild
from app.rules import PRESET_NAMES, TABLE_SIZES, Conventions
from app.services.pulkas import close_pulka


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _setup(
    url: str, tables: int, players: int, deals: int, preset: str, run: str
) -> list[tuple[int, list[Any]]]:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = await db.scalar(select(func.now()))
            assert now is not None
            out = []
            for t in range(tables):
                out.append(
                    await make_bot_table(
                        db,
                        f"selfplay-{run}-t{t}",
                        players,
                        now,
                        preset=preset,
                        target=10 * deals + 10,
                        first_dealer=t % players,
                    )
                )
            return out
    finally:
        await engine.dispose()


async def _finish(
    url: str, table_ids: list[int], out_dir: Path, deals: int
) -> list[dict[str, Any]]:
    engine = make_engine(url)
    results = []
    try:
        for table_id in table_ids:
            async with session_scope(make_sessionmaker(engine)) as db:
                row = await close_pulka(db, table_id, "agreement")
            assert row is not None
            async with make_sessionmaker(engine)() as db:
                replayed = await rebuild(db, table_id)
            path = out_dir / f"pulka-{row.id}.json"
            path.write_text(json.dumps(row.record, ensure_ascii=False, indent=2) + "\n")
            buffer = io.StringIO()
            code = run_score(str(path), buffer, io.StringIO())
            scored = json.loads(buffer.getvalue()) if code == 0 else {}
            matched = (
                code == 0
                and scored.get("sheet") == row.sheet
                and scored.get("settlement") == row.settlement
                and replayed is not None
                and replayed.pulka.sheet.to_json() == row.sheet
                and row.deals == deals
            )
            results.append(
                {
                    "pulka_id": row.id,
                    "table_id": table_id,
                    "export": str(path),
                    "deals": row.deals,
                    "rescore_matched": bool(matched),
                }
            )
    finally:
        await engine.dispose()
    return results


async def selfplay(
    tables: int,
    players: int,
    deals: int,
    preset: str = "club",
    out_dir: Path | None = None,
    timeout: float = 600.0,
    log: Any = None,
) -> tuple[dict[str, Any], bool]:
    """Run the bots; return the summary and whether everything finished and matched."""

    def say(text: str) -> None:
        if log is not None:
            print(text, file=log, flush=True)

    settings = get_settings()
    work = Path(tempfile.mkdtemp(prefix="prefclub-selfplay-"))
    out_dir = out_dir or work / "exports"
    out_dir.mkdir(parents=True, exist_ok=True)
    url = database_url(settings.database_url, work / "data")
    upgrade(url)
    run = uuid.uuid4().hex[:8]
    made = await _setup(url, tables, players, deals, preset, run)
    server = ServeProcess(url, work / "data", free_port(), log_path=work / "serve.log")
    say(
        f"selfplay: {tables} tables x {players} players, {deals} deals; server on port "
        f"{server.port}, log {server.log_path}"
    )
    await server.start()
    started = time.perf_counter()
    groups: list[list[BotClient]] = []
    try:
        for table_id, seats in made:
            group = []
            for index, seat in enumerate(seats):
                group.append(
                    BotClient(
                        server.ws_base,
                        table_id,
                        seat.cookie,
                        server.origin,
                        strategy=Strategy(random.Random(f"{run}-{table_id}-{index}")),
                        max_deals=deals,
                        name=f"t{table_id}s{index}",
                    )
                )
            groups.append(group)
        bots = [b for g in groups for b in g]
        runs = [asyncio.create_task(b.run()) for b in bots]
        done_ok = True
        try:
            await asyncio.wait_for(asyncio.gather(*(b.finished.wait() for b in bots)), timeout)
        except TimeoutError:
            done_ok = False
        for b in bots:
            b.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        elapsed = time.perf_counter() - started
    finally:
        server.stop()
    results = await _finish(url, [t for t, _ in made], out_dir, deals)
    summary = {
        "deals": sum(r["deals"] for r in results),
        "commands": sum(b.stats.commands for b in bots),
        "errors": sum(b.stats.errors for b in bots),
        "error_codes": _codes(bots),
        "latency_ms": summary_latency(bots, groups),
        "seconds": round(elapsed, 2),
        "tables": [
            {
                "pulka_id": r["pulka_id"],
                "export": r["export"],
                "rescore_matched": r["rescore_matched"],
            }
            for r in results
        ],
    }
    ok = done_ok and all(r["rescore_matched"] for r in results)
    return summary, ok


def run_selfplay(
    tables: int, players: int, deals: int, preset: str, as_json: bool, out_dir: Path | None = None
) -> int:
    """The CLI entry point: prints progress (and the JSON summary last); returns the exit code."""
    if players not in TABLE_SIZES or tables < 1 or deals < 1:
        print(
            "error: --players must be 3, 4 or 5, --tables and --deals at least 1", file=sys.stderr
        )
        return 2
    if preset not in PRESET_NAMES:
        print(f"error: --preset must be one of {', '.join(PRESET_NAMES)}", file=sys.stderr)
        return 2
    sizes = Conventions.preset_named(preset).table_sizes()
    if players not in sizes:
        print(
            f"error: the {preset} preset is played by {' or '.join(map(str, sizes))} players",
            file=sys.stderr,
        )
        return 2
    summary, ok = asyncio.run(selfplay(tables, players, deals, preset, out_dir, log=sys.stderr))
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(
            f"deals played: {summary['deals']}, commands: {summary['commands']}, "
            f"errors: {summary['errors']}"
        )
        print(f"latency ms: {summary['latency_ms']}")
        for table in summary["tables"]:
            print(
                f"pulka {table['pulka_id']}: {table['export']} rescore "
                f"{'matched' if table['rescore_matched'] else 'DIFFERS'}"
            )
    return 0 if ok else 1


def _codes(bots: list[Any]) -> dict[str, int]:
    """Every error code the bots were sent, summed (a non-zero count says which refusals)."""
    out: dict[str, int] = {}
    for bot in bots:
        for code, n in bot.stats.error_codes.items():
            out[code] = out.get(code, 0) + n
    return out
