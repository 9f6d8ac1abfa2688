"""Arabic bombs that belong to a player (issue 26; RULES.md R-A1..R-A4).

Seed 004: "Сразу записывается три бомбы"; "За «пас в тёмную» записывается первая бомба, за
второй подряд — вторая…"; a dark game "пишется с умножением на 2 (с учетом бомб…)"; a made
«преферанс» — "обнуляются все его бомбы". K96 3.3.19 with notes 29-31: a bomb is used on its
owner's next games in the order earned, a made game destroys it, a lost one keeps it, factors
multiply. Every deal is hand-built; every number is worked out in the docstring (prices: 6 → 2,
7 → 4, 8 → 6, misère 10; Sochi scoring, whists = price per trick, remiz × 1).
"""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction
from typing import Any

from app.commands.score import run_score
from app.rules import Conventions
from app.rules.core.outcome import DealOutcome, seat_marks
from app.rules.scoring.pulka import Pulka
from tests.support.scoring import arabic_record, game, ints, misere, new, pass_out, penalty

ARABIC = Conventions.preset_named("arabic")
NO_OPENING = ARABIC.with_overrides({"opening_bombs": 0})
DARK = frozenset({"dark"})


def _after_opening(players: int = 3) -> Pulka:
    """The three opening rounds played (3 × players forced pass-outs, a 4/3/3 split each)."""
    pulka = new(ARABIC, players=players, first_dealer=0)
    for d in range(3 * players):
        dealer = d % players
        tricks = {(dealer + 1) % players: 4, (dealer + 2) % players: 3, (dealer + 3) % players: 3}
        if players == 4:
            tricks[dealer] = 0
        pulka, _ = pulka.record(pass_out(dealer, tricks))
    return pulka


def _dark_pass_out(
    dealer: int, tricks: dict[int, int], open_passes: tuple[int, ...] = ()
) -> DealOutcome:
    """A pass-out after a dark pass; ``open_passes``: who passed openly (R-A1: no bomb)."""
    return dataclasses.replace(
        pass_out(dealer, tricks), marks=DARK | seat_marks("open_passes", open_passes)
    )


def test_r_a1_the_opening_writes_three_bombs_to_every_player() -> None:
    """R-A1 (004 "Сразу записывается три бомбы"): after the opening each of the three players
    holds ×2, ×4, ×8, and his next game is worth ×2."""
    pulka = _after_opening()
    assert pulka.carried.bombs == ((2, 4, 8),) * 3  # type: ignore[attr-defined]
    assert pulka.seat_marks() == [{"bombs": 3, "next_game": 2}] * 3


def test_r_a2_the_first_6h_made_after_the_opening_is_4_then_8_then_16() -> None:
    """R-A2: seat 1's bombs are used in order on his games. The first 6♥ made (price 2) is on
    ×2: 4 into the pool (today's wrong reading wrote 2); it uses the bomb up, so his next 6♥ is
    on ×4: 8; the third on ×8: 16. Seat 2's 6♥ in between is on his own first bomb: 4."""
    pulka = _after_opening()
    assert pulka.next_dealer == 0  # 9 deals passed clockwise: seat 0 deals again
    written = []
    for declarer in (1, 2, 1, 1):
        dealer = pulka.next_dealer
        defence = {s: "pass" for s in range(3) if s != declarer}
        pulka, entries = pulka.record(game(dealer, declarer, "6H", defence))
        written.append((declarer, [(e.column, e.amount) for e in entries]))
    assert written == [
        (1, [("pool", 4)]),
        (2, [("pool", 4)]),
        (1, [("pool", 8)]),
        (1, [("pool", 16)]),
    ]
    assert pulka.seat_marks() == [
        {"bombs": 3, "next_game": 2},
        {"bombs": 0, "next_game": 1},
        {"bombs": 2, "next_game": 4},
    ]


