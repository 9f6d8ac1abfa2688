"""Each benchmark entry point runs with tiny parameters and ends with one valid JSON object.

They run as the documented commands do (``python -m bench.…``, real uvicorn and an embedded
PostgreSQL in a temporary folder), side by side to keep the test short.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.bots.harness import PROJECT_ROOT

pytestmark = pytest.mark.e2e


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=PROJECT_ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _last_json(proc: subprocess.Popen[str], out: Path) -> dict[str, Any]:
    stdout, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 0, stderr[-3000:]
    printed = json.loads(stdout.strip().splitlines()[-1])
    assert json.loads(out.read_text()) == printed  # the file is the same run's result
    return printed


def test_bench_entry_points_write_valid_json(tmp_path: Path) -> None:
    server_out, archive_out = tmp_path / "server.json", tmp_path / "archive.json"
    server = _start(
        [
            "bench.server",
            "--pace",
            "max",
            "--tables",
            "1",
            "--duration",
            "2",
            "--baseline-seconds",
            "0.5",
            "--commit-clients",
            "2",
            "--out",
            str(server_out),
            "--json",
        ]
    )
    archive = _start(
        [
            "bench.archive",
            "--pulkas",
            "2",
            "--requests",
            "2",
            "--stats-requests",
            "1",
            "--out",
            str(archive_out),
            "--json",
        ]
    )
    engine = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.engine",
            "--seconds",
            "0.2",
            "--out",
            str(tmp_path / "engine.json"),
            "--json",
        ],
        cwd=PROJECT_ROOT,
        text=True,
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert json.loads(engine.stdout.strip().splitlines()[-1])["deals_per_second"] > 0

    s = _last_json(server, server_out)
    assert (s["pace"], s["tables"], s["processes"]) == ("max", 1, 1)
    assert s["commands"] > 0 and s["commands_per_second"] > 0
    for kind in ("ack", "all_seats"):
        assert set(s["latency_ms"][kind]) == {"p50", "p95", "p99"}
        assert s["latency_ms"][kind]["p50"] > 0
    assert s["errors"] == 0
    base = s["baselines"]
    assert base["commits_per_second_1"] > 0 and base["commits_per_second_n"] > 0
    assert base["echo_per_second"] > 0
    assert s["ratio_to_commit_rate"] == round(
        s["commands_per_second"] / base["commits_per_second_1"], 3
    )

    a = _last_json(archive, archive_out)
    assert a["pulkas"] == 2 and a["events"] > 0
    assert set(a["endpoints"]) == {
        "list",
        "list_page",
        "pulka",
        "deal_replay",
        "stats",
        "member_stats",
    }
    for name, result in a["endpoints"].items():
        assert result["all_ok"], name
        assert result["latency_ms"]["p50"] > 0
    assert any("Index" in p["plan"] for p in a["plans"]["pulka"])
