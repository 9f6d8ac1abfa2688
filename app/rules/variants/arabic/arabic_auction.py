"""Seed 004's auction on the shared ladder: games and misère without the talon (A-12, A-13),
«преферанс» (A-16) and, while a hand lies face down, the dark calls (A-10, A-11).

Its state is :class:`ArabicAuction`, the shared :class:`~app.rules.core.auction.Auction`'s
``extra``; the shared auction handles pass, "here", misère and the ladder with the talon, and
this module everything the seed adds, handing the shared calls on to
:meth:`Auction.call <app.rules.core.auction.Auction.call>` with its own limits checked first.
"""

from __future__ import annotations

import dataclasses

from app.rules.core.auction import (
    MISERE_BP_RANK,
    PASS_ONLY_LEVEL,
    PREFERANS_RANK,
    Auction,
    AuctionExtra,
    Call,
    DarkBid,
    IllegalBidError,
    contract_pretty,
    contract_rank,
)
from app.rules.core.outcome import Contract


@dataclasses.dataclass(frozen=True, slots=True)
class ArabicAuction(AuctionExtra):
    """What an Arabic auction knows beyond the shared ladder."""

    no_talon: bool = False
    """A-12: games without the talon are on the ladder (convention ``no_talon_games``)."""
    blind: int = 0
    """A-10, A-11: bit per position that has neither spoken nor picked up its cards; only
    these may call in the dark (convention ``dark_calls``)."""
    open_floor: int = 6
    """A-10, A-11: the lowest level of an open bid after a dark pass (7) or a dark bid (its
    level + 1)."""
    high_dark: bool = False
    """A-11: the highest bid is a dark bid."""
    dark_passed: bool = False
    """A-10: somebody said "пас в тёмную" in this auction."""
    preferans: bool = False
    """A-16: "преферанс" may be called (convention ``preferans_contract``)."""


_SHARED = ArabicAuction()


def own(auction: Auction) -> ArabicAuction:
    """The Arabic part of ``auction`` (nothing special if it was dealt without one)."""
    extra = auction.extra
    return extra if isinstance(extra, ArabicAuction) else _SHARED


def face_down(auction: Auction, position: int) -> bool:
    """A-10, A-11: has ``position`` neither spoken nor picked up its cards?"""
    return bool(own(auction).blind >> position & 1)


def won_in_dark(auction: Auction) -> bool:
    """A-11: the highest bid is a dark bid."""
    return own(auction).high_dark


def dark_passed(auction: Auction) -> bool:
    """A-10: somebody passed in the dark in this auction."""
    return own(auction).dark_passed


def open_passers(auction: Auction) -> tuple[int, ...]:
    """R-A1: the seats that passed openly in a passed-out auction (no "пас в тёмную")."""
    dark = {seat for seat, call in auction.calls if call == "dark_pass"}
    return tuple(sorted(seat for seat in auction.order if seat not in dark))


def no_talon_games(auction: Auction) -> bool:
    """A-12: this auction's ladder has the games without the talon."""
    return own(auction).no_talon


def may_hold(auction: Auction, position: int) -> bool:
    """R-B5, A-11: "here" as the shared rule allows it, never on a dark bid."""
    return auction.may_hold(position) and not own(auction).high_dark


def may_misere_bp(auction: Auction, position: int) -> bool:
    """A-13: misère without the talon: a first call, below 9♠ without the talon."""
    return own(auction).no_talon and _first_call_below(auction, position, MISERE_BP_RANK)


def may_preferans(auction: Auction, position: int) -> bool:
    """A-16: "преферанс" is a first call ("объявляются сразу") and "не объявляется в тёмную":
    a seat whose cards still lie face down picks them up before it may call it."""
    return (
        own(auction).preferans
        and not face_down(auction, position)
        and _first_call_below(auction, position, PREFERANS_RANK)
    )


def _first_call_below(auction: Auction, position: int, rank: int) -> bool:
    """Is this ``position``'s first call, with nothing at ``rank`` or above, in a deal that is
    bid at all (A-3)?"""
    return (
        not auction.spoke >> position & 1
        and auction.high < rank
        and auction.min_level < PASS_ONLY_LEVEL
    )


def may_dark(auction: Auction, position: int) -> bool:
    """A-10, A-11: a dark call is the first call of a position that has not looked."""
    return face_down(auction, position) and auction.min_level < PASS_ONLY_LEVEL


def picked_up(auction: Auction, position: int) -> Auction:
    """The auction after ``position`` looked at its cards: no dark call for it any more."""
    extra = own(auction)
    return dataclasses.replace(
        auction, extra=dataclasses.replace(extra, blind=extra.blind & ~(1 << position))
    )


