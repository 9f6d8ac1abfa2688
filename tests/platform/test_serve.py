"""`prefclub serve` end to end: embedded database, migrations, first-login hint, data kept."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


def test_serve_embedded_first_admin_hint_then_data_survives_restart(
    tmp_path: Path, data_dir: Path
) -> None:
    env = {"PREFCLUB_DATA_DIR": str(data_dir), "DATABASE_URL": "", "SECRET_KEY": ""}
    with ServerProcess(env, fresh=True) as server:
        assert httpx.get(f"{server.base_url}/readyz").json()["database"] == "ok"
        first_output = server.output()
    hint = re.search(r"as 'admin' with the one-time password (\S+)", first_output)
    assert hint, first_output
    assert (data_dir / "pgdata" / "PG_VERSION").exists()
    assert (data_dir / "secret_key").exists()

    with ServerProcess(env, log_path=tmp_path / "second.log", fresh=True) as server:
        second_output = server.output()
        socket_dir = data_dir / "pgdata"
        with psycopg.connect(host=str(socket_dir), user="postgres", dbname="prefclub") as conn:
            logins = [row[0] for row in conn.execute("SELECT login FROM members")]
            mondays = conn.execute("SELECT count(*) FROM club_sessions WHERE NOT extra").fetchone()
    assert logins == ["admin"]
    assert mondays is not None and mondays[0] >= 8  # R-S1: the calendar is generated ahead
    assert "one-time password" not in second_output
    assert hint.group(1) not in second_output
