"""Property suite: 20,000 random legal deals per run, three and four players, all presets, and
4,000 more at five players (R-T6).

Hypothesis draws seeds; each example plays a batch of deals with a seeded random policy that
picks among :func:`legal_actions` (claims, concessions, proposed results included) and checks:

* 32 distinct cards dealt, ten to each playing seat, two in the talon (R-D3, R-T6);
* a played-out deal has ten tricks, each played legally (re-checked independently, R-W7, R-R1);
* an illegal card or an out-of-turn action is rejected and changes nothing;
* no view shows a hidden card: other hands not laid open, the talon before it is shown, the
  discard (R-C3), tricks before the last (R-W8);
* replaying the applied actions gives an equal state and the same events;
* an accepted claim never awards a trick that some defence denies (brute-force oracle);
* every outcome is accepted by the score sheet's validator (``Pulka.record``).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.rules import (
    PRESET_NAMES,
    AcceptResult,
    Action,
    AnswerInvitation,
    Bid,
    Claim,
    Concede,
    Conventions,
    Cut,
    DarkBid,
    DealConfig,
    DealState,
    DeclineResult,
    Discard,
    IllegalActionError,
    InviteMisere,
    NameContract,
    PickUp,
    PlayCard,
    ProposeResult,
    TakeTalon,
    action_from_json,
    action_to_json,
    apply,
    card_text,
    cards_mask,
    event_to_json,
    legal_actions,
    legal_cards,
    legal_cards_now,
    mask_cards,
    new_deal,
    outcome,
    parse_cards,
    replay,
    shuffled_deck,
    start_events,
    view,
    views,
)
from app.rules.core.auction import PASS_ONLY_LEVEL
from app.rules.core.cards import SUIT_MASKS
from app.rules.deal.deal_rules import deal_rules
from app.rules.scoring.pulka import Pulka
from app.rules.variants.arabic.arabic_auction import ArabicAuction
from tests.support.engine import brute_value

PRESETS = tuple(PRESET_NAMES)
"""Every preset of every registered rule set: a new rule set is covered without editing a list."""
CONVENTIONS = {p: Conventions.preset_named(p) for p in PRESETS}
FIVE_PLAYER = tuple(p for p in PRESETS if 5 in CONVENTIONS[p].table_sizes())
"""The presets a table of five plays (R-T6); seeds 003 and 004 know three and four players."""
RETURN_ON = Conventions().with_overrides({"talon_return_penalty": True})
DEALS_PER_EXAMPLE = 400
EXAMPLES = 50  # 50 × 400 = 20,000 deals
SHARDS = 5
"""The 20,000 deals run as five tests of 10 × 400, so parallel workers share them
(docs/testing.md); every shard draws its own seeds."""
NOT_CARDS = {"bid", "contract", "auction", "outcome", "commitment"}


CARD_TEXT = re.compile(r'"((?:10|[789JQKA])[SCDH])"')


def view_cards(data: dict[str, Any]) -> set[str]:
    """Every card text anywhere in a view (fields holding contracts are left out: "10S" there
    is a contract, not a card). Serialises the whole view on the way, so a view that is not
    JSON fails here."""
    rest = dict(data)
    for key in NOT_CARDS:
        rest.pop(key, None)
    json.dumps([data.get(key) for key in NOT_CARDS])
    return set(CARD_TEXT.findall(json.dumps(rest)))


def own_hand_face_down(state: DealState, seat: int) -> bool:
    """A-10, A-11: in the auction a seat that has neither called nor picked up its cards."""
    auction = state.auction
    if state.phase != "auction" or auction is None or seat not in state.active:
        return False
    extra = auction.extra
    blind = extra.blind if isinstance(extra, ArabicAuction) else 0
    return bool(blind >> state.active.index(seat) & 1)


def forbidden_cards(state: DealState, seat: int | None) -> int:
    """Cards ``seat`` must not see now, computed from the state independently of view()."""
    if state.finished or not state.hands:
        return 0
    hidden = 0
    for s in range(state.players):
        if s != seat and not state.open_seats >> s & 1:
            hidden |= state.hands[s]
    if seat is not None and own_hand_face_down(state, seat):
        hidden |= state.hands[seat]
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    if state.kind == "pass_out":
        turned = sum(1 << c for c in state.talon[: state.talon_shown])
        hidden |= talon & ~turned
    elif state.talon_shown < 2:
        hidden |= talon
    public_talon = talon if state.kind != "pass_out" and state.talon_shown == 2 else 0
    before_lead = not state.history and not state.trick
    if not (seat == state.declarer and before_lead):
        hidden |= state.discard & ~public_talon
    for trick in state.history[:-1]:
        for _, card in trick:
            hidden |= 1 << card
    hidden &= ~public_talon
    for _, card in state.trick:
        hidden &= ~(1 << card)
    for _, card in state.last_trick:
        hidden &= ~(1 << card)
    if seat is not None and seat == state.dealer and state.players >= 4:
        if state.invited is not None:  # R-B9: the dealer answers looking at the inviter's cards
            hidden &= ~state.hands[state.invited]
        elif state.looked_at is not None and state.phase == "defence":  # R-W4: his one look
            hidden &= ~state.hands[state.looked_at]
    return hidden


def check_views(state: DealState) -> None:
    """Every seat's view (and a spectator's) shows no card it may not see, each seat its own
    hand, the discard only where allowed. The views come from one fan-out (``views``), as the
    server sends them; ``view`` alone must build the same for the spectator and for the seat to
    move, which goes round every seat in a deal (a view of one seat at a time costs the shared
    part again, and a fan-out that let one seat's view change another's would differ here)."""
    seats = (None, *range(state.players))
    together = views(state, seats)
    for seat in {None, state.to_move}:
        assert view(state, seat) == together[seat]
    for seat in seats:
        data = together[seat]
        shown = cards_mask(parse_cards(view_cards(data)))
        leaked = shown & forbidden_cards(state, seat)
        assert not leaked, (seat, state.phase, [card_text(c) for c in mask_cards(leaked)])
        if seat is not None and state.hands and not own_hand_face_down(state, seat):
            assert data["hand"] == [card_text(c) for c in mask_cards(state.hands[seat])]
        if data["discard"] is not None:
            assert state.finished or seat == state.declarer


def check_tricks(state: DealState) -> None:
    """Re-check every trick of a played-out deal from the dealt hands (R-W7, R-R1..R-R3)."""
    hands = list(state.dealt)
    # K-4: a classic suit game has no talon: nor a game without the talon
    took_talon = state.talon_shown == 2 and bool(state.discard)
    if state.declarer is not None and not state.talon_returned and took_talon:
        hands[state.declarer] |= (1 << state.talon[0]) | (1 << state.talon[1])
        hands[state.declarer] &= ~state.discard
    contract = state.contract
    trump = None
    if contract is not None and contract != "misere":
        trump = {"S": 0, "C": 1, "D": 2, "H": 3, "NT": None}[contract.strain]  # type: ignore[union-attr]
    for index, trick in enumerate(state.history):
        talon_lead = state.kind == "pass_out" and index < 2
        players_cards = trick[1:] if talon_lead else trick
        led = trick[0][1] >> 3
        assert len(players_cards) == 3
        assert {s for s, _ in players_cards} == set(state.active)
        for seat, card in players_cards:
            assert hands[seat] >> card & 1
            lead_here = not talon_lead and (seat, card) == trick[0]
            legal = legal_cards(hands[seat], None if lead_here else led, trump)
            assert legal >> card & 1, (index, seat, card_text(card))
            hands[seat] ^= 1 << card
    assert all(h == 0 for h in hands)


class Policy:
    """A seeded random player that takes legal actions, with a taste for low bids."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: DealState) -> Action:
        rng = self.rng
        seat = state.to_move
        assert seat is not None
        if state.phase == "play":
            if state.proposal is not None:
                for other in range(state.players):  # the four-player dealer too (R-W11)
                    acts = [
                        a
                        for a in legal_actions(state, other)
                        if isinstance(a, AcceptResult | DeclineResult)
                    ]
                    if acts:
                        return acts[0] if rng.random() < 0.6 else acts[1]
            if state.declarer is not None and rng.random() < 0.05:
                remaining = state.hands[state.turn].bit_count()  # type: ignore[index]
                claims = [a for a in legal_actions(state, state.declarer) if isinstance(a, Claim)]
                if claims and remaining <= 4:
                    if state.kind == "game" and len(state.whisters) < 2:
                        return Claim(state.declarer, rng.randint(1, remaining))
                    return claims[0]
            if state.declarer is not None and rng.random() < 0.02:
                remaining = state.hands[state.turn].bit_count()  # type: ignore[index]
                defender = rng.choice([s for s in state.active if s != state.declarer])
                if remaining <= 4 and any(
                    isinstance(a, Claim) for a in legal_actions(state, defender)
                ):
                    return Claim(defender, rng.randint(0, remaining))  # issue 12: R-W11
            if rng.random() < 0.003:
                return self.proposal(state)
            return PlayCard(seat, rng.choice(mask_cards(legal_cards_now(state))))
        options = legal_actions(state, seat)
        if state.phase == "auction":
            answers = [a for a in options if isinstance(a, AnswerInvitation)]
            if answers:
                return rng.choice(answers)  # R-B9
            if InviteMisere(seat) in options and rng.random() < 0.05:
                return InviteMisere(seat)
            bids = [a for a in options if isinstance(a, Bid)]
            assert state.auction is not None
            if deal_rules(state.config.conventions).bid_options(state, seat) is None:
                assert [b.call for b in bids] == state.auction.legal_calls()  # the shared ladder
            if TakeTalon(seat) in options and rng.random() < 0.5:
                return TakeTalon(seat)  # K-5: the talon bought
            dark = [b for b in bids if b.call == "dark_pass" or isinstance(b.call, DarkBid)]
            if dark and rng.random() < 0.15:
                return rng.choice(dark[:4])  # called before looking
            if PickUp(seat) in options and rng.random() < 0.5:
                return PickUp(seat)  # the cards picked up first
            if rng.random() < 0.55:
                return bids[0]
            preferans = [b for b in bids if b.call == "preferans"]
            if preferans and rng.random() < 0.05:
                return preferans[0]
            plain = [b for b in bids if b not in dark and b not in preferans]
            return rng.choice(plain[1:5] or plain)
        if state.phase == "contract":
            named = [a for a in options if isinstance(a, NameContract)]
            if rng.random() < 0.03 and Concede(seat) in options:
                return Concede(seat)
            return rng.choice(named[:3]) if rng.random() < 0.8 else rng.choice(named)
        if state.phase == "cut":
            return rng.choice([a for a in options if isinstance(a, Cut)])
        if state.phase == "discard":
            return rng.choice([a for a in options if isinstance(a, Discard)])
        return rng.choice(options)

    def proposal(self, state: DealState) -> Action:
        rng = self.rng
        seats = (
            tuple(s for s in range(state.players) if s in state.active or s == state.dealer)
            if state.kind == "pass_out" and state.players >= 4
            else state.active
        )
        counts = {s: state.tricks[s] for s in seats}
        takers = [
            s for s in seats if s != state.dealer or state.kind != "pass_out" or state.players == 3
        ]
        for _ in range(10 - sum(counts.values())):
            counts[rng.choice(takers)] += 1
        return ProposeResult(state.active[0], tuple(sorted(counts.items())))


