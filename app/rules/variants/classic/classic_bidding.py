"""The classic auction (seed 003, 20-24) as steps of the shared
:class:`~app.rules.core.auction.Auction`.

Two stages, both in the deal's ``auction`` phase:

* **Suits** (K-3, K-4): forehand, then the second and third hand, each speak once: pass, or a
  suit above the one named, for six tricks without the talon. Hearts ("преферанс") ends the
  bidding at once; so does the third hand's call. The highest suit named is the game.
* **The talon** (K-5, K-6): if all three passed, forehand may buy the talon, or pass it on to
  the second hand and then to the third; if all three pass it, the cards are dealt again.

The value is the ordinary :class:`Auction`: ``passed`` holds the suit-stage passes, and
``passed == 0b111`` with a position to call is the talon stage. A talon pass is written as one
more ``"pass"`` in ``calls``, so the table shows each seat's two passes.
"""

from __future__ import annotations

import dataclasses

from app.rules.core.auction import Auction, Call, IllegalBidError, contract_rank
from app.rules.core.outcome import Contract
from app.rules.variants.classic.classic_values import CLASSIC_CONTRACTS, PREFERANS

_ALL_PASSED = 0b111
_PREFERANS_RANK = contract_rank(PREFERANS)


def buying(auction: Auction) -> bool:
    """K-5: True while the talon is offered to the player to call (every suit call was a pass)."""
    return auction.passed == _ALL_PASSED and auction.turn >= 0


def classic_calls(auction: Auction) -> list[Call]:
    """Every call the player to call may make, pass first (K-3, K-5)."""
    if auction.turn < 0:
        return []
    if buying(auction):
        return ["pass"]
    return ["pass", *(c for c in CLASSIC_CONTRACTS if contract_rank(c) > auction.high)]


def classic_call(auction: Auction, call: Call) -> Auction:
    """The auction after the player to call makes ``call``; raises :class:`IllegalBidError`."""
    position = auction.turn
    if position < 0:
        raise IllegalBidError("the bidding is over")
    calls = (*auction.calls, (auction.order[position], call))
    if buying(auction):
        if call != "pass":
            raise IllegalBidError("now you may only buy the talon or pass it on (K-5)")
        turn = position + 1 if position < 2 else -1  # K-6: the third pass means a redeal
        return dataclasses.replace(auction, calls=calls, turn=turn)
    bit = 1 << position
    high, holder, passed = auction.high, auction.holder, auction.passed
    if call == "pass":
        passed |= bit
    elif isinstance(call, Contract) and call in CLASSIC_CONTRACTS:
        rank = contract_rank(call)
        if rank <= high:
            raise IllegalBidError("name a suit above the one already named (K-3)")
        high, holder = rank, position
    else:
        raise IllegalBidError("classic preferans is bid by suit only: 6♠, 6♣, 6♦ or 6♥ (K-3)")
    if position == 2 or high == _PREFERANS_RANK:
        turn = 0 if passed == _ALL_PASSED else -1  # K-5 the talon is offered; K-4 a game
    else:
        turn = position + 1
    return dataclasses.replace(
        auction,
        calls=calls,
        passed=passed,
        spoke=auction.spoke | bit,
        high=high,
        holder=holder,
        turn=turn,
    )


def bought(auction: Auction) -> Auction:
    """K-5: the auction once the player to call has bought the talon (it is over)."""
    return dataclasses.replace(auction, turn=-1)
