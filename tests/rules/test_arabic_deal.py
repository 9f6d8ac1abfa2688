"""Arabic preferans (seed 004) inside one deal: the forced opening pass-out, the talon's place.

Rule IDs are docs/rules-arabic.md's; deals are hand-built (tests/support/engine.py).
"""

from __future__ import annotations

import pytest

from app.rules import (
    AnswerInvitation,
    Bid,
    ChoosePlay,
    Claim,
    Concede,
    Conventions,
    DealState,
    Defend,
    Discard,
    InviteMisere,
    NameContract,
    ReturnTalon,
    legal_actions,
    outcome,
    view,
)
from app.rules.core.auction import PASS_ONLY_LEVEL, IllegalBidError, parse_contract
from app.rules.core.cards import mask_cards
from app.rules.core.deck import deal_cards
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.core.seats import playing_seats
from app.rules.deal.dispatch import apply
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, play_out, start, start4

ARABIC = Conventions.preset_named("arabic")


def test_a3_an_opening_deal_allows_only_pass_and_is_played_as_a_pass_out() -> None:
    """A-3: on an opening bomb nobody may bid, not even misère; the deal is a pass-out."""
    state = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC, min_level=PASS_ONLY_LEVEL)
    assert legal_actions(state, 1) == [Bid(1, "pass")]
    for call in ("misere", parse_contract("10NT")):
        with pytest.raises(IllegalBidError):
            apply(state, Bid(1, call))  # type: ignore[arg-type]
    state = bids(state, "pass", "pass", "pass")
    assert state.kind == "pass_out" and state.phase == "play"


@pytest.mark.parametrize(("players", "dealer"), [(3, 0), (3, 2), (4, 0), (4, 3)])
def test_a8_the_talon_is_never_the_first_or_last_two_cards(players: int, dealer: int) -> None:
    """A-8: the talon is the 4th pair; the first pair goes to forehand, the last two to the
    last hand (at three players that is the dealer: "две последние карты сдатчик кладёт себе")."""
    order = tuple(range(32))
    hands, talon = deal_cards(order, players, dealer)
    assert talon == (6, 7)
    seats = playing_seats(players, dealer)
    assert hands[seats[0]] & 0b11 == 0b11
    assert hands[seats[2]] >> 30 == 0b11
    if players == 3:
        assert seats[2] == dealer


def test_a12_games_without_the_talon_sit_just_above_their_game_on_the_ladder() -> None:
    """A-12: "6 Пик — 6 Пик без прикупа — 6 Треф…"; only under ``arabic``."""
    state = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)
    calls = [a.call for a in legal_actions(state, 1) if isinstance(a, Bid)]
    texts = [str(c) for c in calls[3:8]]  # after pass, misère, misère without talon
    assert texts == ["6S", "6SBP", "6C", "6CBP", "6D"]
    state = bids(state, "6SBP")
    later = [str(a.call) for a in legal_actions(state, 2) if isinstance(a, Bid)]
    assert "6SBP" not in later and "6S" not in later and "6C" in later
    club = start(LAYOUT, LAYOUT_TALON)
    assert all(not getattr(a.call, "no_talon", False) for a in legal_actions(club, 1))  # type: ignore[attr-defined]
    with pytest.raises(IllegalBidError):
        apply(club, Bid(1, parse_contract("6SBP")))


def test_a12_a_game_without_the_talon_is_played_as_bid_with_the_talon_closed() -> None:
    """A-12: no talon shown or taken, no discard; the defence starts at once."""
    state = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)
    state = bids(state, "7SBP", "pass", "pass")
    assert state.phase == "defence" and str(state.contract) == "7SBP"
    assert state.talon_shown == 0 and state.discard == 0
    assert state.hands[1].bit_count() == 10
    assert view(state, 2)["talon"] is None


