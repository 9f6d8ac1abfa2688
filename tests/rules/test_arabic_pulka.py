"""Arabic preferans (seed 004) across deals: bombs, opening pass-outs, dealing, penalties.

Rule IDs are docs/rules-arabic.md's; every deal is hand-built and every amount hand-checked.
"""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction

import pytest

from app.commands.score import run_score
from app.rules import Conventions
from app.rules.core.auction import PASS_ONLY_LEVEL
from app.rules.core.outcome import Contract, DealOutcome
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.scoring.settlement import effective_pools
from tests.support.scoring import (
    arabic_record,
    game,
    ints,
    misere,
    new,
    pass_out,
    whists,
    writes,
)

ARABIC = Conventions.preset_named("arabic")
NO_OPENING = ARABIC.with_overrides({"opening_bombs": 0})
SPLIT = {1: 4, 2: 3, 0: 3}
"""A 4/3/3 pass-out of dealer 0: the amnesty is 3, seat 1 writes one trick."""


def test_a1_preset_is_known_and_round_trips_through_pulka_json() -> None:
    """A-1: ``arabic`` is a preset: choosable by name, kept by a persisted pulka."""
    pulka = new(ARABIC)
    pulka, _ = pulka.record(pass_out(0, SPLIT))
    again = type(pulka).from_json(pulka.to_json())
    assert again == pulka
    assert again.conventions.preset == "arabic"
    assert pulka.to_json()["conventions"] == {"preset": "arabic"}


def test_a2_a3_three_bombs_open_with_rounds_of_pass_outs_at_2_4_8() -> None:
    """A-2, A-3: three bombs at the start: a round of forced pass-outs each, ×2, ×4, ×8."""
    pulka = new(ARABIC, first_dealer=0)
    assert pulka.carried.opening_left == 9  # type: ignore[attr-defined]
    factors = []
    for d in range(9):
        assert pulka.next_min_level() == PASS_ONLY_LEVEL
        assert pulka.next_dealer == d % 3  # the opening deal passes clockwise
        factors.append(pulka.bomb_factor())
        pulka, _ = pulka.record(pass_out(d % 3, {(d + 1) % 3: 4, (d + 2) % 3: 3, d % 3: 3}))
    assert factors == [2, 2, 2, 4, 4, 4, 8, 8, 8]
    assert pulka.next_min_level() == 6 and pulka.bomb_factor() == 1
    assert pulka.pass_out_rate() == 1


def test_a2_a4_a_bomb_multiplies_every_entry_of_its_pass_out() -> None:
    """A-2, A-4: on the ×8 bomb a 0/4/6 pass-out writes 32 and 48, and the zero pool 8."""
    pulka = new(ARABIC, first_dealer=0)
    for d in range(6):
        pulka, _ = pulka.record(pass_out(d % 3, {(d + 1) % 3: 4, (d + 2) % 3: 3, d % 3: 3}))
    assert pulka.pass_out_rate() == 8
    pulka, entries = pulka.record(pass_out(0, {1: 0, 2: 4, 0: 6}))
    assert writes(entries) == [
        (2, "hill", Fraction(32), None),
        (0, "hill", Fraction(48), None),
        (1, "pool", Fraction(8), None),
    ]


def test_a3_no_game_is_recorded_during_the_opening_bombs() -> None:
    """A-3: the opening deals are pass-outs only; the engine allows no bid in them."""
    pulka = new(ARABIC, first_dealer=0)
    with pytest.raises(InvalidRecordError) as err:
        pulka.record(game(0, 1, "6H", {2: "pass", 0: "pass"}))
    assert err.value.field == "type"


def test_a5_all_pass_keeps_the_deal_with_exits_at_7_and_8_and_rates_1_2_3() -> None:
    """A-5: after an all-pass the same dealer deals again; 7 then 8 is the lowest game."""
    pulka = new(NO_OPENING, first_dealer=0)
    seen = []
    for _ in range(2):
        seen.append((pulka.next_dealer, pulka.next_min_level(), pulka.pass_out_rate()))
        pulka, _ = pulka.record(pass_out(0, SPLIT))
    seen.append((pulka.next_dealer, pulka.next_min_level(), pulka.pass_out_rate()))
    assert seen == [(0, 6, 1), (0, 7, 2), (0, 8, 3)]
    with pytest.raises(InvalidRecordError):
        pulka.record(pass_out(1, {2: 4, 0: 3, 1: 3}))  # the deal did not pass to seat 1
    with pytest.raises(InvalidRecordError):
        pulka.record(game(0, 1, "7H", {2: "pass", 0: "pass"}))  # the exit is 8 now


