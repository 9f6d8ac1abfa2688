"""``prefclub serve`` for the tests, forked from a process that has imported it already.

A server's start cost some 1.4 CPU s on a fast box, almost all of it importing the web app
(FastAPI building the routes' models, SQLAlchemy's models, the engine's tables), and the suite
starts about a hundred. Each pytest worker therefore keeps one *fork server*: a child
(``python -m tests.support.serve_fork``) that imports what ``prefclub serve`` imports, with the
serving GC thresholds set first as ``serve`` sets them, and then only forks. A forked server
starts a new session, writes its output to its log file, takes the environment and the working
folder it is given and runs ``app.cli``'s ``serve`` as ``python -m app.cli serve`` would: its own
process, its own port, its own event loop, database connections and pools (which spawn their
workers with ``app.cli`` as their main module, as under ``python -m app.cli``), stopped by a
signal or killed with ``kill -9`` like any other. Nothing runs in the fork server but the
imports, so every server begins from the same state a fresh interpreter reaches.

What this does not cover, a fresh interpreter's imports, the tests of ``prefclub serve`` itself
cover (tests/platform/test_serve.py, test_startup.py, test_operations_doc.py start real
processes). ``PREFCLUB_TEST_FRESH_SERVERS=1`` starts every test's server as a new interpreter.

The fork server answers JSON lines on its standard input and output:
``{"spawn": {"args", "env", "cwd", "log"}}`` → ``{"pid": N}``, and ``{"poll": N}`` →
``{"status": EXIT_CODE or null}`` (it is the servers' parent, so it reaps them).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FRESH_SERVERS = os.environ.get("PREFCLUB_TEST_FRESH_SERVERS") == "1"
"""Start every server as a new interpreter instead (to compare, or to debug one)."""


class ForkedProcess:
    """The part of :class:`subprocess.Popen` the tests use, for a server the fork server
    started: its pid, its exit code once it has ended (negative: the signal), signals."""

    def __init__(self, forker: ForkServer, pid: int, args: list[str]) -> None:
        self.forker = forker
        self.pid = pid
        self.args = args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.forker.status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    """The worker's side: starts the fork server once and asks it for servers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None

    def _started(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__],
                cwd=PROJECT_ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            if self._read(self._process) != {"ready": True}:
                raise RuntimeError("the fork server did not start")
            atexit.register(self.close)
        return self._process

    def start(self) -> None:
        """Start the fork server now (else the first server asked for starts it)."""
        with self._lock:
            self._started()

    @staticmethod
    def _read(process: subprocess.Popen[str]) -> dict[str, Any]:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server ended (exit code {process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            process = self._started()
            assert process.stdin is not None
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            return self._read(process)

    def spawn(self, args: list[str], env: dict[str, str], log_path: Path) -> ForkedProcess:
        """``python -m app.cli ARGS`` as a fork, in its own session, output to ``log_path``."""
        request = {"args": args, "env": env, "cwd": str(PROJECT_ROOT), "log": str(log_path)}
        pid = int(self._ask({"spawn": request})["pid"])
        return ForkedProcess(self, pid, [sys.executable, "-m", "app.cli", *args])

    def status(self, pid: int) -> int | None:
        answer = self._ask({"poll": pid})
        if "error" in answer:
            raise RuntimeError(f"the fork server cannot tell how {pid} ended: {answer['error']}")
        code = answer["status"]
        return None if code is None else int(code)

    def close(self) -> None:
        """End the fork server (its servers run on until they are stopped)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(10)


FORK_SERVER = ForkServer()
"""The worker's one fork server, started by the first server a test asks for."""


# -- the fork server's own process -----------------------------------------------------------


def _preload() -> Any:
    """Import what ``prefclub serve`` imports, in its order (app/cli.py ``_serve``)."""
    from app.realtime.gc_tuning import serving_thresholds

    serving_thresholds()
    import uvicorn  # noqa: F401

    import app.cli
    import app.commands.banner
    import app.commands.http_protocol
    import app.commands.uvicorn_options
    import app.db.migrate
    import app.logging_setup
    import app.main

    return app.cli


def _run_child(cli: Any, request: dict[str, Any]) -> None:
    """In the fork: become ``python -m app.cli ARGS`` with the request's session, output,
    environment and folder, and exit as that process would (exit hooks run)."""
    code = 1
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(devnull)
        os.close(log)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [cli.__file__, *request["args"]]
        sys.modules["__main__"] = cli  # the pools' spawned workers import app.cli as main
        try:
            cli.main()
            code = 0
        except SystemExit as end:
            code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter's exit does
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the process ends either way
                stream.flush()
        os._exit(code)


def _serve_forks() -> None:
    cli = _preload()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "spawn" in request:
            pid = os.fork()
            if pid == 0:
                _run_child(cli, request["spawn"])
            answer: dict[str, Any] = {"pid": pid}
        else:
            try:
                done, status = os.waitpid(int(request["poll"]), os.WNOHANG)
                answer = {"status": os.waitstatus_to_exitcode(status) if done else None}
            except ChildProcessError as error:
                answer = {"error": str(error)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    _serve_forks()
