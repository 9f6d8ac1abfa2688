"""Luck apart from skill (issue 27): what a player's cards were worth and what he lost, in whists.

The input is one finished deal: the pulka as it stood before the deal, the deal's outcome and
its double-dummy analysis (``app.rules.search.deal_analysis``, read here as plain data). Every
figure is the deal's value to a player in whists, with the pulka's own scoring: a hypothetical
outcome is scored by :meth:`Pulka.record` (so a rule set's bombs, pass-out streaks and prices
count as they would have), and its writes are turned into whists by the settlement's formula
restricted to the deal (:func:`deal_value`). docs/luck.md defines each figure and says why.

* ``worth`` — his ten cards as dealt, played by him as declarer of the best game (or a clean
  misère) they make double-dummy, both defenders whisting; 0 when they make none.
* ``bidding`` — the declarer's loss against declaring the same strain at the level his best
  discard makes double-dummy, with that discard; a misère that is caught double-dummy costs
  its double-dummy value against not playing it.
* ``defence`` — a defender's loss against the other call (whist or pass), the partner's call
  kept, the declarer taking his double-dummy tricks.
* ``play`` — the tricks his cards gave away against best play, each valued at the deal's price;
  a defender's share of what the defence gave away is in proportion to his own costly cards.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from app.rules.core.outcome import Contract, DealOutcome, DefenceCall, Strain
from app.rules.core.prices import REQUIREMENT
from app.rules.core.rule_errors import RulesError
from app.rules.core.seats import defenders
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.settlement import POOL_FACTOR
from app.rules.scoring.sheet import WHISTS_PER_POINT, Entry

LUCK_VERSION = 1
"""Stored beside every figure: a later definition is a new version, never a silent re-read."""
STRAIN_ORDER: tuple[Strain, ...] = ("S", "C", "D", "H", "NT")
ZERO = Fraction(0)


@dataclasses.dataclass(frozen=True, slots=True)
class SeatLuck:
    """One player's figures for one deal, in whists (losses are never negative)."""

    worth: Fraction
    bidding: Fraction = ZERO
    defence: Fraction = ZERO
    play: Fraction = ZERO
    complete: bool = True
    """False when the analysis stopped marking cards before the end (its time cap)."""

    @property
    def lost(self) -> Fraction:
        """Everything he lost to double-dummy in this deal."""
        return self.bidding + self.defence + self.play


def deal_value(entries: Sequence[Entry], players: int, closing: str) -> tuple[Fraction, ...]:
    """Each seat's worth of one deal's writes in whists: the settlement (R-P4, R-P9) of a sheet
    holding only these writes. A pool point counts as the hill points it saves at the close
    (twice under ``double``, once otherwise), a hill point is ten whists against the mean.

    >>> e = [Entry(0, 0, "pool", Fraction(2), "R-P1"),
    ...      Entry(0, 1, "whists", Fraction(4), "R-P1", 0)]
    >>> [str(v) for v in deal_value(e, 3, "double")]
    ['68/3', '-28/3', '-40/3']
    """
    factor = POOL_FACTOR.get(closing, 1)
    hill = [ZERO] * players
    net = [ZERO] * players
    for e in entries:
        if e.column == "hill":
            hill[e.seat] += e.amount
        elif e.column == "pool":
            hill[e.seat] -= factor * e.amount
        elif e.on is not None:
            net[e.seat] += e.amount
            net[e.on] -= e.amount
    mean = sum(hill, ZERO) / players
    return tuple(WHISTS_PER_POINT * (mean - hill[i]) + net[i] for i in range(players))


def value_of(pulka: Pulka, outcome: DealOutcome) -> tuple[Fraction, ...] | None:
    """What ``outcome``, recorded as the pulka's next deal, is worth to each seat; ``None``
    when it could not have been recorded there (a level below the pulka's lowest, a call its
    rules refuse)."""
    try:
        _, entries = pulka.record(outcome)
    except RulesError:
        return None
    return deal_value(entries, pulka.players, pulka.conventions.closing)


def shifted(
    tricks: Mapping[int, int], seat: int, target: int, others: Sequence[int]
) -> dict[int, int] | None:
    """``tricks`` with ``seat`` holding ``target`` (0..10): the difference is taken from the
    other seat holding most (tie: the first of ``others``) or given to the one holding
    fewest; ``None`` when the others hold too few."""
    out = dict(tricks)
    target = max(0, min(10, target))
    delta = target - out[seat]
    out[seat] = target
    rank = {s: i for i, s in enumerate(others)}
    while delta > 0:
        holders = [s for s in others if out[s] > 0]
        if not holders:
            return None
        giver = max(holders, key=lambda s: (out[s], -rank[s]))
        out[giver] -= 1
        delta -= 1
    while delta < 0:
        taker = min(others, key=lambda s: (out[s], rank[s]))
        out[taker] += 1
        delta += 1
    return out


