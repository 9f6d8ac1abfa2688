"""The terminal after ``make run`` (issue 28): readable log lines and no line per request on a
terminal, so the first-login banner stays the last thing printed; JSON lines everywhere else
(``LOG_FORMAT``); a one-time password that never begins with punctuation."""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.logging_setup import configure_logging, wants_text
from app.security.passwords import ONE_TIME_ALPHABET, ONE_TIME_LENGTH, one_time_password
from tests.support.databases import drop_database, scratch_database
from tests.support.server import PROJECT_ROOT, free_port


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Put the root and uvicorn loggers back as the test run had them."""
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    kept = {n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level) for n in names}
    propagate = {n: logging.getLogger(n).propagate for n in names}
    yield
    for name, (handlers, level) in kept.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate[name]


def _log_three(stream: io.StringIO, log_format: str, level: str = "INFO") -> list[str]:
    configure_logging(level, log_format, stream)
    logging.getLogger("app.main").info("prefclub started", extra={"version": "9.9"})
    logging.getLogger("uvicorn.access").info('%s - "%s %s" %d', "1.2.3.4", "GET", "/healthz", 200)
    logging.getLogger("app.db").warning("query failed [parameters: ('secret-hash',)]")
    return stream.getvalue().splitlines()


def test_auto_is_text_on_a_terminal_and_json_elsewhere() -> None:
    assert wants_text("auto", _Terminal()) and not wants_text("auto", io.StringIO())
    assert wants_text("text", io.StringIO()) and not wants_text("json", _Terminal())


def test_a_terminal_gets_readable_lines_and_no_access_line(restore_logging: None) -> None:
    """At INFO on a terminal: two lines (the access line kept out), neither JSON, the extra
    field as key=value, the SQL parameters redacted as in the JSON lines."""
    lines = _log_three(_Terminal(), "auto")
    assert len(lines) == 2, lines
    assert "INFO" in lines[0] and "prefclub started" in lines[0] and "version=9.9" in lines[0]
    assert not lines[0].startswith("{")
    assert "WARNING" in lines[1] and "secret-hash" not in lines[1]
    assert "[parameters hidden]" in lines[1]


def test_debug_on_a_terminal_shows_the_access_lines(restore_logging: None) -> None:
    lines = _log_three(_Terminal(), "auto", level="DEBUG")
    assert any("/healthz" in line for line in lines), lines


def test_files_get_json_lines_with_the_access_line(restore_logging: None) -> None:
    lines = _log_three(io.StringIO(), "auto")
    records = [json.loads(line) for line in lines]
    assert [r["logger"] for r in records] == ["app.main", "uvicorn.access", "app.db"]
    assert records[0]["version"] == "9.9" and "secret-hash" not in lines[2]


def test_a_one_time_password_is_letters_and_digits_without_look_alikes() -> None:
    """Never a leading «-» or «_» (nor any punctuation), never 0/O or 1/l/I."""
    for _ in range(2000):
        password = one_time_password()
        assert len(password) == ONE_TIME_LENGTH
        assert set(password) <= set(ONE_TIME_ALPHABET)
        assert password[0].isalnum()
    assert not set("0O1lI-_") & set(ONE_TIME_ALPHABET)


def _read(fd: int, seconds: float) -> str:
    """What the terminal showed within ``seconds``."""
    out = b""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out.decode("utf-8", "replace")


@pytest.mark.e2e
def test_make_run_keeps_the_first_login_banner_last(database_url: str, tmp_path: Path) -> None:
    """``prefclub serve`` on a terminal (a pty): the banner with the one-time password, then
    requests that print nothing more, so the banner is still the last thing on the screen."""
    url, name = scratch_database(database_url)
    port = free_port()
    master, slave = pty.openpty()
    env = {**os.environ, "DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(tmp_path)}
    env.update({"HOST": "127.0.0.1", "PORT": str(port)})
    env.pop("LOG_FORMAT", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve"],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    try:
        shown = ""
        deadline = time.monotonic() + 60
        while "one-time password" not in shown and time.monotonic() < deadline:
            shown += _read(master, 1.0)
        assert "one-time password" in shown, shown
        shown += _read(master, 1.0)
        for _ in range(3):
            assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
        later = _read(master, 1.5)
        assert "/healthz" not in later and later.strip() == "", later
        assert not any(line.lstrip().startswith("{") for line in shown.splitlines()), shown
        last = [line for line in shown.splitlines() if line.strip()][-6:]
        assert any("one-time password" in line for line in last), shown
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        os.close(master)
        drop_database(database_url, name)
