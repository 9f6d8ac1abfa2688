"""Issue 12 rule edges: the four-player dealer's looks at a hand (000). R-B9: a player invites
the dealer to a misère; the dealer alone sees the inviter's cards and accepts or declines, and
an accepted misère is written half on each partner. R-W4: before deciding to return a
half-whist the dealer may look at one of the declarer's opponents' cards — only he sees them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules import (
    AnswerInvitation,
    Bid,
    Contract,
    Defend,
    Discard,
    IllegalActionError,
    InviteMisere,
    LookAtHand,
    NameContract,
    ReturnWhist,
    action_from_json,
    action_to_json,
    apply,
    legal_actions,
    mask_text,
    outcome,
    view,
    visible_cards,
)
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.scoring.sheet import score_deal
from tests.support.engine import LAYOUT4, bids, cards, play_out, run, start4

SEAT1 = LAYOUT4[1].split()


def _leaks(state, seat, hidden_seat) -> bool:  # type: ignore[no-untyped-def]
    """Does ``seat``'s view or sight show any card of ``hidden_seat``'s hand?"""
    mask = state.hands[hidden_seat]
    return bool(visible_cards(state, seat) & mask) or any(
        card in str(view(state, seat)) for card in mask_text(mask)
    )


def test_r_b9_the_dealer_alone_sees_the_inviters_hand() -> None:
    """R-B9: seat 1 (forehand, before his first call) hands his cards to dealer 0."""
    state = start4()
    assert InviteMisere(1) in legal_actions(state, 1)
    state, events = apply(state, InviteMisere(1))
    assert [e.type for e in events] == ["misere_invited"]
    assert "AS" not in str(events)  # the event names seats only
    assert state.to_move == 0
    assert legal_actions(state, 0) == [AnswerInvitation(0, False), AnswerInvitation(0, True)]
    shown = view(state, 0)
    assert shown["invitation"] == 1
    assert shown["seen_hand"] == {"seat": 1, "cards": sorted(SEAT1, key=lambda t: cards(t)[0])}
    for other in (None, 2, 3):
        assert not _leaks(state, other, 1)
        assert view(state, other)["seen_hand"] is None
    with pytest.raises(IllegalActionError):
        apply(state, Bid(0, "pass"))  # the dealer answers, he does not bid
    with pytest.raises(IllegalActionError):
        apply(state, Bid(1, "misere"))  # the auction waits for the answer


def test_r_b9_declined_invitation_the_inviter_calls_and_cannot_invite_again() -> None:
    state, _ = run(start4(), InviteMisere(1), AnswerInvitation(0, False))
    assert state.to_move == 1 and state.partner is None
    assert view(state, 0)["seen_hand"] is None and not _leaks(state, 0, 1)
    assert InviteMisere(1) not in legal_actions(state, 1)
    with pytest.raises(IllegalActionError, match="already invited"):
        apply(state, InviteMisere(1))
    state, _ = apply(state, Bid(1, "pass"))
    with pytest.raises(IllegalActionError):
        apply(state, InviteMisere(1))  # after his first call
    assert InviteMisere(2) in legal_actions(state, 2)


def test_r_b9_accepted_misere_is_written_half_on_each_partner() -> None:
    """R-B9: accepted, the partners bid misère; seat 1 plays it (and is caught: all spades);
    every entry is half on seat 1 and half on dealer 0."""
    state, events = run(start4(), InviteMisere(1), AnswerInvitation(0, True))
    assert [e.type for e in events][-2:] == ["invitation_answered", "called"]
    assert state.auction.calls == ((1, "misere"),)  # type: ignore[union-attr]
    state = bids(state, "pass", "pass")
    assert state.declarer == 1 and state.kind == "misere"
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    state = play_out(state)
    result = outcome(state)
    assert result is not None and result.misere_partner == 0
    assert deal_from_json(deal_to_json(result), 0) == result
    taken = result.tricks[1]  # type: ignore[index]
    assert taken > 0
    entries = [
        (e.seat, e.column, e.amount)
        for e in score_deal(result, state.config.conventions, players=4)
    ]
    half = Fraction(taken * 10 * 2, 2)  # R-W10: 10 a trick, doubled in the club; half each
    assert (1, "hill", half) in entries and (0, "hill", half) in entries


def test_r_b9_only_at_four_players_and_only_the_dealer_answers() -> None:
    from tests.support.engine import LAYOUT, LAYOUT_TALON, start

    three = start(LAYOUT, LAYOUT_TALON)
    assert not [a for a in legal_actions(three, 1) if isinstance(a, InviteMisere)]
    with pytest.raises(IllegalActionError, match="four-player"):
        apply(three, InviteMisere(1))
    state, _ = apply(start4(), InviteMisere(1))
    with pytest.raises(IllegalActionError):
        apply(state, AnswerInvitation(2, True))


def half_whisted_four():  # type: ignore[no-untyped-def]
    """Dealer 0; seat 1 plays 6♣; seat 2 passes, seat 3 half-whists, seat 2 does not return:
    the dealer decides last (R-W4)."""
    state = bids(start4(), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "C")),
        Defend(2, "pass"),
        Defend(3, "half"),
        Defend(2, "pass"),
    )
    assert state.stage == "return_dealer" and state.to_move == 0
    return state


def test_r_w4_the_dealer_looks_at_one_opponents_hand_only_he_sees_it() -> None:
    state = half_whisted_four()
    assert LookAtHand(0, 2) in legal_actions(state, 0)
    assert LookAtHand(0, 3) in legal_actions(state, 0)
    assert not _leaks(state, 0, 2)
    state, events = apply(state, LookAtHand(0, 2))
    assert [e.type for e in events] == ["hand_looked_at"] and events[0].data["target"] == 2
    assert view(state, 0)["seen_hand"]["seat"] == 2
    assert visible_cards(state, 0) & state.hands[2] == state.hands[2]
    for other in (None, 1, 3):
        assert not _leaks(state, other, 2)
        assert view(state, other)["looked_at"] == 2 and view(state, other)["seen_hand"] is None
    assert not _leaks(state, 0, 3)  # one hand only
    assert not [a for a in legal_actions(state, 0) if isinstance(a, LookAtHand)]
    with pytest.raises(IllegalActionError, match="already looked"):
        apply(state, LookAtHand(0, 3))
    assert legal_actions(state, 0) == [ReturnWhist(0), Defend(0, "pass")]
    returned, _ = apply(state, ReturnWhist(0))
    assert returned.whisters == (0,) and returned.phase == "play"


def test_r_w4_look_refused_out_of_place() -> None:
    state = half_whisted_four()
    with pytest.raises(IllegalActionError):
        apply(state, LookAtHand(0, 1))  # the declarer's own cards
    with pytest.raises(IllegalActionError):
        apply(state, LookAtHand(2, 3))  # not the dealer
    early = bids(start4(), "6S", "pass", "pass")
    with pytest.raises(IllegalActionError):
        apply(early, LookAtHand(0, 2))


def test_new_actions_round_trip_as_json() -> None:
    for action in (InviteMisere(1), AnswerInvitation(0, True), LookAtHand(0, 3)):
        assert action_from_json(action_to_json(action)) == action
    assert action_to_json(AnswerInvitation(0, False)) == {
        "type": "answer_invitation",
        "seat": 0,
        "accept": False,
    }


def test_r_b9_misere_partner_in_a_record_is_the_dealer_on_a_misere() -> None:
    """``pulka/1``: ``misere_partner`` names the dealer of a misère, nothing else (R-B9)."""
    from app.rules import InvalidRecordError

    base = {
        "dealer": 0,
        "type": "misere",
        "declarer": 1,
        "play": "open",
        "tricks": {"1": 0, "2": 5, "3": 5},
        "misere_partner": 0,
    }
    assert deal_from_json(base, 0).misere_partner == 0
    for bad in (
        {"misere_partner": 2},
        {"misere_partner": 1, "dealer": 1, "declarer": 1},
        {"type": "game", "contract": "6S"},
    ):
        with pytest.raises(InvalidRecordError) as err:
            deal_from_json({**base, **bad}, 0)
        assert err.value.field in ("misere_partner", "contract", "defence", "tricks", "play")