def test_r_a2_k96_note_30_set_keeps_the_bomb_made_uses_it_misere_on_the_next() -> None:
    """R-A2, K96 note 30: with three bombs, seat 1 goes one down on 6♥, makes 7♥, goes down on
    a misère. The set 6♥ is on ×2: hill 1 × 2 × 2 = 4, seat 2's trick whists (5 tricks × 2)
    × 2 = 20, consolation 2 × 2 = 4 from each opponent; the bomb stays. The made 7♥ is on ×2
    too: pool 4 × 2 = 8 (it uses the ×2 up). The misère with one trick is on ×4: hill 10 × 4."""
    pulka = _after_opening()
    set_six = game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 5, 2: 3, 0: 2})
    pulka, entries = pulka.record(set_six)
    assert [(e.seat, e.column, e.amount, e.on) for e in entries] == [
        (1, "hill", 4, None),
        (2, "whists", 20, 1),
        (2, "whists", 4, 1),
        (0, "whists", 4, 1),
    ]
    assert pulka.carried.bombs[1] == (2, 4, 8)  # type: ignore[attr-defined]
    pulka, entries = pulka.record(game(1, 1, "7H", {2: "pass", 0: "pass"}))
    assert [(e.column, e.amount) for e in entries] == [("pool", 8)]
    assert pulka.carried.bombs[1] == (4, 8)  # type: ignore[attr-defined]
    pulka, entries = pulka.record(misere(2, 1, {1: 1, 2: 5, 0: 4}))
    assert [(e.seat, e.column, e.amount) for e in entries] == [(1, "hill", 40)]
    assert pulka.carried.bombs[1] == (4, 8)  # type: ignore[attr-defined]


def test_r_a1_a_dark_pass_out_writes_the_next_bomb_of_his_own_series_7h_is_8() -> None:
    """R-A1, R-A2 (004 "За «пас в тёмную» записывается первая бомба"): no opening; a dark
    pass-out at which seat 2 passed openly writes seats 0 and 1 a ×2 bomb, seat 2 none. Seat 1's
    7♥ made next is 4 × 2 = 8 into the pool (today 4); seat 2's 7♥ after it stays 4."""
    pulka = new(NO_OPENING, first_dealer=0)
    pulka, _ = pulka.record(_dark_pass_out(0, {1: 4, 2: 3, 0: 3}, open_passes=(2,)))
    assert pulka.carried.bombs == ((2,), (2,), ())  # type: ignore[attr-defined]
    pulka, entries = pulka.record(game(0, 1, "7H", {2: "pass", 0: "pass"}))
    assert [(e.column, e.amount) for e in entries] == [("pool", 8)]
    pulka, entries = pulka.record(game(1, 2, "7H", {0: "pass", 1: "pass"}))
    assert [(e.column, e.amount) for e in entries] == [("pool", 4)]


def test_r_a1_his_second_dark_pass_out_in_a_row_is_his_double_bomb() -> None:
    """R-A1 ("за второй подряд «пас в тёмную» — вторая бомба"): seat 1 passes in the dark twice
    in a row and gets ×2 then ×4; seat 2 passed openly the first time, so his dark pass in the
    second is the first of his series: ×2. Seat 0 passed openly the second time: his series
    ends, he keeps his ×2 from the first."""
    pulka = new(NO_OPENING, first_dealer=0)
    pulka, _ = pulka.record(_dark_pass_out(0, {1: 4, 2: 3, 0: 3}, open_passes=(2,)))
    pulka, _ = pulka.record(_dark_pass_out(0, {1: 4, 2: 3, 0: 3}, open_passes=(0,)))
    assert pulka.carried.bombs == ((2,), (2, 4), (2,))  # type: ignore[attr-defined]
    assert pulka.carried.seats == (0, 2, 1)


