"""Arabic preferans (seed 004): the "преферанс" contract, A-16.

Hand-built deals (tests/support/engine.py's LAYOUT: dealer 0, forehand 1, then 2, then 0;
seat 1 holds every spade and ♣AK, so ten sure tricks). Rule IDs are docs/rules-arabic.md's.
"""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction

import pytest

from app.commands.score import run_score
from app.rules import Bid, Conventions, DealState, Discard, PickUp, legal_actions, outcome, view
from app.rules.core.auction import IllegalBidError, parse_call
from app.rules.core.cards import cards_mask, parse_cards
from app.rules.core.outcome import Contract
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.deal.dispatch import apply
from app.rules.variants.arabic.arabic_preferans import sure_tricks
from tests.support.engine import LAYOUT, LAYOUT_TALON, play_out, start
from tests.support.scoring import arabic_record, game, new, pass_out

ARABIC = Conventions.preset_named("arabic")
NO_OPENING = ARABIC.with_overrides({"opening_bombs": 0})


def _hand(text: str) -> int:
    return cards_mask(parse_cards(text.split()))


@pytest.mark.parametrize(
    ("hand", "sure"),
    [
        (LAYOUT[1], 10),  # eight spades from the ace, ♣AK
        (LAYOUT[2], 4),  # ♦AKQJ; clubs without the ace take nothing for sure
        (LAYOUT[0], 6),  # ♥A..9: six from the ace draw the other two hearts
        ("AS KS 7S AC KC QC JC AD AH KH", 9),  # ♠AK; ♣AKQJ; ♦A; ♥AK
        ("AS KS QS JS AC KC QC AD KD 7H", 9),
        ("AS KS QS JS AC KC QC AD 8D 7H", 8),
    ],
)
def test_a16_sure_tricks_count_the_runs_from_the_ace(hand: str, sure: int) -> None:
    """A-16: "обязан иметь на руках минимум 9 взяток" — tricks sure at no trumps."""
    assert sure_tricks(_hand(hand)) == sure


def _call(state: DealState, *texts: str) -> DealState:
    for text in texts:
        seat = state.to_move
        assert seat is not None
        state, _ = apply(state, Bid(seat, parse_call(text)))
    return state


def _bids(state: DealState, seat: int) -> list[str]:
    return [str(a.call) for a in legal_actions(state, seat) if isinstance(a, Bid)]


def _picked(state: DealState, *seats: int) -> DealState:
    for seat in seats:
        state, _ = apply(state, PickUp(seat))
    return state


def test_a16_preferans_is_a_first_call_above_everything_and_never_dark() -> None:
    """A-16: "Мизер, преферанс — объявляются сразу… Преферанс не объявляется в тёмную": a
    face-down seat is not offered it and is refused it; once it has looked, it may call it."""
    dealt = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)
    assert "preferans" not in _bids(dealt, 1) and "dark_pass" in _bids(dealt, 1)
    with pytest.raises(IllegalBidError, match="A-16"):
        _call(dealt, "preferans")
    state = _picked(dealt, 1)
    assert "preferans" in _bids(state, 1) and "dark_preferans" not in _bids(state, 1)
    after_misere = _call(state, "misere")
    assert "preferans" not in _bids(after_misere, 2)  # seat 2 has not looked yet
    assert "preferans" in _bids(_picked(after_misere, 2), 2)
    after = _call(state, "preferans")
    assert _bids(after, 2) == ["pass", "dark_pass"]  # nothing overbids it; seat 2 may pass dark
    with pytest.raises(IllegalBidError, match="A-16"):
        _call(_call(state, "6S", "pass", "7S"), "preferans")
    club = start(LAYOUT, LAYOUT_TALON)
    assert "preferans" not in _bids(club, 1)


def _declared() -> DealState:
    """Seat 1 looks at his cards and calls "преферанс"; seats 2 and 0 pass."""
    dealt = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)
    return _call(_picked(dealt, 1), "preferans", "pass", "pass")


def test_a16_the_opponents_discard_and_play_for_the_declarer() -> None:
    """A-16: "снос и ходы за игрока делают противники": the first defender discards from the
    declarer's twelve cards, then plays his open hand at no trumps."""
    state = _declared()
    assert state.phase == "discard" and state.to_move == 2 and state.declarer == 1
    discards = [a for a in legal_actions(state, 2) if isinstance(a, Discard)]
    assert len(discards) == 66  # two of the declarer's twelve
    assert len(view(state, 2)["open_hands"]["1"]) == 12  # laid open for the discard
    assert not [a for a in legal_actions(state, 1) if isinstance(a, Discard)]
    state, _ = apply(state, Discard(2, tuple(parse_cards(["8H", "7H"]))))  # type: ignore[arg-type]
    assert state.phase == "play" and state.turn == 1 and state.to_move == 2
    assert state.contract == Contract(10, "NT") and state.trump is None
    assert len(view(state, 0)["open_hands"]["1"]) == 10  # his hand lies open
    done = play_out(state)
    result = outcome(done)
    assert result is not None and "preferans" in result.marks and "short" not in result.marks
    assert result.tricks is not None and result.tricks[1] == 10
    assert deal_from_json(deal_to_json(result), 3) == result
    assert deal_to_json(result)["preferans"] is True


