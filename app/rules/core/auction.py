"""The auction (торговля), R-B1..R-B8, as a small immutable value.

Calls are :class:`~app.rules.core.outcome.Contract` bids, ``"misere"``, ``"pass"`` or ``"here"``
(здесь, R-B5). Every call gets a *rank* on one ladder (R-B2)::

    6♠ < 6♣ < 6♦ < 6♥ < 6NT < 7♠ < … < 8NT < misère < 9♠ < … < 10NT

Trick bids have even ranks ``4 * ((level - 6) * 5 + strain)``, the same game without the talon
(A-12, preset ``arabic``) the rank two above it, and misère the odd rank between 8NT б/п and 9♠,
so "is above" is one integer comparison.

Positions 0, 1, 2 are the three bidders in seniority order: forehand (left of the dealer) first,
then clockwise (R-B1). The auction knows seats only through ``order``.
"""

from __future__ import annotations

import dataclasses
from typing import Final, Literal, TypeAlias

from app.rules.core.cards import SUIT_SYMBOLS
from app.rules.core.outcome import STRAINS, Contract
from app.rules.core.rule_errors import IllegalActionError


@dataclasses.dataclass(frozen=True, slots=True)
class DarkBid:
    """A-11: a trick bid declared before looking at the cards ("раз в тёмную" is 6♠).

    It ranks as the same contract on the ladder, but an open bid overbids it only from the
    next level up ("перебить можно либо 6♣ в тёмную, либо семерной"). Written ``dark_6S``.
    """

    contract: Contract

    def __str__(self) -> str:
        return f"dark_{self.contract}"


Call: TypeAlias = (
    Contract | DarkBid | Literal["misere", "misere_bp", "preferans", "pass", "here", "dark_pass"]
)
"""One auction call."""
ContractCall: TypeAlias = Contract | Literal["misere", "misere_bp", "preferans"]
"""What a declarer can have won the auction with, or name (R-C2)."""

MISERE_RANK: Final = 59
MISERE_BP_RANK: Final = 61
"""A-13: misère without the talon, between 9♠ and 9♠ without the talon."""
PREFERANS_RANK: Final = 101
"""A-16: "преферанс", all ten tricks, above every other call."""
PASS_ONLY_LEVEL: Final = 11
"""A deal's ``min_level`` that allows no bid at all: a forced pass-out (004's opening, A-3)."""
_STRAIN_INDEX: Final = {s: i for i, s in enumerate(STRAINS)}
ALL_CONTRACTS: Final = tuple(
    Contract(level, strain) for level in range(6, 11) for strain in STRAINS
)
"""Every trick contract with the talon in ladder order (R-B2)."""
LADDER: Final = tuple(
    Contract(c.level, c.strain, no_talon) for c in ALL_CONTRACTS for no_talon in (False, True)
)
"""Every trick contract, each followed by itself without the talon (A-12: 6♠ < 6♠ б/п < 6♣)."""
_CONTRACT_BY_TEXT: Final = {str(c): c for c in LADDER}


class IllegalBidError(IllegalActionError):
    """A call the auction rules do not allow now (R-B8)."""


def contract_rank(contract: Contract) -> int:
    """The ladder rank of a trick contract (R-B2; a game without the talon just above, A-12)."""
    index = (contract.level - 6) * 5 + _STRAIN_INDEX[contract.strain]
    return 4 * index + (2 if contract.no_talon else 0)


def call_rank(call: ContractCall) -> int:
    """The ladder rank of a trick bid or misère (R-B2)."""
    if call == "misere":
        return MISERE_RANK
    if call == "misere_bp":
        return MISERE_BP_RANK
    if call == "preferans":
        return PREFERANS_RANK
    assert isinstance(call, Contract)
    return contract_rank(call)


