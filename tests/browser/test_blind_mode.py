"""A whole pulka played with the keyboard alone in blind mode (issue 28, docs/browser.md
«Режим для незрячих»), in real Chromium against a real server: a member opens a practice
table from the lobby's form by keys, and at the table only types into the command line —
«подсказка» (and types back what it says), «можно», a card, «сдвиг», «дальше». After every
deal the log is compared with the deal's replay from the archive: every call, every card and
every trick was announced in Russian words, in order; and no line names a card of another
player's hand before it was played. The pulka (to 20) is ended by an admin by agreement (R-P8)
once three deals are checked and the member has typed both calls and cards, so the test's length
is bounded (a pulka to 1 played to its end lasted 3 to 33 deals; three deals may all end
without a card of the member's: his passes, a game written without play), and the page must
say so as it says a pulka's natural end."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

import pytest

from app.db.models import Role
from tests.browser.conftest import scratch_server, screenshot
from tests.browser.test_ui import login, new_page
from tests.support.api_login import logged_in_client
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a blind player's password"
DEALS_BEFORE_AGREEMENT = 3
"""Deals played and checked, at least, before the admin ends the pulka by agreement."""
TARGET = "20"
"""The pulka's target, typed into the lobby's form: far enough that its deals do not end it
before the agreement does."""
ME = "Ника Тихая"
LOG = "[data-testid=blind-log] p"

# The card and call words, written here apart from the page's catalogue: an oracle.
RANK_INS = {
    "7": "семёркой",
    "8": "восьмёркой",
    "9": "девяткой",
    "10": "десяткой",
    "J": "валетом",
    "Q": "дамой",
    "K": "королём",
    "A": "тузом",
}
RANK_NOM = {
    "7": "семёрка",
    "8": "восьмёрка",
    "9": "девятка",
    "10": "десятка",
    "J": "валет",
    "Q": "дама",
    "K": "король",
    "A": "туз",
}
SUIT_GEN = {"S": "пик", "C": "треф", "D": "бубен", "H": "червей", "NT": "без козыря"}
RUSSIAN_R = "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'р', code: 'KeyH'}))"
REFUSALS = ("Не понял", "Сейчас так нельзя", "Отказ", "Такой карты", "Этой картой", "Для сноса")
SPECIAL = {"pass": "пас", "whist": "вист", "half": "полвиста", "misere": "мизер", "here": "здесь"}


def _card(card: str, case: dict[str, str]) -> str:
    return f"{case[card[:-1]]} {SUIT_GEN[card[-1]]}"


def _call(call: str) -> str:
    if call in SPECIAL:
        return SPECIAL[call]
    m = re.fullmatch(r"(\d+)(NT|[SCDH])(BP)?", call)
    assert m, call
    return f"{m[1]} {SUIT_GEN[m[2]]}" + (" без прикупа" if m[3] else "")


def _end_by_agreement(base: str, table_id: int) -> bool:
    """The admin ends the table's pulka by agreement (R-P8): True, or False when it had reached
    its target on its own meanwhile (closing a finished pulka changes nothing)."""
    with closing(logged_in_client(base, "judge", PASSWORD)) as admin:
        answer = admin.post(f"/api/tables/{table_id}/close", json={"reason": "agreement"})
    answer.raise_for_status()
    ended = answer.json()["ended"]
    assert ended in {"agreement", "target"}, answer.json()
    return bool(ended == "agreement")


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _numbered(page: Any) -> list[tuple[int, str]]:
    """The log's lines with their numbers (data-n: the log keeps its last 600 lines)."""
    rows = page.eval_on_selector_all(
        LOG, "ps => ps.map((p) => [Number(p.dataset.n), p.textContent])"
    )
    return [(int(n), str(text)) for n, text in rows]


def _lines(page: Any) -> list[str]:
    return [text for _, text in _numbered(page)]


def _said(page: Any) -> int:
    """How many lines the log has said so far."""
    rows = _numbered(page)
    return rows[-1][0] if rows else 0


