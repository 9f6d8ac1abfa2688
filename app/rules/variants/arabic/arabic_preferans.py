"""Seed 004's "преферанс" (A-16): all ten tricks at no trumps, the opponents discarding and
playing for the declarer, and how the sheet writes it.

* :func:`sure_tricks`: the tricks a hand takes whoever holds the other cards, at no trumps, so
  that the engine knows whether it was declared with the nine 004 demands ("обязан иметь на
  руках минимум 9 взяток").
* :func:`start_preferans`: after the first defender's discard for him, the play (the Arabic
  rule set's ``after_discard`` deal hook).
* :func:`preferans_entries`: made, it closes the declarer's pool, clears his hill and every
  whist written on him; failed, nothing is written. Declared short of nine sure tricks, the
  convention ``preferans_short_hill`` goes into his hill after that, whatever the result (the
  ``own_entries`` pulka hook).
"""

from __future__ import annotations

from fractions import Fraction

from app.rules.core.actions import Event
from app.rules.core.auction import call_text
from app.rules.core.cards import CardMask
from app.rules.core.outcome import Contract, DealOutcome
from app.rules.deal.phases.tricks import start_play
from app.rules.deal.state import DealState, Transition, defenders_of, evolve
from app.rules.scoring.sheet import Entry, Sheet

SHORT = "short"
"""The mark of a "преферанс" declared short of nine sure tricks (:mod:`.arabic_marks`)."""

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


def start_preferans(state: DealState, events: list[Event]) -> Transition:
    """A-16: ten tricks at no trumps, not whisted (like a checked ten, R-W9): both defenders
    play against it, the declarer's hand open on the table and played by the first defender
    ("ходы за игрока делают противники")."""
    declarer = state.declarer
    assert declarer is not None
    events.append(
        Event("contract_named", {"seat": declarer, "contract": call_text(PREFERANS_CONTRACT)})
    )
    d1, d2 = defenders_of(state)
    state = evolve(
        state, contract=PREFERANS_CONTRACT, trump=None, calls=((d1, "pass"), (d2, "pass"))
    )
    state, done = start_play(
        state, events, whisters=(), mode="closed", open_mask=1 << declarer, now=True
    )
    controllers = list(state.controllers)
    controllers[declarer] = d1
    assert state.turn is not None
    return evolve(state, controllers=tuple(controllers), to_move=controllers[state.turn]), done


def preferans_entries(
    outcome: DealOutcome, sheet: Sheet, target: int, deal: int, short_hill: int
) -> list[Entry]:
    """A-16: the writes of a played "преферанс" (the ``preferans`` mark)."""
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
    if SHORT in outcome.marks:
        out.append(Entry(deal, declarer, "hill", Fraction(short_hill), "A-16"))
    return out
