"""Seed 004 inside one deal, behind the Arabic rule set's deal hooks: its bidding box, what
follows a won auction (a game without the talon played as bid, A-12, A-13; a dark win, A-11;
«преферанс», A-16), the dark declarer's choice before the talon (A-11) and the dark game's
forced whist.

The auction's own state is :class:`~app.rules.variants.arabic.arabic_auction.ArabicAuction`
(``Auction.extra``); the shared phases never read it.
"""

from __future__ import annotations

from app.rules.core.actions import Action, Bid, Event, NameContract, TakeTalon
from app.rules.core.auction import ALL_CONTRACTS, LADDER, DarkBid, call_text, first_with_talon
from app.rules.core.cards import card_text
from app.rules.core.outcome import Contract
from app.rules.core.seats import TABLE_SIZES
from app.rules.deal.phases.contract import name_contract, take_talon
from app.rules.deal.phases.tricks import opened_event
from app.rules.deal.state import DealState, Transition, defenders_of, evolve, require_turn
from app.rules.variants.arabic import arabic_auction as aa

_SEATS = range(max(TABLE_SIZES))
_FIRST: tuple[tuple[Bid, Bid, Bid, Bid], ...] = tuple(
    (Bid(s, "pass"), Bid(s, "here"), Bid(s, "misere"), Bid(s, "misere_bp")) for s in _SEATS
)
"""Each seat's pass, here, misère and misère without the talon (A-13), built once."""
_WITH_TALON: tuple[tuple[Bid, ...], ...] = tuple(
    tuple(Bid(s, c) for c in ALL_CONTRACTS) for s in _SEATS
)
_LADDER_BIDS: tuple[tuple[Bid, ...], ...] = tuple(tuple(Bid(s, c) for c in LADDER) for s in _SEATS)
"""Every contract bid of each seat with the games without the talon (A-12), in ladder order."""
_PREFERANS = tuple(Bid(s, "preferans") for s in _SEATS)
_DARK_BIDS: tuple[tuple[Bid, ...], ...] = tuple(
    (Bid(s, "dark_pass"), *(Bid(s, DarkBid(c)) for c in ALL_CONTRACTS)) for s in _SEATS
)
"""A-10, A-11: each seat's dark pass, then its dark bids in ladder order."""


