"""The test clock file (``PREFCLUB_TEST_CLOCK``): honoured only in the test environment.

The browser test of a whole club night moves a real server to 19:00 and 22:15 with it (R-S1,
R-S2); a development or production server must never read a clock from a file.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.clock import FileOffsetClock, SystemClock, server_clock
from app.config import Settings


def test_the_file_moves_the_clock_at_once(tmp_path: Path) -> None:
    path = tmp_path / "offset"
    clock = FileOffsetClock(path)
    assert clock.offset() == timedelta(0)  # no file: the real time
    path.write_text("7200.5")
    assert clock.offset() == timedelta(hours=2, milliseconds=500)
    moved = clock.now() - datetime.now(UTC)
    assert timedelta(hours=2) < moved < timedelta(hours=2, minutes=1)
    path.write_text("-60")
    assert clock.offset() == timedelta(minutes=-1)
    path.write_text("not a number")
    assert clock.offset() == timedelta(0)


@pytest.mark.parametrize("environment", ["development", "production"])
def test_only_the_test_environment_reads_it(tmp_path: Path, environment: str) -> None:
    settings = Settings(
        PREFCLUB_DATA_DIR=tmp_path,
        PREFCLUB_ENV=environment,
        PREFCLUB_TEST_CLOCK=tmp_path / "offset",
        SECRET_KEY="k" * 48,
    )
    assert isinstance(server_clock(settings), SystemClock)


def test_the_test_environment_reads_it_when_set(tmp_path: Path) -> None:
    settings = Settings(
        PREFCLUB_DATA_DIR=tmp_path, PREFCLUB_ENV="test", PREFCLUB_TEST_CLOCK=tmp_path / "offset"
    )
    assert isinstance(server_clock(settings), FileOffsetClock)
    unset = Settings(PREFCLUB_DATA_DIR=tmp_path, PREFCLUB_ENV="test")
    assert isinstance(server_clock(unset), SystemClock)
