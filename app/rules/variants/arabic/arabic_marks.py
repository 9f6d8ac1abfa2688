"""What an Arabic deal writes of its own on the shared outcome: its marks (``pulka/1`` keys).

The shared :class:`~app.rules.core.outcome.DealOutcome` holds one slot for a rule set's flags,
``marks``; these are seed 004's, declared to the record codec by the registry and read only by
the Arabic rule set's hooks:

* ``no_talon`` (A-13): a misère bid and played without the talon.
* ``dark`` (A-10, A-11): a game won with a dark bid and played at its level (every entry × 2),
  or a pass-out in which somebody passed in the dark (played on a bomb).
* ``open_passes`` (R-A1): on a pass-out with a dark pass, the seats that passed openly, who
  get no bomb for it (a list of seats; absent: nobody passed openly).
* ``preferans`` (A-16): the game is "преферанс" (10NT, all ten tricks), and ``short`` when it
  was declared without nine sure tricks.
"""

from __future__ import annotations

import dataclasses

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome, Mark, mark_seats, seat_marks
from app.rules.deal.state import DealState
from app.rules.variants.arabic.arabic_auction import dark_passed, open_passers
from app.rules.variants.arabic.arabic_deal import dark_game
from app.rules.variants.arabic.arabic_preferans import (
    PREFERANS_CONTRACT,
    SHORT,
    SURE_TRICKS_NEEDED,
    sure_tricks,
)

NO_TALON = "no_talon"
DARK = "dark"
OPEN_PASSES = "open_passes"
PREFERANS = "preferans"

MARKS: tuple[Mark, ...] = (
    Mark(
        NO_TALON,
        frozenset({"misere"}),
        "no_talon is true or false, on a misère (A-13)",
        "misère without the talon is not played here (A-13)",
    ),
    Mark(
        DARK,
        frozenset({"game", "conceded", "pass_out"}),
        "dark is true or false, on a game or a pass-out (A-10, A-11)",
        "dark calls are not played here (A-10, A-11)",
    ),
    Mark(
        OPEN_PASSES,
        frozenset({"pass_out"}),
        "open_passes is a list of seats, on a dark pass-out (R-A1)",
        "dark calls are not played here (A-10, A-11)",
        needs=DARK,
        seats=True,
    ),
    Mark(
        PREFERANS,
        frozenset({"game"}),
        "preferans is true or false, on a game (A-16)",
        "a preferans is 10NT played out, never dark or halves (A-16)",
    ),
    Mark(
        SHORT,
        frozenset({"game"}),
        "short is true or false, on a preferans (A-16)",
        "a preferans is 10NT played out, never dark or halves (A-16)",
        needs=PREFERANS,
    ),
)
"""In the order ``pulka/1`` writes them (and has since before the marks were a slot)."""
_REFUSED = {mark.key: mark.refused for mark in MARKS}


def deal_marks(state: DealState, outcome: DealOutcome) -> DealOutcome:
    """The finished deal's outcome with its Arabic marks; no halves on a "преферанс" (A-16)."""
    marks: set[str] = set()
    if outcome.kind == "pass_out":
        if state.auction is not None and dark_passed(state.auction):
            marks.add(DARK)
            marks |= seat_marks(OPEN_PASSES, open_passers(state.auction))  # R-A1
    elif outcome.kind == "misere":
        if state.bid == "misere_bp":
            marks.add(NO_TALON)
    elif dark_game(state):
        marks.add(DARK)
    if outcome.kind == "game" and state.bid == "preferans":
        marks.add(PREFERANS)
        assert outcome.declarer is not None
        if sure_tricks(state.dealt[outcome.declarer]) < SURE_TRICKS_NEEDED:
            marks.add(SHORT)
        outcome = dataclasses.replace(outcome, misere_partner=None)
    if not marks:
        return outcome
    return dataclasses.replace(outcome, marks=frozenset(marks))


def marks_refusal(outcome: DealOutcome, c: Conventions) -> tuple[str, str] | None:
    """Why a recorded deal's marks cannot be under ``c``, as ``(field, message)``, or ``None``."""
    marks = outcome.marks
    if PREFERANS in marks and (
        not c.preferans_contract
        or outcome.contract != PREFERANS_CONTRACT
        or outcome.tricks is None
        or DARK in marks
        or outcome.misere_partner is not None
    ):
        return PREFERANS, _REFUSED[PREFERANS]
    if any(s not in (outcome.tricks or {}) for s in mark_seats(marks, OPEN_PASSES)):
        return OPEN_PASSES, "open_passes names the seats that passed openly (R-A1)"
    if DARK in marks and not c.dark_calls:
        return DARK, _REFUSED[DARK]
    if NO_TALON in marks and not c.no_talon_games:
        return NO_TALON, _REFUSED[NO_TALON]
    return None