def illegal_probe(state: DealState, rng: random.Random) -> None:
    """An illegal card or an out-of-turn action must be rejected without any change."""
    seat = state.to_move
    if seat is None or state.phase != "play":
        return
    legal = legal_cards_now(state)
    illegal = [c for c in range(32) if not legal >> c & 1]
    card = rng.choice(illegal)
    try:
        apply(state, PlayCard(seat, card))
    except IllegalActionError:
        pass
    else:  # pragma: no cover - the property fails
        raise AssertionError(f"illegal {card_text(card)} accepted")
    others = [s for s in range(state.players) if s != seat]
    try:
        apply(state, PlayCard(rng.choice(others), rng.choice(mask_cards(legal))))
    except IllegalActionError:
        pass
    else:  # pragma: no cover
        raise AssertionError("out-of-turn card accepted")


def check_claim(before: DealState, action: Claim, after: DealState) -> None:
    """An accepted claim holds against every defence: brute force over the remaining cards."""
    if after.end != "claim":
        return
    active = before.active
    pos = {s: i for i, s in enumerate(active)}
    hands = tuple(before.hands[s] for s in active)
    trick = tuple((pos[s], c) for s, c in before.trick)
    leader = trick[0][0] if trick else pos[before.turn]  # type: ignore[index]
    contract = before.contract
    misere = contract == "misere"
    trump = (
        None
        if misere
        else {"S": 0, "C": 1, "D": 2, "H": 3, "NT": None}[
            contract.strain  # type: ignore[union-attr]
        ]
    )
    declarer = before.declarer
    value = brute_value(hands, leader, trick, trump, pos[declarer], misere)  # type: ignore[arg-type,index]
    if action.seat != declarer:  # a defenders' claim: the declarer gets at most / least the rest
        rest = before.hands[before.turn].bit_count() - action.tricks  # type: ignore[index]
        assert value >= rest if misere else value <= rest
    elif misere:
        assert value == 0
    else:
        assert value >= action.tricks


