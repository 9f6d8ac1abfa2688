"""Real server processes for end-to-end tests: ``prefclub serve`` on a free port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from tests.support import local_http
from tests.support.serve_fork import FORK_SERVER, FRESH_SERVERS, PROJECT_ROOT, ForkedProcess

__all__ = ["PROJECT_ROOT", "ServerProcess", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``prefclub serve`` in a child process, with its output captured to a file."""

    def __init__(
        self,
        env: Mapping[str, str],
        port: int | None = None,
        log_path: Path | None = None,
        module: str = "app.cli",
        fresh: bool = FRESH_SERVERS,
    ) -> None:
        self.port = port or free_port()
        self.env = {**os.environ, **env, "HOST": "127.0.0.1", "PORT": str(self.port)}
        data_dir = Path(env.get("PREFCLUB_DATA_DIR", "/tmp"))
        self.log_path = log_path or data_dir / f"serve-{self.port}.log"
        self.process: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.module = module
        """The module run as ``python -m MODULE serve`` (a test's wrapper may register more)."""
        self.fresh = fresh or module != "app.cli"
        """A new interpreter, not a fork of the worker's fork server (tests/support/serve_fork.py):
        the tests of ``prefclub serve``'s own start and exit ask for one."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start the server and wait until ``/readyz`` answers 200 (database at the head)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self.fresh:
            with self.log_path.open("ab") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", self.module, "serve"],
                    cwd=PROJECT_ROOT,
                    env=self.env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        else:
            self.process = FORK_SERVER.spawn(["serve"], self.env, self.log_path)
        deadline = time.monotonic() + timeout
        with local_http.client(base_url=self.base_url, timeout=1) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited early:\n{self.output()}")
                try:
                    if http.get("/readyz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"server did not become healthy:\n{self.output()}")

    def output(self) -> str:
        """Everything the server printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Stop gracefully (SIGINT), then kill if needed."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def kill(self) -> None:
        """``kill -9`` the server, as a crash would."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