def _wait_line(
    page: Any, start: int, test: Any, what: str, timeout: float = 20.0
) -> tuple[int, str]:
    """The first log line numbered above ``start`` that passes ``test``: (number, line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for n, line in _numbered(page):
            if n > start and test(line):
                return n, line
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; the log's last lines: {_lines(page)[-8:]}")


def _type(page: Any, text: str) -> None:
    """Type a line into the command field (it has the focus) and press Enter."""
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def _ask(page: Any, question: str, answers: tuple[str, ...]) -> str:
    """Type ``question`` and wait for the first line that starts with one of ``answers``."""
    start = _said(page)
    _type(page, question)
    return _wait_line(
        page, start, lambda line: line.startswith(answers), f"the answer to «{question}»"
    )[1]


def _move(page: Any, prompt: str, declarer: bool) -> str:
    """What to type for the move ``prompt`` («Ваш ход: …») asks for: the hint, said back."""
    what = prompt.removeprefix("Ваш ход: ").rstrip(".")
    if what.startswith("сдвиньте"):
        return "сдвиг"
    if what.startswith("следующая"):
        return "дальше"
    if what == "вист или пас":
        return "пас"  # a deal nobody whists ends at once (R-W1): the pulka fills sooner
    if what == "вист":
        return "вист"  # R-W6: 6♠ is whisted by both, the pass is not offered
    if what == "ход картой" and not declarer:
        # a defender (or a pass-out) plays the first card the page says is legal
        return _ask(page, "можно", ("Можно: ",)).removeprefix("Можно: ").rstrip(".").split(", ")[0]
    for _ in range(20):
        said = _ask(page, "подсказка", ("Подсказка: ", "Сервер занят", "Подсказки здесь нет"))
        if said.startswith("Подсказка: "):
            return said.removeprefix("Подсказка: ")
        assert said.startswith("Сервер занят"), said
        time.sleep(0.5)
    raise AssertionError("the hint stayed busy")


def _replay(page: Any, base: str, pulka: int, deal_no: int) -> dict[str, Any]:
    r = page.request.get(f"{base}/api/pulkas/{pulka}/deals/{deal_no}")
    assert r.status == 200, r.text()
    return dict(r.json())


def _expected(replay: dict[str, Any], me: int) -> list[str]:
    """The sentences the deal's calls, cards and tricks must have been announced by, in
    order, from the replay's public events (the engine's own record of the deal)."""
    names = replay["names"]

    def who(seat: int) -> str:
        return "Вы" if seat == me else str(names[seat])

    out: list[str] = []
    counts: dict[int, int] = {}
    for e in replay["events"]:
        if e["type"] in ("called", "defended"):
            out.append(f"{who(e['seat'])}: {_call(e['call'])}.")
        elif e["type"] == "talon_card_turned":
            out.append(f"Карта прикупа: {_card(e['card'], RANK_NOM)}.")
        elif e["type"] == "card_played":
            card = _card(e["card"], RANK_INS)
            by = e.get("by", e["seat"])
            if by != e["seat"]:
                verb = "Вы ходите" if by == me else f"{names[by]} ходит"
                out.append(f"{verb} за игрока {names[e['seat']]}: {card}.")
            elif by == me:
                out.append(f"Вы ходите {card}.")
            else:
                out.append(f"{names[by]} ходит {card}.")
        elif e["type"] == "trick_taken":
            w = e["seat"]
            counts[w] = counts.get(w, 0) + 1
            out.append(
                f"Взятка ваша, у вас {counts[w]}." if w == me else f"Взятку берёт {names[w]}:"
            )
    return out


def _in_order(expected: list[str], lines: list[str], deal_no: int) -> None:
    """Each expected sentence is (the start of) a log line, in the same order."""
    at = 0
    for sentence in expected:
        while at < len(lines) and not lines[at].startswith(sentence):
            at += 1
        assert at < len(lines), (
            f"deal {deal_no}: «{sentence}» was never announced (or out of order)"
        )
        at += 1


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose house bots move at once (``PREFCLUB_BOT_THINK=0``): the test waits for
    the blind player's moves, not for the bots' pauses."""
    with scratch_server(database_url, tmp_path_factory, PREFCLUB_BOT_THINK="0") as proc:
        yield proc


