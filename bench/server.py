"""Server load benchmark: T tables of external bot sockets against real ``prefclub serve``.

    python -m bench.server --pace human --tables 1000 --duration 60 [--processes 2] --json

It starts the club as ``make run`` does (``prefclub serve``: uvicorn, the embedded PostgreSQL,
here in a fresh temporary folder), creates T practice tables of three bot members (through the
project's services, as ``prefclub selfplay`` does), and connects one external websocket client
per seat (:mod:`bench.load`: one asyncio loop per client process, ``--client-processes``). For
``--duration`` seconds the seat to act at every table sends its command, at *human* pace (after
a uniform 1.5–2.5 s think) or at *max* pace (as soon as its ack comes). It reports committed
commands per second, command → ack and command → every seat percentiles, errors, the CPU % of
the server processes, of PostgreSQL and of the load generator, the servers' RSS (peak, and the
growth per table and per socket).

In the same run it measures the baselines (:mod:`bench.baselines`): a bare websocket echo on
uvicorn (and on the ``websockets`` server), PostgreSQL's durable single-row commit rate from one
client and from N, and prints our figures as ratios to them.

With ``--processes 2`` two server processes share the one database, and the seats of each table
are spread over them (seat i of table t talks to process (t + i) mod 2), so every command reaches
the other seats through PostgreSQL's NOTIFY.

With ``--json`` the last line of stdout is one JSON object; it is also written to
``bench/results/server-<pace>[-p<processes>]-t<tables>.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import pathlib
import platform
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

from app.bots.harness import ServeProcess, make_bot_table, percentiles
from app.commands.selfplay import free_port
from bench import baselines, procstat
from bench.load import WorkerSpec, worker

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
IDLE_SECONDS = 5.0
"""How long the server's CPU is measured with every socket connected and nobody playing."""


