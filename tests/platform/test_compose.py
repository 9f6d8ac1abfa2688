"""docker-compose.yml is valid and wires the app to the database service."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_compose_config_validates() -> None:
    result = subprocess.run(["docker-compose", "config"], cwd=ROOT, capture_output=True,
                            text=True, env={"PATH": "/usr/bin:/bin"}, check=False)
    assert result.returncode == 0, result.stderr
    assert "postgres:16" in result.stdout
    assert "@db:5432/prefclub" in result.stdout
    assert "service_healthy" in result.stdout


def test_dockerfile_runs_migrations_then_serves() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "prefclub migrate && prefclub serve" in text
