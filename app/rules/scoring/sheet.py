"""The score sheet and the scoring of one deal (RULES.md §7, §8).

A :class:`Sheet` is the paper pulka as a value: every seat's pool (пуля), hill (гора) and the
whists each seat wrote on each other seat (``whists[i][j]`` is what ``i`` wrote on ``j``). It
changes only by :class:`Entry` writes, and every entry names the deal and the rule that caused it,
so a sheet can always be replayed and audited (R-P6).

:func:`score_deal` is the one scoring function of the project: the live table, an imported
``pulka/1`` record and the command line all reach it through
:meth:`app.rules.scoring.pulka.Pulka.record`.
It turns one validated :class:`~app.rules.core.outcome.DealOutcome` into entries under the given
:class:`~app.rules.core.conventions.Conventions`::

    >>> from app.rules.core.outcome import Contract, DealOutcome
    >>> made = DealOutcome(dealer=0, kind="game", declarer=1, contract=Contract(6, "H"),
    ...                    defence={2: "pass", 0: "pass"})
    >>> [(e.seat, e.column, e.amount) for e in score_deal(made, Conventions(), players=3)]
    [(1, 'pool', Fraction(2, 1))]

Amounts are exact :class:`~fractions.Fraction` values. They are whole numbers in every club game;
only a few conventions (Rostov pass-outs won by two players together) write halves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, TypeAlias

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.core.prices import HALF_WHIST_TRICKS as HALF_WHIST_TRICKS  # re-exported
from app.rules.core.prices import MISERE_PRICE, REQUIREMENT, price
from app.rules.core.seats import dealer_on_talon, pass_out_seats
from app.rules.core.seats import defenders as defenders  # re-exported
from app.rules.core.seats import playing_seats as playing_seats  # re-exported
from app.rules.scoring.sheet_rules import Write, sheet_rules

Column: TypeAlias = Literal["pool", "hill", "whists"]

ROSTOV_WHISTS_PER_TRICK = 5
"""Rostov pass-outs: the lowest taker writes this many whists per trick of each other (K96
3.7.2.2)."""
WHISTS_PER_POINT = 10
"""One pool or hill point is worth ten whists (R-P4, K96 4.2.3)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One write on the sheet: ``amount`` into ``seat``'s ``column``, caused by ``rule``.

    For the ``whists`` column ``seat`` is the writer and ``on`` the seat written on; for ``pool``
    and ``hill`` ``on`` is ``None``. Amounts may be negative (the club's zero-tricks bonus takes
    points off the hill).
    """

    deal: int
    seat: int
    column: Column
    amount: Fraction
    rule: str
    on: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``pulka-score/1`` form of this entry (``on`` only for whists)."""
        out: dict[str, Any] = {
            "deal": self.deal,
            "seat": self.seat,
            "column": self.column,
            "amount": json_number(self.amount),
            "rule": self.rule,
        }
        if self.on is not None:
            out["on"] = self.on
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        """Inverse of :meth:`to_json` (used when a persisted pulka is loaded)."""
        return cls(
            deal=int(data["deal"]),
            seat=int(data["seat"]),
            column=data["column"],
            amount=Fraction(str(data["amount"])),
            rule=str(data["rule"]),
            on=None if data.get("on") is None else int(data["on"]),
        )

    def moved(self, mapping: Sequence[int]) -> Entry:
        """This entry with seats renumbered by ``mapping[old] -> new`` (R-T4 seating)."""
        return dataclasses.replace(
            self,
            seat=mapping[self.seat],
            on=None if self.on is None else mapping[self.on],
        )


def json_number(value: Fraction) -> int | float | str:
    """An exact amount for JSON: an integer when whole, else an exactly representable number.

    Halves and quarters (the only fractions the conventions produce) are exact binary numbers,
    so they are written as JSON numbers without loss; any other fraction is written as the
    string ``"p/q"`` rather than be approximated.
    """
    if value.denominator == 1:
        return int(value)
    d = value.denominator
    if d & (d - 1) == 0:
        return value.numerator / d
    return f"{value.numerator}/{value.denominator}"


