"""The auction (торговля), R-B1..R-B8, as a small immutable value.

Calls are :class:`~app.rules.outcome.Contract` bids, ``"misere"``, ``"pass"`` or ``"here"``
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

from app.rules.cards import SUIT_SYMBOLS
from app.rules.errors import IllegalActionError
from app.rules.outcome import STRAINS, Contract


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
class Auction:
    """The state of the bidding.

    ``high`` is the rank of the current highest call (``-1`` before any bid) and ``holder`` the
    position holding it (a senior player who said "here" holds the same rank, R-B5).
    ``last_bid`` holds each position's last bid rank (``-1`` if none).
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
            and not self.high_dark
            and self.high not in (MISERE_RANK, MISERE_BP_RANK, PREFERANS_RANK)
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

    def may_misere_bp(self, position: int) -> bool:
        """A-13: misère without the talon: a first call, below 9♠ without the talon."""
        return (
            self.no_talon
            and not self.spoke >> position & 1
            and self.high < MISERE_BP_RANK
            and self.min_level < PASS_ONLY_LEVEL
        )

    def may_preferans(self, position: int) -> bool:
        """A-16: "преферанс" is a first call ("объявляются сразу"), never in the dark."""
        return (
            self.preferans
            and not self.spoke >> position & 1
            and self.high < PREFERANS_RANK
            and self.min_level < PASS_ONLY_LEVEL
        )

    def may_dark(self, position: int) -> bool:
        """A-10, A-11: a dark call is the first call of a position that has not looked."""
        return bool(self.blind >> position & 1) and self.min_level < PASS_ONLY_LEVEL

    def picked_up(self, position: int) -> Auction:
        """The auction after ``position`` looked at its cards: no dark call for it any more."""
        return dataclasses.replace(self, blind=self.blind & ~(1 << position))

    def lowest_dark_rank(self) -> int:
        """The lowest dark-bid rank (A-11): above the highest bid, from the deal's floor."""
        floor = 4 * ((self.min_level - 6) * 5)
        above = self.high + 1
        above += above % 2
        return max(floor, above)

    def lowest_rank(self) -> int:
        """The lowest trick-bid rank the player to call may bid (R-B2, R-B3, R-R6; after a
        dark call the next level up, A-10, A-11)."""
        floor = 4 * ((max(self.min_level, self.open_floor) - 6) * 5)
        above = self.high + 1
        above += above % 2  # trick bids have even ranks
        return max(floor, above)

    def legal_calls(self) -> list[Call]:
        """Every call the player to move may make: pass first, then the ladder, "преферанс"
        (A-16) and the dark calls (A-10, A-11) last."""
        if self.turn < 0:
            return []
        calls: list[Call] = ["pass"]
        if self.may_hold(self.turn):
            calls.append("here")
        if self.may_misere(self.turn):
            calls.append("misere")
        if self.may_misere_bp(self.turn):
            calls.append("misere_bp")
        start = self.lowest_rank()
        if self.no_talon:
            calls.extend(LADDER[start // 2 :])
        else:
            calls.extend(ALL_CONTRACTS[first_with_talon(start) :])
        if self.may_preferans(self.turn):
            calls.append("preferans")
        if self.may_dark(self.turn):
            calls.append("dark_pass")
            start_dark = first_with_talon(self.lowest_dark_rank())
            calls.extend(DarkBid(c) for c in ALL_CONTRACTS[start_dark:])
        return calls

    def call(self, call: Call) -> Auction:
        """The auction after the player to move makes ``call``; raises :class:`IllegalBidError`."""
        position = self.turn
        if position < 0:
            raise IllegalBidError("the bidding is over")
        bit = 1 << position
        high, holder = self.high, self.holder
        passed = self.passed
        last_bid = self.last_bid
        high_dark, dark_passed, open_floor = self.high_dark, self.dark_passed, self.open_floor
        if call == "pass":
            passed |= bit
        elif self.min_level >= PASS_ONLY_LEVEL:
            raise IllegalBidError("this deal is a forced pass-out: only 'pass' may be said (A-3)")
        elif call == "preferans":
            if not self.may_preferans(position):
                raise IllegalBidError("preferans is a first call, above every other (A-16)")
            high, holder, high_dark = PREFERANS_RANK, position, False
            last_bid = _set(last_bid, position, PREFERANS_RANK)
        elif call == "dark_pass":
            if not self.may_dark(position):
                raise IllegalBidError("a dark pass is declared before looking at the cards (A-10)")
            passed |= bit
            dark_passed = True
            open_floor = max(open_floor, 7)
        elif isinstance(call, DarkBid):
            if not self.may_dark(position):
                raise IllegalBidError("a dark bid is declared before looking at the cards (A-11)")
            rank = contract_rank(call.contract)
            if call.contract.no_talon or call.contract.level < self.min_level:
                raise IllegalBidError(
                    f"the lowest dark bid in this deal is {self.min_level}♠ (A-11, R-B3)"
                )
            if rank <= self.high:
                raise IllegalBidError(
                    f"{contract_pretty(call.contract)} in the dark is not above "
                    f"{self._describe_high()}"
                )
            high, holder, high_dark = rank, position, True
            open_floor = max(open_floor, call.contract.level + 1)
            last_bid = _set(last_bid, position, rank)
        elif call == "here":
            if not self.may_hold(position):
                raise IllegalBidError(self._why_no_hold(position))
            holder = position
        elif call == "misere_bp":
            if not self.may_misere_bp(position):
                raise IllegalBidError(
                    "misère without the talon: a first call, under 9♠ without the talon (A-13)"
                )
            high, holder, high_dark = MISERE_BP_RANK, position, False
            last_bid = _set(last_bid, position, MISERE_BP_RANK)
        elif call == "misere":
            if self.spoke & bit:
                raise IllegalBidError(
                    "misère may be bid only as your first call (R-B6)"
                )
            if self.high >= MISERE_RANK:
                raise IllegalBidError(
                    f"misère is not above {self._describe_high()}"
                )
            high, holder, high_dark = MISERE_RANK, position, False
            last_bid = _set(last_bid, position, MISERE_RANK)
        elif isinstance(call, Contract):
            if call.no_talon and not self.no_talon:
                raise IllegalBidError("games without the talon are not bid at this table (A-12)")
            rank = contract_rank(call)
            if call.level < self.min_level:
                raise IllegalBidError(
                    f"the lowest bid in this deal is {self.min_level}♠ (R-B3, R-R6)"
                )
            if call.level < open_floor:
                raise IllegalBidError(
                    f"after a dark call the lowest open bid is {open_floor}♠ (A-10, A-11)"
                )
            if rank <= self.high:
                raise IllegalBidError(
                    f"{contract_pretty(call)} is not above {self._describe_high()}"
                )
            high, holder, high_dark = rank, position, False
            last_bid = _set(last_bid, position, rank)
        else:
            raise IllegalBidError(f"{call!r} is not a call")
        turn = -1
        if passed == 0b111:
            turn = -1
        elif passed.bit_count() == 2 and holder >= 0 and not passed >> holder & 1:
            turn = -1  # R-B7: the remaining bidder has a bid and wins the auction
        else:
            nxt = (position + 1) % 3
            while passed >> nxt & 1:
                nxt = (nxt + 1) % 3
            turn = nxt
        return Auction(
            self.order,
            self.min_level,
            (*self.calls, (self.order[position], call)),
            passed,
            self.spoke | bit,
            high,
            holder,
            turn,
            last_bid,
            self.no_talon,
            self.blind & ~bit,
            open_floor,
            high_dark,
            dark_passed,
            self.preferans,
        )

    def _describe_high(self) -> str:
        if self.high == PREFERANS_RANK:
            what: str = "preferans"
        elif self.high in (MISERE_RANK, MISERE_BP_RANK):
            what = contract_pretty("misere" if self.high == MISERE_RANK else "misere_bp")
        else:
            what = contract_pretty(contract_from_rank(self.high))
        return f"{what} held by seat {self.order[self.holder]}"

    def _why_no_hold(self, position: int) -> str:
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