def contract_from_rank(rank: int) -> Contract:
    """The trick contract of an even ladder rank."""
    return LADDER[rank // 2]


def first_with_talon(rank: int) -> int:
    """Index in :data:`ALL_CONTRACTS` of the lowest contract with the talon at or above
    ``rank`` (an even ladder rank)."""
    return (rank + 3) // 4


def parse_contract(text: str) -> Contract:
    """Parse ``"6S"``, ``"10NT"``, ``"7♥"`` (case-insensitive) into a :class:`Contract`."""
    cleaned = text.strip().upper()
    for symbol, letter in zip(SUIT_SYMBOLS, "SCDH", strict=True):
        cleaned = cleaned.replace(symbol, letter)
    cleaned = cleaned.replace("БК", "NT")
    contract = _CONTRACT_BY_TEXT.get(cleaned)
    if contract is None:
        raise IllegalBidError(f"{text!r} is not a contract (write it like '6S', '7NT')")
    return contract


def contract_pretty(call: ContractCall) -> str:
    """Player-readable form: ``7♣``, ``8NT``, ``misère``."""
    if call == "misere":
        return "misère"
    if call == "misere_bp":
        return "misère without talon"
    if call == "preferans":
        return "preferans"
    assert isinstance(call, Contract)
    suffix = " without talon" if call.no_talon else ""
    if call.strain == "NT":
        return f"{call.level}NT{suffix}"
    return f"{call.level}{SUIT_SYMBOLS[_STRAIN_INDEX[call.strain]]}{suffix}"


def call_text(call: Call) -> str:
    """Canonical text of a call: ``"6S"``, ``"misere"``, ``"pass"``, ``"here"``, ``"dark_6S"``."""
    return call if isinstance(call, str) else str(call)


def parse_call(text: str) -> Call:
    """Parse the canonical text of a call."""
    if text in ("misere", "misere_bp", "preferans", "pass", "here", "dark_pass"):
        return text  # type: ignore[return-value]
    if text.startswith("dark_"):
        contract = parse_contract(text[5:])
        if contract.no_talon:
            raise IllegalBidError("a dark bid is a game with the talon (A-11)")
        return DarkBid(contract)
    return parse_contract(text)


@dataclasses.dataclass(frozen=True, slots=True)
class AuctionExtra:
    """A rule set's own part of an auction's state: the one slot :attr:`Auction.extra`.

    The shared auction knows the ladder, "here" and misère (R-B1..R-B8). A rule set with calls
    of its own (Arabic preferans: dark calls, games without the talon, «преферанс») subclasses
    this as a frozen dataclass of its fields, puts it in the auction its ``opening_auction``
    deal hook deals, and reads and replaces it in its ``bid_options`` and ``auction_call``
    hooks; the shared auction only carries it from call to call. The same pattern carries a
    pulka's state from deal to deal (:class:`app.rules.scoring.pulka_rules.VariantState`).
    """


@dataclasses.dataclass(frozen=True, slots=True)
class Auction:
    """The state of the bidding.

    ``high`` is the rank of the current highest call (``-1`` before any bid) and ``holder`` the
    position holding it (a senior player who said "here" holds the same rank, R-B5).
    ``last_bid`` holds each position's last bid rank (``-1`` if none). ``extra`` is the rule
    set's own state (:class:`AuctionExtra`), ``None`` under the shared rules.
    """

    order: tuple[int, int, int]
    min_level: int = 6
    calls: tuple[tuple[int, Call], ...] = ()
    passed: int = 0
    spoke: int = 0
    high: int = -1
    holder: int = -1
    turn: int = 0
    last_bid: tuple[int, int, int] = (-1, -1, -1)
    extra: AuctionExtra | None = None

    @property
    def finished(self) -> bool:
        """True once two players have passed after a bid, or all three passed (R-B7)."""
        return self.turn < 0

    @property
    def passed_out(self) -> bool:
        """True if everyone passed: a pass-out follows (R-B7)."""
        return self.passed == 0b111

    @property
    def winner(self) -> int | None:
        """The declarer's position once the auction is won, else ``None``."""
        if self.finished and not self.passed_out:
            return self.holder
        return None

    @property
    def seat_to_call(self) -> int | None:
        """The seat whose call it is, ``None`` once the auction is over."""
        return None if self.turn < 0 else self.order[self.turn]

    def _most_senior_bidding(self) -> int:
        for position in range(3):
            if not self.passed >> position & 1:
                return position
        return -1

    def may_hold(self, position: int) -> bool:
        """R-B5: may ``position`` say "here" now (hold the current bid instead of raising)?"""
        return (
            self.high >= 0
            and self.high % 2 == 0  # a trick bid: misère and the calls above the ladder are odd
            and self.holder != position
            and self._most_senior_bidding() == position
        )

    def may_misere(self, position: int) -> bool:
        """R-B6/R-B2: misère only as a first call and only while nothing ranks above it."""
        return (
            not self.spoke >> position & 1
            and self.high < MISERE_RANK
            and self.min_level < PASS_ONLY_LEVEL
        )

    def lowest_rank(self) -> int:
        """The lowest trick-bid rank the player to call may bid (R-B2, R-B3, R-R6)."""
        floor = 4 * ((self.min_level - 6) * 5)
        above = self.high + 1
        above += above % 2  # trick bids have even ranks
        return max(floor, above)

    def legal_calls(self) -> list[Call]:
        """Every call of the shared ladder the player to move may make, pass first (R-B2)."""
        if self.turn < 0:
            return []
        calls: list[Call] = ["pass"]
        if self.may_hold(self.turn):
            calls.append("here")
        if self.may_misere(self.turn):
            calls.append("misere")
        calls.extend(ALL_CONTRACTS[first_with_talon(self.lowest_rank()) :])
        return calls

    def call(self, call: Call) -> Auction:
        """The auction after the player to move makes ``call``; raises :class:`IllegalBidError`.

        The shared calls only: pass, "here", misère and the ladder with the talon. A rule set
        with calls of its own handles them in its ``auction_call`` deal hook and hands the
        shared ones on to this method.
        """
        position = self.turn
        if position < 0:
            raise IllegalBidError("the bidding is over")
        if call == "pass":
            return self.advanced(call, passed=self.passed | 1 << position)
        if self.min_level >= PASS_ONLY_LEVEL:
            raise IllegalBidError("this deal is a forced pass-out: only 'pass' may be said (A-3)")
        if call == "here":
            if not self.may_hold(position):
                raise IllegalBidError(self.why_no_hold(position))
            return self.advanced(call, holder=position)
        if call == "misere":
            if self.spoke >> position & 1:
                raise IllegalBidError("misère may be bid only as your first call (R-B6)")
            if self.high >= MISERE_RANK:
                raise IllegalBidError(f"misère is not above {self.describe_high()}")
            return self.won_by(call, MISERE_RANK)
        if isinstance(call, Contract):
            if call.no_talon:
                raise IllegalBidError("games without the talon are not bid at this table (A-12)")
            return self.raised(call)
        raise IllegalBidError(f"{call!r} is not a call")

    def raised(self, call: Contract) -> Auction:
        """The auction after the player to move bids the trick contract ``call`` (R-B2, R-B3,
        R-R6); a rule set's hook may call it for a contract of its own ladder (A-12)."""
        if call.level < self.min_level:
            raise IllegalBidError(f"the lowest bid in this deal is {self.min_level}♠ (R-B3, R-R6)")
        rank = contract_rank(call)
        if rank <= self.high:
            raise IllegalBidError(f"{contract_pretty(call)} is not above {self.describe_high()}")
        return self.won_by(call, rank)

    def won_by(self, call: Call, rank: int) -> Auction:
        """The auction after the player to move's ``call`` took the highest rank ``rank``."""
        position = self.turn
        return self.advanced(
            call, high=rank, holder=position, last_bid=_set(self.last_bid, position, rank)
        )

    def advanced(
        self,
        call: Call,
        *,
        passed: int | None = None,
        holder: int | None = None,
        high: int | None = None,
        last_bid: tuple[int, int, int] | None = None,
        extra: AuctionExtra | None = None,
    ) -> Auction:
        """The auction once the player to move's ``call`` is written with these changes, and
        the turn passed on: over after three passes, or two passes after a bid (R-B7)."""
        position = self.turn
        passed = self.passed if passed is None else passed
        holder = self.holder if holder is None else holder
        if passed == 0b111:
            turn = -1
        elif passed.bit_count() == 2 and holder >= 0 and not passed >> holder & 1:
            turn = -1  # R-B7: the remaining bidder has a bid and wins the auction
        else:
            turn = (position + 1) % 3
            while passed >> turn & 1:
                turn = (turn + 1) % 3
        return Auction(
            self.order,
            self.min_level,
            (*self.calls, (self.order[position], call)),
            passed,
            self.spoke | 1 << position,
            self.high if high is None else high,
            holder,
            turn,
            self.last_bid if last_bid is None else last_bid,
            self.extra if extra is None else extra,
        )

    def describe_high(self) -> str:
        """The highest call and its holder, for an error message."""
        if self.high == PREFERANS_RANK:
            what: str = "preferans"
        elif self.high in (MISERE_RANK, MISERE_BP_RANK):
            what = contract_pretty("misere" if self.high == MISERE_RANK else "misere_bp")
        else:
            what = contract_pretty(contract_from_rank(self.high))
        return f"{what} held by seat {self.order[self.holder]}"

    def why_no_hold(self, position: int) -> str:
        """Why ``position`` may not say "here" now (R-B5), for an error message."""
        if self.high < 0:
            return "there is no bid to hold yet"
        if self.high == MISERE_RANK:
            return "misère cannot be held; only 9♠ or higher overbids it (R-B2)"
        if self.holder == position:
            return "you already hold the highest bid"
        return "only the most senior player still bidding may say 'here' (R-B5)"

    def winning_call(self) -> ContractCall | None:
        """The declarer's winning call: a contract or ``"misere"``."""
        if self.winner is None:
            return None
        if self.high == MISERE_RANK:
            return "misere"
        if self.high == MISERE_BP_RANK:
            return "misere_bp"
        if self.high == PREFERANS_RANK:
            return "preferans"
        return contract_from_rank(self.high)


def _set(values: tuple[int, int, int], index: int, value: int) -> tuple[int, int, int]:
    out = list(values)
    out[index] = value
    return (out[0], out[1], out[2])