@dataclasses.dataclass(frozen=True, slots=True)
class Sheet:
    """Running totals of a pulka's score sheet, one slot per seat (R-P6)."""

    pool: tuple[Fraction, ...]
    hill: tuple[Fraction, ...]
    whists: tuple[tuple[Fraction, ...], ...]

    @classmethod
    def empty(cls, players: int) -> Sheet:
        """A clean sheet for ``players`` seats."""
        zero = Fraction(0)
        return cls(
            pool=(zero,) * players,
            hill=(zero,) * players,
            whists=tuple((zero,) * players for _ in range(players)),
        )

    @property
    def players(self) -> int:
        """Number of seats on the sheet."""
        return len(self.pool)

    def apply(self, entries: Iterable[Entry]) -> Sheet:
        """The sheet after ``entries``, written in order."""
        pool = list(self.pool)
        hill = list(self.hill)
        whists = [list(row) for row in self.whists]
        for e in entries:
            if e.column == "pool":
                pool[e.seat] += e.amount
            elif e.column == "hill":
                hill[e.seat] += e.amount
            else:
                assert e.on is not None
                whists[e.seat][e.on] += e.amount
        return Sheet(tuple(pool), tuple(hill), tuple(tuple(r) for r in whists))

    def with_seat_inserted(self, seat: int) -> Sheet:
        """The sheet with an empty seat inserted at ``seat``, later seats moving up (R-T4)."""
        zero = Fraction(0)
        pool = list(self.pool)
        hill = list(self.hill)
        pool.insert(seat, zero)
        hill.insert(seat, zero)
        rows = [list(r) for r in self.whists]
        for r in rows:
            r.insert(seat, zero)
        rows.insert(seat, [zero] * (len(self.pool) + 1))
        return Sheet(tuple(pool), tuple(hill), tuple(tuple(r) for r in rows))

    def to_json(self) -> dict[str, Any]:
        """The ``pulka-score/1`` ``sheet`` object."""
        return {
            "pool": [json_number(v) for v in self.pool],
            "hill": [json_number(v) for v in self.hill],
            "whists": [[json_number(v) for v in row] for row in self.whists],
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Line:
    """One running total as the club writes it on paper after a deal (R-P6).

    After each deal every column that changed gets its new running total (not the increment):
    ``total`` is the value of ``seat``'s ``column`` (for whists: written on ``on``) after ``deal``.
    """

    deal: int
    seat: int
    column: Column
    total: Fraction
    on: int | None = None


def running_totals(entries: Iterable[Entry]) -> list[Line]:
    """The paper sheet's lines: per deal, the new running total of every column that changed.

    Several entries of one deal into the same column make one line; lines come in the order of
    their column's first entry in that deal.
    """
    totals: dict[tuple[int, Column, int | None], Fraction] = {}
    lines: list[Line] = []
    pending: dict[tuple[int, Column, int | None], None] = {}
    deal: int | None = None

    def flush() -> None:
        assert deal is not None
        for key in pending:
            seat, column, on = key
            lines.append(Line(deal, seat, column, totals[key], on))
        pending.clear()

    for e in entries:
        if deal is not None and e.deal != deal:
            flush()
        deal = e.deal
        key = (e.seat, e.column, e.on)
        totals[key] = totals.get(key, Fraction(0)) + e.amount
        pending[key] = None
    if deal is not None:
        flush()
    return lines


def pass_out_rate(conventions: Conventions, streak: int) -> int:
    """Hill points per trick of a pass-out after ``streak`` earlier consecutive pass-outs (R-R5).

    For the ``rostov`` rates the pass-out is played for whists, not the hill; the rate then is the
    whists per trick (:data:`ROSTOV_WHISTS_PER_TRICK`) and does not progress.
    """
    rates = conventions.raspasy_rates
    if rates == "rostov":
        return ROSTOV_WHISTS_PER_TRICK
    return rates[min(streak, len(rates) - 1)]


def talon_bonus_tricks(talon: tuple[str, str] | None) -> int:
    """Tricks the talon is worth to the declarer for the talon bonus (R-C5).

    Two aces 3; ace and king of one suit 2; one ace 1; king and queen of one suit 1; else 0.
    """
    if talon is None:
        return 0
    (r1, s1), (r2, s2) = (_rank_suit(c) for c in talon)
    aces = (r1 == "A") + (r2 == "A")
    if aces == 2:
        return 3
    if s1 == s2 and {r1, r2} == {"A", "K"}:
        return 2
    if aces == 1:
        return 1
    if s1 == s2 and {r1, r2} == {"K", "Q"}:
        return 1
    return 0


_SUIT_SYMBOLS = {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}


def _rank_suit(card: str) -> tuple[str, str]:
    suit = _SUIT_SYMBOLS.get(card[-1], card[-1].upper())
    return card[:-1].upper(), suit


class _Writer:
    """Collects the entries of one deal in the order they are written."""

    def __init__(self, deal: int) -> None:
        self.deal = deal
        self.entries: list[Entry] = []

    def pool(self, seat: int, amount: Fraction | int, rule: str) -> None:
        if amount:
            self.entries.append(Entry(self.deal, seat, "pool", Fraction(amount), rule))

    def hill(self, seat: int, amount: Fraction | int, rule: str) -> None:
        if amount:
            self.entries.append(Entry(self.deal, seat, "hill", Fraction(amount), rule))

    def whists(self, seat: int, on: int, amount: Fraction | int, rule: str) -> None:
        if amount:
            self.entries.append(Entry(self.deal, seat, "whists", Fraction(amount), rule, on))

    def write(self, write: Write) -> None:
        """One write a rule set's sheet hook gave (:mod:`app.rules.scoring.sheet_rules`)."""
        seat, column, amount, rule, on = write
        if column == "whists":
            assert on is not None
            self.whists(seat, on, amount, rule)
        else:
            (self.pool if column == "pool" else self.hill)(seat, amount, rule)


def score_deal(
    outcome: DealOutcome,
    conventions: Conventions,
    *,
    players: int,
    deal: int = 0,
    pass_out_streak: int = 0,
) -> list[Entry]:
    """Every sheet write of one deal, in the order a club scorer makes them.

    ``outcome`` must already be valid (:meth:`app.rules.scoring.pulka.Pulka.record` checks it);
    ``pass_out_streak`` is the number of consecutive pass-outs before this deal (R-R5).
    Penalties recorded at a physical table (§10) are written last.
    """
    w = _Writer(deal)
    rules = sheet_rules(conventions)
    own = rules.deal_writes(outcome, conventions, players, pass_out_streak)
    if own is not None:
        for write in own:
            w.write(write)
    elif outcome.kind == "pass_out":
        _score_pass_out(w, outcome, conventions, players, pass_out_streak)
    elif outcome.kind == "misere":
        _score_misere(w, outcome, conventions)
    elif outcome.kind == "conceded":
        _score_conceded(w, outcome, conventions, players)
    else:
        _score_game(w, outcome, conventions, players, rules.consoles_failed_ten(conventions))
    if outcome.misere_partner is not None and outcome.kind != "misere":
        w.entries = _halves(w.entries, outcome.declarer, outcome.misere_partner)
    if outcome.talon_returned and outcome.declarer is not None:
        # R-C6: the dealer writes the cost of the bid game into his own hill.
        cost = MISERE_PRICE if outcome.contract is None else price(outcome.contract.level)
        w.write(rules.returned_talon(outcome, conventions, cost))
    for p in outcome.penalties:
        if p.whists_on is not None:
            w.whists(p.seat, p.whists_on, p.amount, p.rule)
        if p.hill:
            w.hill(p.seat, p.hill, p.rule)
    return w.entries


def _halves(entries: list[Entry], declarer: int | None, partner: int) -> list[Entry]:
    """A-19: a game played halves with the dealer: every entry of the declarer's (his pool or
    hill, whists on him or by him) is written half by him, then half by the dealer."""
    out: list[Entry] = []
    for e in entries:
        pairs: list[tuple[int, int | None]]
        if e.column != "whists":
            mine = e.seat == declarer
            pairs = [(e.seat, None), (partner, None)] if mine else [(e.seat, None)]
        elif e.on == declarer:
            pairs = [(e.seat, declarer), (e.seat, partner)]
        elif e.seat == declarer:
            pairs = [(declarer, e.on), (partner, e.on)]
        else:
            pairs = [(e.seat, e.on)]
        share = e.amount / len(pairs)
        out.extend(
            dataclasses.replace(e, seat=seat, on=on, amount=share)
            for seat, on in pairs
            if seat != on
        )
    return out


def _opponents(players: int, declarer: int) -> list[int]:
    """Every other seat, clockwise from the declarer's left: the dealer sitting on the talon
    included, and at five also his idle partner (000: consolation is written by everyone)."""
    return [(declarer + k) % players for k in range(1, players)]


def _talon_bonus(
    w: _Writer, outcome: DealOutcome, c: Conventions, players: int, trick_whists: int
) -> None:
    # R-C5: at four and five players the dealer writes on the declarer for the talon he gave.
    no_talon = outcome.contract is not None and outcome.contract.no_talon  # not given
    if dealer_on_talon(players) and c.talon_bonus and not outcome.talon_returned and not no_talon:
        assert outcome.declarer is not None
        tricks = talon_bonus_tricks(outcome.talon)
        if c.talon_bonus_flat:  # 004 writes the whists themselves, 3/2/1
            w.whists(outcome.dealer, outcome.declarer, tricks, "A-20")
            return
        w.whists(outcome.dealer, outcome.declarer, tricks * trick_whists, "R-C5")


def _score_conceded(w: _Writer, outcome: DealOutcome, c: Conventions, players: int) -> None:
    # R-C4: three undertricks on the contract, consolation for three, no trick whists.
    assert outcome.declarer is not None and outcome.contract is not None
    p = price(outcome.contract.level)
    w.hill(outcome.declarer, 3 * p * c.remiz_multiplier, "R-C4")
    for seat in _opponents(players, outcome.declarer):
        w.whists(seat, outcome.declarer, 3 * c.consolation_whists(p), "R-C4")
    _talon_bonus(w, outcome, c, players, p * c.whist_multiplier)


def _score_misere(w: _Writer, outcome: DealOutcome, c: Conventions) -> None:
    # R-P1: a misère goes into the pool when clean; each trick taken costs the hill, and a failed
    # misère gets neither trick whists nor consolation.
    assert outcome.declarer is not None and outcome.tricks is not None
    # R-B9: an invited dealer's misère is written half on each partner.
    partner = outcome.misere_partner
    seats = (outcome.declarer,) if partner is None else (outcome.declarer, partner)
    share = Fraction(1, len(seats))
    taken = outcome.tricks[outcome.declarer]
    for seat in seats:
        if taken == 0:
            w.pool(seat, MISERE_PRICE * share, "R-W10")
        else:
            w.hill(seat, taken * MISERE_PRICE * c.misere_multiplier * share, "R-W10")


def _score_game(
    w: _Writer, outcome: DealOutcome, c: Conventions, players: int, consoled_ten: bool
) -> None:
    assert outcome.declarer is not None and outcome.contract is not None
    declarer = outcome.declarer
    level = outcome.contract.level
    p = price(level)
    trick_whists = p * c.whist_multiplier
    first, second = defenders(players, outcome.dealer, declarer)
    calls = outcome.defence
    whisters = [s for s in _opponents(players, declarer) if calls.get(s) == "whist"]
    half = [s for s in (first, second) if calls.get(s) == "half"]

    if outcome.tricks is None:
        # No play: two passes, a half-whist, or a checked ten everybody accepted (R-W4, R-W9).
        w.pool(declarer, p, "R-P1")
        if half:
            owed = HALF_WHIST_TRICKS[level]
            w.whists(half[0], declarer, owed * trick_whists, "R-W4")
        _talon_bonus(w, outcome, c, players, trick_whists)
        return

    tricks = outcome.tricks
    taken = tricks[declarer]
    defence_tricks = tricks[first] + tricks[second]
    under = max(0, level - taken)
    checked_ten = level == 10 and c.ten_checked
    if under == 0:
        w.pool(declarer, p, "R-W9" if checked_ten else "R-P1")
    else:
        w.hill(declarer, under * p * c.remiz_multiplier, "R-W9" if checked_ten else "R-P1")

    if not checked_ten:
        if len(whisters) >= 2:
            # R-P1: two whisters, each writes for his own tricks.
            for s in whisters:
                w.whists(s, declarer, tricks[s] * trick_whists, "R-P1")
        elif len(whisters) == 1:
            _one_whister(w, outcome, c, whisters[0], (first, second), defence_tricks, under)

    if under and (consoled_ten or not checked_ten):
        # R-P1: consolation, by every opponent for himself, the seats sitting out included.
        for seat in _opponents(players, declarer):
            w.whists(seat, declarer, under * c.consolation_whists(p), "R-P1")

    if not checked_ten:
        _liability(w, c, level, p, whisters, tricks, defence_tricks)
    _talon_bonus(w, outcome, c, players, trick_whists)


def _one_whister(
    w: _Writer,
    outcome: DealOutcome,
    c: Conventions,
    whister: int,
    pair: tuple[int, int],
    defence_tricks: int,
    under: int,
) -> None:
    """One whister: both defending hands count for him (R-W3, R-P1), split per whist style."""
    assert outcome.declarer is not None and outcome.contract is not None
    declarer = outcome.declarer
    trick_whists = price(outcome.contract.level) * c.whist_multiplier
    total = defence_tricks * trick_whists
    passer = next((s for s in pair if s != whister), None) if whister in pair else None
    gentleman_split = (
        c.whist_style == "gentleman"
        and under > 0
        and outcome.returned_from is None  # R-P3: the half-whister writes nothing
        and passer is not None
    )
    if gentleman_split:
        assert passer is not None
        # Gentleman's whist: declarer down, whister and passer write the trick whists in halves.
        half = Fraction(total, 2)
        w.whists(whister, declarer, half, "R-P1")
        w.whists(passer, declarer, total - half, "R-P1")
    else:
        rule = "R-P3" if outcome.returned_from is not None else "R-P1"
        w.whists(whister, declarer, total, rule)


def _liability(
    w: _Writer,
    c: Conventions,
    level: int,
    p: int,
    whisters: list[int],
    tricks: Mapping[int, int],
    defence_tricks: int,
) -> None:
    """Responsible whist (R-P2, K96 3.8.6): a whister short of his share pays the hill."""
    need = REQUIREMENT[level]
    if not whisters or defence_tricks >= need:
        return
    cost = p * c.whist_liability
    if len(whisters) == 1:
        w.hill(whisters[0], (need - defence_tricks) * cost, "R-P2")
    elif level in HALF_WHIST_TRICKS:
        share = need // 2
        for s in whisters:
            if tricks[s] < share:
                w.hill(s, (share - tricks[s]) * cost, "R-P2")
    else:
        # On 8, 9 and 10 the second whister alone answers for the trick (R-W2).
        w.hill(whisters[-1], (need - defence_tricks) * cost, "R-P2")


def _score_pass_out(
    w: _Writer, outcome: DealOutcome, c: Conventions, players: int, streak: int
) -> None:
    assert outcome.tricks is not None
    rate = pass_out_rate(c, streak)
    # R-R4: seats in order starting from forehand; the dealer on the talon last (talon tricks).
    # At five the dealer's idle partner takes no part in a pass-out.
    order = list(pass_out_seats(players, outcome.dealer))
    tricks = {s: outcome.tricks.get(s, 0) for s in order}
    if c.raspasy_rates == "rostov":
        _score_rostov_pass_out(w, outcome, c, players, order, tricks, rate)
        return
    amnesty = min(tricks.values())
    for s in order:
        w.hill(s, (tricks[s] - amnesty) * rate, "R-R4")
    for s in order:
        if tricks[s] == 0 and (c.dealer_zero_bonus or players == 3 or s != outcome.dealer):
            _zero_bonus(w, c, s, rate)


def _zero_bonus(w: _Writer, c: Conventions, seat: int, rate: int) -> None:
    """The zero-tricks bonus of a pass-out (R-R4, convention ``raspasy_zero``)."""
    if c.raspasy_zero == "hill_minus_two":
        w.hill(seat, -2 * rate, "R-R4")
    elif c.raspasy_zero == "pool_one":
        w.pool(seat, rate, "R-R4")
    else:
        w.pool(seat, 1, "R-R4")


def _score_rostov_pass_out(
    w: _Writer,
    outcome: DealOutcome,
    c: Conventions,
    players: int,
    order: list[int],
    tricks: Mapping[int, int],
    rate: int,
) -> None:
    """Pass-out for whists (K96 3.7.2.2): the lowest taker writes on the others, no amnesty.

    The lowest taker is found among the hands that played; he writes ``rate`` whists per trick
    on every other seat (a four-player dealer for his talon tricks). Several lowest takers share
    what they write equally and write nothing on each other. A seat with no tricks writes one
    point into its pool (convention ``raspasy_zero``).
    """
    hands = [s for s in order if s in playing_seats(players, outcome.dealer)]
    low = min(tricks[s] for s in hands)
    takers = [s for s in hands if tricks[s] == low]
    for s in takers:
        for other in order:
            if other not in takers:
                w.whists(s, other, Fraction(tricks[other] * rate, len(takers)), "R-R5")
    for s in order:
        if tricks[s] == 0:
            _zero_bonus(w, c, s, rate)
