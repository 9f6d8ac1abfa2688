"""Luck apart from skill (issue 27, docs/luck.md): hand-worked figures for fixed deals.

Club rules at three players, a fresh pulka, dealer 0 (forehand 1). One game point (price) of
a 6 is 2, of a 7 4, of an 8 6; a whisted trick is price × 2 whists (``whist_multiplier``), an
undertrick price × 2 on the hill (``remiz_multiplier``). A pool point counts twice against the
hill (R-P9, ``closing = double``) and a hill point is ten whists against the mean (R-P4).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from app.rules import Pulka
from app.rules.core.outcome import Contract, DealOutcome
from app.rules.scoring.luck import card_worth, deal_value, shifted, weigh_deal
from app.rules.scoring.sheet import Entry


def _analysis(contract: str) -> dict[str, Any]:
    """A game of ``contract`` by seat 1: double-dummy he makes 7 with his own discard and 8
    with the best one; he misplays twice and defender 2 gives one trick back (7 → 6 → 7 → 6)."""
    return {
        "seats": [1, 2, 0],
        "makeable": {
            "1": {"S": 7, "C": 4, "D": 3, "H": 2, "NT": 5},
            "2": {"S": 2, "C": 5, "D": 3, "H": 4, "NT": 3},
            "0": {"S": 1, "C": 3, "D": 4, "H": 5, "NT": 6},
        },
        "misere": {"1": {"tricks": 3}, "2": {"tricks": 1}, "0": {"tricks": 0}},
        "contract": {"declarer": 1, "contract": contract, "misere": False, "tricks": 7, "taken": 6},
        "best_discard": {"cards": ["7C", "8D"], "tricks": 8, "ties": 1},
        "pass_out": None,
        "plays": [
            {"trick": 1, "seat": 1, "card": "JS", "loss": 1},
            {"trick": 4, "seat": 2, "card": "7H", "loss": 1},
            {"trick": 6, "seat": 1, "card": "9D", "loss": 1},
        ],
        "plays_complete": True,
    }


def _game(strain: str) -> DealOutcome:
    return DealOutcome(
        dealer=0,
        kind="game",
        declarer=1,
        contract=Contract(6, strain),  # type: ignore[arg-type]
        defence={2: "whist", 0: "whist"},
        tricks={1: 6, 2: 3, 0: 1},
    )


def test_deal_value_is_the_settlement_of_one_deal() -> None:
    """R-P4, R-P9: 6♠ made, one whister writing 4 on him. Pool 2 is −4 on the hill: mean
    −4/3, so the declarer gets 10·(−4/3 + 4) − 4 = 68/3, the others −40/3 and +4 − 40/3."""
    entries = [
        Entry(0, 1, "pool", Fraction(2), "R-P1"),
        Entry(0, 2, "whists", Fraction(4), "R-P1", 1),
    ]
    assert deal_value(entries, 3, "double") == (Fraction(-40, 3), Fraction(68, 3), Fraction(-28, 3))
    assert sum(deal_value(entries, 3, "double")) == 0
    assert deal_value(entries, 3, "once")[1] == 10 * (Fraction(-2, 3) + 2) - 4  # once: −2


def test_shifted_moves_tricks_from_the_richest_and_to_the_poorest() -> None:
    assert shifted({1: 6, 2: 3, 0: 1}, 1, 8, [2, 0]) == {1: 8, 2: 1, 0: 1}
    assert shifted({1: 6, 2: 3, 0: 1}, 1, 5, [2, 0]) == {1: 5, 2: 3, 0: 2}
    assert shifted({1: 9, 2: 1, 0: 0}, 1, 11, [2, 0]) == {1: 10, 2: 0, 0: 0}


def test_card_worth_is_the_best_game_or_clean_misere() -> None:
    """Seat 1 makes 7♠: 7♠ whisted by both (defence 3 ≥ the requirement 2, R-P2; split 2/1):
    pool 4 is −8 on the hill, 10·(−8/3 + 8) − 3·8 = 88/3. Seat 0 makes 6NT (worth 32/3) but
    his misère is clean: pool 10 → 10·(−20/3 + 20) = 400/3. Seat 2 makes nothing: 0."""
    pulka = Pulka.new(3, target=20)
    analysis = _analysis("6S")
    assert card_worth(pulka, 0, 1, analysis) == Fraction(88, 3)
    assert card_worth(pulka, 0, 0, analysis) == Fraction(400, 3)
    assert card_worth(pulka, 0, 2, analysis) == 0


def test_stalingrad_game_bidding_and_play() -> None:
    """6♠ by seat 1, both whisting, 6 tricks taken (7 double-dummy, 8 with the best discard).

    Bidding: at double-dummy 7 tricks {2: 2, 0: 1} the defence's 3 < 4 (R-P2): seat 0 is one
    short of his share 2 and pays 2 on the hill; the declarer 10·(−2/3 + 4) − 12 = 64/3. The
    best discard makes 8♠ with 8 tricks: 10·(−4 + 12) − 2·12 = 56. Loss 56 − 64/3 = 104/3.
    Play, declarer: his two costly cards, 8 tricks instead of 6: at 8 the defence's 2 makes both
    whisters pay 2 (mean 0): 40 − 8 = 32, against 80/3 − 16 = 32/3 as played: 64/3.
    Play, defender 2: the trick he gave, 5 instead of 6: remiz 4 on the hill (mean 4/3), the
    whisters write 12 + 2 and 8 + 2: side 40/3 + 14 + 40/3 + 10 = 152/3, against −32/3: 184/3.
    Defence: 6♠ must be whisted by both (R-W6), so no call is judged."""
    luck = weigh_deal(Pulka.new(3, target=20), _game("S"), _analysis("6S"))
    assert set(luck) == {0, 1, 2}
    assert luck[1].bidding == Fraction(104, 3)
    assert luck[1].play == Fraction(64, 3)
    assert luck[2].play == Fraction(184, 3)
    assert luck[0].play == 0
    assert luck[0].defence == luck[2].defence == 0
    assert luck[1].lost == Fraction(104 + 64, 3)


def test_whist_or_pass_against_the_double_dummy_result() -> None:
    """6♣ (no Stalingrad), double-dummy 7 tricks {2: 2, 0: 1}. Seat 0 whisted with 1 trick and
    pays 2 on the hill (R-P2): 4 − 10·(2 + 2/3) = −68/3. Had he passed, seat 2 alone writes the
    3 tricks and pays 2 (4 − 3 = 1 short): seat 0 gets 10·(−2/3) = −20/3. Loss 16. Seat 2 was
    right to whist (4/3 against −20/3): 0."""
    luck = weigh_deal(Pulka.new(3, target=20), _game("C"), _analysis("6C"))
    assert luck[0].defence == 16
    assert luck[2].defence == 0
    assert luck[1].defence == 0


def test_pass_out_play() -> None:
    """R-R4: a pass-out {1: 4, 2: 3, 0: 3}; seat 1's cards cost him 2 tricks. As played he
    writes (4 − 3) × 2 = 2 on the hill: 10·(2/3 − 2) = −40/3. With 2 tricks (the others 4 and
    4) the others write 4 each: 10·(8/3) = 80/3. Loss 40. An incomplete analysis says so."""
    analysis = {
        "seats": [1, 2, 0],
        "makeable": {"1": {"S": 6}, "2": {}, "0": {}},
        "misere": {},
        "contract": None,
        "plays": [{"seat": 1, "loss": 2}, {"seat": 2, "loss": 0}],
        "plays_complete": False,
    }
    outcome = DealOutcome(dealer=0, kind="pass_out", tricks={1: 4, 2: 3, 0: 3})
    luck = weigh_deal(Pulka.new(3, target=20), outcome, analysis)
    assert luck[1].play == 40
    assert luck[2].play == luck[0].play == 0
    assert luck[1].worth == Fraction(32, 3)  # 6♠ whisted by both, 2/2: 80/3 − 16
    assert not luck[1].complete
