"""Five at a table (R-T6): who sits out, the dealer on the talon, the idle seat, the sheet.

Dealer 0 at five: his two left neighbours (1, 2) and his right neighbour (4) play, forehand 1;
the dealer and the seat opposite him (3) sit out. The dealer keeps every role of the
four-player dealer (R-B9, R-W4, R-W5, R-C5, R-R3); seat 3 only writes consolation (R-P1) and
agrees to agreed results (R-W11). Decisions: docs/rules-notes.md "## Five players".
"""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from app.commands.score import run_score
from app.rules import (
    AcceptResult,
    AnswerInvitation,
    Contract,
    Defend,
    Discard,
    IllegalActionError,
    InviteMisere,
    LookAtHand,
    NameContract,
    ProposeResult,
    ReturnWhist,
    apply,
    legal_actions,
    outcome,
    view,
    visible_cards,
)
from app.rules.core.conventions import Conventions
from app.rules.core.rule_errors import InvalidRecordError, RulesError
from app.rules.core.seats import defenders, idle_seats, pass_out_seats, playing_seats
from app.rules.deal.state import DealConfig
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.record import export_document, parse_document, replay
from tests.support.engine import bids, cards, plays, run, start
from tests.support.scoring import CLUB, ROSTOV, SOCHI, game, one, pass_out, whists

FIVE = {
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    4: "10D 9D 8D 7D KH QH JH 10H 9H 8H",
}
TALON = "AH 7H"


def start5(**kwargs: object):  # type: ignore[no-untyped-def]
    return start(FIVE, TALON, players=5, dealer=0, **kwargs)  # type: ignore[arg-type]


def test_r_t6_the_dealers_two_left_neighbours_and_his_right_neighbour_play() -> None:
    assert playing_seats(5, 0) == (1, 2, 4)
    assert playing_seats(5, 3) == (4, 0, 2)
    assert idle_seats(5, 0) == (0, 3)
    assert idle_seats(5, 4) == (2, 4)
    assert pass_out_seats(5, 0) == (1, 2, 4, 0)  # R-R4: forehand first, the dealer last
    assert defenders(5, 0, 4) == (1, 2)  # R-W1: clockwise from the declarer's left
    assert defenders(5, 0, 2) == (4, 1)


def test_r_t6_r_d3_five_players_deal_and_auction_order() -> None:
    state = start5()
    assert state.dealt[0] == 0 and state.dealt[3] == 0
    assert all(state.dealt[s].bit_count() == 10 for s in (1, 2, 4))
    assert state.cutter == 4  # R-D2: the dealer's right neighbour cuts
    assert state.to_move == 1
    state = bids(state, "6S")
    assert state.to_move == 2
    state = bids(state, "pass")
    assert state.to_move == 4  # seat 3 sits out: the right neighbour speaks last
    assert legal_actions(state, 3) == []


def test_r_t6_idle_seat_sees_no_hand() -> None:
    state = start5()
    for seat in (0, 3):
        shown = view(state, seat)
        assert shown["hand"] == []
        assert not visible_cards(state, seat)
        assert set(shown["hand_sizes"]) == {"1", "2", "4"}


def test_r_b9_five_players_the_dealer_alone_answers_an_invitation() -> None:
    state, _ = apply(start5(), InviteMisere(1))
    assert state.to_move == 0
    assert visible_cards(state, 0) == state.hands[1]
    assert not visible_cards(state, 3) & state.hands[1]  # the idle partner sees nothing
    with pytest.raises(IllegalActionError):
        apply(state, AnswerInvitation(3, True))
    state, _ = apply(state, AnswerInvitation(0, False))
    assert state.to_move == 1


def test_r_w5_five_players_only_the_dealer_whists_after_two_passes_on_eight() -> None:
    state = bids(start5(), "8S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("AH 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(8, "S")),
        Defend(2, "pass"),
        Defend(4, "pass"),
    )
    assert state.stage == "dealer" and state.to_move == 0
    assert legal_actions(state, 3) == []
    state, _ = apply(state, Defend(0, "whist"))
    assert state.phase == "play" and state.whisters == (0,)


