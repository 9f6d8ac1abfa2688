"""The tests' forked servers (tests/support/serve_fork.py) end and behave as fresh ones do.

Most tests' servers are forks of a process that has imported ``prefclub serve`` already; these
tests hold the two kinds of process to the same outside behaviour (exit codes, session, folder,
port, log) and keep the premise the forks rest on: no module of the app reads the environment
while it is imported.
"""

from __future__ import annotations

import ast
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.databases import migrated_database
from tests.support.serve_fork import ForkedProcess
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served_database(database_url: str) -> Iterator[str]:
    with migrated_database(database_url) as url:
        yield url


def _server(url: str, data_dir: Path, *, fresh: bool, **env: str) -> ServerProcess:
    return ServerProcess(
        {"DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(data_dir), "LOG_LEVEL": "INFO", **env},
        log_path=data_dir / "serve.log",
        fresh=fresh,
    )


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)]
)
def test_a_forked_server_ends_with_the_exit_code_of_a_fresh_one(
    served_database: str, tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    codes = {}
    for fresh in (True, False):
        server = _server(served_database, tmp_path / str(fresh), fresh=fresh).start()
        assert server.process is not None
        assert isinstance(server.process, ForkedProcess) is not fresh
        server.process.send_signal(sig)
        codes[fresh] = server.process.wait(30)
        assert server.process.poll() == codes[fresh]
    assert codes == {True: code, False: code}


def test_a_forked_server_has_its_own_session_folder_port_and_log(
    served_database: str, tmp_path: Path
) -> None:
    server = _server(served_database, tmp_path, fresh=False).start()
    try:
        assert server.process is not None
        pid = server.process.pid
        assert os.getsid(pid) == pid, "a session of its own, as start_new_session gives"
        assert psutil.Process(pid).cwd() == str(Path(__file__).resolve().parents[2])
        output = server.output()
        assert f"http://127.0.0.1:{server.port}" in output, "the banner, with the port it was given"
    finally:
        server.stop()
    assert server.process.returncode == 130


class _ImportTimeEnvironment(ast.NodeVisitor):
    """``os.environ`` or ``os.getenv`` read where a module's import runs it (functions skipped)."""

    def __init__(self) -> None:
        self.lines: list[int] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        return None

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        return None

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in {"environ", "getenv"} and isinstance(node.value, ast.Name):
            self.lines.append(node.lineno)
        self.generic_visit(node)


def test_no_module_of_the_app_reads_the_environment_at_import() -> None:
    """The fork server imports the app once with the worker's environment; a value read at
    import would be the worker's, not the server's (a production server reads it at start all
    the same: settings come from ``get_settings()``, called when used)."""
    app_dir = Path(__file__).resolve().parents[2] / "app"
    found = []
    for path in sorted(app_dir.rglob("*.py")):
        visitor = _ImportTimeEnvironment()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        found += [f"{path.relative_to(app_dir.parent)}:{line}" for line in visitor.lines]
    assert not found, found