def test_r_a1_the_four_player_dealer_gets_a_bomb_on_a_dark_pass_out() -> None:
    """R-A1 (K96 3.3.19 "Сдатчик (при игре вчетвером) в случае распасовки также получает
    бомбу"): at four, dealer 0 sits out the bidding and still gets ×2; seat 3 passed openly."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    outcome = _dark_pass_out(0, {1: 4, 2: 3, 3: 3, 0: 0}, open_passes=(3,))
    pulka, _ = pulka.record(outcome)
    assert pulka.carried.bombs == ((2,), (2,), (2,), ())  # type: ignore[attr-defined]


def test_r_a3_a_dark_game_on_the_double_bomb_is_8_times() -> None:
    """R-A3 (K96 note 31 "коэффициенты перемножаются"): after the opening seat 1 made a 6♥
    (×2: pool 4, the bomb used up), so he is on his double bomb ×4; his dark 6♥ whisted by
    both, made with 6 tricks, is × 2 × 4 = × 8: pool 2 × 8 = 16, seat 2 writes 3 tricks × 2 × 8
    = 48, seat 0 1 × 2 × 8 = 16."""
    pulka = _after_opening()
    pulka, _ = pulka.record(game(0, 1, "6H", {2: "pass", 0: "pass"}))
    dark = game(1, 1, "6H", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}, marks=DARK)
    pulka, entries = pulka.record(dark)
    assert [(e.seat, e.column, e.amount, e.on) for e in entries] == [
        (1, "pool", 16, None),
        (2, "whists", 48, 1),
        (0, "whists", 16, 1),
    ]
    assert pulka.seat_marks()[1] == {"bombs": 1, "next_game": 8}


def test_r_a2_a_made_preferans_clears_all_his_bombs() -> None:
    """R-A2 (004 "а так же обнуляются все его бомбы"): seat 1, holding ×2, ×4, ×8 after the
    opening, makes a «преферанс»: he holds no bomb after it, the others keep theirs; a failed
    one (nine tricks) writes nothing and keeps them."""
    pulka = _after_opening()
    failed = game(0, 2, "10NT", {0: "pass", 1: "pass"}, {2: 9, 0: 1, 1: 0},
                  marks=frozenset({"preferans"}))  # fmt: skip
    pulka, entries = pulka.record(failed)
    assert entries == []
    assert pulka.carried.bombs[2] == (2, 4, 8)  # type: ignore[attr-defined]
    made = game(1, 1, "10NT", {2: "pass", 0: "pass"}, {1: 10, 2: 0, 0: 0},
                marks=frozenset({"preferans"}))  # fmt: skip
    pulka, _ = pulka.record(made)
    assert pulka.carried.bombs == ((2, 4, 8), (), (2, 4, 8))  # type: ignore[attr-defined]


def test_r_a4_a_seen_talon_on_an_opening_deal_writes_5() -> None:
    """R-A4 (001 3.2.21: 5 into the hill): on the first opening pass-out (×2) seat 2 saw the
    talon: he takes the first two tricks and writes 5, not 10; the pass-out itself is ×2
    (4/4/2: amnesty 2, seats 1 and 0 write 2 × 2 = 4 each)."""
    pulka = new(ARABIC, first_dealer=0)
    outcome = dataclasses.replace(
        pass_out(0, {1: 4, 2: 2, 0: 4}), penalties=(penalty(2, "talon_seen"),)
    )
    pulka, entries = pulka.record(outcome)
    assert ints(pulka.sheet.hill) == [4, 4, 5]
    assert [(e.seat, e.amount) for e in entries if e.rule == "R-X4"] == [(2, Fraction(5))]


def test_r_a4_a_second_entry_error_on_a_dark_game_writes_its_own_size() -> None:
    """R-A4, R-X11: no opening; the first entry error is free; the second, of 3, on seat 1's
    dark 6♥ (made: pool 2 × 2 = 4) writes 3 into seat 0's hill, not 6."""
    pulka = new(NO_OPENING, first_dealer=0)
    first = game(0, 1, "6C", {2: "pass", 0: "pass"}, penalties=(penalty(2, "entry_error", size=4),))
    pulka, _ = pulka.record(first)
    dark = game(1, 2, "6H", {0: "whist", 1: "whist"}, {2: 6, 0: 3, 1: 1}, marks=DARK,
                penalties=(penalty(0, "entry_error", size=3),))  # fmt: skip
    pulka, entries = pulka.record(dark)
    assert (2, "pool", Fraction(4)) in [(e.seat, e.column, e.amount) for e in entries]
    assert [(e.seat, e.column, e.amount) for e in entries if e.rule == "R-X11"] == [
        (0, "hill", Fraction(3))
    ]


