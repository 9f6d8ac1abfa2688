"""The embedded PostgreSQL lives exactly as long as the ``prefclub serve`` processes using it
(issue 9): a SIGTERM stops it with the server; after a ``kill -9`` the next start adopts the
orphaned server, prunes the dead pid from its list of users and stops it on exit."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.platform.pg_processes import postgres_processes, wait_until_gone
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


def users(pgdata: Path) -> list[int]:
    """The pids the embedded server's data folder lists as its users."""
    path = pgdata / ".handle_pids.json"
    text = path.read_text().strip() if path.exists() else ""
    return json.loads(text) if text else []


def terminate(server: ServerProcess) -> int:
    """SIGTERM the server (as systemd or docker stop would) and wait for it."""
    assert server.process is not None
    server.process.send_signal(signal.SIGTERM)
    return server.process.wait(30)


def env_for(data_dir: Path) -> dict[str, str]:
    return {"PREFCLUB_DATA_DIR": str(data_dir), "DATABASE_URL": "", "SECRET_KEY": ""}


def test_sigterm_stops_the_embedded_postgresql(data_dir: Path, tmp_path: Path) -> None:
    pgdata = (data_dir / "pgdata").resolve()
    server = ServerProcess(env_for(data_dir), log_path=tmp_path / "serve.log", fresh=True).start()
    try:
        assert postgres_processes(pgdata), "the server started its embedded postgresql"
        assert server.process is not None and users(pgdata) == [server.process.pid]
        terminate(server)
    finally:
        server.kill()
    assert wait_until_gone(pgdata) == [], server.output()
    assert users(pgdata) == []


def test_after_kill_9_the_next_start_adopts_and_stops_the_server(
    data_dir: Path, tmp_path: Path
) -> None:
    pgdata = (data_dir / "pgdata").resolve()
    first = ServerProcess(env_for(data_dir), log_path=tmp_path / "first.log", fresh=True).start()
    assert first.process is not None
    crashed_pid = first.process.pid
    first.kill()
    orphans = postgres_processes(pgdata)
    assert orphans, "kill -9 cannot stop postgresql: it is orphaned"
    assert crashed_pid in users(pgdata)

    second = ServerProcess(env_for(data_dir), log_path=tmp_path / "second.log", fresh=True).start()
    try:
        assert second.process is not None
        assert users(pgdata) == [second.process.pid], "the dead pid is pruned"
        terminate(second)
    finally:
        second.kill()
    assert wait_until_gone(pgdata) == [], second.output()
    assert users(pgdata) == []

    third = ServerProcess(env_for(data_dir), log_path=tmp_path / "third.log", fresh=True).start()
    try:
        assert third.process is not None and users(pgdata) == [third.process.pid]
        third.stop()  # SIGINT, as Ctrl+C
    finally:
        third.kill()
    assert wait_until_gone(pgdata) == [], third.output()
    assert users(pgdata) == []


def test_a_second_process_sharing_the_folder_keeps_it_running(
    data_dir: Path, tmp_path: Path
) -> None:
    """Two servers on one data folder: the first to exit leaves postgresql to the other."""
    pgdata = (data_dir / "pgdata").resolve()
    first = ServerProcess(env_for(data_dir), log_path=tmp_path / "a.log", fresh=True).start()
    second = ServerProcess(env_for(data_dir), log_path=tmp_path / "b.log", fresh=True).start()
    try:
        terminate(first)
        assert postgres_processes(pgdata), "still used by the second server"
        assert second.process is not None and users(pgdata) == [second.process.pid]
        terminate(second)
    finally:
        first.kill()
        second.kill()
    assert wait_until_gone(pgdata) == [], second.output()


def test_serve_leaves_no_postgresql_when_it_fails_to_start(data_dir: Path) -> None:
    """A serve that cannot bind its port still stops the database it started."""
    import socket

    pgdata = (data_dir / "pgdata").resolve()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = ServerProcess(
            env_for(data_dir), port=port, log_path=data_dir.parent / "f.log", fresh=True
        )
        with pytest.raises((RuntimeError, TimeoutError)):
            server.start(timeout=60)
        server.kill()
    assert wait_until_gone(pgdata) == [], server.output()
    assert users(pgdata) == []
