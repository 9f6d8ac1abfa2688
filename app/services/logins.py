"""Login names: how a typed login is normalised and which logins the club accepts (issue 28).

A Russian club expects Cyrillic logins («иван»), and a member types his login as he likes
(«Иван», «ИВАН»): every login is stored, looked up and compared in one normal form, NFKC then
``casefold()`` with the surrounding spaces stripped, so the unique index on ``members.login``
holds case-insensitively at the database for every write that goes through
:func:`normalise_login` (account creation, ``prefclub create-admin``, the login itself).

A login may hold letters of one script, Latin (a-z) or Russian Cyrillic (а-я, ё), digits and
``_ . -``. Letters of both scripts in one login are refused: «иvan» with a Latin ``v`` looks
like «иван» on screen, and nobody should be able to pass for another member. Other letters
are refused too (Greek ones and the Ukrainian «і» are look-alikes of Latin ones).

Each refusal is a :class:`ServiceError` with a stable code and the limit in ``params``.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from app.services.service_errors import ServiceError

MAX_LOGIN = 64
"""The ``members.login`` column's length."""

PUNCTUATION = frozenset("_.-")
"""The characters besides letters and digits a login may hold."""

Script = Literal["latin", "cyrillic"]


def normalise_login(login: str) -> str:
    """The stored form of a typed login: NFKC, then case-folded, surrounding spaces stripped
    («  Иван » → «иван», «ＩＶＡＮ» (full-width) → «ivan»)."""
    return unicodedata.normalize("NFKC", login).casefold().strip()


def _script(ch: str) -> Script | None:
    """The script of a (case-folded) letter the club accepts, else None."""
    if "a" <= ch <= "z":
        return "latin"
    if "\u0430" <= ch <= "\u044f" or ch == "\u0451":  # а-я and ё
        return "cyrillic"
    return None


def check_login(login: str) -> str:
    """The normalised ``login`` if the club accepts it; otherwise a 422 naming what is wrong:
    ``login_required`` (empty), ``login_too_long`` (``{"max": 64}``), ``login_bad_characters``
    (``{"character": "!"}``, the first one refused) or ``login_mixed_scripts`` (Latin and
    Cyrillic letters in one login)."""
    name = normalise_login(login)
    if not name:
        raise ServiceError("the login must not be empty", status=422, code="login_required")
    if len(name) > MAX_LOGIN:
        raise ServiceError(
            f"the login must be at most {MAX_LOGIN} characters long",
            status=422,
            code="login_too_long",
            params={"max": MAX_LOGIN},
        )
    scripts: set[Script] = set()
    for ch in name:
        if ch.isascii() and (ch.isdigit() or ch in PUNCTUATION):
            continue
        script = _script(ch)
        if script is None:
            raise ServiceError(
                f"a login holds only letters (Latin or Cyrillic), digits and _ . - (not {ch!r})",
                status=422,
                code="login_bad_characters",
                params={"character": ch},
            )
        scripts.add(script)
    if len(scripts) > 1:
        raise ServiceError(
            "a login must not mix Latin and Cyrillic letters (look-alikes)",
            status=422,
            code="login_mixed_scripts",
        )
    return name
