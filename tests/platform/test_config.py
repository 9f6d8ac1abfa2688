"""Settings: secrets, origins, time zone."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import InsecureSettingsError, Settings


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
