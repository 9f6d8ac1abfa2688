"""Classic preferans (seed 003): the cut, suit bidding, the talon bought in turn, the redeal
(docs/rules-classic.md K-2..K-8). Hand-built deals from :mod:`tests.support.engine`:
dealer 0, forehand 1 (spades, ♣AK), second hand 2 (clubs, ♦AKQJ), third hand 0 (♦10-7,
♥A-9); talon ♥8 ♥7.
"""

from __future__ import annotations

import pytest

from app.rules import (
    Bid,
    Concede,
    Contract,
    Conventions,
    Cut,
    DarkBid,
    DealConfig,
    Defend,
    Discard,
    IllegalActionError,
    InvalidConventionError,
    InviteMisere,
    NameContract,
    TakeTalon,
    apply,
    find_rule_set,
    legal_actions,
    new_deal,
    outcome,
    parse_card,
    view,
)
from app.rules.deal.timeout import default_move
from tests.support.engine import (
    LAYOUT,
    LAYOUT_TALON,
    SALT,
    bids,
    deck_for,
    run,
    start,
    start4,
)

CLASSIC = Conventions.preset_named("classic")
SUITS = [Contract(6, s) for s in ("S", "C", "D", "H")]


def classic() -> object:
    return start(LAYOUT, LAYOUT_TALON, conventions=CLASSIC)


def calls_of(state: object, seat: int) -> list[object]:
    return [a.call for a in legal_actions(state, seat) if isinstance(a, Bid)]  # type: ignore[arg-type]


def test_k2_the_cut_leaves_at_least_six_cards_each_side() -> None:
    """K-2 (seed 003, 17): a cut of fewer than six cards from the top or bottom is refused."""
    state = new_deal(DealConfig(3, 0, CLASSIC), deck_for(LAYOUT, LAYOUT_TALON), SALT)
    positions = [a.position for a in legal_actions(state, state.cutter) if isinstance(a, Cut)]
    assert positions == list(range(6, 27))
    for bad in (5, 27):
        with pytest.raises(IllegalActionError):
            apply(state, Cut(state.cutter, bad))


def test_k3_only_suits_for_six_no_misere_no_here() -> None:
    """K-3 (seed 003, 20, 22-23): the calls are pass and the four suits, ♠ < ♣ < ♦ < ♥."""
    state = classic()
    assert calls_of(state, 1) == ["pass", *SUITS]
    for bad in ("misere", "here", Contract(6, "NT"), Contract(7, "S")):
        with pytest.raises(IllegalActionError):
            apply(state, Bid(1, bad))  # type: ignore[arg-type]
    state = bids(state, "6C")
    assert calls_of(state, 2) == ["pass", Contract(6, "D"), Contract(6, "H")]
    for bad in (Contract(6, "C"), Contract(6, "S")):  # the same suit or a junior one
        with pytest.raises(IllegalActionError):
            apply(state, Bid(2, bad))


def test_k3_no_dark_calls_k96_dark_play_has_nothing_to_attach_to() -> None:
    """K-3 (issue 26, docs/rules-notes.md "K96's dark play"): K96 3.3.19's dark calls are a pass
    paid on a pass-out (a bomb), a dark "раз" overbid by "два" and a dark misère; 003 has no
    pass-out (K-6), no levels and no misère (K-3), so the classic preset offers none and a
    table may not switch them on."""
    state = classic()
    for bad in ("dark_pass", DarkBid(Contract(6, "S"))):
        with pytest.raises(IllegalActionError):
            apply(state, Bid(1, bad))  # type: ignore[arg-type]
    assert not CLASSIC.dark_calls and not find_rule_set("classic").describe()[0]["dark_calls"]
    with pytest.raises(InvalidConventionError):
        Conventions.from_mapping({"preset": "classic", "dark_calls": True})


def test_k3_k4_each_speaks_once_and_the_senior_suit_plays_without_talon() -> None:
    """K-3, K-4 (seed 003, 22): diamonds, a pass, then hearts: hearts plays at once without the
    talon; the first hand has no second call and goes to the whist."""
    state, events = run(
        classic(),
        Bid(1, Contract(6, "D")),
        Bid(2, "pass"),
        Bid(0, Contract(6, "H")),
    )
    assert state.phase == "defence" and state.declarer == 0
    assert state.contract == Contract(6, "H")
    assert [e.type for e in events][-2:] == ["auction_won", "contract_named"]
    assert "talon_shown" not in [e.type for e in events]
    assert state.to_move == 1  # the declarer's left neighbour answers whist or pass first
    assert state.hands[0].bit_count() == 10 and state.discard == 0
    for seat in (None, 0, 1, 2):
        assert view(state, seat)["talon"] is None  # K-4: the talon stays face down


