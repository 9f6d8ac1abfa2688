"""``prefclub selfplay --preset classic``: bots play classic preferans (docs/rules-classic.md)
on a real server over real sockets, and every export rescores to the same sheet (K-12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import PROJECT_ROOT

pytestmark = pytest.mark.e2e


def test_k12_selfplay_classic_runs_to_the_end_and_rescores(live_db: str, tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": live_db, "PREFCLUB_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "selfplay",
            "--preset",
            "classic",
            "--players",
            "3",
            "--deals",
            "4",
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
    assert summary["deals"] == 4 and summary["errors"] == 0
    (table,) = summary["tables"]
    assert table["rescore_matched"] is True
    record = json.loads(Path(table["export"]).read_text())
    assert record["conventions"] == {"preset": "classic"}
    for deal in record["deals"]:
        assert deal["type"] in ("game", "redeal")
        if deal["type"] == "game":
            assert deal["contract"] in ("6S", "6C", "6D", "6H")


def test_selfplay_refuses_an_unknown_preset() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "selfplay", "--preset", "martian"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "classic" in done.stderr


def test_selfplay_refuses_five_players_for_the_seeds_without_five() -> None:
    """K-1, A-1: seeds 003 and 004 know three and four players (R-T6's five is the club's)."""
    for preset in ("classic", "arabic"):
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "selfplay", "--preset", preset, "--players", "5"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert f"the {preset} preset is played by 3 or 4 players" in done.stderr
