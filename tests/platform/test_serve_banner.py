"""``prefclub serve`` prints the club's address and the first admin's one-time login LAST,
after uvicorn's own start-up lines, set apart by a blank line and a frame (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.commands.banner import RULE
from tests.support.databases import drop_database, scratch_database
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


def test_the_first_login_is_the_last_thing_printed(database_url: str, tmp_path: Path) -> None:
    url, name = scratch_database(database_url)
    try:
        server = ServerProcess(
            {"DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(tmp_path), "LOG_LEVEL": "INFO"},
            fresh=True,
        )
        with server:
            output = server.output()
    finally:
        drop_database(database_url, name)
    # what the server printed while starting: everything before the first request it logged
    lines = output.splitlines()
    first_request = next(
        (i for i, line in enumerate(lines) if "uvicorn.access" in line), len(lines)
    )
    lines = lines[:first_request]
    while lines and not lines[-1].strip():
        lines.pop()
    assert lines[-1] == RULE, output
    top = len(lines) - 1 - lines[::-1].index(RULE, 1)
    block = lines[top + 1 : -1]
    assert lines[top - 1] == "", output  # a blank line sets the block apart
    assert any(f"prefclub serves the club at {server.base_url}/" in line for line in block)
    assert any("as 'admin' with the one-time password " in line for line in block), block
    started = [
        i
        for i, line in enumerate(lines)
        if "Uvicorn running on" in line or "Application startup complete" in line
    ]
    assert started and max(started) < top, output