def test_a7_third_pass_out_in_a_row_costs_the_three_player_dealer_10() -> None:
    """A-7: the third pass-out in a row passes the deal on and writes 10 into the dealer's hill."""
    pulka = new(NO_OPENING, first_dealer=0)
    for _ in range(2):
        pulka, _ = pulka.record(pass_out(0, SPLIT))
    pulka, entries = pulka.record(pass_out(0, SPLIT))
    assert [(e.seat, e.column, e.amount, e.rule) for e in entries] == [
        (1, "hill", Fraction(3), "R-R4"),
        (0, "hill", Fraction(10), "A-7"),
    ]
    assert ints(pulka.sheet.hill) == [10, 1 + 2 + 3, 0]
    assert (pulka.next_dealer, pulka.next_min_level(), pulka.pass_out_rate()) == (1, 6, 1)


def test_a7_a9_four_players_pay_the_mean_of_the_others_hills() -> None:
    """A-7 at four: the dealer writes the mean of the hill the other three wrote (48 / 3)."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    pulka, first = pulka.record(pass_out(0, {1: 5, 2: 3, 3: 2, 0: 0}))
    pulka, _ = pulka.record(pass_out(0, {1: 4, 2: 4, 3: 2, 0: 0}))
    pulka, third = pulka.record(pass_out(0, {1: 2, 2: 3, 3: 4, 0: 1}))
    # 10 at ×1, 20 at ×2, (1 + 2 + 3) at ×3 = 18: 48 written by seats 1-3; the dealer 16.
    assert ints(pulka.sheet.hill) == [16, 5 + 8 + 3, 3 + 8 + 6, 2 + 4 + 9]
    assert (third[-1].seat, third[-1].amount, third[-1].rule) == (0, Fraction(16), "A-7")
    assert all(e.column == "hill" for e in first)  # the dealer's zero writes no pool
    assert pulka.next_dealer == 1


def test_a9_the_four_player_dealer_writes_no_pool_for_no_tricks() -> None:
    """A-9: at four the dealer takes no pool for zero talon tricks; a player with none does."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    pulka, entries = pulka.record(pass_out(0, {1: 5, 2: 5, 3: 0, 0: 0}))
    assert writes(entries) == [
        (1, "hill", Fraction(5), None),
        (2, "hill", Fraction(5), None),
        (3, "pool", Fraction(1), None),
    ]


def test_a6_caught_misere_keeps_the_deal_a_clean_one_passes_it() -> None:
    """A-6: "если мизер ловленный ... сдача не переходит"."""
    pulka = new(NO_OPENING, first_dealer=0)
    pulka, entries = pulka.record(misere(0, 1, {1: 1, 2: 5, 0: 4}))
    assert writes(entries) == [(1, "hill", Fraction(10), None)]
    assert pulka.next_dealer == 0
    pulka, entries = pulka.record(misere(0, 1, {1: 0, 2: 5, 0: 5}))
    assert writes(entries) == [(1, "pool", Fraction(10), None)]
    assert pulka.next_dealer == 1


def test_a20_four_player_talon_bonus_is_flat_whists() -> None:
    """A-20: two aces in the talon: the dealer writes three whists on the declarer."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    pulka, entries = pulka.record(game(0, 1, "6H", {2: "pass", 3: "pass"}, talon=("AS", "AH")))
    assert writes(entries) == [(1, "pool", Fraction(2), None), (0, "whists", Fraction(3), 1)]
    assert entries[-1].rule == "A-20"
    assert whists(pulka)[0][1] == 3


@pytest.mark.parametrize(
    ("talon", "owed"), [(("AS", "KS"), 2), (("AD", "8C"), 1), (("KC", "QC"), 1), (("KC", "QD"), 0)]
)
def test_a20_ace_king_two_an_ace_or_a_marriage_one(talon: tuple[str, str], owed: int) -> None:
    """A-20: ace-king of a suit 2, one ace 1, a marriage 1, anything else nothing."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    pulka, _ = pulka.record(game(0, 1, "6H", {2: "pass", 3: "pass"}, talon=talon))
    assert whists(pulka)[0][1] == owed


