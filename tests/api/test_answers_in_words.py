"""Wrong or silent answers, each in words (issue 28): every refusal here has a specific stable
``code`` and the facts its page text names (the field, the limit) in ``params``, and changes
nothing. The page's texts for these codes are in static/js/i18n/common.js (checked at the end)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, Role
from app.services import accounts
from app.services.logins import normalise_login
from app.services.service_errors import ConflictError
from tests.api.conftest import AT_1900, AT_2215, PASSWORD, LoggedIn, log_in

ROOT = Path(__file__).resolve().parents[2]


def refused(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    """Assert a refusal with ``status`` and ``code``; return its ``params`` (or {})."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    params = body.get("params") or {}
    assert isinstance(params, dict)
    return params


async def _sessions(admin: httpx.AsyncClient) -> list[object]:
    return list((await admin.get("/api/sessions")).json())


# 1. An extra session ending before it starts (R-S1).


async def test_an_extra_session_ending_before_it_starts_is_refused(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    before = await _sessions(admin)
    for start, end in (("20:00", "19:00"), ("20:00", "20:00")):
        answer = await admin.post(
            "/api/sessions/extra", json={"date": "2026-12-03", "start": start, "end": end}
        )
        assert refused(answer, 422, "session_ends_before_start") == {"start": start, "end": end}
    assert await _sessions(admin) == before
    made = await admin.post(
        "/api/sessions/extra", json={"date": "2026-12-03", "start": "19:00", "end": "20:00"}
    )
    assert made.status_code == 201, made.text


async def test_an_extra_session_in_the_past_or_overlapping_says_which(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    # The clock: Monday 30 November 2026, 12:00 Moscow time.
    admin, _ = await logged_in(Role.admin)
    yesterday = await admin.post("/api/sessions/extra", json={"date": "2026-11-29"})
    assert refused(yesterday, 422, "session_in_past") == {
        "date": "2026-11-29",
        "end": "22:15",
        "today": "2026-11-30",
    }
    first = await admin.post(
        "/api/sessions/extra", json={"date": "2026-12-03", "start": "18:00", "end": "21:00"}
    )
    assert first.status_code == 201, first.text
    before = await _sessions(admin)
    clash = await admin.post(
        "/api/sessions/extra", json={"date": "2026-12-03", "start": "20:00", "end": "23:00"}
    )
    assert refused(clash, 409, "session_overlaps") == {
        "session_id": first.json()["id"],
        "date": "2026-12-03",
        "start": "18:00",
        "end": "21:00",
    }
    assert await _sessions(admin) == before


# 2. The extension question only after the session's end (R-S2).


async def test_a_table_seated_before_the_start_is_not_asked_to_extend(
    evening, clock: FrozenClock
) -> None:  # type: ignore[no-untyped-def]
    ev = await evening(6)  # checked in at 18:50
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    seated = await ev.admin.post(
        f"/api/drawn-tables/{drawn['id']}/seat",
        json={"mode": "choice", "seats": drawn["member_ids"]},
    )
    assert seated.status_code == 201, seated.text
    table_id = seated.json()["table_id"]
    player = next(c for c, m in ev.players if m.id == drawn["member_ids"][0])
    early = (await player.get(f"/api/tables/{table_id}/extension")).json()
    # R-S1: no deal before 19:00, but that is waiting, not the end: nobody is asked.
    assert early["may_start_deal"] is False and early["past_end"] is False
    clock.set(AT_1900 + timedelta(minutes=5))
    assert (await player.get(f"/api/tables/{table_id}/extension")).json()["past_end"] is False
    clock.set(AT_2215 + timedelta(minutes=1))
    late = (await player.get(f"/api/tables/{table_id}/extension")).json()
    assert late["may_start_deal"] is False and late["past_end"] is True


def test_the_pages_ask_to_extend_only_past_the_end() -> None:
    # The table page and the lobby ask only when the server says the end has passed.
    for page in ("static/js/table/extension.js", "static/js/pages/lobby.js"):
        assert "!ext.past_end" in (ROOT / page).read_text(encoding="utf-8"), page


# 3. The password rule says its limit, before "must differ".


async def test_a_short_first_password_names_the_rule(
    logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    client, me = await logged_in(must_change_password=True)
    hash_before = me.password_hash
    for short in ("abc", "", "1234567"):
        answer = await client.post(
            "/api/auth/password", json={"current_password": PASSWORD, "new_password": short}
        )
        assert refused(answer, 422, "password_too_short") == {"min": 8}
    same = await client.post(
        "/api/auth/password", json={"current_password": PASSWORD, "new_password": PASSWORD}
    )
    refused(same, 422, "same_password")
    await db_session.refresh(me)
    assert me.password_hash == hash_before and me.must_change_password is True
    ok = await client.post(
        "/api/auth/password", json={"current_password": PASSWORD, "new_password": "12345678"}
    )
    assert ok.status_code == 200, ok.text


async def test_a_short_password_by_a_reset_link_names_the_rule(
    logged_in: LoggedIn, client: httpx.AsyncClient
) -> None:
    admin, _ = await logged_in(Role.admin)
    _, member = await logged_in()
    token = (await admin.post(f"/api/members/{member.id}/password-reset")).json()["token"]
    answer = await client.post(
        "/api/auth/password-reset", json={"token": token, "new_password": "abc"}
    )
    assert refused(answer, 422, "password_too_short") == {"min": 8}
    # the link is not spent by a refusal
    used = await client.post(
        "/api/auth/password-reset", json={"token": token, "new_password": "abcdefgh"}
    )
    assert used.status_code == 200, used.text


def test_the_password_page_knows_the_servers_limit() -> None:
    page = (ROOT / "static/js/pages/login.js").read_text(encoding="utf-8")
    match = re.search(r"export const MIN_PASSWORD = (\d+);", page)
    assert match is not None and int(match.group(1)) == accounts.MIN_PASSWORD
    # the page checks the length before the repeat, as the server checks it before the rest
    assert page.index("password.length < MIN_PASSWORD") < page.index('t("pw.mismatch")')
    api = (ROOT / "static/js/api.js").read_text(encoding="utf-8")
    assert "same_password" not in api  # no status is read as "must differ" any more


# 4. A login taken, a name too long, an empty proposal title.


async def _count_members(db: AsyncSession) -> int:
    return int(await db.scalar(select(func.count()).select_from(Member)) or 0)


async def test_a_login_already_taken_is_login_taken(
    logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    admin, _ = await logged_in(Role.admin)
    first = await admin.post("/api/members", json={"login": "petrov", "display_name": "Пётр"})
    assert first.status_code == 201, first.text
    count = await _count_members(db_session)
    for again in ("petrov", " PETROV "):
        answer = await admin.post("/api/members", json={"login": again, "display_name": "X"})
        assert refused(answer, 409, "login_taken") == {"login": "petrov"}
    assert await _count_members(db_session) == count


async def test_a_name_too_long_names_the_field_and_its_limit(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    before = (await admin.get("/api/members")).json()
    answer = await admin.post("/api/members", json={"login": "longname", "display_name": "Я" * 300})
    assert refused(answer, 422, "invalid_input") == {
        "field": "display_name",
        "problem": "too_long",
        "limit": 100,
    }
    assert (await admin.get("/api/members")).json() == before
    own = await admin.patch("/api/auth/me", json={"display_name": "x" * 300})
    assert refused(own, 422, "invalid_input")["field"] == "display_name"
    empty = await admin.patch("/api/auth/me", json={"display_name": ""})
    assert refused(empty, 422, "invalid_input") == {"field": "display_name", "problem": "required"}
    weeks = await admin.post("/api/sessions/generate", json={"weeks": 99})
    assert refused(weeks, 422, "invalid_input") == {
        "field": "weeks",
        "problem": "too_big",
        "limit": 52,
    }


async def test_an_empty_proposal_title_is_title_required(logged_in: LoggedIn) -> None:
    member, _ = await logged_in()
    for title in ("", "   "):
        answer = await member.post("/api/fund/proposals", json={"title": title, "amount": "5.00"})
        refused(answer, 422, "fund_title_required")
    assert (await member.get("/api/fund/proposals")).json()["may_propose"] is True


# 5. Cyrillic logins, normalised and compared case-insensitively; no mixed scripts.


async def test_a_cyrillic_login_is_accepted_and_case_insensitive(
    logged_in: LoggedIn, client: httpx.AsyncClient, db_session: AsyncSession
) -> None:
    admin, _ = await logged_in(Role.admin)
    made = await admin.post("/api/members", json={"login": "Иван", "display_name": "Иван"})
    assert made.status_code == 201, made.text
    assert made.json()["member"]["login"] == "иван"
    password = made.json()["one_time_password"]
    for typed in ("иван", "ИВАН", " Иван "):
        assert (await log_in(client, typed, password)).status_code == 200, typed
    count = await _count_members(db_session)
    taken = await admin.post("/api/members", json={"login": "ИВАН", "display_name": "X"})
    assert refused(taken, 409, "login_taken") == {"login": "иван"}
    assert await _count_members(db_session) == count


def test_a_login_is_normalised_nfkc_and_case_folded() -> None:
    assert normalise_login("  ИВАН ") == "иван"
    assert normalise_login("ＩＶＡＮ") == "ivan"  # full-width Latin
    assert normalise_login("и\u0306горь") == "йгорь"  # и + combining breve is й


@pytest.mark.parametrize(
    ("login", "code"),
    [
        ("иvan", "login_mixed_scripts"),  # a Latin v among Cyrillic letters
        ("pаvel", "login_mixed_scripts"),  # a Cyrillic а among Latin letters
        ("ivan!", "login_bad_characters"),
        ("ιβαν", "login_bad_characters"),  # Greek look-alikes
        ("іван", "login_bad_characters"),  # the Ukrainian і, a look-alike of the Latin i
        ("   ", "login_required"),
    ],
)
async def test_a_look_alike_or_bad_login_is_refused(
    logged_in: LoggedIn, db_session: AsyncSession, login: str, code: str
) -> None:
    admin, _ = await logged_in(Role.admin)
    count = await _count_members(db_session)
    answer = await admin.post("/api/members", json={"login": login, "display_name": "X"})
    refused(answer, 422, code)
    assert await _count_members(db_session) == count


async def test_the_database_refuses_a_second_normalised_login(db_session: AsyncSession) -> None:
    # The unique index on members.login holds case-insensitively because every write stores
    # the normalised form: the same login twice is refused by the database itself.
    member, _ = await accounts.create_member(
        db_session, login="Ёжик", display_name="Ё", role=Role.member
    )
    assert member.login == "ёжик"
    with pytest.raises(IntegrityError):
        async with db_session.begin_nested():
            db_session.add(
                Member(
                    login=normalise_login("ЁЖИК"),
                    display_name="Ё",
                    role=Role.member,
                    password_hash=None,
                    must_change_password=True,
                    active=True,
                    is_bot=False,
                )
            )
            await db_session.flush()
    with pytest.raises(ConflictError) as taken:
        await accounts.create_member(db_session, login="ЁЖИК", display_name="Ё", role=Role.member)
    assert taken.value.code == "login_taken"


# The page texts of every code above, in both languages.

CODES = [
    "session_ends_before_start",
    "session_in_past",
    "session_overlaps",
    "password_too_short",
    "same_password",
    "login_taken",
    "login_required",
    "login_too_long",
    "login_bad_characters",
    "login_mixed_scripts",
]
PROBLEMS = ["required", "too_short", "too_long", "too_small", "too_big", "bad_character", "invalid"]


def test_every_new_code_has_russian_and_english_words() -> None:
    catalogue = (ROOT / "static/js/i18n/common.js").read_text(encoding="utf-8")
    pair = '": ["'  # each key is followed by its Russian and English: "key": ["ru", "en"]
    for code in CODES:
        assert catalogue.count(f'"err.code.{code}{pair}') == 1, code
    for problem in PROBLEMS:
        assert catalogue.count(f'"err.input.{problem}{pair}') == 1, problem
    docs = (ROOT / "docs/club.md").read_text(encoding="utf-8")
    for code in CODES:
        assert f"`{code}`" in docs, code


def test_the_chat_limit_the_page_says_is_the_servers() -> None:
    """«Сообщение в чат: не длиннее 500 символов» (tp.err.chat_too_long) names the server's
    limit (app/realtime/game.py CHAT_MAX_CHARS), and every chat refusal has words."""
    from app.realtime.game import CHAT_MAX_CHARS

    catalogue = (ROOT / "static/js/i18n/table-words.js").read_text(encoding="utf-8")
    line = next(x for x in catalogue.splitlines() if '"tp.err.chat_too_long"' in x)
    assert f"не длиннее {CHAT_MAX_CHARS} символов" in line, line
    for code in ("chat_empty", "chat_too_long", "bad_character"):
        assert f'"tp.err.{code}": ["' in catalogue, code