def test_a13_misere_is_overbid_by_nine_misere_without_talon_by_nine_without_talon() -> None:
    """A-13: "Мизер перебивается девятерной, мизер без прикупа — девятерной без прикупа"."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=ARABIC), "misere")
    second = {
        a.call if isinstance(a.call, str) else str(a.call)
        for a in legal_actions(state, 2)
        if isinstance(a, Bid)
    }
    assert {"misere_bp", "9S", "9SBP"} <= second and "8NTBP" not in second
    state, _ = apply(state, Bid(2, "misere_bp"))
    third = {
        a.call if isinstance(a.call, str) else str(a.call)
        for a in legal_actions(state, 0)
        if isinstance(a, Bid)
    }
    assert "9S" not in third and "misere" not in third and "9SBP" in third
    club = start(LAYOUT, LAYOUT_TALON)
    assert Bid(1, "misere_bp") not in legal_actions(club, 1)
    with pytest.raises(IllegalBidError):
        apply(club, Bid(1, "misere_bp"))


def test_a13_misere_without_the_talon_is_caught_open_with_the_talon_closed() -> None:
    """A-13: won without the talon, the misère goes straight to play; the record says so."""
    state, _ = apply(start(LAYOUT, LAYOUT_TALON, conventions=ARABIC), Bid(1, "misere_bp"))
    state = bids(state, "pass", "pass")
    assert state.phase == "play" and state.contract == "misere" and state.kind == "misere"
    assert state.talon_shown == 0 and state.hands[1].bit_count() == 10
    state = play_out(state)
    result = outcome(state)
    assert result is not None and result.marks == {"no_talon"}
    assert deal_to_json(result)["no_talon"] is True
    assert deal_from_json(deal_to_json(result), 0) == result


def test_a21_the_spit_returns_the_talon_and_the_game_is_played_with_it_open() -> None:
    """A-21: the declarer throws the shown talon back before discarding; it stays open."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=ARABIC), "6S", "pass", "pass")
    assert ReturnTalon(1) in legal_actions(state, 1)
    state, _ = apply(state, ReturnTalon(1))
    assert state.talon_returned and state.hands[1].bit_count() == 10
    assert sorted(view(state, 2)["talon"]) == sorted(LAYOUT_TALON.split())


def test_a19_the_dealer_invited_to_halves_accepts_and_the_inviter_bids_any_game() -> None:
    """A-19: "Игрок может приглашать сдающего зайти за половину на любую игру"; accepted, the
    inviter still bids what he likes, and the outcome names the dealer as his partner."""
    state = start4(conventions=ARABIC)
    assert InviteMisere(1) in legal_actions(state, 1)
    state, _ = apply(state, InviteMisere(1))
    state, _ = apply(state, AnswerInvitation(0, True))
    assert state.to_move == 1 and state.partners.partner_of == 1
    state = bids(state, "10NT", "pass", "pass")
    assert state.declarer == 1 and state.phase == "discard"
    state, _ = apply(state, Discard(1, tuple(sorted(mask_cards(state.hands[1]))[:2])))
    state, _ = apply(state, NameContract(1, parse_contract("10NT")))
    state = play_out(state)
    result = outcome(state)
    assert result is not None and result.misere_partner == 0 and result.kind == "game"


@pytest.mark.parametrize("conventions", [ARABIC, Conventions()])
def test_a19_r_b9_no_partner_when_another_seat_wins_the_auction(conventions: Conventions) -> None:
    """A-19, R-B9: the dealer's agreement binds only the inviter's game: outbid, no halves."""
    state = start4(conventions=conventions)
    state, _ = apply(state, InviteMisere(1))
    state, _ = apply(state, AnswerInvitation(0, True))
    if conventions.halves_any_game:
        state = bids(state, "6S")
    state = bids(state, "9C", "pass", "pass")
    assert state.declarer == 2
    state, _ = apply(state, Concede(2))
    result = outcome(state)
    assert result is not None and result.kind == "conceded" and result.misere_partner is None


