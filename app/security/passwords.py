"""Password hashing with Argon2 (pwdlib) and one-time password generation."""

from __future__ import annotations

import secrets

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

_hasher = PasswordHash((Argon2Hasher(),))


def hash_password(password: str) -> str:
    """An Argon2id hash of ``password``."""
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches; a missing hash never matches."""
    if not password_hash:
        _hasher.hash(password)  # spend the same time as a real check
        return False
    try:
        return _hasher.verify(password, password_hash)
    except Exception:
        return False


def one_time_password() -> str:
    """A random password to hand over once; the member must change it after logging in."""
    return secrets.token_urlsafe(12)
