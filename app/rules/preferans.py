"""Seed 004's "преферанс" contract (A-16): all ten tricks, the opponents discarding and playing
for the declarer.

Pure scoring and counting, used by the engine (:mod:`app.rules.phases.contract`) and by
:class:`app.rules.pulka.Pulka`:

* :func:`sure_tricks`: the tricks a hand takes whoever holds the other cards, at no trumps (the
  contract is played without trumps), so that the engine knows whether it was declared with the
  nine 004 demands ("обязан иметь на руках минимум 9 взяток").
* :func:`preferans_entries`: made, it closes the declarer's pool, clears his hill and every whist
  written on him; failed, nothing is written. Declared short of nine sure tricks, the
  convention ``preferans_short_hill`` goes into his hill after that, whatever the result.
"""

from __future__ import annotations

from fractions import Fraction

from app.rules.cards import CardMask
from app.rules.outcome import Contract, DealOutcome
from app.rules.sheet import Entry, Sheet

PREFERANS_CONTRACT = Contract(10, "NT")
"""A-16: the contract as the sheet and ``pulka/1`` see it: ten tricks at no trumps."""
SURE_TRICKS_NEEDED = 9
"""A-16: "обязан иметь на руках минимум 9 взяток"."""
_SUIT_CARDS = 8


def sure_tricks(hand: CardMask) -> int:
    """Tricks ``hand`` takes at no trumps against any layout: in each suit its unbroken run
    from the ace, and every card of the suit once that run has drawn all the others' cards."""
    total = 0
    for suit in range(4):
        cards = hand >> (suit * _SUIT_CARDS) & 0xFF
        held = cards.bit_count()
        top = 0
        while top < _SUIT_CARDS and cards >> (_SUIT_CARDS - 1 - top) & 1:
            top += 1
        total += held if top >= _SUIT_CARDS - held else top
    return total


def preferans_entries(
    outcome: DealOutcome, sheet: Sheet, target: int, deal: int, short_hill: int
) -> list[Entry]:
    """A-16: the writes of a played "преферанс" (``outcome.preferans``)."""
    declarer = outcome.declarer
    assert declarer is not None and outcome.tricks is not None
    out: list[Entry] = []
    if outcome.tricks.get(declarer, 0) == 10:
        missing = Fraction(target) - sheet.pool[declarer]
        if missing > 0:
            out.append(Entry(deal, declarer, "pool", missing, "A-16"))
        if sheet.hill[declarer]:
            out.append(Entry(deal, declarer, "hill", -sheet.hill[declarer], "A-16"))
        for writer, row in enumerate(sheet.whists):
            if writer != declarer and row[declarer]:
                out.append(Entry(deal, writer, "whists", -row[declarer], "A-16", on=declarer))
    if outcome.preferans_short:
        out.append(Entry(deal, declarer, "hill", Fraction(short_hill), "A-16"))
    return out
