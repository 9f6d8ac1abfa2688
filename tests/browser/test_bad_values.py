"""The bad-value sweep of issue 28, in real Chromium: a fixed list of bad values (empty, 300
characters, an emoji, NUL, ``-5``, ``1e5``, ``1 000``, ``0,001``, a past date, an end before a
start) typed into the fields of the lobby's practice form, the new-member form, the extra
session form and the fund's proposal form. Each answer is a specific message in Russian — the
field's own check (worded by static/js/validity.js, never Chromium's English bubble), the line
under the field, or the server's refusal in words, never a generic «Проверьте введённые данные»
— and nothing changes on the server."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.test_csp import PASSWORD
from tests.browser.test_notices import _admin_page
from tests.support.api_login import admin_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

TEXTS = ["", "я" * 300, "a\u0000b"]
NUMBERS = ["", "-5", "1e5", "1 000", "0,001", "😀", "9" * 300]
MONEY = ["", "-5", "1e5", "0,001", "😀", "1 000 000 000"]
GENERIC = ("Проверьте введённые данные", "Запрос отклонён", "Сервер отклонил запрос")

ANSWER = """(form) => {
  const native = [...form.elements].find((e) => e.willValidate && !e.checkValidity());
  if (native) return native.validationMessage;
  const under = [...form.querySelectorAll(".field-error")].map((e) => e.textContent.trim())
    .find(Boolean);
  return under || null;
}"""


def _type(page: Any, selector: str, value: str) -> None:
    """Put ``value`` into the field as a member would: a number field takes keys one by one
    (the browser keeps what it accepts), any other field the whole text."""
    field = page.locator(selector)
    field.fill("")
    if field.get_attribute("type") == "number":
        field.press_sequentially(value)
    else:
        field.evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }",
            value,
        )


def _answer(page: Any, form: str) -> str:
    """Send the form; the words it answered with (its own check, a line under a field or the
    red notice)."""
    page.evaluate(
        "() => { const n = document.getElementById('notice'); n.hidden = true; n.className = '';"
        " n.textContent = ''; }"
    )
    page.locator(form).evaluate("(f) => f.requestSubmit()")
    own = page.locator(form).evaluate(ANSWER)
    if own:
        return str(own)
    notice = page.locator("#notice.notice-error")
    # the words are asserted, not the speed: the server's answer may come late on a busy box
    notice.wait_for(state="visible", timeout=30000)
    return str(notice.inner_text())


def _assert_words(text: str, what: str) -> None:
    assert text and re.search("[а-яё]", text, re.I), (what, text)
    assert not re.search(r"[A-Za-z]{3,}", text), f"English on a Russian page: {what}: {text!r}"
    assert not any(g in text for g in GENERIC), f"a generic answer: {what}: {text!r}"


def _sweep(page: Any, form: str, field: str, values: list[str], fill: dict[str, str]) -> None:
    for value in values:
        for other, good in fill.items():
            _type(page, other, good)
        _type(page, field, value)
        answer = _answer(page, form)
        _assert_words(answer, f"{field} = {value[:20]!r}")


def test_bad_values_get_specific_words_and_change_nothing(
    server: ServerProcess, browser: Any
) -> None:
    page = _admin_page(server, browser)
    seen = admin_client(server.base_url, PASSWORD)

    def state() -> tuple[int, ...]:
        return (
            len(seen.get("/api/tables").json()),
            len(seen.get("/api/members").json()),
            len(seen.get("/api/sessions").json()),
            len(seen.get("/api/fund/proposals").json()["proposals"]),
        )

    before = state()

    page.goto(server.base_url + "/#/lobby")
    page.wait_for_selector("#practice-form")
    _sweep(page, "#practice-form", "#p-target", NUMBERS, {})
    assert page.url.endswith("#/lobby")

    page.goto(server.base_url + "/#/members")
    page.wait_for_selector("#create-member")
    _sweep(page, "#create-member", "#m-login", [*TEXTS, "😀"], {"#m-name": "Иван"})
    _sweep(page, "#create-member", "#m-name", TEXTS, {"#m-login": "ivan"})

    page.goto(server.base_url + "/#/admin")
    page.wait_for_selector("#extra-session")
    for date, start, end in (
        ("2020-01-06", "19:00", "22:15"),
        ("2030-01-07", "20:00", "19:00"),
        ("", "19:00", "22:15"),
    ):
        for selector, value in (("#x-date", date), ("#x-start", start), ("#x-end", end)):
            _type(page, selector, value)
        answer = _answer(page, "#extra-session")
        _assert_words(answer, f"extra session {date} {start}-{end}")

    page.goto(server.base_url + "/#/fund")
    page.wait_for_selector("#fund-proposal")
    _sweep(page, "#fund-proposal", "#fprop-title-in", TEXTS, {"#fprop-amount": "100"})
    _sweep(page, "#fund-proposal", "#fprop-amount", MONEY, {"#fprop-title-in": "Колода"})

    assert state() == before, "a refused value changed nothing"
    _sweep_seasons_and_payment(page, server, seen)


def _sweep_seasons_and_payment(page: Any, server: ServerProcess, seen: Any) -> None:
    """The season form, the standings' minimum and a fund payment (issue 28's sweep, the
    admin's other forms)."""

    def state() -> tuple[Any, ...]:
        return (
            len(seen.get("/api/seasons").json()),
            seen.get("/api/club/settings").json()["min_pulkas"],
            seen.get("/api/fund").json()["balance"],
        )

    before = state()
    page.goto(server.base_url + "/#/admin")
    page.wait_for_selector("#season-name-new")
    season = "#admin-seasons form:has(#season-name-new)"
    _sweep(
        page,
        season,
        "#season-name-new",
        TEXTS,
        {"#season-first-new": "2026-09-01", "#season-last-new": "2027-05-31"},
    )
    for first, last in (("2027-05-31", "2026-09-01"), ("", "2027-05-31"), ("2026-09-01", "")):
        for selector, value in (
            ("#season-name-new", "Сезон"),
            ("#season-first-new", first),
            ("#season-last-new", last),
        ):
            _type(page, selector, value)
        _assert_words(_answer(page, season), f"season {first}..{last}")
    _sweep(page, "#min-pulkas-form", "#min-pulkas", NUMBERS, {})

    page.goto(server.base_url + "/#/fund")
    page.wait_for_selector("#fund-payment")
    page.select_option("#fp-member", index=1)
    _sweep(page, "#fund-payment", "#fp-amount", MONEY, {})

    assert state() == before, "a refused value changed nothing"
