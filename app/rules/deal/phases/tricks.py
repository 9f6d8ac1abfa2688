"""Trick play: setting it up, playing a card, closing a trick (R-W3, R-W7..R-W10, R-R1..R-R3).

The card rules themselves (follow suit, trump, who wins) are :mod:`app.rules.core.play`; this module
applies them to a deal. :func:`apply_play` is the hot path of the engine (every card of every
deal): one legality test on masks, one state copy per card (:func:`app.rules.deal.state.evolve`).
A pass-out (R-R1..R-R3) is played without trumps, the two talon cards leading the first two
tricks.
"""

from __future__ import annotations

from typing import Any

from app.rules.core.actions import Action, Event, PlayCard
from app.rules.core.cards import CARD_TEXTS, Card, CardMask, card_text, mask_cards, mask_text
from app.rules.core.outcome import PlayMode
from app.rules.core.play import IllegalCardError, check_card, legal_cards, trick_winner
from app.rules.core.seats import NEXT_PLAYING, NO_SEAT, dealer_on_talon
from app.rules.deal.phases.ending import finish
from app.rules.deal.state import DealState, Transition, defenders_of, evolve, require_turn

_event = tuple.__new__
"""``_event(Event, (type, data))`` is ``Event(type, data)`` without the named tuple's
Python-level ``__new__``: the two events of the hot path (a card, a trick) are built this way."""


def legal_cards_now(state: DealState) -> CardMask:
    """The mask of cards the hand due to play (``state.turn``) may play now (0 if none)."""
    turn = state.turn
    if state.phase != "play" or turn is None:
        return 0
    trick = state.trick
    return legal_cards(state.hands[turn], trick[0][1] >> 3 if trick else None, state.trump)


def play_options(state: DealState, seat: int) -> list[Action]:
    """The cards ``seat`` may play now, as actions (none unless ``seat`` is to move)."""
    if state.to_move != seat:
        return []
    return [PlayCard(seat, c) for c in mask_cards(legal_cards_now(state))]


def opened_event(hands: tuple[CardMask, ...], mask: int) -> Event:
    """The public ``hands_opened`` event for the seats in ``mask``, showing their ``hands``."""
    opened = {str(s): mask_text(hands[s]) for s in range(len(hands)) if mask >> s & 1}
    return Event("hands_opened", {"hands": opened})


def start_play(
    state: DealState,
    events: list[Event],
    *,
    whisters: tuple[int, ...],
    mode: PlayMode,
    open_mask: int | None = None,
    controller: int | None = None,
    now: bool = False,
) -> Transition:
    """Set up trick play after the contract and defence (R-W3, R-W7, R-W9, R-W10).

    ``controller`` plays both defending hands (open play); ``open_mask`` are the hands laid
    open, after the declarer's first card when he leads (unless ``now``).
    """
    declarer = state.declarer
    assert declarer is not None
    d1, d2 = defenders_of(state)
    controllers = list(range(state.players))
    if controller is not None:
        controllers[d1] = controllers[d2] = controller
        if open_mask is None:
            open_mask = (1 << d1) | (1 << d2)
    open_mask = open_mask or 0
    leader = state.forehand
    pending = 0
    if open_mask and leader == declarer and not now:
        # R-W3, R-W10: the declarer leads blind; the defenders lay down after his card.
        pending, open_mask = open_mask, 0
    state = evolve(
        state,
        phase="play",
        stage="",
        whisters=whisters,
        play_mode=mode,
        controllers=tuple(controllers),
        open_seats=open_mask,
        open_pending=pending,
        leader=leader,
        turn=leader,
        to_move=controllers[leader],
    )
    if open_mask:
        events.append(opened_event(state.hands, open_mask))
    return state, tuple(events)


def start_pass_out(state: DealState, events: list[Event]) -> Transition:
    """R-R1..R-R3: no trumps; the talon cards lead the first two tricks."""
    return _turn_talon_card(state, events, 0)


def _talon_seat(state: DealState) -> int:
    return state.dealer if dealer_on_talon(state.players) else NO_SEAT


def _turn_talon_card(state: DealState, events: list[Event], index: int) -> Transition:
    card = state.talon[index]
    fh = state.forehand
    events.append(Event("talon_card_turned", {"card": card_text(card), "trick": index + 1}))
    state = evolve(
        state,
        trick=((_talon_seat(state), card),),
        talon_shown=index + 1,
        leader=_talon_seat(state),
        turn=fh,
        to_move=fh,
    )
    return state, tuple(events)


