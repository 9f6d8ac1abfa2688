"""Talon and contract: taking or returning the talon, the discard, naming the contract, and
conceding (R-C1..R-C6, R-W9, R-W10).

After the auction the declarer takes the talon (or, with ``talon_return_penalty``, may return
it unseen, R-C6), discards two cards (R-C3) and names a contract not below his bid (R-C2). A
misère is named by itself and caught open (R-W10); a checked ten is laid open and played out
(R-W9); any other game goes to the defence. Before play the declarer may concede (R-C4).
"""

from __future__ import annotations

from app.rules.core.actions import (
    Action,
    Concede,
    Discard,
    Event,
    NameContract,
    ReturnTalon,
    TakeTalon,
)
from app.rules.core.auction import (
    ALL_CONTRACTS,
    ContractCall,
    call_rank,
    call_text,
    contract_pretty,
    first_with_talon,
)
from app.rules.core.cards import card_pretty, mask_cards
from app.rules.core.outcome import Contract
from app.rules.core.rule_errors import IllegalActionError
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.phases.ending import ended_event
from app.rules.deal.phases.tricks import start_play
from app.rules.deal.state import (
    DealState,
    IllegalContractError,
    OutOfTurnError,
    Transition,
    defenders_of,
    evolve,
    require_turn,
    set_at,
)

_TRUMPS = {"S": 0, "C": 1, "D": 2, "H": 3, "NT": None}


def trump_of(contract: ContractCall) -> int | None:
    """The trump suit of a contract (``None``: no trumps, misère)."""
    if contract == "misere":
        return None
    assert isinstance(contract, Contract)
    return _TRUMPS[contract.strain]


def nameable(bid: Contract) -> tuple[Contract, ...]:
    """The contracts a declarer who won with ``bid`` may name: ``bid`` or higher (R-C2)."""
    return ALL_CONTRACTS[first_with_talon(call_rank(bid)) :]


def talon_options(state: DealState, seat: int) -> list[Action]:
    """Take the talon or return it (R-C6): the ``talon`` phase of older states; a rule set may
    offer other choices there (its ``talon_options`` hook, A-11)."""
    custom = deal_rules_of(state.config).talon_options(state, seat)
    if custom is not None:
        return custom
    return [TakeTalon(seat), ReturnTalon(seat)]


def return_allowed(state: DealState) -> bool:
    """May the declarer still return the shown talon (R-C6, ``talon_return_penalty``)?"""
    return (
        state.config.conventions.talon_return_penalty
        and not state.talon_returned
        and deal_rules_of(state.config).may_return_talon(state)
    )


def _discarding_hand(state: DealState, seat: int) -> int:
    """The hand a discard comes from (the rule set's ``discarding_hand``: A-16, a defender
    discards for the declarer)."""
    return deal_rules_of(state.config).discarding_hand(state, seat)


def discard_options(state: DealState, seat: int) -> list[Action]:
    """Every pair of cards ``seat`` may discard (R-C3), and the return of the talon (R-C6),
    from the hand the rule set says (A-16: a defender's discard for the declarer)."""
    cards = mask_cards(state.hands[_discarding_hand(state, seat)])
    out: list[Action] = [Discard(seat, (a, b)) for i, a in enumerate(cards) for b in cards[i + 1 :]]
    if return_allowed(state):
        out.append(ReturnTalon(seat))
    return out


def contract_options(state: DealState, seat: int) -> list[Action]:
    """Every contract the declarer may name (R-C2; K-5: the buyer of a classic talon, a suit)."""
    custom = deal_rules_of(state.config).contract_options(state, seat)
    if custom is not None:
        return custom
    bid = state.bid
    assert isinstance(bid, Contract)
    return [NameContract(seat, c) for c in nameable(bid)]


def concede_refusal(state: DealState, seat: int) -> IllegalActionError | None:
    """Why ``seat`` may not concede now, or ``None`` if he may (R-C4)."""
    if state.phase not in ("discard", "contract", "defence", "play_mode"):
        return OutOfTurnError("you can concede only after taking the talon and before play (R-C4)")
    if seat != state.declarer:
        return OutOfTurnError("only the declarer can concede (R-C4)")
    refusal = deal_rules_of(state.config).concede_refusal(state)
    if refusal is not None:
        return refusal
    if state.bid == "misere" or state.talon_returned:
        return IllegalContractError(
            "only a declarer who took the talon for a trick game can concede (R-C4)"
        )
    return None


def take_talon(state: DealState, events: list[Event]) -> Transition:
    """The declarer takes the two talon cards into his hand; he discards next (R-C1)."""
    declarer = state.declarer
    assert declarer is not None
    hand = state.hands[declarer] | (1 << state.talon[0]) | (1 << state.talon[1])
    events.append(Event("talon_taken", {"seat": declarer}))
    state = evolve(state, hands=set_at(state.hands, declarer, hand), phase="discard")
    return state, tuple(events)


