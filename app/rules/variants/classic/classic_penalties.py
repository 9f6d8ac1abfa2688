"""Seed 003's own remizes (K-14..K-16), the classic rule set's entries of the catalogue.

003 names three faults that cost "ремиз в той масти, в которой будет игра": looking at the
talon (19), declaring before one's turn (25) and passing before one's turn (26). A live classic
table never shows the talon early and refuses a call out of turn, so they happen only with real
cards and are recorded like the club's penalties (RULES.md §10). One remiz of the deal's suit
is its value (K-9: ♠ 1, ♣ 2, ♦ 3, ♥ 4), written into the offender's hill; a redeal has no suit
and carries no penalty (K-6). Clause 19 also puts the offender out of the deal ("лишается права
участвовать в игре на эту сдачу"): a record that shows him declaring or whisting is refused.
"""

from __future__ import annotations

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.scoring.penalties import CatalogueEntry
from app.rules.variants.classic.classic_values import classic_price


def one_remiz(outcome: DealOutcome, conventions: Conventions, min_level: int) -> int:
    """K-14..K-16: one remiz in the suit of the deal's game (K-9)."""
    assert outcome.contract is not None  # classic_refusal admits penalties on games only
    return classic_price(outcome.contract)


def out_of_the_deal(outcome: DealOutcome, seat: int) -> str | None:
    """K-14: a seat that looked at the talon neither declares nor whists this deal."""
    if seat == outcome.declarer:
        return "the seat that looked at the talon is out of the deal and cannot declare (003, 19)"
    if outcome.defence.get(seat) == "whist":
        return "the seat that looked at the talon is out of the deal and cannot whist (003, 19)"
    return None


ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "talon_looked", "K-14", "any",
        "one remiz of the deal's suit (♠ 1, ♣ 2, ♦ 3, ♥ 4) into the offender's hill, and he sits "
        "the deal out (003, 19: «ставит ремиз в той масти, в которой будет игра, и лишается "
        "права участвовать в игре на эту сдачу»)",
        {"ru": "Посмотрел талон", "en": "Looked at the talon"}, one_remiz, out_of_the_deal,
    ),
    CatalogueEntry(
        "declared_out_of_turn", "K-15", "playing",
        "one remiz of the deal's suit into the offender's hill (003, 25: «За объявление игры не "
        "по порядку… ставится ремиз в той масти, в которой будут играть»)",
        {"ru": "Объявил игру прежде руки", "en": "Declared out of turn"}, one_remiz,
    ),
    CatalogueEntry(
        "passed_out_of_turn", "K-16", "playing",
        "one remiz of the deal's suit into the offender's hill (003, 26: «Точно так же ставится "
        "ремиз и за пасовку прежде руки»)",
        {"ru": "Спасовал прежде руки", "en": "Passed out of turn"}, one_remiz,
    ),
)  # fmt: skip
"""003's remizes, by the catalogue ids a ``pulka/1`` record names."""

IDS = frozenset(e.id for e in ENTRIES)
"""The ids a classic record may name besides the scorer's ``entry_error``."""