def apply_play(state: DealState, action: PlayCard) -> Transition:
    """Play ``action.card`` from the hand due (``state.turn``), by the seat acting for it."""
    if state.phase != "play" or state.to_move != action.seat:
        require_turn(state, action.seat, "play")
    hand_seat = state.turn
    assert hand_seat is not None
    card = action.card
    if type(card) is not int or not 0 <= card < 32:
        raise IllegalCardError(f"{card!r} is not a card")
    hands = state.hands
    hand = hands[hand_seat]
    trick = state.trick
    led = trick[0][1] >> 3 if trick else None
    trump = state.trump
    if not legal_cards(hand, led, trump) >> card & 1:  # the test legal_cards_now lists by
        try:
            check_card(hand, card, led, trump)  # only for the player-readable reason
        except IllegalCardError as error:
            if hand_seat != action.seat:
                raise IllegalCardError(f"seat {hand_seat}: {error}") from None
            raise
    hands = (*hands[:hand_seat], hand & ~(1 << card), *hands[hand_seat + 1 :])
    trick = (*trick, (hand_seat, card))
    played = _event(
        Event, ("card_played", {"seat": hand_seat, "card": CARD_TEXTS[card], "by": action.seat})
    )
    if state.proposal is not None or (state.open_pending and hand_seat == state.declarer):
        state, events = _side_effects(state, hands, hand_seat, played)
    else:
        events = [played]
    # A trick has three players' cards; a pass-out's talon lead is one card more (R-R2, R-R3).
    size = 4 if state.kind == "pass_out" and state.tricks_done < 2 else 3
    if len(trick) < size:
        config = state.config
        nxt = NEXT_PLAYING[config.players][config.dealer][hand_seat]
        new = evolve(state, hands=hands, trick=trick, turn=nxt, to_move=state.controllers[nxt])
        return new, (played,) if len(events) == 1 else tuple(events)
    return _close_trick(state, hands, trick, events)


def _side_effects(
    state: DealState, hands: tuple[CardMask, ...], hand_seat: int, played: Event
) -> tuple[DealState, list[Event]]:
    """The rarer effects of a card, applied before the card itself: it withdraws a proposed
    result (R-W11); the declarer's first card lays the defenders' hands open (R-W3, R-W10)."""
    events: list[Event] = []
    extra: dict[str, Any] = {}
    if state.proposal is not None:
        events.append(Event("result_withdrawn", {}))
        extra.update(proposal=None, accepted=0)
    events.append(played)
    if state.open_pending and hand_seat == state.declarer:
        opened = state.open_pending
        extra.update(open_seats=state.open_seats | opened, open_pending=0)
        events.append(opened_event(hands, opened))
    return evolve(state, **extra), events


def _trick_winner(state: DealState, trick: tuple[tuple[int, Card], ...]) -> int:
    led = trick[0][1] >> 3
    candidates = trick
    if state.kind == "pass_out" and state.players == 3 and state.tricks_done < 2:
        # R-R2: the talon card only sets the suit; the highest of the players' cards wins.
        candidates = trick[1:]
        if not any(c >> 3 == led for _, c in candidates):
            led = candidates[0][1] >> 3  # nobody followed: forehand's card sets the suit
    return trick_winner(candidates, led, state.trump)


def _close_trick(
    state: DealState,
    hands: tuple[CardMask, ...],
    trick: tuple[tuple[int, Card], ...],
    events: list[Event],
) -> Transition:
    """Close the complete ``trick`` (``hands`` already without its cards), in one copy."""
    winner = _trick_winner(state, trick)
    done = state.tricks_done + 1
    cards = [{"seat": s, "card": CARD_TEXTS[c]} for s, c in trick]
    events.append(_event(Event, ("trick_taken", {"seat": winner, "trick": done, "cards": cards})))
    tricks = state.tricks
    tricks = (*tricks[:winner], tricks[winner] + 1, *tricks[winner + 1 :])
    history = (*state.history, trick)
    passed_out = state.kind == "pass_out"
    if done == 10 or (passed_out and done < 2):
        state = evolve(
            state,
            hands=hands,
            trick=(),
            tricks_done=done,
            last_trick=trick,
            last_winner=winner,
            history=history,
            tricks=tricks,
        )
        if done == 10:
            return finish(state, events, "played")
        return _turn_talon_card(state, events, done)
    leader = winner
    if passed_out and done == 2:
        leader = state.forehand  # R-R2, R-R3: forehand leads the third trick
    new = evolve(
        state,
        hands=hands,
        trick=(),
        tricks_done=done,
        last_trick=trick,
        last_winner=winner,
        history=history,
        tricks=tricks,
        leader=leader,
        turn=leader,
        to_move=state.controllers[leader],
    )
    return new, tuple(events)