def bid_options(state: DealState, seat: int) -> list[Action]:
    """Every call ``seat`` (the seat to call) may make, in the order of ``arabic_calls``."""
    auction = state.auction
    assert auction is not None
    position = auction.turn
    first = _FIRST[seat]
    out: list[Action] = [first[0]]
    if aa.may_hold(auction, position):
        out.append(first[1])
    if auction.may_misere(position):
        out.append(first[2])
    if aa.may_misere_bp(auction, position):
        out.append(first[3])
    start = aa.lowest_rank(auction)
    if aa.no_talon_games(auction):
        out.extend(_LADDER_BIDS[seat][start // 2 :])
    else:
        out.extend(_WITH_TALON[seat][first_with_talon(start) :])
    if aa.may_preferans(auction, position):
        out.append(_PREFERANS[seat])
    if aa.may_dark(auction, position):
        dark = _DARK_BIDS[seat]
        out.append(dark[0])
        out.extend(dark[1 + first_with_talon(aa.lowest_dark_rank(auction)) :])
    return out


def face_down(state: DealState, seat: int) -> bool:
    """A-10, A-11: is ``seat``'s own hand still face down in the auction?"""
    auction = state.auction
    active = state.active
    return auction is not None and seat in active and aa.face_down(auction, active.index(seat))


def picked_up(state: DealState, seat: int) -> DealState:
    """A-10, A-11: the seat has looked at its cards and gave up its dark call."""
    assert state.auction is not None
    return evolve(state, auction=aa.picked_up(state.auction, state.active.index(seat)))


def auction_won(state: DealState, events: list[Event]) -> Transition | None:
    """A won auction's seed-004 sequels, or ``None`` for the shared one (talon shown, taken)."""
    auction = state.auction
    assert auction is not None and auction.winner is not None
    declarer = auction.order[auction.winner]
    bid = auction.winning_call()
    assert bid is not None
    dark = aa.won_in_dark(auction)
    no_talon = bid == "misere_bp" or (isinstance(bid, Contract) and bid.no_talon)
    if not (dark or no_talon or bid == "preferans"):
        return None
    won: dict[str, object] = {"seat": declarer, "bid": call_text(bid)}
    if dark:
        won["dark"] = True
    events.append(Event("auction_won", won))
    if no_talon:
        # a game or misère without the talon is played as bid; the talon stays closed.
        kind = "misere" if bid == "misere_bp" else "game"
        state = evolve(state, declarer=declarer, bid=bid, kind=kind)
        return name_contract(state, "misere" if bid == "misere_bp" else bid, events)
    if dark:
        # the dark declarer looks at his cards and may still switch to misère before he
        # takes the talon; it stays face down until he does (TakeTalon or NameContract misère).
        state = evolve(
            state, declarer=declarer, bid=bid, kind="game", phase="talon", to_move=declarer
        )
        return state, tuple(events)
    events.append(Event("talon_shown", {"cards": [card_text(c) for c in state.talon]}))
    # the talon goes into his hand and the first defender discards for him.
    state = evolve(
        state,
        declarer=declarer,
        bid=bid,
        talon_shown=2,
        kind="game",
        open_seats=1 << declarer,  # his twelve cards lie open for the discard
    )
    state, _ = take_talon(state, events)
    events.append(opened_event(state.hands, 1 << declarer))
    return evolve(state, to_move=defenders_of(state)[0]), tuple(events)


def dark_choice(state: DealState) -> bool:
    """A-11: the dark declarer has looked at his cards; the talon is not yet shown."""
    auction = state.auction
    return (
        state.phase == "talon"
        and auction is not None
        and aa.won_in_dark(auction)
        and state.talon_shown == 0
    )


def talon_options(state: DealState, seat: int) -> list[Action] | None:
    """A-11: after a dark win, take the talon or switch to misère."""
    if dark_choice(state):
        return [TakeTalon(seat), NameContract(seat, "misere")]
    return None


def take_dark_talon(state: DealState, action: TakeTalon) -> Transition | None:
    """A-11: the dark declarer takes the talon, shown only now."""
    if not dark_choice(state):
        return None
    require_turn(state, action.seat, "talon")
    events = [Event("talon_shown", {"cards": [card_text(c) for c in state.talon]})]
    return take_talon(evolve(state, talon_shown=2), events)


def switch_to_misere(state: DealState, action: NameContract) -> Transition | None:
    """A-11: the dark declarer plays misère instead, before he takes the talon."""
    if not dark_choice(state) or action.contract != "misere":
        return None
    require_turn(state, action.seat, "talon")
    events = [
        Event("misere_switched", {"seat": action.seat}),
        Event("talon_shown", {"cards": [card_text(c) for c in state.talon]}),
    ]
    state = evolve(state, bid="misere", kind="misere", talon_shown=2)
    return take_talon(state, events)


def dark_game(state: DealState) -> bool:
    """A-11: the declarer won the talon with a dark bid and named a game of its level: it is
    whisted by force and every entry is doubled."""
    auction, contract = state.auction, state.contract
    return (
        auction is not None
        and aa.won_in_dark(auction)
        and isinstance(contract, Contract)
        and isinstance(state.bid, Contract)
        and contract.level == state.bid.level
    )


def view_flags(state: DealState) -> dict[str, bool]:
    """The view's ``dark`` (a dark bid won the auction) and ``dark_game`` (A-11)."""
    auction = state.auction
    won_dark = auction is not None and aa.won_in_dark(auction) and state.declarer is not None
    return {"dark": won_dark, "dark_game": dark_game(state)}