def apply_take_talon(state: DealState, action: TakeTalon) -> Transition:
    """Take the talon when returning it was possible (R-C6); a rule set may offer it elsewhere
    (its ``take_talon`` hook: K-5, A-11)."""
    custom = deal_rules_of(state.config).take_talon(state, action)
    if custom is not None:
        return custom
    require_turn(state, action.seat, "talon")
    return take_talon(state, [])


def apply_return_talon(state: DealState, action: ReturnTalon) -> Transition:
    """Return the shown talon before discarding (R-C6); the sheet charges the dealer for it.

    The declarer plays the ten cards he was dealt: the talon cards leave his hand again.
    """
    require_turn(state, action.seat, "talon", "discard")
    if not return_allowed(state):
        raise IllegalContractError("returning the talon is not a convention of this table (R-C6)")
    events = [Event("talon_returned", {"seat": action.seat})]
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    hands = set_at(state.hands, action.seat, state.hands[action.seat] & ~talon)
    state = evolve(state, talon_returned=True, hands=hands)
    if state.bid == "misere":
        return name_contract(state, "misere", events)
    return evolve(state, phase="contract"), tuple(events)


def apply_discard(state: DealState, action: Discard) -> Transition:
    """Discard two cards of the declarer's hand, face down (R-C3)."""
    require_turn(state, action.seat, "discard")
    cards = action.cards
    if len(cards) != 2 or cards[0] == cards[1]:
        raise IllegalContractError("discard exactly two different cards")
    owner = _discarding_hand(state, action.seat)
    hand = state.hands[owner]
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < 32 or not hand >> card & 1:
            text = card_pretty(card) if isinstance(card, int) and 0 <= card < 32 else repr(card)
            raise IllegalContractError(f"you cannot discard {text}: it is not in your hand")
    mask = (1 << cards[0]) | (1 << cards[1])
    state = evolve(state, hands=set_at(state.hands, owner, hand & ~mask), discard=mask)
    events = [Event("discarded", {"seat": action.seat})]
    custom = deal_rules_of(state.config).after_discard(state, events)
    if custom is not None:
        return custom
    if state.bid == "misere":
        return name_contract(state, "misere", events)
    return evolve(state, phase="contract"), tuple(events)


def apply_name(state: DealState, action: NameContract) -> Transition:
    """Name the contract: the bid or higher, misère only by itself (R-C2); a rule set may let
    it be named before the talon is taken (its ``name_at_talon`` hook, A-11)."""
    rules = deal_rules_of(state.config)
    if state.phase == "talon":
        early = rules.name_at_talon(state, action)
        if early is not None:
            return early
    require_turn(state, action.seat, "contract")
    contract = action.contract
    custom = rules.name_contract(state, action)
    if custom is not None:
        return custom
    bid = state.bid
    assert bid is not None
    if contract == "misere" or bid == "misere":
        raise IllegalContractError(
            "misère may be named only by a player whose bid was misère (R-C2)"
        )
    assert isinstance(bid, Contract)
    if contract not in nameable(bid):  # the list contract_options offers
        if isinstance(contract, Contract) and contract in ALL_CONTRACTS:
            raise IllegalContractError(
                f"{contract_pretty(contract)} is below your bid {contract_pretty(bid)} (R-C2)"
            )
        raise IllegalContractError(f"{contract!r} is not a contract")
    assert isinstance(contract, Contract)
    return name_contract(state, contract, [])


def name_contract(state: DealState, contract: ContractCall, events: list[Event]) -> Transition:
    """Fix the contract and move on: misère and a checked ten to play, a game to defence."""
    declarer = state.declarer
    assert declarer is not None
    events.append(Event("contract_named", {"seat": declarer, "contract": call_text(contract)}))
    state = evolve(state, contract=contract, trump=trump_of(contract))
    d1, d2 = defenders_of(state)
    if contract == "misere":
        # R-W10: no whist calls; both defenders catch it open, each playing his own hand.
        return start_play(state, events, whisters=(), mode="open", open_mask=(1 << d1) | (1 << d2))
    assert isinstance(contract, Contract)
    if contract.level == 10 and state.config.conventions.ten_checked:
        # R-W9: a ten is not whisted; all hands are laid open and it is played out.
        state = evolve(state, calls=((d1, "pass"), (d2, "pass")))
        everyone = (1 << declarer) | (1 << d1) | (1 << d2)
        return start_play(state, events, whisters=(), mode="open", open_mask=everyone, now=True)
    return evolve(state, phase="defence", stage="first", to_move=d1), tuple(events)


def apply_concede(state: DealState, action: Concede) -> Transition:
    """The declarer gives up the game before play: three tricks down (R-C4)."""
    refusal = concede_refusal(state, action.seat)
    if refusal is not None:
        raise refusal
    contract = state.contract if isinstance(state.contract, Contract) else state.bid
    assert isinstance(contract, Contract)
    state = evolve(
        state, contract=contract, kind="conceded", end="conceded", phase="done", to_move=None
    )
    events = (
        Event("conceded", {"seat": action.seat, "contract": str(contract)}),
        ended_event(state),
    )
    return state, events