def _gain(pulka: Pulka, better: DealOutcome, actual: DealOutcome, seats: Sequence[int]) -> Fraction:
    """How much more ``better`` is worth than ``actual`` to ``seats`` together (0 when either
    could not be recorded, or ``better`` is not better)."""
    good, real = value_of(pulka, better), value_of(pulka, actual)
    if good is None or real is None:
        return ZERO
    return max(ZERO, sum((good[s] - real[s] for s in seats), ZERO))


def card_worth(pulka: Pulka, dealer: int, seat: int, analysis: Mapping[str, Any]) -> Fraction:
    """What ``seat``'s ten cards as dealt are worth as declarer: the best of the games his
    makeable row makes (level = tricks, at most 10) and a misère the defenders cannot catch,
    each scored as the pulka's next deal; 0 for none. The defenders whist (sharing their tricks
    evenly, the first the odd one) when their double-dummy tricks reach the whist requirement
    (R-P2), else both pass; a game below the pulka's lowest level is not declarable."""
    row = analysis.get("makeable", {}).get(str(seat), {})
    first, second = defenders(pulka.players, dealer, seat)
    best = ZERO
    candidates: list[DealOutcome] = []
    for strain in STRAIN_ORDER:
        made = int(row.get(strain, 0))
        if made < 6:
            continue
        level = min(made, 10)
        defence = 10 - made
        whist = defence >= REQUIREMENT[level] and not (
            level == 10 and pulka.conventions.ten_checked
        )
        call: DefenceCall = "whist" if whist else "pass"
        candidates.append(
            DealOutcome(
                dealer=dealer,
                kind="game",
                declarer=seat,
                contract=Contract(level, strain),
                defence={first: call, second: call},
                tricks={seat: made, first: (defence + 1) // 2, second: defence // 2}
                if whist
                else None,
            )
        )
    if analysis.get("misere", {}).get(str(seat), {}).get("tricks") == 0:
        candidates.append(
            DealOutcome(
                dealer=dealer,
                kind="misere",
                declarer=seat,
                tricks={seat: 0, first: 5, second: 5},
            )
        )
    for outcome in candidates:
        value = value_of(pulka, outcome)
        if value is not None:
            best = max(best, value[seat])
    return best


def _at_tricks(outcome: DealOutcome, seat: int, target: int, others: Sequence[int]) -> DealOutcome:
    """``outcome`` with ``seat`` taking ``target`` tricks (unchanged when it was not played)."""
    if outcome.tricks is None:
        return outcome
    tricks = shifted(outcome.tricks, seat, target, others)
    return outcome if tricks is None else dataclasses.replace(outcome, tricks=tricks)


def _bidding(
    pulka: Pulka, o: DealOutcome, contract: Mapping[str, Any], best: Mapping[str, Any] | None
) -> Fraction:
    """The declarer's loss in the bidding and the discard (see the module's doc)."""
    assert o.declarer is not None
    pair = defenders(pulka.players, o.dealer, o.declarer)
    dd = int(contract["tricks"])
    actual = _at_tricks(o, o.declarer, dd, pair)
    if o.kind == "misere":
        value = value_of(pulka, actual)
        return max(ZERO, -value[o.declarer]) if value is not None and dd > 0 else ZERO
    assert o.contract is not None
    reach = int(best["tricks"]) if best else dd
    level = max(6, pulka.next_min_level(), min(reach, 10))
    if level > 10:
        return ZERO
    better = _at_tricks(
        dataclasses.replace(o, contract=dataclasses.replace(o.contract, level=level)),
        o.declarer,
        reach,
        pair,
    )
    return _gain(pulka, better, actual, (o.declarer,))


def _defence(pulka: Pulka, o: DealOutcome, dd: int) -> dict[int, Fraction]:
    """Each defender's loss against his other call (whist ↔ pass), at the double-dummy
    result; calls other than plain whist and pass (half-whist, a returned whist) are not
    judged."""
    assert o.declarer is not None
    pair = defenders(pulka.players, o.dealer, o.declarer)
    out = {s: ZERO for s in pair}
    if o.returned_from is not None or any(o.defence.get(s) not in ("whist", "pass") for s in pair):
        return out
    calls: dict[int, DefenceCall] = {s: o.defence[s] for s in pair}
    if set(o.defence) - set(pair):
        return out
    actual = _at_tricks(o, o.declarer, dd, pair)
    for seat in pair:
        flipped: dict[int, DefenceCall] = {
            **calls,
            seat: "pass" if calls[seat] == "whist" else "whist",
        }
        whisting = [s for s in pair if flipped[s] == "whist"]
        if not whisting:
            other = dataclasses.replace(o, defence=flipped, tricks=None, play=None)
        elif actual.tricks is not None:
            other = dataclasses.replace(actual, defence=flipped, play=actual.play or "open")
        else:
            mate = next(s for s in pair if s != seat)
            other = dataclasses.replace(
                o,
                defence=flipped,
                tricks={o.declarer: dd, seat: 10 - dd, mate: 0},
                play="open",
            )
        out[seat] = _gain(pulka, other, actual, (seat,))
    return out


def _play(
    pulka: Pulka, o: DealOutcome, plays: Sequence[Mapping[str, Any]], misere: bool
) -> dict[int, Fraction]:
    """The whists each player's costly cards gave away (see the module's doc)."""
    assert o.tricks is not None
    lost: dict[int, int] = {}
    for mark in plays:
        seat, loss = int(mark["seat"]), int(mark.get("loss", 0))
        if loss > 0:
            lost[seat] = lost.get(seat, 0) + loss
    out = {s: ZERO for s in lost}
    if o.kind == "pass_out":
        active = [s for s in o.tricks if s in _active(pulka, o)]
        for seat, tricks in lost.items():
            others = [s for s in active if s != seat]
            better = _at_tricks(o, seat, o.tricks[seat] - tricks, others)
            out[seat] = _gain(pulka, better, o, (seat,))
        return out
    assert o.declarer is not None
    pair = defenders(pulka.players, o.dealer, o.declarer)
    taken = o.tricks[o.declarer]
    sign = -1 if misere else 1
    own = lost.get(o.declarer, 0)
    if own:
        better = _at_tricks(o, o.declarer, taken + sign * own, pair)
        out[o.declarer] = _gain(pulka, better, o, (o.declarer,))
    gifts = sum(lost.get(s, 0) for s in pair)
    if gifts:
        better = _at_tricks(o, o.declarer, taken - sign * gifts, pair)
        side = _gain(pulka, better, o, pair)
        for seat in pair:
            if lost.get(seat):
                out[seat] = side * Fraction(lost[seat], gifts)
    return out


def _active(pulka: Pulka, o: DealOutcome) -> tuple[int, ...]:
    """The seats that play the deal (the four-player dealer sits out)."""
    if pulka.players == 3:
        return (0, 1, 2)
    return tuple(s for s in range(pulka.players) if s != o.dealer)


def weigh_deal(
    pulka: Pulka, outcome: DealOutcome, analysis: Mapping[str, Any]
) -> dict[int, SeatLuck]:
    """Every playing seat's :class:`SeatLuck` for one finished deal.

    ``pulka`` is the pulka as it stood before the deal (the ``pulka`` of its ``deal_started``
    event), ``outcome`` the deal as recorded, ``analysis`` its stored double-dummy analysis.
    """
    seats = [int(s) for s in analysis.get("seats", ())]
    complete = bool(analysis.get("plays_complete", True))
    bidding: dict[int, Fraction] = {}
    defence: dict[int, Fraction] = {}
    play: dict[int, Fraction] = {}
    contract = analysis.get("contract")
    o = outcome
    if contract and o.declarer is not None and o.kind in ("game", "misere"):
        misere = bool(contract.get("misere"))
        bidding[o.declarer] = _bidding(pulka, o, contract, analysis.get("best_discard"))
        if o.kind == "game" and not misere:
            defence = _defence(pulka, o, int(contract["tricks"]))
        if o.tricks is not None:
            play = _play(pulka, o, analysis.get("plays", ()), misere)
    elif o.kind == "pass_out" and o.tricks is not None:
        play = _play(pulka, o, analysis.get("plays", ()), True)
    return {
        seat: SeatLuck(
            worth=card_worth(pulka, o.dealer, seat, analysis),
            bidding=bidding.get(seat, ZERO),
            defence=defence.get(seat, ZERO),
            play=play.get(seat, ZERO),
            complete=complete,
        )
        for seat in seats
    }


__all__ = [
    "LUCK_VERSION",
    "SeatLuck",
    "card_worth",
    "deal_value",
    "shifted",
    "value_of",
    "weigh_deal",
]