def play_one(rng: random.Random, players: int, conventions: Conventions, deep: bool) -> None:
    levels = (6, 6, 7, 8, PASS_ONLY_LEVEL) if conventions.opening_bombs else (6, 6, 7, 8)
    config = DealConfig(players, rng.randrange(players), conventions, rng.choice(levels))
    deck = shuffled_deck(rng)
    salt = rng.randbytes(8)
    state = new_deal(config, deck, salt)
    events = list(start_events(state))
    actions: list[Action] = []
    policy = Policy(rng)
    probe_at = rng.randrange(40)
    step = 0
    while not state.finished:
        if deep or step == probe_at:
            check_views(state)
            illegal_probe(state, rng)
        action = policy.choose(state)
        before = state
        state, new = apply(state, action)
        if isinstance(action, Claim):
            check_claim(before, action, state)
        actions.append(action)
        events.extend(new)
        step += 1
        if step == 1:
            hands = [h for h in state.dealt if h]
            assert len(hands) == 3 and all(h.bit_count() == 10 for h in hands)
            union = hands[0] | hands[1] | hands[2] | (1 << state.talon[0]) | (1 << state.talon[1])
            assert union == (1 << 32) - 1
            if players == 4:
                assert state.dealt[config.dealer] == 0
            if players == 5:  # R-T6: the dealer and the seat opposite him get no cards
                idle = {config.dealer, (config.dealer + 3) % 5}
                assert {s for s in range(5) if state.dealt[s] == 0} == idle
    check_views(state)
    result = outcome(state)
    assert result is not None
    if state.end == "played":
        assert len(state.history) == 10
        assert sum(result.tricks.values()) == 10  # type: ignore[union-attr]
        check_tricks(state)
    sent = json.loads(json.dumps([action_to_json(a) for a in actions]))  # each as on the wire
    assert [action_from_json(a) for a in sent] == actions
    rebuilt, rebuilt_events = replay(config, deck, salt, actions)
    assert rebuilt == state
    written = [event_to_json(e) for e in events]
    assert [event_to_json(e) for e in rebuilt_events] == written
    json.dumps(written)