def test_r_r3_five_players_the_dealers_talon_card_wins_and_the_idle_seat_takes_nothing() -> None:
    state = bids(start5(), "pass", "pass", "pass")
    assert view(state, None)["trick"] == [{"seat": 0, "card": "AH"}]
    state = plays(state, "7S", "7C", "8H")
    assert state.tricks == (1, 0, 0, 0, 0)  # the dealer's ♥A won the first trick
    state = plays(state, "8S", "8C", "9H")  # ♥7 led; seat 4's ♥9 wins
    assert state.tricks == (1, 0, 0, 0, 1)
    assert state.to_move == 1  # R-R3: forehand leads the third trick


def test_r_w11_an_agreed_result_at_five_needs_the_idle_seat_too() -> None:
    state = bids(start5(), "pass", "pass", "pass")
    tricks = ((0, 0), (1, 4), (2, 3), (4, 3))
    state, _ = apply(state, ProposeResult(1, tricks))
    for seat in (2, 4, 0):
        state, _ = apply(state, AcceptResult(seat))
    assert not state.finished
    assert AcceptResult(3) in legal_actions(state, 3)
    state, _ = apply(state, AcceptResult(3))
    result = outcome(state)
    assert result is not None and result.tricks == {0: 0, 1: 4, 2: 3, 4: 3}


# -- the sheet: dealer 0; forehand 1, then 2, then 4; seat 3 idle --------------------------


def test_r_p1_consolation_is_written_by_both_idle_seats() -> None:
    # Sochi, 7♠ by seat 1, both defenders whist, declarer takes 6: one undertrick (price 4).
    o = game(0, 1, "7S", {2: "whist", 4: "whist"}, {1: 6, 2: 2, 4: 2})
    p = one(o, SOCHI, players=5)
    on_declarer = [row[1] for row in whists(p)]
    assert on_declarer == [4, 0, 2 * 4 + 4, 4, 2 * 4 + 4]
    assert p.sheet.hill[1] == 4


def test_r_c5_talon_bonus_is_the_dealers_alone_at_five() -> None:
    # Club, 7♠ by seat 1, both defenders pass; talon ♠A ♥A: two aces = 3 tricks at 8 whists.
    o = game(0, 1, "7S", {2: "pass", 4: "pass"}, talon=("AS", "AH"))
    p = one(o, CLUB, players=5)
    assert [row[1] for row in whists(p)] == [24, 0, 0, 0, 0]
    assert p.sheet.pool[1] == 4


def test_r_r4_pass_out_at_five_the_idle_seat_has_no_part() -> None:
    # Club, first pass-out (2 a trick): no amnesty (the dealer took none), his zero bonus.
    p = one(pass_out(0, {1: 4, 2: 3, 4: 3, 0: 0}), CLUB, players=5)
    assert p.sheet.hill == (Fraction(-4), Fraction(8), Fraction(6), Fraction(0), Fraction(6))
    # The dealer took one talon trick: amnesty by one, nobody has zero tricks.
    p = one(pass_out(0, {1: 3, 2: 3, 4: 3, 0: 1}), CLUB, players=5)
    assert p.sheet.hill == (Fraction(0), Fraction(4), Fraction(4), Fraction(0), Fraction(4))


def test_r_r4_rostov_pass_out_at_five_writes_on_the_four_who_took_part() -> None:
    # Rostov: the lowest takers among the hands (2 and 4, three tricks each) share what they
    # write on the others: 5 whists a trick on seat 1 (four tricks), halved; the dealer took
    # none; the idle seat 3 neither writes nor is written on.
    p = one(pass_out(0, {1: 4, 2: 3, 4: 3, 0: 0}), ROSTOV, players=5)
    w = whists(p)
    assert w[2] == [0, 10, 0, 0, 0] and w[4] == [0, 10, 0, 0, 0]
    assert w[3] == [0] * 5 and [row[3] for row in w] == [0] * 5


@pytest.mark.parametrize(
    ("outcome_", "field"),
    [
        (game(0, 3, "6S", {4: "pass", 1: "pass"}), "declarer"),
        (game(0, 1, "6S", {2: "pass", 4: "pass", 3: "whist"}, {1: 6, 2: 2, 4: 2}), "defence"),
        (pass_out(0, {1: 4, 2: 3, 4: 2, 3: 1}), "tricks"),
        (pass_out(0, {1: 4, 2: 1, 4: 2, 0: 3}), "tricks"),
    ],
)
def test_r_t6_the_validator_refuses_the_idle_seats_playing(outcome_, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRecordError) as err:
        one(outcome_, CLUB, players=5)
    assert err.value.field == field


