"""Claims and agreed results during play (R-W11).

The declarer or a defender may claim (or concede) tricks for his side; the claim solver
(:mod:`app.rules.search.claims`) decides it against every defence. A failed claim opens the
claimer's
cards and his opponents dictate his play.
Any player may propose a result (every seat's tricks); it stands once all players accept it and
is withdrawn by the next card played.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from app.rules.core.actions import AcceptResult, Action, Claim, DeclineResult, Event, ProposeResult
from app.rules.core.seats import dealer_on_talon
from app.rules.deal.phases.ending import finish, result_seats
from app.rules.deal.phases.tricks import opened_event
from app.rules.deal.state import (
    DealState,
    IllegalClaimError,
    Transition,
    defenders_of,
    evolve,
    set_at,
)
from app.rules.search.claims import claim_holds


def claim_refusal(state: DealState, seat: int) -> IllegalClaimError | None:
    """Why ``seat`` may not claim now, or ``None`` if he may (R-W11: "a player").

    The declarer claims for himself; a defender who plays cards claims (or concedes) for the
    defending side (not a passer whose cards the whister plays in open play, R-W3).
    """
    if state.phase != "play" or state.kind not in ("game", "misere"):
        return IllegalClaimError("claims are made during the play of a game or misère (R-W11)")
    if state.claim_failed >> seat & 1:
        return IllegalClaimError("your claim already failed; play the deal out")
    if seat != state.declarer and (
        seat not in defenders_of(state) or seat not in state.controllers
    ):
        return IllegalClaimError("only a player playing cards in this deal can claim (R-W11)")
    return None


def claim_options(state: DealState, seat: int) -> list[Action]:
    """The usual claim of ``seat``, if he may claim: all the remaining tricks for his side in
    a game; on misère the declarer's "no more tricks" and the catchers' "all the rest are his"
    (both are ``Claim(seat, 0)``: the claimer's side takes none)."""
    if claim_refusal(state, seat) is not None:
        return []
    assert state.turn is not None
    remaining = state.hands[state.turn].bit_count()
    return [Claim(seat, 0 if state.kind == "misere" else remaining)]


def agreeing_seats(state: DealState) -> range:
    """Whose agreement an agreed result needs: every seat at the table (R-W11).

    At four players that includes the dealer, who holds no cards but takes the talon tricks
    of a pass-out (R-R3, R-R4: his tricks decide the amnesty and his zero-trick bonus) and may
    whist on 8 and higher (R-W5): three players cannot write his result without him. At five
    it also includes the dealer's idle partner, who writes consolation on a declarer who goes
    down (R-P1), so the result moves his score too.
    """
    return range(state.config.players)


def answer_options(state: DealState, seat: int) -> list[Action]:
    """Accept and decline of a proposed result, for a player who has not accepted it yet."""
    if (
        state.proposal is not None
        and seat in agreeing_seats(state)
        and not state.accepted >> seat & 1
    ):
        return [AcceptResult(seat), DeclineResult(seat)]
    return []


def _claim_dictator(state: DealState) -> int:
    """Who dictates a failed claimer's cards: the (first) whister, else the declarer's left."""
    if state.whisters:
        return state.whisters[0]
    return defenders_of(state)[0]


def claim_verdict(state: DealState, seat: int, tricks: int, remaining: int) -> bool:
    """Does the claimer's side guarantee its claim against every defence (the solver)?

    In a game a side claims at least ``tricks`` of the ``remaining`` ones; on misère at most
    ``tricks``. A defenders' claim is the declarer's complement: in a game the declarer takes
    at most ``remaining - tricks`` (he cannot force one more), on misère at least that many
    (he cannot keep to one fewer).

    The one seam of the solver in a claim: :func:`apply_claim` calls the verdict in use once
    and its result is the verdict, so a caller that solved the claim elsewhere (a worker
    process) may stand in for this function through :func:`use_claim_verdict`.
    """
    turn = state.turn
    assert turn is not None and state.declarer is not None
    active = state.active
    pos = {s: i for i, s in enumerate(active)}
    hands3 = (state.hands[active[0]], state.hands[active[1]], state.hands[active[2]])
    trick = tuple((pos[s], c) for s, c in state.trick)
    leader = pos[state.trick[0][0]] if state.trick else pos[turn]
    misere = state.kind == "misere"
    declarer = pos[state.declarer]
    if seat == state.declarer:
        return claim_holds(hands3, leader, trick, state.trump, declarer, misere, tricks)
    rest = remaining - tricks  # the declarer's share under the defenders' claim
    if misere:
        return rest == 0 or not claim_holds(
            hands3, leader, trick, state.trump, declarer, True, rest - 1
        )
    return tricks == 0 or not claim_holds(
        hands3, leader, trick, state.trump, declarer, False, rest + 1
    )


ClaimVerdict: TypeAlias = Callable[[DealState, int, int, int], bool]
"""A claim's verdict: (state, claiming seat, tricks claimed, tricks remaining) -> it holds."""

_verdict_in_use: ClaimVerdict = claim_verdict


def use_claim_verdict(verdict: ClaimVerdict | None) -> ClaimVerdict:
    """Have the claims phase take its verdicts from ``verdict`` (``None``: the solver's own,
    :func:`claim_verdict`); returns the one used until now. The server's one seam: its claims
    are solved in a worker pool and the verdict handed in (app/realtime/engine.py)."""
    global _verdict_in_use
    previous = _verdict_in_use
    _verdict_in_use = verdict if verdict is not None else claim_verdict
    return previous


def _defence_share(state: DealState, counts: list[int], tricks: int, claimer: int) -> None:
    """Write ``tricks`` settled for the defence into ``counts``.

    One whister (or none) takes them all, as in closed play (the four-player dealer whists
    with the cards of the declarer's left, R-W5). Two whisters (R-W2) split them evenly, the
    odd one to the claiming whister, else to the first whister: each then answers for what he
    was given (rules-notes "Rule edges (issue 12)").
    """
    whisters = [w for w in state.whisters if w in state.active]
    if len(whisters) == 2:
        first = claimer if claimer in whisters else whisters[0]
        second = whisters[1] if first == whisters[0] else whisters[0]
        counts[first] += tricks - tricks // 2
        counts[second] += tricks // 2
        return
    receiver = whisters[0] if whisters else defenders_of(state)[0]
    counts[receiver] += tricks


def apply_claim(state: DealState, action: Claim) -> Transition:
    """Settle a claim at once: by the solver's verdict, not by the opponents' word (R-W11)."""
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
    declarer = state.declarer
    assert declarer is not None
    if seat == declarer:
        if misere and tricks != 0:
            raise IllegalClaimError("on misère you can only claim that you take no more tricks")
        if not misere and tricks == 0:
            raise IllegalClaimError("claim at least one trick")
    everyone = (1 << state.active[0]) | (1 << state.active[1]) | (1 << state.active[2])
    if not _verdict_in_use(state, seat, tricks, remaining):
        # R-W11 / 000: the claimer's cards are open and the opponents dictate his play.
        dictator = _claim_dictator(state) if seat == declarer else declarer
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
    if seat == declarer:
        counts[declarer] += tricks
        if misere:
            counts[defenders_of(state)[0]] += rest
        else:
            _defence_share(state, counts, rest, seat)
    else:
        counts[declarer] += rest
        if misere:
            counts[defenders_of(state)[0]] += tricks
        else:
            _defence_share(state, counts, tricks, seat)
    state = evolve(state, tricks=tuple(counts), open_seats=state.open_seats | everyone)
    events = [Event("claim_accepted", {"seat": seat, "tricks": tricks})]
    return finish(state, events, "claim")


def apply_propose(state: DealState, action: ProposeResult) -> Transition:
    """Propose every seat's final tricks; the proposer accepts his own proposal (R-W11)."""
    if state.phase != "play":
        raise IllegalClaimError("a result can be proposed during play (R-W11)")
    seat = action.seat
    if seat not in agreeing_seats(state):
        raise IllegalClaimError("only the players of this table can propose a result")
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
    if dealer_on_talon(state.players) and state.kind == "pass_out":
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
    if seat not in agreeing_seats(state):
        raise IllegalClaimError("only the players of this table can accept a result")
    accepted = state.accepted | (1 << seat)
    events = [Event("result_accepted", {"seat": seat})]
    if all(accepted >> s & 1 for s in agreeing_seats(state)):
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
    if action.seat not in agreeing_seats(state):
        raise IllegalClaimError("only the players of this table can decline a result")
    state = evolve(state, proposal=None, accepted=0)
    return state, (Event("result_declined", {"seat": action.seat}),)