@pytest.mark.parametrize("shard", range(SHARDS))
@settings(max_examples=EXAMPLES // SHARDS, deadline=None, derandomize=False)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_deals_are_legal_hidden_and_replayable(shard: int, seed: int) -> None:
    rng = random.Random(seed)
    for index in range(DEALS_PER_EXAMPLE):
        preset = PRESETS[index % len(PRESETS)]
        conventions = RETURN_ON if index % 37 == 0 else CONVENTIONS[preset]
        sizes = [n for n in conventions.table_sizes() if n < 5]  # five: the test below
        play_one(rng, sizes[(index // len(PRESETS)) % len(sizes)], conventions, deep=index % 8 == 0)


@settings(max_examples=10, deadline=None, derandomize=False)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_arabic_random_deals_are_legal_hidden_and_replayable(seed: int) -> None:
    """A-1..A-9: preset ``arabic`` at three and four players, its forced opening included
    (10 × 200 = 2,000 deals)."""
    rng = random.Random(seed)
    for index in range(200):
        conventions = CONVENTIONS["arabic"]
        play_one(rng, 3 + index % 2, conventions, deep=index % 8 == 0)


@settings(max_examples=8, deadline=None)
@given(
    st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(PRESETS), st.sampled_from((3, 4))
)
def test_outcomes_score_on_the_sheet(seed: int, preset: str, players: int) -> None:
    """Each engine outcome is a valid next deal of a pulka (one contract with the scorer)."""
    rng = random.Random(seed)
    conventions = CONVENTIONS[preset]
    assume(players in conventions.table_sizes())
    pulka = Pulka.new(
        players, conventions=conventions, target=10_000, first_dealer=rng.randrange(players)
    )
    policy = Policy(rng)
    for _ in range(60):
        config = DealConfig(players, pulka.next_dealer, conventions, pulka.next_min_level())
        state = new_deal(config, shuffled_deck(rng), b"s")
        while not state.finished:
            state, _ = apply(state, policy.choose(state))
        result = outcome(state)
        assert result is not None
        pulka, _ = pulka.record(result)


@settings(max_examples=12, deadline=None, derandomize=False)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_five_player_deals_are_legal_hidden_and_replayable(seed: int) -> None:
    """R-T6: five at a table, every preset of the club family (12 × 200 = 2,400 deals): 32 cards
    dealt to the three playing seats and the talon, every card legal, no hidden card in any view
    (the two idle seats see only what a spectator sees, the dealer his R-B9/R-W4 looks), replay
    equals state."""
    rng = random.Random(seed)
    for index in range(200):
        preset = FIVE_PLAYER[index % len(FIVE_PLAYER)]
        conventions = RETURN_ON if index % 37 == 0 else CONVENTIONS[preset]
        play_one(rng, 5, conventions, deep=index % 4 == 0)


@settings(max_examples=6, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(FIVE_PLAYER))
def test_five_player_outcomes_score_on_the_sheet(seed: int, preset: str) -> None:
    """R-T6: each five-player engine outcome is a valid next deal of a five-player pulka."""
    test_outcomes_score_on_the_sheet.hypothesis.inner_test(seed, preset, 5)  # type: ignore[attr-defined]


def test_suit_masks_sanity() -> None:
    assert sum(SUIT_MASKS) == (1 << 32) - 1


def test_the_leak_checker_sees_cards_but_not_contracts() -> None:
    data = {
        "hand": ["AS", "10H"],
        "contract": "10S",
        "auction": [{"call": "10D"}],
        "trick": [{"seat": 0, "card": "7C"}],
    }
    assert view_cards(data) == {"AS", "10H", "7C"}
