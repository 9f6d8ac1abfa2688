"""Running ``prefclub backup``/``restore``/``verify`` as real subprocesses in tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.server import PROJECT_ROOT


def prefclub(
    env: dict[str, str], *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m app.cli ARGS`` with ``env`` over the test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, "LOG_LEVEL": "WARNING", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def digest(env: dict[str, str]) -> str:
    """The last line of ``prefclub verify`` (which must succeed)."""
    result = prefclub(env, "verify")
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("digest sha256:") and len(last) == len("digest sha256:") + 64
    return last


def url_env(url: str, data_dir: Path) -> dict[str, str]:
    """The environment of commands over the database ``url``."""
    return {"DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(data_dir)}
