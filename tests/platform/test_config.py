"""Settings: secrets, origins, time zone, and the README naming every one an operator sets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import InsecureSettingsError, Settings
from tests.support.server import PROJECT_ROOT


def test_development_generates_and_keeps_a_secret(tmp_path: Path) -> None:
    first = Settings(PREFCLUB_DATA_DIR=tmp_path).resolved_secret()
    second = Settings(PREFCLUB_DATA_DIR=tmp_path).resolved_secret()
    assert first == second
    assert len(first) >= 40
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("secret", [None, "changeme", "secret"])
def test_production_refuses_missing_or_placeholder_secret(
    tmp_path: Path, secret: str | None
) -> None:
    settings = Settings(PREFCLUB_DATA_DIR=tmp_path, PREFCLUB_ENV="production", SECRET_KEY=secret)
    with pytest.raises(InsecureSettingsError):
        settings.resolved_secret()


def test_production_accepts_a_real_secret(tmp_path: Path) -> None:
    settings = Settings(PREFCLUB_DATA_DIR=tmp_path, PREFCLUB_ENV="production", SECRET_KEY="k" * 48)
    assert settings.resolved_secret() == "k" * 48


def test_allowed_origins_from_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://club.example, https://b.example/")
    settings = Settings()
    assert settings.allowed_origins == ["https://club.example", "https://b.example"]
    assert "https://club.example" in settings.origins()


def test_unknown_time_zone_is_rejected() -> None:
    with pytest.raises(ValidationError, match="CLUB_TZ"):
        Settings(CLUB_TZ="Mars/Olympus")


def test_default_zone_is_moscow() -> None:
    assert Settings().club_tz == "Europe/Moscow"


def test_password_hashing_costs_the_librarys_default_unless_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """64 MiB × 3 passes by default; the suite's cheaper cost is only its own environment."""
    monkeypatch.delenv("PREFCLUB_ARGON2_MEMORY_KIB", raising=False)
    monkeypatch.delenv("PREFCLUB_ARGON2_TIME_COST", raising=False)
    settings = Settings()
    assert (settings.argon2_memory_kib, settings.argon2_time_cost) == (65536, 3)


@pytest.mark.parametrize(
    ("memory", "passes"), [(47104, 1), (19456, 2), (12288, 3), (9216, 4), (7168, 5), (65536, 3)]
)
def test_owasps_recommended_hashing_costs_are_accepted(memory: int, passes: int) -> None:
    settings = Settings(PREFCLUB_ARGON2_MEMORY_KIB=memory, PREFCLUB_ARGON2_TIME_COST=passes)
    assert (settings.argon2_memory_kib, settings.argon2_time_cost) == (memory, passes)


@pytest.mark.parametrize(
    ("memory", "passes"), [(19456, 1), (7167, 6), (1024, 40), (4096, 20), (65536, 0), ("lots", 2)]
)
def test_a_hashing_cost_below_owasps_least_is_refused(memory: object, passes: int) -> None:
    with pytest.raises(ValidationError, match=r"PREFCLUB_ARGON2|argon2"):
        Settings(PREFCLUB_ARGON2_MEMORY_KIB=memory, PREFCLUB_ARGON2_TIME_COST=passes)


@pytest.mark.parametrize(
    ("environ", "parameters"),
    [
        ({}, "m=65536,t=3,p=1"),
        (
            {"PREFCLUB_ARGON2_MEMORY_KIB": "47104", "PREFCLUB_ARGON2_TIME_COST": "1"},
            "m=47104,t=1,p=1",
        ),
    ],
)
def test_a_process_hashes_at_the_cost_of_its_environment(
    environ: dict[str, str], parameters: str
) -> None:
    """What a server or a ``prefclub`` command stores: the parameters are written in the hash."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFCLUB_ARGON2_")}
    code = "from app.security.passwords import hash_password as h, verify_password as v\n"
    code += "x = h('a password'); assert v('a password', x); print(x)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, **environ},
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_ROOT,
    ).stdout
    assert out.startswith(f"$argon2id$v=19${parameters}$"), out


TEST_ONLY_SETTINGS = {"PREFCLUB_TEST_CLOCK"}
"""Settings a club's server never sets (honoured only with ``PREFCLUB_ENV=test``,
docs/browser.md)."""


def test_the_readme_names_every_setting_an_operator_turns() -> None:
    """Each environment variable of :class:`Settings` has its row in the README's table."""
    table = [
        line
        for line in (PROJECT_ROOT / "README.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    named = {name for line in table for name in line.split("|")[1].replace("`", "").split(", ")}
    aliases = {str(field.validation_alias) for field in Settings.model_fields.values()}
    assert aliases - TEST_ONLY_SETTINGS - {n.strip() for n in named} == set()