def _score(record: dict[str, Any]) -> dict[str, Any]:
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(record))) == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def test_r_a4_prefclub_score_writes_a_stated_hill_5_as_5() -> None:
    """R-A4: a record's first opening pass-out (×2, 4/4/2, amnesty 2: seats 1 and 0 write 4)
    with ``{"seat": 2, "rule": "talon_seen", "hill": 5}``: ``prefclub score`` writes 5."""
    record = arabic_record([
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 4, "2": 2, "0": 4},
         "penalties": [{"seat": 2, "rule": "talon_seen", "hill": 5}]},
    ], opening_bombs=3)  # fmt: skip
    assert _score(record)["sheet"]["hill"] == [4, 4, 5]


def test_r_a1_pulka_1_carries_open_passes_and_prefclub_score_rescores_the_bombs() -> None:
    """R-A1, R-A2 through ``prefclub score``: a dark pass-out (2 per trick; 4/3/3, amnesty 3:
    seat 1 writes 2) at which seat 0 passed openly (``"open_passes": [0]``): seats 1 and 2 get
    ×2. Seat 1's 7♥ (the 7 exit) made: 4 × 2 = 8; the output shows each player's bombs."""
    record = arabic_record([
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 4, "2": 3, "0": 3}, "dark": True,
         "open_passes": [0]},
        {"dealer": 0, "type": "game", "declarer": 1, "contract": "7H",
         "defence": {"2": "pass", "0": "pass"}},
    ])  # fmt: skip
    scored = _score(record)
    assert scored["sheet"]["pool"] == [0, 8, 0]
    assert scored["sheet"]["hill"] == [0, 2, 0]
    assert scored["seats"] == [
        {"bombs": 0, "next_game": 1},
        {"bombs": 0, "next_game": 1},
        {"bombs": 1, "next_game": 2},
    ]
    pulka = new(NO_OPENING, first_dealer=0)
    pulka, _ = pulka.record(_dark_pass_out(0, {1: 4, 2: 3, 0: 3}, open_passes=(0,)))
    again = Pulka.from_json(pulka.to_json())
    assert again == pulka
    assert pulka.to_json()["events"][0]["deal"]["open_passes"] == [0]


def test_a21_the_spit_on_a_dark_game_on_a_bomb_is_written_without_either() -> None:
    """A-21 (004 "За «плевок» играющий пишет на сдающего игру вистами без учета бомб"), R-A4:
    after the opening seat 1 holds ×2; he wins in the dark, spits the talon and makes his 7♥
    unwhisted. The game is × 2 (dark) × 2 (his bomb): pool 4 × 4 = 16. The spit is the game's
    plain price, 4 whists on the dealer (seat 0): neither the dark ×2 nor the bomb."""
    pulka = _after_opening()
    spat = game(0, 1, "7H", {2: "pass", 0: "pass"}, marks=DARK, talon_returned=True)
    pulka, entries = pulka.record(spat)
    assert [(e.seat, e.column, e.amount, e.on, e.rule) for e in entries][-1] == (
        1,
        "whists",
        4,
        0,
        "A-21",
    )
    assert [(e.seat, e.column, e.amount) for e in entries if e.column == "pool"] == [
        (1, "pool", 16)
    ]
    assert pulka.seat_marks()[1] == {"bombs": 2, "next_game": 4}
