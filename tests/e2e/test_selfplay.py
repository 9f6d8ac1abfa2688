"""``prefclub selfplay`` end to end: a real server, bots over real sockets, rescored exports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import PROJECT_ROOT

pytestmark = pytest.mark.e2e


def test_selfplay_four_players_exits_0_with_a_json_summary(live_db: str, tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": live_db, "PREFCLUB_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "selfplay",
            "--tables",
            "2",
            "--players",
            "4",
            "--deals",
            "3",
            "--json",
        ],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["deals"] == 6
    assert summary["commands"] > 0 and summary["errors"] == 0
    for key in ("ack", "all_seats"):
        assert set(summary["latency_ms"][key]) == {"p50", "p95", "p99"}
    assert len(summary["tables"]) == 2
    for table in summary["tables"]:
        assert table["rescore_matched"] is True
        record = json.loads(Path(table["export"]).read_text())
        assert record["format"] == "pulka/1" and len(record["deals"]) == 3
        assert isinstance(table["pulka_id"], int)