def test_a16_declared_short_of_nine_sure_tricks_is_marked_short() -> None:
    """A-16: seat 2 (♦AKQJ: four sure tricks) declares "преферанс": short."""
    dealt = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)
    state = _call(_picked(dealt, 2), "pass", "preferans", "pass")
    assert state.to_move == 0  # the first defender after seat 2
    state, _ = apply(state, Discard(0, tuple(parse_cards(["AD", "KD"]))))  # type: ignore[arg-type]
    result = outcome(play_out(state))
    assert result is not None and result.marks == {"preferans", "short"}
    assert deal_to_json(result)["short"] is True


def _preferans(tricks: dict[int, int], short: bool = False) -> object:
    base = game(0, 1, "10NT", {2: "pass", 0: "pass"}, tricks, play="closed")
    marks = {"preferans", "short"} if short else {"preferans"}
    return dataclasses.replace(base, marks=frozenset(marks))


def test_a16_made_it_closes_the_pool_and_clears_the_hill_and_the_whists_on_him() -> None:
    """A-16: "закрывает пулю, списывает гору и все висты на себя у других игроков"."""
    pulka = new(NO_OPENING, target=20)
    pulka, _ = pulka.record(game(0, 1, "6S", {2: "whist", 0: "whist"}, {1: 4, 2: 3, 0: 3}))
    pulka, _ = pulka.record(pass_out(pulka.next_dealer, {1: 5, 2: 3, 0: 2}))
    before = pulka.sheet
    assert before.hill[1] > 0 and before.whists[2][1] > 0 and before.whists[0][1] > 0
    pulka, entries = pulka.record(
        dataclasses.replace(_preferans({1: 10, 2: 0, 0: 0}), dealer=pulka.next_dealer)  # type: ignore[type-var]
    )
    assert {e.rule for e in entries} == {"A-16"}
    assert pulka.sheet.pool[1] == 20 and pulka.sheet.hill[1] == 0
    assert pulka.sheet.whists[2][1] == 0 and pulka.sheet.whists[0][1] == 0
    assert pulka.sheet.hill[2] == before.hill[2] and pulka.sheet.whists[1] == before.whists[1]


def test_a16_failed_nothing_is_written_short_costs_the_convention_amount() -> None:
    """A-16: "Если преферанс не сыгран — ничего не пишется"; declared without nine sure
    tricks, "пишется много": ``preferans_short_hill`` (30) into his hill."""
    pulka = new(NO_OPENING)
    _, entries = pulka.record(_preferans({1: 9, 2: 1, 0: 0}))  # type: ignore[arg-type]
    assert entries == []
    _, entries = pulka.record(_preferans({1: 9, 2: 1, 0: 0}, short=True))  # type: ignore[arg-type]
    assert [(e.seat, e.column, e.amount, e.rule) for e in entries] == [
        (1, "hill", Fraction(30), "A-16")
    ]
    other = new(NO_OPENING.with_overrides({"preferans_short_hill": 50}))
    _, entries = other.record(_preferans({1: 9, 2: 1, 0: 0}, short=True))  # type: ignore[arg-type]
    assert entries[0].amount == 50


def test_a16_records_are_refused_where_preferans_is_not_played() -> None:
    """A-16: ``"preferans": true`` only under ``preferans_contract``, on 10NT."""
    with pytest.raises(InvalidRecordError, match="A-16"):
        new(Conventions.preset_named("sochi")).record(_preferans({1: 10, 2: 0, 0: 0}))  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="A-16"):
        wrong = dataclasses.replace(_preferans({1: 10, 2: 0, 0: 0}), contract=Contract(10, "S"))  # type: ignore[type-var]
        new(NO_OPENING).record(wrong)


def test_a16_prefclub_score_rescores_a_made_preferans() -> None:
    """A-16: a 7♥ made by seat 1 with whists on him, then his "преферанс" made: pool 20, hill 0,
    no whists on him; the record's ``"preferans": true`` is all the scorer needs."""
    record = arabic_record(
        [
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "7H",
                "defence": {"2": "whist", "0": "pass"},
                "play": "closed",
                "tricks": {"1": 6, "2": 3, "0": 1},
            },
            {
                "dealer": 1,
                "type": "game",
                "declarer": 1,
                "contract": "10NT",
                "defence": {"2": "pass", "0": "pass"},
                "play": "closed",
                "tricks": {"1": 10, "2": 0, "0": 0},
                "preferans": True,
            },
        ]
    )
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(record))) == 0
    sheet = json.loads(out.getvalue())["sheet"]
    assert sheet["pool"][1] == 20 and sheet["hill"][1] == 0
    assert sheet["whists"][2][1] == 0 and sheet["whists"][0][1] == 0
