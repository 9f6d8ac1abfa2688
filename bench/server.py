"""Server load benchmark: bot tables over real sockets against a real ``prefclub serve``.

    python -m bench.server --json [--tables 8] [--players 3] [--deals 4]

Runs ``prefclub selfplay``'s machinery (one server process, one bot client per seat) and, as a
baseline, a bare websocket echo server on the same machine driven by the same number of clients
sending one message at a time. Prints and writes ``bench/results/server.json``: moves per second,
ack and all-seats latency percentiles, and the echo's round trips per second and latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import platform
import sys
import time
from typing import Any

import websockets

from app.bots.harness import percentiles
from app.commands.selfplay import free_port, selfplay

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "server.json"


async def echo_baseline(clients: int, seconds: float) -> dict[str, Any]:
    """Round trips per second of ``clients`` sockets against an echo server (the ceiling)."""

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    port = free_port()
    latencies: list[float] = []
    count = 0
    async with websockets.serve(echo, "127.0.0.1", port):
        stop = time.perf_counter() + seconds

        async def client() -> None:
            nonlocal count
            async with websockets.connect(f"ws://127.0.0.1:{port}") as ws:
                while time.perf_counter() < stop:
                    start = time.perf_counter()
                    await ws.send('{"type":"ping","id":"x"}')
                    await ws.recv()
                    latencies.append((time.perf_counter() - start) * 1000)
                    count += 1

        await asyncio.gather(*(client() for _ in range(clients)))
    return {"round_trips_per_second": round(count / seconds, 1),
            "latency_ms": percentiles(latencies)}


async def main_async(tables: int, players: int, deals: int) -> dict[str, Any]:
    summary, ok = await selfplay(tables, players, deals, log=sys.stderr)
    moves = summary["commands"]
    seconds = summary["seconds"] or 1.0
    baseline = await echo_baseline(tables * players, 3.0)
    return {
        "benchmark": "server",
        "tables": tables,
        "players": players,
        "deals": summary["deals"],
        "moves": moves,
        "seconds": seconds,
        "moves_per_second": round(moves / seconds, 1),
        "latency_ms": summary["latency_ms"],
        "errors": summary["errors"],
        "all_rescores_matched": ok,
        "echo_baseline": baseline,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4))
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(main_async(args.tables, args.players, args.deals))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