def say(text: str) -> None:
    print(f"[bench.server {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


async def create_tables(url: str, tables: int, run: str) -> list[tuple[int, list[str]]]:
    """T practice tables of three fresh bot members with open sessions: (id, cookies)."""
    from sqlalchemy import func, select

    from app.db.engine import make_engine, make_sessionmaker, session_scope

    engine = make_engine(url)
    out: list[tuple[int, list[str]]] = []
    try:
        maker = make_sessionmaker(engine)
        for batch in range(0, tables, 100):
            async with session_scope(maker) as db:
                now = await db.scalar(select(func.now()))
                assert now is not None
                for t in range(batch, min(tables, batch + 100)):
                    table_id, seats = await make_bot_table(
                        db, f"bench-{run}-t{t}", 3, now, target=1000, first_dealer=t % 3
                    )
                    out.append((table_id, [s.cookie for s in seats]))
    finally:
        await engine.dispose()
    return out


def postgres_pids(data_dir: pathlib.Path) -> list[int]:
    """The postmaster of the embedded server and its children (backends, WAL writer ...)."""
    pidfile = data_dir / "pgdata" / "postmaster.pid"
    try:
        master = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    pids = [master]
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


async def run(
    pace: str,
    tables: int,
    duration: float,
    processes: int,
    client_processes: int,
    baseline_seconds: float,
    commit_clients: int,
) -> dict[str, Any]:
    from app.config import get_settings
    from app.db.embedded import database_url
    from app.db.migrate import upgrade

    work = pathlib.Path(tempfile.mkdtemp(prefix="prefclub-bench-"))
    data = work / "data"
    url = database_url(get_settings().database_url, data)
    upgrade(url)
    run_id = str(int(time.time()))
    say(f"creating {tables} tables in {work}")
    made = await create_tables(url, tables, run_id)
    servers = [
        ServeProcess(url, data, free_port(), log_path=work / f"serve-{i}.log")
        for i in range(processes)
    ]
    ctx = multiprocessing.get_context("spawn")
    result: dict[str, Any] = {}
    try:
        for server in servers:
            await server.start()
        server_pids = [s.process.pid for s in servers if s.process is not None]
        idle_rss = sum(procstat.memory_kib(p)[0] for p in server_pids)
        say(
            f"{processes} server process(es) up (idle RSS {idle_rss} KiB); connecting "
            f"{tables * 3} sockets from {client_processes} client process(es)"
        )
        specs: list[WorkerSpec] = [
            WorkerSpec([], pace, duration, seed=i + 1) for i in range(client_processes)
        ]
        for t, (table_id, cookies) in enumerate(made):
            seats = [
                (servers[(t + i) % processes].ws_base, servers[(t + i) % processes].origin, cookie)
                for i, cookie in enumerate(cookies)
            ]
            specs[t % client_processes].tables.append((table_id, seats))
        ready = [ctx.Event() for _ in specs]
        go = ctx.Event()
        out = ctx.Queue()
        procs = [
            ctx.Process(target=worker, args=(spec, ready[i], go, out), daemon=True)
            for i, spec in enumerate(specs)
        ]
        for p in procs:
            p.start()
        loop = asyncio.get_running_loop()
        for event in ready:
            await loop.run_in_executor(None, event.wait, 600)
        connected_rss = sum(procstat.memory_kib(p)[0] for p in server_pids)
        # What the connected sockets cost with nobody playing (heartbeats, presence ...).
        idle_meter = procstat.CpuMeter(server_pids)
        idle_meter.start(time.perf_counter())
        await asyncio.sleep(IDLE_SECONDS)
        idle_percent = idle_meter.percent(time.perf_counter())
        server_cpu = procstat.CpuMeter(server_pids)
        pg_cpu = procstat.CpuMeter(lambda: postgres_pids(data))
        wall0 = time.perf_counter()
        server_cpu.start(wall0)
        pg_cpu.start(wall0)
        say(f"all connected (server RSS {connected_rss} KiB); playing for {duration:.0f} s")
        go.set()
        await asyncio.sleep(duration)
        wall1 = time.perf_counter()
        server_percent = server_cpu.percent(wall1)
        server_wait = server_cpu.wait_percent(wall1)
        pg_percent = pg_cpu.percent(wall1)
        end_rss = sum(procstat.memory_kib(p)[0] for p in server_pids)
        peak_rss = sum(procstat.memory_kib(p)[1] for p in server_pids)
        parts = [await loop.run_in_executor(None, out.get, True, 120) for _ in procs]
        for p in procs:
            p.join(30)
        failed = [p["failed"] for p in parts if "failed" in p]
        if failed:
            raise RuntimeError(f"a client process failed: {failed}")
        acks = [ms for p in parts for ms in p["ack_ms"]]
        every = [ms for p in parts for ms in p["all_seats_ms"]]
        commands = sum(p["commands"] for p in parts)
        seconds = max(p["seconds"] for p in parts)
        codes: dict[str, int] = {}
        for p in parts:
            for code, n in p["error_codes"].items():
                codes[code] = codes.get(code, 0) + n
        sockets = sum(p["sockets"] for p in parts)
        growth = max(max(end_rss, connected_rss) - idle_rss, 0)
        result = {
            "benchmark": "server",
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),  # noqa: UP017
            "pace": pace,
            "tables": tables,
            "players": 3,
            "processes": processes,
            "client_processes": client_processes,
            "duration": duration,
            "seconds": round(seconds, 2),
            "sockets": sockets,
            "connected": sum(p["connected"] for p in parts),
            "connect_seconds": max(p["connect_seconds"] for p in parts),
            "commands": commands,
            "commands_per_second": round(commands / seconds, 1),
            "latency_ms": {"ack": percentiles(acks), "all_seats": percentiles(every)},
            "errors": sum(p["errors"] for p in parts),
            "error_codes": codes,
            "reconnects": sum(p["reconnects"] for p in parts),
            "server_cpu_percent": server_percent,
            "server_cpu_wait_percent": server_wait,
            "server_idle_cpu_percent": idle_percent,
            "postgres_cpu_percent": pg_percent,
            "client_cpu_percent": round(
                100.0 * sum(p["cpu_seconds"] for p in parts) / max(wall1 - wall0, 1e-9), 1
            ),
            "server_rss_kib": {
                "idle": idle_rss,
                "connected": connected_rss,
                "end": end_rss,
                "peak": peak_rss,
            },
            "memory_per_table_kib": round(growth / tables, 1),
            "memory_per_socket_kib": round(growth / max(sockets, 1), 1),
        }
    finally:
        for server in servers:
            server.stop()
    say(f"measured {result['commands_per_second']} commands/s; now the baselines")
    base = await baselines.measure(
        url, min(64, max(3, tables * 3)), commit_clients, baseline_seconds
    )
    result["baselines"] = base
    result["ratio_to_commit_rate"] = ratio(
        result["commands_per_second"], base["commits_per_second_1"]
    )
    result["ratio_to_commit_rate_n"] = ratio(
        result["commands_per_second"], base["commits_per_second_n"]
    )
    result["ratio_to_echo"] = ratio(result["commands_per_second"], base["echo_per_second"])
    result["ack_p50_over_echo_p50"] = ratio(
        result["latency_ms"]["ack"]["p50"], base["echo_uvicorn"]["latency_ms"]["p50"]
    )
    result["machine"] = {
        **procstat.machine(),
        "python": platform.python_version(),
        "arch": platform.machine(),
    }
    shutil.rmtree(work, ignore_errors=True)
    return result


