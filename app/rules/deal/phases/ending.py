"""The end of a deal: finishing it, its :class:`~app.rules.core.outcome.DealOutcome`, the reveal.

Every other phase ends a deal through :func:`finish`; the ``deal_ended`` event carries the
outcome (as its ``pulka/1`` deal object) and the R-D4 reveal.
"""

from __future__ import annotations

from typing import Any

from app.rules.core.actions import Event
from app.rules.core.cards import CARD_TEXTS, card_text, mask_text
from app.rules.core.outcome import Contract, DealOutcome
from app.rules.core.outcome_json import deal_to_json
from app.rules.core.rule_errors import RulesError
from app.rules.core.seats import pass_out_seats
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.state import DealState, EndReason, Transition, evolve


def result_seats(state: DealState) -> tuple[int, ...]:
    """The seats whose tricks make the result: the active seats, and on a pass-out at four or
    five players the dealer too (he takes the talon tricks, R-R3)."""
    if state.kind == "pass_out":
        return pass_out_seats(state.players, state.dealer)
    return state.active


def finish(state: DealState, events: list[Event], reason: EndReason) -> Transition:
    """End the deal for ``reason``; append the ``deal_ended`` event."""
    state = evolve(state, phase="done", end=reason, to_move=None, turn=None, stage="")
    events.append(ended_event(state))
    return state, tuple(events)


def ended_event(state: DealState) -> Event:
    """The public ``deal_ended`` event of a finished deal: reason, outcome and reveal."""
    result = outcome(state)
    assert result is not None
    return Event(
        "deal_ended",
        {"reason": state.end, "outcome": deal_to_json(result), "reveal": deal_reveal(state)},
    )


def deal_reveal(state: DealState) -> dict[str, Any]:
    """The R-D4 reveal (deck order, salt, cut, hands, talon) once the deal is over.

    :func:`app.rules.core.deck.verify_deal` re-checks it from the published texts alone.
    """
    if not state.finished or state.cut is None:
        raise RulesError("the deck is revealed only after the deal")
    return {
        "commitment": state.commitment,
        "deck": list(map(CARD_TEXTS.__getitem__, state.deck)),
        "salt": state.salt.hex(),
        "cut": state.cut,
        "players": state.players,
        "dealer": state.dealer,
        "hands": [mask_text(h) for h in state.dealt],
        "talon": [card_text(c) for c in state.talon],
        "cut_min": state.config.conventions.cut_min,
    }


def outcome(state: DealState) -> DealOutcome | None:
    """What the score sheet needs of the deal, once it is over; ``None`` before. The rule set
    adds what is its own (its marks) through the ``finish_outcome`` deal hook."""
    if state.phase != "done":
        return None
    return deal_rules_of(state.config).finish_outcome(state, _shared_outcome(state))


def _shared_outcome(state: DealState) -> DealOutcome:
    """The outcome as the shared rules see the finished deal."""
    talon = (card_text(state.talon[0]), card_text(state.talon[1]))
    dealer = state.dealer
    if state.kind == "redeal":
        return DealOutcome(dealer=dealer, kind="redeal", talon=talon)  # K-6
    if state.kind == "pass_out":
        return DealOutcome(
            dealer=dealer,
            kind="pass_out",
            tricks={s: state.tricks[s] for s in result_seats(state)},
            talon=talon,
        )
    declarer = state.declarer
    returned = state.talon_returned  # R-C6: the sheet charges the dealer
    partner_of = state.partners.partner_of  # halves only on the inviter's own game
    halves = state.partner if partner_of is not None and partner_of == declarer else None
    misere_partner = state.partner if partner_of is None else halves  # R-B9, A-19
    calls = dict(state.calls)
    tricks = {s: state.tricks[s] for s in state.active}
    if state.kind == "conceded":
        assert isinstance(state.contract, Contract)
        return DealOutcome(
            dealer=dealer,
            kind="conceded",
            declarer=declarer,
            contract=state.contract,
            defence=calls,
            talon=talon,
            talon_returned=returned,
            misere_partner=halves,
        )
    if state.kind == "misere":
        return DealOutcome(
            dealer=dealer,
            kind="misere",
            declarer=declarer,
            play="open",
            tricks=tricks,
            talon=talon,
            talon_returned=returned,
            misere_partner=misere_partner,  # R-B9
        )
    assert isinstance(state.contract, Contract) and declarer is not None
    played = state.end not in ("without_play", "half_whist")
    return DealOutcome(
        dealer=dealer,
        kind="game",
        declarer=declarer,
        contract=state.contract,
        defence=calls,
        returned_from=state.returned_from,
        play=state.play_mode if played else None,
        tricks=tricks if played else None,
        talon=talon,
        talon_returned=returned,
        misere_partner=halves,
    )