def lowest_dark_rank(auction: Auction) -> int:
    """The lowest dark-bid rank (A-11): above the highest bid, from the deal's floor."""
    floor = 4 * ((auction.min_level - 6) * 5)
    above = auction.high + 1
    above += above % 2
    return max(floor, above)


def lowest_rank(auction: Auction) -> int:
    """The lowest open trick-bid rank: the shared one, and after a dark call the next level
    up (A-10, A-11)."""
    return max(auction.lowest_rank(), 4 * ((own(auction).open_floor - 6) * 5))


def arabic_call(auction: Auction, call: Call) -> Auction:
    """The auction after the player to move makes ``call``; raises :class:`IllegalBidError`."""
    position = auction.turn
    if position < 0 or call == "pass" or auction.min_level >= PASS_ONLY_LEVEL:
        return _shared(auction, call, position)
    extra = own(auction)
    if call == "preferans":
        if not may_preferans(auction, position):
            raise IllegalBidError("preferans is a first call, above every other (A-16)")
        return _won(auction, call, PREFERANS_RANK, extra)
    if call == "dark_pass":
        if not may_dark(auction, position):
            raise IllegalBidError("a dark pass is declared before looking at the cards (A-10)")
        extra = dataclasses.replace(extra, dark_passed=True, open_floor=max(extra.open_floor, 7))
        return auction.advanced(
            call, passed=auction.passed | 1 << position, extra=_spoken(extra, position)
        )
    if isinstance(call, DarkBid):
        return _dark_bid(auction, call, extra)
    if call == "here" and not may_hold(auction, position):
        raise IllegalBidError(auction.why_no_hold(position))
    if call == "misere_bp":
        if not may_misere_bp(auction, position):
            raise IllegalBidError(
                "misère without the talon: a first call, under 9♠ without the talon (A-13)"
            )
        return _won(auction, call, MISERE_BP_RANK, extra)
    if isinstance(call, Contract):
        if call.no_talon and not extra.no_talon:
            raise IllegalBidError("games without the talon are not bid at this table (A-12)")
        if auction.min_level <= call.level < extra.open_floor:
            raise IllegalBidError(
                f"after a dark call the lowest open bid is {extra.open_floor}♠ (A-10, A-11)"
            )
        raised = auction.raised(call)
        return dataclasses.replace(raised, extra=_spoken(_open(extra), position))
    return _shared(auction, call, position)


def _shared(auction: Auction, call: Call, position: int) -> Auction:
    """A shared call, with the Arabic state carried on: the caller has spoken."""
    after = auction.call(call)
    extra = own(auction)
    if call != "pass" and call != "here":
        extra = _open(extra)
    return dataclasses.replace(after, extra=_spoken(extra, position))


def _dark_bid(auction: Auction, call: DarkBid, extra: ArabicAuction) -> Auction:
    """A-11: a trick bid before looking; an open bid overbids it only from the next level."""
    position = auction.turn
    if not may_dark(auction, position):
        raise IllegalBidError("a dark bid is declared before looking at the cards (A-11)")
    if call.contract.no_talon or call.contract.level < auction.min_level:
        raise IllegalBidError(
            f"the lowest dark bid in this deal is {auction.min_level}♠ (A-11, R-B3)"
        )
    rank = contract_rank(call.contract)
    if rank <= auction.high:
        raise IllegalBidError(
            f"{contract_pretty(call.contract)} in the dark is not above {auction.describe_high()}"
        )
    extra = dataclasses.replace(
        extra, high_dark=True, open_floor=max(extra.open_floor, call.contract.level + 1)
    )
    return dataclasses.replace(auction.won_by(call, rank), extra=_spoken(extra, position))


def _won(auction: Auction, call: Call, rank: int, extra: ArabicAuction) -> Auction:
    """An open call of the seed's own (misère without the talon, «преферанс») at ``rank``."""
    after = auction.won_by(call, rank)
    return dataclasses.replace(after, extra=_spoken(_open(extra), auction.turn))


def _open(extra: ArabicAuction) -> ArabicAuction:
    """The highest bid is an open one now."""
    return dataclasses.replace(extra, high_dark=False) if extra.high_dark else extra


def _spoken(extra: ArabicAuction, position: int) -> ArabicAuction:
    """``position`` has spoken: no dark call for it any more."""
    bit = 1 << position
    return dataclasses.replace(extra, blind=extra.blind & ~bit) if extra.blind & bit else extra