def describe(r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    b = r["baselines"]
    return "\n".join(
        [
            f"{r['pace']} pace, {r['tables']} tables x 3 seats, "
            f"{r['processes']} server process(es), {r['seconds']} s: {r['commands']} commands, "
            f"{r['commands_per_second']} /s, "
            f"{r['errors']} errors {r['error_codes']}",
            f"ack p50/p95/p99 {lat['ack']['p50']}/{lat['ack']['p95']}/{lat['ack']['p99']} ms; "
            f"every seat {lat['all_seats']['p50']}/{lat['all_seats']['p95']}/"
            f"{lat['all_seats']['p99']} ms",
            f"CPU: server {r['server_cpu_percent']} % (waiting for a CPU "
            f"{r.get('server_cpu_wait_percent')} %; idle with every socket connected "
            f"{r.get('server_idle_cpu_percent')} %), postgres {r['postgres_cpu_percent']} %, "
            f"load generator {r['client_cpu_percent']} %; server RSS peak "
            f"{r['server_rss_kib']['peak']} KiB, {r['memory_per_table_kib']} KiB/table, "
            f"{r['memory_per_socket_kib']} KiB/socket",
            f"baselines: commits/s 1 client {b['commits_per_second_1']}, {b['commit_clients_n']} "
            f"clients {b['commits_per_second_n']}; uvicorn echo {b['echo_per_second']} /s "
            f"(p50 {b['echo_uvicorn']['latency_ms']['p50']} ms)",
            f"ratios: commands/s to 1-client commit rate {r['ratio_to_commit_rate']}, to N-client "
            f"{r['ratio_to_commit_rate_n']}, to echo {r['ratio_to_echo']}; ack p50 / echo p50 "
            f"{r['ack_p50_over_echo_p50']}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pace", choices=("human", "max"), default="max")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2))
    parser.add_argument("--client-processes", type=int, default=1)
    parser.add_argument("--baseline-seconds", type=float, default=5.0)
    parser.add_argument("--commit-clients", type=int, default=8)
    parser.add_argument("--out", type=pathlib.Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.duration <= 0 or args.client_processes < 1:
        parser.error("--tables, --duration and --client-processes must be positive")
    result = asyncio.run(
        run(
            args.pace,
            args.tables,
            args.duration,
            args.processes,
            min(args.client_processes, args.tables),
            args.baseline_seconds,
            args.commit_clients,
        )
    )
    out = args.out or RESULTS / (f"server-{args.pace}-p{args.processes}-t{args.tables}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(describe(result))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