def test_a12_a20_no_talon_bonus_for_a_game_without_the_talon() -> None:
    """A-12, A-20: the talon was not given, so the dealer writes nothing for its aces."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    outcome = game(0, 1, "6H", {2: "pass", 3: "pass"}, talon=("AS", "AH"))
    outcome = dataclasses.replace(outcome, contract=Contract(6, "H", no_talon=True))
    pulka, entries = pulka.record(outcome)
    assert writes(entries) == [(1, "pool", Fraction(2), None)]
    assert type(pulka).from_json(pulka.to_json()) == pulka  # "6HBP" in pulka/1
    assert pulka.to_json()["events"][0]["deal"]["contract"] == "6HBP"
    club = new(players=4, first_dealer=0)
    with pytest.raises(InvalidRecordError):
        club.record(outcome)


def _closing_deals() -> list[DealOutcome]:
    """Four players, target 6: seats 1 and 2 close, seat 3 overshoots by 2 while seat 0 deals."""
    return [
        game(0, 1, "7H", {2: "pass", 3: "pass"}),
        game(1, 2, "8H", {3: "pass", 0: "pass"}),
        game(2, 3, "7H", {0: "pass", 1: "pass"}),
        game(3, 1, "6H", {2: "pass", 0: "pass"}),
        game(0, 3, "7H", {1: "pass", 2: "pass"}),
    ]


@pytest.mark.parametrize(("spares", "pool0", "hill3"), [(True, 0, -2), (False, 2, 0)])
def test_a22_closing_never_closes_the_dealer(spares: bool, pool0: int, hill3: int) -> None:
    """A-22: "Нельзя закрывать сдающего. Если, кроме сдающего, закрывать некого, то играющий
    списывает себе гору." Seat 3's surplus 2 cannot go to the dealer (seat 0)."""
    conventions = NO_OPENING.with_overrides({"closing_spares_dealer": spares})
    pulka = new(conventions, players=4, target=6, first_dealer=0)
    for deal in _closing_deals():
        pulka, _ = pulka.record(deal)
    assert ints(pulka.pools) == [pool0, 6, 6, 6]
    helped = effective_pools(pulka.entries, 4, 6, conventions, pulka.spared_dealers())
    assert ints(helped.hill) == [0, 0, 0, hill3]


def test_a21_the_spit_writes_the_game_in_whists_on_the_dealer() -> None:
    """A-21: "За «плевок» играющий пишет на сдающего игру вистами": 7♥ returned, 4 whists."""
    pulka = new(NO_OPENING, first_dealer=0)
    outcome = game(0, 1, "7H", {2: "pass", 0: "pass"}, talon_returned=True)
    pulka, entries = pulka.record(outcome)
    assert writes(entries) == [(1, "pool", Fraction(4), None), (1, "whists", Fraction(4), 0)]
    assert entries[-1].rule == "A-21"
    assert ints(pulka.sheet.hill) == [0, 0, 0]


def test_a19_halves_with_the_dealer_on_a_game() -> None:
    """A-19: the dealer went halves on 7♥ that went one down: the hill (4), the whists on the
    declarer (16 trick whists, 4 consolation each) are written half on each partner."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    outcome = game(0, 1, "7H", {2: "whist", 3: "pass"}, {1: 6, 2: 3, 3: 1}, misere_partner=0)
    pulka, _ = pulka.record(outcome)
    assert ints(pulka.sheet.hill) == [2, 2, 0, 0]
    w = whists(pulka)
    assert (w[2][1], w[2][0]) == (8 + 2, 8 + 2)
    assert (w[3][1], w[3][0]) == (2, 2)
    assert (w[0][1], w[0][0]) == (2, 0)  # the dealer's consolation on his own half is void
    club = new(Conventions.preset_named("sochi"), players=4, first_dealer=0)
    with pytest.raises(InvalidRecordError):
        club.record(outcome)


def test_a19_halves_round_trip_through_pulka_json_as_halves_with() -> None:
    """A-19: ``pulka/1`` writes the dealer who went halves on a game as ``halves_with``."""
    pulka = new(NO_OPENING, players=4, first_dealer=0)
    pulka, _ = pulka.record(game(0, 1, "6H", {2: "pass", 3: "pass"}, misere_partner=0))
    assert pulka.to_json()["events"][0]["deal"]["halves_with"] == 0
    assert type(pulka).from_json(pulka.to_json()) == pulka
    assert ints(pulka.sheet.pool) == [1, 1, 0, 0]


def test_a15_a_failed_checked_ten_writes_only_his_hill() -> None:
    """A-15 (004 "Десятерная — не вистуется, проверяется. Если не сыграна — игравший пишет в
    гору"): seat 1's checked 10NT takes 9 tricks; one short at price 10, remiz × 1: hill 10,
    and nothing else. A pulka stored before revision 0019 says ``"ten_consolation": true``
    and keeps its reading: 10 consolation whists from each opponent as well."""
    failed = game(0, 1, "10NT", {2: "pass", 0: "pass"}, {1: 9, 2: 1, 0: 0})
    pulka, entries = new(NO_OPENING).record(failed)
    assert writes(entries) == [(1, "hill", Fraction(10), None)]
    assert ints(pulka.sheet.hill) == [0, 10, 0] and whists(pulka) == [[0] * 3] * 3
    older = new(NO_OPENING.with_overrides({"ten_consolation": True}))
    _, entries = older.record(failed)
    assert writes(entries) == [
        (1, "hill", Fraction(10), None),
        (2, "whists", Fraction(10), 1),
        (0, "whists", Fraction(10), 1),
    ]
    record = arabic_record(
        [
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "10NT",
                "defence": {"2": "pass", "0": "pass"},
                "play": "open",
                "tricks": {"1": 9, "2": 1, "0": 0},
            }
        ]
    )
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(record))) == 0
    sheet = json.loads(out.getvalue())["sheet"]
    assert sheet["hill"] == [0, 10, 0] and sheet["whists"] == [[0, 0, 0]] * 3
