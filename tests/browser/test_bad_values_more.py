"""The bad-value sweep of issue 28, its other forms: the night's corrections (#/night/<id>), the
disputes on a real-cards table (#/recording/<id>), the three password forms (#/password, the
forced first change, the reset link) and the table's chat line. Each bad value gets a specific
message in Russian naming the field and its limit — never a generic «Проверьте введённые
данные» nor, for «abc», the «must differ» rule — and nothing changes on the server (checked over
the API). An empty chat line is not sent at all (the table page's own check, silent)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import ClubSession
from tests.browser.conftest import screenshot
from tests.browser.test_bad_values import ANSWER, NUMBERS, _answer, _assert_words, _type
from tests.browser.test_csp import PASSWORD
from tests.browser.test_notices import _admin_page
from tests.support.api_login import admin_client
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

NUL = "a\u0000bcdefghij"
PASSED = {"type": "game", "declarer": 1, "contract": "7H", "defence": {"2": "pass", "0": "pass"}}


@pytest.fixture(scope="module")
def admin(server: ServerProcess, browser: Any) -> Iterator[tuple[Any, httpx.Client]]:
    """The admin's page (password changed to PASSWORD) and his API client."""
    page = _admin_page(server, browser)
    yield page, admin_client(server.base_url, PASSWORD)
    page.context.close()


