"""Claims and agreed results during play (R-W11).

The declarer may claim tricks; the claim solver (:mod:`app.rules.claims`) decides it against
every defence. A failed claim opens the claimer's cards and the defenders dictate his play.
Any player may propose a result (every seat's tricks); it stands once all players accept it and
is withdrawn by the next card played.
"""

from __future__ import annotations

from app.rules.actions import AcceptResult, Action, Claim, DeclineResult, Event, ProposeResult
from app.rules.claims import claim_holds
from app.rules.phases.outcome import finish, result_seats
from app.rules.phases.play import opened_event
from app.rules.state import (
    DealState,
    IllegalClaimError,
    Transition,
    defenders_of,
    evolve,
    set_at,
)


def claim_refusal(state: DealState, seat: int) -> IllegalClaimError | None:
    """Why ``seat`` may not claim now, or ``None`` if he may (R-W11)."""
    if state.phase != "play" or state.kind not in ("game", "misere"):
        return IllegalClaimError("claims are made during the play of a game or misère (R-W11)")
    if seat != state.declarer:
        return IllegalClaimError("only the declarer can claim (R-W11)")
    if state.claim_failed >> seat & 1:
        return IllegalClaimError("your claim already failed; play the deal out")
    return None


def claim_options(state: DealState, seat: int) -> list[Action]:
    """The usual claim of ``seat``: all the remaining tricks (on misère: none), if he may."""
    if claim_refusal(state, seat) is not None:
        return []
    assert state.turn is not None
    remaining = state.hands[state.turn].bit_count()
    return [Claim(seat, 0 if state.kind == "misere" else remaining)]


def answer_options(state: DealState, seat: int) -> list[Action]:
    """Accept and decline of a proposed result, for a player who has not accepted it yet."""
    if state.proposal is not None and seat in state.active and not state.accepted >> seat & 1:
        return [AcceptResult(seat), DeclineResult(seat)]
    return []


def _claim_dictator(state: DealState) -> int:
    """Who dictates a failed claimer's cards: the (first) whister, else the declarer's left."""
    if state.whisters:
        return state.whisters[0]
    return defenders_of(state)[0]


def apply_claim(state: DealState, action: Claim) -> Transition:
    """Settle a claim at once: by the solver's verdict, not by the defenders' word (R-W11)."""
    seat = action.seat
    refusal = claim_refusal(state, seat)
    if refusal is not None:
        raise refusal
    tricks = action.tricks
    turn = state.turn
    assert turn is not None
    remaining = state.hands[turn].bit_count()
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= remaining:
        raise IllegalClaimError(f"claim between 0 and {remaining} of the remaining tricks")
    misere = state.kind == "misere"
    if misere and tricks != 0:
        raise IllegalClaimError("on misère you can only claim that you take no more tricks")
    if not misere and tricks == 0:
        raise IllegalClaimError("claim at least one trick")
    if not misere and tricks < remaining and len(state.whisters) == 2:
        raise IllegalClaimError(
            "with two whisters only a claim of all the remaining tricks can be settled"
        )
    active = state.active
    pos = {s: i for i, s in enumerate(active)}
    hands3 = (state.hands[active[0]], state.hands[active[1]], state.hands[active[2]])
    trick = tuple((pos[s], c) for s, c in state.trick)
    leader = pos[state.trick[0][0]] if state.trick else pos[turn]
    holds = claim_holds(hands3, leader, trick, state.trump, pos[seat], misere, tricks)
    everyone = (1 << active[0]) | (1 << active[1]) | (1 << active[2])
    if not holds:
        # R-W11 / 000: the claimer's cards are open and the defenders dictate his play.
        dictator = _claim_dictator(state)
        controllers = set_at(state.controllers, seat, dictator)
        opened = (1 << seat) & ~state.open_seats
        state = evolve(
            state,
            claim_failed=state.claim_failed | (1 << seat),
            controllers=controllers,
            open_seats=state.open_seats | (1 << seat),
            to_move=controllers[turn],
        )
        events = [Event("claim_rejected", {"seat": seat, "tricks": tricks, "dictator": dictator})]
        if opened:
            events.append(opened_event(state.hands, opened))
        return state, tuple(events)
    counts = list(state.tricks)
    rest = remaining - tricks
    if misere:
        counts[defenders_of(state)[0]] += rest
    else:
        counts[seat] += tricks
        receiver = state.whisters[0] if state.whisters else defenders_of(state)[0]
        if receiver not in state.active:
            receiver = defenders_of(state)[0]  # the four-player dealer whists with their cards
        counts[receiver] += rest
    state = evolve(state, tricks=tuple(counts), open_seats=state.open_seats | everyone)
    events = [Event("claim_accepted", {"seat": seat, "tricks": tricks})]
    return finish(state, events, "claim")


def apply_propose(state: DealState, action: ProposeResult) -> Transition:
    """Propose every seat's final tricks; the proposer accepts his own proposal (R-W11)."""
    if state.phase != "play":
        raise IllegalClaimError("a result can be proposed during play (R-W11)")
    seat = action.seat
    if seat not in state.active:
        raise IllegalClaimError("only the players of this deal can propose a result")
    seats = result_seats(state)
    try:
        proposed = {int(s): int(n) for s, n in action.tricks}
    except (TypeError, ValueError):
        raise IllegalClaimError("a result gives each seat's trick count") from None
    if sorted(proposed) != sorted(seats):
        raise IllegalClaimError(f"a result gives the tricks of seats {', '.join(map(str, seats))}")
    if sum(proposed.values()) != 10:
        raise IllegalClaimError("the proposed tricks must add up to 10")
    for s in seats:
        if proposed[s] < state.tricks[s]:
            raise IllegalClaimError(f"seat {s} already has {state.tricks[s]} tricks")
    if state.players == 4 and state.kind == "pass_out":
        dealer = state.dealer
        most = state.tricks[dealer] + max(0, 2 - state.tricks_done)
        if proposed[dealer] > most:
            raise IllegalClaimError(
                f"the dealer can win only the talon tricks: at most {most} (R-R3)"
            )
    tricks = tuple(sorted(proposed.items()))
    state = evolve(state, proposal=(seat, tricks), accepted=1 << seat)
    event = Event("result_proposed", {"seat": seat, "tricks": {str(s): n for s, n in tricks}})
    return state, (event,)


def apply_accept(state: DealState, action: AcceptResult) -> Transition:
    """Accept the proposed result; the last acceptance ends the deal with it."""
    if state.proposal is None:
        raise IllegalClaimError("there is no proposed result to accept")
    seat = action.seat
    if seat not in state.active:
        raise IllegalClaimError("only the players of this deal can accept a result")
    accepted = state.accepted | (1 << seat)
    events = [Event("result_accepted", {"seat": seat})]
    if all(accepted >> s & 1 for s in state.active):
        counts = [0] * state.players
        for s, n in state.proposal[1]:
            counts[s] = n
        state = evolve(state, tricks=tuple(counts), proposal=None, accepted=0)
        return finish(state, events, "agreement")
    return evolve(state, accepted=accepted), tuple(events)


def apply_decline(state: DealState, action: DeclineResult) -> Transition:
    """Decline the proposed result: it is dropped and play goes on."""
    if state.proposal is None:
        raise IllegalClaimError("there is no proposed result to decline")
    if action.seat not in state.active:
        raise IllegalClaimError("only the players of this deal can decline a result")
    state = evolve(state, proposal=None, accepted=0)
    return state, (Event("result_declined", {"seat": action.seat}),)