def test_a_whole_pulka_by_keyboard_with_every_move_announced(
    server: ServerProcess, browser: Any
) -> None:
    _run(
        add_members(
            server.env["DATABASE_URL"],
            [("blind", ME, Role.member), ("judge", "Судья", Role.admin)],
            PASSWORD,
        )
    )
    base = server.base_url
    page = new_page(browser)
    login(page, base, "blind", PASSWORD)
    page.wait_for_selector("#practice-form")
    # the mode is this browser's (switched once, remembered): switched on before the table opens
    page.evaluate("localStorage.setItem('prefclub.blind', '1')")
    page.focus("#p-target")
    page.keyboard.press("Control+A")
    page.keyboard.type(TARGET)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=blind-command]")
    table_id = int(page.url.rsplit("/", 1)[1])
    # outside the field a letter reads a part of the table, on either layout
    _wait_line(page, 0, lambda s: s.startswith("Стол "), "the snapshot's words")
    start = _said(page)
    page.keyboard.press("r")
    _wait_line(page, start, lambda s: s.startswith(("У вас ", "У вас нет")), "the hand read by «r»")
    # Playwright types only a US layout's keys: a Russian layout's «р» (the key of H) as its event
    start = _said(page)
    page.evaluate(RUSSIAN_R)
    _wait_line(page, start, lambda s: s.startswith(("У вас ", "У вас нет")), "the hand read by «р»")
    start = _said(page)
    page.keyboard.press("k")
    _wait_line(page, start, lambda s: s.startswith(("Идёт торговля", "Контракт", "Сдачи")), "«k»")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "blind-command"
    pulka = page.request.get(f"{base}/api/tables/{table_id}/pulka").json()["id"]
    me = page.evaluate("window.prefclubTable.seat()")
    assert me is not None

    handled = 0  # the number of the last log line acted on
    moves = 0
    kinds: set[str] = set()  # what the moves were: calls, cards
    refused: list[tuple[str, str]] = []
    deals_checked = 0
    deal_start = 0
    heard: dict[int, str] = {}  # every line the log said, by number
    agreed = False  # the admin has ended the pulka: no more moves, only its end is awaited
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 240, "the pulka took too long"
        handled, line = _wait_line(
            page,
            handled,
            lambda s: s.startswith(("Ваш ход: ", "Сдача окончена", "Пулька окончена")),
            "a move, a deal's end or the pulka's end",
            timeout=60,
        )
        heard.update(_numbered(page))
        if line.startswith("Сдача окончена"):
            deals_checked += 1
            expected = _expected(_replay(page, base, pulka, deals_checked), me)
            if deals_checked == 1:
                # the calls made before the page connected were read out as its snapshot
                mine = next(i for i, s in enumerate(expected) if s.startswith("Вы: "))
                expected = expected[mine:]
            deal = [heard[n] for n in sorted(heard) if deal_start < n <= handled]
            _in_order(expected, deal, deals_checked)
            deal_start = handled
            typed_both = kinds == {"call", "card"}
            if deals_checked >= DEALS_BEFORE_AGREEMENT and typed_both and not agreed:
                agreed = _end_by_agreement(base, table_id)
            continue
        if line.startswith("Пулька окончена"):
            break
        if agreed:
            continue  # a deal dealt before the agreement landed: the pulka's end comes next
        declarer = page.evaluate("window.prefclubTable.declarer()") == me
        typed = _move(page, line, declarer)
        start = _said(page)
        _type(page, typed)
        # the move was taken (the log says «Вы …», or a new deal starts), or refused in words
        _, answer = _wait_line(
            page,
            start,
            lambda s: s.startswith(("Вы", "Сдача ", *REFUSALS)),
            f"the answer to «{typed}» after «{line}»",
        )
        # a typed move is always understood, and the move the page asked for is taken: the
        # prompt names only the calls the rules allow (a «пас» under R-W6 was once refused)
        assert not answer.startswith("Не понял"), (typed, answer)
        if answer.startswith(REFUSALS):
            refused.append((typed, answer))
        moves += 1
        kinds.add("card" if line.startswith("Ваш ход: ход картой") else "call")

    took = time.monotonic() - started
    print(f"blind pulka: {deals_checked} deals, {moves} moves, by agreement {agreed}, {took:.1f} s")
    # three deals or more, every line of each checked against its replay, with calls and cards
    # typed (three deals once ended with calls alone: 10 moves, no card of the member's)
    assert deals_checked >= DEALS_BEFORE_AGREEMENT, (deals_checked, moves, kinds)
    assert kinds == {"call", "card"}, (deals_checked, moves, kinds)
    assert not refused, refused
    lines = list(heard.values())
    # every line is Russian words: no raw card code, catalogue key or English server text
    assert all(re.search(r"[а-яё]", s, re.I) for s in lines), [
        s for s in lines if not re.search(r"[а-яё]", s, re.I)
    ]
    assert not any(re.search(r"\b(?:10|[2-9JQKA])[SCDH]\b|bl\.|tp\.", s) for s in lines)
    screenshot(page, "blind-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "blind-390")