def _declared(contract: str) -> DealState:
    """Seat 1 wins ``contract`` under ``arabic``, discards his two lowest and names it."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=ARABIC), contract, "pass", "pass")
    low = tuple(sorted(mask_cards(state.hands[1]))[:2])
    state, _ = apply(state, Discard(1, low))
    state, _ = apply(state, NameContract(1, parse_contract(contract)))
    return state


def test_a14_pass_half_whist_and_a_lone_whister_chooses_open_or_closed() -> None:
    """A-14: "пас — полвиста — вист… Если вистует только один игрок, то он решает, как ходить —
    в тёмную (стоя) или в светлую (лёжа)"."""
    state = _declared("6H")
    assert state.phase == "defence"
    state, _ = apply(state, Defend(2, "pass"))
    assert {a.call for a in legal_actions(state, 0) if isinstance(a, Defend)} == {
        "whist",
        "pass",
        "half",
    }
    state, _ = apply(state, Defend(0, "whist"))
    assert state.phase == "play_mode" and state.to_move == 0
    assert {a.mode for a in legal_actions(state, 0) if isinstance(a, ChoosePlay)} == {
        "open",
        "closed",
    }


CLEAN_MISERE = {
    1: "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
    2: "10S JS 10C JC 9D 10D JD 9H 10H JH",
    0: "QS KS QC KC QD KD AD QH KH AH",
}
"""Forehand holds the bottom of every suit: under any lead he can play lower, so once the
talon's two aces are discarded his misère is clean ("голубой")."""


def test_a17_a_clean_misere_is_laid_down_as_soon_as_the_talon_is_set_aside() -> None:
    """A-17: "После того, как прикуп поднят можно сразу положить карты, если мизер чистый".
    Forehand takes the talon (♠A ♣A), discards both and, before any card is led, lays his ten
    down (the claim of no tricks, R-W11): it holds against every defence, the deal ends as a
    misère with 0 tricks and every hand as dealt is in its record."""
    state = bids(start(CLEAN_MISERE, "AS AC", conventions=ARABIC), "misere", "pass", "pass")
    state, _ = apply(state, Discard(1, tuple(sorted(cards("AS AC")))))
    assert state.phase == "play" and state.hands[1].bit_count() == 10 and not state.trick
    assert Claim(1, 0) in legal_actions(state, 1)
    state, _ = apply(state, Claim(1, 0))
    result = outcome(state)
    assert state.finished and result is not None and result.kind == "misere"
    assert result.tricks is not None and result.tricks[1] == 0
    assert len(view(state, None)["dealt"]["1"]) == 10


def test_a17_a_misere_that_is_not_clean_is_not_laid_down() -> None:
    """A-17 (the other case, "В противном случае"): discarding ♣7 ♣8 he keeps ♣9 ♣A against
    ♣10 ♣J and ♣Q ♣K: a second round of clubs, which the catchers can always lead, takes his
    ace; so his claim of none fails and the play goes on (R-W11)."""
    state = bids(start(CLEAN_MISERE, "AS AC", conventions=ARABIC), "misere", "pass", "pass")
    state, _ = apply(state, Discard(1, tuple(sorted(cards("7C 8C")))))
    state, _ = apply(state, Claim(1, 0))
    assert not state.finished and state.phase == "play" and state.claim_failed >> 1 & 1


def test_a17_a_misere_is_caught_open_and_its_hands_are_shown_after_the_deal() -> None:
    """A-17: "Мизер — ловится в светлую… карты игрока всегда записываются"."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=ARABIC), "misere", "pass", "pass")
    state, _ = apply(state, Discard(1, tuple(sorted(mask_cards(state.hands[1]))[:2])))
    assert state.phase == "play" and state.open_seats | state.open_pending == (1 << 2) | (1 << 0)
    state = play_out(state)
    shown = view(state, None)
    assert set(shown["dealt"]) == {"0", "1", "2"} and len(shown["dealt"]["1"]) == 10