async def _ended_session(url: str) -> int:
    """A session that ran from three hours ago until a minute ago (not yet ended)."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            await without_the_monday_sessions(db)
            session = ClubSession(
                starts_at=now - timedelta(hours=3), ends_at=now - timedelta(minutes=1), extra=True
            )
            db.add(session)
            await db.flush()
            return session.id
    finally:
        await engine.dispose()


def _member(api: httpx.Client, login: str) -> dict[str, Any]:
    made = api.post("/api/members", json={"login": login, "display_name": login.title()})
    assert made.status_code == 201, made.text
    return dict(made.json())


def test_the_nights_corrections_say_each_fault(
    server: ServerProcess, admin: tuple[Any, httpx.Client]
) -> None:
    page, api = admin
    with ThreadPoolExecutor(1) as pool:
        night = pool.submit(asyncio.run, _ended_session(server.env["DATABASE_URL"])).result()
    assert api.post(f"/api/sessions/{night}/end").status_code == 200
    before = api.get(f"/api/nights/{night}").json()["corrections"]
    page.goto(f"{server.base_url}/#/night/{night}")
    page.wait_for_selector("#night-correct")
    form = "#night-correct"
    for note in ("", "   ", "я" * 301, NUL):
        _type(page, "#nc-entry", "")
        _type(page, "#nc-note", note)
        _assert_words(_answer(page, form), f"note = {note[:20]!r}")
    for value in ("", "   "):
        _type(page, "#nc-note", value)
        assert "исправлено" in _answer(page, form)
    _type(page, "#nc-note", "я" * 301)
    assert "300" in _answer(page, form)
    _type(page, "#nc-note", NUL)
    assert "недопустимый символ" in _answer(page, form)
    for value in [*[v for v in NUMBERS if v], "999999999"]:
        _type(page, "#nc-note", "Исправлена запись")
        _type(page, "#nc-entry", value)
        answer = _answer(page, form)
        _assert_words(answer, f"entry = {value[:20]!r}")
        assert "касс" in answer, (value, answer)
    assert api.get(f"/api/nights/{night}").json()["corrections"] == before == []

    # the page asks again every 2 s: a half-written correction outlives a redraw (another
    # officer's correction comes in meanwhile), and a sent one leaves the form empty
    page.fill("#nc-note", "Половина записи")
    page.fill("#nc-entry", "12")
    sent = api.post(f"/api/nights/{night}/corrections", json={"note": "Другой казначей"})
    assert sent.status_code == 200, sent.text
    page.wait_for_selector("[data-testid=night-corrections] li:has-text('Другой казначей')")
    assert page.input_value("#nc-note") == "Половина записи"
    assert page.input_value("#nc-entry") == "12"
    page.fill("#nc-note", "Исправлена запись")
    page.fill("#nc-entry", "")
    page.click("#night-correct button[type=submit]")
    page.wait_for_selector("[data-testid=night-corrections] li:has-text('Исправлена запись')")
    assert page.input_value("#nc-note") == ""
    assert len(api.get(f"/api/nights/{night}").json()["corrections"]) == 2


def test_a_dispute_on_a_recorded_table_says_each_fault(
    server: ServerProcess, admin: tuple[Any, httpx.Client]
) -> None:
    page, api = admin
    me = api.get("/api/auth/me").json()["id"]
    seats = [me, _member(api, "boris")["member"]["id"], _member(api, "vera")["member"]["id"]]
    made = api.post("/api/tables", json={"seats": seats, "mode": "recorded"})
    assert made.status_code == 201, made.text
    base = f"/api/tables/{made.json()['id']}/recording"
    entered = api.post(f"{base}/deals", json={"deal_no": 0, "deal": PASSED})
    assert entered.status_code == 201, entered.text
    before = api.get(base).json()
    page.goto(f"{server.base_url}/#/recording/{made.json()['id']}")
    page.wait_for_selector("[data-testid=rec-dispute] input")
    form = "[data-testid=rec-dispute]"
    answers = {}
    for text in ("", "   ", "я" * 501, NUL):
        _type(page, f"{form} input", text)
        answers[text[:5]] = answer = _answer(page, form)
        _assert_words(answer, f"dispute = {text[:20]!r}")
        assert "Почему запись неверна" in answer, (text[:20], answer)
    # spaces alone are an empty field, said before anything is sent (validity.js)
    assert "заполните" in answers[""] and answers["   "] == answers[""], answers
    assert "500" in answers["яяяяя"], answers
    assert "недопустимый символ" in answers[NUL[:5]], answers
    screenshot(page, "bad-values-dispute-1366")
    after = api.get(base).json()
    assert (after["seq"], after.get("disputes")) == (before["seq"], before.get("disputes"))


def _password_sweep(page: Any, form: str, current: str | None) -> None:
    """The new-password faults, each said in words: empty, «abc» (the 8+ rule, not «must
    differ»), 300 characters (the server's 256), a NUL, a repeat that differs."""

    def send(new: str, repeat: str | None = None) -> str:
        if current is not None:
            _type(page, "#current_password", current)
        _type(page, "#new_password", new)
        _type(page, "#repeat_password", new if repeat is None else repeat)
        answer = _answer(page, form)
        _assert_words(answer, f"{form}: new password {new[:20]!r}")
        return answer

    assert "заполните" in send("")
    short = send("abc")
    assert "8" in short and "отличаться" not in short, short
    assert "256" in send("я" * 300)
    assert "недопустимый символ" in send(NUL)
    assert "не совпадают" in send("a long new password", "a long new passworD")
    if current is not None:
        _type(page, "#current_password", "")
        _type(page, "#new_password", "a long new password")
        _type(page, "#repeat_password", "a long new password")
        _assert_words(_answer(page, form), f"{form}: no current password")


def _logs_in(server: ServerProcess, login: str, password: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.base_url) as client:
        answer = client.post("/api/auth/login", json={"login": login, "password": password})
        assert answer.status_code == 200, (login, answer.text)
        return dict(answer.json())


def test_the_password_forms_say_each_fault(
    server: ServerProcess, browser: Any, admin: tuple[Any, httpx.Client]
) -> None:
    page, api = admin
    page.goto(f"{server.base_url}/#/password")
    page.wait_for_selector("#pw-title")
    _password_sweep(page, "form:has(#pw-title)", PASSWORD)
    _logs_in(server, "admin", PASSWORD)  # unchanged
    _type(page, "#current_password", "not the password")  # (then logins wait a second)
    _type(page, "#new_password", "a long new password")
    _type(page, "#repeat_password", "a long new password")
    assert "Текущий пароль неверен" in _answer(page, "form:has(#pw-title)")
    assert api.get("/api/auth/me").status_code == 200  # no session was ended

    made = _member(api, "gleb")
    otp = made["one_time_password"]
    forced = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU").new_page()
    forced.goto(server.base_url + "/")
    forced.fill("#login", "gleb")
    forced.fill("#password", otp)
    forced.click("form button[type=submit]")
    forced.wait_for_selector("#pw-title")
    _password_sweep(forced, "form:has(#pw-title)", otp)
    assert _logs_in(server, "gleb", otp)["must_change_password"] is True
    forced.context.close()

    link = api.post(f"/api/members/{made['member']['id']}/password-reset")
    assert link.status_code == 201, link.text
    reset = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU").new_page()
    reset.goto(server.base_url + link.json()["url"])
    reset.wait_for_selector("#reset-title")
    _password_sweep(reset, "form:has(#reset-title)", None)
    reset.context.close()
    with httpx.Client(base_url=server.base_url) as client:  # the link was not used up
        done = client.post(
            "/api/auth/password-reset",
            json={"token": link.json()["token"], "new_password": "gleb's own password"},
        )
    assert done.status_code == 200, done.text


SEND_AND_READ = f"""(field, value) => {{
  field.value = value;
  field.dispatchEvent(new Event('input', {{ bubbles: true }}));
  field.form.requestSubmit();
  return ({ANSWER})(field.form);
}}"""


def test_a_chat_line_says_its_faults(
    server: ServerProcess, admin: tuple[Any, httpx.Client]
) -> None:
    """The chat goes over the table's socket; a NUL or a line over the server's 500 characters
    (app/realtime/game.py CHAT_MAX_CHARS) is said on the field before anything is sent."""
    page, api = admin
    me = api.get("/api/auth/me").json()["id"]
    seats = [me, _member(api, "dina")["member"]["id"], _member(api, "efim")["member"]["id"]]
    made = api.post("/api/tables", json={"seats": seats})
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    before = api.get(f"/api/tables/{table}").json()
    page.goto(f"{server.base_url}/#/table/{table}")
    page.wait_for_selector(".conn:has-text('На связи')")
    page.wait_for_selector("#chat-text:enabled")
    answers = []
    for text in (NUL, "я" * 501):
        # typed, sent and read in one task: the table page redraws its chat box on the socket's
        # messages, and a new box would not hold the old one's answer
        answers.append(answer := page.locator("#chat-text").evaluate(SEND_AND_READ, text))
        _assert_words(answer, f"chat = {text[:20]!r}")
        assert "Сообщение" in answer, answer
    assert "недопустимый символ" in answers[0] and "500" in answers[1], answers
    after = api.get(f"/api/tables/{table}").json()
    assert after.get("seq") == before.get("seq") and not after.get("chat"), after
