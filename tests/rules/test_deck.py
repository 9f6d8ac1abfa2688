"""The verifiable deal: shuffle, commitment, cut, dealing by twos (R-D2, R-D3, R-D4, R-T6)."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest

from app.rules import (
    Conventions,
    Cut,
    DealConfig,
    IllegalActionError,
    InvalidDeckError,
    apply,
    card_text,
    commitment,
    cut_deck,
    deal_cards,
    legal_actions,
    new_deal,
    reveal,
    shuffled_deck,
    verify_deal,
    view,
)


def test_shuffle_is_a_permutation_and_deterministic_for_a_seed() -> None:
    a = shuffled_deck(random.Random(7))
    assert sorted(a) == list(range(32))
    assert a == shuffled_deck(random.Random(7))
    assert a != shuffled_deck(random.Random(8))


def test_commitment_is_sha256_of_documented_text() -> None:
    """R-D4: the commitment can be recomputed by anyone from the reveal."""
    deck = tuple(range(32))
    salt = b"\x01\x02"
    text = "deck/1:" + " ".join(card_text(c) for c in deck) + ":0102"
    assert commitment(deck, salt) == hashlib.sha256(text.encode()).hexdigest()
    assert commitment(deck, b"\x01\x03") != commitment(deck, salt)


def test_new_deal_rejects_a_bad_deck() -> None:
    config = DealConfig(3, 0)
    with pytest.raises(InvalidDeckError):
        new_deal(config, [0] * 32, b"s")
    with pytest.raises(InvalidDeckError):
        new_deal(config, range(31), b"s")


@pytest.mark.parametrize("position", [0, 3, 29, 32])
def test_r_d2_each_part_of_the_cut_keeps_cut_min_cards(position: int) -> None:
    with pytest.raises(IllegalActionError, match="at least 4"):
        cut_deck(tuple(range(32)), position, 4)


def test_r_d2_cut_moves_the_top_part_under() -> None:
    assert cut_deck(tuple(range(32)), 4, 4)[:3] == (4, 5, 6)
    assert cut_deck(tuple(range(32)), 28, 4)[-1] == 27


def test_r_d3_talon_is_the_fourth_pair_and_pairs_go_clockwise_from_dealer_left() -> None:
    hands, talon = deal_cards(tuple(range(32)), 3, dealer=2)
    # Dealer 2: seat 0 gets pairs 1, 5, 8, ...; the talon is pair 4 (cards 6 and 7).
    assert talon == (6, 7)
    assert hands[0] >> 0 & 1 and hands[0] >> 1 & 1
    assert hands[1] >> 2 & 1 and hands[1] >> 3 & 1
    assert hands[2] >> 4 & 1 and hands[2] >> 5 & 1
    assert hands[0] >> 8 & 1  # the second round starts after the talon
    assert all(h.bit_count() == 10 for h in hands)


def test_r_t6_four_player_dealer_gets_no_cards() -> None:
    hands, _ = deal_cards(tuple(range(32)), 4, dealer=1)
    assert hands[1] == 0
    assert [hands[s].bit_count() for s in (2, 3, 0)] == [10, 10, 10]
    assert hands[2] & 0b11 == 0b11  # dealer's left neighbour gets the first pair


def test_r_d2_cutter_is_dealer_right_neighbour_three_and_four_players() -> None:
    assert new_deal(DealConfig(3, 0), range(32), b"s").to_move == 2
    assert new_deal(DealConfig(4, 0), range(32), b"s").to_move == 3
    state = new_deal(DealConfig(4, 2), range(32), b"s")
    assert state.to_move == 1 and state.phase == "cut"
    assert [a.position for a in legal_actions(state, 1)] == list(range(4, 29))  # type: ignore[union-attr]
    assert legal_actions(state, 3) == []
    with pytest.raises(IllegalActionError):
        apply(state, Cut(3, 10))


def test_cut_min_comes_from_conventions() -> None:
    conv = Conventions().with_overrides({"cut_min": 8})
    state = new_deal(DealConfig(3, 0, conv), range(32), b"s")
    with pytest.raises(IllegalActionError, match="at least 8"):
        apply(state, Cut(2, 7))
    state, _ = apply(state, Cut(2, 8))
    assert state.phase == "auction"


def test_r_d4_commitment_public_before_cut_reveal_verifies() -> None:
    deck = shuffled_deck(random.Random(3))
    salt = b"secret-salt"
    state = new_deal(DealConfig(3, 1), deck, salt)
    public = view(state, None)
    assert public["commitment"] == commitment(deck, salt)
    assert "secret" not in str(public) and salt.hex() not in str(public)
    data = reveal(deck, salt, 12, 3, 1)
    assert verify_deal(data)
    state, _ = apply(state, Cut(0, 12))
    assert [card_text(c) for c in state.talon] == list(data.talon)


def test_r_d4_verify_detects_tampering() -> None:
    data = reveal(tuple(range(32)), b"salt", 10, 4, 0)
    assert verify_deal(data)
    swapped = list(data.deck)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not verify_deal(dataclasses.replace(data, deck=tuple(swapped)))
    other_hands = (data.hands[1], data.hands[0], *data.hands[2:])
    assert not verify_deal(dataclasses.replace(data, hands=other_hands))
    assert not verify_deal(dataclasses.replace(data, salt="zz"))
    assert not verify_deal(dataclasses.replace(data, cut=11))
    assert not verify_deal(dataclasses.replace(data, talon=("AS", "KS")))


def test_r_d2_four_players_the_cutters_right_neighbour_may_cut_for_him() -> None:
    state = new_deal(DealConfig(4, 0), range(32), b"s")
    assert state.cutter == 3
    cut, _ = apply(state, Cut(2, 10))
    assert cut.phase == "auction" and cut.cut == 10
    with pytest.raises(IllegalActionError):
        apply(state, Cut(1, 10))
    three = new_deal(DealConfig(3, 0), range(32), b"s")
    with pytest.raises(IllegalActionError):
        apply(three, Cut(1, 10))
