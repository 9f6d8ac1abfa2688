"""The generated secret: a data folder only its owner can enter, a file created 0600 in one step
(never world-readable, never written through a planted symlink), and the secret in use."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from app.config import Settings
from app.security.ratelimit import keyed


def test_the_data_folder_is_created_private(tmp_path: Path) -> None:
    data = tmp_path / "fresh" / "data"
    Settings(PREFCLUB_DATA_DIR=data).resolved_secret()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "secret_key").stat().st_mode) == 0o600


def test_the_secret_file_is_private_even_with_a_lax_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        Settings(PREFCLUB_DATA_DIR=tmp_path / "d").resolved_secret()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "d" / "secret_key").stat().st_mode) == 0o600


def test_a_planted_symlink_is_not_followed(tmp_path: Path) -> None:
    # Someone who can write the data folder plants secret_key -> a file he can read: the
    # server must not write its secret there (os.open with O_CREAT | O_EXCL).
    data = tmp_path / "d"
    data.mkdir()
    target = tmp_path / "stolen"
    (data / "secret_key").symlink_to(target)
    with pytest.raises(OSError):
        Settings(PREFCLUB_DATA_DIR=data).resolved_secret()
    assert not target.exists()


def test_the_secret_keys_the_stored_attempts() -> None:
    assert keyed("one secret", "address", "10.0.0.1") != keyed("another", "address", "10.0.0.1")
    assert "10.0.0.1" not in keyed("one secret", "address", "10.0.0.1")
    assert len(keyed("s", "login", "x" * 64)) == 64  # fits the String(64) columns
