"""Seed 004's own penalties (A-23..A-25), the arabic rule set's entries of the catalogue.

They are recorded at real-cards tables like the club's (RULES.md §10): a live table enforces
the suit, keeps every card hidden in the deal and takes no pledge, so none of them can happen
there. The two that write something write "игра… с учетом бомбы": the price of the deal's game
(a misère 10; a pass-out its lowest game, as R-X6 reads "the declared game"), which the arabic
sheet then multiplies by the deal's factor like any game entry (R-A4: only R-X* fines, the A-7
fine and the spit stand as written).
"""

from __future__ import annotations

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.scoring.penalties import CatalogueEntry, declared_price


def game_price(outcome: DealOutcome, conventions: Conventions, min_level: int) -> int:
    """A-23, A-24: "пишется в гору игра": the deal's game at its price, before its bomb."""
    return declared_price(outcome, min_level)


ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "off_suit_discard", "A-23", "playing",
        "the deal's game into the offender's hill, times the deal's bomb (004: «Снос не по "
        "масти — провинившемуся пишется в гору игра с учетом бомбы»)",
        {"ru": "Снос не по масти", "en": "Off-suit discard"}, game_price,
    ),
    CatalogueEntry(
        "pledge_proven", "A-24", "playing",
        "the deal's game into the offender's hill, times the bomb it was played on (004: «За "
        "заклад (который можно доказать) — игроку пишется игра в гору с учетом бомбы»)",
        {"ru": "Заклад, доказанный", "en": "Pledge, proven"}, game_price,
    ),
    CatalogueEntry(
        "pledge_unproven", "A-24", "playing",
        "none (004: «За недоказуемый заклад… ничего не пишется»)",
        {"ru": "Заклад, недоказуемый", "en": "Pledge, not provable"},
    ),
    CatalogueEntry(
        "card_exposed_kept", "A-25", "playing",
        "none: a card showed in the deal and the player it was dealt to chose to play on (004: "
        "«ничего не пишется, но пересдавать или нет решает тот игрок»); had he chosen a "
        "redeal, the deal is void (R-X1)",
        {"ru": "Открылась карта при сдаче", "en": "Card exposed in the deal"},
    ),
)  # fmt: skip
"""004's penalties, by the catalogue ids a ``pulka/1`` record names."""
