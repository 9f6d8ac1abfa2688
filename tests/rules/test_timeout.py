"""The default move of a seat whose move timer ran out (``app.rules.deal.timeout``).

RULES.md has no move timer; the default is the server's (docs/protocol.md §6): pass when
passing is legal (R-B1 in the auction, R-W1 for a defender), else take the talon (R-C1), else
the first legal ordinary action — never a claim (R-W11), a concession (R-C4), a returned talon
(R-C6) or a result proposal or its answer.
"""

from __future__ import annotations

import random

import pytest

from app.bots.strategy import timeout_action
from app.rules import (
    AcceptResult,
    Action,
    Bid,
    Claim,
    Concede,
    Conventions,
    Cut,
    DealConfig,
    DealState,
    DeclineResult,
    Defend,
    InviteMisere,
    LookAtHand,
    ProposeResult,
    ReturnTalon,
    TakeTalon,
    action_to_json,
    apply,
    legal_actions,
    new_deal,
    shuffled_deck,
)
from app.rules.deal.timeout import NEVER_BY_DEFAULT, default_choice, default_move

OWN_DECISIONS = (
    Claim,
    Concede,
    ProposeResult,
    AcceptResult,
    DeclineResult,
    ReturnTalon,
    InviteMisere,
    LookAtHand,
)


def _deal(seed: int, players: int = 3, preset: str = "club") -> DealState:
    rng = random.Random(seed)
    config = DealConfig(players, seed % players, Conventions.preset_named(preset), 6)
    return new_deal(config, shuffled_deck(rng), b"timeout")


def _expected(legal: list[Action]) -> Action | None:
    """The rule written out independently of the implementation's loops."""
    passes = [a for a in legal if isinstance(a, Bid | Defend) and a.call == "pass"]
    if passes:
        return passes[0]
    talon = [a for a in legal if isinstance(a, TakeTalon)]
    if talon:
        return talon[0]
    middle = [a for a in legal if isinstance(a, Cut) and a.position == 16]
    if middle:
        return middle[0]
    ordinary = [a for a in legal if not isinstance(a, OWN_DECISIONS)]
    return ordinary[0] if ordinary else None


def test_the_own_decisions_are_never_made_for_a_player() -> None:
    assert set(NEVER_BY_DEFAULT) == set(OWN_DECISIONS)
    assert default_choice([]) is None
    assert default_choice([AcceptResult(seat=1), DeclineResult(seat=1)]) is None
    assert default_choice([Concede(seat=0), TakeTalon(seat=0)]) == TakeTalon(seat=0)


def test_r_d2_the_default_cut_is_the_middle_of_the_deck() -> None:
    """R-D2: a cutter who lets the timer cut (or whose time runs out) cuts at 16 — both parts
    keep 16 cards, inside the table's limits whatever ``cut_min`` is."""
    state = _deal(3)
    cutter = state.to_move
    assert cutter is not None and state.phase == "cut"
    legal = legal_actions(state, cutter)
    assert legal[0] == Cut(cutter, 4)  # the first legal cut is not the default
    assert default_move(state, cutter) == Cut(cutter, 16)
    assert default_choice([Cut(0, 10), Cut(0, 15), Cut(0, 22)]) == Cut(0, 15)


def test_r_b1_a_call_in_the_auction_times_out_as_pass() -> None:
    state = _deal(1)
    cutter = state.to_move
    assert cutter is not None
    state, _ = apply(state, Cut(cutter, 16))
    assert state.phase == "auction" and state.to_move is not None
    move = default_move(state, state.to_move)
    assert move == Bid(seat=state.to_move, call="pass")
    # Not the seat's turn: there is no default move for it.
    other = (state.to_move + 1) % 3
    assert legal_actions(state, other) == []
    assert default_move(state, other) is None


@pytest.mark.parametrize("seed", range(40))
def test_every_default_move_is_legal_and_follows_the_rule(seed: int) -> None:
    """Random deals (three and four players, every preset), played by a random policy: at every
    step the default move of the seat to act is the independent rule's choice and is legal;
    a deal played by default moves alone from any point always ends or waits only on an own
    decision."""
    rng = random.Random(seed)
    players = 3 + seed % 2
    preset = ("club", "sochi", "leningrad", "rostov")[seed % 4]
    state = _deal(seed, players, preset)
    checked = 0
    while not state.finished and state.to_move is not None:
        seat = state.to_move
        legal = legal_actions(state, seat)
        move = default_move(state, seat)
        assert move == _expected(legal)
        if move is not None:
            assert move in legal
            apply(state, move)  # legal: never raises
            assert timeout_action([_protocol(a) for a in legal]) == _protocol(move)
        checked += 1
        ordinary = [a for a in legal if not isinstance(a, OWN_DECISIONS)] or legal
        state, _ = apply(state, rng.choice(ordinary))
    assert checked >= players + 1  # at least the cut and one call each
    assert _timed_out_to_the_end(_deal(seed + 1000, players, preset))


def _timed_out_to_the_end(state: DealState) -> bool:
    """Every move a default move: the deal ends (a whole pass-out, R-B1)."""
    for _ in range(200):
        if state.finished or state.to_move is None:
            return state.finished
        move = default_move(state, state.to_move)
        assert move is not None
        state, _ = apply(state, move)
    return False


def _protocol(action: Action) -> dict[str, object]:
    """An action as the protocol's ``legal`` list shows it (no ``seat``)."""
    data = action_to_json(action)
    data.pop("seat")
    return data