def test_k4_preferans_ends_the_bidding_at_once() -> None:
    """K-4 (seed 003, 21 and its Примечание): forehand says "преферанс" (hearts); the others do
    not bid, they go straight to whist or pass."""
    state, _ = run(classic(), Bid(1, Contract(6, "H")))
    assert state.phase == "defence" and state.declarer == 1
    assert [s for s, _ in state.auction.calls] == [1]  # type: ignore[union-attr]
    assert legal_actions(state, 2) == [Defend(2, "whist"), Defend(2, "pass")]


def test_k3_a_lower_suit_named_first_loses_to_a_later_senior_one() -> None:
    """K-3 (seed 003, 23): spades are overbid by clubs; the last hand passes; clubs play."""
    state = bids(classic(), "6S", "6C", "pass")
    assert state.declarer == 2 and state.contract == Contract(6, "C")


def test_k5_the_talon_is_bought_in_turn_and_any_suit_named() -> None:
    """K-5 (seed 003, 24): all pass; forehand may buy the talon but passes it on; the second
    hand buys it, sees it with everyone, discards two and names a suit for six tricks."""
    state = bids(classic(), "pass", "pass", "pass")
    assert state.phase == "auction" and state.to_move == 1
    assert legal_actions(state, 1) == [Bid(1, "pass"), TakeTalon(1)]
    with pytest.raises(IllegalActionError):
        apply(state, Bid(1, Contract(6, "H")))  # no more suits once all passed
    state = bids(state, "pass")
    assert state.to_move == 2
    state, events = run(state, TakeTalon(2))
    assert [e.type for e in events] == ["talon_shown", "talon_taken"]
    assert state.declarer == 2 and state.phase == "discard"
    assert state.hands[2].bit_count() == 12
    assert view(state, 0)["talon"] == ["8H", "7H"]
    state, _ = run(state, Discard(2, (parse_card("7C"), parse_card("8C"))))
    assert legal_actions(state, 2) == [NameContract(2, c) for c in SUITS]
    for bad in (Contract(6, "NT"), Contract(7, "D"), "misere"):
        with pytest.raises(IllegalActionError):
            apply(state, NameContract(2, bad))  # type: ignore[arg-type]
    state, _ = run(state, NameContract(2, Contract(6, "D")))
    assert state.phase == "defence" and state.contract == Contract(6, "D")


def test_k5_the_talon_is_not_for_sale_while_suits_are_called() -> None:
    """K-5: the talon is offered only after every suit call was a pass."""
    state = classic()
    assert TakeTalon(1) not in legal_actions(state, 1)
    with pytest.raises(IllegalActionError):
        apply(state, TakeTalon(1))


def test_k6_all_three_pass_the_talon_and_the_cards_are_dealt_again() -> None:
    """K-6 (seed 003, 24): "если же все трое спасуют от талона, то игра пересдаётся"."""
    state = bids(classic(), "pass", "pass", "pass")
    state, events = run(state, Bid(1, "pass"), Bid(2, "pass"), Bid(0, "pass"))
    assert state.finished and state.end == "redeal"
    result = outcome(state)
    assert result is not None and result.kind == "redeal" and result.declarer is None
    assert events[-1].type == "deal_ended"
    assert events[-1].data["outcome"] == {"dealer": 0, "type": "redeal", "talon": ["8H", "7H"]}


def test_k7_whist_or_pass_only() -> None:
    """K-7 (seed 003, 21): each defender says whist or pass; no half-whist, no Stalingrad."""
    state = bids(classic(), "6S", "pass", "pass")
    assert legal_actions(state, 2) == [Defend(2, "whist"), Defend(2, "pass")]
    state, _ = run(state, Defend(2, "pass"))
    assert legal_actions(state, 0) == [Defend(0, "whist"), Defend(0, "pass")]


def test_k8_no_conceding() -> None:
    """K-8: the old rules have no "без трёх": the declarer cannot concede."""
    state = bids(classic(), "pass", "pass", "pass", "pass", "pass")
    state, _ = run(state, TakeTalon(0))
    assert Concede(0) not in legal_actions(state, 0)
    with pytest.raises(IllegalActionError):
        apply(state, Concede(0))


def test_k1_k3_four_players_the_dealer_sits_out_and_no_misere_invitation() -> None:
    """K-1 (R-T6), K-3: at four the dealer gets no cards and cannot be invited to a misère."""
    state = start4(conventions=CLASSIC)
    assert state.hands[0] == 0
    assert not any(isinstance(a, InviteMisere) for a in legal_actions(state, 1))
    with pytest.raises(IllegalActionError):
        apply(state, InviteMisere(1))
    state = bids(state, "pass", "6D", "pass")
    assert state.declarer == 2 and state.phase == "defence"
    assert legal_actions(state, 0) == []


def test_k5_a_seat_out_of_time_passes_the_talon_on() -> None:
    """K-5: the move timer never buys a talon for a player: his default is to pass it on."""
    state = bids(classic(), "pass", "pass", "pass")
    assert default_move(state, 1) == Bid(1, "pass")
    state = bids(state, "pass", "pass")
    assert default_move(state, 0) == Bid(0, "pass")