def test_r_p4_five_player_settlement_sums_to_zero() -> None:
    o = game(0, 1, "7S", {2: "whist", 4: "pass"}, {1: 5, 2: 3, 4: 2}, play="closed")
    p = one(o, CLUB, players=5)
    settled = p.settle()
    assert sum(settled.exact, Fraction(0)) == 0 and sum(settled.rounded) == 0
    assert len(settled.exact) == 5
    assert sum(settled.money) == 0


FIVE_PULKA = {
    "format": "pulka/1",
    "players": ["A", "B", "C", "D", "E"],
    "target": 10,
    "deals": [
        # dealer 0: 1, 2, 4 play; 7♠ made with one closed whister (24 whists on B, R-P1)
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "7S",
            "defence": {"2": "whist", "4": "pass"},
            "play": "closed",
            "tricks": {"1": 7, "2": 2, "4": 1},
            "talon": ["7C", "8C"],
        },
        # dealer 1: 2, 3, 0 play, the dealer takes one talon trick; amnesty by one (R-R4)
        {"dealer": 1, "type": "pass_out", "tricks": {"2": 4, "3": 3, "0": 2, "1": 1}},
        # dealer 2: 3, 4, 1 play; a clean misère by E
        {"dealer": 2, "type": "misere", "declarer": 4, "tricks": {"4": 0, "1": 5, "3": 5}},
    ],
}


def test_r_t6_prefclub_score_takes_a_five_player_pulka() -> None:
    """``pulka/1`` with five players through ``prefclub score``; every number hand-checked:
    ended by agreement, each point short goes on the hill twice (R-P9), then R-P4 with N = 5:
    hills 22, 12, 26, 24, 0 (mean 16.8)."""
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(FIVE_PULKA))) == 0
    result = json.loads(out.getvalue())
    assert result["sheet"]["pool"] == [0, 4, 0, 0, 10]
    assert result["sheet"]["hill"] == [2, 0, 6, 4, 0]
    assert result["sheet"]["whists"][2] == [0, 24, 0, 0, 0]
    assert result["settlement"]["rounded"] == [-52, 24, -68, -72, 168]
    assert result["settlement"]["money"] == ["-26.00", "12.00", "-34.00", "-36.00", "84.00"]


def test_r_t6_pulka_record_round_trips_five_players() -> None:
    pulka = replay(*parse_document(FIVE_PULKA))
    assert pulka.players == 5
    exported = export_document(pulka)
    assert exported["players"] == ["A", "B", "C", "D", "E"]
    again = replay(*parse_document(exported))
    assert again.sheet == pulka.sheet
    with pytest.raises(InvalidRecordError):
        parse_document({**FIVE_PULKA, "players": ["A", "B", "C", "D", "E", "F"]})


def test_r_w4_five_players_the_dealer_returns_a_half_whist_last_after_one_look() -> None:
    """R-W4 at five: after 2 passes, 4 takes half-whist and 2 does not return, the dealer (0)
    may look at one opponent's cards and return the whist; the idle seat 3 has no say."""
    state = bids(start5(), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("AH 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "C")),  # 6♠ would be Stalingrad (R-W6)
        Defend(2, "pass"),
        Defend(4, "half"),
        Defend(2, "pass"),
    )
    assert state.stage == "return_dealer" and state.to_move == 0
    assert legal_actions(state, 3) == []
    state, _ = apply(state, LookAtHand(0, 4))
    assert visible_cards(state, 0) & state.hands[4] == state.hands[4]
    assert not visible_cards(state, 3) & state.hands[4]
    state, _ = apply(state, ReturnWhist(0))
    assert state.phase == "play" and state.whisters == (0,) and state.play_mode == "open"


@pytest.mark.parametrize("preset", ["arabic", "classic"])
def test_seeds_003_and_004_are_not_played_by_five(preset: str) -> None:
    """R-T6 is the club's; seeds 003 (K-1) and 004 (A-1) know three and four players: a deal or
    a pulka of five under their presets is refused with a clear message."""
    conventions = Conventions.preset_named(preset)
    with pytest.raises(RulesError, match="3 or 4 players"):
        DealConfig(players=5, dealer=0, conventions=conventions)
    with pytest.raises(InvalidRecordError, match="3 or 4 players"):
        Pulka.new(5, conventions=conventions)
    assert Pulka.new(4, conventions=conventions).players == 4
