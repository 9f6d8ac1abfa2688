"""Render the figures of ``bench/results/*.json`` as the Markdown tables of docs/performance.md.

    python -m bench.report > /tmp/figures.md

So the document shows exactly what the last runs wrote (nothing is copied by hand).
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def _load(pattern: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(RESULTS.glob(pattern))]


def cpu_per_command(r: dict[str, Any]) -> float:
    """Server CPU milliseconds per committed command: what a command costs whatever the
    machine's load (the CPU share a busy machine leaves the server sets only the wall time)."""
    return round(r["server_cpu_percent"] / 100 * r["seconds"] * 1000 / max(r["commands"], 1), 1)


def server_table(runs: list[dict[str, Any]]) -> str:
    """One row per ``bench.server`` run."""
    rows = [
        "| UTC | pace | tables | procs | cmds/s | ack p50/p95/p99 ms "
        "| every seat p50/p95/p99 ms | errors | server CPU % (waiting %; idle) | PG CPU % "
        "| client CPU % | peak RSS MiB "
        "| KiB/table | KiB/socket | 1-client commits/s | N-client commits/s | echo/s "
        "| cmds/s ÷ 1-client commits/s | server CPU ms per command |",
        "|" + "---|" * 19,
    ]
    for r in sorted(runs, key=lambda r: (r["processes"], r["pace"] != "human", r["tables"])):
        a, e, b = r["latency_ms"]["ack"], r["latency_ms"]["all_seats"], r["baselines"]
        rows.append(
            f"| {r['date'][5:10]} {r['date'][11:16]} | {r['pace']} | {r['tables']} "
            f"| {r['processes']} | {r['commands_per_second']} "
            f"| {a['p50']:.0f} / {a['p95']:.0f} / {a['p99']:.0f} "
            f"| {e['p50']:.0f} / {e['p95']:.0f} / {e['p99']:.0f} | {r['errors']} "
            f"| {r['server_cpu_percent']} ({r.get('server_cpu_wait_percent', 'n/a')}; idle "
            f"{r.get('server_idle_cpu_percent', 'n/a')}) "
            f"| {r['postgres_cpu_percent']} | {r['client_cpu_percent']} "
            f"| {r['server_rss_kib']['peak'] / 1024:.0f} | {r['memory_per_table_kib']} "
            f"| {r['memory_per_socket_kib']} | {b['commits_per_second_1']} "
            f"| {b['commits_per_second_n']} ({b['commit_clients_n']}) | {b['echo_per_second']} "
            f"| {r['ratio_to_commit_rate']} | {cpu_per_command(r)} |"
        )
    return "\n".join(rows)


def archive_table(result: dict[str, Any]) -> str:
    rows = [
        "| endpoint | requests | p50 ms | p95 ms | p99 ms | target p95 < 50 ms "
        "| app CPU p50 / p95 ms | waited for a CPU p50 / p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in result["endpoints"].items():
        lat = r["latency_ms"]
        cpu = r.get("python_cpu_ms") or {"p50": "n/a", "p95": "n/a"}
        wait = r.get("waited_for_cpu_ms") or {"p50": "n/a", "p95": "n/a"}
        rows.append(
            f"| {name} | {r['requests']} | {lat['p50']} | {lat['p95']} | {lat['p99']} "
            f"| {'met' if r['meets_target'] else 'NOT met'} "
            f"| {cpu['p50']} / {cpu['p95']} | {wait['p50']} / {wait['p95']} |"
        )
    return "\n".join(rows)


def hotpath_table(runs: list[dict[str, Any]]) -> str:
    """Before/after runs (``bench/results/hotpath/``, ``fourth-round/``, ``fifth-round/``), each
    labelled with its code version, in the order they were made: interleaved, so both sides
    meet the same machine."""
    rows = [
        "| run (code) | started UTC | load avg (1 min) | pace | tables | procs | cmds/s "
        "| 1-client commits/s | cmds/s ÷ 1-client commits/s | ack p50/p95/p99 ms "
        "| every seat p50/p95/p99 ms | errors | server CPU % (waiting %) "
        "| server CPU ms per command |",
        "|" + "---|" * 14,
    ]
    for r in sorted(runs, key=lambda r: r["date"]):
        ack, every = r["latency_ms"]["ack"], r["latency_ms"]["all_seats"]
        rows.append(
            f"| {r.get('label', '?')} | {r['date'][11:16]} "
            f"| {r['machine']['load_average'][0]} | {r['pace']} | {r['tables']} "
            f"| {r['processes']} | {r['commands_per_second']} "
            f"| {r['baselines']['commits_per_second_1']} | {r['ratio_to_commit_rate']} "
            f"| {ack['p50']} / {ack['p95']} / {ack['p99']} "
            f"| {every['p50']} / {every['p95']} / {every['p99']} | {r['errors']} "
            f"| {r['server_cpu_percent']} ({r.get('server_cpu_wait_percent', 'n/a')}) "
            f"| {cpu_per_command(r)} |"
        )
    return "\n".join(rows)


def archive_plans(result: dict[str, Any]) -> str:
    out = []
    for name, plans in result["plans"].items():
        for plan in plans:
            out.append(f"#### {name}\n\n```sql\n{plan['query']}\n```\n\n```\n{plan['plan']}\n```")
    return "\n\n".join(out)


def main() -> int:
    servers = _load("server-*.json")
    if servers:
        print(server_table(servers))
        print()
    for folder in ("hotpath", "fourth-round", "fifth-round"):
        paired = _load(f"{folder}/*.json")
        if paired:
            print(hotpath_table(paired))
            print()
    for archive in _load("archive.json"):
        print(
            f"{archive['pulkas']} pulkas, {archive['events']} events, database "
            f"{archive['database_size']}, generated in {archive['generate_seconds']} s\n"
        )
        print(archive_table(archive))
        print()
        print(archive_plans(archive))
    return 0


if __name__ == "__main__":
    sys.exit(main())
